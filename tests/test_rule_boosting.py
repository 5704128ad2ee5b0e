"""Optimal and greedy base learners against brute force; Thm 3.1; boosting on noisy parity.

One test class per engine over a shared mixin (as for rule lists).
"""

import contextlib
import importlib
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, strategies as st

from optrules.data import bitset
from optrules.limits import Budget
from optrules.fast import rule_boosting as fast_boosting
from optrules.reference import rule_boosting as reference_boosting
from optrules.rule_boosting.fit import ENGINES, BaseLearnerConfig, fit_rule, fit_rule_ensemble
from optrules.rule_boosting.gradient_problem import GradientProblem
from optrules.data.synthetic import noisy_parity
from optrules.verify.instances import RuleInstance
from optrules.verify.oracle import optimal_rule

LAMBDAS = [Fraction(0), Fraction(1, 10), Fraction(1), Fraction(2), Fraction(7, 3), Fraction(50)]


@st.composite
def gradient_instances(draw, max_props=12, max_rows=50, numbers="mixed"):
    """Random extents with random g and h > 0 (integers, fractions or floats) and λ."""
    n_props = draw(st.integers(1, max_props))
    n_rows = draw(st.integers(1, max_rows))
    extents = np.array(draw(st.lists(st.lists(st.booleans(), min_size=n_rows, max_size=n_rows),
                                     min_size=n_props, max_size=n_props)), dtype=bool)
    if n_props > 1 and draw(st.booleans()):
        extents[-1] = extents[0]                    # equivalent propositions
    kind = draw(st.sampled_from(["int", "float"])) if numbers == "mixed" else numbers
    if kind == "int":
        g = draw(st.lists(st.integers(-20, 20), min_size=n_rows, max_size=n_rows))
        h = draw(st.lists(st.integers(1, 10), min_size=n_rows, max_size=n_rows))
    else:
        g = draw(st.lists(st.floats(-5, 5, allow_nan=False), min_size=n_rows, max_size=n_rows))
        h = draw(st.lists(st.floats(1e-3, 5), min_size=n_rows, max_size=n_rows))
    lam = draw(st.sampled_from(LAMBDAS))
    names = [f"p{j}" for j in range(n_props)]
    return extents, names, g, h, lam


def exact(values):
    return [Fraction(v) for v in values]


def float_objective(held, g, h, lam):
    """eq. 2.3 in floats with math.fsum-exact sums (the stated 1e-12 relative tolerance)."""
    members = np.flatnonzero(held)
    total_g = math.fsum(g[i] for i in members)
    total_d = math.fsum([float(lam)] + [h[i] for i in members])
    return 0.0 if total_d == 0 else total_g * total_g / (2 * len(held) * total_d)


