"""Certifiably optimal rule lists (CORELS), fast: the reference search on compressed samples,
with every child of a prefix evaluated in one vectorised step.

Two changes to ``optrules.reference.corels``, neither of which changes a decision
(specs/rule-lists.md §12):

1. **Compressed samples.** Samples with the same antecedent vector, class and minority mark are
   indistinguishable to the search: every set it computes (captures, uncaptured sets, symmetry
   keys) holds all of them or none, and every count it takes is a sum of their weights. They are
   merged into one sample whose weight is their total (COMPAS: 6 489 rows, 155 antecedents,
   ≤ 2·194 merged samples). The integer units (1/(qW)) are unchanged, so every comparison
   compares the same integers as the reference engine does.
2. **Vectorised children.** For a popped prefix, the class weights captured by every candidate
   antecedent are one matrix product, and the support tests, lower bounds, minority bounds and
   objectives are array operations. Python work is left to the children that pass every test
   that does not depend on the incumbent; they go through the reference engine's own trie, map
   and queue code in antecedent order, so the search, its counters and its result are the
   reference engine's.

Float64 holds the captured weights exactly (the total weight is at most 2**53,
:mod:`optrules.data.weights`); they are converted to int64 before any comparison. Instances
whose scaled objectives could overflow int64 run on the reference engine unchanged.
"""

import bisect
import time

import numpy as np

from optrules.data import bitset
from optrules.data.binary_dataset import BinaryDataset
from optrules.reference.corels import _BranchAndBound, _Node, search_result

__all__ = ["corels", "compressed"]

#: Largest scaled objective the int64 arrays may hold with room for sums (else: reference).
_INT64_SAFE = 1 << 61


