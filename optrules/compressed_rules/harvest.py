"""The rule harvest of compressed rule ensembles: boosted depth-limited regression trees, every
non-root node's path a rule (Nalenz and Augustin §3-4 and Fig. 1; ``specs/cre.md`` §6).

The trees are grown as second-order gradient boosting grows them (the paper uses xgboost),
from the best constant score (the mean of y, or its log-odds): each round draws a
``subsample`` of the examples without replacement, fits one tree of depth at most
``max_depth`` to the gradients g and Hessians h of the loss at the current scores, and adds
``learning_rate`` times its leaf values to the scores of every example. A node splits on the
condition of largest gain

    G_L²/(H_L + λ) + G_R²/(H_R + λ) − G²/(H + λ)            (λ = ``l2``, 1 as xgboost)

over all features and all thresholds midway between adjacent distinct values of the node's
examples, when that gain exceeds ``MIN_GAIN`` (1e-6, as xgboost) and each child holds
Hessian mass >= ``min_child_weight`` (1, as xgboost). Ties go to the least feature, then the
least threshold. A leaf's value is −G/(H + λ). An example missing the split feature satisfies neither condition (as in every
method of optrules): it reaches no leaf below, and no rule below covers it.

Examples
--------
>>> import numpy as np
>>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([0, 0, 1, 1])
>>> boosted_tree_rules(X, y, n_trees=1, max_depth=1, subsample=1.0, min_child_weight=0.5)
[((0, '<=', 1.5),), ((0, '>', 1.5),)]
"""

import numpy as np

__all__ = ["boosted_tree_rules", "LOSSES", "MIN_GAIN"]

LOSSES = ("logistic", "squared")
#: The least gain a split needs (xgboost's kRtEps): rounding can make a split of no gain, or
#: one of two splits of equal gain, look better by 1e-17.
MIN_GAIN = 1e-6


def boosted_tree_rules(X, y, *, loss="logistic", n_trees=500, max_depth=3, learning_rate=0.01,
                       subsample=0.6, l2=1.0, min_child_weight=1.0, random_state=None):
    """The rules of ``n_trees`` boosted trees on ``X`` (n, d; NaN missing) and ``y`` (0/1
    for the logistic loss, real for the squared loss), in the order the trees grow them
    (tree by tree, node by node, breadth first, the `<=` child first). A rule is a tuple of
    conditions (feature, operator, threshold), the root's split first."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = len(y)
    rng = np.random.default_rng(random_state)
    order = np.argsort(X, axis=0, kind="stable").T                 # (d, n), NaN last
    scores = np.full(n, _base_score(y, loss))
    rules = []
    for _ in range(n_trees):
        if loss == "logistic":
            p = 1.0 / (1.0 + np.exp(-scores))
            g, h = p - y, p * (1.0 - p)
        else:
            g, h = scores - y, np.ones(n)
        chosen = np.zeros(n, dtype=bool)
        chosen[rng.choice(n, size=max(1, int(round(subsample * n))), replace=False)] = True
        update = np.zeros(n)
        level = [((), chosen, np.ones(n, dtype=bool))]     # (path, sample members, all members)
        for depth in range(max_depth + 1):
            next_level = []
            for path, members, reached in level:
                split = None if depth == max_depth else \
                    _best_split(X, order, g, h, members, l2, min_child_weight)
                if split is None:                        # a leaf
                    value = -g[members].sum() / (h[members].sum() + l2)
                    update[reached] = learning_rate * value
                    continue
                feature, threshold = split
                column = X[:, feature]
                for operator, side in (("<=", column <= threshold), (">", column > threshold)):
                    child = path + ((feature, operator, float(threshold)),)
                    rules.append(child)
                    next_level.append((child, members & side, reached & side))
            level = next_level
        scores += update
    return rules


def _best_split(X, order, g, h, members, l2, min_child_weight):
    """(feature, threshold) of largest gain above MIN_GAIN for the examples ``members``, or
    None:
    all features at once, each row of ``order`` (examples by value, NaN last) cut down to
    the members."""
    d, count = order.shape[0], int(members.sum())
    if count < 2:
        return None
    rows = order[members[order]].reshape(d, count)                      # (d, count)
    values = X.T[np.arange(d)[:, None], rows]
    present = ~np.isnan(values)
    left_g = np.cumsum(np.where(present, g[rows], 0.0), axis=1)
    left_h = np.cumsum(np.where(present, h[rows], 0.0), axis=1)
    right_g = left_g[:, -1:] - left_g[:, :-1]
    right_h = left_h[:, -1:] - left_h[:, :-1]
    left_g, left_h = left_g[:, :-1], left_h[:, :-1]
    parent = g[members].sum() ** 2 / (h[members].sum() + l2)
    with np.errstate(invalid="ignore"):
        valid = (values[:, :-1] < values[:, 1:]) & (left_h >= min_child_weight) & \
            (right_h >= min_child_weight)
    gain = np.where(valid, left_g ** 2 / (left_h + l2) + right_g ** 2 / (right_h + l2) - parent,
                    -np.inf)
    best = int(np.argmax(gain))             # the least feature, then the least threshold
    feature, j = divmod(best, count - 1)
    if not gain[feature, j] > MIN_GAIN:
        return None
    low, high = values[feature, j], values[feature, j + 1]
    return feature, low + (high - low) / 2


def _base_score(y, loss):
    """The best constant score, where boosting starts (as xgboost >= 2 estimates its base
    score): the mean of y, or its log-odds (0 for a single class). Starting at 0 instead, a
    target far from 0 gives every gradient one sign and no split a positive gain."""
    mean = float(np.mean(y)) if len(y) else 0.0
    if loss == "squared":
        return mean
    return float(np.log(mean / (1.0 - mean))) if 0.0 < mean < 1.0 else 0.0