class BaseLearnerTests:
    engine = None

    def learn(self, problem, **options):
        return fit_rule(problem, engine=self.engine, **options)

    def check_rule(self, extents, g, h, lam, result):
        """Re-score the returned query independently from its conditions."""
        held = np.logical_and.reduce([extents[j] for j in result.query]) if result.query \
            else np.ones(extents.shape[1], dtype=bool)
        assert result.conditions == tuple(f"p{j}" for j in result.query)
        assert result.objective == RuleInstance.from_values(extents, g, h, lam).objective(held), \
            self.engine
        assert result.coverage == int(held.sum())
        assert bitset.int_members(result.extent) == list(np.flatnonzero(held))
        total_d = Fraction(lam) + sum(exact(h[i] for i in np.flatnonzero(held)))
        if total_d:
            assert result.weight == -sum(exact(g[i] for i in np.flatnonzero(held))) / total_d
        assert math.isclose(float(result.objective), float_objective(held, g, h, lam),
                            rel_tol=1e-12, abs_tol=1e-300)

    @given(gradient_instances())
    def test_optimal_equals_brute_force_with_each_pruning_switched_off(self, instance):
        extents, names, g, h, lam = instance
        problem = GradientProblem.from_values(extents, names, g, h, lam)
        optimum, first = optimal_rule(RuleInstance.from_values(extents, g, h, lam))
        queries = {}
        for bound in (True, False):
            for equivalence in (True, False):
                result = self.learn(problem, bound_pruning=bound,
                                    equivalence_pruning=equivalence)
                self.check_rule(extents, g, h, lam, result)
                assert result.status == "optimal"
                assert result.objective == optimum, (self.engine, bound, equivalence)
                assert result.upper_bound == optimum and result.guarantee == 1
                queries[bound, equivalence] = result.query
                if not equivalence:       # every conjunction is visited: the oracle's first
                    held = np.logical_and.reduce(extents[list(first)], axis=0,
                                                 initial=True)
                    assert bitset.int_members(result.extent) == \
                        np.flatnonzero(held & np.ones(extents.shape[1], bool)).tolist()
                    assert len(result.query) <= len(first)
        # specs §10: bound prunes never change which of equally good queries is returned
        assert queries[True, True] == queries[False, True]
        assert queries[True, False] == queries[False, False]
        greedy = self.learn(problem, search="greedy")
        self.check_rule(extents, g, h, lam, greedy)
        assert greedy.objective <= optimum

    @given(gradient_instances(max_props=9, max_rows=30))
    def test_core_queries_visit_each_extent_exactly_once(self, instance):
        """§3.2: one core query per equivalence class; without bound pruning Algorithm 1
        expands exactly one node per distinct extent of a conjunction."""
        extents, names, g, h, lam = instance
        n_rows = extents.shape[1]
        distinct = {tuple(np.logical_and.reduce([extents[j] for j in q]) if q
                          else np.ones(n_rows, dtype=bool))
                    for k in range(len(extents) + 1)
                    for q in itertools.combinations(range(len(extents)), k)}
        problem = GradientProblem.from_values(extents, names, g, h, lam)
        result = self.learn(problem, bound_pruning=False)
        assert result.statistics["nodes"] == len(distinct), self.engine

    @given(gradient_instances(max_props=8, max_rows=30), st.integers(1, 3))
    def test_max_depth_is_optimal_over_short_conjunctions(self, instance, depth):
        extents, names, g, h, lam = instance
        problem = GradientProblem.from_values(extents, names, g, h, lam)
        optimum, _ = optimal_rule(RuleInstance.from_values(extents, g, h, lam), max_length=depth)
        result = self.learn(problem, max_depth=depth)
        self.check_rule(extents, g, h, lam, result)
        assert result.objective == optimum and len(result.query) <= depth

    @given(gradient_instances(max_props=10, max_rows=40),
           st.sampled_from([Fraction(1, 2), Fraction(9, 10), Fraction(1, 3)]))
    def test_approximation_factor_guarantee(self, instance, alpha):
        extents, names, g, h, lam = instance
        problem = GradientProblem.from_values(extents, names, g, h, lam)
        optimum, _ = optimal_rule(RuleInstance.from_values(extents, g, h, lam))
        result = self.learn(problem, apx=alpha)
        assert result.objective >= alpha * optimum
        assert result.upper_bound >= optimum and result.guarantee >= alpha
        assert result.status == "approximate", self.engine      # proven within α, not optimal

    def test_depth_limit_keeps_skipping_implied_augmentations(self):
        """q → p_a pruning stays on under max_depth (q p_a has q's extent); only core-query
        condensation goes off. p1 ⊇ p0, so p1 is implied after p0 and never evaluated there."""
        extents = [[1, 1, 0, 0, 0, 0], [1, 1, 1, 1, 0, 0], [0, 1, 1, 0, 1, 0]]
        problem = GradientProblem.from_values(extents, ["p0", "p1", "p2"],
                                              [3, 2, -1, 1, -2, -3], [1] * 6, 1)
        result = self.learn(problem, max_depth=2, bound_pruning=False)
        assert result.statistics["equivalence_immediate"] >= 1, self.engine
        assert result.statistics["equivalence_propagated"] == 0, self.engine

    def test_no_propositions_gives_the_empty_query(self):
        problem = GradientProblem.from_values(np.zeros((0, 4), dtype=bool), [],
                                              [1, -1, 2, 1], [1, 1, 1, 1], 1)
        for search in ("optimal", "greedy"):
            result = fit_rule(problem, search=search, engine=self.engine)
            assert result.query == () and result.coverage == 4, (self.engine, search)

    @given(gradient_instances(max_props=12, max_rows=50, numbers="int"))
    def test_node_limit_reports_a_valid_guarantee(self, instance):
        extents, names, g, h, lam = instance
        problem = GradientProblem.from_values(extents, names, g, h, lam)
        optimum, _ = optimal_rule(RuleInstance.from_values(extents, g, h, lam))
        result = self.learn(problem, max_nodes=1)
        self.check_rule(extents, g, h, lam, result)
        assert result.objective <= optimum <= result.upper_bound
        assert result.status in ("optimal", "node-limit"), self.engine

    def engine_call(self, search, problem, budget):
        """The engine's base learner run directly with a budget (as boosting runs it)."""
        module = importlib.import_module(ENGINES[self.engine])
        return getattr(module, f"{search}_rule")(problem, BaseLearnerConfig(budget=budget))

    @given(gradient_instances(max_props=10, max_rows=40, numbers="int"), st.integers(0, 6),
           st.sampled_from(["time-limit", "memory-limit", "interrupted"]))
    def test_a_budget_stop_keeps_the_best_rule_with_a_valid_guarantee(self, instance, nodes,
                                                                      reason):
        """The budget is asked once per node; when it says stop after ``nodes`` nodes, the
        search returns its best rule, the budget's reason as status, and a true guarantee."""
        extents, names, g, h, lam = instance
        problem = GradientProblem.from_values(extents, names, g, h, lam)
        optimum, _ = optimal_rule(RuleInstance.from_values(extents, g, h, lam))
        counter = StopAfter(10 ** 9, reason)
        self.engine_call("optimal", problem, counter)
        questions = 10 ** 9 - counter.calls             # one per boundary pop
        result = self.engine_call("optimal", problem, StopAfter(nodes, reason))
        self.check_rule(extents, g, h, lam, result)
        assert result.objective <= optimum <= result.upper_bound, self.engine
        assert result.guarantee * optimum <= result.objective, self.engine
        if nodes < questions:
            assert result.status == reason, self.engine
        else:        # the search ended before the budget said stop: nothing was cut short
            assert result.status == "optimal" and result.objective == optimum, self.engine
        greedy = self.engine_call("greedy", problem, StopAfter(nodes, reason))
        self.check_rule(extents, g, h, lam, greedy)
        assert greedy.upper_bound is None and greedy.status in (reason, "heuristic")

    def test_real_budgets_stop_at_the_first_node(self):
        """Each real stop: an expired deadline, a memory cap below this process's size."""
        rng = np.random.default_rng(1)
        problem = GradientProblem.from_values(rng.random((6, 30)) < 0.5,
                                              [f"p{j}" for j in range(6)],
                                              rng.normal(size=30), np.ones(30), 1)
        for budget, reason in ((Budget(time_limit=0), "time-limit"),
                               (Budget(max_memory=1e-3), "memory-limit"),
                               (Budget(time_limit=60).within(0), "time-limit")):
            result = self.engine_call("optimal", problem, budget)
            assert result.status == reason and result.statistics["nodes"] == 0, self.engine
            assert result.query == () and result.upper_bound >= result.objective

    def test_deterministic(self):
        rng = np.random.default_rng(5)
        extents = rng.random((10, 40)) < 0.5
        g, h = rng.normal(size=40), rng.uniform(0.1, 1, size=40)
        problem = GradientProblem.from_values(extents, [f"p{j}" for j in range(10)], g, h, 1)
        first, second = self.learn(problem), self.learn(problem)
        fields = ("query", "objective", "weight", "extent", "upper_bound", "statistics")
        assert [getattr(first, f) for f in fields] == [getattr(second, f) for f in fields]

    def test_engine_is_the_one_named(self, monkeypatch):
        module = importlib.import_module(ENGINES[self.engine])
        calls = []
        original = module.optimal_rule
        monkeypatch.setattr(module, "optimal_rule", lambda *a: calls.append(1) or original(*a))
        problem = GradientProblem.from_values([[True, False]], ["p0"], [1, -1], [1, 1], 1)
        self.learn(problem)
        assert calls == [1]


