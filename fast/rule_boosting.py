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
- **Nodes evaluated in batches.** The array work of expanding several open nodes (the one
  popped and the next ones in the queue's order) is done at once, at the incumbent of that
  moment; the decisions are taken when each node is popped, and a node whose incumbent has
  changed by then is evaluated again (specs §16).
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
import math
import time
from fractions import Fraction

import numpy as np

from optrules.blas import single_blas_thread
from optrules.data import bitset
from optrules.reference.rule_boosting import (_PRUNE_KINDS, KEY_BITS, ZERO_KEY, _Notes,
                                              _RankedData, _greedy_step, _result,
                                              greedy_search, grouped_bound, queue_key,
                                              result_order, shortest_equivalent_query,
                                              tight_bound)
from optrules.reference.rule_boosting import optimal_rule as reference_optimal_rule

__all__ = ["optimal_rule", "greedy_rule"]

_UNIT_ROUNDOFF = 2.0 ** -53
_POWERS_OF_2 = np.ldexp(1.0, np.arange(32))
_LIMB_MASK = (1 << 32) - 1
#: An item's sums (:meth:`_Floats.groups`) are rows 0 and 1 float Σg and Σh (within the
#: error of specs §16), then from this row on the exact Σg and Σh, each as its limbs (§16).
_LIMB_ROW = 2


class _RankedArrays(_RankedData):
    """The reference's :class:`_RankedData` (the same attributes, equal values) built with
    array operations: samples by correctly rounded g/h descending (monotone in the exact
    ratio), then by index; a run of equal floats whose exact ratios differ is sorted
    exactly. Extents and each sample's propositions come from one bit matrix, and ``packed``
    holds the extents as packed words (P, words), for :class:`_Floats`."""

    def __init__(self, problem):
        n, g, h = problem.n_samples, problem.g, problem.h
        ratio = np.array([g_i / h_i for g_i, h_i in zip(g, h)])
        order = np.lexsort((np.arange(n), -ratio))
        equal = ratio[order[1:]] == ratio[order[:-1]]
        order = order.tolist()
        runs = set()
        for p in np.flatnonzero(equal).tolist():
            if g[order[p]] * h[order[p + 1]] != g[order[p + 1]] * h[order[p]]:
                low = p
                while low and equal[low - 1]:
                    low -= 1
                runs.add(low)
        for low in runs:
            high = low + 1
            while high <= len(equal) and equal[high - 1]:
                high += 1
            order[low:high] = sorted(order[low:high], key=lambda i: (-Fraction(g[i], h[i]), i))
        self.order, self.lam = order, problem.lam
        self.g, self.h = [g[i] for i in order], [h[i] for i in order]
        words = np.array([bitset.from_int(extent, n) for extent in problem.extents],
                         dtype=np.uint64).reshape(len(problem.extents), bitset.n_words(n))
        bits = bitset.unpack(words, n)[:, order]
        self.packed = bitset.pack(bits)
        self.extents = [bitset.to_int(row) for row in self.packed]
        self.row_keys = [int.from_bytes(row.tobytes(), "little")
                         for row in np.packbits(bits.T, axis=1, bitorder="little")]


class _Floats:
    """The ranked problem in float64, with its error bound.

    ``g``, ``h`` (in rank order) and ``lam`` are the exact values divided by the scale S and
    correctly rounded. ``relative_error`` bounds the relative error of every bound, of every
    same-sign sum, and (times Σ|g|) the absolute error of Σg (specs/rule-boosting.md §16).
    ``extents`` are the propositions over ranks, boolean (P, n) and packed (P, words) (made
    from ``data``'s unless ``packed`` gives them).
    """

    def __init__(self, problem, data, packed=None):
        scale = problem.scale
        self.g = np.array([value / scale for value in data.g])
        self.h = np.array([value / scale for value in data.h])
        self.abs_g = np.abs(self.g)
        # the exact g and h of each sample as 32-bit limbs: v = Σ_k limb_k·2**(32k), limbs
        # below the top in [0, 2**32), the top one signed and |top| < 2**31; a sum of limbs
        # of at most n ≤ 2**20 samples stays below 2**52, so float64 sums of them are exact
        bits = max(max(data.g), -min(data.g), max(data.h)).bit_length()     # h > 0
        self.limb_count = bits // 32 + 1
        shifts = np.arange(self.limb_count, dtype=object) * 32
        exact = np.array([data.g, data.h], dtype=object)[:, None, :] >> shifts[:, None]
        exact[:, :-1] &= _LIMB_MASK
        self.limb_values = 1 << shifts
        # each sample's sums as an item of groups() (rows: see _LIMB_ROW)
        self.sample_sums = np.vstack([self.g, self.h, *exact.astype(np.float64)])
        # an exact sum's limbs times these give it over S: 2**(32k)/S exactly for S = 2**s
        # (s ≤ 500 in the range of §16: normal floats), correctly rounded otherwise
        self.limb_weights = np.array([math.ldexp(1.0, 32 * k + 1 - scale.bit_length())
                                      if scale & (scale - 1) == 0 else (1 << 32 * k) / scale
                                      for k in range(self.limb_count)])
        # g_i/h_i correctly rounded (a quotient of Python integers)
        self.ratio = np.array([g / h for g, h in zip(data.g, data.h)])
        self.lam, self.exact_lam = data.lam / scale, data.lam
        self.scale = scale
        n = len(data.g)
        self.relative_error = (4 * (n + self.limb_count) + 16) * _UNIT_ROUNDOFF
        if packed is None:
            packed = np.array([bitset.from_int(extent, n) for extent in data.extents],
                              dtype=np.uint64).reshape(len(data.extents), bitset.n_words(n))
        self.packed = packed
        self.extents = bitset.unpack(self.packed, n)
        self.n = n
        # ratio_class[r]: the number of distinct exact g/h ratios before rank r
        self.ratio_class = np.concatenate(([0], np.cumsum(
            [g1 * h0 != g0 * h1 for g0, h0, g1, h1 in zip(data.g, data.h, data.g[1:],
                                                           data.h[1:])], dtype=np.int64)))
        self.by_sample = np.ascontiguousarray(self.extents.T)   # (n, P): sample i's bits
        self.extent_floats = self.extents.astype(np.float64)
        self.outside = np.ascontiguousarray(~self.packed.T)  # (words, P): not in I(p_j)

    def sums(self, members, candidates):
        """Σg, λ + Σh, Σ|g| (floats) of I(p_a) ∩ ``members``, a in ``candidates``."""
        inside = self.extents[np.ix_(candidates, members)].astype(np.float64)   # (A, m)
        return (inside @ self.g[members], self.lam + inside @ self.h[members],
                inside @ self.abs_g[members])

    def implies(self, words, top):
        """Whether each extent (a row of packed ``words``) lies within I(p_j), for each
        j < ``top``: a (rows, top) boolean array (word by word: one pass per word over
        (rows, top), cheaper than a pass over (rows, top, words))."""
        outside = words[:, 0, None] & self.outside[0, :top]
        for word in range(1, words.shape[1]):
            outside |= words[:, word, None] & self.outside[word, :top]
        return outside == 0

    def samples(self, members):
        """The samples ``members`` as items for :meth:`groups`: each its own group."""
        return members, self.ratio_class[members], self.sample_sums[:, members]

    def groups(self, items, rows, usable):
        """Items grouped as the reference's ``grouped_bound`` groups samples, for several sets
        at once: set r holds the items ``rows == r`` (``rows`` ascending), grouped by the
        propositions ``usable[r]`` (a boolean row over all propositions). An item is a set of
        samples that agree on every proposition in ``usable[r]``: a sample
        (:meth:`samples`) or a group of a coarser grouping (a column of this method's
        result). ``items`` = (a sample of each, ratio class (-1 if mixed), sums: one column
        per item, rows as :data:`_LIMB_ROW` says). Returns the :class:`_Groups` of the R
        sets, each in exact order of G/H descending, float sums within the error of §16,
        exact sums as limbs (sums of the items' limbs, not carried: §16)."""
        representatives, classes, sums = items
        # an item's key: its row and its bits of the propositions usable in its row, among
        # those usable in some row (few, so usually one 64-bit word with the row on top:
        # one stable integer sort instead of a lexicographic one)
        union = np.flatnonzero(usable.any(axis=0))
        row_bits = max(len(usable) - 1, 1).bit_length()
        new_group = np.empty(len(rows), dtype=bool)
        new_group[:1] = True
        if len(union) + row_bits <= 64:
            # bit k for the k-th proposition of the union, made 32 bits at a time by float
            # dot products of bits and powers of 2 (sums of distinct powers below 2**32:
            # exact)
            sample_words, usable_words = np.zeros(self.n, np.uint64), np.zeros(len(usable),
                                                                                np.uint64)
            for low in range(0, len(union), 32):
                chunk, shift = union[low:low + 32], np.uint64(low)
                powers = _POWERS_OF_2[:len(chunk)]
                sample_words |= (powers @ self.extent_floats[chunk]).astype(np.uint64) << shift
                usable_words |= (usable[:, chunk] @ powers).astype(np.uint64) << shift
            keys = sample_words[representatives] & usable_words[rows] | \
                rows.astype(np.uint64) << np.uint64(64 - row_bits)
            by_group = np.argsort(keys, kind="stable")
            keys, rows = keys[by_group], rows[by_group]
            np.not_equal(keys[1:], keys[:-1], out=new_group[1:])
        else:
            if len(representatives) < self.n:          # pack the samples' bits needed only
                words = _packed_rows(self.by_sample[representatives][:, union], row_bits)
            else:                                      # or each sample's once
                words = _packed_rows(self.by_sample[:, union], row_bits)[representatives]
            words &= _packed_rows(usable[:, union], row_bits)[rows]
            by_group = np.lexsort((*words.T, rows))
            words, rows = words[by_group], rows[by_group]
            np.logical_or(rows[1:] != rows[:-1], (words[1:] != words[:-1]).any(axis=1),
                          out=new_group[1:])
        starts = np.flatnonzero(new_group)
        group_of = np.empty(len(rows), np.int64)          # each item's group
        group_of[by_group] = np.cumsum(new_group) - 1
        group_rows = rows[starts]
        representatives = representatives[by_group[starts]]
        # A group of samples with one exact g/h ratio (all its items pure and of one class)
        # is "pure": its ratio is known exactly (its class) and its g terms have one sign, so
        # float sums (sums of the items' sums) have the relative error of §16. Other groups
        # get their Σg's sign exactly and its value within (2·limbs + 3)u from its exact limbs
        # (Σh, of one sign, is a float sum anyway), and G/H from those floats.
        classes = classes[by_group]
        rank = np.minimum.reduceat(classes, starts)
        pure = (rank >= 0) & (rank == np.maximum.reduceat(classes, starts))
        # (a weighted count per group is a sum in item order, one pass without a gather)
        sums = np.array([np.bincount(group_of, weights=row, minlength=len(starts))
                         for row in sums])
        g, h = sums[0], sums[1]                    # views: g's changes below are kept
        ratio = self.ratio[representatives]
        mixed = np.flatnonzero(~pure)
        if len(mixed):
            g[mixed] = self._signed_floats(
                sums[_LIMB_ROW:_LIMB_ROW + self.limb_count, mixed].T)
            ratio[mixed] = g[mixed] / h[mixed]
            rank[mixed] = -1
        # by row, then G/H descending: floats (monotone in the exact ratio for pure groups),
        # then the exact class; only runs of ratios within their errors of each other that
        # hold a mixed group need more
        order = np.lexsort((rank, -ratio, group_rows))
        if len(mixed):
            order = _exact_ratio_order(order, ratio, group_rows, pure, self.relative_error,
                                       lambda groups: self.exact_sums(sums[:, groups]))
        group_rows = group_rows[order]
        counts = np.bincount(group_rows, minlength=len(usable))
        items = representatives[order], rank[order], sums[:, order]
        terms, = _terms(group_rows, counts, _complex(items[2][0], items[2][1]))
        return _Groups(items, np.concatenate(([0], np.cumsum(counts))), self._scan(terms)[0])

    def exact_sums(self, sums):
        """Exact Σg, Σh (scaled by S, Python integers in object arrays) of items' ``sums``
        (from their limbs)."""
        limbs = sums[_LIMB_ROW:].astype(np.int64).astype(object)
        return (limbs.T.reshape(-1, 2, self.limb_count) @ self.limb_values).T

    def exact_bound(self, sums):
        """Thm 3.1's bound, exact (scaled by S, as the reference's), over items given by
        their ``sums`` in exact order of G/H descending: the reference's ``grouped_bound``
        when they are its groups (any order of equal ratios gives the same bound, §3)."""
        total_g, total_h = self.exact_sums(sums)
        return tight_bound(total_g.tolist(), total_h.tolist(), self.exact_lam,
                           range(len(total_g)))

    def exact_objective(self, sums):
        """Scaled obj (as the reference's ``objective``) of the union of items with
        ``sums``."""
        total_g, total_h = self.exact_sums(sums).sum(axis=1, initial=0)
        total_d = self.exact_lam + total_h
        return Fraction(total_g * total_g, total_d) if total_d else Fraction(0)

    def _signed_floats(self, limbs):
        """Sums given as rows of limbs, over S, with their exact sign and within
        (2·limbs + 3)u (specs §16): the float sum of the limbs times their weights, unless
        it is below half the same sum of their magnitudes (cancellation between limbs);
        then, with carries propagated, a sum's sign is its top limb's (or 0 if all are 0),
        and its magnitude's limbs are all ≥ 0, so their float sum has no cancellation."""
        values = limbs @ self.limb_weights
        unsure = np.flatnonzero(2 * np.abs(values) < np.abs(limbs) @ self.limb_weights)
        if len(unsure):
            carried = _carried(limbs[unsure].astype(np.int64))
            sign = np.where(carried[:, -1] != 0, np.sign(carried[:, -1]), carried.any(axis=1))
            negative = sign < 0
            carried[negative] = _carried(-carried[negative])
            values[unsure] = sign * (carried.astype(np.float64) @ self.limb_weights)
        return values

    def children(self, stacked, candidates, owner):
        """Σg, λ + Σh, Σ|g| and Thm 3.1's bound of every child I ∩ I(p_a), a in
        ``candidates``, of the node ``owner`` (its row of ``stacked``: :func:`_terms` of its
        groups' Σg + iΣh and samples) over that node's groups: a child holds whole groups.
        The sums are those of the scan's two halves (each of one sign), so Σg has absolute
        error below ``relative_error``·Σ|g| and the others relative error below it."""
        terms, columns = stacked
        # each node's terms are left-aligned (Σh > 0 in a group, 0 in the padding): children
        # of narrow nodes are scanned over fewer columns, in a few calls
        widths = np.count_nonzero(terms.imag, axis=2).max(axis=1)
        results = np.empty((4, len(candidates)))
        for width, rows in _width_classes(widths[owner]):
            node = owner[rows]
            # a flat take is twice as fast as the equivalent 3-d fancy index, and of booleans
            # (1 byte) faster than of floats; a term times a boolean (1 + 0i or 0) is the term
            # or an exact zero: (a + bi)(1 + 0i) = (a - b·0) + (a·0 + b)i exactly
            inside = self.extents.take(candidates[rows, None, None] * self.n +
                                       columns[:, :, :width][node])
            child = terms[:, :, :width][node]
            child *= inside
            bound, sums_g, sums_h = self._scan(child)
            results[:, rows] = (sums_g[:, 0] + sums_g[:, 1], self.lam + sums_h[:, 0] +
                                sums_h[:, 1], sums_g[:, 0] - sums_g[:, 1], bound)
        return tuple(results)

    def _scan(self, terms):
        """Thm 3.1 per row of (rows, 2, width) group sums ``terms``, Σg + iΣh (the groups
        with g ≥ 0 in order, the negative ones in reverse, each left-aligned): cumulative
        sums per half (terms of one sign, other terms exact zeros: relative error below
        ``relative_error``), the largest G²/(λ + H); and each half's Σg and Σh. The sums are
        complex so that one cumulative sum makes both: a complex sum adds the real parts and
        the imaginary parts, as two float sums would, at the cost of one (numpy's cumulative
        sum is slow per element, not per addition). Overwrites ``terms``."""
        sums = np.cumsum(terms, axis=2, out=terms)
        if not terms.size:                                      # no rows or no terms
            totals = sums.sum(axis=2)
            return np.zeros(len(terms)), totals.real, totals.imag
        totals = sums[:, :, -1]
        # 0/0 (λ = 0, nothing summed yet) is NaN, which fmax passes over
        values = np.square(sums.real)
        np.divide(values, np.add(sums.imag, self.lam), out=values)
        return (np.fmax.reduce(values.reshape(len(values), -1), axis=1, initial=0.0),
                totals.real.copy(), totals.imag.copy())

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
    row order, then G/H descending exactly (a sample of each group, its ratio class or -1 if
    mixed, its sums: a column of rows as :data:`_LIMB_ROW` says), row r's at
    ``offsets[r]:offsets[r + 1]``; ``bounds``: Thm 3.1's bound of each row."""

    __slots__ = ("items", "offsets", "bounds")

    def __init__(self, items, offsets, bounds):
        self.items, self.offsets, self.bounds = items, offsets, bounds

    @staticmethod
    def flat_items(rows):
        """The items of rows (a :class:`_Groups`, a row of it), flat, and each row's count."""
        ranges = [(groups.items, groups.offsets[r], groups.offsets[r + 1]) for groups, r in rows]
        return (tuple(np.concatenate([items[field][..., low:high] for items, low, high in ranges],
                                     axis=-1) for field in range(len(ranges[0][0]))),
                np.array([high - low for _, low, high in ranges]))


#: What a scan call costs beyond its cells, in cells (a cell: one column of one row).
_CALL_CELLS = 3000


def _width_classes(widths):
    """Rows of a scan split by their widths (the columns each needs) into classes that cost
    least in cells plus :data:`_CALL_CELLS` a class, each scanned at its widest: pairs (width,
    rows), rows a slice or an index array, by dynamic programming over the distinct widths
    (few). A padded column repeats a row's last partial sums, so any width at least a row's
    gives it the same values."""
    counts = np.bincount(widths)
    levels = np.flatnonzero(counts)
    if len(levels) < 2:
        return [(int(levels.max(initial=0)), slice(None))]
    below = np.concatenate(([0], np.cumsum(counts[levels]))).tolist()  # rows of first k widths
    levels = levels.tolist()
    # cost[j]: the least cost of the rows of the first j widths, the last class from cut[j]
    # (the smallest such cut on a tie)
    cost, cut = [0] * (len(levels) + 1), [0] * (len(levels) + 1)
    for j in range(1, len(levels) + 1):
        level, rows = levels[j - 1], below[j]
        least, least_cut = math.inf, 0
        for i in range(j):
            candidate = cost[i] + (rows - below[i]) * level
            if candidate < least:
                least, least_cut = candidate, i
        cost[j], cut[j] = least + _CALL_CELLS, least_cut
    classes, j = [], len(levels)
    while j:
        i = cut[j]
        rows = slice(None) if i == 0 and j == len(levels) else \
            np.flatnonzero((widths > levels[i - 1] if i else True) & (widths <= levels[j - 1]))
        classes.append((levels[j - 1], rows))
        j = i
    return classes


def _complex(real, imaginary):
    """real + i·imaginary, exactly (without a product)."""
    values = np.empty(len(real), np.complex128)
    values.real, values.imag = real, imaginary
    return values


def _terms(group_rows, counts, *values):
    """Thm 3.1's terms of groups given flat by row (``group_rows``, ascending; ``counts``
    per row), then G/H descending, with ``values[0]`` their float Σg + iΣh: for each of
    ``values`` (one per group), a (rows, 2, width) array for :meth:`_Floats._scan`, the
    groups with g ≥ 0 in order in half 0 (those with g = 0, last, only lower G²/D), the
    negative ones in reverse in half 1, left-aligned; a row is as wide as its longer half,
    other entries zeros. (A float Σg has its exact sign, §16.)"""
    negative = values[0].real < 0
    negatives = np.bincount(group_rows[negative], minlength=len(counts))
    width = np.maximum(negatives, counts - negatives).max(initial=0)
    column = np.arange(len(group_rows)) - (np.cumsum(counts) - counts)[group_rows]
    # each group's place in the flat (rows, 2, width) arrays
    place = (group_rows * 2 + negative) * width + \
        np.where(negative, counts[group_rows] - 1 - column, column)
    terms = []
    for value in values:
        term = np.zeros((len(counts), 2, width), value.dtype)
        term.ravel()[place] = value
        terms.append(term)
    return terms


def _exact_ratio_order(order, ratios, rows, pure, error, exact):
    """``order`` (groups by row, then float G/H descending, then exact ratio class for
    ``pure`` groups) made exact, given that each exact ratio is within ``error`` times the
    float's magnitude of its float, which is correctly rounded for a pure group. Two groups
    can be out of exact order only if their ratios' error intervals overlap, and then so do
    those of every adjacent pair between them (the intervals' ends are monotone in the
    ratio): only a run of adjacent overlapping pairs can be out of order. Two pure groups are
    in exact order (the rounding is monotone, then the class decides), so the adjacent pairs
    of a run with a mixed group are compared exactly (cross-multiplication of
    ``exact(groups)`` = (G, H), object arrays); a run all of whose pairs are in order is
    sorted, any other is sorted exactly. The order among exactly equal ratios is free
    (specs §3)."""
    sorted_ratios, sorted_rows = ratios[order], rows[order]
    reach = np.abs(sorted_ratios) * error
    close = np.flatnonzero((sorted_ratios[:-1] - reach[:-1] <= sorted_ratios[1:] + reach[1:]) &
                           (sorted_rows[1:] == sorted_rows[:-1]))
    doubtful = close[~(pure[order[close]] & pure[order[close + 1]])]
    if not len(doubtful):
        return order
    total_g, total_h = exact(np.concatenate((order[doubtful], order[doubtful + 1])))
    left, right = slice(len(doubtful)), slice(len(doubtful), None)
    misordered = total_g[left] * total_h[right] < total_g[right] * total_h[left]
    if not misordered.any():
        return order
    bad = doubtful[misordered]                   # pairs (p, p + 1) out of exact order
    # the runs of adjacent close pairs (their first and last in close) that hold a bad one
    firsts = np.flatnonzero(np.diff(close, prepend=-2) > 1)
    lasts = np.append(firsts[1:], len(close)) - 1
    order = order.copy()
    for run in np.unique(np.searchsorted(firsts, np.searchsorted(close, bad),
                                         side="right") - 1).tolist():
        low, high = close[firsts[run]], close[lasts[run]] + 2
        total_g, total_h = exact(order[low:high])
        position = sorted(range(high - low), key=functools.cmp_to_key(
            lambda x, y: total_h[x] * total_g[y] - total_g[x] * total_h[y]))   # G/H down
        order[low:high] = order[low:high][position]
    return order


class _BatchSize:
    """How many open nodes are evaluated together at most (:meth:`_Search._evaluate`): the one
    expanded and those next in the queue's order among its first ``2 * size`` (array
    operations cost much per call). An evaluation made ahead is wasted when its node is never
    expanded with it (pruned, or the incumbent rose): the size starts at 10 and, every 64
    expansions, grows by half (up to 40) when at least 90% of the nodes evaluated ahead in
    that window were expanded with their evaluation, and shrinks by a third (down to 10)
    when fewer than 80% were. It changes only which evaluations are made, never a decision
    (specs §16)."""

    SMALLEST, LARGEST, WINDOW = 10, 40, 64

    def __init__(self):
        self.size = self.SMALLEST
        self.expansions = self.ahead = self.used = 0

    def evaluated_ahead(self, count):
        """``count`` nodes were evaluated ahead of their expansion."""
        self.ahead += count

    def expanded(self, with_evaluation_ahead):
        """A node was expanded, with an evaluation made ahead or not."""
        self.used += with_evaluation_ahead
        self.expansions += 1
        if self.expansions == self.WINDOW:
            if self.ahead and self.used >= 0.9 * self.ahead:
                self.size = min(self.size * 3 // 2, self.LARGEST)
            elif self.used < 0.8 * self.ahead:
                self.size = max(self.size * 2 // 3, self.SMALLEST)
            self.expansions = self.ahead = self.used = 0


class _Batch:
    """Open nodes (``nodes``) evaluated together at the incumbent ``best``
    (:meth:`_Search._evaluate`): their lists as flat arrays (node i's at
    ``starts[i]:starts[i + 1]``, ``owner``), the elements line 9 passes then (``positions``,
    ``worth``), the children evaluated then (``rows``, in ``positions`` order, ``row_of``
    a position's row) with their objectives and bounds, every node's groups flat
    (``items``, node i's at ``item_index[i][item_valid[i]]``), and ``refined``, lines 12-16
    for those rows."""


class _Refined:
    """Lines 12-16's array work for some evaluated children (:meth:`_Search._refine`)."""


class _Node:
    """An open node: its query, packed extent, the propositions the queries below it may add,
    its float bound over the groups they make, its queue key and those groups; its
    augmentations (a, b, c) as arrays (b floats, inf for none yet), whose bounds were computed
    on its parent's extent and groups; exact bounds once some comparison needed them (its
    augmentations': shared with its siblings, whose lists are the same); the batch
    (:class:`_Batch`, its index there) it was evaluated in ahead of its expansion."""

    __slots__ = ("query", "words", "bound", "key", "augment", "bounds", "critical",
                 "parent_words", "usable", "parent_usable", "groups", "exact_bound",
                 "exact_bounds", "batch")

    def __init__(self, query, words, bound, key, augment, bounds, critical, parent_words,
                 usable, parent_usable, groups):
        self.query = query
        self.usable = usable               # the propositions below it (boolean, specs §3)
        self.parent_usable = parent_usable
        self.groups = groups     # its samples grouped by ``usable``: (a _Groups, its row)
        self.words = words
        self.bound = bound
        self.key = key
        self.augment = augment
        self.bounds = bounds
        self.critical = critical
        self.parent_words = parent_words
        self.exact_bound = None
        self.exact_bounds = {}             # augmentation a -> its exact bound
        self.batch = None

    @property
    def tail(self):
        return self.query[-1] if self.query else -1

    @property
    def priority(self):
        """Its place in the boundary's order, smallest first (without the insertion order)."""
        return -self.key


class _Search:
    """Algorithm 1 of the reference engine, with float decisions where they are certain."""

    def __init__(self, problem, config, prepared=None):
        self.problem, self.config = problem, config
        self.data, self.floats = prepared or self.prepare(problem)
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
        self.batch_size = _BatchSize()
        self.trace = config.certificate     # the search certificate's writer, or None

    @staticmethod
    def prepare(problem):
        """The problem ranked (exact) and in floats, as a search of it needs them: one
        search's may serve the next (they are only read)."""
        data = _RankedArrays(problem)
        return data, _Floats(problem, data, data.packed)

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
        return self._exact_worth(self._exact_bound(node), node.query)

    def _worth(self, bounds, exact_bound, origin):
        """Line 9's test (the reference's ``worth``) for float bounds (inf: no bound yet),
        each decided by floats when certain (obj(q*) and α·b surely differ), else exactly
        (``exact_bound(i)`` gives bound i exactly, ``origin(i)`` its origin, specs §5)."""
        if not self.config.bound_pruning:
            return np.ones(len(bounds), dtype=bool)
        worth = bounds * self.alpha_low > self.best_high
        for i in np.flatnonzero((bounds * self.alpha_high >= self.best_low) & ~worth):
            worth[i] = self._exact_worth(exact_bound(i), origin(i))
        return worth

    def _exact_worth(self, bound, origin):
        """obj(q*) < α·b, or equal and ``origin`` comes before q* (specs §5, §10)."""
        scaled = self.alpha * bound
        return self.best < scaled or self.best == scaled and \
            result_order(origin) < result_order(self.best_query)

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
        self._push(self.root())
        stop = self.search(self.config.max_nodes, self.config.budget, self.config.progress)
        return self.result(stop, start)

    def root(self):
        """The root ⊤ with its list (line 4: every proposition, b = ∞), bound (line 5) and
        groups."""
        n_propositions, n = len(self.data.extents), self.problem.n_samples
        everything = bitset.from_int((1 << n) - 1, n)
        usable = np.ones(n_propositions, dtype=bool)
        floats = self.floats
        groups = floats.groups(floats.samples(np.arange(n)), np.zeros(n, np.int64),
                               usable[None])
        exact_root_bound = lambda _: floats.exact_bound(groups.items[2])
        return _Node((), everything, float(groups.bounds[0]),
                     int(self._keys(groups.bounds, exact_root_bound)[0]),
                     np.arange(n_propositions), np.full(n_propositions, np.inf),
                     np.arange(n_propositions), everything, usable, usable, (groups, 0))

    def group(self, *nodes):
        """Group each node's samples by its usable propositions, afresh and in one grouping
        (a node made by :meth:`_refine` gets its groups from its parent's)."""
        members = [np.flatnonzero(bitset.unpack(node.words, self.floats.n)) for node in nodes]
        rows = np.repeat(np.arange(len(nodes)), [len(held) for held in members])
        groups = self.floats.groups(self.floats.samples(np.concatenate(members)), rows,
                                    np.stack([node.usable for node in nodes]))
        for i, node in enumerate(nodes):
            node.groups = groups, i

    def search(self, max_nodes, budget, progress):
        """Lines 6-16 until the boundary is empty (None) or ``max_nodes`` expansions or the
        ``budget`` stop it (the stop status); ``progress(nodes, describe)`` after each node."""
        statistics = self.statistics
        stop = None
        while self.heap:
            stop = "node-limit" if max_nodes is not None and \
                statistics["nodes"] >= max_nodes else budget.stop_reason()
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
            if progress is not None:
                progress(statistics["nodes"], self._progress_figures)
        return stop

    def result(self, stop, start, open_nodes=None):
        """The search's result (stopped with status ``stop``, or finished if None), begun at
        ``start``; the upper bound of a stopped search covers ``open_nodes`` (by default, its
        boundary)."""
        if open_nodes is None:
            open_nodes = [entry[2] for entry in self.heap]
        upper = self.best / self.alpha if stop is None else max(
            [self.best / self.alpha] + ([self._open_bound(open_nodes)] if open_nodes else []))
        status = stop or ("optimal" if self.alpha == 1 else "approximate")
        shortest = shortest_equivalent_query(self.data, self.best_extent, self.best_query)
        return _result(self.problem, self.data, shortest, self.best_extent, self.best, upper,
                       status, self.statistics, time.perf_counter() - start)

    def _push(self, node):
        heapq.heappush(self.heap, (-node.key, next(self.sequence), node))

    def _open_bound(self, nodes):
        """The largest exact bound of the open nodes ``nodes`` (for a stopped search)."""
        top = max(node.bound for node in nodes)
        return max(self._exact_bound(node) for node in nodes
                   if node.bound >= top * (1 - 2 * self.margin))

    def _improve(self, query, words, objective):
        """Line 11: the query ``query`` with extent ``words`` (packed) and exact obj
        ``objective`` becomes q*."""
        self._set_best(objective)
        self.best_query, self.best_extent = query, bitset.to_int(words)

    def _expand(self, node):
        """Lines 8-16 for ``node``: its batch's evaluation (a fresh one unless it holds at the
        current incumbent), line 9 and line 11 in order, then lines 12-16 as the batch made
        them, or afresh if the incumbent rose meanwhile."""
        statistics, floats = self.statistics, self.floats
        ahead = self._evaluated(node)
        self.batch_size.expanded(ahead)
        if not ahead:
            near = self._near_top(self.batch_size.size)
            self.batch_size.evaluated_ahead(len(near))
            self._evaluate([node] + near)
        batch, i = node.batch
        node.batch = node.groups = None     # not needed again: free them
        query = node.query
        note = _Notes(self.trace, len(floats.packed))
        propagated, reached, failed, evaluations = batch.tallies[i]
        statistics["equivalence_propagated"] += propagated
        if note.active:
            low, high = batch.starts[i], batch.starts[i + 1]
            for p in np.flatnonzero(batch.propagated[low:high]).tolist():
                note(int(node.augment[p]), "core-propagated", witness=int(node.critical[p]))
        positions = batch.positions[batch.position_starts[i]:batch.position_starts[i + 1]]
        evaluated = []                                              # rows, in order
        cursor = 0                       # positions[cursor:] not decided yet
        if not note.active and batch.highest[i] < self.best_low:
            # line 11 surely fails for every child (as in _improves): the incumbent stays,
            # so line 9's tests are the batch's, and they are counted at once
            statistics["bound_propagated"] += failed
            statistics["equivalence_immediate"] += reached - failed - evaluations
            statistics["evaluations"] += evaluations
            cursor = len(positions)
        else:
            worth = batch.worth[batch.position_starts[i]:batch.position_starts[i + 1]]
        while cursor < len(positions):
            rest = positions[cursor:]
            if cursor:                   # the incumbent improved: line 9's test again
                worth = self._worth(batch.bounds[rest],
                                    lambda j: self._augmentation_bound(batch, rest[j]),
                                    lambda j: self._augmentation_origin(batch, rest[j]))
            improved_at = None
            for j, p in enumerate(rest.tolist()):
                if not worth[j]:
                    statistics["bound_propagated"] += 1
                    note(int(batch.augment[p]), "bound-propagated")
                    continue
                if batch.implied[p]:
                    statistics["equivalence_immediate"] += 1       # q → p_a: same extent
                    note(int(batch.augment[p]), "implied")
                    continue
                statistics["evaluations"] += 1
                row = batch.row_of[p]
                evaluated.append(row)
                child = query + (int(batch.augment[p]),)
                if self._improves(batch, row, child):                      # line 11
                    self._improve(child, batch.child_words[row],
                                  self._child_sums(batch, row, self.floats.exact_objective))
                    improved_at = j
                    break
            cursor = len(positions) if improved_at is None else cursor + improved_at + 1
        refined = batch.refined if self._holds(batch, i) else \
            self._refine(batch, np.array(evaluated, dtype=np.int64))
        self._queue(node, i, refined, note)
        if note.active:
            self.trace.expanded(query, _bitmask(node.usable), self._exact_bound(node),
                                note.codes, note.witnesses, note.own)

    def _evaluated(self, node):
        """Whether ``node`` has an evaluation that holds at the current incumbent."""
        return node.batch is not None and self._holds(*node.batch)

    def _holds(self, batch, i):
        """Whether ``batch``'s evaluation of its node i holds at the current incumbent: it
        was made at it, or at a lower one and every bound that passed a test there (line 9,
        line 15, own bounds) surely passes it now (tests that failed fail still: the
        incumbent only rises), so that every test comes out the same (specs §16)."""
        return batch.best is self.best or not self.config.bound_pruning or \
            batch.least_passed[i] * self.alpha_low > self.best_high

    def _near_top(self, size):
        """Open nodes likely to be expanded soon: up to ``size - 1`` of the first
        ``2 * size`` in the queue's order without an evaluation that holds at the current
        incumbent, whose bound surely passes line 9. (The heap's array is in that order only at
        its top, so its first entries are found by walking down from there, always to the
        least entry below those taken: a heap of heap positions.)"""
        heap, near, seen = self.heap, [], 0
        frontier = [(heap[0], 0)] if heap else []
        while frontier and len(near) < size - 1 and seen < 2 * size:
            entry, position = heapq.heappop(frontier)
            seen += 1
            node = entry[2]
            if not self._evaluated(node) and (not self.config.bound_pruning or
                                              node.bound * self.alpha_low > self.best_high):
                near.append(node)
            for below in (2 * position + 1, 2 * position + 2):
                if below < len(heap):
                    heapq.heappush(frontier, (heap[below], below))
        return near

    def _evaluate(self, nodes):
        """The array work of lines 9-16 for ``nodes`` at once, at the current incumbent: each
        node's children that pass line 9 now (a superset of those it evaluates: the incumbent
        only grows), their objectives and augmentation bounds, and lines 12-16 for them as if
        the incumbent stays put until the node is done (:meth:`_refine`). Each node gets the
        :class:`_Batch`."""
        floats = self.floats
        batch = _Batch()
        batch.best, batch.nodes = self.best, nodes
        sizes = [len(node.augment) for node in nodes]
        batch.starts = np.concatenate(([0], np.cumsum(sizes)))
        batch.owner = owner = np.repeat(np.arange(len(nodes)), sizes)
        augment = batch.augment = np.concatenate([node.augment for node in nodes])
        batch.bounds = np.concatenate([node.bounds for node in nodes])
        batch.critical = np.concatenate([node.critical for node in nodes])
        tails = np.array([node.tail for node in nodes])[owner]
        words = np.stack([node.words for node in nodes])
        batch.implied_by_node = floats.implies(words, len(floats.packed))     # q → p_j
        live = augment > tails
        batch.propagated = live & (tails > batch.critical) if self.use_core_queries else \
            np.zeros(len(augment), bool)                                         # (3.8)
        batch.implied = batch.implied_by_node[owner, augment] if self.use_implied else \
            np.zeros(len(augment), bool)
        positions = batch.positions = np.flatnonzero(live & ~batch.propagated)
        batch.position_starts = np.searchsorted(positions, batch.starts)
        batch.worth = self._worth(batch.bounds[positions],
                                  lambda j: self._augmentation_bound(batch, positions[j]),
                                  lambda j: self._augmentation_origin(batch, positions[j]))
        rows = batch.rows = positions[batch.worth & ~batch.implied[positions]]
        batch.row_of = dict(zip(rows.tolist(), range(len(rows))))
        batch.row_owner, batch.candidates = owner[rows], augment[rows]
        # every node's groups, flat, for its children's sums and bounds and their groups
        batch.items, widths = _Groups.flat_items([node.groups for node in nodes])
        total_g, total_d, total_abs, batch.child_bounds = floats.children(
            _terms(np.repeat(np.arange(len(nodes)), widths), widths,
                   _complex(batch.items[2][0], batch.items[2][1]), batch.items[0]),
            batch.candidates, batch.row_owner)
        batch.values, batch.errors = floats.objectives(total_g, total_d, total_abs)
        # per node, what its expansion counts if line 11 fails for all its children (surely
        # so when the largest float obj + error is below the incumbent, as in _improves):
        # list elements (3.8) drops, that line 9 reaches and fails, children evaluated
        batch.tallies = list(zip(*(_tally(selected, len(nodes)) for selected in (
            owner[batch.propagated], owner[positions], owner[positions[~batch.worth]],
            batch.row_owner))))
        highest = np.full(len(nodes), -np.inf)
        np.maximum.at(highest, batch.row_owner, batch.values + batch.errors)
        batch.highest = highest.tolist()
        batch.child_words = words[batch.row_owner] & floats.packed[batch.candidates]
        starts = np.concatenate(([0], np.cumsum(widths)))
        batch.item_index = starts[:-1, None] + np.arange(widths.max())   # node i's items
        batch.item_valid = batch.item_index < starts[1:, None]
        np.minimum(batch.item_index, len(batch.items[0]) - 1, out=batch.item_index)
        refined = batch.refined = self._refine(batch, np.arange(len(rows)))
        # each node's least bound that passed a test (line 9, line 15, own bound), for
        # _evaluated
        least = np.full(len(nodes), np.inf)
        passed = positions[batch.worth]
        np.minimum.at(least, owner[passed], batch.bounds[passed])
        np.minimum.at(least, batch.row_owner[refined.worth], batch.child_bounds[refined.worth])
        if len(refined.kept):
            pushed = refined.own_worth
            np.minimum.at(least, batch.row_owner[refined.kept[pushed]],
                          refined.groups.bounds[pushed])
        batch.least_passed = least.tolist()
        for i, node in enumerate(nodes):
            node.batch = (batch, i)

    def _augmentation_bound(self, batch, position):
        """The exact augmentation bound of ``batch``'s list element ``position``."""
        i = int(batch.owner[position])
        return self._exact_augmentation_bound(batch.nodes[i], position - batch.starts[i])

    def _augmentation_origin(self, batch, position):
        """The origin (specs §5) of ``batch``'s list element ``position``: the query of its
        node's parent and the element's proposition."""
        return batch.nodes[int(batch.owner[position])].query[:-1] + \
            (int(batch.augment[position]),)

    def _child_sums(self, batch, row, exact):
        """``exact`` (:meth:`_Floats.exact_bound` or :meth:`_Floats.exact_objective`) of
        the evaluated child ``row`` of ``batch``: of its node's groups (in exact order)
        inside it, which are its groups by the node's usable propositions (specs §3)."""
        i, a = batch.row_owner[row], batch.candidates[row]
        items = batch.item_index[i][batch.item_valid[i]]
        return exact(batch.items[2][:, items[self.floats.extents[a, batch.items[0][items]]]])

    def _improves(self, batch, row, child):
        """Whether the child ``row`` of ``batch``, the query ``child``, replaces q* (line 11:
        a larger obj, or an equal one and ``child`` first in the result order), by floats when
        certain, else exactly."""
        value, error = batch.values[row], batch.errors[row]
        best, margin = self.best_float, self.margin
        if value - error > best * (1 + margin):
            return True
        if value + error < best * (1 - margin):
            return False
        exact = self._child_sums(batch, row, self.floats.exact_objective)
        return exact > self.best or exact == self.best and \
            result_order(child) < result_order(self.best_query)

    def _refine(self, batch, rows):
        """Lines 12-16's array work, at the current incumbent, for the evaluated children
        ``rows`` of ``batch`` (ascending, so by node): critical indices, line 15's tests, and
        for the children that pass them the propositions below them and their own bounds and
        keys (specs §3), from their nodes' groups in one grouping. Returns a
        :class:`_Refined`; :meth:`_queue` counts and pushes."""
        floats, nodes = self.floats, batch.nodes
        refined = _Refined()
        augment = refined.augment = batch.candidates[rows]
        owner = batch.row_owner[rows]
        child_words = refined.child_words = batch.child_words[rows]
        bounds = refined.bounds = batch.child_bounds[rows]
        critical = refined.critical = augment.copy()
        if self.use_core_queries:
            inherited = batch.critical[batch.rows[rows]]
            shortcut = (inherited < augment) & ~batch.implied_by_node[owner, inherited]
            critical[shortcut] = inherited[shortcut]                # line 13, (3.7)
            scanned = np.flatnonzero(~shortcut)
            top = augment[scanned].max(initial=0)      # only j < top can be witnesses
            if top:
                # crt(q p_a) = min{j < a : q p_a → p_j and q ↛ p_j}, else a
                implies = floats.implies(child_words[scanned], top)
                witnesses = implies & ~batch.implied_by_node[owner[scanned], :top] & \
                    (np.arange(top) < augment[scanned, None])
                found = witnesses.any(axis=1)
                critical[scanned[found]] = witnesses[found].argmax(axis=1)
        origin = lambda k: nodes[owner[k]].query + (int(augment[k]),)
        worth = refined.worth = self._worth(bounds, lambda k: self._child_sums(
            batch, rows[k], floats.exact_bound), origin)
        refined.core = augment == critical
        refined.node_starts = np.searchsorted(owner, np.arange(len(nodes) + 1))
        kept = refined.core & worth
        if self.config.max_depth is not None:
            depth = np.array([len(node.query) for node in nodes])
            kept &= depth[owner] + 1 < self.config.max_depth
        kept = refined.kept = np.flatnonzero(kept)                  # line 16, in order
        # per node: children not core, core ones (line 15), those failing line 9 then
        core = refined.core
        refined.tallies = list(zip(*(_tally(owner[selected], len(nodes)) for selected in (
            ~core, core, core & ~worth))))
        refined.own_failed = [0] * len(nodes)
        refined.pushed, refined.pushed_starts = [], [0] * (len(nodes) + 1)
        if not len(kept):
            return refined
        # each child's own bound over the propositions below it (specs §3), all at once:
        # its node's list elements after it that pass (3.8) and line 9 now
        first, last = refined.node_starts[owner[kept]], refined.node_starts[owner[kept] + 1]
        siblings = first[:, None] + np.arange((last - first).max())
        below = (siblings < last[:, None]) & worth[np.minimum(siblings, len(rows) - 1)]
        np.minimum(siblings, len(rows) - 1, out=siblings)
        below &= augment[siblings] > augment[kept, None]
        if self.use_core_queries:
            below &= critical[siblings] >= augment[kept, None]
        usable_below = refined.usable_below = np.zeros((len(kept), len(floats.packed)), bool)
        # (flat positions: a 2-d nonzero costs three times as much)
        cells = np.flatnonzero(below)
        usable_below[cells // below.shape[1], augment[siblings.ravel()[cells]]] = True
        # a child's groups are unions of its node's groups (its usable set is a subset of
        # the node's), so they are made from those
        index = batch.item_index[owner[kept]]
        inside = floats.extents.take(augment[kept, None] * floats.n +
                                     batch.items[0][index]) & batch.item_valid[owner[kept]]
        cells = np.flatnonzero(inside)
        index = index.ravel()[cells]
        groups = refined.groups = floats.groups(tuple(values.take(index, axis=-1)
                                                      for values in batch.items),
                                                cells // inside.shape[1], usable_below)
        own = groups.bounds
        exact = refined.exact = {}
        own_exact = lambda j: exact.setdefault(j, floats.exact_bound(
            groups.items[2][:, groups.offsets[j]:groups.offsets[j + 1]]))
        own_worth = refined.own_worth = self._worth(own, own_exact,
                                                    lambda j: origin(kept[j]))
        pushed = np.flatnonzero(own_worth)
        refined.own_failed = _tally(owner[kept[~own_worth]], len(nodes))
        refined.pushed_starts = np.searchsorted(owner[kept[pushed]],
                                                np.arange(len(nodes) + 1)).tolist()
        # each child pushed: (its index in kept, a, its float bound, its key)
        refined.pushed = list(zip(pushed.tolist(), augment[kept[pushed]].tolist(),
                                  own[pushed].tolist(),
                                  self._keys(own[pushed],
                                             lambda j: own_exact(pushed[j])).tolist()))
        return refined

    def _queue(self, node, i, refined, note):
        """Lines 15-16 for node i of ``refined``: the counters of its children's fates (noted
        in ``note``, the search certificate's) and the children queued."""
        statistics, config = self.statistics, self.config
        low, high = refined.node_starts[i], refined.node_starts[i + 1]
        augment, critical = refined.augment[low:high], refined.critical[low:high]
        not_core, core, child_bound = refined.tallies[i]
        statistics["equivalence_immediate"] += not_core                       # (3.6)
        limited = config.max_depth is not None and len(node.query) + 1 >= config.max_depth
        if limited:
            statistics["depth_limited"] += core
        else:
            statistics["bound_immediate"] += child_bound + refined.own_failed[i]
        if note.active:
            self._note_children(refined, low, high, not limited, note)
        bounds = refined.bounds[low:high]
        exact_bounds = {}           # of the children's list, on this node's extent: shared
        for j, a, bound, key in refined.pushed[refined.pushed_starts[i]:
                                               refined.pushed_starts[i + 1]]:
            child = _Node(node.query + (a,), refined.child_words[refined.kept[j]], bound, key,
                          augment, bounds, critical, node.words, refined.usable_below[j],
                          node.usable, (refined.groups, j))
            child.exact_bound = refined.exact.get(j)
            child.exact_bounds = exact_bounds
            self._push(child)
            note(a, "queued")

    @staticmethod
    def _note_children(refined, low, high, line_16, note):
        """The search certificate's codes of the children ``low:high`` of ``refined`` that
        are not queued: not core, then (if ``line_16``) failing line 9 or their own bound."""
        augment, critical = refined.augment.tolist(), refined.critical.tolist()
        core, worth = refined.core, refined.worth
        for k in range(low, high):
            if not core[k]:
                note(augment[k], "not-core", witness=critical[k])
            elif line_16 and not worth[k]:
                note(augment[k], "child-bound")
        if line_16:
            for j in range(*np.searchsorted(refined.kept, (low, high)).tolist()):
                if not refined.own_worth[j]:
                    note(augment[refined.kept[j]], "own-bound",
                         usable=_bitmask(refined.usable_below[j]))

    def _progress_figures(self):
        unit = 2 * self.problem.n_samples
        top = max([entry[2].bound for entry in self.heap[:1]] + [self.best_float])
        return {"objective": self.best_float / unit, "upper_bound": top / unit,
                "boundary": len(self.heap)}


def _tally(owners, count):
    """How many of the elements with owners ``owners`` each of ``count`` owners has (a
    list)."""
    return np.bincount(owners, minlength=count).tolist()


def _carried(limbs):
    """Rows of 32-bit limbs (int64) with carries propagated: the same values, every limb but
    the top in [0, 2**32) (a new array)."""
    limbs = limbs.copy()
    for k in range(limbs.shape[1] - 1):
        limbs[:, k + 1] += limbs[:, k] >> 32            # floor: the carry, of either sign
        limbs[:, k] &= _LIMB_MASK
    return limbs


def _packed_rows(bits, spare=0):
    """The rows of a boolean matrix packed into 64-bit words, column j at bit j % 64 of word
    j // 64, zero-padded: equal rows give equal words. With ``spare`` > 0, the top ``spare``
    bits of the last word are left zero (a new word is begun rather than use them)."""
    width = bits.shape[1] + spare
    packed = np.packbits(bits, axis=1, bitorder="little")
    padded = np.zeros((len(bits), -(-width // 64) * 8), dtype=np.uint8)
    padded[:, :packed.shape[1]] = packed
    return padded.view("<u8")                  # little-endian: byte k holds bits 8k..8k+7


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
#: not 0) and α within [2**-_RANGE, 2**_RANGE], the scale S at most 2**_SCALE_RANGE (floats in
#: the range have S ≤ 2**252), at most 2**20 samples. A nonzero exact sum over S that cancels
#: is then ≥ 1/S, an objective or bound ≥ 1/(S²·2**221), and u·α times it ≥ 2**-1022: no sum,
#: square, quotient or error term overflows or leaves the normal range (§16); elsewhere the
#: reference engine runs.
_RANGE, _SCALE_RANGE = 200, 274


def _floats_are_safe(problem, alpha):
    """Whether ``problem`` and α lie in the float range of :data:`_RANGE` (exact integer tests
    on the scaled values: |v|/S ≥ 2**-R iff |v|·2**R ≥ S)."""
    scale = problem.scale
    values = [abs(v) for v in problem.g if v] + list(problem.h) + \
        ([problem.lam] if problem.lam else [])
    return problem.n_samples <= 1 << 20 and scale <= 1 << _SCALE_RANGE and \
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
