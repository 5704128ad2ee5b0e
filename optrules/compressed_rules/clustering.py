"""Split-point clustering of compressed rule ensembles: the problem both engines solve.

Each feature's split points are clustered by optimal one-dimensional k-means (Nalenz and
Augustin, §4.2; Wang and Song 2011), and the number of clusters k is chosen by AIC or BIC
(``specs/cre.md`` §2). This module holds what the engines share: the split points as distinct
values with multiplicities (:class:`SplitPoints`), the exact cost of a run of them
(:class:`RunCosts`), and the choice of k (:func:`choose_k`). The dynamic programmes are the
engines' (``optimal_partitions`` in :mod:`optrules.reference.cre` and
:mod:`optrules.fast.cre`); :func:`cluster_split_points` runs one.

Examples
--------
>>> clusters = cluster_split_points([1.0, 1.5, 1.5, 9.0, 9.5, 30.0], k_max=4)
>>> [(c.low, c.high, c.size) for c in clusters]
[(1.0, 1.5, 3), (9.0, 9.5, 2), (30.0, 30.0, 1)]
"""

import importlib
import math
import sys
from fractions import Fraction
from typing import NamedTuple

from optrules.validation import Integer, Options, validate_params

__all__ = ["SplitPoints", "split_points", "RunCosts", "Clustering", "Cluster", "make_cluster",
           "choose_k", "selection_criterion", "cluster_split_points", "CRITERIA", "ENGINES"]

CRITERIA = ("aic", "bic")
ENGINES = {"reference": "optrules.reference.cre", "fast": "optrules.fast.cre"}


class SplitPoints(NamedTuple):
    """A feature's split points: the distinct ``values`` ascending (floats) and how often each
    occurs (``weights``, positive ints)."""

    values: tuple
    weights: tuple

    @property
    def n_points(self):
        """How many split points, counted with multiplicity."""
        return sum(self.weights)


def split_points(points):
    """The :class:`SplitPoints` of a sequence of finite numbers (repeats allowed).

    Raises ValueError for an empty sequence or a value that is not a finite number.

    >>> split_points([2.0, 0.5, 2.0])
    SplitPoints(values=(0.5, 2.0), weights=(1, 2))
    """
    counts = {}
    for position, point in enumerate(points):
        value = float(point)
        if not math.isfinite(value):
            raise ValueError(f"split point {position} is {point!r}: split points must be finite "
                             "numbers.")
        counts[value] = counts.get(value, 0) + 1
    if not counts:
        raise ValueError("No split points: a feature needs at least one to be clustered.")
    values = tuple(sorted(counts))
    return SplitPoints(values, tuple(counts[v] for v in values))


class RunCosts:
    """The exact within-run sum of squares of runs of distinct split points.

    ``cost(i, j)`` is S2 − S1²/W over the values i..j (1-based, inclusive) with their
    multiplicities: W = Σ w, S1 = Σ w x, S2 = Σ w x². Values are float64, so exact dyadic
    rationals; the prefix sums are integers (the values scaled by a common power of two) and
    the cost a :class:`fractions.Fraction`, exact.
    """

    def __init__(self, points):
        exponent = max(Fraction(v).denominator.bit_length() - 1 for v in points.values)
        self._scale = Fraction(1, 4 ** exponent)            # (x 2^e)² back to x²
        scaled = [int(Fraction(v) * 2 ** exponent) for v in points.values]
        self._w, self._s1, self._s2 = [0], [0], [0]
        for value, weight in zip(scaled, points.weights):
            self._w.append(self._w[-1] + weight)
            self._s1.append(self._s1[-1] + weight * value)
            self._s2.append(self._s2[-1] + weight * value * value)

    def cost(self, i, j):
        """SS of the run of values i..j (1 <= i <= j <= m)."""
        w = self._w[j] - self._w[i - 1]
        s1 = self._s1[j] - self._s1[i - 1]
        s2 = self._s2[j] - self._s2[i - 1]
        return Fraction(w * s2 - s1 * s1, w) * self._scale


class Clustering(NamedTuple):
    """An optimal partition into runs: ``runs`` as (start, stop) half-open ranges of the
    distinct values, ascending, and its exact sum of squares ``cost``."""

    runs: tuple
    cost: Fraction


class Cluster(NamedTuple):
    """One cluster of split points: its distinct ``values`` with their ``weights``, its
    interval [``low``; ``high``], its point count ``size`` and its ``mean``."""

    values: tuple
    weights: tuple
    low: float
    high: float
    size: int
    mean: float


