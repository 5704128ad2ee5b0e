"""Greedy induction of one boosted rule (BOOMER), vectorised.

The same search as :mod:`optrules.reference.boomer`, decision for decision and bit for bit:
every sum is added in the reference's order (``np.cumsum`` adds sequentially), and the heads
come from the same array functions (:mod:`optrules.boosted_rules.heads`). What changes is how
the work is laid out:

* the pre-sorted vectors of all numerical features form one matrix ``order`` (one row per
  feature: the covered examples sorted by value, missing values last); after each condition
  every row keeps exactly the newly covered examples, so the matrix shrinks in place of the
  reference's per-feature filtering (Rapp et al. 2023, §3.2.5);
* the three phases of every sampled feature are evaluated at once
  (:func:`_numerical_qualities`): running sums by ``np.cumsum`` along the rows, heads and
  qualities of all candidates in one call, and the reference's evaluation order recovered as a
  key, so the first candidate of least quality wins as in the reference's scan.
"""

import numpy as np

from optrules.boosted_rules.heads import complete_heads, single_output_heads
from optrules.boosted_rules.model import Condition
from optrules.boosted_rules.search import FoundRule, Refinement, midpoint

__all__ = ["RuleInduction"]

_EPSILON = np.float32(np.finfo(np.float32).eps)