class TestReferenceBaseLearner(BaseLearnerTests):
    engine = "reference"


class TestFastBaseLearner(BaseLearnerTests):
    engine = "fast"


def _same_search(problem, search, **options):
    fast, reference = (fit_rule(problem, search=search, engine=engine, **options)
                       for engine in ("fast", "reference"))
    fields = ("query", "objective", "weight", "extent", "upper_bound", "status", "statistics")
    assert [getattr(fast, f) for f in fields] == [getattr(reference, f) for f in fields]


@given(gradient_instances(), st.sampled_from(["optimal", "greedy"]),
       st.sampled_from([1, Fraction(1, 2), Fraction(9, 10)]), st.none() | st.integers(1, 3),
       st.booleans(), st.booleans(), st.none() | st.integers(1, 12))
def test_fast_base_learners_make_the_reference_search(instance, search, apx, max_depth,
                                                      bound_pruning, equivalence_pruning,
                                                      max_nodes):
    """Floats decide only where their error bounds make them certain, so the fast learners
    take every decision the reference ones take: the same query, exact values, status and
    counters, for every switch, depth and node limit."""
    problem = GradientProblem.from_values(*instance)
    options = dict(apx=apx, max_depth=max_depth, max_nodes=max_nodes)
    if search == "optimal":
        options.update(bound_pruning=bound_pruning, equivalence_pruning=equivalence_pruning)
    else:
        options = dict(max_depth=max_depth)
    _same_search(problem, search, **options)


def test_fast_batch_size_grows_when_evaluations_ahead_are_used_and_shrinks_when_not():
    """specs §16: every window of expansions, the batch grows by half (up to 40) when at least
    90% of the nodes evaluated ahead were expanded with that evaluation, and shrinks by a third
    (down to 10) when fewer than 80% were."""
    batch_size = fast_boosting._BatchSize()
    sizes = []
    for used in [True] * 5 + [False] * 5:
        for _ in range(batch_size.WINDOW):
            batch_size.evaluated_ahead(1)
            batch_size.expanded(used)
        sizes.append(batch_size.size)
    assert sizes == [15, 22, 33, 40, 40, 26, 17, 11, 10, 10]
    batch_size.evaluated_ahead(20)                    # 85% used: no change
    for used in [True] * 17 + [False] * (batch_size.WINDOW - 17):
        batch_size.expanded(used)
    assert batch_size.size == 10 and batch_size.expansions == 0


