"""Optimal and greedy base learners for gradient rule boosting, fast: the reference searches
with every candidate augmentation of a node evaluated in array operations.

The search is ``optrules.reference.rule_boosting``'s, decision for decision
(specs/rule-boosting.md §16): the same nodes in the same order, the same counters and the same
query. What changes is how each decision is reached:

- **Vectorised children.** For a node with extent I (samples in the g/h order of Alg. 1
  line 1), the membership of every candidate child in I is a boolean matrix; Σg, Σh, Σ|g| of all
  children are matrix-vector products, and Thm 3.1's bound of all children is one cumulative sum
  over the positive-gradient samples of I and one over the negative ones (a child's prefix sums
  stay put where it lacks a sample, so the maximum over its own prefixes is unchanged).
- **Floats with proven error bounds, exact arithmetic on doubt.** Every float here is within a
  stated relative (bounds) or absolute (objectives) error of the exact value (§16). A comparison
  whose two sides are further apart than their errors is decided by the floats; any other (ties
  included) is decided exactly, by the reference engine's integer arithmetic on that child's
  extent. The queue is ordered by float bounds; prefixes whose bounds are within error of one
  another are ordered by their exact bounds, ties by insertion order, as in the reference.

Examples
--------
>>> from optrules.rule_boosting.fit import fit_rule
>>> from optrules.rule_boosting.gradient_problem import GradientProblem
>>> problem = GradientProblem.from_values([[1, 1, 0, 0]], ["p0"], [-1, -1, 1, 1],
...                                       [1, 1, 1, 1], 1)
>>> fit_rule(problem, engine="fast").conditions
('p0',)
"""

import bisect
import functools
import heapq
import itertools
import time
from fractions import Fraction

import numpy as np

from optrules.blas import single_blas_thread
from optrules.data import bitset
from optrules.reference.rule_boosting import (_PRUNE_KINDS, _RankedData, _greedy_step, _result,
                                              greedy_search, grouped_bound,
                                              shortest_equivalent_query)
from optrules.reference.rule_boosting import optimal_rule as reference_optimal_rule

__all__ = ["optimal_rule", "greedy_rule"]

_UNIT_ROUNDOFF = 2.0 ** -53


