"""Rule-list search (CORELS) against exhaustive enumeration, bound by bound.

Each engine in ENGINES runs the same tests (one subclass per engine, as CPython's heapq tests
pair the Python and C implementations).
"""

import importlib
import math
from fractions import Fraction

import numpy as np
from hypothesis import given, strategies as st
import pytest

from optrules.data.binary_dataset import BinaryDataset
from optrules.limits import Budget
from optrules.rule_lists.equivalent_points import minority_bits
from optrules.rule_lists.fit import (BOUNDS, ENGINES, POLICIES, SYMMETRY_MAPS, SearchConfig,
                                     fit_rule_list)
from optrules.rule_lists.model import score
from optrules.verify.instances import RuleListInstance
from optrules.verify.oracle import optimal_rule_list
from optrules.verify.rescore import rescore_rule_list

# λ values whose length bound floor(1/(2λ)) keeps enumeration small for up to 10 antecedents.
LAMBDAS = [Fraction(1, 10), Fraction(2, 15), Fraction(1, 7), Fraction(1, 5), Fraction(1, 4),
           Fraction(1, 3), Fraction(9, 20)]
SMALL_LAMBDAS = [Fraction(1, 20), Fraction(1, 30), Fraction(1, 100)]


#: Weights drawn for weighted instances: integers (0 included) and exact decimals/fractions.
WEIGHTS = st.one_of(st.integers(0, 4), st.sampled_from(["0.5", "1.25", "1/3", "2.5", "0"]))


@st.composite
def rule_list_instances(draw, weighted=None, n_classes=None):
    """Small datasets of 2-4 classes, unweighted or weighted, including duplicated
    antecedents, constant labels, conflicting identical rows and zero weights."""
    n_antecedents = draw(st.integers(1, 10))
    n_samples = draw(st.integers(1, 60))
    lam = draw(st.sampled_from(LAMBDAS if n_antecedents > 6 else LAMBDAS + SMALL_LAMBDAS))
    bits = np.array(draw(st.lists(st.lists(st.booleans(), min_size=n_samples,
                                           max_size=n_samples),
                                  min_size=n_antecedents, max_size=n_antecedents)), dtype=bool)
    if n_antecedents > 1 and draw(st.booleans()):
        bits[-1] = bits[0]                       # a duplicated antecedent
    n_classes = n_classes or draw(st.sampled_from([2, 2, 3, 4]))
    labels = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n_samples,
                                    max_size=n_samples)))
    if n_samples > 1 and draw(st.booleans()):    # an identical row with another label
        bits[:, -1] = bits[:, 0]
        labels[-1] = (labels[0] + 1) % n_classes
    weights = None
    if weighted if weighted is not None else draw(st.booleans()):
        weights = draw(st.lists(WEIGHTS, min_size=n_samples, max_size=n_samples))
        if all(Fraction(w) == 0 for w in weights):
            weights[0] = 1
    names = [f"a{m}" for m in range(n_antecedents)]
    classes = ("neg", "pos") if n_classes == 2 else tuple(f"c{c}" for c in range(n_classes))
    return BinaryDataset.from_bits(names, bits, labels, classes=classes,
                                   sample_weight=weights), lam


def antecedent_indices(result, data):
    """The antecedent indices of a result's rules, in list order."""
    return tuple(data.antecedent_names.index(rule.antecedent) for rule in result.rule_list.rules)


