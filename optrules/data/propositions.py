"""Propositions on features: threshold and category tests, their cut points and extents.

A :class:`Proposition` is ``feature <= t`` or ``feature > t`` on a numeric feature, or
``feature == v`` or ``feature != v`` on a categorical one (Boley et al. 2021, §2.2: rules are
conjunctions of such "atomic" propositions; CORELS antecedents are conjunctions of ``==`` and
threshold items). A missing value satisfies no proposition on its column, ``!=`` included.

Cut points of a numeric column (non-missing values, distinct values v_1 < ... < v_k), chosen by
:func:`numeric_thresholds`:

* ``"all"``: one cut in every gap (v_i, v_{i+1});
* ``"quantile:K"``: the K empirical quantiles at j/(K+1), j = 1..K (numpy's linear method),
  duplicates dropped and only those with min <= t < max kept;
* ``"width:K"``: the K-1 interior edges of K equal-width bins over [min, max].

Every cut is then replaced by the **shortest decimal that splits the training values the same
way** (``17.38`` rather than ``17.384999999999998``): for a cut t with training values
``below <= t < above`` around it, the decimal with fewest significant digits in the open gap
(below, above), or in [below, above) when t is itself a training value (quantile cuts often
are); among equally short ones the closest to t, then the smaller. The printed threshold is the
threshold the model uses, so a printed rule means exactly what it says, on new data too.

Proposition order (it fixes the core queries of Algorithm 1, §3.2): columns in input order;
within a numeric column all ``x<=t`` with t ascending, then all ``x>t`` with t ascending; within
a categorical column all ``x==v`` with v in sorted string order, then all ``x!=v`` likewise.
"""

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from optrules.data import bitset
from optrules.data.table import as_features
from optrules.validation import parse_thresholds

__all__ = ["Proposition", "PropositionSet", "make_propositions", "numeric_thresholds",
           "shortest_separating_decimal", "format_value"]


@dataclass(frozen=True)
class Proposition:
    """``feature <op> value`` with op in ``<=``, ``>`` (numeric) or ``==``, ``!=`` (categorical).

    Examples
    --------
    >>> p = Proposition("mean radius", "<=", 17.38)
    >>> p.name, p.evaluate(np.array([17.0, 18.0, np.nan])).tolist()
    ('mean radius<=17.38', [True, False, False])
    """

    feature: str
    operator: str
    value: object  # float threshold or category string

    @property
    def numeric(self):
        return self.operator in ("<=", ">")

    @property
    def name(self):
        """``feature<op>value``, thresholds in their shortest round-trip form (``x<=2``)."""
        return f"{self.feature}{self.operator}{format_value(self.value)}"

    @property
    def label(self):
        """Short display name: thresholds with 4 significant digits (``x<=0.5544``)."""
        shown = f"{self.value:.4g}" if isinstance(self.value, float) else str(self.value)
        return f"{self.feature}{self.operator}{shown}"

    def evaluate(self, column):
        """Boolean vector: which cells of a canonical column satisfy the proposition.

        ``column`` is a float array (NaN = missing) for a threshold and an object array of str
        (None = missing) for a category test, as :class:`~optrules.data.table.Features` holds.
        """
        if self.numeric:
            values = np.asarray(column, dtype=float)
            with np.errstate(invalid="ignore"):
                held = values <= self.value if self.operator == "<=" else values > self.value
            return held & ~np.isnan(values)
        present = np.array([cell is not None for cell in column], dtype=bool)
        equal = np.array([cell == self.value for cell in column], dtype=bool)
        return (equal if self.operator == "==" else ~equal) & present

    def to_json(self):
        """``[feature, operator, value]``; thresholds are JSON numbers (exact round trip)."""
        return [self.feature, self.operator, self.value]

    @classmethod
    def from_json(cls, item):
        """Inverse of :meth:`to_json`; ValueError for anything else."""
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], str)
                and item[1] in ("<=", ">", "==", "!=")):
            raise ValueError(f"a condition must be [feature, operator, value] with operator "
                             f"'<=', '>', '==' or '!='; got {item!r}.")
        feature, operator, value = item
        if operator in ("<=", ">"):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                    not math.isfinite(value):
                raise ValueError(f"the threshold of condition {item!r} must be a finite number.")
            return cls(feature, operator, float(value))
        if not isinstance(value, str):
            raise ValueError(f"the category of condition {item!r} must be a string.")
        return cls(feature, operator, value)