@given(st.lists(st.integers(0, 300), min_size=1, max_size=60))
def test_fast_width_classes_cover_each_row_once_at_its_classs_widest(widths):
    """specs §16: the children of a batch are scanned in classes of widths; each row is in one
    class, scanned at the widest width of its class (at least its own)."""
    widths = np.array(widths)
    seen = np.zeros(len(widths), int)
    for width, rows in fast_boosting._width_classes(widths):
        members = np.arange(len(widths))[rows]
        seen[members] += 1
        assert width == widths[members].max()
    assert (seen == 1).all()


def test_fast_width_classes_split_only_where_it_pays():
    assert len(fast_boosting._width_classes(np.array([100] * 50 + [2] * 200))) == 2
    assert len(fast_boosting._width_classes(np.array([100] * 50 + [90] * 10))) == 1


@pytest.mark.parametrize("seed", range(4))
def test_fast_search_is_the_reference_search_with_scans_split_by_every_width(seed):
    """With no cost a call, a batch's children are scanned in one class per distinct width
    (checked): the fast search is still the reference's, node for node."""
    rng = np.random.default_rng(seed)
    n = 80
    extents = rng.random((10, n)) < 0.5
    g = rng.integers(-3, 4, n) / 2
    problem = GradientProblem.from_values(extents, [f"p{j}" for j in range(10)], g,
                                          np.full(n, 0.25), 1)
    splits = []
    classes = fast_boosting._width_classes

    def recorded(widths):
        found = classes(widths)
        splits.append(len(found))
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fast_boosting, "_CALL_CELLS", 0)
        patch.setattr(fast_boosting, "_width_classes", recorded)
        _same_search(problem, "optimal")
        _same_search(problem, "optimal", max_depth=2)
    assert max(splits) > 1


@pytest.mark.parametrize("seed", range(4))
def test_fast_search_is_the_reference_search_while_the_batch_size_changes(seed):
    """The batch size changes which evaluations are made ahead, never a decision: from 2
    nodes up, with a window of 3 expansions, so that it changes often on a small problem
    (checked), the fast search is still the reference's, node for node and counter for
    counter."""
    rng = np.random.default_rng(seed)
    n = 80
    extents = rng.random((10, n)) < 0.5
    g = np.where(rng.random(n) < 0.5, 0.5, -0.5) * rng.integers(1, 4, n)
    problem = GradientProblem.from_values(extents, [f"p{j}" for j in range(10)], g,
                                          np.full(n, 0.25), 1)
    sizes = []

    class Recorded(fast_boosting._BatchSize):
        SMALLEST, WINDOW = 2, 3

        def expanded(self, with_evaluation_ahead):
            super().expanded(with_evaluation_ahead)
            sizes.append(self.size)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fast_boosting, "_BatchSize", Recorded)
        _same_search(problem, "optimal")
        _same_search(problem, "optimal", equivalence_pruning=False)
    changes = {(after > before) - (after < before) for before, after in zip(sizes, sizes[1:])}
    assert changes == {-1, 0, 1}                        # it grew and it shrank


@pytest.mark.parametrize("g, h, lam, apx", [
    ([1e-163, -1e-11], [3e-308, 1.0], 0, 1),          # G**2 underflows
    ([1e9, -1], [1e-300, 1], 1, 1),                    # g/h overflows
    ([1e300, -1], [1, 1], 1, 1),                       # obj overflows
    ([1e50, -1e50, 1e50, -1e50, 1e-150], [1] * 5, 1, Fraction(1, 10**400)),    # α → 0.0
    ([Fraction(3**100 + 1, 3**100), -Fraction(5**100 - 1, 5**100)],          # S > 2**500
     [Fraction(7**100 + 2, 7**100), 1], 1, 1)])
def test_fast_base_learners_outside_the_float_range(g, h, lam, apx):
    """Found by review: values whose floats overflow or underflow must not reach a float
    decision; outside the range of specs §16 the fast engine runs the reference search."""
    extents = np.eye(2, dtype=bool) if len(g) == 2 else \
        np.array([[1, 0, 1, 0, 1], [1, 1, 0, 0, 1]], dtype=bool)
    problem = GradientProblem.from_values(extents, ["p0", "p1"], g, h, lam)
    _same_search(problem, "optimal", apx=apx)
    _same_search(problem, "greedy")


