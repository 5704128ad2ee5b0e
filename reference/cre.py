"""Compressed rule ensembles (CRE), readable reference: optimal 1-D k-means of split points,
and smooth rules.

Nalenz and Augustin cluster each feature's split points by k-means, solved exactly in one
dimension by the dynamic programme of Wang and Song (2011), eq. (2)::

    D[l][i] = min_{l <= j <= i}  D[l-1][j-1] + SS(j, i),      D[1][i] = SS(1, i),

over the distinct split points x_1 < ... < x_m (with multiplicities), SS(j, i) being the sum of
squares of run j..i about its mean (:class:`~optrules.compressed_rules.clustering.RunCosts`,
exact). Every cell tries every j, O(k m²); the least minimising j is kept, which gives the tie
order of ``specs/cre.md`` §2. The smooth rules (§3, eqs. 6-7) are evaluated example by
example, condition by condition.

References
----------
.. [1] M. Nalenz, T. Augustin. "Compressed Rule Ensemble Learning." §4.2.
.. [2] H. Wang, M. Song. "Ckmeans.1d.dp: optimal k-means clustering in one dimension by
   dynamic programming." The R Journal 3(2), 2011.
"""

import numpy as np

from optrules.compressed_rules.clustering import Clustering, RunCosts

__all__ = ["optimal_partitions", "smooth_rule_matrix"]


def optimal_partitions(points, k_max):
    """The optimal partition of ``points`` (a
    :class:`~optrules.compressed_rules.clustering.SplitPoints`) into k runs, for each
    k = 1..min(``k_max``, m): a list of :class:`Clustering`.

    >>> from optrules.compressed_rules.clustering import split_points
    >>> [c.runs for c in optimal_partitions(split_points([0.0, 1.0, 10.0]), 2)]
    [((0, 3),), ((0, 2), (2, 3))]
    """
    costs = RunCosts(points)
    m = len(points.values)
    k_max = min(k_max, m)
    least = [[None] * (m + 1) for _ in range(k_max + 1)]     # D[l][i]
    start = [[None] * (m + 1) for _ in range(k_max + 1)]     # the least minimising j
    for i in range(1, m + 1):                  # one run: the values 1..i
        least[1][i], start[1][i] = costs.cost(1, i), 1
    for level in range(2, k_max + 1):
        for i in range(level, m + 1):
            for j in range(level, i + 1):
                candidate = least[level - 1][j - 1] + costs.cost(j, i)
                if least[level][i] is None or candidate < least[level][i]:
                    least[level][i], start[level][i] = candidate, j
    return [Clustering(_backtrack(start, level, m), least[level][m])
            for level in range(1, k_max + 1)]


def _backtrack(start, k, m):
    """The runs, as (start, stop) 0-based half-open ranges, of the partition ending at cell
    (k, m)."""
    runs, stop = [], m
    for level in range(k, 0, -1):
        first = start[level][stop]
        runs.append((first - 1, stop))
        stop = first - 1
    return tuple(reversed(runs))


def smooth_rule_matrix(X, rules, clusters):
    """Eqs. 6-7: the (n, H) outputs of the smooth ``rules`` (``SmoothRule`` s) on the rows
    of ``X`` (NaN missing), each the product of its soft conditions left to right; the
    clusters of feature v are ``clusters[v]``.

    >>> from optrules.compressed_rules.clustering import cluster_split_points
    >>> from optrules.compressed_rules.soft_rules import compress_rules
    >>> clusters = {0: cluster_split_points([1.0, 2.0, 2.0, 3.0], k_max=1)}
    >>> rules = compress_rules([((0, "<=", 2.0),), ((0, ">", 1.0),)], clusters)
    >>> smooth_rule_matrix(np.array([[0.5], [1.5], [2.5], [np.nan]]), rules, clusters).tolist()
    [[1.0, 0.0], [0.75, 0.25], [0.25, 0.75], [0.0, 0.0]]
    """
    outputs = np.empty((len(X), len(rules)))
    for i, row in enumerate(X):
        for h, rule in enumerate(rules):
            product = 1.0
            for condition in rule.conditions:
                cluster = clusters[condition.feature][condition.cluster]
                product *= _soft_condition(row[condition.feature], cluster, condition.operator)
            outputs[i, h] = product
    return outputs


def _soft_condition(value, cluster, operator):
    """Eq. 6: the share of the cluster's split points t (with multiplicity) with value <= t,
    for "<="; one less it for ">"; 0 for a missing value."""
    if np.isnan(value):
        return 0.0
    share = sum(w for t, w in zip(cluster.values, cluster.weights) if value <= t) / cluster.size
    return share if operator == "<=" else 1.0 - share
