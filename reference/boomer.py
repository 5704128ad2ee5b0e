"""Greedy induction of one boosted rule (BOOMER), readable reference.

This module follows Algorithms 2 and 3 of Rapp et al. (2023): top-down greedy rule induction
(FIND_RULE), which adds to the rule's body the refinement of best quality found by the
pre-sorted search over each feature (FIND_REFINEMENT), until no refinement improves the rule.
Algorithm 1 (sequential assemblage of the rules) is
:func:`optrules.boosted_rules.fit_boosted_rules`.

Names follow the paper: ``covered`` is the coverage indicator I (eq. 5), kept here as a boolean
mask; ``gradients`` and ``hessians`` are the label-space statistics g_nk, h_nk (eq. 3);
``quality`` is the quality of a head (lower is better, :mod:`optrules.boosted_rules.heads`).

The numerical search traverses each feature as mlrl-boomer 0.12.3 does, in the three phases of
the paper's sparsity-aware search (§3.2): values below zero ascending, values from zero up
descending, then the boundary between the two groups. The evaluation order decides ties (the
first candidate of best quality wins), and the order of the additions decides the last bits of
the sums, so both are part of the contract (``specs/boosted-rules.md`` §4). mlrl-boomer 0.12.3
never evaluates the boundary between the two smallest values from zero up and gives the
boundary between the groups a threshold above the smallest such value;
``SearchConfig.mlrl_compatible`` reproduces both, otherwise every boundary between adjacent
distinct values is evaluated, with its midpoint as threshold (Algorithm 3).

References
----------
.. [1] M. Rapp, J. Fürnkranz, E. Hüllermeier. "On the efficient implementation of
   classification rule learning." Advances in Data Analysis and Classification, 2023.
   (Algorithms 2-3, eq. 3-5, §3.2-3.4.)
.. [2] M. Rapp, E. Loza Mencía, J. Fürnkranz, V.-L. Nguyen, E. Hüllermeier. "Learning
   gradient boosted multi-label classification rules." ECML PKDD 2020. (§4.1: heads.)
"""

from typing import NamedTuple

import numpy as np

from optrules.boosted_rules.heads import single_output_heads
from optrules.boosted_rules.mlrl_layout import (MissingOrder, closes_feature, keeps_vector,
                                                nominal_layout, std_sort_order)
from optrules.boosted_rules.model import Condition
from optrules.boosted_rules.search import (FoundRule, MlrlRule, Refinement, interval_closes,
                                           is_equal, midpoint)
from optrules.boosted_rules.training_data import SparseColumn, dense_column

__all__ = ["RuleInduction"]


