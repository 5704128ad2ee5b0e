"""verify with C >= 2 classes and exact sample weights: oracle = CP-SAT = MaxSAT, weight w =
w copies of the row, exact re-scoring against a naive recomputation, refutations, certificate
files with a total weight, and unchanged digests for two unweighted classes (issue 9).

The engines are not run here: these tests check verify against itself and against naive
recomputations only (the reference = oracle tests live with the engines)."""

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, strategies as st

from optrules.data.binary_dataset import BinaryDataset
from optrules.rule_lists.model import Rule, RuleList
from optrules.verify import (Certificate, InstanceTooLarge, RuleListInstance, certify_rule_list,
                             load_certificate, optimal_rule_list, rescore_rule_list)
from optrules.verify.pruned_oracle import pruned_optimal_rule_list
from optrules.verify.rule_list_encodings import (KnownList, integer_groups, max_slots,
                                                 solve_cpsat, solve_maxsat)

LAMBDAS = [Fraction(1, 20), Fraction(1, 10), Fraction(1, 6), Fraction(1, 4), Fraction(2, 5),
           Fraction(49, 100)]
DECIMALS = ["0", "0.25", "0.5", "0.75", "1", "1.5", "2.25"]
CLASS_VALUES = ("a", "b", "c", "d")


def build(bits, labels, lam, n_classes, weights):
    return RuleListInstance.from_bits(bits, labels, lam, [f"s{m}" for m in range(len(bits))],
                                      n_classes, weights)


@st.composite
def matrices(draw, max_antecedents=4, max_samples=12):
    """(bits (M, N), labels (N,), C) with duplicated antecedents and conflicting rows mixed in."""
    n_classes = draw(st.sampled_from([2, 3, 4]))
    n_antecedents = draw(st.integers(1, max_antecedents))
    n_samples = draw(st.integers(1, max_samples))
    bits = np.array(draw(st.lists(st.lists(st.booleans(), min_size=n_samples,
                                           max_size=n_samples),
                                  min_size=n_antecedents, max_size=n_antecedents)), dtype=bool)
    labels = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n_samples,
                                    max_size=n_samples)), dtype=np.int64)
    case = draw(st.sampled_from(["random", "duplicate antecedent", "conflicting rows"]))
    if case == "duplicate antecedent" and n_antecedents > 1:
        bits[1] = bits[0]
    elif case == "conflicting rows" and n_samples > 1:
        bits[:, 1::2] = bits[:, 0:-1:2]
    return bits, labels, n_classes


def positive_somewhere(weights):
    """The weights, with the first one set to 1 if they sum to 0."""
    if sum(Fraction(w) for w in weights) == 0:
        weights[0] = 1 if isinstance(weights[0], int) else "1"
    return weights


@st.composite
def weighted_instances(draw):
    """Small instances: C in {2, 3, 4}; no weights, integer weights 0..5, or decimals."""
    bits, labels, n_classes = draw(matrices())
    kind = draw(st.sampled_from(["none", "integers", "decimals"]))
    weights = None
    if kind != "none":
        values = st.integers(0, 5) if kind == "integers" else st.sampled_from(DECIMALS)
        weights = positive_somewhere(draw(st.lists(values, min_size=labels.size,
                                                   max_size=labels.size)))
    return build(bits, labels, draw(st.sampled_from(LAMBDAS)), n_classes, weights)


def solver_list(instance, answer):
    """The solver's own list as a RuleList (class values from CLASS_VALUES)."""
    classes = CLASS_VALUES[:instance.n_classes]
    rules = tuple(Rule(instance.names[m], classes[c]) for m, c in zip(answer.prefix,
                                                                       answer.labels))
    return RuleList(rules, classes[answer.default], "y", classes), classes


