"""verify: reference = oracle = CP-SAT = MaxSAT on rule lists; reference = oracle = CP-SAT
(claim check, Dinkelbach, cardinality) on boosting rules; broken engines are caught."""

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, strategies as st

from optrules import rule_boosting as boosting, rule_lists
from optrules.rule_boosting.fit import fit_rule
from optrules.cli import main
from optrules.data.binary_dataset import BinaryDataset
from optrules.rule_boosting.gradient_problem import GradientProblem
from optrules.rule_lists.fit import fit_rule_list
from optrules.verify import (InstanceTooLarge, RuleInstance, RuleListInstance, certify_rule,
                             certify_rule_list, load_certificate, optimal_rule,
                             optimal_rule_list)
from optrules.verify.rule_encodings import cardinality_optimum, check_claim, dinkelbach_optimum
from optrules.verify.rule_list_encodings import solve_cpsat, solve_maxsat

TINY_LAMBDAS = [Fraction(1, 1000), Fraction(1, 200)]
LAMBDAS = [Fraction(1, 20), Fraction(1, 10), Fraction(1, 6), Fraction(1, 4), Fraction(2, 5),
           Fraction(49, 100), Fraction(499, 1000)]


@st.composite
def degenerate_rule_list_instances(draw):
    """Small instances of 2-4 classes, unweighted or with exact weights (zero included), with
    the degenerate cases of the issue mixed in."""
    n_antecedents = draw(st.integers(1, 6))
    n_samples = draw(st.integers(1, 30))
    lam = draw(st.sampled_from(LAMBDAS + (TINY_LAMBDAS if n_antecedents <= 5 else [])))
    bits = np.array(draw(st.lists(st.lists(st.booleans(), min_size=n_samples,
                                           max_size=n_samples),
                                  min_size=n_antecedents, max_size=n_antecedents)), dtype=bool)
    n_classes = draw(st.sampled_from([2, 2, 3, 4]))
    labels = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n_samples,
                                    max_size=n_samples)))
    case = draw(st.sampled_from(["random", "duplicate antecedent", "constant labels",
                                 "conflicting rows"]))
    if case == "duplicate antecedent" and n_antecedents > 1:
        bits[1] = bits[0]
    elif case == "constant labels":
        labels[:] = labels[0]
    elif case == "conflicting rows" and n_samples > 1:
        bits[:, 1::2] = bits[:, 0:-1:2]
        labels[1::2] = (labels[0:-1:2] + 1) % n_classes
    weights = None
    if draw(st.booleans()):
        weights = draw(st.lists(st.sampled_from([0, 1, 2, 3, "0.5", "1/3", "2.25"]),
                                min_size=n_samples, max_size=n_samples))
        weights[0] = weights[0] or 1                    # a positive total
    names = [f"a{m}" for m in range(n_antecedents)]
    classes = ("neg", "pos") if n_classes == 2 else tuple(f"c{c}" for c in range(n_classes))
    return BinaryDataset.from_bits(names, bits, labels, classes=classes,
                                   sample_weight=weights), lam


@given(degenerate_rule_list_instances())
def test_rule_list_reference_oracle_cpsat_maxsat_agree(instance):
    data, lam = instance
    result = fit_rule_list(data, lam)
    exact = RuleListInstance.from_dataset(data, lam)
    oracle, _ = optimal_rule_list(exact)
    cpsat, maxsat = solve_cpsat(exact), solve_maxsat(exact)
    assert cpsat.certified and maxsat.certified
    assert result.objective == oracle == cpsat.objective == maxsat.objective
    certificate = certify_rule_list(exact, result.rule_list, data.classes, result.objective)
    assert certificate.verdict == "certified", certificate.to_dict()


@st.composite
def integer_gradient_instances(draw):
    d = draw(st.integers(1, 7))
    n = draw(st.integers(1, 25))
    extents = np.array(draw(st.lists(st.lists(st.booleans(), min_size=n, max_size=n),
                                     min_size=d, max_size=d)), dtype=bool)
    if d > 1 and draw(st.booleans()):
        extents[1] = extents[0]
    g = draw(st.lists(st.integers(-6, 6), min_size=n, max_size=n))
    constant = draw(st.booleans())
    h = [2] * n if constant else draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
    lam = draw(st.sampled_from([Fraction(0), Fraction(1, 2), Fraction(1), Fraction(5)]))
    return extents, g, h, lam


@given(integer_gradient_instances())
def test_rule_reference_oracle_cpsat_agree(instance):
    extents, g, h, lam = instance
    names = [f"p{j}" for j in range(len(extents))]
    result = fit_rule(GradientProblem.from_values(extents, names, g, h, lam))
    exact = RuleInstance.from_values(extents, g, h, lam, names)
    oracle, _ = optimal_rule(exact)
    dinkelbach = dinkelbach_optimum(exact)
    assert result.objective == oracle == dinkelbach.optimum
    assert check_claim(exact, result.objective).verdict == "certified"
    if len(set(h)) == 1:
        assert cardinality_optimum(exact).optimum == oracle
    certificate = certify_rule(exact, result.query, result.objective)
    assert certificate.verdict == "certified", certificate.to_dict()


