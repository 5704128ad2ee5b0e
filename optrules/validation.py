"""Parameter validation at the edge: declarative constraint tables and exact number parsing.

Public functions and estimators describe their parameters once, in a table mapping each name to
the constraints it may satisfy (scikit-learn's ``_parameter_constraints`` style)::

    CONSTRAINTS = {"lam": [ExactFraction(0, 1)], "max_nodes": [Integer(1), None],
                   "policy": [Options(("lower-bound", "bfs"))]}
    resolved = validate_params(CONSTRAINTS, {"lam": "0.01", ...}, "fit_rule_list")

and :func:`validate_params` returns the canonical values (``Fraction(1, 100)``) or raises a
``TypeError`` (wrong type) or ``ValueError`` (wrong value) whose message names the parameter,
its owner and the valid values: ``The 'lam' parameter of fit_rule_list must be a fraction in
(0, 1). Got -0.1 instead.``

Numbers may be Python or numpy scalars (``np.float64(0.015)``, ``np.int64(2)``), so a sweep
built with ``np.linspace`` works. Exact fractions read floats through their shortest decimal
representation: ``0.01`` and ``np.float64(0.01)`` both mean 1/100.
"""

import math
import numbers
import os
import re
from fractions import Fraction
from pathlib import Path

import numpy as np

__all__ = ["parse_fraction", "exact_number", "fraction_text", "fraction_from_text", "read_json",
           "write_text_atomically", "json_object",
           "json_number", "shown", "parse_thresholds",
           "validate_params", "ExactFraction", "Integer", "Real", "Options", "Subset",
           "Sequence", "Boolean", "Callable", "Thresholds", "KindAndShare"]


def _where(name, owner):
    return f"The {name!r} parameter of {owner}"


def _interval_text(low, high, low_inclusive, high_inclusive):
    return (f"{'[' if low_inclusive else '('}{low}, {high}{']' if high_inclusive else ')'}")


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def parse_fraction(name, value, *, low, high, function, low_inclusive=False,
                   high_inclusive=False):
    """Convert ``value`` to an exact Fraction between low and high (ends open unless inclusive).

    Strings are parsed exactly (``"0.01"`` is 1/100, ``"1/100"`` likewise); floats, numpy
    floats included, go through their shortest decimal representation (``0.01`` is 1/100, not
    the binary double); integers (numpy's too) and Fractions are taken as they are.

    Raises
    ------
    TypeError
        For a value of another type (bool included).
    ValueError
        For unparsable text, non-finite floats, or values outside (low, high).

    Examples
    --------
    >>> parse_fraction("lam", np.float64(0.015), low=0, high=1, function="f")
    Fraction(3, 200)
    """
    where = _where(name, function)
    if isinstance(value, np.floating):
        # str() of a numpy float is its shortest decimal in its own precision ('0.015' for
        # np.float32(0.015)); repr() would give 'np.float32(0.015)'.
        value = str(value) if math.isfinite(value) else float(value)
    elif isinstance(value, np.integer):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, (str, int, float, Fraction)):
        raise TypeError(f"{where} must be a fraction, number or string like '0.01'. "
                        f"Got {value!r} instead.")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where} must be finite. Got {value!r} instead.")
    try:
        exact = exact_number(value)
    except (ValueError, ZeroDivisionError) as error:
        raise ValueError(f"{where} must be a number like '0.01' or '1/100'. "
                         f"Got {value!r} instead.") from error
    if not (low <= exact if low_inclusive else low < exact) or \
            not (exact <= high if high_inclusive else exact < high):
        interval = _interval_text(low, high, low_inclusive, high_inclusive)
        raise ValueError(f"{where} must be a fraction in {interval}. Got {value!r} instead.")
    if max(abs(exact.numerator), exact.denominator) >= _TOO_MANY_DIGITS:
        raise ValueError(f"{where} must have at most {_MAX_DIGITS} digits above and below its "
                         f"fraction bar. Got {shown(value)} instead.")
    return exact


#: The most digits of a parameter's numerator and denominator: the exact results it enters
#: (objectives, bounds) must still be written out, and Python turns integers of at most
#: 4 300 digits into text.
_MAX_DIGITS = 1000
_TOO_MANY_DIGITS = 10**_MAX_DIGITS


#: A decimal exponent in text ("1e-5"), its leading zeros aside.
_EXPONENT = re.compile(r"[eE][+-]?0*([0-9]+)")