@given(weighted_instances())
def test_oracle_cpsat_and_maxsat_agree(instance):
    oracle, _ = optimal_rule_list(instance)
    for answer in (solve_cpsat(instance), solve_maxsat(instance)):
        assert answer.certified and answer.objective == oracle, (answer.solver, oracle, answer)
        # The solver's own list is a real list with that objective and majority labels.
        rule_list, classes = solver_list(instance, answer)
        check = rescore_rule_list(instance, rule_list, classes)
        assert check.objective == oracle and check.non_majority_labels == (), answer.solver


def known_list(instance, prefix):
    """The list with these antecedents and majority labels as a KnownList, re-scored."""
    classes = CLASS_VALUES[:instance.n_classes]
    rule_list = described(instance, prefix, classes)
    check = rescore_rule_list(instance, rule_list, classes)
    return KnownList(check.objective, tuple(prefix),
                     tuple(predicted for _, _, predicted in check.captures[:-1]),
                     check.captures[-1][2])


@given(weighted_instances(), st.data())
def test_the_pruned_oracle_and_the_solvers_given_a_known_list_find_the_optimum(instance,
                                                                               data):
    """The pruned oracle from scratch, and every method given a known list (an optimal one or
    any other): the oracle's optimum, with a list that re-scores to it."""
    oracle, optimal_prefix = optimal_rule_list(instance)
    answers = [pruned_optimal_rule_list(instance)]
    other = data.draw(st.lists(st.integers(0, instance.n_antecedents - 1), unique=True,
                               max_size=instance.n_antecedents))
    for known in (known_list(instance, optimal_prefix), known_list(instance, other)):
        assert known.objective >= oracle
        answers += [pruned_optimal_rule_list(instance, known=known),
                    solve_cpsat(instance, known=known), solve_maxsat(instance, known=known)]
    for answer in answers:
        assert answer.certified and answer.objective == oracle, (answer.solver, oracle, answer)
        rule_list, classes = solver_list(instance, answer)
        check = rescore_rule_list(instance, rule_list, classes)
        assert check.objective == oracle and check.non_majority_labels == (), answer.solver


def test_cpsat_given_the_optimum_proves_that_nothing_is_below_it():
    instance = three_class_case()
    optimum, prefix = optimal_rule_list(instance)
    answer = solve_cpsat(instance, known=known_list(instance, prefix))
    assert (answer.status, answer.objective, answer.prefix) == ("INFEASIBLE", optimum, prefix)


def test_a_known_list_bounds_the_number_of_slots():
    """floor(U/λ) for a known objective U below R(empty), else the usual K_max."""
    instance = three_class_case()                        # λ = 1/20, R(empty) = 9/28
    optimum, prefix = optimal_rule_list(instance)
    assert max_slots(instance) == 2
    assert max_slots(instance, known_list(instance, prefix)) == min(2, int(optimum * 20))
    bits = np.eye(40, dtype=bool)                        # 40 antecedents, one sample each
    labels = np.zeros(40, dtype=np.int64)
    labels[:12] = 1
    many = build(bits, labels, "1/100", 2, None)         # R(empty) = 12/40 = 30 λ
    assert max_slots(many) == 30
    assert max_slots(many, known_list(many, range(5))) == 22    # U = 7/40 + 5/100 = 22.5 λ
    assert max_slots(many, known_list(many, range(12))) == 12   # U = 12/100 = 12 λ
    assert max_slots(many, known_list(many, ())) == 30


@pytest.mark.parametrize("verdicts, any_, all_", [
    (["certified"], "certified", "certified"),
    (["certified", "undecided", "skipped"], "certified", "undecided"),
    (["skipped", "certified", "certified"], "certified", "undecided"),
    (["certified", "bounded"], "undecided", "undecided"),
    (["certified", "refuted"], "refuted", "refuted"),
    (["undecided", "skipped"], "undecided", "undecided"),
    ([], "undecided", "undecided"),
])
def test_the_verdict_policies(verdicts, any_, all_):
    """"any": one proof and no contrary check; "all": every check proves the claim."""
    def verdict(require, problems=()):
        certificate = Certificate("rule", "0" * 64, Fraction(1), 1, Fraction(0), Fraction(0),
                                  {}, checks=[{"verdict": v} for v in verdicts],
                                  problems=list(problems), require=require)
        return certificate.verdict
    assert (verdict("any"), verdict("all")) == (any_, all_)
    assert verdict("any", ["re-scores otherwise"]) == "refuted"


