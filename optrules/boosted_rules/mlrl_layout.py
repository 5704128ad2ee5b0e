"""How mlrl-boomer 0.12.3 lays out its features, for ``mlrl_compatible=True``.

Two choices of mlrl-boomer's C++ library decide the order of its sums, hence the last bits of
its qualities and the winner of a near tie, and the C++ standard leaves both to the
implementation; mlrl-boomer's Linux wheels use GCC's libstdc++, which this module replays.

* **Numerical features** (``feature_type_numerical_common.hpp``): the examples with a value
  are sorted by value with ``std::sort``, which is not stable: examples of equal value come in
  the order libstdc++'s introsort leaves them (:func:`std_sort_order`).
* **Nominal features** (``feature_type_nominal_common.hpp``, ``feature_type_nominal.cpp``):
  the values, truncated to int32, are counted in a ``std::unordered_map<int32, ...>`` filled
  in example order, and the search visits them in the map's iteration order
  (:func:`unordered_map_order`). The value counted most often (the first such in that
  order), the *majority value*, takes the place that the value 0 has in the sparsity-aware
  search (Rapp et al. 2023, §3.3.2): its examples are never summed. A feature with exactly
  two values is a binary vector: the less frequent value (the first in map order on a tie)
  is searched, the other is the majority value.
* **Missing values** (``feature_vector_decorator.hpp``): each feature's examples without a
  value are a ``std::unordered_set<uint32>``; a rule subtracts their statistics from its sums
  in that set's order (:class:`MissingOrder`).

``tests/data/libstdcxx_orders.json`` holds orders observed with libstdc++ 12 (GCC 12.2).
"""

from typing import NamedTuple

import numpy as np

__all__ = ["std_sort_order", "NominalLayout", "nominal_layout", "unordered_map_order",
           "closes_feature", "keeps_vector", "MissingOrder"]

#: libstdc++'s bucket counts as a ``std::unordered_map`` grows (``_Prime_rehash_policy``, load
#: factor 1): 13 buckets from the first element on, the next count once an element would exceed
#: the current one.
BUCKET_COUNTS = (13, 29, 59, 127, 257, 541, 1109, 2357, 5087, 10273, 20753, 42043, 85229,
                 172933, 351061, 712697, 1447153, 2938679, 5967347, 12117689, 24607243,
                 49969847, 101473717, 206062531, 418451333, 849749479, 1725587117, 3504151727,
                 8589934583)

_SORT_THRESHOLD = 16            # libstdc++'s _S_threshold: shorter runs are insertion-sorted


def std_sort_order(values):
    """The examples of a column with a value (not NaN), in the order libstdc++'s ``std::sort``
    leaves them when it sorts (example, value) pairs, given in example order, by value.

    libstdc++'s introsort: quicksort with the median of three as pivot while a run is longer
    than 16 (heapsort once 2·⌊log2 n⌋ levels deep), then one insertion sort over all. Only
    equal values can come out in another order than a stable sort's, so a column without
    equal values is sorted by :func:`numpy.argsort` instead.

    Examples
    --------
    >>> column = np.array([1.0] * 20 + [0.0] * 3, dtype=np.float32)
    >>> std_sort_order(column)[:3].tolist(), std_sort_order(column)[3:6].tolist()
    ([22, 21, 20], [11, 19, 18])
    """
    examples = np.flatnonzero(~np.isnan(values))
    order = examples[np.argsort(values[examples], kind="stable")]
    if not (values[order[1:]] == values[order[:-1]]).any():
        return order
    keys = values[examples].tolist()
    items = examples.tolist()
    _introsort(keys, items, 0, len(keys), 2 * (len(keys).bit_length() - 1))
    _insertion_sort(keys, items, 0, len(keys))
    return np.array(items, dtype=np.int64)


def _introsort(keys, items, first, last, depth):
    """std::__introsort_loop: ``keys`` sorted in place with ``items`` alongside."""
    while last - first > _SORT_THRESHOLD:
        if depth == 0:
            _heapsort(keys, items, first, last)
            return
        depth -= 1
        cut = _partition_around_median(keys, items, first, last)
        _introsort(keys, items, cut, last, depth)
        last = cut