class RuleListSearchTests:
    engine = None

    def fit(self, data, lam, **options):
        result = fit_rule_list(data, lam, engine=self.engine, **options)
        self.check_result(data, lam, result)
        return result

    def check_result(self, data, lam, result):
        """Re-score the returned model independently and check its bookkeeping."""
        check = rescore_rule_list(RuleListInstance.from_dataset(data, result.lam),
                                  result.rule_list, data.classes)
        assert check.non_majority_labels == (), f"{self.engine}: {check.non_majority_labels}"
        for rule, class_weights, predicted in check.captures:
            # a tie for the largest weight goes to the last such class
            last_largest = max(c for c, w in enumerate(class_weights) if w == max(class_weights))
            assert predicted == last_largest, f"{self.engine}: tie at rule {rule}"
        mistakes = check.mistakes
        assert mistakes == result.mistakes, self.engine
        assert type(result.mistakes) is (Fraction if data.weighted else int)
        assert result.total_weight == (data.total_weight if data.weighted else None)
        assert result.lam == Fraction(lam)
        expected = Fraction(mistakes) / data.total_weight + result.lam * len(result.rule_list)
        assert result.objective == expected == check.objective, self.engine
        assert score(result.rule_list, data, result.lam).objective == expected
        assert result.lower_bound <= result.objective
        assert len({r.antecedent for r in result.rule_list.rules}) == len(result.rule_list)

    @given(rule_list_instances())
    def test_optimum_equals_enumeration_with_each_bound_switched_off(self, instance):
        """The optimum, and among optimal lists the first in the result order (fewest rules,
        then smallest antecedent indices: specs/rule-lists.md §6), with or without each
        bound."""
        data, lam = instance
        optimum, first = optimal_rule_list(RuleListInstance.from_dataset(data, lam))
        for disabled in [()] + [(name,) for name in BOUNDS]:
            result = self.fit(data, lam, disabled_bounds=disabled)
            assert result.status == "optimal"
            assert result.objective == optimum, f"{self.engine} without {disabled}"
            assert result.lower_bound == optimum
            assert antecedent_indices(result, data) == first, f"{self.engine} w/o {disabled}"

    @given(rule_list_instances())
    def test_optimum_equals_enumeration_for_every_policy_and_map(self, instance):
        data, lam = instance
        optimum, first = optimal_rule_list(RuleListInstance.from_dataset(data, lam))
        for policy in POLICIES:
            for symmetry_map in SYMMETRY_MAPS:
                result = self.fit(data, lam, policy=policy, symmetry_map=symmetry_map)
                assert result.objective == optimum, f"{self.engine} {policy} {symmetry_map}"
                assert antecedent_indices(result, data) == first, \
                    f"{self.engine} {policy} {symmetry_map}"

    @given(rule_list_instances())
    def test_invariant_to_sample_order_and_duplicated_samples(self, instance):
        data, lam = instance
        result = self.fit(data, lam)
        permutation = np.random.default_rng(0).permutation(data.n_samples)
        assert self.fit(data.subset(samples=permutation), lam).objective == result.objective
        doubled = data.subset(samples=np.r_[np.arange(data.n_samples), np.arange(data.n_samples)])
        # Doubling every sample doubles mistakes and N: mistakes/N is unchanged.
        assert self.fit(doubled, lam).objective == result.objective

    @given(rule_list_instances(weighted=True), st.sampled_from([2, 3, "1/7"]))
    def test_weights_equal_repeated_rows_and_do_not_depend_on_their_unit(self, instance,
                                                                         factor):
        """Weight k gives exactly the optimum of k copies of the row (and of k copies of its
        equivalent-points minority mark); multiplying every weight by one factor changes
        nothing."""
        data, lam = instance
        result = self.fit(data, lam)
        scaled = data.with_weights([w * Fraction(factor) for w in data.sample_weight()])
        assert self.fit(scaled, lam).objective == result.objective
        integral = data.with_weights([w.numerator * w.denominator for w in data.sample_weight()])
        copies = np.repeat(np.arange(data.n_samples), [int(w) for w in integral.sample_weight()])
        repeated = integral.subset(samples=copies).with_weights(None)
        assert self.fit(repeated, lam).objective == self.fit(integral, lam).objective

    @given(rule_list_instances(weighted=False, n_classes=2))
    def test_two_classes_unweighted_equal_unit_weights(self, instance):
        data, lam = instance
        result = self.fit(data, lam)
        ones = self.fit(data.with_weights([1] * data.n_samples), lam)
        direct = fit_rule_list(data, lam, sample_weight=[1] * data.n_samples)
        assert (direct.objective, direct.rule_list) == (ones.objective, ones.rule_list)
        assert (ones.objective, ones.rule_list) == (result.objective, result.rule_list)
        assert ones.mistakes == result.mistakes and ones.total_weight == data.n_samples

    def test_same_input_same_output(self):
        rng = np.random.default_rng(7)
        data = BinaryDataset.from_bits([f"a{m}" for m in range(8)], rng.random((8, 40)) < 0.4,
                                       rng.random(40) < 0.5)
        first, second = self.fit(data, "1/20"), self.fit(data, "1/20")
        assert first.rule_list == second.rule_list and first.objective == second.objective

    def test_node_limit_returns_incumbent_with_gap(self):
        rng = np.random.default_rng(3)
        data = BinaryDataset.from_bits([f"a{m}" for m in range(12)], rng.random((12, 80)) < 0.5,
                                       rng.random(80) < 0.5)
        full = self.fit(data, "1/50")
        limited = self.fit(data, "1/50", max_nodes=3)
        assert full.status == "optimal" and limited.status == "node-limit"
        assert limited.nodes_expanded == 3
        assert limited.lower_bound <= full.objective <= limited.objective
        assert limited.remaining_search_space > 0
        assert limited.gap == limited.objective - limited.lower_bound

    def test_queue_limit_returns_incumbent_with_gap(self, compas_dir):
        from optrules.data.corels_files import load_corels
        data = load_corels(compas_dir / "compas_train.out", compas_dir / "compas_train.label",
                           compas_dir / "compas_train.minor")
        result = self.fit(data, "0.005", max_queue=500)
        assert result.status == "queue-limit" and result.statistics["max_queue_size"] <= 500 + 155
        assert result.lower_bound < result.objective

    def test_time_limit_stops(self, compas_dir):
        from optrules.data.corels_files import load_corels
        data = load_corels(compas_dir / "compas_train.out", compas_dir / "compas_train.label",
                           compas_dir / "compas_train.minor")
        result = self.fit(data, "0.005", time_limit=0.5)
        assert result.status == "time-limit"
        assert result.lower_bound < result.objective

    def test_engine_is_the_one_named(self, monkeypatch):
        module = importlib.import_module(ENGINES[self.engine])
        calls = []
        original = module.corels
        monkeypatch.setattr(module, "corels", lambda *a: calls.append(1) or original(*a))
        data = BinaryDataset.from_bits(["a"], [[1, 0]], [1, 0])
        fit_rule_list(data, "1/10", engine=self.engine)
        assert calls == [1]