@given(matrices(max_samples=10), st.lists(st.integers(0, 5), min_size=10, max_size=10),
       st.sampled_from(LAMBDAS))
def test_a_weight_is_that_many_copies_of_the_row(matrix, counts, lam):
    bits, labels, n_classes = matrix
    weights = positive_somewhere(counts[:labels.size])
    weighted = build(bits, labels, lam, n_classes, weights)
    rows = np.repeat(np.arange(labels.size), weights)
    copies = build(bits[:, rows], labels[rows], lam, n_classes, None)
    # The same weights in quarters (as decimal text) describe the same problem.
    quarters = build(bits, labels, lam, n_classes, [str(w / 4) for w in weights])
    optimum, _ = optimal_rule_list(copies)
    assert optimal_rule_list(weighted)[0] == optimal_rule_list(quarters)[0] == optimum
    for instance in (weighted, quarters, copies):
        assert solve_cpsat(instance).objective == optimum
        assert solve_maxsat(instance).objective == optimum
    # Both reduce to the same integer groups (the encodings' scaling divides by the gcd).
    assert sorted(integer_groups(weighted)[0]) == sorted(integer_groups(quarters)[0])
    assert max_slots(weighted) == max_slots(quarters) == max_slots(copies)


@st.composite
def random_lists(draw):
    instance = draw(weighted_instances())
    classes = CLASS_VALUES[:instance.n_classes]
    order = draw(st.permutations(range(instance.n_antecedents)))
    length = draw(st.integers(0, instance.n_antecedents))
    predictions = draw(st.lists(st.sampled_from(classes), min_size=length + 1,
                                max_size=length + 1))
    rules = tuple(Rule(instance.names[m], p) for m, p in zip(order[:length], predictions))
    return instance, RuleList(rules, predictions[-1], "y", classes)


@given(random_lists())
def test_rescore_equals_a_naive_recomputation(case):
    instance, rule_list = case
    classes = rule_list.classes
    weights = [Fraction(1)] * instance.n_samples if instance.weights is None \
        else list(instance.weights)
    outcomes = [rule.prediction for rule in rule_list.rules] + [rule_list.default]
    captured = [[Fraction(0)] * instance.n_classes for _ in outcomes]
    for n in range(instance.n_samples):       # sample by sample: the first rule that holds
        k = next((k for k, rule in enumerate(rule_list.rules)
                  if instance.antecedents[instance.names.index(rule.antecedent), n]),
                 len(rule_list.rules))
        captured[k][instance.labels[n]] += weights[n]
    mistakes = sum(sum(row) - row[classes.index(p)] for row, p in zip(captured, outcomes))
    not_majority = [k for k, (row, p) in enumerate(zip(captured, outcomes))
                    if max(row) > row[classes.index(p)]]
    check = rescore_rule_list(instance, rule_list, classes)
    assert check.mistakes == mistakes
    assert check.objective == mistakes / sum(weights) + instance.lam * len(rule_list)
    keys = list(range(len(rule_list.rules))) + ["default"]
    assert list(check.non_majority_labels) == [keys[k] for k in not_majority]
    assert [(key, list(row), classes[c]) for key, row, c in check.captures] == \
        list(zip(keys, captured, outcomes))


# --- fixed cases ------------------------------------------------------------------------------

def three_class_case():
    """3 classes, weights with quarters and a zero: 2 antecedents, 8 samples."""
    bits = [[1, 1, 1, 0, 0, 0, 0, 1],
            [0, 0, 1, 1, 1, 0, 0, 0]]
    labels = [0, 0, 1, 2, 2, 1, 1, 2]
    weights = ["1", "0.5", "0.25", "2", "1", "1.5", "0.75", "0"]
    return RuleListInstance.from_bits(bits, labels, "1/20", ["p", "q"], 3, weights)


