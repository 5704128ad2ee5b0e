"""Search certificates of optimal boosting rules (specs/certificates.md §5): the reference
engine writes them, the checker in verify accepts them on random problems (α = 1 and α < 1,
with equivalent and implied propositions) and on a real one, and rejects tampering."""

import json
import pathlib
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from optrules.rule_boosting.fit import fit_rule
from optrules.rule_boosting.gradient_problem import GradientProblem
from optrules.verify import RuleInstance, optimal_rule
from optrules.verify.rule_search_certificate import check_rule_search_certificate


@st.composite
def problems(draw):
    d = draw(st.integers(1, 6))
    n = draw(st.integers(1, 20))
    extents = np.array(draw(st.lists(st.lists(st.booleans(), min_size=n, max_size=n),
                                     min_size=d, max_size=d)), dtype=bool)
    if d > 2 and draw(st.booleans()):
        extents[1] = extents[0]                              # equivalent propositions
    if d > 3 and draw(st.booleans()):
        extents[3] = extents[0] | extents[2]                 # implied by p0
    g = draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n))
    h = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    return GradientProblem.from_values(extents, [f"p{j}" for j in range(d)], g, h,
                                       draw(st.integers(0, 2)))


def certified(folder, problem, engine="fast", **options):
    path = pathlib.Path(folder) / "rule.jsonl"
    result = fit_rule(problem, engine=engine, certificate=path, max_memory=None, **options)
    return result, path, RuleInstance.from_problem(problem)


@given(problems(), st.sampled_from(["1", "1/2", "9/10"]), st.booleans(), st.booleans(),
       st.sampled_from(["fast", "reference"]))
@settings(deadline=None)
def test_certificates_of_random_rule_searches_are_accepted(tmp_path_factory, problem, alpha,
                                                           bound_pruning, equivalence_pruning,
                                                           engine):
    result, path, instance = certified(tmp_path_factory.mktemp("r"), problem, engine,
                                       apx=alpha, bound_pruning=bound_pruning,
                                       equivalence_pruning=equivalence_pruning)
    report = check_rule_search_certificate(path, instance)
    assert report.accepted, report.reason
    optimum, _ = optimal_rule(instance)
    assert result.objective * Fraction(alpha) <= optimum


def test_float_gradients_with_huge_denominators_are_accepted(tmp_path):
    """Found by the distributed search's tests: the checker's common denominator of float
    g and h (up to 2**1074) overflowed numpy's gcd; it is computed with Python integers."""
    problem = GradientProblem.from_values([[1, 1, 0, 0], [0, 1, 1, 0]], ["p0", "p1"],
                                          [5e-324, -0.3, 1e300, 0.1], [1e-300, 2.5, 1.0, 3.0],
                                          Fraction(1, 3))
    result, path, instance = certified(tmp_path, problem)
    report = check_rule_search_certificate(path, instance)
    assert report.accepted, report.reason
    assert result.objective == optimal_rule(instance)[0]


@given(problems(), st.sampled_from(["1", "1/2"]))
@settings(deadline=None)
def test_both_engines_write_the_same_records(tmp_path_factory, problem, alpha):
    """The fast engine makes the reference's decisions in the same order (specs §16 of
    rule-boosting.md), so its records are the reference's, byte for byte."""
    lines = {}
    for engine in ("fast", "reference"):
        _, path, _ = certified(tmp_path_factory.mktemp(engine), problem, engine, apx=alpha)
        header, *records = path.read_text().splitlines()
        assert json.loads(header)["engine"] == engine
        lines[engine] = records
    assert lines["fast"] == lines["reference"]


@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_a_real_first_round_is_accepted(tmp_path, engine):
    """Wine (class 1), logistic gradients at f = 0, 3 quantile cut points per feature."""
    datasets = pytest.importorskip("sklearn.datasets")
    from optrules.data.propositions import make_propositions
    from optrules.rule_boosting.losses import get_loss
    X, y = datasets.load_wine(return_X_y=True)
    propositions = make_propositions(X, "quantile:3")
    loss = get_loss("logistic")
    g, h = loss.gradients(loss.prepare_target(y == 1), np.zeros(len(y)))
    problem = GradientProblem.from_values(propositions.extents, propositions.names, g, h, 2)
    result, path, instance = certified(tmp_path, problem, engine)
    report = check_rule_search_certificate(path, instance)
    assert report.accepted, report.reason
    assert report.records >= result.statistics["nodes"] > 10


# ----- tampering ---------------------------------------------------------------------------------
def tampering_case(tmp_path):
    rng = np.random.default_rng(4)
    extents = rng.random((6, 40)) < 0.5
    extents[4] = extents[0] & extents[1]
    g = np.where(extents[0] & extents[2], 3, -1) * rng.integers(1, 3, 40)
    problem = GradientProblem.from_values(extents, [f"p{j}" for j in range(6)], g.tolist(),
                                          [1] * 40, 1)
    return certified(tmp_path, problem)


def edited(path, edit):
    records = [json.loads(line) for line in path.read_text().splitlines()]
    edit(records)
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def where(records, condition):
    return next(i for i, record in enumerate(records) if condition(record))


def delete_queued(records):
    """The last record of a queued query (no other record names it)."""
    del records[max(i for i, r in enumerate(records) if r.get("expanded") or r.get("dropped"))]
    records[-1]["end"]["records"] -= 1


def weaken_bound(records):
    record = records[where(records, lambda r: "usable" in r)]
    record["bound"] = str(Fraction(record["bound"]) / 2)


