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
    weights = np.ones(dataset.n_samples, dtype=np.int64) if dataset.weights is None \
        else dataset.weights
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
        self.matrix = dataset.antecedent_bits().astype(np.float64)          # (M, S)
        weights = dataset.weights.astype(np.float64)
        self.class_weights = np.zeros((dataset.n_samples, dataset.n_classes))
        self.class_weights[np.arange(dataset.n_samples), dataset.labels] = weights   # (S, C)
        marked = np.zeros(dataset.n_samples, dtype=bool)
        if self.minority_set:
            marked = bitset.unpack(dataset.minority, dataset.n_samples)
        self.minority_weights = np.where(marked, weights, 0.0)                        # (S,)
        self.holds = dataset.antecedent_bits()                                        # (M, S)

    def _expand(self, node):
        """Alg. 2 body for all children (d_p, s) at once; survivors in antecedent order."""
        bounds, mistake, penalty = self.bounds, self.mistake, self.rule_penalty
        prefix = node.prefix()
        uncaptured = ~self.holds[prefix].any(axis=0) if prefix else \
            np.ones(self.holds.shape[1], dtype=bool)
        not_captured = self.everything                      # u <- ¬cap(x, d_p), as in Alg. 2
        for antecedent in prefix:
            not_captured &= ~self.antecedents[antecedent]
        left = self.class_weights * uncaptured[:, np.newaxis]
        left_weights = left.sum(axis=0).astype(np.int64)                   # (C,)
        left_total = int(left_weights.sum())
        captured = (self.matrix @ left).astype(np.int64)                   # (M, C)
        n_captured = captured.sum(axis=1)
        largest = captured.max(axis=1)
        n_classes = captured.shape[1]
        # the last class of largest weight: argmax of the reversed columns
        prediction = n_classes - 1 - np.argmax(captured[:, ::-1], axis=1)
        rule_mistakes = n_captured - largest
        remaining = left_weights - captured
        default_mistakes = remaining.sum(axis=1) - remaining.max(axis=1)
        captured_minority = (self.matrix @ (self.minority_weights * uncaptured)).astype(np.int64)
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
        survivors = np.flatnonzero(alive)
        last = len(n_captured) - 1            # the last candidate evaluated
        for s in survivors.tolist():
            b, b0 = int(lower_bound[s]), int(minority_bound[s])
            if "hierarchical" in bounds and b + b0 >= self.best_objective:
                self.statistics["pruned_lower_bound"] += 1    # R^c fell during this expansion
                continue
            child = _Node(s, node, b, b0, int(objective[s]), int(prediction[s]),
                          node.n_captured + int(n_captured[s]))
            self._insert(node, child, not_captured & self.antecedents[s], not_captured)
            if node.deleted:                  # a new incumbent's garbage collection removed it
                last = s
                break
        evaluated = candidate & (np.arange(len(n_captured)) <= last)
        self.statistics["lower_bound_evaluations"] += int(evaluated.sum())
        for name, fails in failed.items():
            self.statistics["pruned_" + name] += int((fails & evaluated).sum())
        node.expanded = True
        if not node.children:
            self._prune_upwards(node)


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
