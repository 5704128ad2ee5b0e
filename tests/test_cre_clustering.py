"""Split-point clustering of compressed rule ensembles (specs/cre.md §2): the dynamic
programmes of both engines against brute force, against each other, and the choice of k."""

import importlib
import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from optrules.compressed_rules import cluster_split_points
from optrules.compressed_rules.clustering import (ENGINES, choose_k, selection_criterion,
                                                  split_points)

ENGINE_MODULES = {name: importlib.import_module(path) for name, path in ENGINES.items()}

# small values with many repeats and ties: integers and halves, both signs
small_points = st.lists(st.integers(-6, 6).map(lambda v: v / 2), min_size=1, max_size=7)


def sum_of_squares(points):
    """Exact Σ (x − mean)² of a list of floats, from scratch."""
    exact = [Fraction(x) for x in points]
    mean = sum(exact) / len(exact)
    return sum((x - mean) ** 2 for x in exact)


def set_partitions(items, k):
    """Every partition of the list ``items`` into k non-empty blocks (blocks as lists)."""
    if k == 0:
        if not items:
            yield []
        return
    if len(items) < k:
        return
    first, rest = items[0], items[1:]
    for partition in set_partitions(rest, k - 1):          # ``first`` alone
        yield [[first]] + partition
    for partition in set_partitions(rest, k):              # ``first`` joins a block
        for b in range(len(partition)):
            yield partition[:b] + [[first] + partition[b]] + partition[b + 1:]


def run_cost(points, runs):
    """Exact SS of runs of the distinct values, rescored from the expanded points."""
    return sum(sum_of_squares([v for v, w in zip(points.values[start:stop],
                                                 points.weights[start:stop])
                               for _ in range(w)]) for start, stop in runs)


@pytest.mark.parametrize("engine", sorted(ENGINES))
@given(small_points)
def test_the_optimum_is_the_least_sum_of_squares_over_all_partitions(engine, raw):
    """For every k, the engine's cost is the least SS over all partitions of the points
    (not only runs of sorted distinct values) into k non-empty clusters, and its runs have
    that cost when rescored."""
    points = split_points(raw)
    clusterings = ENGINE_MODULES[engine].optimal_partitions(points, 4)
    assert len(clusterings) == min(4, len(points.values))
    for k, clustering in enumerate(clusterings, start=1):
        best = min(sum(sum_of_squares(block) for block in partition)
                   for partition in set_partitions(sorted(raw), k))
        assert clustering.cost == best
        assert run_cost(points, clustering.runs) == best
        assert len(clustering.runs) == k
        assert clustering.runs[0][0] == 0 and clustering.runs[-1][1] == len(points.values)
        assert all(a[1] == b[0] and a[0] < a[1] for a, b in zip(clustering.runs,
                                                                clustering.runs[1:]))


def tie_key(runs):
    """specs/cre.md §2's tie order: run starts from the last run to the first, least first."""
    return tuple(start for start, _ in reversed(runs))


@pytest.mark.parametrize("engine", sorted(ENGINES))
@given(st.lists(st.sampled_from([-1.0, 0.0, 1.0, 2.0, 3.0, 4.0]), min_size=1, max_size=9))
def test_ties_go_to_the_partition_whose_last_runs_start_earliest(engine, raw):
    """Evenly spaced values tie often; among the least-SS partitions into runs, the engine
    returns the first in the tie order (brute force over all compositions)."""
    points = split_points(raw)
    m = len(points.values)
    for k, clustering in enumerate(ENGINE_MODULES[engine].optimal_partitions(points, 4),
                                   start=1):
        candidates = []
        for cuts in itertools.combinations(range(1, m), k - 1):
            bounds = (0,) + cuts + (m,)
            runs = tuple(zip(bounds, bounds[1:]))
            candidates.append((run_cost(points, runs), tie_key(runs), runs))
        assert clustering.runs == min(candidates)[2]


@given(st.lists(st.one_of(st.integers(-20, 20).map(float),
                          st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
                          st.sampled_from([0.1, 0.2, 0.30000000000000004, 1e-300, 5e-324])),
                min_size=1, max_size=60),
       st.integers(1, 7))
