"""What both rule-induction engines share: their configuration, their result types, and the
float32 arithmetic of thresholds (``specs/boosted-rules.md`` §4)."""

from dataclasses import dataclass

from typing import NamedTuple

import numpy as np

from optrules.boosted_rules.heads import (binned_linear_system_heads, complete_heads,
                                          linear_system_heads)

__all__ = ["SearchConfig", "MlrlRule", "Refinement", "FoundRule", "is_equal", "differ",
           "interval_closes", "midpoint"]

_EPSILON = float(np.finfo(np.float32).eps)


@dataclass(frozen=True)
class SearchConfig:
    """Options of the rule induction (Algorithm 2).

    Attributes
    ----------
    head : {"single", "complete"}
    l1, l2 : float
        Regularisation weights, already rounded to float32 (:func:`heads.regularisation`).
    min_coverage : int
        A condition must cover at least this many examples (of non-zero weight), and a rule
        covering this many or fewer is not refined further.
    max_conditions : int or None
    mlrl_compatible : bool
        Reproduce mlrl-boomer 0.12.3's search (its skipped boundary, its threshold between
        negative and other values, its bookkeeping of sums, its order of equal values and
        its nominal search; :mod:`optrules.boosted_rules.mlrl_layout`).
    n_jobs : int
        Threads of the engine's pool (the fast engine splits the features into this many
        blocks).
    packed_hessian : bool
        The statistics are non-decomposable (full Hessian matrices, packed): complete heads
        solve a linear system (:func:`heads.linear_system_heads`).
    label_binning : float or None
        With ``packed_hessian``: the bin ratio of gradient-based label binning
        (:func:`heads.binned_linear_system_heads`), or None for exact heads.
    mlrl_sparse : bool
        With ``mlrl_compatible``: the data came as a sparse matrix (and were densified), so
        mlrl-boomer's sparse search is followed (its vectors hold the stored values).
    """

    head: str = "single"
    l1: float = 0.0
    l2: float = 1.0
    min_coverage: int = 1
    max_conditions: int | None = None
    mlrl_compatible: bool = False
    n_jobs: int = 1
    packed_hessian: bool = False
    label_binning: float | None = None
    mlrl_sparse: bool = False

    def complete_heads(self, gradients, hessians):
        """(scores, qualities) of complete heads of summed statistics (output first)."""
        if not self.packed_hessian:
            return complete_heads(gradients, hessians, self.l1, self.l2)
        if self.label_binning is None:
            return linear_system_heads(gradients, hessians, self.l1, self.l2)
        return binned_linear_system_heads(gradients, hessians, self.l1, self.l2,
                                          self.label_binning)


class MlrlRule(NamedTuple):
    """mlrl-boomer's bookkeeping of a rule as it grows (``mlrl_compatible``, specs §4.8): the
    sums of its coverage (``totals``, per engine), its ``count`` (that of its last
    condition's candidate), the feature of its last condition (None before the first), and
    the order of its covered examples missing each feature (``missing.of``)."""

    totals: object
    count: int
    last_feature: int | None
    missing: object


@dataclass(frozen=True, eq=False)
class Refinement:
    """The best condition found for a rule so far, with the head and coverage it gives."""

    condition: object
    quality: float
    outputs: np.ndarray
    scores: np.ndarray
    covered: np.ndarray
    rule_totals: tuple | None = None        # (Σg, Σh) of the coverage, mlrl-boomer's way
    count: int | None = None                # mlrl-boomer's count of the coverage
    closes: bool = False                    # mlrl-boomer searches the feature no more


@dataclass(frozen=True, eq=False)
class FoundRule:
    """An induced rule: its body, the outputs and (unshrunk) scores of its head, and the mask
    of the training examples it covers."""

    conditions: tuple
    outputs: np.ndarray
    scores: np.ndarray
    covered: np.ndarray


def is_equal(a, b):
    """mlrl-boomer's float32 equality: |a - b| <= ε·max(1, |a|, |b|), a - b in float32 (an
    overflow to inf: not equal)."""
    with np.errstate(over="ignore"):
        difference = abs(float(np.float32(a) - np.float32(b)))
    return difference <= _EPSILON * max(1.0, abs(float(a)), abs(float(b)))


def differ(a, b):
    """``not is_equal(a, b)`` element-wise on float32 arrays (NaN differs from everything)."""
    with np.errstate(over="ignore", invalid="ignore"):
        difference = np.abs(a - b).astype(np.float64)
        scale = np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)).astype(np.float64))
        return ~(difference <= _EPSILON * scale)


def interval_closes(vector, start, stop, sparse_flag):
    """Whether mlrl-boomer 0.12.3 searches a numerical feature no more in the rule after a
    condition on it keeps the positions [start, stop) of its ``vector`` (the sorted values it
    searched): unless the range is empty, it does search it again when the ``sparse`` flag is
    set or when vector[start] and vector[stop - start - 1] are not ``is_equal``. (Sic: its
    ``createFilteredNumericalFeatureVectorView`` takes the range's length less one as the
    index of its last value.)"""
    return not (stop > start and (sparse_flag or
                                  not is_equal(vector[start], vector[stop - start - 1])))


def midpoint(small, large):
    """The threshold between float32 values ``small`` < ``large``: small + (large - small)/2
    with the difference in float32 and the result rounded to float32 (mlrl-boomer's), or,
    when the difference overflows float32, small/2 + large/2 (mlrl-boomer's threshold would be
    infinite, which separates nothing).

    Examples
    --------
    >>> float(midpoint(1.0, 2.0)), float(midpoint(-3e38, 1e38))
    (1.5, -1.0000000694406173e+38)
    """
    small, large = np.float32(small), np.float32(large)
    with np.errstate(over="ignore"):
        difference = large - small
    if np.isinf(difference):
        return np.float32(float(small) * 0.5 + float(large) * 0.5)
    return np.float32(float(small) + float(difference) * 0.5)