def format_value(value):
    """A threshold as its shortest round-trip decimal without a trailing ``.0``; text as is."""
    if isinstance(value, float):
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    return str(value)


def numeric_thresholds(values, thresholds):
    """Cut points of one numeric column (float array, NaN = missing), ascending, as floats.

    Parameters
    ----------
    values : ndarray of float
    thresholds : {"all", "quantile:K", "width:K"}

    Examples
    --------
    >>> numeric_thresholds(np.array([17.37, 17.40, np.nan, 20.0]), "all")
    [17.38, 19.0]
    """
    kind, count = parse_thresholds(thresholds)
    present = values[~np.isnan(values)]
    if present.size == 0:
        return []
    distinct = np.unique(present)
    if kind == "all":
        lower, upper = distinct[:-1], distinct[1:]
        with np.errstate(over="ignore"):
            cuts = (lower + upper) / 2
        # a rounded midpoint can equal a neighbour or overflow; the gap is then split below
        cuts = np.where((lower < cuts) & (cuts < upper), cuts, lower)
    elif kind == "quantile":
        cuts = np.quantile(present, [j / (count + 1) for j in range(1, count + 1)])
    else:
        low, high = distinct[0], distinct[-1]
        cuts = np.array([low + j * (high - low) / count for j in range(1, count)])
    chosen = []
    for cut in sorted({float(t) for t in cuts if distinct[0] <= t < distinct[-1]}):
        position = int(np.searchsorted(distinct, cut, side="right"))
        below, above = float(distinct[position - 1]), float(distinct[position])
        decimal = shortest_separating_decimal(cut, below, above)
        if not chosen or chosen[-1] != decimal:
            chosen.append(decimal)
    return chosen


def shortest_separating_decimal(cut, below, above):
    """The shortest decimal splitting the training values as ``cut`` does (module docstring).

    ``below <= cut < above`` are the training values around the cut. The result ``d`` is a
    float with ``below < d < above`` (``below <= d`` when ``cut == below``) whose shortest repr
    has the fewest significant digits; ties go to the one closest to ``cut``, then the smaller.

    Examples
    --------
    >>> shortest_separating_decimal(17.384999999999998, 17.37, 17.4)
    17.38
    >>> shortest_separating_decimal(3.0, 3.0, 3.5), shortest_separating_decimal(1.5, 1.0, 2.0)
    (3.0, 1.5)
    """
    closed = cut == below
    low, high, target = Fraction(below), Fraction(above), Fraction(cut)
    magnitude = max(abs(low), abs(high), Fraction(1, 10 ** 300))
    exponent = len(str(math.ceil(magnitude))) + 1      # 10**exponent > every candidate
    while exponent > -400:
        step = Fraction(10) ** exponent
        first = math.ceil(low / step) if closed else math.floor(low / step) + 1
        last = math.ceil(high / step) - 1
        if first <= last:
            nearest = min(max(math.floor(target / step), first), last)
            options = {nearest, min(nearest + 1, last)}
            for k in sorted(options, key=lambda k: (abs(k * step - target), k)):
                decimal = float(k * step)   # correctly rounded: same float as the decimal text
                if (below <= decimal if closed else below < decimal) and decimal < above:
                    return decimal
        exponent -= 1
    return cut


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
    parse_thresholds(thresholds)
    propositions = []
    for name, column, is_numeric in zip(features.names, features.columns, features.numeric):
        if is_numeric:
            cuts = numeric_thresholds(column, thresholds)
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
