"""Propositions for rule boosting: threshold and category tests on mixed-type features.

Boley et al. (2021), §2.2: rules are conjunctions of "atomic" propositions; for real features
the propositions are thresholds ``x<=t`` and ``x>t``, and categorical features give ``x==v``
and ``x!=v``. A missing value (NaN, None or an empty string) satisfies no proposition on its
column.

Proposition order (it fixes the core queries of Algorithm 1, §3.2): columns in input order;
within a numeric column all ``x<=t`` with t ascending, then all ``x>t`` with t ascending; within
a categorical column all ``x==v`` with v in sorted string order, then all ``x!=v`` likewise.

Thresholds of a numeric column (non-missing values, distinct values v_1 < ... < v_k):

* ``"all"``: every midpoint (v_i + v_{i+1})/2;
* ``"quantile:K"``: the K empirical quantiles at j/(K+1), j = 1..K (numpy's linear method),
  duplicates dropped and only those with min <= t < max kept;
* ``"width:K"``: the K-1 interior edges of K equal-width bins over [min, max].
"""

import math
from dataclasses import dataclass

import numpy as np

from optrules.data import bitset

__all__ = ["Proposition", "Features", "PropositionSet", "as_features", "make_propositions",
           "parse_thresholds"]


@dataclass(frozen=True)
class Proposition:
    """``feature <op> value`` with op in ``<=``, ``>`` (numeric) or ``==``, ``!=`` (categorical)."""

    feature: str
    operator: str
    value: object  # float threshold or category string

    @property
    def name(self):
        """Exact name, e.g. ``x<=0.5543891869663486`` (thresholds written with repr)."""
        return f"{self.feature}{self.operator}{_format_value(self.value)}"

    @property
    def label(self):
        """Short display name: thresholds with 4 significant digits (``x<=0.5544``)."""
        shown = f"{self.value:.4g}" if isinstance(self.value, float) else str(self.value)
        return f"{self.feature}{self.operator}{shown}"

    def evaluate(self, column):
        """Boolean vector: which entries of ``column`` (float array or object array) satisfy it."""
        if self.operator in ("<=", ">"):
            try:
                values = np.array([math.nan if _is_missing(c) else float(c) for c in column])
            except (TypeError, ValueError) as error:
                raise ValueError(f"feature {self.feature!r} is numeric in the model but the data "
                                 f"has a non-numeric value ({error}).") from None
            present = ~np.isnan(values)
            with np.errstate(invalid="ignore"):
                held = values <= self.value if self.operator == "<=" else values > self.value
            return held & present
        if np.asarray(column).dtype.kind == "f":
            # new data in which this categorical column parsed as numeric: compare numbers
            values = np.asarray(column, dtype=float)
            present = ~np.isnan(values)
            equal = values == _as_number(self.value)
        else:
            present = np.array([cell is not None for cell in column], dtype=bool)
            equal = np.array([cell == self.value for cell in column], dtype=bool)
        return (equal if self.operator == "==" else ~equal) & present


def _as_number(text):
    try:
        return float(text)
    except ValueError:
        return math.nan


def _format_value(value):
    if isinstance(value, float):
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    return str(value)


@dataclass(frozen=True, eq=False)
class Features:
    """Feature columns in canonical form: float arrays (NaN = missing) or object arrays of str
    (None = missing)."""

    names: tuple
    columns: tuple
    numeric: tuple

    @property
    def n_samples(self):
        return len(self.columns[0]) if self.columns else 0

    def column(self, name):
        try:
            return self.columns[self.names.index(name)]
        except ValueError:
            raise ValueError(f"feature {name!r} is not a column of the data; columns are "
                             f"{list(self.names)}.") from None


def as_features(data, feature_names=None):
    """Canonicalise a 2-D numpy array, a pandas DataFrame or a mapping of columns.

    Numeric numpy dtypes and columns whose every non-missing value parses as a finite float are
    numeric; everything else is categorical (values compared as strings).

    Raises
    ------
    ValueError
        On ragged columns, a wrong number of feature names, duplicate names, or no columns.
    TypeError
        For an unsupported container.
    """
    if isinstance(data, Features):
        return data
    if hasattr(data, "columns") and hasattr(data, "__getitem__") and not isinstance(data, dict):
        names = [str(c) for c in data.columns]
        raw = [np.asarray(data[c]) for c in data.columns]
    elif isinstance(data, dict):
        names = [str(c) for c in data]
        raw = [_as_array(v) for v in data.values()]
    elif isinstance(data, (np.ndarray, list, tuple)):
        array = _as_array(data)
        if array.ndim != 2:
            raise ValueError(f"feature data must be 2-D (samples x features); got shape "
                             f"{array.shape}.")
        names = [f"x{j}" for j in range(array.shape[1])]
        raw = [array[:, j] for j in range(array.shape[1])]
    else:
        raise TypeError(f"feature data must be a numpy array, a pandas DataFrame or a dict of "
                        f"columns; got {type(data).__name__}.")
    if feature_names is not None:
        if len(feature_names) != len(names):
            raise ValueError(f"{len(feature_names)} feature names given for {len(names)} "
                             "columns.")
        names = [str(n) for n in feature_names]
    if not names:
        raise ValueError("feature data has no columns.")
    if len(set(names)) != len(names):
        duplicate = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"duplicate feature name {duplicate!r}.")
    lengths = {len(column) for column in raw}
    if len(lengths) != 1:
        raise ValueError(f"feature columns have different lengths: {sorted(lengths)}.")
    columns, numeric = [], []
    for name, column in zip(names, raw):
        canonical, is_numeric = _canonical_column(name, column)
        columns.append(canonical)
        numeric.append(is_numeric)
    return Features(tuple(names), tuple(columns), tuple(numeric))