class RuleInduction:
    """Algorithm 2 on one training set: ``find_rule`` induces the next rule.

    Parameters
    ----------
    data : TrainingData
    config : SearchConfig
    pool : concurrent.futures.Executor, optional
        Searches the features in parallel (§5.1 of [1]); the result does not change.
    bins : tuple of FeatureBins, optional
        Each numerical feature's bins: the histogram-based search (§4 of [1]) instead of the
        pre-sorted one.
    """

    def __init__(self, data, config, pool=None, bins=None):
        self.data = data
        self.config = config
        self.map = map if pool is None else pool.map
        self.bins = bins
        # mlrl-boomer's order of each nominal feature's values (§4.4)
        self.layouts = {f: nominal_layout(data.values[f], config.mlrl_sparse)
                        for f in range(data.n_features)
                        if data.nominal[f]} if config.mlrl_compatible else {}
        # and its order of equal numerical values: each example's place in its std::sort
        self.ranks = {f: _ranks(std_sort_order(_vector_values(data.values[f], config)),
                                data.n_examples)
                      for f in range(data.n_features)
                      if not data.nominal[f]} if config.mlrl_compatible else {}
        # and of each feature's missing values
        self.missing_order = MissingOrder([dense_column(column) for column in data.values]) \
            if config.mlrl_compatible else None

    def find_rule(self, gradients, hessians, weights, sample_features):
        """The next rule for statistics ``gradients``/``hessians`` (n_examples, n_outputs),
        integer example ``weights`` (n_examples,), and ``sample_features()`` giving the
        features each refinement searches, in increasing order.

        Returns a :class:`FoundRule`, or None when not even one condition improves on the
        empty head (quality 0).
        """
        covered = np.ones(len(weights), dtype=bool)    # I(n), eq. 5: the empty body covers all
        outputs = np.arange(gradients.shape[1])
        # mlrl-boomer keeps the sums of the rule's coverage up to date as it grows (§4.2),
        # and a count of it (specs §4.8)
        mlrl = MlrlRule(_weighted_sum(np.arange(len(weights)), gradients, hessians, weights),
                        int((weights > 0).sum()), None, self.missing_order.for_rule()) \
            if self.config.mlrl_compatible else None
        best, conditions = None, []
        closed = set()          # mlrl-boomer: features this rule searches no more
        # Alg. 2: refine while a refinement is strictly better than the rule so far
        while self.config.max_conditions is None or len(conditions) < self.config.max_conditions:
            refinement = None
            bar = 0.0 if best is None else best.quality
            # each feature against the rule's quality; then, in feature order, keep each
            # strictly better one: the first feature of least quality wins
            candidates = self.map(lambda feature: None if feature in closed else
                                  self._find_refinement(feature, covered, gradients, hessians,
                                                        weights, outputs, bar, mlrl),
                                  sample_features())
            for candidate in list(candidates):
                if candidate is not None and candidate.quality < bar:
                    refinement, bar = candidate, candidate.quality
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
            if self.config.head == "single":      # the first condition fixes the head's output
                outputs = refinement.outputs
            if mlrl is not None:
                mlrl = mlrl._replace(totals=refinement.rule_totals, count=refinement.count,
                                     last_feature=feature)
            if (refinement.covered[weights > 0].sum() if mlrl is None else mlrl.count) <= \
                    self.config.min_coverage:
                break
        if best is None:
            return None
        return FoundRule(tuple(conditions), best.outputs, best.scores, best.covered)

    def _find_refinement(self, feature, covered, gradients, hessians, weights, outputs, bar,
                         mlrl):
        """Alg. 3: the best condition on ``feature`` for the covered examples, or None;
        ``mlrl``: the :class:`MlrlRule` of mlrl-boomer's way, else None."""
        column = self.data.values[feature]
        values = dense_column(column)                # the sparse search reads only the stored
        present = covered & ~np.isnan(values)        # §3.4: missing values are never covered
        if mlrl is None:
            present &= weights > 0       # examples of weight 0 take no part in the search
            missing = None
        else:                            # the covered missing ones, in mlrl-boomer's order
            missing = mlrl.missing.of(feature, covered, mlrl.last_feature is not None)
        examples = np.flatnonzero(present)
        # the statistics the feature's conditions partition: covered, weighted, not missing;
        # mlrl-boomer: the rule's sums less those of the missing values
        total_g, total_h = _weighted_sum(examples, gradients, hessians, weights) \
            if mlrl is None else _less(mlrl.totals, missing, gradients, hessians, weights)
        # mlrl-boomer's vector of a sparse matrix's column leaves out its zeros (and missing
        # values); its ``sparse`` flag says whether any are left out
        sparse_flag = self.config.mlrl_sparse and bool((values == 0).any() |
                                                       np.isnan(values).any())
        vector = examples[values[examples] != 0] if self.config.mlrl_sparse else examples
        if feature in self.layouts:              # mlrl-boomer's way
            candidates = _mlrl_nominal_candidates(
                self.layouts[feature], values, covered, weights, gradients, hessians, total_g,
                total_h, mlrl.count)
        elif self.data.nominal[feature]:
            candidates = _nominal_candidates(values, examples, gradients, hessians, weights,
                                             total_g, total_h)
        elif self.bins is not None:
            candidates = _histogram_candidates(self.bins[feature], examples, gradients,
                                               hessians, weights, total_g, total_h)
        elif isinstance(column, SparseColumn):       # §3.2: the non-zero values only
            stored = present[column.rows]
            candidates = _sparse_numerical_candidates(
                column.rows[stored], column.values[stored], len(examples) - int(stored.sum()),
                gradients, hessians, weights, total_g, total_h)
        elif mlrl is not None and not (feature == mlrl.last_feature or
                                       _mlrl_searches(values[vector], sparse_flag)):
            candidates = ()      # (after a condition on it, its own test let it through)
        else:
            candidates = _numerical_candidates(
                values, self.ranks.get(feature), vector, gradients, hessians, weights, total_g,
                total_h, mlrl is not None, mlrl and mlrl.count, sparse_flag)
        best = None
        for candidate in candidates:
            operator, threshold, chosen, sum_g, sum_h, removed, count, closes = candidate
            condition = Condition(int(feature), operator, float(threshold))
            if mlrl is not None:                     # the examples on its side of the vector
                if removed is None:
                    mask = np.zeros_like(covered)
                    mask[chosen] = True
                else:                                # all but those of the other side
                    mask = covered & ~np.isnan(values)
                    mask[removed] = False
            else:                                    # the examples its threshold covers
                mask = covered & condition.covers(column)
                count = int((mask & (weights > 0)).sum())
            if count < self.config.min_coverage:
                continue
            head_outputs, scores, quality = self._head(sum_g, sum_h, outputs)
            if quality < bar:                        # Alg. 3 lines 14, 18: strictly better
                totals = None
                if mlrl is not None:                 # the rule's sums after this condition
                    totals = _weighted_sum(chosen, gradients, hessians, weights) \
                        if removed is None else \
                        _less(_less(mlrl.totals, removed, gradients, hessians, weights),
                              missing, gradients, hessians, weights)
                best = Refinement(condition, quality, head_outputs, scores, mask, totals, count,
                                  closes)
                bar = quality
        return best

    def _head(self, sum_g, sum_h, outputs):
        """(outputs, scores, quality) of the head of statistics ``sum_g``/``sum_h``."""
        l1, l2 = self.config.l1, self.config.l2
        if self.config.head == "single":
            chosen, score, quality = single_output_heads(sum_g[outputs], sum_h[outputs], l1, l2)
            return outputs[[int(chosen)]], np.array([score]), quality
        scores, quality = self.config.complete_heads(sum_g, sum_h)
        return outputs, scores, quality


