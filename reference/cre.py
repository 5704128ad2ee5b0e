"""Compressed rule ensembles (CRE), readable reference: optimal 1-D k-means of split points,
smooth rules, and the L1-regularised GLM.

Nalenz and Augustin cluster each feature's split points by k-means, solved exactly in one
dimension by the dynamic programme of Wang and Song (2011), eq. (2)::

    D[l][i] = min_{l <= j <= i}  D[l-1][j-1] + SS(j, i),      D[1][i] = SS(1, i),

over the distinct split points x_1 < ... < x_m (with multiplicities), SS(j, i) being the sum of
squares of run j..i about its mean (:class:`~optrules.compressed_rules.clustering.RunCosts`,
exact). Every cell tries every j, O(k m²); the least minimising j is kept, which gives the tie
order of ``specs/cre.md`` §2. The smooth rules (§3, eqs. 6-7) are evaluated example by
example, condition by condition. The GLM (§4) is fitted by cyclic coordinate descent over
every coefficient, as Friedman, Hastie and Tibshirani (2010) describe it.

References
----------
.. [1] M. Nalenz, T. Augustin. "Compressed Rule Ensemble Learning." §4.2.
.. [2] H. Wang, M. Song. "Ckmeans.1d.dp: optimal k-means clustering in one dimension by
   dynamic programming." The R Journal 3(2), 2011.
"""

import numpy as np

from optrules.compressed_rules.clustering import Clustering, RunCosts
from optrules.compressed_rules.glm import FIT_TOLERANCE, solve_path

__all__ = ["optimal_partitions", "smooth_rule_matrix", "lasso_path"]


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
    >>> rules = compress_rules([((0, "<=", 2.0),), ((0, ">", 1.0),)], clusters).rules
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


def lasso_path(X, y, loss, lambdas, max_steps=100, max_sweeps=10_000):
    """The L1-regularised GLM (:mod:`optrules.compressed_rules.glm`) along ``lambdas``
    (decreasing), each fit warm-started from the last: (intercepts (L,), coefficients (L, p)),
    L the number of λ before the path ends (:func:`~optrules.compressed_rules.glm.path_ends`).

    Coordinate descent (Friedman et al. 2010): the logistic loss by iteratively reweighted
    least squares (each step damped by halving while it would raise the objective), each
    weighted least-squares problem by cyclic coordinate descent over the
    intercept and every coefficient, β_j ← S(u_j, λ)/v_j with u_j the weighted covariance of
    x_j and the partial residual, v_j = (1/n) Σ w x_j², S soft thresholding, until a sweep
    moves no gradient (v_j Δβ_j) by more than FIT_TOLERANCE/100 (or after ``max_sweeps``).
    A λ's fit ends when its KKT conditions hold to FIT_TOLERANCE; after ``max_steps``
    reweightings without that, it ends with a
    :class:`~optrules.compressed_rules.glm.ConvergenceWarning`. Plain coordinate
    descent is slow on ill-conditioned problems (nearly separable classes at small λ); the
    fast engine is not.

    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]])
    >>> b, beta = lasso_path(X, np.array([1.0, 0.0, 1.0, 0.0]), "squared", [0.0])
    >>> [float(round(v, 9)) + 0.0 for v in (b[0], *beta[0])]
    [0.0, 1.0, 0.0]
    """
    X = np.asarray(X, dtype=np.float64)
    return solve_path(X, y, loss, lambdas, lambda z, w, lam, intercept, beta: _weighted_lasso(
        X, z, w, lam, intercept, beta, max_sweeps), max_steps)


def _weighted_lasso(X, z, w, lam, intercept, beta, max_sweeps):
    """Cyclic coordinate descent on (1/2n) Σ w (z − b − Xβ)² + λ|β|₁ from (b, β)."""
    n, p = X.shape
    residual = z - intercept - X @ beta
    for _ in range(max_sweeps):
        largest = 0.0
        shift = (w @ residual) / w.sum()                  # the intercept's exact minimiser
        intercept += shift
        residual -= shift
        largest = max(largest, w.mean() * abs(shift))
        for j in range(p):
            column = X[:, j]
            v = (w * column * column).mean()
            if v == 0.0:
                continue
            u = (w * column * residual).mean() + v * beta[j]
            new = np.sign(u) * max(abs(u) - lam, 0.0) / v
            if new != beta[j]:
                residual -= column * (new - beta[j])
                largest = max(largest, v * abs(new - beta[j]))
                beta[j] = new
        if largest < FIT_TOLERANCE / 100:       # no gradient moved by more than this
            break
    return intercept, beta