class _Floats:
    """The ranked problem in float64, with its error bound.

    ``g``, ``h`` (in rank order) and ``lam`` are the exact values divided by the scale S and
    correctly rounded. ``relative_error`` bounds the relative error of every bound, of every
    same-sign sum, and (times Σ|g|) the absolute error of Σg (specs/rule-boosting.md §16).
    ``extents`` are the propositions over ranks, boolean (P, n) and packed (P, words).
    """

    def __init__(self, problem, data):
        scale = problem.scale
        self.g = np.array([value / scale for value in data.g])
        self.h = np.array([value / scale for value in data.h])
        self.abs_g = np.abs(self.g)
        self.exact_g = np.array(data.g, dtype=object)
        self.exact_h = np.array(data.h, dtype=object)
        # g_i/h_i correctly rounded (a quotient of Python integers), and the sign of g_i
        self.ratio = np.array([g / h for g, h in zip(data.g, data.h)])
        self.sign = np.sign(np.array([(g > 0) - (g < 0) for g in data.g]))
        self.lam = data.lam / scale
        self.scale = scale
        n = len(data.g)
        self.relative_error = (4 * n + 16) * _UNIT_ROUNDOFF
        self.packed = np.array([bitset.from_int(extent, n) for extent in data.extents],
                               dtype=np.uint64).reshape(len(data.extents), bitset.n_words(n))
        self.extents = np.array([bitset.unpack(row, n) for row in self.packed],
                                dtype=bool).reshape(len(data.extents), n)
        self.n = n

    def children(self, words, candidates, tail):
        """Σg, λ + Σh, Σ|g| and the grouped bound (floats) of the children I ∩ I(p_a), a in
        ``candidates``, of the node with packed extent ``words`` and tail ``tail``."""
        members = np.flatnonzero(bitset.unpack(words, self.n))
        return (*self.sums(members, candidates),
                self.grouped_bounds(members, candidates, tail))

    def sums(self, members, candidates):
        """Σg, λ + Σh, Σ|g| (floats) of I(p_a) ∩ ``members``, a in ``candidates``."""
        inside = self.extents[np.ix_(candidates, members)].astype(np.float64)   # (A, m)
        return (inside @ self.g[members], self.lam + inside @ self.h[members],
                inside @ self.abs_g[members])

    def grouped_bounds(self, members, candidates, tail):
        """The reference's ``grouped_bound`` of every child I ∩ I(p_a), a > ``tail``: the
        node's samples grouped by the propositions after ``tail`` (a child holds whole
        groups), each group's g, h sums correctly rounded from their exact values, the groups in
        exact order of G/H, then Thm 3.1's scan for all children at once as cumulative sums
        (terms of one sign: relative error below ``relative_error``)."""
        bound = np.zeros(len(candidates))
        if not len(members) or not len(candidates):
            return bound
        keys = np.ascontiguousarray(np.packbits(self.extents[tail + 1:, members], axis=0).T)
        keys = keys.view(np.dtype((np.void, keys.shape[1]))).ravel()
        _, first, labels, counts = np.unique(keys, return_index=True, return_inverse=True,
                                             return_counts=True)
        representatives = members[first]
        # single samples: their own values; merged groups: exact sums (Python integers)
        g, h = self.g[representatives], self.h[representatives]
        ratio, sign = self.ratio[representatives], self.sign[representatives]
        exact = {}
        merged = counts[labels.ravel()] > 1
        if merged.any():
            sums = np.zeros((2, len(first)), dtype=object)
            np.add.at(sums[0], labels.ravel()[merged], self.exact_g[members[merged]])
            np.add.at(sums[1], labels.ravel()[merged], self.exact_h[members[merged]])
            for k in np.flatnonzero(counts > 1).tolist():
                total_g, total_h = sums[0, k], sums[1, k]
                exact[k] = (total_g, total_h)
                g[k], h[k] = total_g / self.scale, total_h / self.scale
                ratio[k], sign[k] = total_g / total_h, (total_g > 0) - (total_g < 0)
        order = _exact_ratio_order(
            ratio, representatives, counts > 1, lambda k: exact.get(k) or (
                self.exact_g[representatives[k]], self.exact_h[representatives[k]]))
        inside = self.extents[np.ix_(candidates, representatives[order])].astype(np.float64)
        g, h, sign = g[order], h[order], sign[order]
        for columns in (np.flatnonzero(sign > 0), np.flatnonzero(sign < 0)[::-1]):
            if not len(columns):
                continue
            sums_g = np.cumsum(inside[:, columns] * g[columns], axis=1)
            sums_d = self.lam + np.cumsum(inside[:, columns] * h[columns], axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                values = np.where(sums_d > 0, sums_g * sums_g / sums_d, 0.0)
            np.maximum(bound, values.max(axis=1), out=bound)
        return bound

    def objectives(self, total_g, total_d, total_abs):
        """Float obj (scaled like eq. 2.3 times 2n, unscaled by S) and its absolute error."""
        with np.errstate(divide="ignore", invalid="ignore"):
            value = np.where(total_d > 0, total_g * total_g / total_d, 0.0)
            error_g = self.relative_error * total_abs
            error = np.where(total_d > 0, 2 * (error_g * (2 * np.abs(total_g) + error_g)
                                               / total_d + value * self.relative_error), 0.0)
        return value, error


def _exact_ratio_order(ratios, ranks, merged, exact_sums):
    """Indices of the groups by G/H descending, exactly. ``ratios`` are the correctly rounded
    quotients (monotone in the exact ones), so only runs of equal floats need more: single
    samples (``merged`` false) are in exact order by their ``ranks`` (Alg. 1 line 1); other runs
    compare the exact sums ``exact_sums(k)`` = (G_k, H_k), and a run whose exact ratios are all
    equal keeps any order (specs §3: the tie order changes no bound)."""
    order = np.argsort(-ratios, kind="stable")
    starts = np.flatnonzero(np.diff(ratios[order])) + 1
    if len(starts) == len(order) - 1:
        return order
    runs = []
    for run in np.split(order, starts):
        if len(run) > 1 and not merged[run].any():
            run = run[np.argsort(ranks[run])]
        elif len(run) > 1:
            sums = [exact_sums(k) for k in run.tolist()]
            g0, h0 = sums[0]
            if any(g * h0 != g0 * h for g, h in sums):
                ranked = sorted(zip(sums, run.tolist()), key=functools.cmp_to_key(
                    lambda x, y: x[0][1] * y[0][0] - x[0][0] * y[0][1]))   # G/H descending
                run = np.array([k for _, k in ranked])
        runs.append(run)
    return np.concatenate(runs)


class _Node:
    """An open node: its query, packed extent and float bound; its augmentations (a, b, c) as
    arrays (b floats, inf for none yet) with the extent their bounds were computed on; exact
    bounds once some comparison needed them."""

    __slots__ = ("query", "words", "own_bound", "augment", "bound", "critical", "parent_words",
                 "bound_tail", "exact_bound", "exact_bounds")

    def __init__(self, query, words, own_bound, augment, bound, critical, parent_words,
                 bound_tail):
        self.query = query
        self.bound_tail = bound_tail       # the tail its bounds were computed for (its parent's)
        self.words = words
        self.own_bound = own_bound
        self.augment = augment
        self.bound = bound
        self.critical = critical
        self.parent_words = parent_words
        self.exact_bound = None
        self.exact_bounds = {}             # augmentation a -> its exact bound


class _Search:
    """Algorithm 1 of the reference engine, with float decisions where they are certain."""

    def __init__(self, problem, config):
        self.problem, self.config = problem, config
        self.data = _RankedData(problem)
        self.floats = _Floats(problem, self.data)
        self.alpha = config.alpha
        self.alpha_float = float(config.alpha)
        # margin of a float comparison: the bound's error, plus the roundings of α·b and of
        # the incumbent's float, with room to spare
        self.margin = self.floats.relative_error + 16 * _UNIT_ROUNDOFF
        self.use_implied = config.equivalence_pruning
        self.use_core_queries = config.equivalence_pruning and config.max_depth is None
        self.statistics = dict.fromkeys(("nodes", "evaluations") + _PRUNE_KINDS, 0)
        everything = (1 << problem.n_samples) - 1
        self.best_query, self.best_extent = (), everything
        self._set_best(self.data.objective(everything))
        self.sequence = itertools.count()
        self.heap = []          # (-float bound, sequence, node)
        self.ready = []         # near-tied nodes ordered exactly: sorted (exact bound, -seq)
        self.ready_keys = []
        self.ready_low = None   # the smallest float bound among ``ready``'s nodes

    # ----- exact values, when floats cannot decide -------------------------------------------
    def _set_best(self, exact):
        self.best = exact                                          # scaled by S, as reference
        self.best_float = float(exact / self.floats.scale)

    def _exact_bound(self, node):
        if node.exact_bound is None:
            node.exact_bound = grouped_bound(self.data, bitset.to_int(node.words),
                                             node.bound_tail)
        return node.exact_bound

    def _exact_augmentation_bound(self, node, index):
        a = int(node.augment[index])
        if a not in node.exact_bounds:
            extent = bitset.to_int(node.parent_words) & self.data.extents[a]
            node.exact_bounds[a] = grouped_bound(self.data, extent, node.bound_tail)
        return node.exact_bounds[a]

    def _worth(self, bounds, exact_bound):
        """Line 9's test ``obj(q*) < α·b`` for float bounds (inf: no bound yet), each decided
        by floats when certain, else exactly (``exact_bound(i)`` gives bound i exactly)."""
        if not self.config.bound_pruning:
            return np.ones(len(bounds), dtype=bool)
        scaled = self.alpha_float * bounds
        best, margin = self.best_float, self.margin
        surely = best * (1 + margin) < scaled * (1 - margin)
        surely_not = best * (1 - margin) > scaled * (1 + margin)
        worth = surely.copy()
        for i in np.flatnonzero(~surely & ~surely_not):
            worth[i] = self.best < self.alpha * exact_bound(i)
        return worth

    # ----- the queue: float order, exact among near ties --------------------------------------
    def _push(self, node):
        entry = (-node.own_bound, next(self.sequence), node)
        if self.ready and -entry[0] >= self.ready_low * (1 - 2 * self.margin):
            self._make_ready([entry])
            self._gather()
        else:
            heapq.heappush(self.heap, entry)

    def _gather(self):
        """Move the heap's nodes within float error of ``ready``'s lowest into ``ready``
        (transitively: its lowest may fall), so no node left in the heap can be exactly above
        a node of ``ready``."""
        while self.heap and -self.heap[0][0] >= self.ready_low * (1 - 2 * self.margin):
            self._make_ready([heapq.heappop(self.heap)])

    def _make_ready(self, entries):
        """Order ``entries`` (and ``ready``) by exact bound, ties by insertion order."""
        for negative_bound, sequence, node in entries:
            key = (self._exact_bound(node), -sequence)
            position = bisect.bisect(self.ready_keys, key)
            self.ready_keys.insert(position, key)
            self.ready.insert(position, (negative_bound, sequence, node))
            low = -negative_bound
            self.ready_low = low if self.ready_low is None else min(self.ready_low, low)

    def _pop(self):
        """The open node of largest exact bound, ties by insertion order (line 7)."""
        if not self.ready:
            top = heapq.heappop(self.heap)
            if not self.heap or -self.heap[0][0] < -top[0] * (1 - 2 * self.margin):
                return top                  # no near tie: the float order is the exact one
            self._make_ready([top])
            self._gather()
        self.ready_keys.pop()
        entry = self.ready.pop()
        if not self.ready:
            self.ready_low = None
        return entry

    def _open_bound(self):
        """The largest exact bound of an open node (for a stopped search)."""
        entries = self.heap + self.ready
        top = max(-entry[0] for entry in entries)
        return max(self._exact_bound(node) for negative, _, node in entries
                   if -negative >= top * (1 - 2 * self.margin))

    # ----- Algorithm 1 ---------------------------------------------------------------------
    def run(self, start):
        config, floats, statistics = self.config, self.floats, self.statistics
        n_propositions, n = len(self.data.extents), self.problem.n_samples
        everything = bitset.from_int((1 << n) - 1, n)
        root_bound = grouped_bound(self.data, (1 << n) - 1, -1)           # line 5
        root = _Node((), everything, float(root_bound / floats.scale),
                     np.arange(n_propositions), np.full(n_propositions, np.inf),
                     np.arange(n_propositions), everything, -1)        # line 4: b = ∞
        root.exact_bound = root_bound
        self._push(root)
        stop = None
        while self.heap or self.ready:
            stop = "node-limit" if config.max_nodes is not None and \
                statistics["nodes"] >= config.max_nodes else config.budget.stop_reason()
            if stop is not None:
                break
            negative_bound, _, node = self._pop()
            if not self._worth(np.array([-negative_bound]), lambda i: self._exact_bound(node))[0]:
                statistics["bound_immediate"] += 1
                continue
            statistics["nodes"] += 1
            self._expand(node)
            if config.progress is not None:
                config.progress(statistics["nodes"], self._progress_figures)
        upper = self.best / self.alpha if stop is None else max(
            [self.best / self.alpha] + ([self._open_bound()] if self.heap or self.ready else []))
        status = stop or ("optimal" if self.alpha == 1 else "approximate")
        shortest = shortest_equivalent_query(self.data, self.best_extent, self.best_query)
        return _result(self.problem, self.data, shortest, self.best_extent, self.best, upper,
                       status, statistics, time.perf_counter() - start)

    def _expand(self, node):
        """Lines 8-16 for every augmentation of ``node`` at once (see the reference)."""
        statistics, floats = self.statistics, self.floats
        query, words = node.query, node.words
        tail = query[-1] if query else -1
        augment, bounds, critical = node.augment, node.bound, node.critical
        live = augment > tail
        if self.use_core_queries:                                   # (3.8)
            propagated = live & (tail > critical)
            statistics["equivalence_propagated"] += int(np.count_nonzero(propagated))
            live &= ~propagated
        outside = words & ~floats.packed                            # I \ I(p_j), every j
        implied_by_node = ~outside.any(axis=1)                      # q → p_j
        implied = implied_by_node[augment] if self.use_implied else np.zeros(len(augment), bool)
        positions = np.flatnonzero(live)
        worth = self._worth(bounds[positions],
                            lambda i: self._exact_augmentation_bound(node, positions[i]))
        # The children evaluated with the incumbent of the start: a superset of those evaluated
        # (the incumbent only grows, so worth(b) only turns false).
        evaluated_at_start = positions[worth & ~implied[positions]]
        candidates = augment[evaluated_at_start]
        total_g, total_d, total_abs, child_bounds = floats.children(words, candidates, tail)
        values, errors = floats.objectives(total_g, total_d, total_abs)
        child_words = words & floats.packed[candidates]
        row_of = {p: r for r, p in enumerate(evaluated_at_start.tolist())}
        evaluated = []                                              # rows, in order
        cursor = 0                       # positions[cursor:] not decided yet
        while cursor < len(positions):
            rest = positions[cursor:]
            if cursor:                   # the incumbent improved: line 9's test again
                worth = self._worth(bounds[rest],
                                    lambda i: self._exact_augmentation_bound(node, rest[i]))
            improved_at = None
            for i, p in enumerate(rest.tolist()):
                if not worth[i]:
                    statistics["bound_propagated"] += 1
                    continue
                if implied[p]:
                    statistics["equivalence_immediate"] += 1       # q → p_a: same extent
                    continue
                statistics["evaluations"] += 1
                row = row_of[p]
                evaluated.append(row)
                if self._improves(values[row], errors[row], child_words[row]):   # line 11
                    self._set_best(self.data.objective(bitset.to_int(child_words[row])))
                    self.best_query = query + (int(augment[p]),)
                    self.best_extent = bitset.to_int(child_words[row])
                    improved_at = i
                    break
            cursor = len(positions) if improved_at is None else cursor + improved_at + 1
        evaluated = np.array(evaluated, dtype=np.int64)
        self._refine(node, evaluated_at_start[evaluated], child_bounds[evaluated],
                     child_words[evaluated], implied_by_node)

    def _improves(self, value, error, child_words):
        """obj(child) > obj(q*) (line 11), by floats when certain, else exactly."""
        best, margin = self.best_float, self.margin
        if value - error > best * (1 + margin):
            return True
        if value + error < best * (1 - margin):
            return False
        return self.data.objective(bitset.to_int(child_words)) > self.best

    def _refine(self, node, positions, bounds, child_words, implied_by_node):
        """Lines 12-16 for the evaluated children (``positions`` in ``node``'s augmentations):
        critical indices, then the children queued."""
        statistics, floats, config = self.statistics, self.floats, self.config
        augment = node.augment[positions]
        critical = augment.copy()
        if self.use_core_queries:
            for k, (a, c) in enumerate(zip(augment.tolist(),
                                           node.critical[positions].tolist())):
                if c < a and not implied_by_node[c]:
                    critical[k] = c                                 # line 13, (3.7)
                    continue
                # crt(q p_a) = min{j < a : q p_a → p_j and q ↛ p_j}, else a
                witnesses = ~(child_words[k] & ~floats.packed[:a]).any(axis=1) & \
                    ~implied_by_node[:a]
                found = np.flatnonzero(witnesses)
                if found.size:
                    critical[k] = found[0]
        depth_reached = config.max_depth is not None and len(node.query) + 1 >= config.max_depth
        exact = {}
        tail = node.query[-1] if node.query else -1
        worth = self._worth(bounds, lambda k: exact.setdefault(
            k, grouped_bound(self.data, bitset.to_int(child_words[k]), tail)))
        for k, a in enumerate(augment.tolist()):                   # line 15
            if a != critical[k]:
                statistics["equivalence_immediate"] += 1           # not a core query (3.6)
            elif depth_reached:
                statistics["depth_limited"] += 1
            elif not worth[k]:
                statistics["bound_immediate"] += 1
            else:                                                   # line 16
                child = _Node(node.query + (a,), child_words[k], float(bounds[k]), augment,
                              bounds, critical, node.words, tail)
                child.exact_bound = exact.get(k)
                self._push(child)

    def _progress_figures(self):
        unit = 2 * self.problem.n_samples
        top = max([-entry[0] for entry in self.heap[:1] + self.ready[-1:]] + [self.best_float])
        return {"objective": self.best_float / unit, "upper_bound": top / unit,
                "boundary": len(self.heap) + len(self.ready)}


#: The float range the error bounds of specs §16 need: every nonzero |g_i|, every h_i, λ (when
#: not 0) and α within [2**-_RANGE, 2**_RANGE], at most 2**20 samples. Then no sum, square,
#: quotient or error term overflows or leaves the normal range (§16); elsewhere the reference
#: engine runs.
_RANGE = 200


def _floats_are_safe(problem, alpha):
    """Whether ``problem`` and α lie in the float range of :data:`_RANGE` (exact integer tests
    on the scaled values: |v|/S ≥ 2**-R iff |v|·2**R ≥ S)."""
    scale = problem.scale
    values = [abs(v) for v in problem.g if v] + list(problem.h) + \
        ([problem.lam] if problem.lam else [])
    return problem.n_samples <= 1 << 20 and \
        all(scale <= v << _RANGE and v <= scale << _RANGE for v in values) and \
        alpha.numerator << _RANGE >= alpha.denominator


def optimal_rule(problem, config):
    """Algorithm 1: the reference engine's :func:`~optrules.reference.rule_boosting.optimal_rule`
    (same parameters, search and result), its children evaluated in array operations; outside
    the float range of :data:`_RANGE`, the reference engine itself."""
    if not _floats_are_safe(problem, config.alpha):
        return reference_optimal_rule(problem, config)
    start = time.perf_counter()
    with single_blas_thread():      # small products: a second thread only costs (optrules.blas)
        return _Search(problem, config).run(start)


def greedy_rule(problem, config):
    """§4 baseline, as the reference engine's :func:`~optrules.reference.rule_boosting.greedy_rule`
    (same parameters and result): each round evaluates every proposition at once, and the
    exact objective decides among the candidates within float error of the largest; outside
    the float range of :data:`_RANGE`, the reference engine's round."""
    if not _floats_are_safe(problem, Fraction(1)):
        return greedy_search(problem, config, lambda data: _greedy_step)
    return greedy_search(problem, config, lambda data: _VectorisedStep(_Floats(problem, data)))


class _VectorisedStep:
    """One round of the greedy learner (``_greedy_step`` of the reference) in floats, decided
    exactly among the candidates that could be the largest."""

    def __init__(self, floats):
        self.floats = floats

    def __call__(self, data, query, extent, value):
        floats = self.floats
        candidates = np.setdiff1d(np.arange(len(data.extents)), query)
        if not len(candidates):
            return value, None
        members = np.flatnonzero(bitset.unpack(bitset.from_int(extent, floats.n), floats.n))
        values, errors = floats.objectives(*floats.sums(members, candidates))
        # the exact largest is among those whose interval reaches the largest lower end; in
        # index order with strict improvement, the first of the largest wins, as in the reference
        step = None
        for a in candidates[values + errors >= (values - errors).max()].tolist():
            candidate = data.objective(extent & data.extents[a])
            if candidate > value:
                value, step = candidate, a
        return value, step
