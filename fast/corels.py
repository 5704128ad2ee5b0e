"""Certifiably optimal rule lists (CORELS), fast: the reference search on compressed samples,
with the children of a batch of prefixes evaluated in array operations.

Changes to ``optrules.reference.corels``, none of which changes a decision
(specs/rule-lists.md §12):

1. **Compressed samples.** Samples with the same antecedent vector, class and minority mark are
   indistinguishable to the search: every set it computes (captures, uncaptured sets, symmetry
   keys) holds all of them or none, and every count it takes is a sum of their weights. They are
   merged into one sample whose weight is their total (COMPAS: 6 489 rows, 155 antecedents,
   ≤ 2·194 merged samples). The integer units (1/(qW)) are unchanged, so every comparison
   compares the same integers as the reference engine does.
2. **Batches.** The queue hands out, in pop order, the prefixes that Alg. 2 pops before any child
   of theirs (under the lower-bound policy: b + b_0 within λ of the first one's). The class
   weights every candidate antecedent captures after each of them are one matrix product, and
   the support tests, lower bounds, minority bounds and objectives are array operations. Python
   work is left to the children that pass every test; they go through the reference engine's
   own trie, map and queue code, prefix by prefix in pop order and antecedent order, so the
   search, its counters and its result are the reference engine's.
3. **Memory.** The queue is a bucket queue (8 bytes a prefix), and prefix-map keys are bitmasks.

Float32/float64 hold the captured weights exactly (below 2**24, and at most 2**53,
:mod:`optrules.data.weights`); they are converted to int64 before any comparison. Instances
whose scaled objectives could overflow int64 run on the reference engine unchanged.

Examples
--------
>>> from optrules.data.binary_dataset import BinaryDataset
>>> from optrules.rule_lists import fit_rule_list
>>> data = BinaryDataset.from_bits(["a", "b"], [[1, 1, 0, 0], [0, 1, 1, 0]], [1, 1, 0, 0])
>>> fit_rule_list(data, "1/10", engine="fast").objective
Fraction(1, 10)
"""

import collections
import heapq
import time

import numpy as np

from optrules.blas import single_blas_thread
from optrules.garbage_collection import fewer_collections
from optrules.data import bitset
from optrules.data.binary_dataset import BinaryDataset
from optrules.reference.corels import _BranchAndBound, _Node, search_result
from optrules.rule_lists.search_certificate import CODES

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


#: Most queued prefixes evaluated in one batch (its arrays are K × M, M the antecedents).
_BATCH = 256
#: Most multiply-adds of one batch's matrix products ((C + 1)·K·U·M): a batch on large data
#: stays at tens of milliseconds, so limits and progress are still checked often.
_BATCH_WORK = 1 << 26