def _as_array(values):
    """``np.asarray``, but a Python sequence mixing strings and NaN stays an object array
    (numpy would turn NaN into the category 'nan')."""
    array = np.asarray(values)
    if array.dtype.kind in "US" and not isinstance(values, np.ndarray):
        array = np.asarray(values, dtype=object)
    return array


def _is_missing(cell):
    if cell is None or (isinstance(cell, str) and cell == ""):
        return True
    if isinstance(cell, float):
        return math.isnan(cell)
    return type(cell).__name__ == "NAType"  # pandas.NA (its truth value is ambiguous)


def _canonical_column(name, column):
    if column.dtype.kind in "iufb":
        values = column.astype(float)
        if np.isinf(values).any():
            raise ValueError(f"feature {name!r} contains an infinite value.")
        return values, True
    cells = [None if _is_missing(c) else str(c).strip() for c in column.tolist()]
    cells = [None if c == "" else c for c in cells]
    try:
        parsed = [float(c) for c in cells if c is not None]
        if parsed and all(math.isfinite(v) for v in parsed):  # "nan"/"inf" text: categorical
            return np.array([math.nan if c is None else float(c) for c in cells]), True
    except ValueError:
        pass
    return np.array(cells, dtype=object), False


def parse_thresholds(spec):
    """Validate a threshold choice: ``"all"``, ``"quantile:K"`` or ``"width:K"`` (K >= 1)."""
    if spec == "all":
        return ("all", None)
    kind, _, count = str(spec).partition(":")
    if kind in ("quantile", "width") and count.isdigit() and int(count) >= 1:
        return (kind, int(count))
    raise ValueError(f"thresholds must be 'all', 'quantile:K' or 'width:K' with an integer "
                     f"K >= 1; got {spec!r}.")


def _thresholds(values, spec):
    present = values[~np.isnan(values)]
    if present.size == 0:
        return []
    distinct = np.unique(present)
    kind, count = spec
    if kind == "all":
        lower, upper = distinct[:-1], distinct[1:]
        with np.errstate(over="ignore"):
            middle = (lower + upper) / 2
        # a rounded midpoint can equal the upper value (neighbouring floats) or overflow; the
        # lower value then splits the pair instead
        cuts = np.where((lower <= middle) & (middle < upper), middle, lower)
    elif kind == "quantile":
        cuts = np.quantile(present, [j / (count + 1) for j in range(1, count + 1)])
    else:
        low, high = distinct[0], distinct[-1]
        cuts = [low + j * (high - low) / count for j in range(1, count)]
    return sorted({float(t) for t in cuts if distinct[0] <= t < distinct[-1]})


@dataclass(frozen=True, eq=False)
class PropositionSet:
    """Propositions with their extents over the training samples.

    Attributes
    ----------
    propositions : tuple of Proposition
    extents : ndarray of uint64, shape (d, n_words)
        Packed bitsets: bit i of row j is set when proposition j holds for sample i.
    n_samples : int
    """

    propositions: tuple
    extents: np.ndarray
    n_samples: int

    @property
    def names(self):
        return tuple(p.name for p in self.propositions)

    def __len__(self):
        return len(self.propositions)

    def extent_indices(self, j):
        """Extent of proposition j as a sorted array of sample indices."""
        return np.flatnonzero(bitset.unpack(self.extents[j], self.n_samples))

    def evaluate(self, data):
        """Boolean matrix (d, m) of the propositions on new feature data."""
        features = as_features(data)
        return np.array([p.evaluate(features.column(p.feature)) for p in self.propositions],
                        dtype=bool).reshape(len(self.propositions), features.n_samples)


def make_propositions(data, thresholds="quantile:10", feature_names=None):
    """Build the proposition set of some feature data (see the module docstring for order).

    Parameters
    ----------
    data : ndarray, DataFrame, dict of columns or Features
    thresholds : {"all", "quantile:K", "width:K"}, default "quantile:10"
    feature_names : sequence of str, optional

    Returns
    -------
    PropositionSet

    Examples
    --------
    >>> ps = make_propositions({"x": [1.0, 2.0, 3.0], "c": ["a", "b", "a"]}, thresholds="all")
    >>> ps.names
    ('x<=1.5', 'x<=2.5', 'x>1.5', 'x>2.5', 'c==a', 'c==b', 'c!=a', 'c!=b')
    """
    features = as_features(data, feature_names)
    spec = parse_thresholds(thresholds)
    propositions = []
    for name, column, is_numeric in zip(features.names, features.columns, features.numeric):
        if is_numeric:
            cuts = _thresholds(column, spec)
            propositions += [Proposition(name, "<=", t) for t in cuts]
            propositions += [Proposition(name, ">", t) for t in cuts]
        else:
            values = sorted({cell for cell in column if cell is not None})
            propositions += [Proposition(name, "==", v) for v in values]
            propositions += [Proposition(name, "!=", v) for v in values]
    bits = np.array([p.evaluate(features.column(p.feature)) for p in propositions], dtype=bool)
    bits = bits.reshape(len(propositions), features.n_samples)
    return PropositionSet(tuple(propositions), bitset.pack(bits).reshape(
        len(propositions), bitset.n_words(features.n_samples)), features.n_samples)
