"""Optimal and greedy base learners for gradient rule boosting, fast: the reference searches
with every candidate augmentation of a node evaluated in array operations.

The search is ``optrules.reference.rule_boosting``'s, decision for decision
(specs/rule-boosting.md §16): the same nodes in the same order, the same counters and the same
query. What changes is how each decision is reached:

- **Vectorised children.** A node's samples (in the g/h order of Alg. 1 line 1) are grouped
  by the propositions its subtree can add (specs §3), and every candidate child holds whole
  groups: the membership of all children in the groups is one boolean matrix; Σg, Σh, Σ|g| of
  all children are matrix-vector products, and Thm 3.1's bound of all children is one
  cumulative sum over the positive groups and one over the negative ones (a child's prefix
  sums stay put where it lacks a group, so the maximum over its own prefixes is unchanged).
  The node bounds of all the children it pushes come from one batched grouping of the node's
  own groups (a child's usable propositions are some of the node's, so its groups are unions
  of the node's), with exact sums carried along for the groups of mixed g/h ratios.
- **Floats with proven error bounds, exact arithmetic on doubt.** Every float here is within a
  stated relative (bounds) or absolute (objectives) error of the exact value (§16). A comparison
  whose two sides are further apart than their errors is decided by the floats; any other (ties
  included) is decided exactly, by the reference engine's integer arithmetic on that child's
  extent. The queue keys (bounds rounded down to 20 bits) are read off the floats, and
  computed exactly only for a bound within its error of a key boundary.

Examples
--------
>>> from optrules.rule_boosting.fit import fit_rule
>>> from optrules.rule_boosting.gradient_problem import GradientProblem
>>> problem = GradientProblem.from_values([[1, 1, 0, 0]], ["p0"], [-1, -1, 1, 1],
...                                       [1, 1, 1, 1], 1)
>>> fit_rule(problem, engine="fast").conditions
('p0',)
"""

import functools
import heapq
import itertools
import time
from fractions import Fraction

import numpy as np

