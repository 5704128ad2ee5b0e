"""Certifiably optimal rule lists by incremental branch-and-bound (CORELS), readable reference.

This module follows Algorithm 2 of the paper (incremental branch-and-bound, with the
incremental lower bound of Algorithm 3 and objective of Algorithm 4) and applies every bound of
§3 that the configuration enables. Names follow the paper: ``lower_bound`` is b(d_p, x, y)
(eq. 10), ``minority_bound`` is b_0(d_p, x, y) (eq. 93), ``best_objective`` is R^c.

Classes and weights (specs/rule-lists.md §11): labels are classes 0..C-1, and sample n weighs
an integer w_n (1 when unweighted; W = Σ w_n). "Majority", "mistakes" and "support" are in
weight: a rule predicts the class of largest captured weight (a tie goes to the last class) and
makes as many mistakes as the captured weight outside that class.

Exact arithmetic: with λ = p/q, every objective and bound is held as an integer in units of
1/(q·W): one unit of mistaken weight costs ``q`` and a rule costs ``p·W``. Comparisons are
therefore exact.

Bitsets over samples are Python integers (bit n = sample n); ``&``, ``^`` and ``bit_count``
are the readable pure-Python bitset operations. Weighted counts use the binary digits of the
weights: with plane_j the samples whose weight has bit j set, the weight of a set S is
Σ_j 2^j·|S ∧ plane_j| (one plane, all samples, when unweighted).

References
----------
.. [1] E. Angelino, N. Larus-Stone, D. Alabi, M. Seltzer, C. Rudin. "Learning certifiably
   optimal rule lists for categorical data." Journal of Machine Learning Research 18(234):
   1-78, 2018. (Algorithms 2-4; Thms 1, 4, 6, 7, 10, 11, 12, 17, 22; Lemma 2; Cor. 18.)
"""

import collections
import heapq
import itertools
import time
from fractions import Fraction


from optrules.data import bitset
from optrules.rule_lists.model import Rule, RuleList, RuleListResult
from optrules.rule_lists.search_certificate import CODES

__all__ = ["corels"]

#: The children of a prefix that has none: one shared empty dict (never written to; ``_insert``
#: gives a prefix its own dict with its first child), as most prefixes never get a child.
_NO_CHILDREN = {}


class _Node:
    """A prefix in the trie (§5): its last antecedent and what the search knows about it.

    ``lower_bound`` is b(d_p) and ``minority_bound`` is b_0(d_p), both scaled by q·N;
    ``prediction`` is the class index of the last rule; ``n_captured`` is the weight of the
    samples the whole prefix captures (for the curiosity policy). The list's objective is not
    kept: it is used once, when the prefix is inserted (a queue of millions of prefixes is
    mostly these objects).
    """

    __slots__ = ("antecedent", "parent", "children", "depth", "lower_bound", "minority_bound",
                 "prediction", "n_captured", "expanded", "deleted", "queued",
                 "map_key")

    def __init__(self, antecedent, parent, lower_bound, minority_bound, prediction, n_captured):
        self.antecedent = antecedent
        self.parent = parent
        self.children = _NO_CHILDREN
        self.depth = 0 if parent is None else parent.depth + 1
        self.lower_bound = lower_bound
        self.minority_bound = minority_bound
        self.prediction = prediction
        self.n_captured = n_captured
        self.expanded = False
        self.deleted = False
        self.queued = False
        self.map_key = None

    def path(self):
        """The nodes from the first rule down to this one (empty for the root)."""
        nodes, node = [], self
        while node.parent is not None:
            nodes.append(node)
            node = node.parent
        return nodes[::-1]

    def prefix(self):
        """The antecedent indices (p_1, ..., p_K) of this prefix."""
        return [node.antecedent for node in self.path()]


def _priority(policy, node, objective, sequence):
    """Heap key of a node (whose list has this objective) under a search policy; ``sequence``
    (insertion order) breaks ties."""
    if policy == "bfs":
        return (sequence,)
    if policy == "dfs":
        return (-sequence,)
    if policy == "lower-bound":
        return (node.lower_bound + node.minority_bound, sequence)
    if policy == "objective":
        return (objective, sequence)
    # curiosity: b(d_p)·N / (samples captured by d_p); a prefix capturing nothing comes last.
    if node.n_captured == 0:
        return (1, 0, sequence)
    return (0, Fraction(node.lower_bound, node.n_captured), sequence)


