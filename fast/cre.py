"""Compressed rule ensembles (CRE), fast: optimal 1-D k-means of split points in O(k m log m).

The same dynamic programme as :mod:`optrules.reference.cre`, with the same exact costs and
the same least minimisers. The least minimising j of row l, B[l][i], never decreases with i
(SS is a Monge array: SS(a, c) + SS(b, d) <= SS(a, d) + SS(b, c) for a <= b <= c <= d, and
D[l-1][j-1] does not depend on i), so each row is solved by divide and conquer: B of the
middle cell bounds the j of the cells left of it from above and of those right of it from
below (the "loglinear" method of Ckmeans.1d.dp). The least minimiser of a cell lies in its
range, so it is found there.
"""

import numpy as np

from optrules.compressed_rules.clustering import Clustering, RunCosts
from optrules.compressed_rules.glm import FIT_TOLERANCE, solve_path
from optrules.reference.cre import _backtrack

__all__ = ["optimal_partitions", "smooth_rule_matrix", "lasso_path"]


def optimal_partitions(points, k_max):
    """See :func:`optrules.reference.cre.optimal_partitions`."""
    costs = RunCosts(points)
    m = len(points.values)
    k_max = min(k_max, m)
    least = [[None] * (m + 1) for _ in range(k_max + 1)]
    start = [[None] * (m + 1) for _ in range(k_max + 1)]
    for i in range(1, m + 1):                  # one run: the values 1..i
        least[1][i], start[1][i] = costs.cost(1, i), 1
    for level in range(2, k_max + 1):
        previous, row, row_start = least[level - 1], least[level], start[level]
        pending = [(level, m, level, m)]          # cells i_low..i_high, their j in j_low..j_high
        while pending:
            i_low, i_high, j_low, j_high = pending.pop()
            if i_low > i_high:
                continue
            i = (i_low + i_high) // 2
            for j in range(j_low, min(i, j_high) + 1):
                candidate = previous[j - 1] + costs.cost(j, i)
                if row[i] is None or candidate < row[i]:
                    row[i], row_start[i] = candidate, j
            pending.append((i_low, i - 1, j_low, row_start[i]))
            pending.append((i + 1, i_high, row_start[i], j_high))
    return [Clustering(_backtrack(start, level, m), least[level][m])
            for level in range(1, k_max + 1)]


def smooth_rule_matrix(X, rules, clusters):
    """See :func:`optrules.reference.cre.smooth_rule_matrix`: each distinct soft condition is
    evaluated on all rows at once (the cluster's weight from each row's place among its
    sorted split points, ``np.searchsorted``), then each rule multiplies its conditions'
    columns in the reference's order."""
    X = np.asarray(X, dtype=np.float64)
    columns = {}
    for condition in {c for rule in rules for c in rule.conditions}:
        cluster = clusters[condition.feature][condition.cluster]
        # the weight of the split points >= x: a suffix sum over the sorted values
        suffix = np.append(np.cumsum(cluster.weights[::-1])[::-1], 0)
        values = X[:, condition.feature]
        missing = np.isnan(values)
        share = suffix[np.searchsorted(cluster.values, np.where(missing, 0.0, values),
                                       side="left")] / cluster.size
        if condition.operator == ">":
            share = 1.0 - share
        columns[condition] = np.where(missing, 0.0, share)
    outputs = np.empty((len(X), len(rules)))
    for h, rule in enumerate(rules):
        product = np.ones(len(X))
        for condition in rule.conditions:
            product *= columns[condition]
        outputs[:, h] = product
    return outputs


def lasso_path(X, y, loss, lambdas, max_steps=100, max_sweeps=10_000):
    """See :func:`optrules.reference.cre.lasso_path`: the same problems, solved with
    glmnet's active sets and covariance updates. For each weighted least-squares problem the
    intercept is eliminated (the columns and the working response centred with the weights),
    the gradient of every coefficient is one matrix-vector product, coefficients whose
    gradient exceeds λ join the active set, and coordinate descent runs over the active set
    with its Gram matrix, until no gradient outside it exceeds λ."""
    X = np.asarray(X, dtype=np.float64)
    return solve_path(X, y, loss, lambdas, lambda z, w, lam, intercept, beta: _weighted_lasso(
        X, z, w, lam, beta, max_sweeps), max_steps)


def _weighted_lasso(X, z, w, lam, beta, max_sweeps):
    """(b, β) minimising (1/2n) Σ w (z − b − Xβ)² + λ|β|₁, from β: descent over the active
    set, then every coefficient outside it whose gradient exceeds λ joins it, until none."""
    n = len(z)
    mean_x, mean_z = (w @ X) / w.sum(), (w @ z) / w.sum()
    active = np.flatnonzero(beta)
    while True:
        if len(active):
            _active_descent(X, z, w, mean_x, mean_z, lam, beta, active, max_sweeps)
        residual = w * (z - mean_z - (X - mean_x) @ beta)
        gradient = (X.T @ residual - mean_x * residual.sum()) / n      # X̃ᵀ W r / n
        outside = np.ones(len(beta), dtype=bool)
        outside[active] = False
        joining = np.flatnonzero(outside & (np.abs(gradient) > lam))
        if not len(joining):
            return float(mean_z - mean_x @ beta), beta
        active = np.union1d(active, joining)


def _active_descent(X, z, w, mean_x, mean_z, lam, beta, active, max_sweeps):
    """Coordinate descent over the ``active`` coefficients of ``beta`` (in place) with their
    weighted centred Gram matrix, until a sweep moves no gradient (v_k Δβ_k) by more than
    FIT_TOLERANCE/100 (the reference's rule). Once a sweep
    keeps every sign, the optimum for those signs solves G β = q − λ s on the nonzero ones
    (one linear system); it ends the descent when its signs agree and the zero ones meet
    their KKT condition, which spares the slow tail of coordinate descent on correlated
    columns."""
    centred = X[:, active] - mean_x[active]
    gram = (centred.T * w) @ centred / len(z)
    target = (centred.T @ (w * (z - mean_z))) / len(z)
    values = beta[active]
    for _ in range(max_sweeps):
        signs = np.sign(values)
        largest = 0.0
        for k in range(len(active)):
            v = gram[k, k]
            if v == 0.0:
                continue
            u = target[k] - gram[k] @ values + v * values[k]
            new = np.sign(u) * max(abs(u) - lam, 0.0) / v
            if new != values[k]:
                largest = max(largest, v * abs(new - values[k]))
                values[k] = new
        if largest < FIT_TOLERANCE / 100:
            break
        if (np.sign(values) == signs).all() and _solve_signs(gram, target, lam, values):
            break
    beta[active] = values


def _solve_signs(gram, target, lam, values):
    """Replace ``values`` by the solution of the subproblem with their signs fixed, if it
    keeps them and the zero coefficients stay optimal (|q_j − G_j β| <= λ); else keep them."""
    nonzero = np.flatnonzero(values)
    if not len(nonzero):
        return False
    signs = np.sign(values[nonzero])
    try:
        solved = np.linalg.solve(gram[np.ix_(nonzero, nonzero)], target[nonzero] - lam * signs)
    except np.linalg.LinAlgError:
        return False
    if not (np.sign(solved) == signs).all():
        return False
    candidate = np.zeros_like(values)
    candidate[nonzero] = solved
    zero = np.setdiff1d(np.arange(len(values)), nonzero)
    if len(zero) and (np.abs(target[zero] - gram[zero] @ candidate) > lam).any():
        return False
    values[:] = candidate
    return True
