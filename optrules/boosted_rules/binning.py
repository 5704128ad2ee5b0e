"""Feature binning for the histogram-based search (Rapp et al. 2023, §4).

Each numerical feature's values are assigned once to bins, equal-width (eq. 6-7) or
equal-frequency (eq. 8), with B = max(2, ⌈ratio · distinct values⌉) bins (at most one per
distinct value); equal values always share a bin, and so do values mlrl-boomer's
``is_equal`` takes for one (neighbouring bins are joined there). The thresholds (§4.2) lie
between neighbouring non-empty bins: t_b is the float32 midpoint of the largest value of bin b and the
smallest value of the next non-empty bin. The search then evaluates only these thresholds,
from histograms of the covered examples' statistics (Algorithm 4). Nominal features keep one
bin per value, i.e. the pre-sorted nominal search. ``specs/boosted-rules.md`` §4.5.
"""

import math
from dataclasses import dataclass

import numpy as np

from optrules.boosted_rules.search import differ, midpoint

__all__ = ["BINNINGS", "FeatureBins", "feature_bins"]

BINNINGS = ("width", "frequency")


@dataclass(frozen=True, eq=False)
class FeatureBins:
    """The bins of one numerical feature.

    Attributes
    ----------
    index : ndarray of int64
        Each example's bin, -1 where the value is missing. Bins are numbered in increasing
        order of their values and every bin 0..n_bins-1 holds at least one example.
    thresholds : ndarray of float32
        ``thresholds[b]`` separates bins <= b from bins > b (b < n_bins - 1).
    n_bins : int
        0 when every value is missing.
    """

    index: np.ndarray
    thresholds: np.ndarray
    n_bins: int


def feature_bins(values, method, ratio):
    """The :class:`FeatureBins` of a float32 column (NaN missing) by ``method`` ("width" or
    "frequency") with ``ratio`` bins per distinct value."""
    present = ~np.isnan(values)
    distinct, inverse = np.unique(values[present], return_inverse=True)
    index = np.full(len(values), -1, dtype=np.int64)
    if len(distinct) == 0:
        return FeatureBins(index, np.empty(0, dtype=np.float32), 0)
    n_bins = min(len(distinct), max(2, math.ceil(ratio * len(distinct))))
    if method == "width":
        low, high = float(distinct[0]), float(distinct[-1])
        width = (high - low) / n_bins
        raw = np.zeros(len(distinct), dtype=np.int64) if width == 0 else \
            np.minimum(((distinct.astype(np.float64) - low) / width).astype(np.int64),
                       n_bins - 1)
    else:
        # eq. 8 on the sorted values; a value's bin is that of its first occurrence
        counts = np.bincount(inverse, minlength=len(distinct))
        first_rank = np.concatenate([[0], np.cumsum(counts)[:-1]])
        raw = first_rank * n_bins // int(present.sum())
    # drop empty bins, and join neighbouring bins whose facing values are is_equal (their
    # midpoint may round onto one of them, and the pre-sorted search never splits them
    # either); renumber the bins 0, 1, ...
    starts = (raw[1:] != raw[:-1]) & differ(distinct[:-1], distinct[1:])
    value_bin = np.concatenate([[0], np.cumsum(starts)])
    index[present] = value_bin[inverse]
    edges = np.flatnonzero(starts)              # the last value of each bin but the last
    thresholds = np.array([midpoint(distinct[e], distinct[e + 1]) for e in edges],
                          dtype=np.float32)
    return FeatureBins(index, thresholds, len(edges) + 1)