def _cancelling_problem(scale_bits):
    """Two disjoint propositions whose Σg cancel to 3/2**scale_bits (g within the float range,
    S = 2**scale_bits), with Σh 3·2**75 + 1 and 3·2**75 + 2: p0's objective is larger than
    p1's by a relative 2**-76, below a float's precision."""
    big = Fraction(2) ** 200
    near = -(big - Fraction(3, 2**scale_bits))
    g = [big, near, 0, big, near, 0, 0]
    h = [2**76, 2**75, 1, 2**76, 2**75, 2, 2**100]
    extents = np.array([[1, 1, 1, 0, 0, 0, 0], [0, 0, 0, 1, 1, 1, 0]], dtype=bool)
    return GradientProblem.from_values(extents, ["p0", "p1"], g, h, 0)


def test_fast_base_learners_with_subnormal_objectives():
    """Found by review: with S = 2**500 (allowed until 2026-11-27) the objectives are about
    2**-1100, subnormal floats not rounded within u; the fast search took p1 over p0 and
    called it optimal. Beyond S = 2**274 the reference search runs (specs §16)."""
    problem = _cancelling_problem(500)
    assert not fast_boosting._floats_are_safe(problem, Fraction(1))
    _same_search(problem, "optimal")
    _same_search(problem, "greedy")
    assert fit_rule(problem, engine="fast").query == (0,)


def test_fast_base_learners_at_the_edge_of_the_scale_range():
    """At S = 2**274 the fast engine runs (its floats stay normal: specs §16), and the two
    objectives, equal as floats, are told apart exactly."""
    problem = _cancelling_problem(274)
    assert fast_boosting._floats_are_safe(problem, Fraction(1))
    _same_search(problem, "optimal")
    _same_search(problem, "greedy")
    assert fit_rule(problem, engine="fast").query == (0,)


@given(st.integers(0, 2**32 - 1), st.sampled_from([0, 1, 2]), st.integers(2, 4))
def test_fast_base_learners_with_massive_ties(seed, lam, depth):
    """Parity-like data: equal |g|, so many children have exactly equal bounds and objectives
    (the queue's near-tie ordering and the exact tie decisions at work)."""
    rng = np.random.default_rng(seed)
    n = 60
    extents = rng.random((8, n)) < 0.5
    g = np.where(rng.random(n) < 0.5, 0.5, -0.5)
    problem = GradientProblem.from_values(extents, [f"p{j}" for j in range(8)], g,
                                          np.full(n, 0.25), lam)
    _same_search(problem, "optimal", max_depth=depth)
    _same_search(problem, "optimal")
    _same_search(problem, "greedy")
    # specs §10: the first optimal query in the result order, whatever bound pruning leaves
    for options in ({}, {"max_depth": depth}, {"equivalence_pruning": False}):
        pruned, unpruned = (fit_rule(problem, bound_pruning=bound, **options)
                            for bound in (True, False))
        assert pruned.query == unpruned.query and pruned.extent == unpruned.extent


def _tie_heavy_problem(seed, n_propositions=8, n=60):
    """Parity-like data: equal |g| and h, so that many queries have exactly equal obj."""
    rng = np.random.default_rng(seed)
    extents = rng.random((n_propositions, n)) < 0.5
    g = np.where(rng.random(n) < 0.5, 0.5, -0.5)
    return GradientProblem.from_values(extents, [f"p{j}" for j in range(n_propositions)], g,
                                       np.full(n, 0.25), int(rng.choice([0, 1, 2])))


@contextlib.contextmanager
def _boundary_order(order):
    """The reference engine's boundary popping its nodes in another order: first in, first
    out, or smallest bound first. (Either keeps what the search assumes of the keys: a node
    that fails line 9 has no key below that of obj(q*)/α unless every node left fails too.)"""
    queue_key = reference_boosting.queue_key
    keys = {"breadth-first": lambda bound: 0, "worst-first": lambda bound: -queue_key(bound)}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reference_boosting, "queue_key", keys[order])
        yield


@given(st.integers(0, 2**32 - 1), st.sampled_from(["breadth-first", "worst-first"]),
       st.none() | st.integers(1, 3), st.booleans())
def test_the_result_does_not_depend_on_the_search_order(seed, order, max_depth, equivalence):
    """specs §10: among equally good queries, the first in the result order is returned
    whatever order the boundary pops its nodes in (as when a distributed search splits it)."""
    problem = _tie_heavy_problem(seed)
    options = dict(max_depth=max_depth, equivalence_pruning=equivalence)
    expected = fit_rule(problem, engine="reference", **options)
    with _boundary_order(order):
        result = fit_rule(problem, engine="reference", **options)
    assert (result.query, result.objective, result.extent) == \
        (expected.query, expected.objective, expected.extent)


