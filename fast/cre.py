"""Compressed rule ensembles (CRE), fast: optimal 1-D k-means of split points in O(k m log m),
smooth rules a column per soft condition, and the lasso path by active sets and feature-sign
search.

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
    gradient exceeds λ join the active set, and feature-sign search (coordinate descent if
    that stalls) solves the active set's problem on its Gram matrix, until no gradient
    outside it exceeds λ."""
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
        residual = w * (z - mean_z - X[:, active] @ beta[active] + mean_x[active] @ beta[active])
        gradient = (X.T @ residual - mean_x * residual.sum()) / n      # X̃ᵀ W r / n
        outside = np.ones(len(beta), dtype=bool)
        outside[active] = False
        joining = np.flatnonzero(outside & (np.abs(gradient) > lam))
        if not len(joining):
            return float(mean_z - mean_x @ beta), beta
        active = np.union1d(active, joining)


def _active_descent(X, z, w, mean_x, mean_z, lam, beta, active, max_sweeps):
    """Minimise the weighted problem over the ``active`` coefficients of ``beta`` (in place),
    with their weighted centred Gram matrix G and q = X̃ᵀW z̃/n: ½βᵀGβ − qᵀβ + λ|β|₁. Feature-sign
    search (:func:`_sign_search`) first; coordinate descent (the reference's rule) if that
    does not reach the optimality conditions."""
    centred = X[:, active] - mean_x[active]
    gram = (centred.T * w) @ centred / len(z)
    target = (centred.T @ (w * (z - mean_z))) / len(z)
    values = beta[active]
    if not _sign_search(gram, target, lam, values, max_steps=10 * len(values) + 50):
        _coordinate_descent(gram, target, lam, values, max_sweeps)
    beta[active] = values


def _coordinate_descent(gram, target, lam, values, max_sweeps):
    """Cyclic coordinate descent on ``values`` (in place) until a sweep moves no gradient
    (v_k Δβ_k) by more than FIT_TOLERANCE/100."""
    for _ in range(max_sweeps):
        largest = 0.0
        for k in range(len(values)):
            v = gram[k, k]
            if v == 0.0:
                continue
            u = target[k] - gram[k] @ values + v * values[k]
            new = np.sign(u) * max(abs(u) - lam, 0.0) / v
            if new != values[k]:
                largest = max(largest, v * abs(new - values[k]))
                values[k] = new
        if largest < FIT_TOLERANCE / 100:
            return


def _sign_search(gram, target, lam, values, max_steps):
    """Feature-sign search (Lee, Battle, Raina and Ng, "Efficient sparse coding algorithms",
    NIPS 2006) on ½βᵀGβ − qᵀβ + λ|β|₁ from ``values`` (in place); whether its optimality
    conditions (q − Gβ = λ sign(β) where β != 0, |q − Gβ| <= λ elsewhere) hold to
    FIT_TOLERANCE/100 at the end.

    Each step fixes the signs s of the nonzero coefficients (adding the zero one that violates
    its condition most, with the sign of its slope, once the nonzero ones hold), solves
    G_s x = q_s − λ s (least squares: G may be singular, as it is where the logistic weights of
    nearly separated examples vanish) and moves to the best point of the segment towards x
    among x and the points where a coefficient reaches zero. The objective falls at every step,
    so no sign pattern repeats; where plain coordinate descent crawls along the nearly flat
    directions of an ill-conditioned G, this takes a handful of solves."""
    tolerance = FIT_TOLERANCE / 100
    signs = np.sign(values)
    for _ in range(max_steps):
        slope = target - gram @ values
        on = signs != 0
        if not on.any() or np.abs(slope[on] - lam * signs[on]).max() <= tolerance:
            excess = np.where(on, -np.inf, np.abs(slope) - lam)
            joining = int(np.argmax(excess))
            if excess[joining] <= tolerance:
                return True
            signs[joining] = np.sign(slope[joining])
        chosen = np.flatnonzero(signs)
        block = gram[np.ix_(chosen, chosen)]
        solved = np.linalg.lstsq(block, target[chosen] - lam * signs[chosen], rcond=None)[0]
        start = values[chosen]
        best, best_value = None, _quadratic(block, target[chosen], lam, start)
        crossing = (start != 0) & (np.sign(solved) != np.sign(start))
        times = np.full(len(start), np.inf)           # when each coefficient reaches zero
        times[crossing] = start[crossing] / (start[crossing] - solved[crossing])
        for t in sorted(set(times[crossing].tolist()) | {1.0}):
            point = start + t * (solved - start)
            point[times == t] = 0.0
            value = _quadratic(block, target[chosen], lam, point)
            if value < best_value:
                best, best_value = point, value
        if best is None:
            return False
        values[chosen] = best
        signs = np.sign(values)
    return False


def _quadratic(gram, target, lam, values):
    """½βᵀGβ − qᵀβ + λ|β|₁."""
    return 0.5 * values @ gram @ values - target @ values + lam * np.abs(values).sum()