def _less(totals, examples, gradients, hessians, weights):
    """``totals`` (Σg, Σh) less w_n g_n and w_n h_n of ``examples``, one after the other."""
    sum_g, sum_h = totals[0].copy(), totals[1].copy()
    for n in examples:
        sum_g -= weights[n] * gradients[n]
        sum_h -= weights[n] * hessians[n]
    return sum_g, sum_h


def _weighted_sum(examples, gradients, hessians, weights):
    """Σ w_n g_n and Σ w_n h_n over ``examples``, added in the order given."""
    sum_g = np.zeros(gradients.shape[1])
    sum_h = np.zeros(hessians.shape[1])
    for n in examples:
        sum_g += weights[n] * gradients[n]
        sum_h += weights[n] * hessians[n]
    return sum_g, sum_h


def _vector_values(column, config):
    """The values mlrl-boomer sorts: all (NaN: missing), or, from a sparse matrix
    (``config.mlrl_sparse``), the stored ones (the zeros as missing)."""
    values = dense_column(column)
    return np.where(values == 0, np.float32(np.nan), values) if config.mlrl_sparse else values


def _mlrl_searches(vector, sparse_flag):
    """Whether mlrl-boomer searches a numerical feature whose vector (the covered values it
    holds) is ``vector``: not when it is empty, nor, without its ``sparse`` flag, when its
    least and greatest values are ``is_equal`` (its EqualFeatureVector)."""
    return len(vector) > 0 and (sparse_flag or not is_equal(vector.min(), vector.max()))


class Candidate(NamedTuple):
    """A candidate condition: ``operator`` and ``threshold`` (or nominal value), the examples
    it covers (``chosen``; None: the threshold says), Σg and Σh over them, the ``removed``
    examples when those are the sums' complement (mlrl-boomer's inverse conditions),
    mlrl-boomer's ``count`` of the examples it covers, and whether mlrl-boomer ``closes`` the
    feature for the rest of the rule after it."""

    operator: str
    threshold: object
    chosen: object
    sum_g: np.ndarray
    sum_h: np.ndarray
    removed: object = None
    count: int | None = None
    closes: bool = False


def _ranks(order, n_examples):
    """Each example's place in ``order`` (those not in it, with missing values, last)."""
    ranks = np.full(n_examples, n_examples, dtype=np.int64)
    ranks[order] = np.arange(len(order))
    return ranks