class RuleInduction:
    """Algorithm 2 on one training set; the same interface as the reference's."""

    def __init__(self, data, config):
        self.data = data
        self.config = config
        self.numerical = np.array([f for f in range(data.n_features) if not data.nominal[f]],
                                  dtype=np.int64)
        self.row_of = {int(f): r for r, f in enumerate(self.numerical)}
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
            refinement = self._best_refinement(sample_features(), covered, order, gradients,
                                               hessians, weights, outputs, bar)
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
        rows = np.array([self.row_of[int(f)] for f in features if int(f) in self.row_of],
                        dtype=np.int64)
        found = {}
        if len(rows):
            found.update(self._numerical_refinements(rows, covered, order, gradients, hessians,
                                                     weights, outputs, bar))
        for feature in features:
            if self.data.nominal[feature]:
                refinement = self._nominal_refinement(int(feature), covered, gradients,
                                                      hessians, weights, outputs, bar)
                if refinement is not None:
                    found[int(feature)] = refinement
        best = None
        for feature in sorted(found):
            if found[feature].quality < bar:
                best, bar = found[feature], found[feature].quality
        return best

    def _head(self, sum_g, sum_h, outputs):
        """(outputs (one per candidate, or the complete set), scores, qualities) of many
        candidates at once."""
        l1, l2 = self.config.l1, self.config.l2
        if self.config.head == "single":
            return single_output_heads(sum_g, sum_h, outputs, l1, l2)
        scores, qualities = complete_heads(sum_g, sum_h, l1, l2)
        return None, scores, qualities

    def _refinement(self, feature, operator, threshold, quality, outputs, scores, chosen,
                    n_examples):
        covered = np.zeros(n_examples, dtype=bool)
        covered[chosen] = True
        return Refinement(Condition(feature, operator, float(threshold)), quality, outputs,
                          scores, covered)

    def _numerical_refinements(self, rows, covered, order, gradients, hessians, weights,
                               outputs, bar):
        """Alg. 3 for the numerical features ``rows`` at once: feature -> its best refinement
        (quality < ``bar``), as :func:`reference.boomer._numerical_candidates` scanned."""
        sorted_examples = order[rows]                               # (r, m)
        values = self.values[rows[:, None], sorted_examples]        # x_τ
        present = ~np.isnan(values)
        n_present = present.sum(axis=1)
        n_negative = (values < 0).sum(axis=1)
        w = np.where(present, weights[sorted_examples], 0)
        counted = w > 0
        stat_g = gradients[sorted_examples] * w[..., None]         # (r, m, L)
        stat_h = hessians[sorted_examples] * w[..., None]
        total_g, total_h = self._totals(sorted_examples, present, covered, gradients, hessians,
                                        weights)
        layout = _Layout(values, counted, n_present, n_negative, self.config.mlrl_compatible,
                         self.config.min_coverage)
        sum_g, sum_h = layout.sums(stat_g, total_g), layout.sums(stat_h, total_h)
        r, k, n_outputs = sum_g.shape
        chosen, scores, qualities = self._head(sum_g.reshape(r * k, n_outputs),
                                               sum_h.reshape(r * k, n_outputs), outputs)
        qualities = np.where(layout.valid.ravel(), qualities, np.inf).reshape(r, k)
        found = {}
        for row in np.flatnonzero(qualities.min(axis=1) < bar):
            j = int(np.argmin(qualities[row]))       # the first of least quality in scan order
            operator, threshold, start, stop = layout.candidate(row, j)
            flat = row * k + j
            head_outputs = outputs if chosen is None else chosen[flat:flat + 1]
            feature = int(self.numerical[rows[row]])
            found[feature] = self._refinement(
                feature, operator, threshold, float(qualities[row, j]), head_outputs,
                scores[flat] if chosen is None else scores[flat:flat + 1],
                sorted_examples[row, start:stop], len(weights))
        return found

    def _totals(self, sorted_examples, present, covered, gradients, hessians, weights):
        """Σ w g and Σ w h over each row's covered examples with a value, in example order
        (the reference's totals): one sum for the rows without missing values, one per row
        with some."""
        examples = np.flatnonzero(covered)
        w = weights[examples][:, None]
        total_g = np.cumsum(gradients[examples] * w, axis=0)[-1]
        total_h = np.cumsum(hessians[examples] * w, axis=0)[-1]
        totals_g = np.repeat(total_g[None], len(sorted_examples), axis=0)
        totals_h = np.repeat(total_h[None], len(sorted_examples), axis=0)
        for row in np.flatnonzero(~present.all(axis=1)):
            kept = np.sort(sorted_examples[row][present[row]])
            if len(kept):
                kw = weights[kept][:, None]
                totals_g[row] = np.cumsum(gradients[kept] * kw, axis=0)[-1]
                totals_h[row] = np.cumsum(hessians[kept] * kw, axis=0)[-1]
            else:
                totals_g[row] = totals_h[row] = 0.0
        return totals_g, totals_h

    def _nominal_refinement(self, feature, covered, gradients, hessians, weights, outputs, bar):
        """§3.3 for one nominal feature: its best refinement (quality < ``bar``) or None."""
        values = self.data.values[feature]
        examples = np.flatnonzero(covered & ~np.isnan(values))
        if not len(examples):
            return None
        w = weights[examples][:, None]
        stat_g, stat_h = gradients[examples] * w, hessians[examples] * w
        total_g, total_h = np.cumsum(stat_g, axis=0)[-1], np.cumsum(stat_h, axis=0)[-1]
        codes = values[examples]
        counted = weights[examples] > 0
        distinct = np.unique(codes)
        sums_g, sums_h, n_covered = [], [], []
        for value in distinct:
            member = codes == value
            equal_g, equal_h = np.cumsum(stat_g[member], axis=0)[-1], \
                np.cumsum(stat_h[member], axis=0)[-1]
            sums_g += [equal_g, total_g - equal_g]
            sums_h += [equal_h, total_h - equal_h]
            n_equal = int(counted[member].sum())
            n_covered += [n_equal, int(counted.sum()) - n_equal]
        chosen, scores, qualities = self._head(np.array(sums_g), np.array(sums_h), outputs)
        qualities = np.where(np.array(n_covered) >= self.config.min_coverage, qualities, np.inf)
        j = int(np.argmin(qualities))
        if not qualities[j] < bar:
            return None
        value = distinct[j // 2]
        member = codes == value if j % 2 == 0 else codes != value
        return self._refinement(feature, "==" if j % 2 == 0 else "!=", value, float(qualities[j]),
                                outputs if chosen is None else chosen[j:j + 1],
                                scores[j] if chosen is None else scores[j:j + 1],
                                examples[member], len(weights))


class _Layout:
    """The candidates of :func:`reference.boomer._numerical_candidates` for r features at once,
    in one array of k = 4m + 2 slots per feature, in the reference's scan order:

    * slots 0 .. 2m-1: phase I, the boundary before position i (ascending), ``<=`` then ``>``;
    * slots 2m .. 4m-1: phase II, the boundary after position i (descending), ``>`` then
      ``<=``;
    * slots 4m, 4m+1: phase III, ``<=`` then ``>``.

    ``valid`` marks the slots the reference evaluates; the others get quality +inf.
    """

    def __init__(self, values, counted, n_present, n_negative, mlrl_compatible, min_coverage):
        r, m = values.shape
        self.m = m
        self.values, self.n_present, self.n_negative = values, n_present, n_negative
        position = np.arange(m)[None, :]
        negative = position < n_negative[:, None]
        upper = (position >= n_negative[:, None]) & (position < n_present[:, None])
        self.negative, self.upper = negative, upper
        neighbours_differ = np.zeros((r, m), dtype=bool)      # x_i vs x_(i+1)
        neighbours_differ[:, :-1] = _differ(values[:, :-1], values[:, 1:])
        # phase I, boundary before i: i counted, a counted example before it, x_(i-1) != x_i
        counted_negative = counted & negative
        seen_before = np.cumsum(counted_negative, axis=1) - counted_negative > 0
        phase_one = counted_negative & seen_before
        phase_one[:, 1:] &= neighbours_differ[:, :-1]
        # phase II, boundary after i: i counted, a counted example above it, x_i != x_(i+1)
        counted_upper = counted & upper
        seen_above = np.flip(np.cumsum(np.flip(counted_upper, 1), axis=1), 1) - counted_upper > 0
        first = n_negative + (1 if mlrl_compatible else 0)
        phase_two = counted_upper & seen_above & neighbours_differ & \
            (position >= first[:, None])
        # phase III: some counted examples on each side of zero
        n_counted_negative = counted_negative.sum(axis=1)
        phase_three = (n_counted_negative > 0) & (n_counted_negative < counted.sum(axis=1))
        # the reference's last value seen in phase II: x_first, or the largest counted one
        # when phase II had nothing counted from x_first up
        highest = np.where(counted_upper.any(axis=1),
                           m - 1 - np.argmax(np.flip(counted_upper, 1), axis=1), 0)
        self.phase_three_upper = np.minimum(highest, first)
        valid = np.concatenate([np.repeat(phase_one, 2, axis=1),
                                np.repeat(np.flip(phase_two, 1), 2, axis=1),
                                np.repeat(phase_three[:, None], 2, axis=1)], axis=1)
        # a condition must cover at least min_coverage counted examples
        n_counted = counted.astype(np.int64)[..., None]
        self.valid = valid & (self.sums(n_counted, n_counted.sum(axis=1))[..., 0] >= min_coverage)

    def sums(self, stat, total):
        """Σ of the examples each slot's condition covers, added in the reference's order."""
        below = np.cumsum(stat * self.negative[..., None], axis=1)       # positions <= i
        above = np.flip(np.cumsum(np.flip(stat * self.upper[..., None], 1), axis=1), 1)
        before = np.zeros_like(below)               # phase I: the examples before position i
        before[:, 1:] = below[:, :-1]
        after = np.zeros_like(above)                # phase II: the examples after position i
        after[:, :-1] = above[:, 1:]
        total = total[:, None, :]
        phase_one = np.stack([before, total - before], axis=2)                   # <=, >
        phase_two = np.stack([after, total - after], axis=2)[:, ::-1]            # >, <=
        rows = np.arange(len(stat))
        last_negative = below[rows, np.maximum(self.n_negative - 1, 0)]
        phase_three = np.stack([last_negative, total[:, 0] - last_negative], axis=1)
        r, m, _, n_outputs = phase_one.shape
        return np.concatenate([phase_one.reshape(r, 2 * m, n_outputs),
                               phase_two.reshape(r, 2 * m, n_outputs), phase_three], axis=1)

    def candidate(self, row, slot):
        """(operator, threshold, start, stop) of a slot: the condition covers the sorted
        positions start..stop-1 of the row."""
        m, values = self.m, self.values[row]
        n_negative, n_present = int(self.n_negative[row]), int(self.n_present[row])
        if slot < 2 * m:
            i, operator = divmod(slot, 2)
            threshold = midpoint(values[i - 1], values[i])
            return ("<=", threshold, 0, i) if operator == 0 else (">", threshold, i, n_present)
        if slot < 4 * m:
            i, operator = divmod(slot - 2 * m, 2)
            i = m - 1 - i
            threshold = midpoint(values[i], values[i + 1])
            return (">", threshold, i + 1, n_present) if operator == 0 \
                else ("<=", threshold, 0, i + 1)
        threshold = midpoint(values[n_negative - 1], values[self.phase_three_upper[row]])
        return ("<=", threshold, 0, n_negative) if slot == 4 * m \
            else (">", threshold, n_negative, n_present)


def _differ(a, b):
    """Not :func:`is_equal`, element-wise on float32 arrays (NaN differs from everything)."""
    with np.errstate(over="ignore", invalid="ignore"):
        difference = np.abs(a - b).astype(np.float64)
        scale = np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)).astype(np.float64))
        return ~(difference <= float(_EPSILON) * scale)

