"""Greedy induction of one boosted rule (BOOMER), vectorised.

The same search as :mod:`optrules.reference.boomer`, decision for decision and bit for bit:
every sum is added in the reference's order (``np.cumsum`` adds sequentially), and the heads
come from the same array functions (:mod:`optrules.boosted_rules.heads`; elementwise
arithmetic rounds the same on arrays as on scalars). What changes is how the work is laid out:

* the pre-sorted vectors of all numerical features form one matrix ``order`` (one row per
  feature: the covered examples sorted by value, missing values last); after each condition
  every row keeps exactly the newly covered examples, so the matrix shrinks in place of the
  reference's per-feature filtering (Rapp et al. 2023, §3.2.5);
* the statistics of the outputs a head may predict for and the count of examples are the
  channels of one array, channel first (:func:`_channels`), so one gather and one
  ``np.cumsum`` along the sorted rows give the running sums of every boundary of every sampled
  numerical feature (:func:`_numerical_phases`);
* heads and qualities of all boundaries come from one call per phase and side; the reference
  keeps the first candidate of least quality in its scan order (feature, then phase I
  ascending, phase II descending, phase III; each boundary's two sides in turn), which
  :meth:`RuleInduction._numerical_refinement` finds among the candidates of least quality.
"""

from typing import NamedTuple

import numpy as np

from optrules.boosted_rules.heads import single_output_heads
from optrules.boosted_rules.mlrl_layout import (MissingOrder, closes_feature, keeps_vector,
                                                nominal_layout, std_sort_order)
from optrules.boosted_rules.model import Condition
from optrules.boosted_rules.search import (FoundRule, MlrlRule, Refinement, differ,
                                           interval_closes, midpoint)

__all__ = ["RuleInduction"]