class _BranchAndBound:
    """State of one run of Algorithm 2: the trie, the queue, the symmetry map, the incumbent.

    Attributes are the paper's data structures (§5); methods are its operations.
    """

    def __init__(self, dataset, lam, config):
        self.config = config
        self.bounds = config.bounds
        # The search certificate (specs/certificates.md), if asked for: the writer, and the
        # codes and symmetry witnesses of the children of the prefix being expanded.
        self.trace = config.certificate
        self.codes, self.witnesses = None, None
        self.n_samples = dataset.n_samples
        self.everything = (1 << self.n_samples) - 1
        self.antecedents = [bitset.to_int(row) for row in dataset.antecedents]
        # Weighted sets: ``self.weight(samples, weighted_set)`` is the weight of the samples
        # of ``samples`` that lie in ``weighted_set``. Unweighted, a weighted set is a plain
        # bitset and a weight a popcount; weighted, it is a list of weight planes.
        class_sets = [bitset.to_int(bitset.pack(row)) for row in dataset.class_bits()]
        minority = bitset.to_int(dataset.minority) if "equivalent_points" in self.bounds else 0
        if dataset.weights is None:
            self.weight = _size
            self.total_weight = self.n_samples                                    # W
            self.all_samples = self.everything
            weighted = class_sets
            self.minority_set = minority
        else:
            self.weight = _planes_weight
            self.total_weight = int(dataset.weights.sum())
            self.all_samples = _weight_planes(dataset.weights)
            weighted = [_restricted(self.all_samples, samples) for samples in class_sets]
            self.minority_set = _restricted(self.all_samples, minority)
        # The last class's weight is the total minus the others' (one popcount fewer).
        self.class_sets = weighted[:-1]
        self.mistake = lam.denominator               # one unit of weight, in units of 1/(qW)
        self.rule_penalty = lam.numerator * self.total_weight  # λ, in units of 1/(qW)
        self.queue = []
        # Live queued prefixes counted by (length, b(d_p), b_0(d_p)): all that the certificate
        # figures need (queue_summary), kept up to date so they cost no pass over the queue.
        self.queued_bounds = collections.Counter()
        self.sequence = itertools.count()
        self.symmetry_map = {}
        self.statistics = dict.fromkeys(
            ("lower_bound_evaluations", "pruned_minimum_support", "pruned_maximum_support",
             "pruned_accurate_support", "pruned_lower_bound", "not_extended_lookahead",
             "not_extended_lower_bound", "not_extended_prefix_length", "pruned_symmetry",
             "garbage_collected", "max_queue_size", "incumbent_updates"), 0)
        # Alg. 2: initialise the incumbent with the empty rule list and the queue with ().
        default_mistakes, default = _majority(self._class_weights(
            self.everything, self.total_weight))
        self.root = _Node(None, None, 0,
                          self.mistake * self.weight(self.everything, self.minority_set), None, 0)
        self.best_objective = self.mistake * default_mistakes
        self.best_rule_list = ([], [], default)
        self._push(self.root, self.best_objective)

    def _class_weights(self, samples, total):
        """Weight of the samples of each class in the set ``samples`` of weight ``total``
        (a list of C ints)."""
        weights = [self.weight(samples, class_set) for class_set in self.class_sets]
        weights.append(total - sum(weights))
        return weights

    # ----- queue ---------------------------------------------------------------------------
    def _push(self, node, objective):
        self._queue_put(node, objective)
        node.queued = True
        self.queued_bounds[node.depth, node.lower_bound, node.minority_bound] += 1
        self.statistics["max_queue_size"] = max(self.statistics["max_queue_size"],
                                                self._queue_length())

    def _queue_put(self, node, objective):
        """Add a prefix (whose list has this objective) to Alg. 2's queue Q, ordered by its
        policy's priority."""
        self._enqueue(_priority(self.config.policy, node, objective, 0)[:-1], node)

    def _enqueue(self, priority, node):
        """Queue a prefix at a priority without its last element, the insertion order (latest
        first for DFS, as in :func:`_priority`)."""
        sequence = next(self.sequence)
        last = -sequence if self.config.policy == "dfs" else sequence
        heapq.heappush(self.queue, (priority + (last,), node))

    def _queue_length(self):
        """Entries in the queue, including deleted prefixes not popped yet (they count towards
        the queue limit and its peak, as in CORELS)."""
        return len(self.queue)

    def _pop(self):
        """Alg. 2: d_p <- Q.pop(), the first prefix under the search policy."""
        _, node = heapq.heappop(self.queue)
        self._unqueue(node)
        return node

    def _unqueue(self, node):
        """Bookkeeping for a prefix leaving the queue (popped, or deleted while waiting)."""
        if node.queued:
            node.queued = False
            key = (node.depth, node.lower_bound, node.minority_bound)
            self.queued_bounds[key] -= 1
            if not self.queued_bounds[key]:
                del self.queued_bounds[key]

    def _extension_pruned_by(self, node):
        """The bound proving no extension of this prefix comes before the incumbent, or None.

        Thm 1 with Thm 22 (and Lemma 2: every extension has at least one more rule), then
        Thm 4 (an optimal list beating R^c has fewer than R^c / λ rules).
        """
        bound = node.lower_bound + node.minority_bound
        if "lookahead" in self.bounds and \
                self._no_list_first(bound + self.rule_penalty, node.prefix, node.depth + 1):
            return "lookahead"
        # Extensions cost at least bound + λ, more than R^c when bound ≥ R^c: no tie.
        if "hierarchical" in self.bounds and bound >= self.best_objective:
            return "lower_bound"
        if "prefix_length" in self.bounds and self._no_list_first(
                self.rule_penalty * (node.depth + 1), node.prefix, node.depth + 1):
            return "prefix_length"
        return None

    def _no_list_first(self, bound, prefix, length):
        """Whether no rule list of ``length`` or more rules that starts with the prefix
        ``prefix()`` and costs at least ``bound`` comes before the incumbent in the result
        order (specs/rule-lists.md §6): bound > R^c, or bound = R^c and every such list comes
        after the incumbent in :func:`dominance_order`. (A list that ties R^c and comes first
        replaces the incumbent, so the result does not depend on the search order.)"""
        if bound != self.best_objective:
            return bound > self.best_objective
        return not may_come_first(prefix(), length, self.best_rule_list[0])

    # ----- main loop (Alg. 2) -------------------------------------------------------------
    def run(self, max_nodes, max_queue, budget, progress):
        """Alg. 2's loop; returns (nodes expanded, None if finished else the stop status).
        ``progress`` sees the state before the first node and after every expanded node."""
        nodes_expanded = 0
        if progress is not None:
            progress(nodes_expanded, self.describe)
        while self._queue_length():                         # Alg. 2: until the queue is empty
            stop = "node-limit" if max_nodes is not None and nodes_expanded >= max_nodes else \
                "queue-limit" if max_queue is not None and self._queue_length() > max_queue \
                else budget.stop_reason()
            if stop is not None:
                return nodes_expanded, stop
            node = self._pop()
            if node.deleted:
                continue
            reason = self._extension_pruned_by(node)
            if reason is not None:
                self._drop(node, reason)
                continue
            self._expand(node)
            nodes_expanded += 1
            if progress is not None:
                progress(nodes_expanded, self.describe)
        return nodes_expanded, None

    def _expand(self, node):
        """Alg. 2 body: evaluate every child (d_p, s) of ``node`` and keep the promising ones."""
        prefix = node.prefix()
        in_prefix = set(prefix)
        not_captured = self.everything                      # u <- ¬cap(x, d_p)
        for antecedent in prefix:
            not_captured &= ~self.antecedents[antecedent]
        not_captured_weights = self._class_weights(not_captured,
                                                   self.weight(not_captured, self.all_samples))
        self._start_codes(prefix)
        for s, antecedent_bits in enumerate(self.antecedents):
            if node.deleted:
                break              # a new incumbent's garbage collection removed this prefix
            if s in in_prefix:
                continue
            self.statistics["lower_bound_evaluations"] += 1
            captured = not_captured & antecedent_bits       # v <- u ∧ cap(x, s)
            child = self._evaluate_child(node, s, captured, not_captured, not_captured_weights)
            if child is not None:
                self._insert(node, *child, captured, not_captured)
        self._write_expanded(prefix, node)
        node.expanded = True
        if not node.children:
            self._prune_upwards(node)

    def _evaluate_child(self, parent, s, captured, not_captured, not_captured_weights):
        """Bound and score the child prefix (d_p, s): (its node, its list's objective), or None
        if a bound rejects it."""
        bounds, mistake, rule_penalty = self.bounds, self.mistake, self.rule_penalty
        n_captured = self.weight(captured, self.all_samples)
        # Thm 10 (minimum support): each rule of an optimal list captures weight more than λW.
        if "minimum_support" in bounds and mistake * n_captured <= rule_penalty:
            self.statistics["pruned_minimum_support"] += 1
            self._note(s, "minimum_support")
            return None
        n_remaining = sum(not_captured_weights) - n_captured
        # Thm 12 (maximum support): an optimal list leaves weight more than λW to later rules
        # (at exactly λW, a shorter list is at least as good).
        if "maximum_support" in bounds and mistake * n_remaining <= rule_penalty:
            self.statistics["pruned_maximum_support"] += 1
            self._note(s, "maximum_support")
            return None
        # Alg. 3 (incremental lower bound, eq. 105): the new rule predicts its majority class.
        captured_weights = self._class_weights(captured, n_captured)
        rule_mistakes, prediction = _majority(captured_weights)
        # Thm 11 (accurate support): each rule classifies weight more than λW correctly.
        if "accurate_support" in bounds and mistake * (n_captured - rule_mistakes) <= rule_penalty:
            self.statistics["pruned_accurate_support"] += 1
            self._note(s, "accurate_support")
            return None
        lower_bound = parent.lower_bound + rule_penalty + mistake * rule_mistakes
        remaining = not_captured ^ captured
        minority_bound = mistake * self.weight(remaining, self.minority_set)  # Thm 22, eq. 93
        # Thm 1 with Thm 22: no rule list starting with this prefix can beat R^c (or tie it
        # and come first).
        if "hierarchical" in bounds and self._no_list_first(
                lower_bound + minority_bound, lambda: parent.prefix() + [s], parent.depth + 1):
            self.statistics["pruned_lower_bound"] += 1
            self._note(s, "lower_bound")
            return None
        # Alg. 4 (incremental objective, eq. 107): the default rule predicts its majority class.
        default_mistakes, _ = _majority([a - b for a, b in zip(not_captured_weights,
                                                               captured_weights)])
        objective = lower_bound + mistake * default_mistakes
        return _Node(s, parent, lower_bound, minority_bound, prediction,
                     parent.n_captured + n_captured), objective

    def _insert(self, parent, child, objective, captured, not_captured):
        """Update R^c if the child's list (of this objective) is better, then add the child to
        trie, map and queue."""
        if objective < self.best_objective or objective == self.best_objective and \
                may_come_first(child.prefix(), child.depth, self.best_rule_list[0]):
            self._update_incumbent(child, objective, not_captured ^ captured)
        reason = self._extension_pruned_by(child)
        if reason is not None:
            self.statistics["not_extended_" + reason] += 1
            self._note(child.antecedent, reason)
            return
        blocker = self._symmetry_blocker(child, not_captured ^ captured)
        if blocker is not None:
            self.statistics["pruned_symmetry"] += 1
            self._note(child.antecedent, "symmetry", blocker)
            return
        if parent.children is _NO_CHILDREN:
            parent.children = {}
        parent.children[child.antecedent] = child
        self._push(child, objective)
        self._note(child.antecedent, "queued")

    def _symmetry_blocker(self, child, remaining):
        """Symmetry-aware pruning (Cor. 18 / Thm 17): keep one prefix per key, the first in
        the order of :func:`dominance_order` (the best bound; ties to the shorter prefix, then
        the lexicographically smaller one).

        Returns the known equivalent prefix before the child in that order, if any; otherwise
        records the child (deleting the later equivalent prefix's subtree) and returns None. A
        strict order that extending both prefixes by the same rules preserves is what makes
        these prunes a checkable certificate (specs/certificates.md).
        """
        if self.config.symmetry_map == "none":
            return None
        key = self._symmetry_key(child, remaining)
        known = self.symmetry_map.get(key)
        if known is not None:
            if self._comes_first(known, child):
                return known
            self._evict(known, child)
        self.symmetry_map[key] = child
        child.map_key = key
        return None

    @staticmethod
    def _comes_first(known, child):
        """Whether the map's prefix ``known`` comes before ``child``, of the same key."""
        return known.lower_bound < child.lower_bound or (
            known.lower_bound == child.lower_bound and
            dominance_order(known.prefix()) < dominance_order(child.prefix()))

    def _evict(self, known, child):
        """The map's prefix ``known`` leaves the search: ``child``, of its key, comes first."""
        self._drop(known, "symmetry", child)
        self._delete_subtree(known)

    def _symmetry_key(self, child, remaining):
        """The child's key in the symmetry map: its antecedents in canonical (ascending) order
        (Cor. 18), or the set of samples it leaves uncaptured (Thm 17)."""
        if self.config.symmetry_map == "prefix":
            return tuple(sorted(child.parent.prefix() + [child.antecedent]))
        return remaining

    def _update_incumbent(self, child, objective, remaining):
        """R^c <- R(d) = ``objective``; then garbage-collect the trie (§5) if R^c fell (a tie
        that comes first in the result order leaves every bound test as it was)."""
        self.statistics["incumbent_updates"] += 1
        _, default = _majority(self._class_weights(remaining, self.weight(remaining, self.all_samples)))
        fell = objective < self.best_objective
        self.best_objective = objective
        path = child.parent.path() + [child]
        self.best_rule_list = ([node.antecedent for node in path],
                               [node.prediction for node in path], default)
        if fell:
            self._garbage_collect(self.root)

    def _garbage_collect(self, node):
        """Delete every subtree whose root cannot lead to a better rule list (§5)."""
        for child in list(node.children.values()):
            if child.lower_bound + child.minority_bound >= self.best_objective:
                self._drop(child, "lower_bound")
                self._delete_subtree(child)
            else:
                self._garbage_collect(child)

    def _delete_subtree(self, node):
        if node.parent is not None:
            node.parent.children.pop(node.antecedent, None)
        stack = [node]
        while stack:
            current = stack.pop()
            current.deleted = True
            self._unqueue(current)
            self.statistics["garbage_collected"] += 1
            if current.map_key is not None and self.symmetry_map.get(current.map_key) is current:
                del self.symmetry_map[current.map_key]
            stack.extend(current.children.values())
            current.children = _NO_CHILDREN

    # ----- search certificate (specs/certificates.md) -----------------------------------------
    def _start_codes(self, prefix):
        """Every child of the prefix being expanded starts "not evaluated"."""
        if self.trace is not None:
            self.codes = bytearray(CODES["not_evaluated"] * len(self.antecedents), "ascii")
            for antecedent in prefix:
                self.codes[antecedent] = ord(CODES["in-prefix"])
            self.witnesses = {}

    def _note(self, s, reason, witness=None):
        """What became of child s of the prefix being expanded (a key of ``CODES``)."""
        if self.codes is not None:
            self.codes[s] = ord(CODES[reason])
            if witness is not None:
                self.witnesses[s] = witness.prefix()

    def _write_expanded(self, prefix, node):
        if self.trace is not None:
            self.trace.expanded(prefix, node.lower_bound, self.codes, self.witnesses)
            self.codes = None

    def _drop(self, node, reason, witness=None):
        """A prefix leaves the search with this reason (a key of ``CODES``)."""
        if self.trace is not None:
            self.trace.dropped(node.prefix(), reason, node.lower_bound,
                               None if witness is None else witness.prefix())

    def _prune_upwards(self, node):
        """Delete an expanded, childless prefix and then its childless expanded ancestors (§5)."""
        while node.parent is not None and node.expanded and not node.children:
            node.parent.children.pop(node.antecedent, None)
            node = node.parent

    def describe(self, counters_only=False):
        """Progress figures (scaled objectives converted to Fractions). ``counters_only``: the
        counts alone (evaluations, incumbent updates, queue and map sizes), a look cheap enough
        for every node; the others take a pass over the queued bounds."""
        figures = {"evaluations": self.statistics["lower_bound_evaluations"],
                   "incumbent_updates": self.statistics["incumbent_updates"],
                   "queue_size": self._queue_length(), "map_size": len(self.symmetry_map)}
        if counters_only:
            return figures
        figures.update(bound_figures(self, self.queued_bounds))
        return figures

    # ----- certificates --------------------------------------------------------------------
    def queue_summary(self):
        """(global lower bound, remaining search space) of the queued prefixes, both scaled.

        Lower bound: every rule list's objective is at least this. Unexplored rule lists extend
        a queued prefix by at least one rule, so they cost at least b(d_p) + b_0(d_p) + λ
        (Lemma 2 with Thm 22); everything else was evaluated.

        Remaining space, Thm 7 (eq. 22-23): an upper bound on the prefix evaluations still to
        do. A queued prefix's term depends only on its length and on its slack
        ⌊(R^c - b(d_p))/λ⌋, so each term is computed once per (length, slack).

        Both come from ``queued_bounds`` (live queued prefixes per length and bounds), so the
        work is proportional to the number of distinct bounds, not to the queue: a time limit
        is honoured to within one node expansion plus this summary.
        """
        return queue_summary(self.queued_bounds, self.best_objective, self.rule_penalty,
                             len(self.antecedents))

    def queued_nodes(self, deleted=False):
        """(priority without the insertion order, prefix) of the live queued prefixes (and
        of those deleted while waiting, if ``deleted``: a caller that looks at a few of them
        then reads far fewer nodes), in pop order."""
        return [(priority[:-1], node) for priority, node in sorted(self.queue)
                if deleted or not node.deleted]

    def final_statistics(self):
        """The search's counters, with the size of its symmetry map at the end."""
        return dict(self.statistics, symmetry_map_size=len(self.symmetry_map))