def _swap(keys, items, i, j):
    keys[i], keys[j] = keys[j], keys[i]
    items[i], items[j] = items[j], items[i]


def _partition_around_median(keys, items, first, last):
    """std::__unguarded_partition_pivot: the median of the second, middle and last elements
    moves to the front, then the rest is partitioned around it."""
    a, b, c = first + 1, first + (last - first) // 2, last - 1
    if keys[a] < keys[b]:
        median = b if keys[b] < keys[c] else c if keys[a] < keys[c] else a
    else:
        median = a if keys[a] < keys[c] else c if keys[b] < keys[c] else b
    _swap(keys, items, first, median)
    pivot, low, high = keys[first], first + 1, last
    while True:
        while keys[low] < pivot:
            low += 1
        high -= 1
        while pivot < keys[high]:
            high -= 1
        if not low < high:
            return low
        _swap(keys, items, low, high)
        low += 1


def _insertion_sort(keys, items, first, last):
    """std::__final_insertion_sort (the guarded and unguarded insertions move the same)."""
    for i in range(first + 1, last):
        key, item = keys[i], items[i]
        if key < keys[first]:               # to the front: the run shifts up by one
            keys[first + 1:i + 1], items[first + 1:i + 1] = keys[first:i], items[first:i]
            keys[first], items[first] = key, item
            continue
        j = i
        while key < keys[j - 1]:
            keys[j], items[j] = keys[j - 1], items[j - 1]
            j -= 1
        keys[j], items[j] = key, item