class RuleInduction:
    """Algorithm 2 on one training set; the same interface as the reference's. With a
    ``pool`` of n threads, the sampled numerical features are split into n blocks searched at
    once (numpy releases the GIL); the first of least quality still wins."""

    def __init__(self, data, config, pool=None, bins=None):
        self.data = data
        self.config = config
        self.pool = pool
        self.n_blocks = 1 if pool is None else config.n_jobs
        self.bins = bins
        self.numerical = np.array([f for f in range(data.n_features) if not data.nominal[f]],
                                  dtype=np.int64)
        self.row_of = np.full(data.n_features, -1, dtype=np.int64)
        self.row_of[self.numerical] = np.arange(len(self.numerical))
        self.sparse = data.sparse
        self.layouts = {f: nominal_layout(data.values[f], config.mlrl_sparse)
                        for f in range(data.n_features)
                        if data.nominal[f]} if config.mlrl_compatible else {}
        self.missing_order = MissingOrder(data.values) if config.mlrl_compatible else None
        if self.sparse:
            self.order = None
            self.stored = [_SortedStored(data.values[f]) for f in self.numerical]
            ordered = [np.sort(np.append(s.values, np.float32(0))) for s in self.stored]
            # all features' stored values end to end, feature by feature
            self.entry_rows = np.concatenate([s.rows for s in self.stored] + [[]]).astype(
                np.int64)
            self.entry_values = np.concatenate([s.values for s in self.stored] + [[]]).astype(
                np.float32)
            self.entry_feature = np.repeat(np.arange(len(self.stored)),
                                           [len(s.rows) for s in self.stored])
            self.missing_rows = np.concatenate([s.missing for s in self.stored] + [[]]).astype(
                np.int64)
            self.missing_feature = np.repeat(np.arange(len(self.stored)),
                                             [len(s.missing) for s in self.stored])
        else:
            self.values = np.stack([data.values[f] for f in self.numerical]) \
                if len(self.numerical) else np.empty((0, data.n_examples), dtype=np.float32)
            # mlrl-boomer's vectors of a sparse matrix hold the stored values: the search sees
            # zeros as missing (the totals still see the values); its ``sparse`` flag says
            # whether a column has values left out (zeros or missing values)
            self.has_zero = ((self.values == 0) | np.isnan(self.values)).any(axis=1) \
                if config.mlrl_sparse else None
            self.totals_values = self.values
            if config.mlrl_sparse:
                self.values = np.where(self.values == 0, np.float32(np.nan), self.values)
            # eq. 4, once per fit: every numerical feature's examples by value, NaN last;
            # mlrl-boomer's order of equal values with mlrl_compatible
            self.order = np.argsort(self.values, axis=1, kind="stable")
            for row in range(len(self.values) if config.mlrl_compatible else 0):
                self.order[row] = np.concatenate([std_sort_order(self.values[row]),
                                                  np.flatnonzero(np.isnan(self.values[row]))])
            ordered = np.take_along_axis(self.values, self.order, axis=1)
        # Two distinct values of a feature are is_equal only if two neighbours in its sorted
        # vector are (the pair holding the larger magnitude is at least as close and has the
        # same scale): without such neighbours, "distinct" is plain inequality
        self.plain_inequality = not any(
            (~differ(row[:-1], row[1:]) & (row[:-1] != row[1:])).any() for row in ordered)
        if bins is not None:       # §4: each numerical feature's bins, thresholds padded
            numerical = [bins[f] for f in self.numerical]
            self.bin_index = np.array([b.index for b in numerical] + [
                np.zeros(data.n_examples, dtype=np.int64)]).reshape(len(numerical) + 1,
                                                                      data.n_examples)
            self.one_bin_row = len(numerical)       # every example in bin 0
            width = max((len(b.thresholds) for b in numerical), default=0)
            self.bin_thresholds = np.full((len(numerical), width), np.nan, dtype=np.float32)
            for row, b in enumerate(numerical):
                self.bin_thresholds[row, :len(b.thresholds)] = b.thresholds
            self.bin_missing = (self.bin_index[:-1] < 0).any(axis=1)
            self.any_bin_missing = bool(self.bin_missing.any())
            self._offsets = {}
            self.bin_counts = np.array([max(b.n_bins, 1) for b in numerical], dtype=np.int64)

    def find_rule(self, gradients, hessians, weights, sample_features):
        """See :meth:`optrules.reference.boomer.RuleInduction.find_rule`."""
        covered = np.ones(len(weights), dtype=bool)
        counted = weights > 0
        order = self.order
        outputs = np.arange(gradients.shape[1])
        stats = _channels(gradients, hessians, weights, outputs, self.config.packed_hessian)
        # mlrl-boomer keeps the sums of the rule's coverage up to date as it grows (all
        # outputs' channels, like ``stats`` before any output is chosen), and its count
        mlrl = MlrlRule(np.cumsum(stats, axis=1)[:, -1], int(counted.sum()), None,
                        self.missing_order.for_rule()) if self.config.mlrl_compatible else None
        all_stats = stats
        best, conditions = None, []
        closed = set()          # mlrl-boomer: features this rule searches no more
        while self.config.max_conditions is None or len(conditions) < self.config.max_conditions:
            bar = 0.0 if best is None else best.quality
            refinement = self._best_refinement(np.asarray(sample_features()), covered, order,
                                               stats, outputs, bar, all_stats, mlrl, closed)
            if refinement is None:
                break
            best = refinement
            conditions.append(refinement.condition)
            feature = refinement.condition.feature
            if refinement.closes or feature in self.layouts and closes_feature(
                    self.layouts[feature], refinement.condition):
                closed.add(feature)
            if mlrl is not None:
                mlrl.missing.after_condition(feature, covered, keeps_vector(
                    self.layouts, refinement.condition))
            covered = refinement.covered
            if self.bins is None and not self.sparse:                               # §3.2.5
                order = order[covered[order]].reshape(len(order), int(covered.sum()))
            if self.config.head == "single" and len(outputs) > 1:
                outputs = refinement.outputs   # the first condition fixes the head's output
                stats = _channels(gradients, hessians, weights, outputs, False)
            if mlrl is not None:
                mlrl = mlrl._replace(totals=refinement.rule_totals, count=refinement.count,
                                     last_feature=feature)
            if (np.count_nonzero(covered & counted) if mlrl is None else mlrl.count) <= \
                    self.config.min_coverage:
                break
        if best is None:
            return None
        return FoundRule(tuple(conditions), best.outputs, best.scores, best.covered)

    def _best_refinement(self, features, covered, order, stats, outputs, bar, all_stats,
                         mlrl, closed):
        """The first refinement of least quality (< ``bar``) over ``features`` in increasing
        order: the reference's loop over features, numerical ones evaluated together.
        ``mlrl``: the rule's :class:`MlrlRule` in mlrl-boomer's way (its sums are those of
        ``all_stats``), else None; ``closed`` features are not searched."""
        features = np.array([f for f in features if int(f) not in closed], dtype=np.int64)
        rows = self.row_of[features]
        n_outputs = (len(all_stats) - 1) // 2
        totals = None if mlrl is None else \
            mlrl.totals[np.concatenate([outputs, n_outputs + outputs, [2 * n_outputs]])]
        rows = rows[rows >= 0]
        found = []                                    # (quality, feature, build)
        search = self._numerical_refinement if self.bins is None else self._histogram_refinement
        if self.n_blocks > 1 and len(rows) > 1:
            blocks = np.array_split(rows, min(self.n_blocks, len(rows)))
            found += self.pool.map(lambda block: search(block, covered, order, stats, bar,
                                                        totals, mlrl), blocks)
        elif len(rows):
            found.append(search(rows, covered, order, stats, bar, totals, mlrl))
        for feature in features:
            if int(feature) in self.layouts:
                found.append(self._mlrl_nominal_refinement(int(feature), covered, stats, bar,
                                                           totals, mlrl))
            elif self.data.nominal[feature]:
                found.append(self._nominal_refinement(int(feature), covered, stats, bar,
                                                      totals))
        found = [f for f in found if f is not None]
        if not found:
            return None
        quality, feature, build = min(found, key=lambda f: (f[0], f[1]))
        operator, threshold, chosen, sums, removed, (head, scores), count, closes = build()
        condition = Condition(feature, operator, float(threshold))
        next_totals = None
        if self.config.mlrl_compatible:          # the examples on its side of the vector
            if removed is None:
                covered_now = np.zeros(len(covered), dtype=bool)
                covered_now[chosen] = True
            else:                                # all but those of the other side
                covered_now = covered & ~np.isnan(self.data.values[feature])
                covered_now[removed] = False
            if removed is None:                  # the side the search summed: re-summed
                next_totals = _sum(all_stats[:, chosen])
            else:                                # the other side: the rest taken away
                missing = mlrl.missing.of(feature, covered, mlrl.last_feature is not None)
                next_totals = _less(mlrl.totals, all_stats[:, np.concatenate([removed,
                                                                               missing])])
        else:                                    # the examples its threshold covers
            covered_now = covered & condition.covers(self.data.values[feature])
        return Refinement(condition, quality, outputs if head is None else outputs[[int(head)]],
                          np.atleast_1d(scores), covered_now, next_totals, count, closes)

    def _heads(self, sums, every=False, counts=None):
        """(position of the chosen output or None, scores, qualities) of channel sums
        (C, ...); a candidate covering fewer than min_coverage counted examples gets quality
        +inf. Numerical candidates cover at least one by construction; ``every`` checks
        them all (nominal values, which examples of weight 0 can hold); ``counts`` are
        the counts to check in place of the sums' (mlrl-boomer's nominal search)."""
        sum_g, sum_h = _statistics(sums, self.config.packed_hessian)
        l1, l2 = self.config.l1, self.config.l2
        if self.config.head == "single":
            chosen, scores, qualities = single_output_heads(sum_g, sum_h, l1, l2)
        else:
            chosen, (scores, qualities) = None, self.config.complete_heads(sum_g, sum_h)
        if counts is not None:
            qualities = np.where(counts >= self.config.min_coverage, qualities, np.inf)
        elif self.config.min_coverage > 1 or every:
            qualities = np.where(sums[-1] >= self.config.min_coverage, qualities, np.inf)
        return chosen, scores, qualities

    def _numerical_refinement(self, rows, covered, order, stats, bar, rule_totals, mlrl):
        """Alg. 3 for the numerical features ``rows`` at once: (quality, feature, build) of the
        first candidate of least quality < ``bar`` in the reference's scan order, or None.
        ``rule_totals`` and ``mlrl`` (the rule's :class:`MlrlRule`): mlrl-boomer's way."""
        if self.sparse:
            examples, values, totals, stats = self._sparse_rows(rows, covered, stats)
        else:
            examples = order[rows]                                     # (r, m)
            if not self.config.mlrl_compatible:      # examples of weight 0 take no part
                counted = stats[-1][examples] > 0       # every row holds the same examples
                if not counted.all():
                    examples = examples[counted].reshape(len(rows), int(counted[0].sum()))
            values = self.values[rows[:, None], examples]              # x_τ
            totals = _totals(examples, self.totals_values[rows[:, None], examples]
                             if self.config.mlrl_sparse else values, covered, stats, rule_totals,
                             None if mlrl is None else lambda row: mlrl.missing.of(
                                 int(self.numerical[rows[row]]), covered,
                                 mlrl.last_feature is not None))
        compatible = self.config.mlrl_compatible
        rule_count = None if mlrl is None else mlrl.count
        last_row = -1 if mlrl is None or mlrl.last_feature is None else \
            self.row_of[mlrl.last_feature]
        sparse_flag = self.has_zero[rows] if self.config.mlrl_sparse else None
        phases = _numerical_phases(values, examples, stats, totals, compatible,
                                   self.plain_inequality, sparse_flag, rule_count,
                                   rows == last_row)
        first = self._first_of_least(phases, bar, rule_count)
        if first is None:
            return None
        least, row, phase, j, side, head = first
        feature = int(self.numerical[rows[row]])

        def build():
            split, threshold = phase.split(row, j), phase.threshold(row, j)
            sums = phase.sides[:, row, j, side]
            n_present = int((~np.isnan(values[row])).sum())
            lower, upper = examples[row, :split], examples[row, split:n_present]
            count = closes = None
            if compatible:           # mlrl-boomer's count and its vector's range after it
                summed = int(phase.sides[-1, row, j, 0])
                count = summed if side == 0 else rule_count - summed
                start, stop = (0, split) if (side == 0) == phase.inside_is_lower else \
                    (split, n_present)
                closes = interval_closes(values[row], start, stop, sparse_flag is not None and
                                         bool(sparse_flag[row]))
            if phase.inside_is_lower:            # side 0 summed, side 1 the rest
                return ("<=", threshold, lower, sums, None, head, count, closes) if side == 0 \
                    else (">", threshold, upper, sums, lower, head, count, closes)
            return (">", threshold, upper, sums, None, head, count, closes) if side == 0 else \
                ("<=", threshold, lower, sums, upper, head, count, closes)
        return least, feature, build

    def _sparse_rows(self, rows, covered, stats):
        """§3.2 for sparse features: the rows :func:`_numerical_phases` reads, built from the
        stored values alone (never in mlrl-boomer's way, which reads dense data). Row r holds
        the covered counted examples of feature ``rows[r]`` with a value below zero, then one
        stand-in for all those of value 0 if there are any, then those above zero, padded with
        NaN: (examples, values, totals, stats). The stand-in (example index n) and the padding
        carry zero statistics; the stand-in counts one example, which only its boundaries read
        (phase II adds it after its last boundary, as the dense search adds the zeros)."""
        n, r = stats.shape[1], len(rows)
        counted = covered & (stats[-1] > 0)
        stats = np.concatenate([stats, np.zeros((len(stats), 1))], axis=1)
        stats[-1, n] = 1.0
        position = np.full(len(self.stored), -1)
        position[rows] = np.arange(r)
        # the covered counted stored values of the features searched, feature by feature,
        # each feature's by (value, example)
        chosen = (position[self.entry_feature] >= 0) & counted[self.entry_rows]
        entry_rows, entry_values = self.entry_rows[chosen], self.entry_values[chosen]
        entry_row = position[self.entry_feature[chosen]]
        lost = (position[self.missing_feature] >= 0) & counted[self.missing_rows]
        n_missing = np.bincount(position[self.missing_feature[lost]], minlength=r)
        n_stored = np.bincount(entry_row, minlength=r)
        n_negative = np.bincount(entry_row[entry_values < 0], minlength=r)
        has_zero = int(counted.sum()) - n_missing - n_stored > 0
        start = np.cumsum(n_stored) - n_stored
        column = np.arange(len(entry_row)) - start[entry_row] + \
            (has_zero[entry_row] & (entry_values > 0))     # positives after the stand-in
        width = max(int((n_stored + has_zero).max()), 1)
        examples = np.full((r, width), n, dtype=np.int64)
        values = np.full((r, width), np.nan, dtype=np.float32)
        examples[entry_row, column], values[entry_row, column] = entry_rows, entry_values
        values[np.flatnonzero(has_zero), n_negative[has_zero]] = 0.0     # the stand-in
        total = _sum(stats[:, np.flatnonzero(counted)])
        totals = np.repeat(total[:, None], r, axis=1)
        for row in np.flatnonzero(n_missing):        # Σ over the covered with a value
            kept = counted.copy()
            kept[self.stored[rows[row]].missing] = False
            totals[:, row] = _sum(stats[:, np.flatnonzero(kept)])
        return examples, values, totals, stats

    def _histogram_refinement(self, rows, covered, order, stats, bar, rule_totals, mlrl):
        """§4 for the numerical features ``rows`` at once (``order``, ``rule_totals`` and
        ``mlrl``, of the pre-sorted search in mlrl-boomer's way, are not needed): Algorithm
        4's histograms of the covered examples (added in example order, as the reference),
        then the thresholds between occupied bins, ascending; (quality, feature, build) or
        None."""
        examples = np.nonzero(covered & (stats[-1] > 0))[0]
        # the bins of the widest feature searched (an empty bin adds nothing to a side)
        r, n_bins, n_channels = len(rows), int(self.bin_counts[rows].max()), len(stats)
        # the bins of the features searched (-1: missing) and, in a last row, one bin for all
        # examples: its sums are the totals, added in example order (as the reference's)
        index = self.bin_index.take(np.append(rows, self.one_bin_row), axis=0).take(
            examples, axis=1)                                               # (r + 1, |E|)
        # one np.bincount for all channels: it adds its weights one by one in input order,
        # channel by channel, row by row, each row's examples in example order (Algorithm 4)
        target = index + self._histogram_offsets(n_channels, r + 1, n_bins)  # (C, r + 1, |E|)
        weights = np.repeat(stats.take(examples, axis=1), r + 1, axis=0)
        missing = self.any_bin_missing and self.bin_missing[rows].any()
        if missing:
            present = index >= 0
            target, weights = target[:, present], weights.reshape(target.shape)[:, present]
        histogram = np.bincount(target.ravel(), weights=weights.ravel(),
                                minlength=n_channels * (r + 1) * n_bins).reshape(
                                    n_channels, r + 1, n_bins)
        totals = histogram[:, r, :1]             # (C, 1): the same for every row ...
        histogram = histogram[:, :r]
        if missing:                              # ... but each row's present examples
            totals = _grouped_sums(weights, np.nonzero(present)[0], r + 1)[:, :r]
        occupied = histogram[-1] > 0
        n_occupied = occupied.sum(axis=1) if r * n_bins > 4096 else None
        if n_occupied is not None and 4 * int(n_occupied.max()) < n_bins:
            # few occupied bins among many (a rule covering few examples, fine bins)
            histogram, bin_of, occupied = _occupied_bins(histogram, occupied, n_occupied)
        else:
            bin_of, histogram, occupied = None, histogram[:, :, :-1], occupied[:, :-1]
        sides = _running_sides(histogram, totals)                          # bins <= b
        valid = occupied & (sides[-1, :, :, 0] < totals[-1][:, None])
        phase = _Phase(valid, sides, None, None, True)            # (build() has its own)
        first = self._first_of_least([phase], bar)
        if first is None:
            return None
        least, row, _, j, side, head = first

        def build():
            threshold = self.bin_thresholds[rows[row], j if bin_of is None else bin_of[row, j]]
            return ("<=", ">")[side], threshold, None, phase.sides[:, row, j, side], None, \
                head, None, False
        return least, int(self.numerical[rows[row]]), build

    def _histogram_offsets(self, n_channels, r, n_bins):
        """(C, r, 1): (c·r + i)·n_bins, where row i's histogram of channel c starts among
        :meth:`_histogram_refinement`'s (kept: it runs once per refinement)."""
        key = n_channels, r, n_bins
        if key not in self._offsets:
            self._offsets[key] = np.arange(n_channels * r).reshape(n_channels, r, 1) * n_bins
        return self._offsets[key]

    def _first_of_least(self, phases, bar, rule_count=None):
        """(quality, row, phase, j, side, (head output, scores)) of the first candidate of
        least quality < ``bar`` in scan order (least row, then phase, boundary j, side), or
        None: the qualities of all phases side by side, (r, phase, j, side) in C order, so
        np.argmin's first occurrence is the scan order's. With the rule's count
        ``rule_count`` (mlrl-boomer's way), a candidate's count is the inside side's, or the
        rule's less it (specs §4.8)."""
        phases = [phase for phase in phases if phase.valid.size]
        if not phases:
            return None
        sides = phases[0].sides if len(phases) == 1 else \
            np.concatenate([phase.sides for phase in phases], axis=2)
        if any(phase.valid.ndim == 3 for phase in phases):        # a validity per side
            valid = np.concatenate([np.broadcast_to(
                phase.valid if phase.valid.ndim == 3 else phase.valid[:, :, None],
                phase.sides.shape[1:]) for phase in phases], axis=1)
        else:                                                     # one for both sides
            valid = (phases[0].valid if len(phases) == 1 else
                     np.concatenate([phase.valid for phase in phases], axis=1))[:, :, None]
        counts = None
        if rule_count is not None and self.config.min_coverage > 1:
            counts = np.empty(sides.shape[1:])
            counts[..., 0] = sides[-1, ..., 0]
            np.subtract(rule_count, sides[-1, ..., 0], out=counts[..., 1])
        heads = self._heads(sides, counts=counts)
        qualities = np.where(valid, heads[2], np.inf)                      # (r, k, 2)
        while True:
            row, column = divmod(int(qualities.argmin()), qualities.shape[1] * 2)
            j, side = divmod(column, 2)
            least = qualities[row, j, side]
            if not least < bar:
                return None
            if rule_count is None or counts is not None:
                break
            # a count below min_coverage = 1 is 0: rare, so checked for the winner alone
            summed = sides[-1, row, j, 0]
            if (summed if side == 0 else rule_count - summed) >= 1:
                break
            qualities[row, j, side] = np.inf
        head = _head_at(heads, (row, j, side))
        for phase in phases:
            if j < phase.valid.shape[1]:
                return float(least), row, phase, j, side, head
            j -= phase.valid.shape[1]

    def _first_least(self, sums, bar, every=False, counts=None):
        """(heads, j) of the first column of ``sums`` (C, k) of least quality < ``bar``
        (np.argmin's first occurrence), or None; ``every``, ``counts`` as :meth:`_heads`."""
        heads = self._heads(sums, every=every, counts=counts)
        j = int(np.argmin(heads[2]))
        return (heads, j) if heads[2][j] < bar else None

    def _nominal_refinement(self, feature, covered, stats, bar, rule_totals):
        """§3.3 for one nominal feature: (quality, feature, build) or None; the totals as in
        :func:`_totals`, the sums of the value 0 from the others' (the reference's
        :func:`_nominal_candidates`), so a sparse column's zeros are never read."""
        column = self.data.values[feature]
        present = covered.copy()
        if not self.config.mlrl_compatible:
            present &= stats[-1] > 0             # examples of weight 0 take no part
        if self.sparse:                          # the stored values: missing or not zero
            stored = present[column.rows]
            missing = column.rows[stored & np.isnan(column.values)]
            nonzero = ~np.isnan(column.values) & stored
            rows, codes = column.rows[nonzero], column.values[nonzero]
            present[missing] = False
            has_zero = int(present.sum()) > len(rows)
            examples = None                      # (mlrl-boomer's way reads dense data only)
        else:
            missing = np.flatnonzero(covered & np.isnan(column))
            present &= ~np.isnan(column)
            examples = np.flatnonzero(present)
            all_codes = column[examples]
            nonzero = all_codes != 0
            rows, codes = examples[nonzero], all_codes[nonzero]
            has_zero = not nonzero.all()
        if not present.any():
            return None
        total = _sum(stats[:, np.flatnonzero(present)]) if rule_totals is None else \
            _less(rule_totals, stats[:, missing])
        distinct, value_of = np.unique(codes, return_inverse=True)
        equal = _grouped_sums(stats[:, rows], value_of, len(distinct))  # (C, values but 0)
        others = _sum(np.concatenate([np.zeros((len(stats), 1)), equal], axis=1))     # g*
        at = int(np.searchsorted(distinct, 0))
        if has_zero:                             # Fig. 11: the total less g*, and g*
            distinct = np.insert(distinct, at, np.float32(0))
            equal = np.insert(equal, at, total - others, axis=1)
        unequal = total[:, None] - equal
        if has_zero:
            unequal[:, at] = others
        sums = np.stack([equal, unequal], axis=2).reshape(len(stats), 2 * len(distinct))
        least = self._first_least(sums, bar, every=True)
        if least is None:
            return None
        heads, j = least

        def build():
            value = distinct[j // 2]
            chosen = None
            if examples is not None:
                member = column[examples] == value
                chosen = examples[member if j % 2 == 0 else ~member]
            return ("==", "!=")[j % 2], value, chosen, sums[:, j], None, \
                _head_at(heads, (j,)), None, False
        return float(heads[2][j]), feature, build

    def _mlrl_nominal_refinement(self, feature, covered, stats, bar, rule_totals, mlrl):
        """mlrl-boomer's nominal search on one feature (``mlrl_compatible``; the reference's
        :func:`_mlrl_nominal_candidates`): (quality, feature, build) or None. Candidates:
        ``==``, ``!=`` of each searched value with covered examples, in the layout's order,
        then ``!= majority``, ``== majority``; of a binary feature, ``== v`` and ``==
        majority`` alone (the first two sums, the second as ``== majority``)."""
        layout, column = self.layouts[feature], self.data.values[feature]
        present = covered & ~np.isnan(column)
        bins = []
        for value in layout.bins:
            members = np.flatnonzero(present & (column == value))
            if len(members):
                bins.append((value, members[::-1] if layout.descending else members))
        if not bins:
            return None
        total = _less(rule_totals, stats[:, mlrl.missing.of(feature, covered,
                                                            mlrl.last_feature is not None)])
        rule_count = mlrl.count
        equal = _grouped_sums(stats[:, np.concatenate([members for _, members in bins])],
                              np.repeat(np.arange(len(bins)), [len(m) for _, m in bins]),
                              len(bins))                                            # (C, k)
        n_equal = equal[-1].astype(np.int64)
        accumulated = _sum(np.concatenate([np.zeros((len(stats), 1)), equal], axis=1))
        n_accumulated = int(n_equal.sum())
        sums = np.concatenate([np.stack([equal, total[:, None] - equal], axis=2).reshape(
            len(stats), -1), accumulated[:, None], (total - accumulated)[:, None]], axis=1)
        counts = np.concatenate([np.stack([n_equal, rule_count - n_equal], axis=1).ravel(),
                                 [n_accumulated, rule_count - n_accumulated]])
        if layout.binary:
            sums, counts = sums[:, :2], counts[:2]
        least = self._first_least(sums, bar, counts=counts)
        if least is None:
            return None
        heads, j = least

        def build():
            minority = np.concatenate([members for _, members in bins])
            head, count = _head_at(heads, (j,)), int(counts[j])
            if j == 2 * len(bins):                                      # != majority
                return "!=", layout.majority, minority, sums[:, j], None, head, count, False
            if j == 2 * len(bins) + 1 or layout.binary and j == 1:     # == majority
                return "==", layout.majority, np.flatnonzero(present & (
                    column == layout.majority)), sums[:, j], minority, head, count, False
            value, members = bins[j // 2]
            if j % 2 == 0:
                return "==", value, members, sums[:, j], None, head, count, False
            return "!=", value, np.flatnonzero(present & (column != value)), sums[:, j], \
                members, head, count, False
        return float(heads[2][j]), feature, build


def _grouped_sums(columns, group, n_groups):
    """(C, n_groups): the sums of the columns of ``columns`` (C, n) of each group, added in
    column order from 0 (``np.bincount`` adds its weights one by one, as the reference)."""
    channels = len(columns)
    target = group[None, :] + (np.arange(channels) * n_groups)[:, None]
    sums = np.bincount(target.ravel(), weights=columns.ravel(), minlength=channels * n_groups)
    return sums.reshape(channels, n_groups).astype(np.float64, copy=False)   # (int if empty)


def _occupied_bins(histogram, occupied, n_occupied):
    """Only occupied bins can end a side: each row's occupied bins of ``histogram`` (C, r, B),
    in order, left-aligned and padded with empty bins (an empty bin adds +0 to a running sum,
    so the sums are the same; after a row's last occupied bin a side covers all, which no
    candidate may). Returns the compact histogram (C, r, width), each entry's bin, and
    which entries are bins."""
    channels, r = histogram.shape[:2]
    width = int(n_occupied.max())
    occupied_row, bins = np.nonzero(occupied)
    at = np.arange(len(bins)) - (np.cumsum(n_occupied) - n_occupied)[occupied_row]
    compact = np.zeros((channels, r, width))
    compact[:, occupied_row, at] = histogram[:, occupied_row, bins]
    bin_of = np.zeros((r, width), dtype=np.int64)
    bin_of[occupied_row, at] = bins
    is_bin = np.zeros((r, width), dtype=bool)
    is_bin[occupied_row, at] = True
    return compact, bin_of, is_bin


def _head_at(heads, index):
    """(chosen output or None, scores) of candidate ``index`` in :meth:`RuleInduction._heads`
    ``heads`` (chosen, scores, qualities)."""
    chosen, scores, _ = heads
    if chosen is None:                                  # complete heads: (K, ...) scores
        return None, scores[(slice(None),) + index]
    return chosen[index], scores[index]


class _SortedStored:
    """A sparse feature's stored values by (value, example), missing (NaN) ones apart."""

    def __init__(self, column):
        present = ~np.isnan(column.values)
        order = np.argsort(column.values[present], kind="stable")
        self.rows = column.rows[present][order]
        self.values = column.values[present][order]
        self.missing = column.rows[~present]


class _Phase(NamedTuple):
    """The boundaries one phase of :func:`reference.boomer._numerical_candidates` evaluates,
    for all rows at once: boundary j of row r is valid where ``valid[r, j]``, and in scan order
    within its row (increasing j; ``valid`` may also be (r, k, 2), side by side). ``sides``
    (C, r, k, 2) holds the running sum at each
    boundary (side 0, "inside") and the rest of the total (side 1); the reference evaluates the
    inside side first. The inside side covers the sorted positions before ``split(r, j)``
    when ``inside_is_lower``, else those from it up; ``threshold(r, j)`` is the condition's
    threshold."""

    valid: np.ndarray
    sides: np.ndarray
    split: object
    threshold: object
    inside_is_lower: bool


def _sides(inside, totals):
    """(C, r, k, 2): the running sums ``inside`` (C, r, k) and the rest of ``totals`` (C, r)."""
    sides = np.empty(inside.shape + (2,))
    sides[..., 0] = inside
    np.subtract(totals[:, :, None], inside, out=sides[..., 1])
    return sides


def _running_sides(source, totals):
    """:func:`_sides` of the running sums of ``source`` (C, r, k) along its rows, added in
    order (``np.cumsum`` straight into place)."""
    sides = np.empty(source.shape + (2,))
    np.cumsum(source, axis=2, out=sides[..., 0])
    np.subtract(totals[:, :, None], sides[..., 0], out=sides[..., 1])
    return sides


def _channels(gradients, hessians, weights, outputs, packed_hessian):
    """The weighted statistics of the outputs a head may still predict for (all packed
    Hessians of non-decomposable statistics), and the count of examples of non-zero weight,
    as the channels of one array (C, n_examples)."""
    if not packed_hessian:
        hessians = hessians[:, outputs]
    return np.concatenate([(gradients[:, outputs] * weights[:, None]).T,
                           (hessians * weights[:, None]).T, (weights > 0)[None]])


def _statistics(sums, packed_hessian):
    """The gradient and Hessian channels of channel sums (C, ...): K gradients, then K or
    K(K+1)/2 Hessians, then the count."""
    if packed_hessian:                      # C - 1 = K + K(K+1)/2
        k = int(round((-3 + (9 + 8 * (len(sums) - 1)) ** 0.5) / 2))
        return sums[:k], sums[k:-1]
    k = (len(sums) - 1) // 2
    return sums[:k], sums[k:2 * k]


def _totals(examples, values, covered, stats, rule_totals, missing_of=None):
    """The reference's totals of each row, shape (C, r): Σ stats over the row's covered
    examples with a value, added in example order, or (``rule_totals`` given, mlrl-boomer's
    way) the rule's sums less the row's missing values one by one, in the order of
    ``missing_of(row)``. One sum serves the rows without missing values; each row with some
    gets its own."""
    total = np.cumsum(stats[:, covered], axis=1)[:, -1] if rule_totals is None else rule_totals
    totals = np.repeat(total[:, None], len(examples), axis=1)
    for row in np.flatnonzero(np.isnan(values).any(axis=1)):
        missing = np.isnan(values[row])
        if rule_totals is not None:
            totals[:, row] = _less(rule_totals, stats[:, missing_of(row)])
            continue
        kept = np.sort(examples[row][~missing])
        totals[:, row] = np.cumsum(stats[:, kept], axis=1)[:, -1] if len(kept) else 0.0
    return totals


def _sum(columns):
    """The sum of the columns of ``columns`` (C, k), added in order (0 for k = 0)."""
    return np.cumsum(columns, axis=1)[:, -1] if columns.shape[1] else np.zeros(len(columns))


def _less(totals, removed):
    """``totals`` (C,) less the columns of ``removed`` (C, k) one after the other, as the
    reference's subtractions (``np.subtract.accumulate`` subtracts sequentially)."""
    return np.subtract.accumulate(np.concatenate([totals[:, None], removed], axis=1),
                                  axis=1)[:, -1]


def _numerical_phases(values, examples, stats, totals, mlrl_compatible, plain_inequality,
                      has_zero=None, rule_count=None, just_refined=None):
    """The :class:`_Phase` s of the rows of ``values`` (r features, m sorted covered examples
    each): phase I (values below zero, ascending), II (from zero up, descending) and III
    (below zero against the others), each only when it can hold a boundary. ``has_zero``
    (mlrl-boomer's sparse search; the zeros are NaN in ``values``): each row's ``sparse``
    flag, which adds mlrl-boomer's candidates against the zeros (the reference's
    ``has_zero``). mlrl-boomer's way: ``rule_count`` is the rule's count and
    ``just_refined`` (r,) marks the feature of the rule's last condition."""
    r, m = values.shape
    if m == 0:
        return []
    stat = stats[:, examples]                                       # (C, r, m)
    present = ~np.isnan(values)
    negative = values < 0
    n_negative = negative.sum(axis=1)
    counted = stat[-1] > 0
    if not present.all():
        stat = stat * present                      # missing: adds ±0, i.e. nothing
        counted &= present
    distinct = values[:, :-1] != values[:, 1:] if plain_inequality \
        else differ(values[:, :-1], values[:, 1:])                 # x_i vs x_(i+1)
    phases = []
    # The running sums need no masks: in the sorted rows the values below zero come first, so
    # a prefix sum over them is phase I's, and a sum from the top down to zero is phase II's;
    # sums past those ranges belong to boundaries the reference never evaluates (invalid).
    # Phase I: the boundary before position i = j + 1 < k, ascending; Σ covers positions <= j
    k = int(n_negative.max())
    if k:
        below = np.cumsum(stat[:, :, :k], axis=2)
        valid = counted[:, 1:k] & negative[:, 1:k] & (below[-1, :, :-1] > 0) & \
            distinct[:, :k - 1]
        phases.append(_Phase(valid, _sides(below[:, :, :-1], totals), lambda row, j: j + 1,
                             lambda row, j: midpoint(values[row, j], values[row, j + 1]), True))
    # Phase II: the boundary after position i = m - 2 - j >= low, descending; Σ covers
    # positions > i
    low = int(n_negative.min())
    upper = present & ~negative
    first = n_negative + (1 if mlrl_compatible else 0)
    if low < m - 1:
        sides = _running_sides(stat[:, :, m - 1:low:-1], totals)
        n = m - 1 - low
        valid = (counted & upper)[:, m - 2::-1][:, :n] & (sides[-1, :, :, 0] > 0) & \
            distinct[:, ::-1][:, :n] & (np.arange(n) <= (m - 2 - first)[:, None])
        phases.append(_Phase(valid, sides, lambda row, j: m - 1 - j, lambda row, j: midpoint(
            values[row, m - 2 - j], values[row, m - 1 - j]), False))
    rows = np.arange(r)
    if has_zero is not None and has_zero.any():
        phases.append(_against_the_zeros(values, stat, counted, upper, n_negative, has_zero,
                                         totals))
    # Phase III: the values below zero against the others (one boundary per row)
    if k:
        inside = below[:, rows, np.maximum(n_negative - 1, 0)][:, :, None]
        valid = ((n_negative > 0) & (inside[-1, :, 0] > 0) & (inside[-1, :, 0] < (
            totals[-1] if rule_count is None else rule_count)))[:, None]
        # the reference's last value of phase II: x_first, or the largest counted value
        # when there is none from x_first up, or without one the last value below zero
        highest = np.where((counted & upper).any(axis=1), np.minimum(
            _highest_counted_upper(counted & upper), first), np.maximum(n_negative - 1, 0))
        if not mlrl_compatible:          # not between values equal in mlrl-boomer's sense
            valid &= differ(values[rows, np.maximum(n_negative - 1, 0)],
                            values[rows, highest])[:, None]
        zero = np.zeros(r, dtype=bool) if has_zero is None else has_zero
        phases.append(_Phase(valid, _sides(inside, totals), lambda row, j: n_negative[row],
                             lambda row, j: midpoint(values[row, n_negative[row] - 1], 0 if
                                                     zero[row] else values[row, highest[row]]),
                             True))
    if mlrl_compatible:        # the features mlrl-boomer searches (the reference's)
        n_present = present.sum(axis=1)
        searched = (n_present > 0) & (
            (np.zeros(r, dtype=bool) if has_zero is None else has_zero) | just_refined |
            differ(values[rows, 0], values[rows, np.maximum(n_present - 1, 0)]))
        phases = [phase._replace(valid=phase.valid & searched.reshape(
            (r,) + (1,) * (phase.valid.ndim - 1))) for phase in phases]
    return phases


def _against_the_zeros(values, stat, counted, upper, n_negative, has_zero, totals):
    """mlrl-boomer's candidates of a sparse column against its zeros (the reference's
    ``mlrl_sparse`` block): ``x > mean(0, v)`` on phase II's sums, which leave out the
    smallest positive value unless it is the only counted one, then ``x <= mean(0, v)``;
    v is the value phase II ended on. The interval covers every positive value."""
    r, m = values.shape
    rows = np.arange(r)
    counted_upper = counted & upper
    any_upper = counted_upper.any(axis=1)
    top = _highest_counted_upper(counted_upper)
    start = n_negative + (any_upper & (top > n_negative))      # Σ over positions >= start
    tail = np.concatenate([np.cumsum(stat[:, :, ::-1], axis=2)[:, :, ::-1],
                           np.zeros(stat.shape[:2] + (1,))], axis=2)      # sums from each
    inside = np.where(any_upper, tail[:, rows, start], 0.0)[:, :, None]
    counted_negative = (counted & ~upper & ~np.isnan(values)).any(axis=1)
    last = np.where(any_upper, values[rows, np.minimum(top, n_negative + 1)],
                    np.where(counted_negative, values[rows, np.maximum(n_negative - 1, 0)], 0))
    return _Phase(has_zero[:, None], _sides(inside, totals), lambda row, j: n_negative[row],
                  lambda row, j: midpoint(0, last[row]), False)


def _highest_counted_upper(counted_upper):
    """Per row, the last position of a counted example from zero up (0 if none)."""
    m = counted_upper.shape[1]
    return np.where(counted_upper.any(axis=1),
                    m - 1 - np.argmax(counted_upper[:, ::-1], axis=1), 0)