def compressed(dataset):
    """``dataset`` with samples of equal antecedent vector, class and minority mark merged into
    one sample weighing their total (integer weights, not reduced by their gcd), in order of
    first occurrence; the antecedents, classes and conditions are unchanged."""
    weights = dataset.unit_weights()
    bits = dataset.antecedent_bits()
    marked = np.zeros(dataset.n_samples, dtype=bool) if dataset.minority is None \
        else bitset.unpack(dataset.minority, dataset.n_samples)
    keys = np.concatenate([np.packbits(bits.T, axis=1),
                           dataset.labels.astype(">u8").view(np.uint8).reshape(-1, 8),
                           marked[:, np.newaxis].astype(np.uint8)], axis=1)
    keys = np.ascontiguousarray(keys).view(np.dtype((np.void, keys.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first)                       # merged samples by first occurrence
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    group = rank[inverse.ravel()]
    # np.bincount with weights sums in float64; int64 sums stay exact.
    merged_weights = np.zeros(order.size, dtype=np.int64)
    np.add.at(merged_weights, group, weights)
    representatives = first[order]
    n_merged = order.size
    return BinaryDataset(
        dataset.antecedent_names,
        bitset.pack(bits[:, representatives]).reshape(dataset.n_antecedents,
                                                      bitset.n_words(n_merged)),
        dataset.labels[representatives], n_merged, dataset.target, dataset.classes,
        None if dataset.minority is None else bitset.pack(marked[representatives]),
        dataset.antecedent_conditions, merged_weights, dataset.weight_unit)


class _VectorisedBranchAndBound(_BranchAndBound):
    """The reference search (Alg. 2) whose expansion evaluates all children at once."""

    def __init__(self, dataset, lam, config):
        super().__init__(dataset, lam, config)
        # Array side: the samples grouped by antecedent vector (U groups), each with its weight
        # per class and its marked weight (the last column): one row of ``table`` per group.
        vectors, group = np.unique(dataset.antecedent_bits().T, axis=0, return_inverse=True)
        self.holds = np.ascontiguousarray(vectors.T)                          # (M, U) bool
        # float32 sums integers exactly up to 2**24, float64 up to 2**53 (weights.py's cap);
        # a matrix-vector product per column is several times faster than one small product
        # of matrices here (OpenBLAS).
        self.exact_float = np.float32 if self.total_weight < 1 << 24 else np.float64
        self.matrix = self.holds.astype(self.exact_float)
        n_classes = dataset.n_classes
        marked = np.zeros(dataset.n_samples, dtype=bool)
        if self.minority_set:
            marked = bitset.unpack(dataset.minority, dataset.n_samples)
        table = np.zeros((len(vectors), n_classes + 1), dtype=np.int64)
        np.add.at(table, (group.ravel(), dataset.labels), dataset.weights)
        np.add.at(table, (group.ravel(), n_classes), np.where(marked, dataset.weights, 0))
        self.columns = [np.ascontiguousarray(column, dtype=self.exact_float)
                        for column in table.T]                                 # C + 1 of (U,)
        self.sorted_prefix = []          # the prefix being expanded, ascending (map keys)

    def _expand(self, node):
        """Alg. 2 body for all children (d_p, s) at once; survivors in antecedent order."""
        bounds, mistake, penalty = self.bounds, self.mistake, self.rule_penalty
        prefix = node.prefix()
        self.sorted_prefix = sorted(prefix)           # for the children's symmetry keys
        uncaptured = ~self.holds[prefix].any(axis=0) if prefix else \
            np.ones(self.holds.shape[1], dtype=bool)
        not_captured = self.everything                      # u <- ¬cap(x, d_p), as in Alg. 2
        for antecedent in prefix:
            not_captured &= ~self.antecedents[antecedent]
        left = [column * uncaptured for column in self.columns]
        # every candidate's captured weight per class, and its marked weight (exact integers)
        captured_all = np.stack([self.matrix @ column for column in left], axis=1)
        captured_all = captured_all.astype(np.int64)                        # (M, C + 1)
        captured, captured_minority = captured_all[:, :-1], captured_all[:, -1]
        left_weights = np.array([column.sum(dtype=np.float64) for column in left[:-1]],
                                dtype=np.int64)                             # (C,)
        left_total = int(left_weights.sum())
        n_captured = captured.sum(axis=1)
        largest = captured.max(axis=1)
        n_classes = captured.shape[1]
        # the last class of largest weight: argmax of the reversed columns
        prediction = n_classes - 1 - np.argmax(captured[:, ::-1], axis=1)
        rule_mistakes = n_captured - largest
        remaining = left_weights - captured
        default_mistakes = remaining.sum(axis=1) - remaining.max(axis=1)
        lower_bound = node.lower_bound + penalty + mistake * rule_mistakes
        minority_bound = node.minority_bound - mistake * captured_minority
        objective = lower_bound + mistake * default_mistakes

        candidate = np.ones(len(n_captured), dtype=bool)
        candidate[prefix] = False
        tests = [("minimum_support", mistake * n_captured <= penalty),
                 ("maximum_support", mistake * (left_total - n_captured) <= penalty),
                 ("accurate_support", mistake * (n_captured - rule_mistakes) <= penalty),
                 ("lower_bound", lower_bound + minority_bound >= self.best_objective)]
        alive = candidate.copy()
        failed = {}
        for name, fails in tests:
            if name in bounds or (name == "lower_bound" and "hierarchical" in bounds):
                failed[name] = alive & fails
                alive &= ~fails
        # A child whose list is no better than R^c and that an extension test stops would only
        # be counted by the reference engine; R^c can only fall, so deciding this with R^c at
        # the start of the expansion is exact. The others go through the reference code.
        bound = lower_bound + minority_bound
        best = start_best = self.best_objective
        start_masks = self._extension_masks(bound, node.depth + 1, best)
        stopped = np.zeros(len(bound), dtype=bool)
        for mask in start_masks.values():
            stopped |= mask
        counted_only = alive & stopped & (objective >= best)
        segment_start, last = 0, len(n_captured) - 1    # last: the last candidate evaluated
        chosen = np.flatnonzero(alive & ~counted_only)
        for s, b, b0, value, predicted, weight in zip(
                chosen.tolist(), lower_bound[chosen].tolist(), minority_bound[chosen].tolist(),
                objective[chosen].tolist(), prediction[chosen].tolist(),
                n_captured[chosen].tolist()):
            if "hierarchical" in bounds and b + b0 >= self.best_objective:
                self.statistics["pruned_lower_bound"] += 1    # R^c fell during this expansion
                continue
            child = _Node(s, node, b, b0, value, predicted, node.n_captured + weight)
            self._insert(node, child, not_captured & self.antecedents[s], not_captured)
            if self.best_objective != best:   # children before s saw the old R^c
                self._count(counted_only, segment_start, s, best, bound, node.depth + 1,
                            start_masks if best == start_best else None)
                segment_start, best = s + 1, self.best_objective
            if node.deleted:                  # a new incumbent's garbage collection removed it
                last = s
                break
        self._count(counted_only, segment_start, last + 1, best, bound, node.depth + 1,
                    start_masks if best == start_best else None)
        evaluated = candidate
        if last < len(candidate) - 1:
            evaluated = candidate & (np.arange(len(candidate)) <= last)
        self.statistics["lower_bound_evaluations"] += int(np.count_nonzero(evaluated))
        for name, fails in failed.items():
            self.statistics["pruned_" + name] += int(np.count_nonzero(fails & evaluated))
        node.expanded = True
        if not node.children:
            self._prune_upwards(node)

    def _symmetry_key(self, child, remaining):
        """As the reference engine's, with the expanded prefix sorted once per expansion."""
        if self.config.symmetry_map == "prefix":
            key = self.sorted_prefix.copy()
            bisect.insort(key, child.antecedent)
            return tuple(key)
        return remaining

    def _extension_masks(self, bound, depth, best):
        """For children of length ``depth`` with b + b_0 = ``bound`` (an array): the children
        each extension test stops first, in the reference engine's order (lookahead, Thm 1,
        prefix length), at R^c = ``best``."""
        penalty = self.rule_penalty
        tests = (("lookahead", "lookahead", bound + penalty >= best),
                 ("lower_bound", "hierarchical", bound >= best),
                 ("prefix_length", "prefix_length",
                  np.full(len(bound), penalty * (depth + 1) >= best)))
        masks, left = {}, np.ones(len(bound), dtype=bool)
        for reason, switch, fires in tests:
            if switch in self.bounds:
                masks[reason] = left & fires
                left &= ~fires
        return masks

    def _count(self, counted_only, start, stop, best, bound, depth, start_masks):
        """Count the counted-only children with index in [start, stop) as the reference engine
        does when R^c = ``best``: Thm 1 first, then the first extension test that stops them.
        ``start_masks``: the extension masks when ``best`` is still the expansion's first R^c
        (which no counted-only child fails Thm 1 at), else None."""
        segment = counted_only
        if start > 0 or stop < len(segment):
            segment = counted_only.copy()
            segment[:start] = False
            segment[stop:] = False
        if not segment.any():
            return
        if start_masks is None and "hierarchical" in self.bounds:
            pruned = segment & (bound >= best)
            self.statistics["pruned_lower_bound"] += int(np.count_nonzero(pruned))
            segment = segment & ~pruned
        masks = start_masks if start_masks is not None else \
            self._extension_masks(bound, depth, best)
        for reason, mask in masks.items():
            self.statistics["not_extended_" + reason] += int(np.count_nonzero(mask & segment))


def corels(dataset, lam, config):
    """Find a certifiably optimal rule list: the same search and result as
    :func:`optrules.reference.corels.corels`, faster (module docstring).

    Parameters and result as for the reference engine.
    """
    start = time.perf_counter()
    merged = compressed(dataset)
    total = int(merged.weights.sum())
    if 4 * lam.denominator * total >= _INT64_SAFE:
        search = _BranchAndBound(dataset, lam, config)
    else:
        search = _VectorisedBranchAndBound(merged, lam, config)
    return search_result(search, dataset, lam, config, start)