def selection_criterion(points, runs, criterion):
    """2·log L − penalty of a partition (higher is better; ``specs/cre.md`` §2).

    L is the likelihood of the points (with multiplicity) under the Gaussian mixture of the
    runs: weight n_l/n, the run's mean, its sample variance, or, for a single point, d², for
    equal points, d²/36 (d: least distance to a neighbouring point outside the run). The
    penalty of k runs is 2(3k − 1) (AIC) or (3k − 1) ln n (BIC).
    """
    n = points.n_points
    # Scaling every value by a power of two 2^-shift adds n·shift·ln 2 to log L, whatever the
    # partition; scaled to at most 1 in magnitude, no square or variance below overflows (or
    # underflows, for values near each other's scale).
    shift = math.frexp(max(abs(v) for v in points.values))[1]
    points = SplitPoints(tuple(math.ldexp(v, -shift) for v in points.values), points.weights)
    components = []                            # (log of weight / sqrt(2π σ²), mean, 2σ²)
    for start, stop in runs:
        values = points.values[start:stop]
        weights = points.weights[start:stop]
        size = sum(weights)
        mean = sum(Fraction(v) * w for v, w in zip(values, weights)) / size
        variance = sum(w * (Fraction(v) - mean) ** 2 for v, w in zip(values, weights)) / \
            (size - 1) if size > 1 else Fraction(0)
        if variance == 0:
            gaps = ([values[0] - points.values[start - 1]] if start > 0 else []) + \
                ([points.values[stop] - values[-1]] if stop < len(points.values) else [])
            gap = Fraction(min(gaps))
            variance = gap * gap if size == 1 else gap * gap / 36
        # values closer than float64 resolves at this scale: the least normal variance
        variance = max(float(variance), sys.float_info.min)
        components.append((math.log(size / n) - 0.5 * math.log(2 * math.pi * variance),
                           float(mean), 2 * variance))
    log_likelihood = 0.0
    for value, weight in zip(points.values, points.weights):
        terms = [log_coefficient - (value - mean) ** 2 / spread
                 for log_coefficient, mean, spread in components]
        top = max(terms)
        log_likelihood += weight * (top + math.log(sum(math.exp(t - top) for t in terms)))
    log_likelihood -= n * shift * math.log(2)              # back to the values' own units
    k = len(runs)
    penalty = 2 * (3 * k - 1) if criterion == "aic" else (3 * k - 1) * math.log(n)
    return 2 * log_likelihood - penalty


def choose_k(points, clusterings, criterion):
    """The number of clusters of highest :func:`selection_criterion` among ``clusterings``
    (the optimal partition for k = 1, 2, ... in turn), the least on a tie; 1 for a single
    distinct value."""
    if len(points.values) == 1:
        return 1
    scores = [selection_criterion(points, c.runs, criterion) for c in clusterings]
    return 1 + max(range(len(scores)), key=lambda k: (scores[k], -k))


_CONSTRAINTS = {"k_max": [Integer(1)], "criterion": [Options(CRITERIA)],
                "engine": [Options(ENGINES)]}


def cluster_split_points(points, k_max=4, criterion="aic", engine="fast"):
    """Cluster a feature's split points by optimal 1-D k-means, k chosen by ``criterion``.

    Parameters
    ----------
    points : sequence of float
        The split points of one feature, repeats included (they weigh more).
    k_max : int >= 1, default 4
        The most clusters considered (at most the number of distinct values).
    criterion : {"aic", "bic"}, default "aic"
        AIC as the paper; BIC as the authors' R code and Ckmeans.1d.dp.
    engine : {"fast", "reference"}, default "fast"
        Both return the same clusters (``specs/cre.md`` §2).

    Returns
    -------
    tuple of Cluster
        Ascending.
    """
    given = validate_params(_CONSTRAINTS, {"k_max": k_max, "criterion": criterion,
                                           "engine": engine}, "cluster_split_points")
    points = split_points(points)
    module = importlib.import_module(ENGINES[given["engine"]])
    clusterings = module.optimal_partitions(points, given["k_max"])
    runs = clusterings[choose_k(points, clusterings, given["criterion"]) - 1].runs
    return tuple(make_cluster(points.values[start:stop], points.weights[start:stop])
                 for start, stop in runs)


def make_cluster(values, weights):
    """The :class:`Cluster` of distinct ascending ``values`` with their ``weights`` (its mean
    computed exactly, then rounded once)."""
    values, weights = tuple(float(v) for v in values), tuple(int(w) for w in weights)
    size = sum(weights)
    mean = sum(Fraction(v) * w for v, w in zip(values, weights)) / size
    return Cluster(values, weights, values[0], values[-1], size, float(mean))
