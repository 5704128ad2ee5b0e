"""The harvest and the smooth rules of compressed rule ensembles (specs/cre.md §3, §6)."""

import importlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from optrules.compressed_rules.clustering import ENGINES, Cluster, cluster_split_points
from optrules.compressed_rules.design import (linear_terms, scale_rule_columns,
                                              select_rule_columns)
from optrules.compressed_rules.harvest import MIN_GAIN, boosted_tree_rules
from optrules.compressed_rules.soft_rules import SoftCondition, compress_rules

ENGINE_MODULES = {name: importlib.import_module(path) for name, path in ENGINES.items()}


@st.composite
def rule_sets(draw):
    """(X, hard rules, clusters of their split points) on 1-3 features."""
    n_features = draw(st.integers(1, 3))
    n = draw(st.integers(1, 12))
    cells = st.one_of(st.integers(-4, 4).map(float), st.just(np.nan), st.just(0.5))
    X = np.array(draw(st.lists(st.lists(cells, min_size=n_features, max_size=n_features),
                               min_size=n, max_size=n)))
    condition = st.tuples(st.integers(0, n_features - 1), st.sampled_from(["<=", ">"]),
                          st.integers(-8, 8).map(lambda v: v / 2))
    rules = draw(st.lists(st.lists(condition, min_size=1, max_size=3).map(tuple),
                          min_size=1, max_size=8))
    k_max = draw(st.integers(1, 3))
    clusters = {}
    for feature in range(n_features):
        points = [t for rule in rules for f, _, t in rule if f == feature]
        if points:
            clusters[feature] = cluster_split_points(points, k_max=k_max)
    return X, rules, clusters


@given(rule_sets())
def test_both_engines_give_the_same_smooth_rule_outputs(case):
    X, rules, clusters = case
    smooth = compress_rules(rules, clusters).rules
    reference = ENGINE_MODULES["reference"].smooth_rule_matrix(X, smooth, clusters)
    fast = ENGINE_MODULES["fast"].smooth_rule_matrix(X, smooth, clusters)
    assert np.array_equal(reference, fast)
    assert ((reference >= 0) & (reference <= 1)).all()


@given(rule_sets())
def test_with_a_cluster_per_split_point_smooth_rules_are_the_hard_rules(case):
    """With one cluster per distinct split point, every soft condition is its hard condition
    and a smooth rule gives the hard rule's 0/1 output (0 where a value is missing)."""
    X, rules, _ = case
    clusters = {feature: tuple(Cluster((t,), (1,), t, t, 1, t) for t in sorted(
        {t for rule in rules for f, _, t in rule if f == feature})) for feature in range(
            X.shape[1])}
    smooth = compress_rules(rules, clusters).rules
    outputs = ENGINE_MODULES["fast"].smooth_rule_matrix(X, smooth, clusters)
    for h, rule in enumerate(smooth):
        hard = np.ones(len(X), dtype=bool)
        for condition in rule.conditions:
            (t,) = clusters[condition.feature][condition.cluster].values
            with np.errstate(invalid="ignore"):
                column = X[:, condition.feature]
                hard &= (column <= t) if condition.operator == "<=" else (column > t)
        assert np.array_equal(outputs[:, h], hard.astype(float))


def test_compressed_rules_merge_conditions_and_duplicates():
    clusters = {0: cluster_split_points([1.0, 1.1, 9.0], k_max=2),
                1: cluster_split_points([5.0], k_max=1)}
    smooth = compress_rules([((0, "<=", 1.0), (0, "<=", 1.1)), ((0, "<=", 1.1),),
                             ((1, ">", 5.0), (0, ">", 9.0)), ((0, ">", 9.0), (1, ">", 5.0))],
                            clusters)
    assert smooth.counts == (2, 2)
    smooth = smooth.rules
    assert [rule.conditions for rule in smooth] == [
        (SoftCondition(0, 0, "<="),), (SoftCondition(0, 1, ">"), SoftCondition(1, 0, ">"))]
    assert [rule.length for rule in smooth] == [1, 2]


@pytest.mark.parametrize("rules, message", [
    ([((0, "<", 1.0),)], "rule 0: operator '<'"),
    ([((0, "<=", 1.0),), ((0, "<=", 2.0),)], "rule 1: split point 2.0 of feature 0"),
])
def test_rules_that_do_not_fit_the_clusters_are_named(rules, message):
    with pytest.raises(ValueError, match=message):
        compress_rules(rules, {0: cluster_split_points([1.0])})


# ----- harvest ------------------------------------------------------------------------------