def _heapsort(keys, items, first, last):
    """std::__partial_sort(first, last, last): std::make_heap, then std::sort_heap."""
    n = last - first
    for parent in range((n - 2) // 2, -1, -1):
        _adjust_heap(keys, items, first, parent, n, keys[first + parent], items[first + parent])
    while n > 1:
        n -= 1
        key, item = keys[first + n], items[first + n]
        keys[first + n], items[first + n] = keys[first], items[first]
        _adjust_heap(keys, items, first, 0, n, key, item)


def _adjust_heap(keys, items, first, hole, n, key, item):
    """std::__adjust_heap: the hole sinks to a leaf along the larger children, then
    (std::__push_heap) ``key`` rises from there."""
    top, child = hole, hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if keys[first + child] < keys[first + child - 1]:
            child -= 1
        keys[first + hole], items[first + hole] = keys[first + child], items[first + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        keys[first + hole], items[first + hole] = keys[first + child - 1], items[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and keys[first + parent] < key:
        keys[first + hole], items[first + hole] = keys[first + parent], items[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    keys[first + hole], items[first + hole] = key, item


_BEFORE_BEGIN = object()        # the list's sentinel, which libstdc++ calls _M_before_begin


def unordered_map_order(keys):
    """The iteration order of libstdc++'s ``std::unordered_map<int32, T>`` after emplacing the
    distinct int32 ``keys`` in the order given (and of its ``std::unordered_set<uint32>``
    after inserting them: the same hash table).

    A new key goes to the front of its bucket's run of the list, or to the front of the list
    when its bucket is empty; growing the buckets relinks the list front to back the same way.

    Examples
    --------
    >>> unordered_map_order([1, 2, 3])
    [3, 2, 1]
    >>> unordered_map_order([0, 13, 26, 1, 14])
    [14, 1, 26, 13, 0]
    """
    following = {_BEFORE_BEGIN: None}       # each node's successor in the list
    before = {}                             # bucket -> the node before its first node
    n_buckets, counts = 0, iter(BUCKET_COUNTS)

    def bucket(key):                        # std::hash<int32>: the value, as a size_t
        return (key % 2 ** 64) % n_buckets

    def link_first(node, node_bucket):      # the bucket is empty: the list's front
        following[node] = following[_BEFORE_BEGIN]
        following[_BEFORE_BEGIN] = node
        before[node_bucket] = _BEFORE_BEGIN

    for size, key in enumerate(keys):
        if size + 1 > n_buckets:            # rehash: relink every node, front to back
            n_buckets = next(counts)
            node, following[_BEFORE_BEGIN], front_bucket = following[_BEFORE_BEGIN], None, None
            before.clear()
            while node is not None:
                successor, node_bucket = following[node], bucket(node)
                if node_bucket in before:
                    following[node] = following[before[node_bucket]]
                    following[before[node_bucket]] = node
                else:
                    link_first(node, node_bucket)
                    if following[node] is not None:
                        before[front_bucket] = node
                    front_bucket = node_bucket
                node = successor
        key_bucket = bucket(key)
        if key_bucket in before:
            following[key] = following[before[key_bucket]]
            following[before[key_bucket]] = key
        else:
            front = following[_BEFORE_BEGIN]
            link_first(key, key_bucket)
            if front is not None:           # the former front's bucket now starts after key
                before[bucket(front)] = key
    order, node = [], following[_BEFORE_BEGIN]
    while node is not None:
        order.append(node)
        node = following[node]
    return order


class NominalLayout(NamedTuple):
    """One nominal feature as mlrl-boomer searches it: the values other than the majority
    value in search order (``bins``), the ``majority`` value (None for fewer than two values:
    such a feature offers no condition), and whether each value's examples are visited in
    decreasing example order (more than two values: mlrl-boomer fills each value's slots
    from the back) or increasing (a binary feature)."""

    bins: tuple
    majority: object
    descending: bool

    @property
    def binary(self):
        """Whether mlrl-boomer searches the feature as a binary vector (two values, or one
        stored value and the zeros): ``x == v`` of the one searched value, then ``x ==
        majority`` (``feature_based_search_binary.hpp``), no ``!=``."""
        return self.majority is not None and not self.descending


def nominal_layout(column, sparse=False):
    """The :class:`NominalLayout` of a dense nominal ``column`` (float32, NaN missing) whose
    values are int32 integers; ``sparse``: the column came from a sparse matrix, whose zeros
    mlrl-boomer never stores, so 0 is the majority value whenever the column has one (counted
    as nothing) and the stored values are searched in map order.

    Examples
    --------
    >>> column = np.array([2, 0, 1, 1, 0, 1, np.nan], dtype=np.float32)
    >>> nominal_layout(column)
    NominalLayout(bins=(0.0, 2.0), majority=1.0, descending=True)
    >>> nominal_layout(np.array([5, 7, 7], dtype=np.float32))
    NominalLayout(bins=(5.0,), majority=7.0, descending=False)
    """
    codes = column[~np.isnan(column)].astype(np.int64)
    zeros = sparse and bool((codes == 0).any())
    if zeros:
        codes = codes[codes != 0]
    values, first, counts = np.unique(codes, return_index=True, return_counts=True)
    by_first = np.argsort(first, kind="stable")              # emplaced in example order
    frequency = dict(zip(values.tolist(), counts.tolist()))
    order = unordered_map_order(values[by_first].tolist())
    if zeros:                                   # the sparse value 0 is the majority value
        return NominalLayout(tuple(float(v) for v in order), 0.0, len(order) > 1) \
            if order else NominalLayout((), None, False)
    if len(order) < 2:
        return NominalLayout((), None, False)
    if len(order) == 2:
        first_value, second_value = order
        minority, majority = (second_value, first_value) \
            if frequency[first_value] > frequency[second_value] else order
        return NominalLayout((float(minority),), float(majority), False)
    majority = order[0]
    for value in order:                     # the first of the highest frequency
        if frequency[value] > frequency[majority]:
            majority = value
    return NominalLayout(tuple(float(v) for v in order if v != majority), float(majority),
                         True)


def closes_feature(layout, condition):
    """Whether mlrl-boomer searches ``condition``'s nominal feature no more in this rule: after
    ``x == v`` and after ``x != majority`` (which covers every value searched) it keeps no
    value of the feature; after ``x != v`` for another value it keeps the other values."""
    return condition.operator == "==" or condition.threshold == layout.majority



def keeps_vector(layouts, condition):
    """Whether mlrl-boomer keeps the vector of ``condition``'s feature, missing examples and
    all, after it (``layouts``: the nominal features' :class:`NominalLayout` s): after a
    nominal ``x != v`` for a searched value v (its interval filter reuses the vector)."""
    layout = layouts.get(condition.feature)
    return layout is not None and not closes_feature(layout, condition)


class MissingOrder:
    """The order in which mlrl-boomer 0.12.3 visits a rule's covered examples that miss a
    feature's value, per feature of dense ``columns`` (float32, NaN missing).

    Each feature vector keeps its missing examples in a ``std::unordered_set<uint32>``,
    filled in example order. Each rule filters the vectors it searches by its coverage: the
    first time a rule with conditions searches a feature, the set is rebuilt from the covered
    ones, inserted in the original set's order; later filters erase examples, which keeps the
    others' order (``createFilteredFeatureVectorDecorator``). Erasing and rebuilding were
    checked against libstdc++ (``tests/data/libstdcxx_orders.json``).

    Examples
    --------
    >>> column = np.full(30, np.nan, dtype=np.float32)
    >>> order = MissingOrder([column]).for_rule()
    >>> order.of(0, np.ones(30, dtype=bool), has_conditions=False)[:4].tolist()
    [29, 12, 11, 10]
    >>> covered = np.arange(30) % 2 == 0
    >>> order.of(0, covered, has_conditions=True)[:4].tolist()
    [28, 26, 12, 10]
    """

    def __init__(self, columns):
        self._original = {}
        for feature, column in enumerate(columns):
            missing = np.flatnonzero(np.isnan(column))
            if len(missing):
                self._original[feature] = np.array(unordered_map_order(missing.tolist()),
                                                   dtype=np.int64)

    def for_rule(self):
        """The orders of one rule (mlrl-boomer filters its vectors anew for each rule)."""
        return _RuleMissingOrder(self._original)


class _RuleMissingOrder:
    """:class:`MissingOrder` within one rule: :meth:`of` gives the covered examples missing a
    feature, in mlrl-boomer's order."""

    def __init__(self, original):
        self._original, self._rebuilt = original, {}
        # feature -> the coverage its kept vector's set was last filtered by (None: empty)
        self._kept = {}
        self._n_conditions = 0

    def after_condition(self, feature, covered_before, keeps_vector):
        """The rule's newest condition is on ``feature``, which covered ``covered_before``.
        Every other feature's vector is filtered by the new coverage when next searched.
        ``feature``'s vector becomes the condition's range; after a nominal ``x != v``
        (``keeps_vector``) mlrl-boomer builds it from the vector it searched, which keeps that
        vector's missing examples (so they are subtracted again) if the rule had filtered it
        (a condition before), and holds none if not (a new vector's copy starts empty), until
        a condition on another feature is added."""
        if keeps_vector:
            kept = self._kept.get(feature, covered_before if self._n_conditions else None)
            self._kept = {feature: kept}
        else:
            self._kept = {}
        self._n_conditions += 1

    def of(self, feature, covered, has_conditions):
        """The examples of mask ``covered`` that miss ``feature``, in mlrl-boomer's order;
        ``has_conditions``: whether the rule has a condition yet (before its first, the
        unfiltered vector is searched). A vector :meth:`after_condition` kept is not filtered
        by ``covered``."""
        original = self._original.get(feature)
        if feature in self._kept:
            if self._kept[feature] is None:
                return np.empty(0, dtype=np.int64)
            covered = self._kept[feature]
        if original is None:
            return np.empty(0, dtype=np.int64)
        if not has_conditions:
            return original[covered[original]]
        if feature not in self._rebuilt:                    # the first filter: a new set
            self._rebuilt[feature] = np.array(unordered_map_order(
                original[covered[original]].tolist()), dtype=np.int64)
        rebuilt = self._rebuilt[feature]
        return rebuilt[covered[rebuilt]]                    # later ones: erased
