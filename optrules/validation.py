"""Parameter parsing shared by the public functions and the CLI."""

import math
from fractions import Fraction

__all__ = ["parse_fraction", "fraction_text"]


def parse_fraction(name, value, *, low, high, function, low_inclusive=False,
                   high_inclusive=False):
    """Convert ``value`` to an exact Fraction between low and high (ends open unless inclusive).

    Strings are parsed exactly (``"0.01"`` is 1/100, ``"1/100"`` likewise); floats go through
    their shortest decimal repr (``0.01`` is 1/100, not the binary double); ints and Fractions
    are taken as they are.

    Raises
    ------
    TypeError
        For a value of another type (bool included).
    ValueError
        For unparsable text, non-finite floats, or values outside (low, high).
    """
    where = f"The {name!r} parameter of {function}"
    if isinstance(value, bool) or not isinstance(value, (str, int, float, Fraction)):
        raise TypeError(f"{where} must be a fraction, number or string like '0.01'. "
                        f"Got {value!r} instead.")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where} must be finite. Got {value!r} instead.")
    try:
        exact = Fraction(repr(value) if isinstance(value, float) else value)
    except (ValueError, ZeroDivisionError) as error:
        raise ValueError(f"{where} must be a number like '0.01' or '1/100'. "
                         f"Got {value!r} instead.") from error
    if not (low <= exact if low_inclusive else low < exact) or \
            not (exact <= high if high_inclusive else exact < high):
        interval = f"{'[' if low_inclusive else '('}{low}, {high}{']' if high_inclusive else ')'}"
        raise ValueError(f"{where} must be a fraction in {interval}. Got {value!r} instead.")
    return exact


def fraction_text(value):
    """An exact rational as ``"p/q"`` (``"0/1"`` for zero), the JSON form of exact numbers."""
    value = Fraction(value)
    return f"{value.numerator}/{value.denominator}"
