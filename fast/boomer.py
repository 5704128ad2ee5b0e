"""Greedy induction of one boosted rule (BOOMER), vectorised.

The same search as :mod:`optrules.reference.boomer`, decision for decision and bit for bit:
every sum is added in the reference's order (``np.cumsum`` adds sequentially), and the heads
come from the same array functions (:mod:`optrules.boosted_rules.heads`). What changes is how
the work is laid out:

* the pre-sorted vectors of all numerical features form one matrix ``order`` (one row per
  feature: the covered examples sorted by value, missing values last); after each condition
  every row keeps exactly the newly covered examples, so the matrix shrinks in place of the
  reference's per-feature filtering (Rapp et al. 2023, §3.2.5);
* the three phases of all sampled numerical features are evaluated at once
  (:func:`_numerical_candidates`): the statistics of every output, and the count of examples,
  are channels of one array whose running sums come from one ``np.cumsum`` along the rows; only
  the boundaries the reference evaluates get a head; the first candidate of least quality in
  the reference's scan order (feature, then phase I ascending, phase II descending, phase III)
  wins, as in the reference's loop.
"""

import numpy as np

from optrules.boosted_rules.heads import complete_heads, single_output_heads
from optrules.boosted_rules.model import Condition
from optrules.boosted_rules.search import FoundRule, Refinement, midpoint

__all__ = ["RuleInduction"]

_EPSILON = float(np.finfo(np.float32).eps)