def code(old, new):
    def edit(records):
        record = records[where(records, lambda r: old in r.get("codes", ""))]
        record["codes"] = record["codes"].replace(old, new, 1)
    return edit


def witness_off(records):
    record = records[where(records, lambda r: "witnesses" in r)]
    a = next(iter(record["witnesses"]))
    record["witnesses"][a] = int(a)


@pytest.mark.parametrize("edit, message", [
    (delete_queued, "was queued but never expanded or dropped"),
    (weaken_bound, "the stated bound"),
    (code("B", "i"), "is not implied by the query"),
    (witness_off, "does not hold"),
    (lambda records: records.pop(), "truncated"),
    (lambda records: records[0].update(alpha="0/1"), "alpha is not in (0, 1]"),
])
def test_tampered_rule_certificates_are_rejected(tmp_path, edit, message):
    _, path, instance = tampering_case(tmp_path)
    assert check_rule_search_certificate(path, instance).accepted
    report = check_rule_search_certificate(edited(path, edit), instance)
    assert not report.accepted and message in report.reason, report.reason


def test_a_suboptimal_claim_is_rejected(tmp_path):
    """⊤'s objective claimed as the optimum, with ⊤ as the model: it re-scores, but the
    records show a query above it."""
    result, path, instance = tampering_case(tmp_path)
    top = instance.objective(instance.extent_of(()))
    assert result.objective > top

    def claim_top(records):
        records[0]["model"] = {"query": [], "conditions": []}
        records[0]["claimed_objective"] = f"{top.numerator}/{top.denominator}"
    report = check_rule_search_certificate(edited(path, claim_top), instance)
    assert not report.accepted and "above the claim" in report.reason, report.reason


@pytest.mark.parametrize("codes, extra, message", [
    ("inn", {"witnesses": {"1": 0, "2": 0}}, "witness 0 does not hold"),
    ("iOO", {"own": {"1": "0", "2": "0"}}, "without a bound or a witness")])
def test_a_witness_the_query_implies_proves_nothing(tmp_path, codes, extra, message):
    """Found by review: p0 holds everywhere, so ⊤ implies it (coded i), and T ∪ {p0} = T for
    every T that holds p0: as a witness it hid the optimum p1 ∧ p2 behind a claim of p1."""
    problem = GradientProblem.from_values([[1, 1, 1, 1], [1, 1, 0, 0], [1, 0, 1, 0]],
                                          ["p0", "p1", "p2"], [3, -1, -1, 0], [1] * 4, 1)
    result, path, instance = certified(tmp_path, problem)
    assert check_rule_search_certificate(path, instance).accepted
    assert result.query == (1, 2)
    claim = instance.objective(instance.extent_of((1,)))
    assert claim < result.objective

    def forge(records):
        records[0]["model"] = {"query": [1], "conditions": ["p1"]}
        records[0]["claimed_objective"] = f"{claim.numerator}/{claim.denominator}"
        records[1:-1] = [dict({"expanded": [], "usable": "6", "bound": records[1]["bound"],
                               "codes": codes}, **extra)]
        records[-1]["end"]["records"] = 1
    report = check_rule_search_certificate(edited(path, forge), instance)
    assert not report.accepted and message in report.reason, report.reason


def test_huge_ratios_are_ordered_without_floats(tmp_path):
    """Found by review: g/h beyond the float range overflowed the checker's quotient."""
    problem = GradientProblem.from_values([[1, 1, 0, 0], [0, 1, 1, 0]], ["p0", "p1"],
                                          [1e300, -1e300, 1e300, 3.0], [1e-300, 1e-300, 2.0, 1.0],
                                          1)
    result, path, instance = certified(tmp_path, problem)
    report = check_rule_search_certificate(path, instance)
    assert report.accepted, report.reason


def test_only_the_optimal_search_without_max_depth_writes_rule_certificates(tmp_path):
    problem = GradientProblem.from_values([[1, 0]], ["p0"], [1, -1], [1, 1], 1)
    for options in ({"max_depth": 2}, {"search": "greedy"}):
        with pytest.raises(ValueError, match="a search certificate is written by"):
            fit_rule(problem, certificate=tmp_path / "r.jsonl", **options)
    assert list(tmp_path.iterdir()) == []


def test_verify_rule_writes_and_check_certificate_replays(tmp_path, capsys):
    networkx = pytest.importorskip("networkx")
    from optrules.cli import main
    rng = np.random.default_rng(1)
    csv = tmp_path / "t.csv"
    csv.write_text("x1,x2,c,y\n" + "".join(
        f"{rng.normal():.3f},{rng.integers(0, 9)},{'uvw'[rng.integers(3)]},{rng.integers(2)}\n"
        for _ in range(120)))
    certificate, graphml = tmp_path / "rule.jsonl.gz", tmp_path / "tree.graphml"
    data = ["--csv", str(csv), "--target", "y", "--thresholds", "quantile:4"]
    assert main(["verify", "rule", *data, "--engine", "fast", "--checks", "claim",
                 "--search-certificate", str(certificate)]) == 0
    capsys.readouterr()
    assert main(["check-certificate", str(certificate), *data, "--graphml", str(graphml)]) == 0
    assert capsys.readouterr().out.startswith("ACCEPTED: ")
    assert networkx.is_tree(networkx.read_graphml(graphml))
    assert main(["check-certificate", str(certificate), "--csv", str(csv), "--target",
                 "y"]) == 1                                    # quantile:10: other data
    assert "line 1: the instance digest" in capsys.readouterr().out