class TestReferenceEngine(RuleListSearchTests):
    engine = "reference"


class TestFastEngine(RuleListSearchTests):
    engine = "fast"


@given(rule_list_instances(), st.sampled_from(POLICIES), st.sampled_from(SYMMETRY_MAPS),
       st.sets(st.sampled_from(sorted(BOUNDS)), max_size=3), st.none() | st.integers(1, 20),
       st.none() | st.integers(1, 30))
def test_fast_engine_makes_the_reference_engines_search(instance, policy, symmetry_map,
                                                        disabled, max_nodes, max_queue):
    """Compressing samples and evaluating a batch of prefixes' children at once change no
    decision: the same list, bounds, counters and remaining space, also when a node or queue
    limit stops both (possibly in the middle of a batch)."""
    data, lam = instance
    options = dict(policy=policy, symmetry_map=symmetry_map, disabled_bounds=disabled,
                   max_nodes=max_nodes, max_queue=max_queue)
    fast, reference = (fit_rule_list(data, lam, engine=engine, **options)
                       for engine in ("fast", "reference"))
    assert fast.rule_list == reference.rule_list
    assert (fast.objective, fast.lower_bound, fast.status, fast.nodes_expanded,
            fast.remaining_search_space, fast.statistics, fast.mistakes) == \
        (reference.objective, reference.lower_bound, reference.status,
         reference.nodes_expanded, reference.remaining_search_space, reference.statistics,
         reference.mistakes)


@given(rule_list_instances(), st.sampled_from([
    {"hierarchical", "minimum_support", "accurate_support", "maximum_support"}, set(BOUNDS)]),
    st.integers(1, 60))
def test_fast_engine_with_the_bounds_that_fail_children_all_disabled(instance, disabled,
                                                                     max_nodes):
    """Found by review: with no test left that fails a child, the fast engine's counts of
    failed children had no rows to reshape and it crashed."""
    data, lam = instance
    options = dict(disabled_bounds=disabled, max_nodes=max_nodes)
    fast, reference = (fit_rule_list(data, lam, engine=engine, **options)
                       for engine in ("fast", "reference"))
    assert (fast.rule_list, fast.objective, fast.lower_bound, fast.status, fast.statistics) == \
        (reference.rule_list, reference.objective, reference.lower_bound, reference.status,
         reference.statistics)


