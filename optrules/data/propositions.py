"""Propositions on features: threshold and category tests, their cut points and extents.

A :class:`Proposition` is ``feature <= t`` or ``feature > t`` on a numeric feature, or
``feature == v`` or ``feature != v`` on a categorical one (Boley et al. 2021, §2.2: rules are
conjunctions of such "atomic" propositions; CORELS antecedents are conjunctions of ``==`` and
threshold items). A missing value (``specs/data.md``: None, NaN, pandas NA, or a missing token
such as ``NA`` or ``?``, read as NaN or None by :func:`~optrules.data.table.as_features`)
satisfies no proposition on its column, ``!=`` included, and never yields a proposition.

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

import bisect
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from optrules.data import bitset
from optrules.data.table import as_features
from optrules.validation import parse_thresholds, shown

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

    def evaluate(self, column):
        """Boolean vector: which cells of a canonical column satisfy the proposition.

        ``column`` is a float array (NaN = missing) for a threshold and an object array of str
        (None = missing) for a category test, as :class:`~optrules.data.table.Features` holds.
        A missing cell is False for every operator, ``!=`` included (specs/data.md).
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
    def from_json(cls, item, where="condition"):
        """Inverse of :meth:`to_json`; ValueError naming ``where`` (the condition's path in its
        file, e.g. ``model.rules[2].conditions[0]``) and the part that is wrong.

        Only the operators :meth:`evaluate` knows are read, each with its kind of value: a
        finite number for ``<=`` and ``>``, a string for ``==`` and ``!=``.
        """
        if not (isinstance(item, list) and len(item) == 3):
            raise ValueError(f"{where} must be [feature, operator, value]; got {shown(item)}.")
        feature, operator, value = item
        if not isinstance(feature, str):
            raise ValueError(f"{where}.feature is {shown(feature)}; a condition must be "
                             "[feature, operator, value] with a feature name (a string).")
        if operator not in ("<=", ">", "==", "!="):
            raise ValueError(f"{where}.operator is {shown(operator)}; a condition must be "
                             "[feature, operator, value] with operator '<=', '>', '==' or "
                             "'!='.")
        if operator in ("<=", ">"):
            try:
                threshold = float(value) if isinstance(value, (int, float)) else math.nan
            except OverflowError:               # an integer beyond the float range
                threshold = math.nan
            if isinstance(value, bool) or not math.isfinite(threshold):
                raise ValueError(f"{where}.value: the threshold of condition {where} must be "
                                 f"a finite number; got {shown(value)}.")
            return cls(feature, operator, threshold)
        if not isinstance(value, str):
            raise ValueError(f"{where}.value: the category of condition {where} must be a "
                             f"string; got {shown(value)}.")
        return cls(feature, operator, value)


def format_value(value):
    """A threshold as its shortest round-trip decimal without a trailing ``.0``; text as is."""
    if isinstance(value, float):
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    return str(value)


def numeric_thresholds(values, thresholds, weights=None):
    """Cut points of one numeric column (float array, NaN = missing), ascending, as floats.

    With ``weights`` (exact numbers >= 0, one per value) a value of weight w counts as w
    values: rows of weight 0 are left out, and quantiles are those of the values repeated by
    their (integer) weights.

    Quantiles and bin edges are computed in exact rational arithmetic from the float values
    (numpy's linear quantile method, without its rounding: the 3/11 quantile of 0..99 is 27, not
    26.999999999999996) and then rounded once. At most one cut per gap between consecutive
    distinct values is kept (the first): two cuts in one gap split the training values alike.

    Parameters
    ----------
    values : ndarray of float
    thresholds : {"all", "quantile:K", "width:K"}
    weights : sequence of Fraction or int, optional

    Examples
    --------
    >>> numeric_thresholds(np.array([17.37, 17.40, np.nan, 20.0]), "all")
    [17.38, 19.0]
    >>> numeric_thresholds(np.arange(100.0), "quantile:10")[:3]
    [9.0, 18.0, 27.0]
    """
    kind, count = parse_thresholds(thresholds)
    kept = ~np.isnan(values)
    if weights is not None:
        kept &= np.array([w > 0 for w in weights], dtype=bool)
    order = np.argsort(values[kept], kind="stable")
    present = values[kept][order]
    if present.size == 0:
        return []
    cumulative = None if weights is None else \
        list(itertools.accumulate(Fraction(weights[n]) for n in np.flatnonzero(kept)[order]))
    distinct = np.unique(present)
    if kind == "all":
        cuts = [(Fraction(float(low)) + Fraction(float(high))) / 2
                for low, high in zip(distinct[:-1], distinct[1:])]
    elif kind == "quantile":
        cuts = [_linear_quantile(present, Fraction(j, count + 1), cumulative)
                for j in range(1, count + 1)]
    else:
        low, high = Fraction(float(distinct[0])), Fraction(float(distinct[-1]))
        cuts = [low + j * (high - low) / count for j in range(1, count)]
    chosen, gaps = [], set()
    for cut in sorted(set(cuts)):
        if not distinct[0] <= cut < distinct[-1]:
            continue
        gap = int(np.searchsorted(distinct, float(cut), side="right"))
        # a midpoint rounded to a float can land on a neighbour; the exact cut decides the gap
        while gap < len(distinct) and Fraction(float(distinct[gap])) <= cut:
            gap += 1
        while gap > 1 and Fraction(float(distinct[gap - 1])) > cut:
            gap -= 1
        if gap in gaps:
            continue
        gaps.add(gap)
        below, above = float(distinct[gap - 1]), float(distinct[gap])
        chosen.append(shortest_separating_decimal(cut, below, above))
    return chosen