from optrules.blas import single_blas_thread
from optrules.data import bitset
from optrules.reference.rule_boosting import (_PRUNE_KINDS, KEY_BITS, ZERO_KEY, _Notes,
                                              _RankedData, _greedy_step, _result,
                                              greedy_search, grouped_bound, queue_key,
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
        self.extents_float = self.extents.astype(np.float64)
        self.n = n
        # ratio_class[r]: the number of distinct exact g/h ratios before rank r
        self.ratio_class = np.concatenate(([0], np.cumsum(
            [g1 * h0 != g0 * h1 for g0, h0, g1, h1 in zip(data.g, data.h, data.g[1:],
                                                           data.h[1:])], dtype=np.int64)))
        self.by_sample = _packed_rows(self.extents.T)     # (n, words): sample i's bits

    def sums(self, members, candidates):
        """Σg, λ + Σh, Σ|g| (floats) of I(p_a) ∩ ``members``, a in ``candidates``."""
        inside = self.extents[np.ix_(candidates, members)].astype(np.float64)   # (A, m)
        return (inside @ self.g[members], self.lam + inside @ self.h[members],
                inside @ self.abs_g[members])

    def samples(self, members):
        """The samples ``members`` as items for :meth:`groups`: each its own group."""
        return (members, self.g[members], self.h[members], self.abs_g[members],
                self.ratio_class[members], self.exact_g[members], self.exact_h[members])

    def groups(self, items, rows, usable):
        """Items grouped as the reference's ``grouped_bound`` groups samples, for several sets
        at once: set r holds the items ``rows == r`` (``rows`` ascending), grouped by the
        propositions ``usable[r]`` (a boolean row over all propositions). An item is a set of
        samples that agree on every proposition in ``usable[r]``: a sample
        (:meth:`samples`) or a group of a coarser grouping (a column of this method's
        result). ``items`` = (a sample of each, float Σg, Σh, Σ|g|, ratio class (-1 if
        mixed), exact Σg, Σh scaled by S). Returns the :class:`_Groups` of the R sets, each
        in exact order of G/H descending, float sums within the error of §16, exact sums
        Python integers."""
        representatives, g, h, abs_g, classes, exact_g, exact_h = items
        words = self.by_sample[representatives] & _packed_rows(usable)[rows]
        by_group = np.lexsort((*words.T, rows))
        words, rows = words[by_group], rows[by_group]
        new_group = np.empty(len(rows), dtype=bool)
        new_group[:1] = True
        np.logical_or(rows[1:] != rows[:-1], (words[1:] != words[:-1]).any(axis=1),
                      out=new_group[1:])
        starts = np.flatnonzero(new_group)
        group_rows = rows[starts]
        representatives = representatives[by_group[starts]]
        # A group of samples with one exact g/h ratio (all its items pure and of one class)
        # is "pure": its ratio is known exactly (its class) and its g terms have one sign, so
        # float sums (sums of the items' sums) have the relative error of §16. Other groups
        # get their exact sums rounded once.
        classes = classes[by_group]
        rank = np.minimum.reduceat(classes, starts)
        pure = (rank >= 0) & (rank == np.maximum.reduceat(classes, starts))
        g, h, abs_g, exact_g, exact_h = (np.add.reduceat(values[by_group], starts)
                                         for values in (g, h, abs_g, exact_g, exact_h))
        ratio, sign = self.ratio[representatives], self.sign[representatives]
        mixed = np.flatnonzero(~pure)
        if len(mixed):
            g[mixed] = (exact_g[mixed] / self.scale).astype(np.float64)
            h[mixed] = (exact_h[mixed] / self.scale).astype(np.float64)
            ratio[mixed] = (exact_g[mixed] / exact_h[mixed]).astype(np.float64)
            sign[mixed] = np.sign(g[mixed])
            rank[mixed] = -1
        # by row, then G/H descending: floats correctly rounded (monotone), then the exact
        # class; only runs of equal floats with a mixed group need more
        order = np.lexsort((rank, -ratio, group_rows))
        if len(mixed):
            order = _exact_ratio_order(order, ratio, group_rows, pure, (exact_g, exact_h))
        group_rows = group_rows[order]
        counts = np.bincount(group_rows, minlength=len(usable))
        column = np.arange(len(order)) - (np.cumsum(counts) - counts)[group_rows]
        items = tuple(values[order] for values in (representatives, g, h, abs_g, rank,
                                                   exact_g, exact_h))
        g, h, sign = items[1], items[2], sign[order]
        # Thm 3.1's terms: the positive groups in order (half 0), the negative ones in
        # reverse (half 1), left-aligned; other terms exact zeros
        shape = (len(usable), 2, counts.max(initial=0))
        terms_g, terms_h = np.zeros(shape), np.zeros(shape)
        backwards = counts[group_rows] - 1 - column
        for half, where, mask in ((0, column, sign > 0), (1, backwards, sign < 0)):
            terms_g[group_rows, half, where] = g * mask
            terms_h[group_rows, half, where] = h * mask
        totals = np.zeros((shape[0], shape[2], 3))
        totals[group_rows, column] = np.stack(items[1:4], axis=1)
        return _Groups(items, np.concatenate(([0], np.cumsum(counts))), terms_g, terms_h,
                       totals, self._scan(terms_g, terms_h))

    def children(self, groups, candidates):
        """Σg, λ + Σh, Σ|g| and Thm 3.1's bound over ``groups`` (one row, from
        :meth:`groups`) of every child I ∩ I(p_a), a in ``candidates``: a child holds whole
        groups. Σg has absolute error below ``relative_error``·Σ|g| (group sums within their
        own error, then summed), the others relative error below it (terms of one sign)."""
        inside = self.extents_float[np.ix_(candidates, groups.items[0])]
        g, h, abs_g = (inside @ groups.totals[0]).T
        both = np.stack((inside, inside[:, ::-1]), axis=1)      # the scan's two halves
        return g, self.lam + h, abs_g, self._scan(both * groups.terms_g,
                                                  both * groups.terms_h)

    def _scan(self, terms_g, terms_h):
        """Thm 3.1 per row of (rows, 2, width) group sums ``terms_g``, ``terms_h`` (the
        positive groups in order, the negative ones in reverse, each left-aligned):
        cumulative sums per half (terms of one sign, other terms exact zeros: relative error
        below ``relative_error``), the largest G²/(λ + H)."""
        sums_g = np.cumsum(terms_g, axis=2)
        sums_d = self.lam + np.cumsum(terms_h, axis=2)
        # 0/0 (λ = 0, nothing summed yet) is NaN, which fmax passes over
        values = (sums_g * sums_g / sums_d).reshape(len(sums_g), -1 if sums_g.size else 0)
        return np.fmax.reduce(values, axis=1, initial=0.0)

    def objectives(self, total_g, total_d, total_abs):
        """Float obj (scaled like eq. 2.3 times 2n, unscaled by S) and its absolute error
        (under ``np.errstate(divide="ignore", invalid="ignore")``: 0/0 for an empty child
        with λ = 0 becomes 0)."""
        value = np.where(total_d > 0, total_g * total_g / total_d, 0.0)
        error_g = self.relative_error * total_abs
        error = np.where(total_d > 0, 2 * (error_g * (2 * np.abs(total_g) + error_g)
                                           / total_d + value * self.relative_error), 0.0)
        return value, error


class _Groups:
    """Groups of several sets (rows) from :meth:`_Floats.groups`: ``items``, flat arrays in
    row order, then G/H descending exactly (a sample of each group, float Σg, Σh, Σ|g|, ratio
    class or -1 if mixed, exact Σg, Σh), row r's at ``offsets[r]:offsets[r + 1]``; Thm 3.1's
    ``terms_g``, ``terms_h`` (rows, 2, width) for :meth:`_Floats._scan`; ``totals``
    (rows, width, 3): each row's float Σg, Σh, Σ|g| left-aligned, zero-padded; ``bounds``:
    Thm 3.1's bound of each row."""

    __slots__ = ("items", "offsets", "terms_g", "terms_h", "totals", "bounds")

    def __init__(self, items, offsets, terms_g, terms_h, totals, bounds):
        self.items, self.offsets = items, offsets
        self.terms_g, self.terms_h, self.totals, self.bounds = terms_g, terms_h, totals, bounds

    def row(self, r):
        """Row r alone (views, trimmed to its width)."""
        low, high = self.offsets[r], self.offsets[r + 1]
        width = high - low
        return _Groups(tuple(values[low:high] for values in self.items),
                       self.offsets[:2] - low, self.terms_g[r:r + 1, :, :width],
                       self.terms_h[r:r + 1, :, :width], self.totals[r:r + 1, :width],
                       self.bounds[r:r + 1])


def _exact_ratio_order(order, ratios, rows, pure, exact):
    """``order`` (groups by row, then correctly rounded G/H descending, then exact ratio class
    for ``pure`` groups) made exact. The rounding is monotone, so only runs of equal floats in
    one row can be out of order; two pure groups are in exact order (by class), and a mixed
    group exactly tied with its neighbours in the run is too. Any other run is sorted by exact
    cross-multiplication of ``exact`` = (G, H) object arrays (or a pair with G/H's ratio, for a
    pure group); the order among exactly equal ratios is free (specs §3)."""
    sorted_ratios, sorted_rows = ratios[order], rows[order]
    equal = np.flatnonzero((sorted_ratios[1:] == sorted_ratios[:-1]) &
                           (sorted_rows[1:] == sorted_rows[:-1]))
    left, right = order[equal], order[equal + 1]
    doubtful = ~(pure[left] & pure[right])
    left, right = left[doubtful], right[doubtful]
    untied = exact[0][left] * exact[1][right] != exact[0][right] * exact[1][left]
    if not untied.any():
        return order
    bad = set(equal[doubtful][untied].tolist())     # pairs (p, p + 1) not exactly tied
    order = order.copy()
    for run in np.split(equal, np.flatnonzero(np.diff(equal) > 1) + 1):
        if bad.isdisjoint(run.tolist()):
            continue
        low, high = run[0], run[-1] + 2
        order[low:high] = sorted(order[low:high].tolist(), key=functools.cmp_to_key(
            lambda x, y: exact[1][x] * exact[0][y] - exact[0][x] * exact[1][y]))   # G/H down
    return order


class _Node:
    """An open node: its query, packed extent, the propositions the queries below it may add,
    its float bound over the groups they make, its queue key and those groups; its
    augmentations (a, b, c) as arrays (b floats, inf for none yet), whose bounds were computed
    on its parent's extent and groups; exact bounds once some comparison needed them."""

    __slots__ = ("query", "words", "bound", "key", "augment", "bounds", "critical",
                 "parent_words", "usable", "parent_usable", "groups", "exact_bound",
                 "exact_bounds")

    def __init__(self, query, words, bound, key, augment, bounds, critical, parent_words,
                 usable, parent_usable, groups=None):
        self.query = query
        self.usable = usable               # the propositions below it (boolean, specs §3)
        self.parent_usable = parent_usable
        self.groups = groups               # its samples grouped by ``usable`` (not the root)
        self.words = words
        self.bound = bound
        self.key = key
        self.augment = augment
        self.bounds = bounds
        self.critical = critical
        self.parent_words = parent_words
        self.exact_bound = None
        self.exact_bounds = {}             # augmentation a -> its exact bound

    @property
    def tail(self):
        return self.query[-1] if self.query else -1


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
        self.alpha_low = self.alpha_float * (1 - self.margin)
        self.alpha_high = self.alpha_float * (1 + self.margin)
        self.use_implied = config.equivalence_pruning
        self.use_core_queries = config.equivalence_pruning and config.max_depth is None
        self.statistics = dict.fromkeys(("nodes", "evaluations") + _PRUNE_KINDS, 0)
        everything = (1 << problem.n_samples) - 1
        self.best_query, self.best_extent = (), everything
        self._set_best(self.data.objective(everything))
        self.sequence = itertools.count()
        self.heap = []          # (-key, sequence, node)
        self.trace = config.certificate     # the search certificate's writer, or None

    # ----- exact values, when floats cannot decide -------------------------------------------
    def _set_best(self, exact):
        self.best = exact                                          # scaled by S, as reference
        self.best_float = float(exact / self.floats.scale)
        self.best_key = queue_key(exact / self.alpha / self.floats.scale)
        # line 9's float test, obj(q*) < α·b surely (not) true: b·α(1 ∓ m) vs best(1 ± m)
        self.best_high = self.best_float * (1 + self.margin)
        self.best_low = self.best_float * (1 - self.margin)

    def _exact_bound(self, node):
        if node.exact_bound is None:
            node.exact_bound = grouped_bound(self.data, bitset.to_int(node.words),
                                             _bitmask(node.usable))
        return node.exact_bound

    def _exact_augmentation_bound(self, node, index):
        a = int(node.augment[index])
        if a not in node.exact_bounds:
            extent = bitset.to_int(node.parent_words) & self.data.extents[a]
            node.exact_bounds[a] = grouped_bound(self.data, extent, _bitmask(node.parent_usable))
        return node.exact_bounds[a]

    def _node_worth(self, node):
        """Line 9's test for a popped node's own bound: :meth:`_worth` of one float."""
        if not self.config.bound_pruning:
            return True
        if node.bound * self.alpha_low > self.best_high:
            return True
        if node.bound * self.alpha_high < self.best_low:
            return False
        return self.best < self.alpha * self._exact_bound(node)

    def _worth(self, bounds, exact_bound):
        """Line 9's test ``obj(q*) < α·b`` for float bounds (inf: no bound yet), each decided
        by floats when certain, else exactly (``exact_bound(i)`` gives bound i exactly)."""
        if not self.config.bound_pruning:
            return np.ones(len(bounds), dtype=bool)
        worth = bounds * self.alpha_low > self.best_high
        for i in np.flatnonzero((bounds * self.alpha_high >= self.best_low) & ~worth):
            worth[i] = self.best < self.alpha * exact_bound(i)
        return worth

    def _keys(self, bounds, exact_bound):
        """The reference's ``queue_key`` of float bounds: from the floats when both ends of
        their error interval have the same key, else exactly (``exact_bound(i)``)."""
        low = _float_keys(bounds * (1 - self.margin))
        high = _float_keys(bounds * (1 + self.margin))
        for i in np.flatnonzero(low != high):
            low[i] = queue_key(exact_bound(i) / self.floats.scale)
        return low

    # ----- Algorithm 1 ---------------------------------------------------------------------
    def run(self, start):
        config, floats, statistics = self.config, self.floats, self.statistics
        n_propositions, n = len(self.data.extents), self.problem.n_samples
        everything = bitset.from_int((1 << n) - 1, n)
        usable = np.ones(n_propositions, dtype=bool)    # the root list: every proposition
        root_bound = grouped_bound(self.data, (1 << n) - 1, _bitmask(usable))   # line 5
        root = _Node((), everything, float(root_bound / floats.scale),
                     queue_key(root_bound / floats.scale), np.arange(n_propositions),
                     np.full(n_propositions, np.inf), np.arange(n_propositions),
                     everything, usable, usable)                           # line 4: b = ∞
        root.exact_bound = root_bound
        self._push(root)
        stop = None
        while self.heap:
            stop = "node-limit" if config.max_nodes is not None and \
                statistics["nodes"] >= config.max_nodes else config.budget.stop_reason()
            if stop is not None:
                break
            node = heapq.heappop(self.heap)[2]                            # line 7
            if not self._node_worth(node):
                statistics["bound_immediate"] += 1
                dropped = [node]
                if node.key < self.best_key:     # every key left is as low: all fail
                    statistics["bound_immediate"] += len(self.heap)
                    dropped += [entry[2] for entry in self.heap]
                    self.heap.clear()
                if self.trace is not None:
                    for gone in dropped:
                        self.trace.dropped(gone.query, _bitmask(gone.usable),
                                           self._exact_bound(gone))
                continue
            statistics["nodes"] += 1
            self._expand(node)
            if config.progress is not None:
                config.progress(statistics["nodes"], self._progress_figures)
        upper = self.best / self.alpha if stop is None else max(
            [self.best / self.alpha] + ([self._open_bound()] if self.heap else []))
        status = stop or ("optimal" if self.alpha == 1 else "approximate")
        shortest = shortest_equivalent_query(self.data, self.best_extent, self.best_query)
        return _result(self.problem, self.data, shortest, self.best_extent, self.best, upper,
                       status, statistics, time.perf_counter() - start)

    def _push(self, node):
        heapq.heappush(self.heap, (-node.key, next(self.sequence), node))

    def _open_bound(self):
        """The largest exact bound of an open node (for a stopped search)."""
        top = max(entry[2].bound for entry in self.heap)
        return max(self._exact_bound(node) for _, _, node in self.heap
                   if node.bound >= top * (1 - 2 * self.margin))

    def _expand(self, node):
        """Lines 8-16 for every augmentation of ``node`` at once (see the reference)."""
        statistics, floats = self.statistics, self.floats
        query, words, tail = node.query, node.words, node.tail
        augment, bounds, critical = node.augment, node.bounds, node.critical
        live = augment > tail
        note = _Notes(self.trace, len(floats.packed))
        if self.use_core_queries:                                   # (3.8)
            propagated = live & (tail > critical)
            statistics["equivalence_propagated"] += int(np.count_nonzero(propagated))
            live &= ~propagated
            if note.active:
                for p in np.flatnonzero(propagated).tolist():
                    note(int(augment[p]), "core-propagated", witness=int(critical[p]))
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
        if node.groups is None:           # the root: grouped from its samples
            members = np.flatnonzero(bitset.unpack(words, floats.n))
            node.groups = floats.groups(floats.samples(members),
                                        np.zeros(len(members), np.int64), node.usable[None])
        groups = node.groups
        node.groups = None                  # not needed again: free it
        total_g, total_d, total_abs, child_bounds = floats.children(groups, candidates)
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
                    note(int(augment[p]), "bound-propagated")
                    continue
                if implied[p]:
                    statistics["equivalence_immediate"] += 1       # q → p_a: same extent
                    note(int(augment[p]), "implied")
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
        self._refine(node, groups, evaluated_at_start[evaluated], child_bounds[evaluated],
                     child_words[evaluated], implied_by_node, note)
        if note.active:
            self.trace.expanded(query, _bitmask(node.usable), self._exact_bound(node),
                                note.codes, note.witnesses, note.own)

    def _improves(self, value, error, child_words):
        """obj(child) > obj(q*) (line 11), by floats when certain, else exactly."""
        best, margin = self.best_float, self.margin
        if value - error > best * (1 + margin):
            return True
        if value + error < best * (1 - margin):
            return False
        return self.data.objective(bitset.to_int(child_words)) > self.best

    def _refine(self, node, groups, positions, bounds, child_words, implied_by_node, note):
        """Lines 12-16 for the evaluated children (``positions`` in ``node``'s augmentations):
        critical indices, then the children queued with their own bounds (their fates noted
        in ``note``, the search certificate's)."""
        statistics, floats, config = self.statistics, self.floats, self.config
        augment = node.augment[positions]
        critical = augment.copy()
        if self.use_core_queries:
            inherited = node.critical[positions]
            shortcut = (inherited < augment) & ~implied_by_node[inherited]
            critical[shortcut] = inherited[shortcut]                # line 13, (3.7)
            scanned = np.flatnonzero(~shortcut)
            if len(scanned):
                # crt(q p_a) = min{j < a : q p_a → p_j and q ↛ p_j}, else a
                implies = ~(child_words[scanned, None, :] & ~floats.packed).any(axis=2)
                witnesses = implies & ~implied_by_node & \
                    (np.arange(len(floats.packed)) < augment[scanned, None])
                found = witnesses.any(axis=1)
                critical[scanned[found]] = witnesses[found].argmax(axis=1)
        worth = self._worth(bounds, lambda k: grouped_bound(
            self.data, bitset.to_int(child_words[k]), _bitmask(node.usable)))
        core = augment == critical
        statistics["equivalence_immediate"] += int(np.count_nonzero(~core))   # (3.6)
        if note.active:
            for k in np.flatnonzero(~core).tolist():
                note(int(augment[k]), "not-core", witness=int(critical[k]))
        if config.max_depth is not None and len(node.query) + 1 >= config.max_depth:
            statistics["depth_limited"] += int(np.count_nonzero(core))
            return
        statistics["bound_immediate"] += int(np.count_nonzero(core & ~worth))
        if note.active:
            for k in np.flatnonzero(core & ~worth).tolist():
                note(int(augment[k]), "child-bound")
        kept = np.flatnonzero(core & worth)                        # line 16, in order
        if not len(kept):
            return
        # each child's own bound over the propositions below it (specs §3), all at once:
        # the list's elements after it that pass (3.8) and line 9 now
        below = worth & (augment > augment[kept, None])
        if self.use_core_queries:
            below &= critical >= augment[kept, None]
        usable_below = np.zeros((len(kept), len(floats.packed)), dtype=bool)
        usable_below[:, augment] = below
        # a child's groups are unions of the node's groups (its usable set is a subset of
        # the node's), so they are made from those
        inside = floats.extents[np.ix_(augment[kept], groups.items[0])]
        rows, columns = np.nonzero(inside)
        groups = floats.groups(tuple(values[columns] for values in groups.items), rows,
                               usable_below)
        own = groups.bounds
        exact = {}
        own_exact = lambda i: exact.setdefault(i, grouped_bound(
            self.data, bitset.to_int(child_words[kept[i]]), _bitmask(usable_below[i])))
        own_worth = self._worth(own, own_exact)
        statistics["bound_immediate"] += int(np.count_nonzero(~own_worth))
        if note.active:
            for i in np.flatnonzero(~own_worth).tolist():
                note(int(augment[kept[i]]), "own-bound", usable=_bitmask(usable_below[i]))
        pushed = np.flatnonzero(own_worth)
        keys = self._keys(own[pushed], lambda i: own_exact(pushed[i])).tolist()
        for i, key in zip(pushed.tolist(), keys):
            k = kept[i]
            child = _Node(node.query + (int(augment[k]), ), child_words[k], float(own[i]),
                          key, augment, bounds, critical, node.words, usable_below[i],
                          node.usable,
                          groups.row(i))
            child.exact_bound = exact.get(i)
            self._push(child)
            note(int(augment[k]), "queued")

    def _progress_figures(self):
        unit = 2 * self.problem.n_samples
        top = max([entry[2].bound for entry in self.heap[:1]] + [self.best_float])
        return {"objective": self.best_float / unit, "upper_bound": top / unit,
                "boundary": len(self.heap)}


def _packed_rows(bits):
    """The rows of a boolean matrix packed into 64-bit words (zero-padded): equal rows give
    equal words."""
    packed = np.packbits(bits, axis=1)
    padded = np.zeros((len(bits), -(-packed.shape[1] // 8) * 8), dtype=np.uint8)
    padded[:, :packed.shape[1]] = packed
    return padded.view(np.uint64)


def _bitmask(usable):
    """A boolean row over the propositions as the reference's bitmask (bit j: p_j)."""
    return sum(1 << j for j in np.flatnonzero(usable).tolist())


def _float_keys(values):
    """``queue_key`` of floats (exact for them): the binary exponent and the first
    ``KEY_BITS`` mantissa bits after the leading one; ``ZERO_KEY`` for 0."""
    mantissa, exponent = np.frexp(values)             # values = mantissa·2**exponent, [0.5, 1)
    keys = ((exponent.astype(np.int64) - 1) << (KEY_BITS + 1)) + \
        np.floor(np.ldexp(mantissa, KEY_BITS + 1)).astype(np.int64)
    return np.where(values > 0, keys, ZERO_KEY)


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
    # small products: a second BLAS thread only costs (optrules.blas); 0/0 is handled
    with single_blas_thread(), np.errstate(divide="ignore", invalid="ignore"):
        return _Search(problem, config).run(start)


def greedy_rule(problem, config):
    """§4 baseline, as the reference engine's :func:`~optrules.reference.rule_boosting.greedy_rule`
    (same parameters and result): each round evaluates every proposition at once, and the
    exact objective decides among the candidates within float error of the largest; outside
    the float range of :data:`_RANGE`, the reference engine's round."""
    if not _floats_are_safe(problem, Fraction(1)):
        return greedy_search(problem, config, lambda data: _greedy_step)
    with np.errstate(divide="ignore", invalid="ignore"):
        return greedy_search(problem, config,
                             lambda data: _VectorisedStep(_Floats(problem, data)))


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