def small_rule_list_case():
    rng = np.random.default_rng(11)
    bits = rng.random((5, 40)) < 0.4
    labels = bits[0] | (rng.random(40) < 0.15)
    data = BinaryDataset.from_bits([f"a{m}" for m in range(5)], bits, labels,
                                   classes=("neg", "pos"))
    return data, Fraction(1, 50)


@pytest.mark.parametrize("check", ["oracle", "cp-sat", "maxsat"])
def test_each_rule_list_check_catches_a_broken_engine(monkeypatch, check):
    monkeypatch.setitem(rule_lists.ENGINES, "broken", "broken_engines")
    data, lam = small_rule_list_case()
    claimed = fit_rule_list(data, lam, engine="broken")
    assert claimed.objective > fit_rule_list(data, lam).objective   # it really is suboptimal
    certificate = certify_rule_list(RuleListInstance.from_dataset(data, lam), claimed.rule_list,
                                    data.classes, claimed.objective, checks=[check])
    assert certificate.problems == []            # the model itself re-scores to its claim
    assert certificate.verdict == "refuted" and certificate.checks[0]["verdict"] == "refuted"


def test_rescoring_catches_a_wrong_claimed_objective():
    data, lam = small_rule_list_case()
    result = fit_rule_list(data, lam)
    certificate = certify_rule_list(RuleListInstance.from_dataset(data, lam), result.rule_list,
                                    data.classes, result.objective - Fraction(1, 1000),
                                    checks=["oracle"])
    assert certificate.verdict == "refuted"
    assert "re-scores to" in certificate.problems[0]


def small_rule_case():
    """Parity: no single proposition gains anything (greedy stops at ⊤), a ∧ ¬b does."""
    a = np.array([0, 0, 1, 1] * 8, dtype=bool)
    b = np.array([0, 1, 0, 1] * 8, dtype=bool)
    extents = np.array([a, ~a, b, ~b])
    g = [1 if x != y else -1 for x, y in zip(a, b)]
    return extents, g, [1] * 32, Fraction(1)


@pytest.mark.parametrize("check", ["oracle", "claim", "dinkelbach", "cardinality"])
def test_each_rule_check_catches_a_broken_engine(monkeypatch, check):
    monkeypatch.setitem(boosting.ENGINES, "broken", "broken_engines")
    extents, g, h, lam = small_rule_case()
    problem = GradientProblem.from_values(extents, [f"p{j}" for j in range(4)], g, h, lam)
    claimed = fit_rule(problem, engine="broken")
    assert claimed.objective < fit_rule(problem).objective           # really suboptimal
    certificate = certify_rule(RuleInstance.from_problem(problem), claimed.query,
                               claimed.objective, checks=[check])
    assert certificate.verdict == "refuted" and certificate.checks[0]["verdict"] == "refuted"
    if check == "claim":
        better = Fraction(certificate.checks[0]["counterexample_objective"])
        assert better > claimed.objective


def test_oracles_refuse_large_instances():
    big = RuleListInstance.from_bits(np.ones((30, 10), dtype=bool), [1] * 5 + [0] * 5,
                                     Fraction(1, 100))
    with pytest.raises(InstanceTooLarge, match="would enumerate .* lists"):
        optimal_rule_list(big)
    wide = RuleInstance.from_values(np.ones((20, 3), dtype=bool), [1, 2, 3], [1, 1, 1], 1)
    with pytest.raises(InstanceTooLarge, match="conjunctions"):
        optimal_rule(wide)


def test_instance_digest_is_stable_and_sensitive():
    data, lam = small_rule_list_case()
    first = RuleListInstance.from_dataset(data, lam).digest()
    assert first == RuleListInstance.from_dataset(data, lam).digest() and len(first) == 64
    flipped = data.labels.copy()
    flipped[0] = 1 - flipped[0]
    other = BinaryDataset.from_bits(data.antecedent_names, data.antecedent_bits(), flipped)
    assert RuleListInstance.from_dataset(other, lam).digest() != first
    assert RuleListInstance.from_dataset(data, Fraction(1, 51)).digest() != first


def write_corels(tmp_path, data):
    from optrules.data.corels_files import save_corels
    out, label = tmp_path / "d.out", tmp_path / "d.label"
    save_corels(data, out, label)
    return out, label