class _VectorisedBranchAndBound(_BranchAndBound):
    """The reference search (Alg. 2) whose children are evaluated a batch of prefixes at once.

    ``_pop`` takes from the queue, in pop order, the prefixes that Alg. 2 pops before any child
    of theirs can come (``_take_batch``); the first expansion of the batch evaluates all their
    children in array operations (:class:`_Children`), and each expansion then runs the
    reference engine's decisions on its row, in the reference engine's order.
    """

    def __init__(self, dataset, lam, config):
        # Alg. 2's queue Q is ``buckets`` (the reference engine's ``queue`` stays empty), then
        # ``pending``: (priority, prefix) taken from it in pop order, not served yet.
        self.buckets = _BucketQueue(last_in_first_out=config.policy == "dfs")
        self.pending = collections.deque()
        self.batch = None                   # the _Children of the pending prefixes
        # Only the curiosity policy needs each prefix's captured weight; the others keep 0
        # (a shared int instead of one per prefix).
        self.track_captured = config.policy == "curiosity"
        super().__init__(dataset, lam, config)
        # Array side: the samples grouped by antecedent vector (U groups), each with its weight
        # per class and its marked weight (the last column): one row of ``table`` per group.
        vectors, group = np.unique(dataset.antecedent_bits().T, axis=0, return_inverse=True)
        # float32 sums integers exactly up to 2**24, float64 up to 2**53 (weights.py's cap).
        self.exact_float = np.float32 if self.total_weight < 1 << 24 else np.float64
        self.matrix = np.ascontiguousarray(vectors.T, dtype=self.exact_float)   # (M, U)
        n_classes = dataset.n_classes
        marked = np.zeros(dataset.n_samples, dtype=bool)
        if self.minority_set:
            marked = bitset.unpack(dataset.minority, dataset.n_samples)
        table = np.zeros((len(vectors), n_classes + 1), dtype=np.int64)
        np.add.at(table, (group.ravel(), dataset.labels), dataset.weights)
        np.add.at(table, (group.ravel(), n_classes), np.where(marked, dataset.weights, 0))
        self.columns = np.ascontiguousarray(table.T[:, np.newaxis, :],
                                            dtype=self.exact_float)           # (C + 1, 1, U)
        self.batch_size = max(1, min(_BATCH, _BATCH_WORK // max(1, self.matrix.size *
                                                                 len(self.columns))))
        self.prefix_set = 0     # the prefix being expanded, a bitmask of antecedents (map keys)

    # ----- queue: a batch of the next prefixes, in pop order ------------------------------
    def _enqueue(self, priority, node):
        # The bucket queue keeps the insertion order itself.
        self.buckets.push(priority, node)

    def _queue_length(self):
        return len(self.buckets) + len(self.pending)

    def _pop(self):
        if not self.pending:
            self._take_batch()
        _, node = self.pending.popleft()
        self._unqueue(node)
        return node

    def queued_nodes(self, deleted=False):
        """As the reference engine's, in pop order (the batch taken, then the buckets by
        priority): a distributed task gives every second one away."""
        queued = [(priority, node) for priority, node in self.pending
                  if deleted or not node.deleted]
        buckets, reverse = self.buckets.buckets, self.buckets.last_in_first_out
        for priority in sorted(buckets):
            bucket = reversed(buckets[priority]) if reverse else buckets[priority]
            queued.extend([(priority, node) for node in bucket] if deleted else
                          [(priority, node) for node in bucket if not node.deleted])
        return queued

    def _take_batch(self):
        """Move the prefixes Alg. 2 pops next, before any child of theirs, to ``pending``.

        Lower-bound policy: every child has b + b_0 at least its parent's plus λ (its rule's
        mistakes include the marked weight it captures: the minority bits were checked), and
        a child queued later comes after an equal key; so every prefix whose b + b_0 is at most
        the first's plus λ pops before any child of the batch. BFS: children queue last. Other
        policies: the first prefix alone.
        """
        queue, policy = self.buckets, self.config.policy
        ceiling = queue.first_priority()[0] + self.rule_penalty if policy == "lower-bound" \
            else None
        self.pending.append((queue.first_priority(), queue.pop()))
        if policy not in ("lower-bound", "bfs"):
            return
        while queue and len(self.pending) < self.batch_size and \
                (ceiling is None or queue.first_priority()[0] <= ceiling):
            self.pending.append((queue.first_priority(), queue.pop()))

    # ----- expansion -----------------------------------------------------------------------
    def _expand(self, node):
        """Alg. 2 body for the children (d_p, s) of ``node``, from its batch's arrays: the
        children that pass every test go through the reference engine's ``_insert`` in
        antecedent order; the others are only counted."""
        batch = self.batch
        row = None if batch is None else batch.rows.get(node)
        if row is None:        # the first expansion of a batch: evaluate all its prefixes
            live = [waiting for _, waiting in self.pending if not waiting.deleted]
            batch = self.batch = _Children(self, [node] + live)
            row = 0
        if batch.incumbent is not self.best_rule_list:  # a new incumbent since the batch's tests
            batch.classify()
        prefix = batch.prefixes[row]
        self._start_codes(prefix)
        if self.trace is not None:
            batch.write_codes(row, self.codes)
        self.prefix_set = sum(1 << antecedent for antecedent in prefix)
        not_captured = self.everything                      # u <- ¬cap(x, d_p), as in Alg. 2
        for antecedent in prefix:
            not_captured &= ~self.antecedents[antecedent]
        incumbent = start = (self.best_objective, self.best_rule_list)
        segment_start, last = 0, batch.n_antecedents - 1  # last: the last candidate evaluated
        for s, b, b0, value, predicted, weight in batch.chosen(row):
            if "hierarchical" in self.bounds and \
                    self._no_list_first(b + b0, lambda: prefix + [s], len(prefix) + 1):
                self.statistics["pruned_lower_bound"] += 1    # a new incumbent in this expansion
                self._note(s, "lower_bound")
                continue
            child = _Node(s, node, b, b0, predicted,
                          node.n_captured + weight if self.track_captured else 0)
            self._insert(node, child, value, not_captured & self.antecedents[s], not_captured)
            if self.best_rule_list is not incumbent[1]:   # children before s saw the old one
                self._count(batch, row, segment_start, s, incumbent, incumbent is start)
                segment_start, incumbent = s + 1, (self.best_objective, self.best_rule_list)
            if node.deleted:                  # a new incumbent's garbage collection removed it
                last = s
                break
        if segment_start == 0 and last == batch.n_antecedents - 1:
            for name, count in batch.counted_only_counts[row].items():
                self.statistics[name] += count
        else:
            self._count(batch, row, segment_start, last + 1, incumbent, incumbent is start)
        batch.count_evaluations(row, last, self.statistics)
        self._write_expanded(prefix, node)
        node.expanded = True
        if not node.children:
            self._prune_upwards(node)

    def _symmetry_key(self, child, remaining):
        """As the reference engine's; the prefix map's key, the set of antecedents, is a
        bitmask (an int: smaller than a tuple, and built with one ``|``)."""
        if self.config.symmetry_map == "prefix":
            return self.prefix_set | (1 << child.antecedent)
        return remaining

    def _extension_masks(self, bound, depth, best, extensions_first):
        """For children of length ``depth`` (broadcast against ``bound``) with b + b_0 =
        ``bound``: the children each extension test stops first, in the reference engine's
        order (lookahead, Thm 1, prefix length), at an incumbent of objective ``best`` before
        which lists extending them may come where ``extensions_first`` (the result order)."""
        penalty = self.rule_penalty
        tests = (("lookahead", "lookahead", _no_list_first(bound + penalty, best,
                                                           extensions_first)),
                 ("lower_bound", "hierarchical", bound >= best),
                 ("prefix_length", "prefix_length", _no_list_first(
                     np.broadcast_to(penalty * (depth + 1), bound.shape), best,
                     extensions_first)))
        masks, left = {}, np.ones(bound.shape, dtype=bool)
        for reason, switch, fires in tests:
            if switch in self.bounds:
                masks[reason] = left & fires
                left &= ~fires
        return masks

    def _count(self, batch, row, start, stop, incumbent, at_batch_incumbent):
        """Count the counted-only children of ``row`` with index in [start, stop) as the
        reference engine does at ``incumbent`` (R^c and the rule list): Thm 1 first, then the
        first extension test that stops them. ``at_batch_incumbent``: it is the one the batch
        was classified at (where no counted-only child fails Thm 1). Later incumbents come
        earlier in the result order, so counted-only children stay counted-only."""
        segment = batch.counted_only[row].copy()
        segment[:start] = False
        segment[stop:] = False
        if not segment.any():
            return
        if at_batch_incumbent:
            masks = {reason: mask[row] for reason, mask in batch.extension_masks.items()}
        else:
            best, (antecedents, _, _) = incumbent
            bound = batch.bound[row]
            own_first, extensions_first = batch.first_masks(antecedents, row)
            if "hierarchical" in self.bounds:
                pruned = segment & _no_list_first(bound, best, own_first)
                self.statistics["pruned_lower_bound"] += int(np.count_nonzero(pruned))
                segment &= ~pruned
            masks = self._extension_masks(bound, batch.depths[row] + 1, best, extensions_first)
        for reason, mask in masks.items():
            self.statistics["not_extended_" + reason] += int(np.count_nonzero(mask & segment))