@given(st.integers(0, 2**32 - 1), st.sampled_from([0, 1, 2**-140]))
def test_fast_base_learners_with_cancelling_sums_of_many_limbs(seed, lam):
    """specs §16, adversarial for the exact sums as limbs: |g| from 2**-150 to 2**150 (about
    ten 32-bit limbs), g in pairs ±x that cancel exactly within groups, so that a group's Σg
    is decided by far smaller terms or is exactly 0 (its float sum says nothing), h from
    2**-100 to 2**100, many equal ratios."""
    rng = np.random.default_rng(seed)
    n = 48
    extents = rng.random((6, n)) < 0.5
    big = [2.0 ** 150, 2.0 ** 150 * (1 + 2.0 ** -52), 3.0 * 2.0 ** 100, 1.0]
    g = rng.choice(big, n) * rng.choice([-1, 1], n)
    g[1::2] = -g[::2]                                   # cancelling pairs
    g[rng.random(n) < 0.2] = rng.choice([2.0 ** -150, -2.0 ** -150, 0.5, -0.75])
    h = rng.choice([1.0, 2.0 ** -100, 2.0 ** 100, 3.0], n)
    problem = GradientProblem.from_values(extents, [f"p{j}" for j in range(6)], g, h, lam)
    _same_search(problem, "optimal")
    _same_search(problem, "optimal", max_depth=2)
    _same_search(problem, "greedy")


@pytest.mark.parametrize("seed", [0, 1])
def test_fast_groups_are_the_reference_groups_with_one_or_several_key_words(seed):
    """The fast engine groups items by a key of their row and their bits of the propositions
    usable in it: one 64-bit word when those usable in some row fit beside the row number,
    else several words, sorted lexicographically. Both ways give the reference's groups:
    per row their exact sums (as a multiset), and the grouped bound within float error.
    70 propositions: all of them need two words (samples of 8 kinds that differ in the
    first 64 propositions, in the last 6 or both), a few of them one."""
    from optrules.fast.rule_boosting import _Floats, _RankedArrays, _packed_rows
    from optrules.reference.rule_boosting import grouped_bound
    rng = np.random.default_rng(seed)
    n, n_props = 60, 70
    kinds = rng.random((n_props, 8)) < 0.5
    kinds[:64, 4:] = kinds[:64, :4]
    kinds[64:, 4:] = ~kinds[64:, :4]
    extents = kinds[:, rng.integers(0, 8, n)]
    g = np.where(rng.random(n) < 0.5, rng.normal(size=n), 0.5)     # pure and mixed groups
    problem = GradientProblem.from_values(extents, [f"p{j}" for j in range(n_props)], g,
                                          rng.uniform(0.1, 1, n), 1)
    data = _RankedArrays(problem)
    floats = _Floats(problem, data)
    usable = rng.random((3, n_props)) < 0.08
    usable[0] = True                                    # every proposition: two words
    for rows in (usable, usable[1:]):
        assert _packed_rows(rows[:, rows.any(axis=0)], 2).shape[1] == (2 if len(rows) == 3
                                                                      else 1)
        groups = floats.groups(floats.samples(np.tile(np.arange(n), len(rows))),
                               np.repeat(np.arange(len(rows)), n), rows)
        for r, row in enumerate(rows):
            mask = sum(1 << j for j in np.flatnonzero(row).tolist())
            expected = {}
            for i in range(n):
                key = data.row_keys[i] & mask
                total = expected.get(key, (0, 0))
                expected[key] = (total[0] + data.g[i], total[1] + data.h[i])
            low, high = groups.offsets[r], groups.offsets[r + 1]
            exact = floats.exact_sums(groups.items[2][:, low:high])
            assert sorted(zip(*(sums.tolist() for sums in exact))) == sorted(expected.values())
            exact = float(grouped_bound(data, (1 << n) - 1, mask) / problem.scale)
            assert math.isclose(groups.bounds[r], exact, rel_tol=floats.relative_error)


class StopAfter(Budget):
    """A budget that answers ``reason`` from its ``calls``-th question on (a deterministic
    stand-in for a deadline, a memory cap or a signal)."""

    def __init__(self, calls, reason):
        super().__init__()
        self.calls, self.reason = calls, reason

    def stop_reason(self):
        self.calls -= 1
        return self.reason if self.calls < 0 else None


def best_subset_value(g, h, lam, members):
    """max over all subsets J of ``members`` of G_J^2 / (λ + H_J), by enumeration."""
    best = Fraction(0)
    for size in range(1, len(members) + 1):
        for subset in itertools.combinations(members, size):
            total_g = sum(Fraction(g[i]) for i in subset)
            total_d = Fraction(lam) + sum(Fraction(h[i]) for i in subset)
            best = max(best, total_g * total_g / total_d)
    return best


@given(st.lists(st.tuples(st.integers(-9, 9), st.integers(1, 6)), min_size=1, max_size=14),
       st.sampled_from(LAMBDAS))
def test_tight_bound_is_the_best_subset(pairs, lam):
    """Thm 3.1: the prefix/suffix scan over g/h order equals max over all 2^|I| subsets."""
    from optrules.reference.rule_boosting import tight_bound
    g = [p[0] for p in pairs]
    h = [p[1] for p in pairs]
    order = sorted(range(len(g)), key=lambda i: (-Fraction(g[i], h[i]), i))
    scanned = tight_bound(g, h, lam, order)
    assert scanned == best_subset_value(g, h, lam, list(range(len(g))))