def described(instance, prefix, classes):
    """The list with these antecedents, majority labels (ties to the last class in class
    order) and exact class counts, as an engine would return it."""
    check = rescore_rule_list(instance, RuleList(
        tuple(Rule(instance.names[m], classes[0]) for m in prefix), classes[0], "y", classes),
        classes)
    labelled = [(weights, classes[max(range(len(classes)), key=lambda c: (weights[c], c))])
                for _, weights, _ in check.captures]
    rules = tuple(Rule(instance.names[m], prediction, None, weights)
                  for m, (weights, prediction) in zip(prefix, labelled))
    default_weights, default = labelled[-1]
    return RuleList(rules, default, "y", classes, default_weights)


def test_the_three_class_case_has_a_nontrivial_optimum():
    instance = three_class_case()
    optimum, prefix = optimal_rule_list(instance)
    assert instance.total_weight == 7 and optimum < rescore_rule_list(
        instance, described(instance, (), CLASS_VALUES[:3]), CLASS_VALUES[:3]).objective
    rule_list = described(instance, prefix, CLASS_VALUES[:3])
    assert rescore_rule_list(instance, rule_list, CLASS_VALUES[:3]).objective == optimum
    certificate = certify_rule_list(instance, rule_list, CLASS_VALUES[:3], optimum)
    assert certificate.verdict == "certified", certificate.to_dict()
    assert certificate.total_weight == 7


@pytest.mark.parametrize("check", ["oracle", "cp-sat", "maxsat"])
def test_each_check_refutes_a_suboptimal_weighted_claim(check):
    instance = three_class_case()
    classes = CLASS_VALUES[:3]
    empty = described(instance, (), classes)
    objective = rescore_rule_list(instance, empty, classes).objective
    certificate = certify_rule_list(instance, empty, classes, objective, checks=[check])
    assert certificate.problems == []          # the list itself re-scores to its claim
    assert certificate.verdict == "refuted" and certificate.checks[0]["verdict"] == "refuted"


def test_a_wrong_claimed_objective_is_refuted():
    instance = three_class_case()
    optimum, prefix = optimal_rule_list(instance)
    rule_list = described(instance, prefix, CLASS_VALUES[:3])
    certificate = certify_rule_list(instance, rule_list, CLASS_VALUES[:3],
                                    optimum - Fraction(1, 1000), checks=["oracle"])
    assert certificate.verdict == "refuted"
    assert certificate.problems[0].startswith(f"the model re-scores to {optimum.numerator}/")


def test_a_label_that_is_not_a_majority_label_is_reported():
    instance = three_class_case()
    classes = CLASS_VALUES[:3]
    # Rule p captures samples 0, 1, 2, 7: class weights (3/2, 1/4, 0), so "a" is the only
    # majority label; the default captures 3..6: (0, 9/4, 3), "c" only.
    good = described(instance, (0,), classes)
    assert [rule.prediction for rule in good.rules] + [good.default] == ["a", "c"]
    check = rescore_rule_list(instance, good, classes)
    assert check.non_majority_labels == ()
    assert check.captures == ((0, (Fraction(3, 2), Fraction(1, 4), Fraction(0)), 0),
                              ("default", (Fraction(0), Fraction(9, 4), Fraction(3)), 2))
    bad = RuleList((Rule("p", "b", None, good.rules[0].class_counts),), "c", "y", classes,
                   good.default_counts)
    check = rescore_rule_list(instance, bad, classes)
    assert check.non_majority_labels == (0,)
    assert check.mistakes == Fraction(3, 2) + Fraction(9, 4)
    certificate = certify_rule_list(instance, bad, classes, check.objective, checks=[])
    assert certificate.verdict == "refuted"
    assert certificate.problems == ["labels that are not majority labels: [0]"]