def _numerical_candidates(values, ranks, examples, gradients, hessians, weights, total_g,
                          total_h, mlrl_compatible, n_reported=None, has_zero=None):
    """Alg. 3 with §3.2's phases: yield (operator, threshold, examples covered, Σg, Σh,
    examples removed, count) for every candidate condition on a numerical feature, in
    evaluation order; the examples in the order of their ``ranks`` (mlrl-boomer's order of
    equal values), or by value with equal values by example. ``count`` is mlrl-boomer's count
    of the examples covered: those summed for a condition whose side the search sums, else
    ``n_reported`` (the rule's count so far; default: the counted examples) less the other
    side's. ``has_zero`` (mlrl-boomer's search of a sparse matrix, specs §4.7, ``examples``
    then being the stored ones): whether the column has zeros left out of the vector."""
    order = examples[np.argsort(values[examples] if ranks is None else ranks[examples],
                                kind="stable")]                       # x_τ, eq. 4
    sorted_values = values[order]
    n_negative = int(np.searchsorted(sorted_values, np.float32(0), side="left"))
    counted = weights[order] > 0
    if n_reported is None:
        n_reported = int(counted.sum())
    n = len(order)

    def closes(start, stop):   # whether mlrl-boomer's vector after the condition is done
        return mlrl_compatible and interval_closes(sorted_values, start, stop, bool(has_zero))
    # Phase I: values below zero, ascending; a boundary is evaluated before the example
    # after it is added, so Σ covers exactly the examples before the boundary (x <= t)
    sum_g, sum_h = np.zeros_like(total_g), np.zeros_like(total_h)
    previous = None
    n_summed = 0
    for i in range(n_negative):
        if previous is None and not counted[i]:
            continue                # thresholds start at the first counted example
        if counted[i]:
            if previous is not None and not is_equal(previous, sorted_values[i]):
                threshold = midpoint(previous, sorted_values[i])
                yield Candidate("<=", threshold, order[:i], sum_g.copy(), sum_h.copy(),
                                count=n_summed, closes=closes(0, i))
                yield Candidate(">", threshold, order[i:], total_g - sum_g, total_h - sum_h,
                                order[:i], n_reported - n_summed, closes(i, n))
            sum_g += weights[order[i]] * gradients[order[i]]
            sum_h += weights[order[i]] * hessians[order[i]]
            n_summed += 1
        previous = sorted_values[i]   # uncounted examples still place thresholds
    negative_g, negative_h, last_negative, n_counted_negative = \
        sum_g, sum_h, previous, n_summed
    # Phase II: values from zero up, descending, from the largest counted one; Σ covers the
    # examples above the boundary (x > t)
    sum_g, sum_h = np.zeros_like(total_g), np.zeros_like(total_h)
    previous = None
    # mlrl-boomer 0.12.3 stops one example early: the boundary between the two smallest
    # values from zero up is never evaluated
    stop = n_negative + 1 if mlrl_compatible else n_negative
    n_summed = 0
    for i in range(len(order) - 1, n_negative - 1, -1):
        if previous is None and not counted[i]:
            continue
        if previous is not None and i < stop:
            break
        if counted[i]:
            if previous is not None and not is_equal(sorted_values[i], previous):
                threshold = midpoint(sorted_values[i], previous)
                yield Candidate(">", threshold, order[i + 1:], sum_g.copy(), sum_h.copy(),
                                count=n_summed, closes=closes(i + 1, n))
                yield Candidate("<=", threshold, order[:i + 1], total_g - sum_g, total_h - sum_h,
                                order[i + 1:], n_reported - n_summed, closes(0, i + 1))
            sum_g += weights[order[i]] * gradients[order[i]]
            sum_h += weights[order[i]] * hessians[order[i]]
            n_summed += 1
        previous = sorted_values[i]
    if has_zero:
        # mlrl-boomer's vector of a sparse column holds its stored values; with zeros left
        # out it then offers x > mean(0, v) on phase II's sums (which miss the smallest
        # positive value, while the condition's interval covers it) and x <= mean(0, v)
        last = previous if previous is not None else \
            last_negative if last_negative is not None else 0
        threshold = midpoint(0, last)
        yield Candidate(">", threshold, order[n_negative:], sum_g, sum_h, count=n_summed,
                        closes=closes(n_negative, n))
        # (no range when there is no value below zero: mlrl-boomer then keeps [n, n))
        yield Candidate("<=", threshold, None, total_g - sum_g, total_h - sum_h,
                        order[n_negative:], n_reported - n_summed,
                        closes(0, n_negative))
        previous = np.float32(0)
    # Phase III (dense data): the boundary between the values below zero and the others,
    # unless the two are equal in mlrl-boomer's sense (mlrl-boomer does not ask)
    if 0 < n_counted_negative < n_reported and \
            (mlrl_compatible or not is_equal(last_negative, previous)):
        threshold = midpoint(last_negative, last_negative if previous is None else previous)
        yield Candidate("<=", threshold, order[:n_negative], negative_g, negative_h,
                        count=n_counted_negative, closes=closes(0, n_negative))
        yield Candidate(">", threshold, order[n_negative:], total_g - negative_g,
                        total_h - negative_h, order[:n_negative],
                        n_reported - n_counted_negative, closes(n_negative, n))