@given(gradient_instances(max_props=7, max_rows=30), st.data())
def test_grouped_bound_bounds_every_query_below_and_beats_the_sample_bound(instance, data):
    """specs §3: no query adding only propositions in ``usable`` beats the grouped bound, which
    is never above Thm 3.1's bound over single samples, nor above the bound for a larger set."""
    from optrules.reference.rule_boosting import _RankedData, grouped_bound, tight_bound
    extents, names, g, h, lam = instance
    ranked = _RankedData(GradientProblem.from_values(extents, names, g, h, lam))
    propositions = range(len(extents))
    node = data.draw(st.lists(st.sampled_from(propositions), max_size=2))
    usable = data.draw(st.sets(st.sampled_from(propositions)))
    extent = (1 << extents.shape[1]) - 1
    for j in node:
        extent &= ranked.extents[j]
    bound = grouped_bound(ranked, extent, sum(1 << j for j in usable))
    assert bound <= tight_bound(ranked.g, ranked.h, ranked.lam, bitset.int_members(extent))
    fewer = data.draw(st.sets(st.sampled_from(sorted(usable)))) if usable else set()
    assert grouped_bound(ranked, extent, sum(1 << j for j in fewer)) <= bound
    for size in range(len(usable) + 1):
        for added in itertools.combinations(sorted(usable), size):
            below = extent
            for j in added:
                below &= ranked.extents[j]
            assert ranked.objective(below) <= bound


@given(st.fractions(min_value=0, max_value=2 ** 80) | st.integers(0, 2 ** 80).map(Fraction),
       st.fractions(min_value=0, max_value=2 ** 80), st.floats(0, 1e300))
def test_queue_key_is_monotone_and_read_exactly_off_floats(x, y, value):
    """specs §5: the queue key never inverts the order of two bounds, and the fast engine's key
    of a float is the reference's key of that float's exact value."""
    from optrules.fast.rule_boosting import _float_keys
    from optrules.reference.rule_boosting import KEY_BITS, queue_key
    x, y = sorted((x, y))
    assert queue_key(x) <= queue_key(y)
    if x > 0 and y <= x * (1 + Fraction(1, 2 ** (KEY_BITS + 1))):
        assert queue_key(y) - queue_key(x) <= 1        # within one step of the grid
    assert _float_keys(np.array([value]))[0] == queue_key(Fraction(value))


def test_groups_with_equal_float_ratios_are_ordered_exactly():
    """specs §16: correctly rounded ratios can tie for different exact ratios; the fast
    engine's group order then compares G/H exactly (here 1 + 2**-53 > 1 + 1/(2**53 + 1), and a
    pure group of ratio exactly 1 comes last; all three floats are 1.0)."""
    from optrules.fast.rule_boosting import _exact_ratio_order
    big = 2 ** 53
    exact = (np.array([big + 2, big + 1, 5], dtype=object),
             np.array([big + 1, big, 5], dtype=object))
    ratios = np.array([float(Fraction(int(g), int(h))) for g, h in zip(*exact)])
    assert len(set(ratios)) == 1
    for start in ([0, 1, 2], [2, 0, 1], [1, 2, 0]):
        order = _exact_ratio_order(np.array(start), ratios, np.zeros(3, np.int64),
                                   np.array([False, False, True]), 2.0 ** -52,
                                   lambda groups: (exact[0][groups], exact[1][groups]))
        assert order.tolist() == [1, 0, 2], start


def test_groups_with_float_ratios_within_their_error_are_ordered_exactly():
    """specs §16: a mixed group's float ratio is only within the error bound of the exact one,
    so floats can order groups wrongly, also across a pure group between them, also when
    their floats differ; runs of ratios within the error of each other are ordered exactly,
    others by floats (here exact ratios 3, 2 + 10**-14 (pure), 2 + 2·10**-14, 2 (pure),
    2 - 10**-14 and 1 (pure), the middle floats off by up to 3·10**-14 the wrong way; rows
    0 and 1)."""
    from optrules.fast.rule_boosting import _exact_ratio_order
    tiny = Fraction(1, 10 ** 14)
    exact_ratios = [Fraction(3), 2 + tiny, 2 + 2 * tiny, Fraction(2), 2 - tiny, Fraction(1)]
    exact = (np.array([r.numerator * 7 for r in exact_ratios], dtype=object),
             np.array([r.denominator * 7 for r in exact_ratios], dtype=object))
    ratios = np.array([3.0, float(2 + tiny), float(2 - tiny), 2.0, float(2 + 2 * tiny), 1.0])
    pure = np.array([False, True, False, True, False, True])
    ask = []
    def sums(groups):
        ask.append(sorted(groups.tolist()))
        return exact[0][groups], exact[1][groups]
    for rows in (np.zeros(6, np.int64), np.array([0, 0, 0, 0, 0, 1])):
        start = np.lexsort((-ratios, rows))
        assert start.tolist() == [0, 4, 1, 3, 2, 5]            # by floats: wrong
        order = _exact_ratio_order(start, ratios, rows, pure, 1e-13, sums)
        assert order.tolist() == [0, 2, 1, 3, 4, 5]
    # exactly: the close pairs with a mixed group (4, 1) and (3, 2), not the pure (1, 3); then
    # their run
    assert ask[:2] == [[1, 2, 3, 4], [1, 2, 3, 4]]
    # no ratios within the (here too small) error of each other, or not in one row: floats
    # decide, nothing is computed exactly
    ask.clear()
    for rows, error in ((np.zeros(6, np.int64), 1e-16), (np.arange(6), 1e-13)):
        start = np.lexsort((-ratios, rows))
        order = _exact_ratio_order(start, ratios, rows, pure, error, sums)
        assert order.tolist() == start.tolist() and ask == []