def brute_force_split(X, g, h, members, l2, min_child_weight):
    """(gain, feature, threshold) of the best split by trying every feature and threshold."""
    best = (0.0, None, None)
    G, H = g[members].sum(), h[members].sum()
    for feature in range(X.shape[1]):
        column = X[members, feature]
        values = np.unique(column[~np.isnan(column)])
        for low, high in zip(values, values[1:]):
            threshold = low + (high - low) / 2
            left = members & (X[:, feature] <= threshold)
            right = members & (X[:, feature] > threshold)
            if h[left].sum() < min_child_weight or h[right].sum() < min_child_weight:
                continue
            gain = g[left].sum() ** 2 / (h[left].sum() + l2) + \
                g[right].sum() ** 2 / (h[right].sum() + l2) - G ** 2 / (H + l2)
            if gain > max(best[0] + 1e-12, MIN_GAIN):
                best = (gain, feature, threshold)
    return best


def split_gain(X, g, h, condition):
    """The gain (λ = 1) of splitting all examples by ``condition``'s feature and threshold."""
    feature, _, threshold = condition
    left, right = X[:, feature] <= threshold, X[:, feature] > threshold
    return g[left].sum() ** 2 / (h[left].sum() + 1) + g[right].sum() ** 2 / \
        (h[right].sum() + 1) - g.sum() ** 2 / (h.sum() + 1)


@given(st.integers(0, 10_000), st.integers(4, 30), st.integers(1, 3))
def test_the_first_split_is_the_best_split(seed, n, d):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, d)).astype(float)
    X[rng.random((n, d)) < 0.1] = np.nan
    y = rng.integers(0, 2, size=n)
    rules = boosted_tree_rules(X, y, n_trees=1, max_depth=1, subsample=1.0,
                               min_child_weight=0.5)
    mean = y.mean()                                      # boosting starts at the log-odds
    score = np.log(mean / (1 - mean)) if 0 < mean < 1 else 0.0
    p = 1.0 / (1.0 + np.exp(-np.full(n, score)))         # as the harvest computes it
    g, h = p - y, p * (1 - p)
    gain, feature, threshold = brute_force_split(X, g, h, np.ones(n, dtype=bool), 1.0, 0.5)
    if feature is None:                # no gain above MIN_GAIN, up to rounding
        assert rules == [] or abs(split_gain(X, g, h, rules[0][0]) - MIN_GAIN) < 1e-9
        return
    # the split found has the best gain; splits of equal gain in exact arithmetic can be
    # ordered either way by rounding (p is the rounded mean)
    ((chosen, _, at),), _ = rules
    assert split_gain(X, g, h, rules[0][0]) >= gain - 1e-9
    assert min(h[X[:, chosen] <= at].sum(), h[X[:, chosen] > at].sum()) >= 0.5
    assert at in {a + (b - a) / 2 for a, b in zip(*(lambda v: (v, v[1:]))(
        np.unique(X[~np.isnan(X[:, chosen]), chosen])))}


def test_trees_give_every_non_root_nodes_path():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    rules = boosted_tree_rules(X, y, n_trees=20, max_depth=3, random_state=1)
    assert rules == boosted_tree_rules(X, y, n_trees=20, max_depth=3, random_state=1)
    assert 0 < len(rules) <= 20 * 14 and max(len(rule) for rule in rules) == 3
    for rule in rules:                # each rule's parent path is a rule before it
        if len(rule) > 1:
            assert rule[:-1] in rules[:rules.index(rule)]
    y_real = X[:, 0] * 2.0
    squared = boosted_tree_rules(X, y_real, loss="squared", n_trees=3, max_depth=2)
    assert squared[0][0][0] == 0                       # the root splits the feature y is


# ----- design matrix ------------------------------------------------------------------------

def test_rule_columns_outside_the_support_or_repeated_are_dropped():
    n = 40
    rare = (np.arange(n) < 1).astype(float)               # mean 0.025: below 0.05
    common = (np.arange(n) < 39).astype(float)             # mean 0.975: above 0.95
    half = (np.arange(n) % 2).astype(float)
    soft = np.linspace(0.0, 1.0, n)
    outputs = np.column_stack([rare, half, common, 1.0 - half, soft, half.copy(), 1.0 - soft])
    assert select_rule_columns(outputs) == (1, 4)
    assert select_rule_columns(outputs, support=(0.0, 1.0)) == (0, 1, 2, 4)


@given(st.integers(1, 4), st.floats(0.1, 2.0))
def test_length_scaling_divides_by_length_to_the_eta(length, eta):
    outputs = np.array([[0.5], [1.0]])
    assert np.allclose(scale_rule_columns(outputs, [length], eta), outputs / length ** eta)


def test_linear_terms_are_standardised_and_scaled():
    X = np.array([[1.0, 5.0], [3.0, 5.0], [np.nan, 5.0], [5.0, 5.0]])
    terms, (mean, sd) = linear_terms(X)
    assert mean.tolist() == [3.0, 5.0] and sd[1] == 1.0
    assert np.allclose(terms[:, 0], [-0.4 * 2 / np.sqrt(8 / 3), 0.0, 0.0,
                                     0.4 * 2 / np.sqrt(8 / 3)])
    assert terms[:, 1].tolist() == [0.0] * 4