def _sparse_numerical_candidates(rows, values, n_zero, gradients, hessians, weights, total_g,
                                 total_h):
    """§3.2's sparsity-aware search: the candidates of :func:`_numerical_candidates`, in the
    same order and with the same sums, from the stored (non-zero) values ``values`` of the
    examples ``rows`` and the number ``n_zero`` of the others, whose value 0 is never read.
    (The reference's coverage and totals still come from the dense column; the fast engine
    reads only the stored values.)"""
    order = np.argsort(values, kind="stable")
    rows, values = rows[order], values[order]        # by (value, example), as x_τ
    n_negative = int(np.searchsorted(values, np.float32(0), side="left"))
    # Phase I: values below zero, ascending: Σ' covers the examples before each boundary
    negative_g, negative_h = np.zeros_like(total_g), np.zeros_like(total_h)
    for i in range(n_negative):
        if i and not is_equal(values[i - 1], values[i]):
            threshold = midpoint(values[i - 1], values[i])
            yield Candidate("<=", threshold, rows[:i], negative_g.copy(), negative_h.copy())
            yield Candidate(">", threshold, None, total_g - negative_g, total_h - negative_h)
        negative_g += weights[rows[i]] * gradients[rows[i]]
        negative_h += weights[rows[i]] * hessians[rows[i]]
    # Phase II: values above zero, descending: Σ'' covers the examples above each boundary
    positive_g, positive_h = np.zeros_like(total_g), np.zeros_like(total_h)
    for i in range(len(values) - 1, n_negative - 1, -1):
        if i < len(values) - 1 and not is_equal(values[i], values[i + 1]):
            threshold = midpoint(values[i], values[i + 1])
            yield Candidate(">", threshold, rows[i + 1:], positive_g.copy(), positive_h.copy())
            yield Candidate("<=", threshold, None, total_g - positive_g, total_h - positive_h)
        positive_g += weights[rows[i]] * gradients[rows[i]]
        positive_h += weights[rows[i]] * hessians[rows[i]]
    # Phase III: the positive values against the rest, when there are zeros (Fig. 6) ...
    has_positive = n_negative < len(values)
    if n_zero and has_positive and not is_equal(0, values[n_negative]):
        threshold = midpoint(0, values[n_negative])
        yield Candidate(">", threshold, rows[n_negative:], positive_g, positive_h)
        yield Candidate("<=", threshold, None, total_g - positive_g, total_h - positive_h)
    # ... and the negative values against the rest (Fig. 7), the zeros in between if any
    other = 0 if n_zero else values[n_negative] if has_positive else None
    if n_negative and other is not None and not is_equal(values[n_negative - 1], other):
        threshold = midpoint(values[n_negative - 1], other)
        yield Candidate("<=", threshold, rows[:n_negative], negative_g, negative_h)
        yield Candidate(">", threshold, None, total_g - negative_g, total_h - negative_h)


def _nominal_candidates(values, examples, gradients, hessians, weights, total_g, total_h):
    """§3.3: yield (operator, value, examples covered, Σg, Σh, None) for ``x == v`` and
    ``x != v`` of every value v of the covered ``examples``, in increasing order of v. As in
    the sparsity-aware search, the sums of the value 0 are never read: Σ over the examples of
    value 0 is the total less g* (the sums of the other values added in increasing order)."""
    codes = values[examples]
    distinct = np.unique(codes)
    sums = {value: _weighted_sum(examples[codes == value], gradients, hessians, weights)
            for value in distinct if value != 0}
    other_g, other_h = np.zeros_like(total_g), np.zeros_like(total_h)
    for value in sorted(sums):                                         # g*, H* (§3.3.2)
        other_g, other_h = other_g + sums[value][0], other_h + sums[value][1]
    for value in distinct:
        if value == 0:              # Fig. 11: == is the total less g*, != is g*
            equal, unequal = (total_g - other_g, total_h - other_h), (other_g, other_h)
        else:
            equal = sums[value]
            unequal = (total_g - equal[0], total_h - equal[1])
        yield Candidate("==", value, examples[codes == value], *equal)
        yield Candidate("!=", value, examples[codes != value], *unequal)