def bound_figures(search, queued_bounds):
    """The progress figures of a search's bounds (exact fractions): best objective, global
    lower bound, remaining search space and the queue's prefix lengths, from its queued
    prefixes counted by (length, b, b_0) in ``queued_bounds``."""
    scale = search.mistake * search.total_weight
    lower_bound, remaining = search.queue_summary()
    lengths = collections.Counter()
    for (depth, _, _), count in queued_bounds.items():
        lengths[depth] += count
    return {"best_objective": Fraction(search.best_objective, scale),
            "lower_bound": Fraction(lower_bound, scale), "remaining_search_space": remaining,
            "prefix_lengths": [lengths[k] for k in range(max(lengths, default=-1) + 1)]}


def queue_summary(queued_bounds, best, penalty, n_antecedents):
    """(global lower bound, Thm 7's remaining search space) of queued prefixes counted by
    (length, b, b_0) in ``queued_bounds``, at R^c = ``best`` and λ = ``penalty`` (scaled);
    see :meth:`_BranchAndBound.queue_summary`."""
    lower_bound = min([b + b0 + penalty for _, b, b0 in queued_bounds] + [best])
    counts = collections.Counter()
    for (depth, b, _), count in queued_bounds.items():
        counts[depth, (best - b) // penalty] += count
    remaining = 0
    for (depth, slack), count in counts.items():
        if slack < 0:
            continue                    # b(d_p) > R^c: eq. 22's inner sum is empty
        free = n_antecedents - depth
        term, permutations = 0, 1
        for k in range(min(slack, free) + 1):
            term += permutations
            permutations *= free - k
        remaining += count * term
    return lower_bound, remaining


def dominance_order(prefix):
    """Among equivalent prefixes of equal bound, the one kept, and among optimal rule lists,
    the one returned: shorter first, then lexicographically smaller antecedent indices
    (extending two prefixes by the same rules keeps their order)."""
    return len(prefix), tuple(prefix)


def may_come_first(prefix, length, incumbent):
    """Whether a rule list of ``length`` or more rules whose first rules are ``prefix`` (a
    list of antecedent indices, at most ``length`` of them) can come before the list of
    antecedents ``incumbent`` in :func:`dominance_order`. Exact, except that a prefix equal
    to the incumbent's beginning may (its completions are not examined).

    >>> may_come_first([2], 2, [1, 5]), may_come_first([1], 2, [1, 5])
    (False, True)
    >>> may_come_first([0, 9], 3, [1, 5])       # three rules come after two
    False
    """
    if length != len(incumbent):
        return length < len(incumbent)
    head = list(incumbent[:len(prefix)])
    return prefix < head or (prefix == head and len(prefix) < length)


def _weight_planes(weights):
    """The binary digits of integer weights: [(j, bitset of the samples whose weight has bit j
    set)] for every j with such a sample."""
    planes = []
    for shift in range(int(weights.max()).bit_length()):
        digit = (weights >> shift) & 1
        if digit.any():
            planes.append((shift, bitset.to_int(bitset.pack(digit.astype(bool)))))
    return planes


def _restricted(planes, samples):
    """The planes of the samples in the set ``samples`` (a Python-int bitset)."""
    return [(shift, bits & samples) for shift, bits in planes if bits & samples]


def _size(samples, within):
    """Unweighted: the number of samples of ``samples`` in the bitset ``within``."""
    return (samples & within).bit_count()


def _planes_weight(samples, planes):
    """Weighted: the weight of ``samples`` within ``planes``, Σ_j 2^j·|samples ∧ plane_j|."""
    return sum((samples & bits).bit_count() << shift for shift, bits in planes)


def _majority(class_weights):
    """(mistakes, class) of the majority class of a group with these per-class weights: the
    class of largest weight, a tie going to the last such class (for two classes, the
    positive one, as CORELS)."""
    if len(class_weights) == 2:              # the common case, without the general search
        first, second = class_weights
        return (second, 0) if first > second else (first, 1)
    largest = max(class_weights)
    winner = len(class_weights) - 1 - class_weights[::-1].index(largest)
    return sum(class_weights) - largest, winner


def corels(dataset, lam, config):
    """Find a certifiably optimal rule list with the reference branch-and-bound.

    Parameters
    ----------
    dataset : BinaryDataset
        Canonical data (classes, optional integer weights); must carry ``minority`` bits when
        the equivalent-points bound is on.
    lam : Fraction
        λ in (0, 1), the per-rule penalty.
    config : optrules.rule_lists.SearchConfig
        Validated policy, symmetry map, enabled bounds, node and queue limits, the budget
        (time, memory, interrupts; :class:`optrules.limits.Budget`) and progress callback.

    Returns
    -------
    RuleListResult
        With ``status="optimal"`` the objective is the minimum of R(d) = (mistaken weight)/W
        + λK over all rule lists of distinct antecedents; otherwise (a stop status of :data:`optrules.limits.STOP_STATUSES`)
        ``lower_bound`` <= that minimum <= ``objective``.

    Notes
    -----
    Among equally good lists the result is the first in :func:`dominance_order` (fewest
    rules, then the smallest antecedent indices), whatever the policy, map or bound switches:
    a list that ties R^c replaces the incumbent when it comes first, and the bound tests prune
    at equality only the lists that come after it (specs/rule-lists.md §6).
    """
    start = time.perf_counter()
    return search_result(_BranchAndBound(dataset, lam, config), dataset, lam, config, start)


def search_result(search, dataset, lam, config, start):
    """Run a prepared search (Alg. 2) to its end or a limit; its :class:`RuleListResult` on
    ``dataset``. ``start`` is when the run began (``time.perf_counter()``)."""
    nodes_expanded, stop = search.run(config.max_nodes, config.max_queue, config.budget,
                                      config.progress)
    prefix, predictions, default = search.best_rule_list
    names, classes = dataset.antecedent_names, dataset.classes
    rules = tuple(Rule(names[a], classes[q]) for a, q in zip(prefix, predictions))
    rule_list = RuleList(rules, classes[default], dataset.target, classes)
    scale = lam.denominator * search.total_weight
    objective = Fraction(search.best_objective, scale)
    lower_bound, remaining = search.queue_summary() if stop else (search.best_objective, 0)
    statistics = search.final_statistics()
    mistaken_units = (search.best_objective - search.rule_penalty * len(prefix)) // search.mistake
    return RuleListResult(
        rule_list=rule_list, objective=objective,
        mistakes=mistaken_units if dataset.weights is None
        else dataset.weight_unit * mistaken_units,
        n_samples=dataset.n_samples,
        total_weight=dataset.total_weight if dataset.weighted else None,
        lam=lam, status=stop or "optimal",
        lower_bound=Fraction(lower_bound, scale), nodes_expanded=nodes_expanded,
        seconds=time.perf_counter() - start, remaining_search_space=remaining,
        statistics=statistics)
