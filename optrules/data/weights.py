"""Exact sample weights: read as rationals, held as small integers times one common unit.

A weight w_n >= 0 is read exactly (an integer, a decimal such as ``0.25`` or ``"1e-3"``, a
fraction such as ``"1/3"``; a float through its shortest decimal, so ``0.1`` is 1/10). The
weights are then written as ``w_n = unit * k_n`` with non-negative integers k_n whose greatest
common divisor is 1: every objective that divides by the total weight is unchanged by the
unit, so engines count in the integers k_n. Weight k means exactly k copies of the row.

Specs: ``specs/rule-lists.md`` §11 (weights in the rule-list problem).
"""

import math
from fractions import Fraction
from functools import reduce
from pathlib import Path

import numpy as np

from optrules.validation import exact_number, shown

__all__ = ["MAX_TOTAL_WEIGHT", "integer_weights", "read_weights"]

#: Largest total of the integer weights k_n: 2**53, so that every sum of weights is exact in a
#: float64 too (the fast engines count with float matrix products).
MAX_TOTAL_WEIGHT = 1 << 53
#: A common denominator beyond this cannot give a total within MAX_TOTAL_WEIGHT unless the
#: weights share a huge factor; refusing it early keeps reading fast (no lcm of thousands of
#: distinct denominators).
_MAX_DENOMINATOR = 1 << 106


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
    too_fine = ValueError(
        f"{where}: the weights are too large or have too many decimal places: in integer "
        "multiples of one common unit they would total more than 2**53; round them.")
    denominator = 1
    for weight in exact:
        denominator = math.lcm(denominator, weight.denominator)
        if denominator > _MAX_DENOMINATOR:    # stop before the integers grow without bound
            raise too_fine
    scaled = [w.numerator * (denominator // w.denominator) for w in exact]
    divisor = reduce(math.gcd, scaled, 0)
    if divisor == 0:
        raise ValueError(f"{where}: all weights are zero; at least one {position} needs a "
                         "positive weight.")
    counts = [k // divisor for k in scaled]
    if sum(counts) > MAX_TOTAL_WEIGHT:
        raise too_fine
    return np.array(counts, dtype=np.int64), Fraction(divisor, denominator)


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