def _mlrl_nominal_candidates(layout, values, covered, weights, gradients, hessians, total_g,
                             total_h, n_reported):
    """mlrl-boomer 0.12.3's nominal search (``mlrl_compatible``; ``feature_based_search_
    nominal.hpp``): yield the :class:`Candidate` s ``x == v`` and ``x != v`` of each value v of
    ``layout.bins`` with covered examples, in that order, then ``x != majority`` (the sums of
    those values, accumulated in turn) and ``x == majority`` (the total less them). Each
    value's examples are summed in the layout's order. The count of ``==`` v and ``!=
    majority`` is that of the examples summed, that of the others ``n_reported`` (the rule's
    count, which includes the covered examples with a missing value) less it."""
    present = covered & ~np.isnan(values)
    bins = []
    for value in layout.bins:
        members = np.flatnonzero(present & (values == value))
        if len(members):
            bins.append((value, members[::-1] if layout.descending else members))
    if layout.binary:               # x == v, then x == majority: the rest, no !=
        for value, members in bins:
            sum_g, sum_h = _weighted_sum(members, gradients, hessians, weights)
            n_covered = int((weights[members] > 0).sum())
            yield Candidate("==", value, members, sum_g, sum_h, count=n_covered)
            yield Candidate("==", layout.majority, np.flatnonzero(
                present & (values == layout.majority)), total_g - sum_g, total_h - sum_h,
                members, n_reported - n_covered)
        return
    accumulated_g, accumulated_h = np.zeros_like(total_g), np.zeros_like(total_h)
    n_accumulated = 0
    for value, members in bins:
        sum_g, sum_h = _weighted_sum(members, gradients, hessians, weights)
        n_covered = int((weights[members] > 0).sum())
        yield Candidate("==", value, members, sum_g, sum_h, count=n_covered)
        yield Candidate("!=", value, np.flatnonzero(present & (values != value)),
                        total_g - sum_g, total_h - sum_h, members, n_reported - n_covered)
        accumulated_g, accumulated_h = accumulated_g + sum_g, accumulated_h + sum_h
        n_accumulated += n_covered
    if not bins:                  # every covered example has the majority value (or none)
        return
    minority = np.concatenate([members for _, members in bins])
    yield Candidate("!=", layout.majority, minority, accumulated_g, accumulated_h,
                    count=n_accumulated)
    yield Candidate("==", layout.majority, np.flatnonzero(present & (values == layout.majority)),
                    total_g - accumulated_g, total_h - accumulated_h, minority,
                    n_reported - n_accumulated)


def _histogram_candidates(bins, examples, gradients, hessians, weights, total_g, total_h):
    """§4: yield (operator, threshold, None, Σg, Σh, None) (the threshold says what it
    covers) for ``x <= t_b`` and ``x > t_b`` at each
    threshold between two occupied bins of the covered examples, ascending."""
    # Alg. 4: the histogram of the covered examples' weighted statistics, in example order
    n_bins = bins.n_bins
    histogram_g = np.zeros((n_bins, gradients.shape[1]))
    histogram_h = np.zeros((n_bins, hessians.shape[1]))
    occupied = np.zeros(n_bins, dtype=bool)
    for n in examples:
        b = bins.index[n]
        histogram_g[b] += weights[n] * gradients[n]
        histogram_h[b] += weights[n] * hessians[n]
        occupied[b] = True
    bins_in_use = np.flatnonzero(occupied)
    sum_g, sum_h = np.zeros_like(total_g), np.zeros_like(total_h)
    for b in bins_in_use[:-1]:           # the boundary after bin b, below the next occupied one
        sum_g += histogram_g[b]
        sum_h += histogram_h[b]
        yield Candidate("<=", bins.thresholds[b], None, sum_g.copy(), sum_h.copy())
        yield Candidate(">", bins.thresholds[b], None, total_g - sum_g, total_h - sum_h)