def exact_number(value):
    """``Fraction`` of a str, an int, a float (through its shortest repr) or a Fraction.

    Text with a decimal exponent of more than 4 digits is refused (ValueError):
    ``Fraction("1e-999999999")`` would spend minutes building a billion-digit integer.
    """
    if isinstance(value, str) and any(len(digits) > 4 for digits in _EXPONENT.findall(value)):
        raise ValueError(f"the exponent of {shown(value)} is out of range")
    return Fraction(repr(value) if isinstance(value, float) else value)


def fraction_text(value):
    """An exact rational as ``"p/q"`` (``"0/1"`` for zero), the JSON form of exact numbers."""
    value = Fraction(value)
    return f"{value.numerator}/{value.denominator}"


#: The JSON form of an exact number, as :func:`fraction_text` writes it.
_FRACTION_TEXT = re.compile(r"-?[0-9]+/[0-9]+")


def fraction_from_text(text, what):
    """Inverse of :func:`fraction_text` for a file's field ``what`` (its path, e.g.
    ``"result.lambda"``): exactly ``"p/q"`` with integers p and q > 0.

    Anything else is refused, whatever Python's ``Fraction`` would make of it: ``"1/0"``,
    ``"nan"``, ``"inf"``, ``"0.5"``, ``"1e999999999"`` (which would take minutes to expand),
    numbers, null and other text.

    Raises
    ------
    ValueError
        Naming ``what`` and the value.

    Examples
    --------
    >>> fraction_from_text("3/200", "result.lambda")
    Fraction(3, 200)
    >>> fraction_from_text("1/0", "result.lambda")
    Traceback (most recent call last):
    ...
    ValueError: result.lambda must be an exact number like "1/3"; got '1/0'.
    """
    if isinstance(text, str) and _FRACTION_TEXT.fullmatch(text):
        numerator, _, denominator = text.partition("/")
        try:
            if int(denominator) > 0:
                return Fraction(int(numerator), int(denominator))
        except ValueError:            # more digits than int() reads (sys.get_int_max_str_digits)
            pass
    raise ValueError(f"{what} must be an exact number like \"1/3\"; got {shown(text)}.")


# ----- JSON files --------------------------------------------------------------------------------
# Model files and certificates are read strictly: every error names the file or the field path
# (``model.rules[2].conditions[0]``), so a damaged or edited file is refused with its reason.