def test_a_tie_accepts_every_maximal_class():
    # Classes 0 and 2 tie at weight 2 (class 1 has 1): either is a majority label, 1 is not.
    instance = RuleListInstance.from_bits(np.zeros((0, 4)), [0, 2, 1, 2], "1/10",
                                          weights=[2, 1, 1, 1])
    classes = ("x", "y", "z")
    for default, reported in (("x", ()), ("z", ()), ("y", ("default",))):
        check = rescore_rule_list(instance, RuleList((), default, "t", classes), classes)
        assert check.non_majority_labels == reported, default
    assert optimal_rule_list(instance)[0] == Fraction(3, 5)


def test_class_counts_that_are_not_the_captured_weights_are_reported():
    instance = three_class_case()
    optimum, prefix = optimal_rule_list(instance)
    rule_list = described(instance, prefix, CLASS_VALUES[:3])
    wrong = RuleList(rule_list.rules, rule_list.default, "y", rule_list.classes,
                     tuple(c + 1 for c in rule_list.default_counts))
    certificate = certify_rule_list(instance, wrong, CLASS_VALUES[:3], optimum,
                                    checks=["oracle"])
    assert certificate.problems == ["class counts that are not the class weights the rule "
                                    "captures: ['default']"]


def test_cpsat_refuses_weights_beyond_its_exact_range_and_maxsat_solves_them():
    # The weights' common denominator 10**10 + 1 times q = 10**9 exceeds 2**62.
    weights = [Fraction(1, 10 ** 10 + 1), 1, 1, Fraction(1, 2)]
    instance = RuleListInstance.from_bits([[1, 1, 0, 0], [0, 1, 1, 0]], [1, 1, 0, 2],
                                          Fraction(1, 10 ** 9), weights=weights)
    with pytest.raises(InstanceTooLarge, match=r"exceed 2\*\*53"):
        solve_cpsat(instance)
    answer = solve_maxsat(instance)
    assert answer.certified and answer.objective == optimal_rule_list(instance)[0]


def test_maxsat_without_soft_clauses_and_a_failing_rc2_answer_at_once(monkeypatch):
    """Found by review: with no rule that fits and only exact class ties there is no soft
    clause, RC2's child died of it, and the parent waited out the whole time limit."""
    instance = RuleListInstance.from_bits(np.zeros((0, 2), dtype=bool), [0, 1], Fraction(1, 10))
    answer = solve_maxsat(instance, time_limit=30)
    assert answer.certified and answer.objective == Fraction(1, 2) and answer.seconds < 10
    import pysat.examples.rc2 as rc2

    def broken(*args, **kwargs):
        raise RuntimeError("no solver today")
    monkeypatch.setattr(rc2, "RC2Stratified", broken)      # in the forked child too
    answer = solve_maxsat(instance, time_limit=30)
    assert answer.status == "FAILED (RuntimeError: no solver today)" and not answer.certified
    assert answer.seconds < 10


def test_cpsat_refuses_objectives_from_2_to_the_53():
    """Found by review: with λ = 1/(10**17 + 1) (objectives of about 2**57 units, below the
    old limit of 2**62) CP-SAT answered OPTIMAL at 2λ; the optimum is λ, one rule."""
    instance = RuleListInstance.from_bits([[1, 0, 0], [0, 0, 1]], [1, 0, 0],
                                          Fraction(1, 10**17 + 1))
    assert optimal_rule_list(instance)[0] == Fraction(1, 10**17 + 1)
    with pytest.raises(InstanceTooLarge, match=r"exceed 2\*\*53"):
        solve_cpsat(instance)
    answer = solve_maxsat(instance)
    assert answer.certified and answer.objective == Fraction(1, 10**17 + 1)


# --- instances and digests --------------------------------------------------------------------