def test_the_fast_engine_finds_the_reference_engines_partitions(raw, k_max):
    points = split_points(raw)
    reference = ENGINE_MODULES["reference"].optimal_partitions(points, k_max)
    fast = ENGINE_MODULES["fast"].optimal_partitions(points, k_max)
    assert fast == reference


def test_clusters_of_well_separated_groups():
    raw = [1.0, 1.1, 1.2, 1.1, 20.0, 20.5, 21.0, 50.0, 50.1, 49.9, 50.0]
    for criterion in ("aic", "bic"):
        clusters = cluster_split_points(raw, k_max=6, criterion=criterion)
        assert [(c.low, c.high, c.size) for c in clusters] == \
            [(1.0, 1.2, 4), (20.0, 21.0, 3), (49.9, 50.1, 4)]
        assert clusters[1].mean == 20.5 and clusters[0].weights == (1, 2, 1)
    (single,) = cluster_split_points([2.5, 2.5, 2.5])
    assert (single.values, single.weights, single.size, single.mean) == ((2.5,), (3,), 3, 2.5)


@given(st.lists(st.integers(-30, 30).map(lambda v: v / 4), min_size=8, max_size=40),
       st.integers(1, 6))
def test_bic_never_chooses_more_clusters_than_aic(raw, k_max):
    """With n >= 8 points, BIC's penalty per cluster (3 ln n) is at least AIC's (6), so its
    choice is never larger."""
    points = split_points(raw)
    clusterings = ENGINE_MODULES["fast"].optimal_partitions(points, k_max)
    assert choose_k(points, clusterings, "bic") <= choose_k(points, clusterings, "aic")


def test_the_selection_criterion_by_hand():
    """Two runs: {0, 2} (mean 1, sample variance 2) and {10} alone (variance d² = 8² = 64)."""
    points = split_points([0.0, 2.0, 10.0])
    components = [(math.log(2 / 3) - 0.5 * math.log(2 * math.pi * 2), 1.0, 4.0),
                  (math.log(1 / 3) - 0.5 * math.log(2 * math.pi * 64), 10.0, 128.0)]
    log_likelihood = sum(math.log(sum(math.exp(c - (x - mu) ** 2 / s)
                                      for c, mu, s in components)) for x in (0.0, 2.0, 10.0))
    runs = ((0, 2), (2, 3))
    assert selection_criterion(points, runs, "aic") == pytest.approx(
        2 * log_likelihood - 10, rel=1e-12)
    assert selection_criterion(points, runs, "bic") == pytest.approx(
        2 * log_likelihood - 5 * math.log(3), rel=1e-12)


def test_equal_points_in_a_run_get_a_thirty_sixth_of_the_squared_gap():
    points = split_points([1.0, 1.0, 4.0, 5.0])     # run {1, 1}: variance 0, d = 3
    components = [(math.log(2 / 4) - 0.5 * math.log(2 * math.pi * 9 / 36), 1.0, 2 * 9 / 36),
                  (math.log(2 / 4) - 0.5 * math.log(2 * math.pi * 0.5), 4.5, 1.0)]
    log_likelihood = sum(w * math.log(sum(math.exp(c - (x - mu) ** 2 / s)
                                          for c, mu, s in components))
                         for x, w in ((1.0, 2), (4.0, 1), (5.0, 1)))
    assert selection_criterion(points, ((0, 1), (1, 3)), "aic") == pytest.approx(
        2 * log_likelihood - 10, rel=1e-12)


@pytest.mark.parametrize("points, options, message", [
    ([], {}, "No split points"),
    ([1.0, float("nan")], {}, "split point 1 is nan"),
    ([1.0, float("inf")], {}, "split point 1 is inf"),
    ([1.0], {"k_max": 0}, "k_max"),
    ([1.0], {"criterion": "mdl"}, "criterion"),
    ([1.0], {"engine": "gpu"}, "engine"),
])
def test_bad_input_is_named(points, options, message):
    with pytest.raises(ValueError, match=message):
        cluster_split_points(points, **options)