def test_fast_ranking_is_the_reference_ranking():
    """specs §16: the fast engine's ranked data (by float g/h, runs of equal floats sorted
    exactly) equals the reference's, here with g/h = 1 + 2**-53 > 1 + 1/(2**53 + 1) > 1 all
    rounding to 1.0, exact ties, zeros and negatives."""
    from optrules.fast.rule_boosting import _RankedArrays
    from optrules.reference.rule_boosting import _RankedData
    big = 2 ** 53
    pairs = [(big + 2, big + 1), (5, 5), (big + 1, big), (0, 1), (-3, 2), (big + 2, big + 1),
             (7, 7), (-6, 4), (big + 1, big), (1, 3)]
    extents = np.array([[i % 2 == 0 for i in range(10)], [i < 4 for i in range(10)]])
    problem = GradientProblem.from_values(extents, ["p0", "p1"], [g for g, _ in pairs],
                                          [h for _, h in pairs], 1)
    fast, reference = _RankedArrays(problem), _RankedData(problem)
    assert reference.order == [2, 8, 0, 5, 1, 6, 9, 3, 4, 7]
    for name in ("order", "g", "h", "lam", "extents", "row_keys"):
        assert getattr(fast, name) == getattr(reference, name), name


#: The SDM 2021 datasets of the benchmark (loss, λ, quantile cuts as realkd's max_col_attr).
PAPER_DATASETS = [("wine", "logistic", 2, 2), ("breast_cancer", "logistic", 2, 1),
                  ("iris", "logistic", 2, 9), ("diabetes", "squared", 5, 2)]


@pytest.mark.slow
@pytest.mark.parametrize("name, loss, lam, cuts", PAPER_DATASETS)
def test_fast_engine_boosts_the_reference_rules_on_the_papers_datasets(name, loss, lam, cuts):
    """The first 3 optimal rules by both engines on the paper's data: the same conditions,
    exact objectives, weights, bounds and search counters."""
    datasets = pytest.importorskip("sklearn.datasets")
    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    if loss == "logistic":                              # class 1 against the rest
        y = np.where(y == 1, 1, -1)
    reference, fast = (fit_rule_ensemble(X, y, loss=loss, lam=lam, n_rules=3, engine=engine,
                                         thresholds=f"quantile:{cuts}").rules
                       for engine in ("reference", "fast"))
    assert len(fast) == len(reference) == 3
    for mine, theirs in zip(fast, reference):
        assert (mine.conditions, mine.weight, mine.objective, mine.coverage) == \
            (theirs.conditions, theirs.weight, theirs.objective, theirs.coverage)
        assert {k: v for k, v in mine.statistics.items() if k != "seconds"} == \
            {k: v for k, v in theirs.statistics.items() if k != "seconds"}
        assert mine.statistics["status"] == "optimal" and mine.statistics["nodes"] > 0


def test_noisy_parity_optimal_beats_greedy():
    """Fig. 1 of the paper: d = 3, n = 800 (train) and 800 (test), 8 rules, λ = 2.

    Measured: optimal 0.92625 test accuracy, greedy 0.78 (thresholds quantile:5).
    """
    X, y = noisy_parity(800, d=3, seed=1)
    X_test, y_test = noisy_parity(800, d=3, seed=2)
    accuracy = {}
    for search in ("optimal", "greedy"):
        ensemble = fit_rule_ensemble(X, y, loss="logistic", n_rules=8, lam=2, search=search,
                                     thresholds="quantile:5")
        accuracy[search] = float((ensemble.predict(X_test) == y_test).mean())
    assert accuracy["optimal"] >= 0.9, accuracy
    assert accuracy["optimal"] >= accuracy["greedy"] + 0.1, accuracy