def test_verify_rulelist_cli_writes_a_certificate(tmp_path, capsys):
    data, _ = small_rule_list_case()
    out, label = write_corels(tmp_path, data)
    certificate = tmp_path / "certificate.json"
    status = main(["verify", "rulelist", "--corels-out", str(out), "--corels-label", str(label),
                   "--lam", "0.02", "--quiet", "--certificate", str(certificate)])
    printed = capsys.readouterr().out
    assert status == 0 and "verdict: certified" in printed
    saved = load_certificate(certificate)
    assert saved["verdict"] == "certified"
    assert {c["check"] for c in saved["checks"]} == {"oracle", "pruned-oracle", "cp-sat",
                                                    "maxsat-rc2"}
    assert saved["instance_sha256"] == RuleListInstance.from_dataset(
        data, Fraction(1, 50)).digest()


def test_verify_cli_exits_non_zero_for_a_broken_engine(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(rule_lists.ENGINES, "broken", "broken_engines")
    data, _ = small_rule_list_case()
    out, label = write_corels(tmp_path, data)
    status = main(["verify", "rulelist", "--corels-out", str(out), "--corels-label", str(label),
                   "--lam", "0.02", "--engine", "broken", "--quiet", "--json"])
    output = json.loads(capsys.readouterr().out)
    assert status == 1 and output["verdict"] == "refuted"


def test_verify_rule_cli(tmp_path, capsys):
    rng = np.random.default_rng(2)
    rows = ["a,b,c,y"] + [f"{rng.integers(0, 5)},{rng.integers(0, 3)},{'uv'[rng.integers(2)]},"
                          f"{rng.integers(2)}" for _ in range(30)]
    path = tmp_path / "t.csv"
    path.write_text("\n".join(rows) + "\n")
    status = main(["verify", "rule", "--csv", str(path), "--target", "y", "--lam", "1",
                   "--thresholds", "all", "--json"])
    output = json.loads(capsys.readouterr().out)
    assert status == 0 and output["verdict"] == "certified"
    verdicts = {c["check"]: c["verdict"] for c in output["checks"]}
    assert verdicts["cp-sat claim check"] == verdicts["cp-sat dinkelbach"] == "certified"
    assert verdicts["cp-sat cardinality"] == "certified"   # logistic at f = 0: h = 1/4


def test_verify_rule_cli_certifies_an_approximation_claim(tmp_path, capsys):
    rng = np.random.default_rng(4)
    rows = ["a,b,y"] + [f"{rng.integers(0, 6)},{'uvw'[rng.integers(3)]},{rng.integers(2)}"
                        for _ in range(40)]
    path = tmp_path / "t.csv"
    path.write_text("\n".join(rows) + "\n")
    status = main(["verify", "rule", "--csv", str(path), "--target", "y", "--lam", "1",
                   "--thresholds", "all", "--apx", "0.5"])
    out = capsys.readouterr().out
    assert status == 0 and "status approximate" in out and "verdict: certified" in out


def test_an_approximation_claim_is_refuted_when_the_rule_is_worse():
    """The α claim obj(q) >= α·max obj: certified for α small enough, refuted otherwise."""
    extents = [[1, 1, 0, 0], [0, 0, 1, 1]]
    instance = RuleInstance.from_values(extents, [2, 2, 0, -1], [1, 1, 1, 1], 1)
    optimum, _ = optimal_rule(instance)
    weaker = (1,)
    value = instance.objective(instance.extent_of(weaker))
    assert 0 < value < optimum
    fine = certify_rule(instance, weaker, value, checks=("oracle", "claim", "dinkelbach"),
                        alpha=value / optimum)
    assert fine.verdict == "certified", fine.to_dict()
    wrong = certify_rule(instance, weaker, value, checks=("oracle", "claim", "dinkelbach"),
                         alpha=value / optimum + Fraction(1, 1000))
    assert wrong.verdict == "refuted", wrong.to_dict()
    assert {c["verdict"] for c in wrong.checks} == {"refuted"}, wrong.to_dict()


@pytest.mark.slow
def test_compas_subset_is_certified_by_cpsat_and_maxsat(compas_dir, capsys):
    """12 antecedents, 300 rows, λ = 0.01. Measured: CP-SAT 12.5 s, MaxSAT (RC2Stratified) 0.8 s."""
    status = main(["verify", "rulelist", "--corels-out", str(compas_dir / "compas_train.out"),
                   "--corels-label", str(compas_dir / "compas_train.label"),
                   "--antecedents", "12", "--rows", "300", "--lam", "0.01",
                   "--checks", "cp-sat,maxsat", "--quiet", "--json"])
    output = json.loads(capsys.readouterr().out)
    assert status == 0 and output["verdict"] == "certified"
    assert [c["verdict"] for c in output["checks"]] == ["certified", "certified"]
    assert all(c["optimum"] == output["claimed_objective"] for c in output["checks"])
