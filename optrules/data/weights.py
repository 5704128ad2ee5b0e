"""Exact sample weights: read as rationals, held as small integers times one common unit.

A weight w_n >= 0 is read exactly (an integer, a decimal such as ``0.25`` or ``"1e-3"``, a
fraction such as ``"1/3"``; a float through its shortest decimal, so ``0.1`` is 1/10). The
weights are then written as ``w_n = unit * k_n`` with non-negative integers k_n whose greatest
common divisor is 1: every objective that divides by the total weight is unchanged by the
unit, so engines count in the integers k_n. Weight k means exactly k copies of the row.
Weights that would need more than 2**53 units (floats with 16 digits) are rounded to a power
of 2's multiples, with a warning, when that changes none by more than 2**-20 of itself.

Specs: ``specs/rule-lists.md`` §11 (weights in the rule-list problem).
"""

import math
import warnings
from fractions import Fraction
from functools import reduce
from pathlib import Path

import numpy as np

from optrules.validation import exact_number, shown

__all__ = ["MAX_TOTAL_WEIGHT", "ROUNDING_TOLERANCE", "RoundedWeightsWarning",
           "integer_weights", "read_weights"]

#: Largest total of the integer weights k_n: 2**53, so that every sum of weights is exact in a
#: float64 too (the fast engines count with float matrix products).
MAX_TOTAL_WEIGHT = 1 << 53
#: A common denominator beyond this cannot give a total within MAX_TOTAL_WEIGHT unless the
#: weights share a huge factor; refusing it early keeps reading fast (no lcm of thousands of
#: distinct denominators).
_MAX_DENOMINATOR = 1 << 106
#: Weights that need more than 2**53 units are rounded only if no positive weight changes by
#: more than this share of itself.
ROUNDING_TOLERANCE = Fraction(1, 1 << 20)


class RoundedWeightsWarning(UserWarning):
    """Sample weights were rounded to fit exact integer counts (:func:`integer_weights`)."""


def integer_weights(values, where="sample_weight", position="sample"):
    """Exact weights as ``(k, unit)``: int64 integers k (N,) with gcd 1 and a Fraction unit,
    so that weight n is ``unit * k[n]``.

    Parameters
    ----------
    values : sequence or array of numbers or numeric strings, length N
    where : str
        What the weights are, for messages (a parameter, a file or a column).
    position : str
        What one entry is called in messages ("sample", "line", "row").

    Raises
    ------
    ValueError
        For a non-numeric, negative, NaN or infinite entry (naming its 1-based position), no
        entries, a zero total, or a total that needs more than 2**53 units (too many decimal
        places on too many rows).

    Examples
    --------
    >>> k, unit = integer_weights([0.5, 1.5, "1/2", 0])
    >>> k.tolist(), unit
    ([1, 3, 1, 0], Fraction(1, 2))
    """
    values = list(values)     # numpy scalars stay numpy scalars (float32 read as float32)
    if not values:
        raise ValueError(f"{where}: no weights were given.")
    exact = [_weight(value, where, position, n) for n, value in enumerate(values, start=1)]
    if not any(exact):
        raise ValueError(f"{where}: all weights are zero; at least one {position} needs a "
                         "positive weight.")
    denominator = 1
    for weight in exact:
        denominator = math.lcm(denominator, weight.denominator)
        if denominator > _MAX_DENOMINATOR:    # stop before the integers grow without bound
            return _rounded(exact, where)
    scaled = [w.numerator * (denominator // w.denominator) for w in exact]
    divisor = reduce(math.gcd, scaled, 0)
    counts = [k // divisor for k in scaled]
    if sum(counts) > MAX_TOTAL_WEIGHT:
        return _rounded(exact, where)
    return np.array(counts, dtype=np.int64), Fraction(divisor, denominator)


def _rounded(exact, where):
    """``(k, unit)`` of weights whose exact integers would total more than 2**53 (floats
    such as scikit-learn's balanced class weights have 16 digits): each rounded to the
    nearest multiple of the finest power of 2 that keeps the total within 2**53, with a
    warning, if no positive weight changes by more than :data:`ROUNDING_TOLERANCE` of
    itself; ValueError otherwise (weights of very different sizes)."""
    total, room = sum(exact), Fraction(MAX_TOTAL_WEIGHT - len(exact))   # rounding adds < n
    ratio = room / total
    exponent = ratio.numerator.bit_length() - ratio.denominator.bit_length()
    if Fraction(2) ** exponent > ratio:
        exponent -= 1                                       # 2**exponent <= room / total
    scale = Fraction(2) ** exponent
    counts = [round(weight * scale) for weight in exact]
    change = max(abs(k / scale - w) / w for k, w in zip(counts, exact) if w)
    if change > ROUNDING_TOLERANCE:
        raise ValueError(
            f"{where}: the weights are too large or have too many decimal places: in integer "
            "multiples of one common unit they would total more than 2**53, and rounding them "
            f"to fewer units would change a weight by {float(change):.3g} of itself; round "
            "them.")
    warnings.warn(f"{where}: the weights have more digits than exact counts allow (more than "
                  "2**53 units of one common unit); each is rounded to a multiple of "
                  f"2**{-exponent}, changing it by at most {float(change):.1e} of itself, and "
                  "the rule list is optimal for the rounded weights.", RoundedWeightsWarning,
                  stacklevel=3)
    divisor = reduce(math.gcd, counts, 0)
    return np.array([k // divisor for k in counts], dtype=np.int64), divisor / scale


def _weight(value, where, position, number):
    if isinstance(value, np.floating):
        # str() is a numpy float's shortest decimal in its own precision ('0.1' for
        # np.float32(0.1)); .item() would widen it to 0.10000000149011612.
        value = str(value) if np.isfinite(value) else float(value)
    elif isinstance(value, np.generic):
        value = value.item()
    try:
        if isinstance(value, bool) or not isinstance(value, (int, float, str, Fraction)):
            raise TypeError
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError
        weight = exact_number(value.strip() if isinstance(value, str) else value)
    except (TypeError, ValueError, ZeroDivisionError):
        raise ValueError(f"{where}, {position} {number}: {shown(value)} is not a number; a "
                         "weight is a finite number >= 0 such as 2, 0.25 or 1/3.") from None
    if weight < 0:
        raise ValueError(f"{where}, {position} {number}: the weight {shown(value)} is "
                         "negative; weights are >= 0.")
    return weight


def read_weights(path, n_samples):
    """The exact weights (a list of Fractions) of a text file with one weight per line, in
    sample order, checked as :func:`integer_weights` checks them.

    Blank lines are errors (a weight per sample); one final newline is allowed.

    Raises
    ------
    ValueError
        Naming the file and line: unreadable file, a bad entry, or a number of lines other than
        ``n_samples``.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as error:
        raise ValueError(f"{path}: cannot read the weights file ({error.strerror}).") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: the weights file is not UTF-8 text.") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line.rstrip("\r") for line in lines]
    if len(lines) != n_samples:
        raise ValueError(f"{path}: {len(lines)} weight line{'s' if len(lines) != 1 else ''} "
                         f"for {n_samples} samples; give one weight per line, in sample order.")
    counts, unit = integer_weights(lines, str(path), "line")
    return [unit * int(k) for k in counts]