class RuleInduction:
    """Algorithm 2 on one training set; the same interface as the reference's."""

    def __init__(self, data, config):
        self.data = data
        self.config = config
        self.numerical = np.array([f for f in range(data.n_features) if not data.nominal[f]],
                                  dtype=np.int64)
        self.row_of = np.full(data.n_features, -1, dtype=np.int64)
        self.row_of[self.numerical] = np.arange(len(self.numerical))
        self.values = np.stack([data.values[f] for f in self.numerical]) if len(self.numerical) \
            else np.empty((0, data.n_examples), dtype=np.float32)
        # eq. 4, once per fit: every numerical feature's examples by value, NaN (missing) last
        self.order = np.argsort(self.values, axis=1, kind="stable")

    def find_rule(self, gradients, hessians, weights, sample_features):
        """See :meth:`optrules.reference.boomer.RuleInduction.find_rule`."""
        covered = np.ones(len(weights), dtype=bool)
        order = self.order
        outputs = np.arange(gradients.shape[1])
        best, conditions = None, []
        while self.config.max_conditions is None or len(conditions) < self.config.max_conditions:
            bar = 0.0 if best is None else best.quality
            refinement = self._best_refinement(np.asarray(sample_features()), covered, order,
                                               gradients, hessians, weights, outputs, bar)
            if refinement is None:
                break
            best = refinement
            conditions.append(refinement.condition)
            covered = refinement.covered
            order = order[covered[order]].reshape(len(order), int(covered.sum()))   # §3.2.5
            if self.config.head == "single":
                outputs = refinement.outputs
            if refinement.covered[weights > 0].sum() <= self.config.min_coverage:
                break
        if best is None:
            return None
        return FoundRule(tuple(conditions), best.outputs, best.scores, best.covered)

    def _best_refinement(self, features, covered, order, gradients, hessians, weights, outputs,
                         bar):
        """The first refinement of least quality (< ``bar``) over ``features`` in increasing
        order: the reference's loop over features, numerical ones evaluated together."""
        # the statistics of the outputs a head may still predict for, weighted, one array
        w = weights[:, None]
        stats = np.concatenate([gradients[:, outputs] * w, hessians[:, outputs] * w,
                                (weights > 0)[:, None]], axis=1)
        rows = self.row_of[features]
        rows = rows[rows >= 0]
        found = []                                    # (quality, feature, build)
        if len(rows):
            found.append(self._numerical_refinement(rows, covered, order, stats, bar))
        for feature in features:
            if self.data.nominal[feature]:
                found.append(self._nominal_refinement(int(feature), covered, stats, bar))
        found = [f for f in found if f is not None]
        if not found:
            return None
        quality, feature, build = min(found, key=lambda f: (f[0], f[1]))
        operator, threshold, chosen, scores, head = build()
        covered_now = np.zeros(len(weights), dtype=bool)
        covered_now[chosen] = True
        return Refinement(Condition(feature, operator, float(threshold)), quality,
                          outputs if head is None else outputs[head], scores, covered_now)

    def _heads(self, sums):
        """(local outputs or None, scores, qualities) of candidate sums (n, 2L + 1)."""
        n_outputs = (sums.shape[1] - 1) // 2
        sum_g, sum_h = sums[:, :n_outputs], sums[:, n_outputs:2 * n_outputs]
        l1, l2 = self.config.l1, self.config.l2
        if self.config.head == "single":
            return single_output_heads(sum_g, sum_h, np.arange(n_outputs), l1, l2)
        scores, qualities = complete_heads(sum_g, sum_h, l1, l2)
        return None, scores, qualities

    def _winner(self, candidates, bar):
        """The first candidate of least quality below ``bar``: (index, quality, head, scores)
        or None. ``candidates`` are sums (n, C) in scan order."""
        chosen, scores, qualities = self._heads(candidates)
        qualities = np.where(np.isnan(qualities), np.inf, qualities)
        j = int(np.argmin(qualities))           # np.argmin: the first of least quality
        if not qualities[j] < bar:
            return None
        head = None if chosen is None else chosen[j:j + 1]
        return j, float(qualities[j]), head, scores[j] if chosen is None else scores[j:j + 1]

    def _numerical_refinement(self, rows, covered, order, stats, bar):
        """Alg. 3 for the numerical features ``rows`` at once: (quality, feature, build) of the
        first candidate of least quality < ``bar``, or None."""
        examples = order[rows]                                         # (r, m)
        values = self.values[rows[:, None], examples]                  # x_τ
        totals = _totals(examples, values, covered, stats)
        candidates = _numerical_candidates(values, examples, stats, totals,
                                           self.config.mlrl_compatible, self.config.min_coverage)
        if candidates is None:
            return None
        sums, row, operator, start, stop, low, high = candidates
        won = self._winner(sums, bar)
        if won is None:
            return None
        j, quality, head, scores = won
        feature = int(self.numerical[rows[row[j]]])

        def build():
            threshold = midpoint(values[row[j], low[j]], values[row[j], high[j]])
            chosen = examples[row[j], start[j]:stop[j]]
            return ("<=", ">")[operator[j]], threshold, chosen, scores, head
        return quality, feature, build

    def _nominal_refinement(self, feature, covered, stats, bar):
        """§3.3 for one nominal feature: (quality, feature, build) or None."""
        values = self.data.values[feature]
        examples = np.flatnonzero(covered & ~np.isnan(values))
        if not len(examples):
            return None
        chosen_stats = stats[examples]
        total = np.cumsum(chosen_stats, axis=0)[-1]
        codes = values[examples]
        distinct = np.unique(codes)
        sums = []
        for value in distinct:
            equal = np.cumsum(chosen_stats[codes == value], axis=0)[-1]
            sums += [equal, total - equal]
        sums = np.array(sums)
        enough = np.flatnonzero(sums[:, -1] >= self.config.min_coverage)
        won = self._winner(sums[enough], bar) if len(enough) else None
        if won is None:
            return None
        j, quality, head, scores = won
        j = int(enough[j])

        def build():
            value = distinct[j // 2]
            member = codes == value if j % 2 == 0 else codes != value
            return ("==", "!=")[j % 2], value, examples[member], scores, head
        return quality, feature, build


def _totals(examples, values, covered, stats):
    """Σ stats over each row's covered examples with a value, added in example order (the
    reference's totals): one sum for the rows without missing values, one per row with some."""
    total = np.cumsum(stats[covered], axis=0)[-1]
    totals = np.repeat(total[None], len(examples), axis=0)
    for row in np.flatnonzero(np.isnan(values).any(axis=1)):
        kept = np.sort(examples[row][~np.isnan(values[row])])
        totals[row] = np.cumsum(stats[kept], axis=0)[-1] if len(kept) else 0.0
    return totals


def _numerical_candidates(values, examples, stats, totals, mlrl_compatible, min_coverage):
    """Every candidate :func:`reference.boomer._numerical_candidates` yields for the rows of
    ``values`` (r features, m sorted covered examples each), in scan order.

    Returns (sums (n, C), row, operator (0 ``<=``, 1 ``>``), start, stop, low, high) with the
    condition covering sorted positions start..stop-1 and its threshold the midpoint of the
    values at positions low and high; None when there is no candidate.
    """
    r, m = values.shape
    if m < 2:
        return None
    stat = stats[examples]                                          # (r, m, C)
    present = ~np.isnan(values)
    negative = values < 0
    n_present = present.sum(axis=1)
    n_negative = negative.sum(axis=1)
    counted = stat[..., -1] > 0
    if not present.all():
        stat = stat * present[..., None]           # missing: adds ±0, i.e. nothing
        counted &= present
    differ = _differ(values[:, :-1], values[:, 1:])                 # x_i vs x_(i+1)
    position = np.arange(m)
    parts = []
    # Phase I: the boundary before position i = 1 .. m-1, values below zero, ascending
    if negative.any():
        below = np.cumsum(stat * negative[..., None], axis=1)         # positions <= i
        boundary = counted[:, 1:] & negative[:, 1:] & (below[:, :-1, -1] > 0) & differ
        rows, i = np.nonzero(boundary)
        inside = below[rows, i]                                      # positions < i + 1
        i = i + 1
        parts += _pair(rows, 2 * i, inside, totals[rows] - inside, min_coverage,
                       ((0, 0 * i, i), (1, i, n_present[rows])), i - 1, i)
    # Phase II: the boundary after position i = 0 .. m-2, values from zero up, descending
    upper = present & ~negative
    reverse = stat[:, ::-1] if upper.all() else (stat * upper[..., None])[:, ::-1]
    above = np.cumsum(reverse, axis=1)[:, ::-1]                      # positions >= i
    first = n_negative + (1 if mlrl_compatible else 0)
    boundary = counted[:, :-1] & upper[:, :-1] & (above[:, 1:, -1] > 0) & differ & \
        (np.arange(m - 1) >= first[:, None])
    rows, i = np.nonzero(boundary)
    inside = above[rows, i + 1]                                      # positions > i
    parts += _pair(rows, 2 * m + 2 * (m - 1 - i), inside, totals[rows] - inside, min_coverage,
                   ((1, i + 1, n_present[rows]), (0, 0 * i, i + 1)), i, i + 1)
    # Phase III: the values below zero against the others
    if negative.any():
        rows = np.flatnonzero(n_negative > 0)
        inside = below[rows, n_negative[rows] - 1]
        keep = (inside[:, -1] > 0) & (inside[:, -1] < totals[rows, -1])
        rows, inside = rows[keep], inside[keep]
        highest = _highest_counted_upper(counted & upper)[rows]
        parts += _pair(rows, np.full(len(rows), 4 * m), inside, totals[rows] - inside,
                       min_coverage, ((0, 0 * rows, n_negative[rows]),
                                      (1, n_negative[rows], n_present[rows])),
                       n_negative[rows] - 1, np.minimum(highest, first[rows]))
    parts = [part for part in parts if len(part[1])]
    if not parts:
        return None
    sums, row, scan, operator, start, stop, low, high = (np.concatenate(field)
                                                         for field in zip(*parts))
    order = np.lexsort((scan, row))                      # the reference's scan order
    return (sums[order], row[order], operator[order], start[order], stop[order], low[order],
            high[order])


def _pair(rows, scan, inside, outside, min_coverage, sides, low, high):
    """The two candidates of each boundary as parts of :func:`_numerical_candidates`: the
    side the running sum ``inside`` covers first, then the other; ``sides`` gives (operator,
    start, stop) of each; each must cover ``min_coverage`` counted examples."""
    parts = []
    for k, (sums, (operator, start, stop)) in enumerate(zip((inside, outside), sides)):
        enough = sums[:, -1] >= min_coverage
        parts.append((sums[enough], rows[enough], (scan + k)[enough],
                      np.full(int(enough.sum()), operator), start[enough], stop[enough],
                      low[enough], high[enough]))
    return parts


def _highest_counted_upper(counted_upper):
    """Per row, the last position of a counted example from zero up (0 if none)."""
    m = counted_upper.shape[1]
    return np.where(counted_upper.any(axis=1),
                    m - 1 - np.argmax(counted_upper[:, ::-1], axis=1), 0)


def _differ(a, b):
    """Not :func:`is_equal`, element-wise on float32 arrays (NaN differs from everything)."""
    with np.errstate(over="ignore", invalid="ignore"):
        difference = np.abs(a - b).astype(np.float64)
        scale = np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)).astype(np.float64))
        return ~(difference <= _EPSILON * scale)