def shown(value, limit=80):
    """``repr(value)``, cut to ``limit`` characters: a message never echoes a whole file."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _refuse_constant(literal):
    raise ValueError(f"{literal}, which is not a JSON number")


def _finite_float(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {shown(text)[1:-1]}, beyond the range of floats")
    return value


def _integer(text):
    if len(text) > 4000:      # int() refuses more than 4300 digits with an unnamed error
        raise ValueError(f"an integer of {len(text)} digits, too long to read")
    return int(text)


def write_text_atomically(path, text):
    """Write ``text`` (UTF-8) to ``path`` so that the file is either the old one or the whole
    new one, never a part: a second Ctrl-C (which aborts at once, specs/limits.md) or a full
    disk while writing leaves no truncated model or certificate."""
    import tempfile            # imported where needed, as json below: a fit needs neither
    path = Path(os.path.realpath(path))        # through a symlink, replace its target
    if path.exists() and not path.is_file():   # a device or a pipe is written, not replaced
        path.write_text(text, encoding="utf-8")
        return
    try:
        mode = path.stat().st_mode & 0o7777     # keep an existing file's permissions
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask                   # what a plain open() would give
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                         suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def read_json(path, what):
    """The JSON document in the file ``path``, a ``what`` (``"model file"``, ``"certificate"``).

    Non-finite numbers (``NaN``, ``Infinity``, ``1e999``), which Python's ``json`` would read
    as floats that slip past every range check, are refused, as are integers of thousands of
    digits.

    Raises
    ------
    ValueError
        Naming the file: unreadable (missing, a directory, no permission), not UTF-8 text, not
        one complete JSON document (truncated), nested too deeply, holding such a number, or
        escaping a lone surrogate (``"\\ud800"``, no character).
    """
    import json
    try:
        text = Path(path).read_text(encoding="utf-8-sig")    # a BOM, as CSV files may have
    except OSError as error:
        raise ValueError(f"{path}: cannot read the {what} ({error.strerror or error}).") \
            from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a {what} (not UTF-8 text).") from None
    try:
        document = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float,
                              parse_int=_integer)
        # an escaped lone surrogate ("\\ud800") is no character: it could not be written back,
        # hashed or printed
        json.dumps(document, ensure_ascii=False).encode("utf-8")
        return document
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not a complete JSON document ({error.msg} at line "
                         f"{error.lineno}, column {error.colno}); the file may be truncated or "
                         "corrupted.") from None
    except RecursionError:
        raise ValueError(f"{path}: not a {what} (JSON nested too deeply).") from None
    except UnicodeEncodeError:
        raise ValueError(f"{path}: not a {what} (it escapes a lone surrogate, \\ud800-\\udfff, "
                         "which is no character).") from None
    except ValueError as error:        # from the three number hooks above
        raise ValueError(f"{path}: the {what} holds {error}.") from None


def json_object(value, where, fields, optional=()):
    """``value`` if it is a JSON object with every name of ``fields`` and no name outside
    ``fields`` and ``optional``; ValueError naming the path ``where`` ("" for the whole file)
    and the first missing or unknown field."""
    owner = where or "the file"
    if not isinstance(value, dict):
        raise ValueError(f"{owner} must be a JSON object; got {shown(value)}.")
    missing = [name for name in fields if name not in value]
    if missing:
        raise ValueError(f"{owner} lacks the field {missing[0]!r}.")
    unknown = [name for name in value if name not in fields and name not in optional]
    if unknown:
        raise ValueError(f"{owner} has an unknown field {shown(unknown[0])}; its fields are "
                         f"{', '.join(list(fields) + list(optional))}.")
    return value


def json_number(value, where, *, low=0, integer=False):
    """``value`` if it is a finite JSON number >= ``low`` (never a boolean): when ``integer``,
    an integer below 2**63 (numpy's int64 holds it), else as a float (an integer no float
    holds is refused: numpy would keep it as a Python object); ValueError naming the path
    ``where`` otherwise."""
    number, valid = value, isinstance(value, int if integer else (int, float)) and \
        not isinstance(value, bool)
    if valid and not integer:
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
    if not valid or not low <= number < math.inf:
        raise ValueError(f"{where} must be {'an integer' if integer else 'a finite number'} "
                         f">= {low}; got {shown(value)}.")
    if integer and not -2**63 <= number < 2**63:
        raise ValueError(f"{where} must be an integer of magnitude below 2**63; got "
                         f"{shown(value)}.")
    return number


class _Constraint:
    """One acceptable form of a parameter. ``accepts`` decides by type, ``resolve`` by value."""

    def accepts(self, value):
        raise NotImplementedError

    def resolve(self, name, value, owner):
        """The canonical value, or ValueError naming the parameter."""
        return value


class ExactFraction(_Constraint):
    """A rational number in an interval, returned as a ``Fraction`` (see :func:`parse_fraction`)."""

    def __init__(self, low, high, *, low_inclusive=False, high_inclusive=False):
        self.low, self.high = low, high
        self.low_inclusive, self.high_inclusive = low_inclusive, high_inclusive

    def accepts(self, value):
        return isinstance(value, (str, Fraction)) or _is_number(value)

    def resolve(self, name, value, owner):
        return parse_fraction(name, value, low=self.low, high=self.high, function=owner,
                              low_inclusive=self.low_inclusive,
                              high_inclusive=self.high_inclusive)

    def __str__(self):
        return "a fraction in " + _interval_text(self.low, self.high, self.low_inclusive,
                                                 self.high_inclusive)


class Integer(_Constraint):
    """An integer (Python or numpy, not bool) in ``[low, high]``; returned as ``int``."""

    def __init__(self, low, high=None):
        self.low, self.high = low, high

    def accepts(self, value):
        return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))

    def resolve(self, name, value, owner):
        value = int(value)
        if value < self.low or (self.high is not None and value > self.high):
            raise ValueError(f"{_where(name, owner)} must be {self}. Got {value!r} instead.")
        return value

    def __str__(self):
        if self.high is None:
            return "a positive integer" if self.low == 1 else f"an integer >= {self.low}"
        return f"an integer in [{self.low}, {self.high}]"


class Real(_Constraint):
    """A finite real number (Python or numpy, not bool) > ``low`` (>= with ``inclusive``) and
    < ``high`` when given; returned as ``float``."""

    def __init__(self, low=0, *, inclusive=False, high=None):
        self.low = low
        self.inclusive = inclusive
        self.high = high

    def accepts(self, value):
        return _is_number(value)

    def resolve(self, name, value, owner):
        try:
            value = float(value)
        except OverflowError:
            raise ValueError(f"{_where(name, owner)} must be {self}. Got an integer beyond the "
                             "float range instead.") from None
        above = self.low <= value if self.inclusive else self.low < value
        high = math.inf if self.high is None else self.high
        if not (above and value < high):
            raise ValueError(f"{_where(name, owner)} must be {self}. Got {value!r} instead.")
        return value

    def __str__(self):
        if self.high is not None:
            return "a number in " + _interval_text(self.low, self.high, self.inclusive, False)
        if self.inclusive:
            return f"a finite number >= {self.low}"
        return "a positive finite number" if self.low == 0 else f"a finite number > {self.low}"


class Options(_Constraint):
    """One of the strings of a collection (read when validating, so a dispatch table that
    gains an entry, such as a test's engine, is honoured)."""

    def __init__(self, options):
        self.options = options

    def accepts(self, value):
        return isinstance(value, str)

    def resolve(self, name, value, owner):
        if value not in self.options:
            raise ValueError(f"{_where(name, owner)} must be one of {list(self.options)}. "
                             f"Got {value!r} instead.")
        return value

    def __str__(self):
        return f"a str among {list(self.options)}"


class Subset(_Constraint):
    """A collection (tuple, list, set; a single string counts as one item) of strings from a
    collection of names; returned as a frozenset."""

    def __init__(self, names):
        self.names = names

    def accepts(self, value):
        return isinstance(value, (str, tuple, list, set, frozenset))

    def resolve(self, name, value, owner):
        items = (value,) if isinstance(value, str) else tuple(value)
        if not all(isinstance(item, str) for item in items):
            raise TypeError(f"{_where(name, owner)} must be {self}. Got {value!r} instead.")
        chosen = frozenset(items)
        unknown = sorted(map(str, chosen - set(self.names)))
        if unknown:
            raise ValueError(f"{_where(name, owner)} names unknown items {unknown}; valid "
                             f"names are {list(self.names)}.")
        return chosen

    def __str__(self):
        return f"a collection of names from {list(self.names)}"


class Indices(_Constraint):
    """A collection (tuple, list, 1-D array) of distinct integers >= 0, such as column
    indices; returned as a tuple of ``int``."""

    def accepts(self, value):
        return isinstance(value, (tuple, list, np.ndarray))

    def resolve(self, name, value, owner):
        items = tuple(np.asarray(value).ravel()) if isinstance(value, np.ndarray) else value
        if not all(isinstance(i, numbers.Integral) and not isinstance(i, (bool, np.bool_)) and
                   i >= 0 for i in items):
            raise ValueError(f"{_where(name, owner)} must be {self}. Got {value!r} instead.")
        if len(set(items)) != len(items):
            raise ValueError(f"{_where(name, owner)} names an index twice: {list(items)}.")
        return tuple(int(i) for i in items)

    def __str__(self):
        return "a collection of distinct integers >= 0"


class Sequence(_Constraint):
    """A list or tuple, returned as it is (its items are checked where they are used)."""

    def accepts(self, value):
        return isinstance(value, (list, tuple))

    def __str__(self):
        return "a list"


class Boolean(_Constraint):
    """``True`` or ``False`` (numpy booleans included); returned as ``bool``."""

    def accepts(self, value):
        return isinstance(value, (bool, np.bool_))

    def resolve(self, name, value, owner):
        return bool(value)

    def __str__(self):
        return "a bool"


class FilePath(_Constraint):
    """A file name: a non-empty string or an ``os.PathLike``."""

    def accepts(self, value):
        return isinstance(value, (str, os.PathLike))

    def resolve(self, name, value, owner):
        if not str(value):
            raise ValueError(f"The {name!r} parameter of {owner} must be a file name; got an "
                             "empty string.")
        return value

    def __str__(self):
        return "a file name"


class SchedulerAddress(_Constraint):
    """A Dask scheduler's address: a non-empty string such as ``"tcp://host:8786"``."""

    def accepts(self, value):
        return isinstance(value, str)

    def resolve(self, name, value, owner):
        if not value.strip():
            raise ValueError(f"{_where(name, owner)} must be {self}; got an empty string.")
        return value

    def __str__(self):
        return "a scheduler address such as 'tcp://host:8786'"


class Callable(_Constraint):
    """Any callable."""

    def accepts(self, value):
        return callable(value)

    def __str__(self):
        return "a callable"


class TextStream(_Constraint):
    """A writable text stream: an object with a ``write`` method."""

    def accepts(self, value):
        return callable(getattr(value, "write", None))

    def __str__(self):
        return "a writable text stream"


#: Largest K of 'quantile:K' and 'width:K' (a column has at most one cut per gap anyway).
MAX_CUTS = 100_000


def parse_thresholds(spec, name="thresholds", owner="make_propositions"):
    """Parse a numeric cut-point choice into ``(kind, K)``: ``"all"`` gives ``("all", None)``,
    ``"quantile:K"`` and ``"width:K"`` (integer K >= 1) give ``(kind, K)``.

    Raises
    ------
    ValueError
        For any other value, naming the parameter.
    """
    if spec == "all":
        return ("all", None)
    kind, _, count = str(spec).partition(":")
    if kind in ("quantile", "width") and re.fullmatch("[0-9]{1,9}", count) and \
            1 <= int(count) <= MAX_CUTS:
        return (kind, int(count))
    raise ValueError(f"{_where(name, owner)} must be 'all', 'quantile:K' or 'width:K' with an "
                     f"integer K in [1, {MAX_CUTS}] ('all' cuts every gap). Got {spec!r} "
                     "instead.")


class KindAndShare(_Constraint):
    """Text ``"kind:R"``: a kind among ``kinds`` and a share 0 < R <= 1; returned as given
    (:meth:`split` reads it)."""

    def __init__(self, kinds):
        self.kinds = tuple(kinds)

    def accepts(self, value):
        return isinstance(value, str)

    def resolve(self, name, value, owner):
        kind, _, share = value.partition(":")
        try:
            number = float(share)
        except ValueError:
            number = math.nan
        if kind not in self.kinds or not 0 < number <= 1:
            raise ValueError(f"{_where(name, owner)} must be {self}. Got {value!r} instead.")
        return value

    @staticmethod
    def split(value):
        """(kind, R) of a value this constraint accepted."""
        kind, _, share = value.partition(":")
        return kind, float(share)

    def __str__(self):
        return "'KIND:R' with KIND one of " + ", ".join(self.kinds) + " and R in (0, 1]"


class Thresholds(_Constraint):
    """A numeric cut-point choice (see :func:`parse_thresholds`); returned as given."""

    def accepts(self, value):
        return isinstance(value, str)

    def resolve(self, name, value, owner):
        parse_thresholds(value, name, owner)
        return value

    def __str__(self):
        return "a str like 'quantile:10'"


def validate_params(constraints, params, owner):
    """Check every parameter against its constraints; return the canonical values.

    Parameters
    ----------
    constraints : dict
        Parameter name -> list of acceptable forms: constraint objects of this module, or
        ``None`` (the value None is allowed).
    params : dict
        Parameter name -> the value given.
    owner : str
        The function or class named in error messages.

    Returns
    -------
    dict
        Parameter name -> canonical value (a Fraction for ExactFraction, int for Integer...).

    Raises
    ------
    TypeError
        If a value has none of the acceptable types.
    ValueError
        If it has an acceptable type but an invalid value.

    Examples
    --------
    >>> validate_params({"n": [Integer(1)], "t": [Real(), None]}, {"n": np.int64(3), "t": None},
    ...                 "f")
    {'n': 3, 't': None}
    >>> validate_params({"n": [Integer(1)]}, {"n": 0}, "f")
    Traceback (most recent call last):
    ...
    ValueError: The 'n' parameter of f must be a positive integer. Got 0 instead.
    """
    resolved = {}
    for name, value in params.items():
        options = constraints[name]
        if value is None and None in options:
            resolved[name] = None
            continue
        matching = [c for c in options if c is not None and c.accepts(value)]
        if not matching:
            described = [str(c) for c in options if c is not None] + \
                (["None"] if None in options else [])
            raise TypeError(f"{_where(name, owner)} must be {' or '.join(described)}. "
                            f"Got {value!r} instead.")
        resolved[name] = matching[0].resolve(name, value, owner)
    return resolved