class _BucketQueue:
    """Alg. 2's priority queue in the reference engine's order at 8 bytes a prefix: a heap of
    the distinct priorities, each with its prefixes in insertion order (first in, first out;
    last in, first out for DFS, whose only priority is the insertion order reversed)."""

    def __init__(self, last_in_first_out):
        self.priorities = []
        self.buckets = {}
        self.size = 0
        self.last_in_first_out = last_in_first_out

    def __len__(self):
        return self.size

    def push(self, priority, node):
        bucket = self.buckets.get(priority)
        if bucket is None:
            bucket = self.buckets[priority] = collections.deque()
            heapq.heappush(self.priorities, priority)
        bucket.append(node)
        self.size += 1

    def first_priority(self):
        return self.priorities[0]

    def pop(self):
        bucket = self.buckets[self.priorities[0]]
        node = bucket.pop() if self.last_in_first_out else bucket.popleft()
        self.size -= 1
        if not bucket:
            del self.buckets[heapq.heappop(self.priorities)]
        return node


def _row_counts(masks, n_rows):
    """For each of ``n_rows`` rows, {name: its row's count of True} of the (rows, M) boolean
    ``masks`` by name (an empty dict a row when there are none: every bound disabled)."""
    counts = np.array([np.count_nonzero(mask, axis=1) for mask in masks.values()],
                      dtype=np.int64).reshape(len(masks), n_rows)
    return [dict(zip(masks, row)) for row in counts.T.tolist()]