def test_two_class_unweighted_digests_are_unchanged():
    """Expected values computed with the code of commit c60acd5 (before classes and weights):
    ``verify/instances.py`` of that commit, run on these very inputs (``git archive c60acd5``)."""
    rng = np.random.default_rng(11)
    bits = rng.random((5, 40)) < 0.4
    labels = bits[0] | (rng.random(40) < 0.15)
    names = [f"a{m}" for m in range(5)]
    case = RuleListInstance.from_bits(bits, labels, Fraction(1, 50), names)
    assert case.digest() == "4f5ef656fa1120e9d73fe10b2dbd2c7ca82d0185b9d979a5b0f56d49e4633253"
    # Class indices instead of booleans, and a BinaryDataset, give the same instance.
    assert RuleListInstance.from_bits(bits, labels.astype(int), "0.02", names,
                                      n_classes=2).digest() == case.digest()
    dataset = BinaryDataset.from_bits(names, bits, labels, classes=("neg", "pos"))
    assert RuleListInstance.from_dataset(dataset, Fraction(1, 50)).digest() == case.digest()
    tiny = RuleListInstance.from_bits([[1, 0, 1, 1], [0, 0, 1, 0]], [True, False, False, True],
                                      "1/10", ["x", "y"])
    assert tiny.digest() == "435bbe038bdc75b49a084e9c249c370ef8c2d1f13439c1cc59c4d9f9c20bc1f5"


def test_digests_distinguish_classes_and_weights():
    bits, labels = [[1, 0, 1]], [0, 1, 1]
    plain = build(bits, labels, "1/10", 2, None)
    digests = {plain.digest(), build(bits, labels, "1/10", 3, None).digest(),
               build(bits, labels, "1/10", 2, [1, 1, 1]).digest(),
               build(bits, labels, "1/10", 2, [1, 1, 2]).digest(),
               build(bits, labels, "1/10", 2, ["0.5", 1, 1]).digest()}
    assert len(digests) == 5
    assert build(bits, labels, "1/10", 2, [0.5, "1", Fraction(1)]).digest() == \
        build(bits, labels, "1/10", 2, ["1/2", 1, 1]).digest()


def test_from_dataset_reads_classes_and_weights():
    dataset = BinaryDataset.from_bits(["p", "q"], [[1, 0, 1, 0], [0, 1, 1, 0]], [2, 0, 1, 2],
                                      classes=("x", "y", "z"), sample_weight=[1, 0.5, 0, 2])
    instance = RuleListInstance.from_dataset(dataset, "1/10")
    assert instance.n_classes == 3 and instance.labels.tolist() == [2, 0, 1, 2]
    assert instance.weights == (1, Fraction(1, 2), 0, 2)
    assert instance.total_weight == Fraction(7, 2) == dataset.total_weight
    assert instance.groups() == [((True, False), (0, 0, 1)),
                                 ((False, True), (Fraction(1, 2), 0, 0)),
                                 ((True, True), (0, 0, 0)), ((False, False), (0, 0, 2))]


@pytest.mark.parametrize("kwargs, error, message", [
    ({"labels": [0, 3, 1]}, ValueError, r"class indices 0\.\.2; sample 2 has label 3"),
    ({"labels": [0, -1, 1]}, ValueError, "sample 2 has label -1"),
    ({"labels": [0, 1.5, 1]}, ValueError, "sample 2 has label 1.5"),
    ({"n_classes": 1}, ValueError, "n_classes must be an integer >= 2"),
    ({"weights": [1, 2]}, ValueError, "2 weights given for 3 samples"),
    ({"weights": [1, -1, 1]}, ValueError, r"'weights\[1\]' parameter .* \[0, inf\)"),
    ({"weights": [1, float("nan"), 1]}, ValueError, "must be finite"),
    ({"weights": [1, "inf", 1]}, ValueError, "must be a number like"),
    ({"weights": [1, True, 1]}, TypeError, r"'weights\[1\]' parameter"),
    ({"weights": [0, "0", 0.0]}, ValueError, "the weights sum to 0"),
])
def test_instances_refuse_bad_labels_and_weights(kwargs, error, message):
    given_ = dict({"labels": [0, 2, 1], "n_classes": 3, "weights": None}, **kwargs)
    with pytest.raises(error, match=message):
        RuleListInstance.from_bits([[1, 0, 1]], given_["labels"], "1/10",
                                   n_classes=given_["n_classes"], weights=given_["weights"])