def _linear_quantile(ordered, q, cumulative=None):
    """numpy's default ("linear") quantile q of sorted values, exactly: v_i + f (v_{i+1} - v_i)
    at position (n - 1) q = i + f.

    Weighted (``cumulative``: the running totals of the values' positive weights), a value of
    weight w stands for w values: n is the total weight, and v_i is the value covering position
    i of that repeated sequence, so integer weights give the quantile of the repeated values.
    """
    def value(i):
        if cumulative is not None:   # the first value whose running total exceeds i
            i = min(bisect.bisect_right(cumulative, i), len(ordered) - 1)
        return Fraction(float(ordered[i]))

    n = len(ordered) if cumulative is None else cumulative[-1]
    position = max(n - 1, 0) * q
    i = math.floor(position)
    low = value(i)
    if position == i:
        return low
    return low + (position - i) * (value(i + 1) - low)


def shortest_separating_decimal(cut, below, above):
    """The shortest decimal splitting the training values as ``cut`` does (module docstring).

    ``below <= cut < above`` are the training values around the cut (``cut`` a float or an exact
    Fraction). The result ``d`` is a float with ``below < d < above`` (``below <= d`` when
    ``cut == below``, or when no float lies strictly between ``below`` and ``above``) whose
    shortest repr has the fewest significant digits; among those, the closest to ``cut``, then
    the smaller.

    Numbers with at most k significant digits near a value t are multiples of
    10^(e - k + 1), e the exponent of t's leading digit; the nearest ones on either side of t
    are t rounded down and up to that step (smaller magnitudes have finer steps but lie beyond
    the rounded-down one). So for k = 1, 2, ... only those two (and 0 for k = 1) can be the
    closest k-digit decimals inside the interval, or, when the float one of them denotes falls
    on ``below`` or ``above``, its k-digit neighbour beyond it; each is judged by the float it
    denotes.

    Examples
    --------
    >>> shortest_separating_decimal(17.384999999999998, 17.37, 17.4)
    17.38
    >>> shortest_separating_decimal(3.0, 3.0, 3.5), shortest_separating_decimal(1.5, 1.0, 2.0)
    (3.0, 1.5)
    >>> shortest_separating_decimal(4.0, 3.0, 100.0), shortest_separating_decimal(0.4, 0.4, 0.5)
    (4.0, 0.4)
    >>> shortest_separating_decimal(Fraction(1, 10), 0.0, 0.1)    # float 0.1 exceeds 1/10
    0.09
    """
    target = Fraction(cut)
    closed = target == Fraction(below)

    def inside(candidate):
        try:
            value = float(candidate)
        except OverflowError:           # beyond the float range: outside any finite interval
            return False
        return (below <= value if closed else below < value) and value < above

    if target != 0:
        leading = _leading_exponent(target)
        for digits in range(1, 18):
            step = Fraction(10) ** (leading - digits + 1)
            low, high = math.floor(target / step) * step, math.ceil(target / step) * step
            # The float a decimal denotes may fall on a training value (float 0.1 is just
            # above 1/10): then the grid neighbour beyond it is the closest one inside.
            candidates = {low, high} | _grid_neighbours(low, digits) | \
                _grid_neighbours(high, digits)
            if digits == 1:
                candidates.add(Fraction(0))
            valid = [c for c in candidates if inside(c)]
            if valid:
                return float(min(valid, key=lambda c: (abs(c - target), c)))
    elif inside(0):
        return 0.0
    # No float lies strictly between two neighbouring doubles: split at the lower one.
    return shortest_separating_decimal(below, below, above)


def _grid_neighbours(value, digits):
    """The decimals of at most ``digits`` significant digits just below and just above
    ``value`` (itself one of them; none for 0, which the caller handles)."""
    if value == 0:
        return set()
    magnitude, sign = abs(value), 1 if value > 0 else -1
    exponent = _leading_exponent(magnitude)
    larger = magnitude + Fraction(10) ** (exponent - digits + 1)
    # Below a power of ten the grid is ten times finer (0.99 then 1, 1.1 for two digits).
    power = Fraction(10) ** exponent == magnitude
    smaller = magnitude - Fraction(10) ** (exponent - digits + (0 if power else 1))
    return {sign * larger, sign * smaller}


def _leading_exponent(value):
    """e with 10^e <= |value| < 10^(e+1), for a non-zero Fraction, exactly."""
    value = abs(value)
    exponent = len(str(value.numerator)) - len(str(value.denominator))
    while Fraction(10) ** exponent > value:
        exponent -= 1
    while Fraction(10) ** (exponent + 1) <= value:
        exponent += 1
    return exponent


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

    Missing cells (specs/data.md) give no proposition and satisfy none of their column's.

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