class _Children:
    """Every child (d_p, s) of a batch of K prefixes, evaluated in array operations: arrays of
    shape (K, M), row k for the k-th prefix and column s for antecedent s.

    The captured weight of each class (and the marked weight) of every child is one matrix
    product of the prefixes' uncaptured group weights with the antecedents' group membership;
    the support tests, bounds and objectives follow elementwise. ``classify`` applies the tests
    that depend on R^c.
    """

    def __init__(self, search, nodes):
        self.search = search
        self.rows = {node: k for k, node in enumerate(nodes)}
        self.prefixes = [node.prefix() for node in nodes]
        self.depths = np.array([node.depth for node in nodes])[:, np.newaxis]     # (K, 1)
        matrix = search.matrix
        n_antecedents, n_groups = matrix.shape
        self.n_antecedents = n_antecedents
        in_prefix = np.zeros((len(nodes), n_antecedents), dtype=bool)
        rows = np.repeat(np.arange(len(nodes)), self.depths.ravel())
        in_prefix[rows, [a for prefix in self.prefixes for a in prefix]] = True
        self.candidate = ~in_prefix
        uncaptured = (in_prefix.astype(matrix.dtype) @ matrix) == 0             # (K, U)
        left = uncaptured * search.columns                                       # (C + 1, K, U)
        captured = (left.reshape(-1, n_groups) @ matrix.T).astype(np.int64)
        captured = captured.reshape(len(left), len(nodes), n_antecedents)       # (C + 1, K, M)
        left_weights = left.sum(axis=2, dtype=np.float64).astype(np.int64)      # (C + 1, K)
        by_class, captured_minority = captured[:-1], captured[-1]
        n_captured = by_class.sum(axis=0)
        rule_mistakes = n_captured - by_class.max(axis=0)
        n_classes = len(by_class)
        # the last class of largest weight: argmax over the classes in reverse order
        self.prediction = n_classes - 1 - np.argmax(by_class[::-1], axis=0)
        remaining = left_weights[:-1, :, np.newaxis] - by_class
        default_mistakes = remaining.sum(axis=0) - remaining.max(axis=0)
        if np.any(captured_minority > rule_mistakes):
            raise RuntimeError("the minority bits mark more weight than a rule's mistakes; "
                               "check_minority should have refused them")
        mistake, penalty = search.mistake, search.rule_penalty
        lower_bounds = np.array([[node.lower_bound, node.minority_bound] for node in nodes],
                                dtype=np.int64)
        self.lower_bound = lower_bounds[:, :1] + penalty + mistake * rule_mistakes
        self.minority_bound = lower_bounds[:, 1:] - mistake * captured_minority
        self.objective = self.lower_bound + mistake * default_mistakes
        self.bound = self.lower_bound + self.minority_bound
        self.n_captured = n_captured
        left_total = left_weights[:-1].sum(axis=0)[:, np.newaxis]
        # Tests in the reference engine's order; all but Thm 1's are independent of R^c.
        self.support_tests = [
            ("minimum_support", mistake * n_captured <= penalty),
            ("maximum_support", mistake * (left_total - n_captured) <= penalty),
            ("accurate_support", mistake * (n_captured - rule_mistakes) <= penalty)]
        self.classify()

    def first_masks(self, incumbent, row=None):
        """Which children (of ``row``, or of every row) may come before the list of
        antecedents ``incumbent`` in the result order (specs/rule-lists.md §6): (their own
        list, a list extending them)."""
        n = self.n_antecedents
        prefixes = self.prefixes if row is None else [self.prefixes[row]]
        limits = np.array([[first_limit(prefix, len(prefix) + extra, incumbent, n)
                            for extra in (1, 2)] for prefix in prefixes]).reshape(-1, 2)
        columns = np.arange(n)
        own, extensions = (columns < limits[:, k:k + 1] for k in (0, 1))
        return (own, extensions) if row is None else (own[0], extensions[0])

    def classify(self):
        """Apply the tests at the search's incumbent: which children fail which test
        (``failed``), which are only counted (no list before the incumbent, stopped by an
        extension test), and the rest, which the expansion inserts (``chosen``)."""
        search, bounds = self.search, self.search.bounds
        self.incumbent = search.best_rule_list
        best = search.best_objective
        own_first, extensions_first = self.first_masks(search.best_rule_list[0])
        tests = self.support_tests + [("lower_bound",
                                       _no_list_first(self.bound, best, own_first))]
        alive = self.candidate.copy()
        self.failed = {}
        for name, fails in tests:
            if name in bounds or (name == "lower_bound" and "hierarchical" in bounds):
                self.failed[name] = alive & fails
                alive &= ~fails
        self.extension_masks = search._extension_masks(self.bound, self.depths + 1, best,
                                                       extensions_first)
        stopped = np.zeros(self.bound.shape, dtype=bool)
        for mask in self.extension_masks.values():
            stopped |= mask
        # A child whose list does not come before the incumbent and that an extension test
        # stops would only be counted by the reference engine; later incumbents come earlier
        # still, so deciding this with the incumbent at the start of the expansion is exact.
        self.counted_only = alive & stopped & _no_list_first(self.objective, best, own_first)
        rows, columns = np.nonzero(alive & ~self.counted_only)
        self.ends = np.searchsorted(rows, np.arange(len(self.bound) + 1)).tolist()
        self.chosen_values = [columns.tolist()] + [
            values[rows, columns].tolist() for values in
            (self.lower_bound, self.minority_bound, self.objective, self.prediction,
             self.n_captured)]
        self.counted_only_counts = _row_counts(
            {"not_extended_" + reason: self.counted_only & mask
             for reason, mask in self.extension_masks.items()}, len(self.prefixes))
        self.failed_counts = _row_counts(
            {"pruned_" + name: mask for name, mask in self.failed.items()}, len(self.prefixes))

    def write_codes(self, row, codes):
        """The search certificate's codes of the children of ``row`` that the expansion does
        not insert: the test each failed, or the extension test that stops it (``codes``, a
        bytearray with a byte per antecedent, is written in place)."""
        view = np.frombuffer(codes, dtype=np.uint8)
        for name, fails in self.failed.items():
            view[fails[row]] = ord(CODES[name])
        for reason, mask in self.extension_masks.items():
            view[self.counted_only[row] & mask[row]] = ord(CODES[reason])

    def chosen(self, row):
        """(s, b, b_0, objective, prediction, captured weight) of the children of ``row`` that
        the expansion inserts, in antecedent order."""
        start, stop = self.ends[row], self.ends[row + 1]
        return zip(*(values[start:stop] for values in self.chosen_values))

    def count_evaluations(self, row, last, statistics):
        """Add the children of ``row`` up to antecedent ``last`` to the evaluation and test
        counters (the tests at the R^c the batch was classified at)."""
        if last == self.n_antecedents - 1:
            statistics["lower_bound_evaluations"] += self.n_antecedents - len(self.prefixes[row])
            for name, count in self.failed_counts[row].items():
                statistics[name] += count
            return
        evaluated = self.candidate[row].copy()
        evaluated[last + 1:] = False
        statistics["lower_bound_evaluations"] += int(np.count_nonzero(evaluated))
        for name, fails in self.failed.items():
            statistics["pruned_" + name] += int(np.count_nonzero(fails[row] & evaluated))