# --- certificate files ------------------------------------------------------------------------

@pytest.fixture
def weighted_certificate(tmp_path):
    instance = three_class_case()
    optimum, prefix = optimal_rule_list(instance)
    rule_list = described(instance, prefix, CLASS_VALUES[:3])
    path = tmp_path / "weighted.json"
    certify_rule_list(instance, rule_list, CLASS_VALUES[:3], optimum,
                      checks=["oracle", "cp-sat", "maxsat"]).save(path)
    return path


def _edited(path, edit):
    body = json.loads(path.read_text())
    edit(body)
    path.write_text(json.dumps(body))
    return path


def test_weighted_certificates_round_trip(weighted_certificate):
    body = load_certificate(weighted_certificate)
    assert (body["version"], body["total_weight"], body["verdict"]) == (3, "7/1", "certified")
    assert body["model"]["classes"] == ["a", "b", "c"]
    counts = [rule["class_counts"] for rule in body["model"]["rules"]]
    assert any(isinstance(c, str) for row in counts for c in row)      # "p/q" weights
    assert RuleList.from_dict(body["model"]) == described(
        three_class_case(), optimal_rule_list(three_class_case())[1], CLASS_VALUES[:3])


@pytest.mark.parametrize("edit, message", [
    (lambda b: b.update(total_weight="8/1"),
     "the model's class counts sum to 7/1, not the total weight 8/1, but problems is empty"),
    (lambda b: b.update(total_weight=None),
     "is not m/N + lambda*K for any number of mistakes"),
    (lambda b: b.update(total_weight="0/1"), "total_weight 0/1 must be null, or for a rule "
                                             "list > 0"),
    (lambda b: b.update(total_weight="-7/1"), "total_weight -7/1 must be null"),
    (lambda b: b.update(total_weight=7), 'total_weight must be an exact number like "1/3"'),
    (lambda b: b.pop("total_weight"), "the file lacks the field 'total_weight'"),
    (lambda b: (b.pop("require"), b.update(version=1)),
     "the file has an unknown field 'total_weight'"),
    (lambda b: b.update(version=2), "the file has an unknown field 'require'"),
    (lambda b: b.update(require="some"), "require 'some' is not one of ['any', 'all']"),
    (lambda b: b["model"]["default_counts"].append(b["model"]["default_counts"].pop() + 1),
     "the model's class counts sum to 8/1, not the total weight 7/1"),
    (lambda b: b["model"].update(default="a"),
     "the model's class counts give the objective"),
])
def test_tampered_weighted_certificates_are_refused(weighted_certificate, edit, message):
    path = _edited(weighted_certificate, edit)
    with pytest.raises(ValueError) as raised:
        load_certificate(path)
    assert str(raised.value).startswith(f"{path}: ") and message in str(raised.value), \
        raised.value


def test_version_1_certificates_still_load(tmp_path):
    """A two-class unweighted certificate as version 1 wrote it (no total_weight) loads."""
    rng = np.random.default_rng(11)
    bits = rng.random((5, 40)) < 0.4
    labels = bits[0] | (rng.random(40) < 0.15)
    instance = RuleListInstance.from_bits(bits, labels, Fraction(1, 50))
    optimum, prefix = optimal_rule_list(instance)
    rule_list = described(instance, prefix, ("neg", "pos"))
    path = tmp_path / "v2.json"
    certify_rule_list(instance, rule_list, ("neg", "pos"), optimum, checks=["oracle"]).save(path)
    assert load_certificate(path)["total_weight"] is None

    def as_version_1(body):
        body.pop("total_weight"), body.pop("require")
        body["version"] = 1
    body = load_certificate(_edited(path, as_version_1))
    assert body["version"] == 1 and "total_weight" not in body and body["verdict"] == "certified"