@pytest.mark.parametrize("policy", ["lower-bound", "bfs"])
def test_fast_engine_evaluates_batches_of_prefixes(monkeypatch, policy):
    """The fast engine really runs its vectorised search, several prefixes per batch under the
    policies that allow it, and still makes the reference engine's search."""
    fast = importlib.import_module(ENGINES["fast"])
    batch_sizes = []
    original = fast._Children.__init__
    monkeypatch.setattr(fast._Children, "__init__",
                        lambda self, search, nodes: batch_sizes.append(len(nodes)) or
                        original(self, search, nodes))
    rng = np.random.default_rng(5)
    data = BinaryDataset.from_bits([f"a{m}" for m in range(14)], rng.random((14, 120)) < 0.4,
                                   rng.random(120) < 0.45)
    result = fit_rule_list(data, "1/60", engine="fast", policy=policy)
    reference = fit_rule_list(data, "1/60", engine="reference", policy=policy)
    assert (result.rule_list, result.statistics) == (reference.rule_list, reference.statistics)
    assert max(batch_sizes) > 1 and sum(batch_sizes) >= result.nodes_expanded


def test_fast_engine_batches_are_smaller_on_large_data():
    """A batch's products stay near 2**26 multiply-adds, so a limit or a progress line is never
    far away on large data; the search is still the reference engine's."""
    fast = importlib.import_module(ENGINES["fast"])
    rng = np.random.default_rng(11)
    data = BinaryDataset.from_bits([f"a{m}" for m in range(200)], rng.random((200, 2000)) < 0.5,
                                   rng.random(2000) < 0.5)
    data = data.with_minority(minority_bits(data))
    search = fast._VectorisedBranchAndBound(fast.compressed(data), Fraction(1, 100),
                                            SearchConfig())
    groups = search.matrix.shape[1]
    assert search.batch_size == (1 << 26) // (3 * groups * 200) < 256
    results = [fit_rule_list(data, "1/100", engine=engine, max_nodes=300)
               for engine in ("fast", "reference")]
    assert results[0].statistics == results[1].statistics


@given(rule_list_instances(weighted=False), st.sampled_from([1 << 22, 1 << 47]))
def test_fast_engine_with_large_weights(instance, base):
    """Totals above 2**24 need float64 sums, and above about 2**58/q the int64 arrays could
    overflow (the fast engine then runs the reference search): the same answers either way."""
    data, lam = instance
    data = data.with_weights([base + n for n in range(data.n_samples)])
    fast, reference = (fit_rule_list(data, lam, engine=engine) for engine in ("fast", "reference"))
    assert (fast.rule_list, fast.objective, fast.statistics) == \
        (reference.rule_list, reference.objective, reference.statistics)


def test_compressed_samples_keep_every_count():
    from optrules.fast.corels import compressed
    data = BinaryDataset.from_bits(["a", "b"], [[1, 1, 0, 0, 1], [0, 0, 1, 1, 0]],
                                   [1, 1, 0, 2, 0], classes=("x", "y", "z"),
                                   sample_weight=[1, 2, 3, 4, "1/2"])
    data = data.with_minority(minority_bits(data))
    merged = compressed(data)
    assert merged.n_samples == 4                  # samples 1 and 2 merge (same vector, class)
    assert merged.weights.tolist() == [6, 6, 8, 1]   # in units of 1/2, not reduced
    assert merged.total_weight == data.total_weight
    assert merged.labels.tolist() == [1, 0, 2, 0]


@given(rule_list_instances(), st.integers(1, 30), st.sampled_from(POLICIES),
       st.sampled_from(SYMMETRY_MAPS))
def test_reference_certificate_figures_equal_a_direct_count_of_the_queue(
        instance, max_nodes, policy, symmetry_map):
    """The reference engine keeps the live queue's bounds up to date (so a time limit needs no
    pass over the queue); they must equal what a direct pass over the queue computes."""
    engine = importlib.import_module(ENGINES["reference"])
    data, lam = instance
    data = data.with_minority(minority_bits(data))
    search = engine._BranchAndBound(data, Fraction(lam), SearchConfig(policy=policy,
                                                                      symmetry_map=symmetry_map))
    search.run(max_nodes, None, Budget(), None)
    live = [node for _, node in search.queue if not node.deleted]
    penalty, best = search.rule_penalty, search.best_objective
    lower_bound = min([n.lower_bound + n.minority_bound + penalty for n in live] + [best])
    remaining = 0
    for node in live:
        free, slack = len(search.antecedents) - node.depth, (best - node.lower_bound) // penalty
        remaining += sum(math.perm(free, k) for k in range(min(slack, free) + 1)) \
            if slack >= 0 else 0
    assert search.queue_summary() == (lower_bound, remaining)