def first_limit(prefix, length, incumbent, n_antecedents):
    """The children ``prefix + [s]`` for which a rule list of ``length`` or more rules that
    starts with them may come before ``incumbent`` (antecedent indices) in dominance order
    (:func:`optrules.reference.corels.may_come_first`) are those with s < this limit.

    >>> first_limit([1], 2, [1, 5], 9), first_limit([1], 3, [1, 5, 2], 9)
    (5, 6)
    """
    if length != len(incumbent):
        return n_antecedents if length < len(incumbent) else 0
    head = list(incumbent[:len(prefix)])
    if prefix != head:
        return n_antecedents if prefix < head else 0
    next_antecedent = incumbent[len(prefix)]       # prefix + [s] against incumbent[:len + 1]
    return next_antecedent + 1 if len(prefix) + 1 < length else next_antecedent


def _no_list_first(bound, best, first):
    """Elementwise :meth:`_BranchAndBound._no_list_first`: no list costing at least ``bound``
    comes before the incumbent (of objective ``best``); ``first`` marks where lists tying it
    may come first."""
    return (bound > best) | ((bound == best) & ~first)


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
    # Small products: a second BLAS thread only costs (optrules.blas); the collector's full
    # passes walk the trie and map (optrules.garbage_collection).
    with single_blas_thread(), fewer_collections():
        return search_result(search, dataset, lam, config, start)
