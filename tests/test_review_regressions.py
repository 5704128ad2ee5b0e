"""Regression tests for defects found in review (each failed before its fix)."""

import math
from fractions import Fraction

import numpy as np
import pytest

from optrules.rule_boosting.fit import fit_rule, fit_rule_ensemble
from optrules.cli import main
from optrules.data.binary_dataset import BinaryDataset
from optrules.rule_boosting.gradient_problem import GradientProblem
from optrules.data.propositions import make_propositions
from optrules.rule_lists.fit import fit_rule_list
from optrules.rule_lists.model import score
from optrules.data.table import read_csv
from optrules.verify import InstanceTooLarge, RuleListInstance, certify_rule_list
from optrules.verify.rule_list_encodings import solve_cpsat, solve_maxsat

DATA = BinaryDataset.from_bits(["a", "b"], [[1, 1, 0, 0], [0, 1, 1, 0]], [1, 1, 0, 0])


def test_float_lambda_means_its_decimal_everywhere():
    result = fit_rule_list(DATA, 0.1)
    assert score(result.rule_list, DATA, 0.1).objective == result.objective == Fraction(1, 10)
    instance = RuleListInstance.from_dataset(DATA, 0.1)
    assert instance.lam == Fraction(1, 10)
    assert certify_rule_list(instance, result.rule_list, DATA.classes,
                             result.objective).verdict == "certified"


def test_maxsat_respects_its_time_limit():
    answer = solve_maxsat(RuleListInstance.from_dataset(DATA, "1/10"), time_limit=1e-3)
    assert answer.status == "TIME LIMIT" and not answer.certified and answer.objective is None


def test_cpsat_refuses_coefficients_beyond_its_exact_range():
    instance = RuleListInstance.from_dataset(DATA, Fraction(1, 10 ** 19))
    with pytest.raises(InstanceTooLarge, match=r"exceed 2\*\*53"):
        solve_cpsat(instance)
    assert solve_maxsat(instance).certified     # MaxSAT weights are unbounded integers


def test_verify_of_an_engine_stopped_at_a_limit_is_undecided(tmp_path, capsys):
    rng = np.random.default_rng(0)
    path = tmp_path / "t.csv"
    path.write_text("a,b,c,y\n" + "".join(
        f"{rng.integers(3)},{rng.integers(3)},{rng.integers(2)},{rng.integers(2)}\n"
        for _ in range(40)))
    status = main(["verify", "rulelist", "--csv", str(path), "--target", "y",
                   "--max-cardinality", "1", "--lam", "0.02", "--max-nodes", "1", "--quiet"])
    assert status == 3 and "verdict: undecided" in capsys.readouterr().out


def test_verify_rulelist_saves_the_model(tmp_path, capsys):
    path, model = tmp_path / "t.csv", tmp_path / "m.json"
    path.write_text("a,y\n" + "".join(f"{i % 2},{i % 2}\n" for i in range(10)))
    assert main(["verify", "rulelist", "--csv", str(path), "--target", "y", "--lam", "0.1",
                 "--quiet", "--save-model", str(model)]) == 0
    assert model.is_file()


def test_output_folder_is_checked_before_the_search(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("a,y\n1,1\n0,0\n")
    assert main(["rulelist", "--csv", str(path), "--target", "y", "--lam", "0.1", "--quiet",
                 "--save-model", str(tmp_path / "missing" / "m.json")]) == 2
    assert "--save-model: the folder of" in capsys.readouterr().err


def test_weights_beyond_the_float_range_give_a_clear_error():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    with pytest.raises(ValueError, match="exceeds the float range"):
        fit_rule_ensemble(X, [1e200, 0, 0, 0], loss="squared", n_rules=1, lam=1,
                          thresholds="all")


def test_gradient_problem_reads_a_0_1_integer_matrix():
    problem = GradientProblem.from_values([[1, 0, 1]], ["a"], [1, -1, 1], [1, 1, 1], 0)
    assert problem.extents == (0b101,)
    assert fit_rule(problem).objective == Fraction(4, 2 * 3 * 2)
    with pytest.raises(ValueError, match=r"0/1 matrix of shape \(d, 3\)"):
        GradientProblem.from_values([[1, 0]], ["a"], [1, -1, 1], [1, 1, 1], 0)


def test_byte_order_mark_is_not_part_of_the_first_column(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes("\ufeffy,x\n1,a\n0,b\n".encode("utf-8"))
    features, target = read_csv(path, "y")
    assert features.names == ("x",) and target.tolist() == [1, 0]


def test_nan_text_is_missing_for_boosting_as_for_mining():
    # issue 8: "nan" text is a missing token (specs/data.md), no longer a category
    names = make_propositions({"c": ["NaN", "nan", "1", "2"]}, "all").names
    assert names == ("c<=1.5", "c>1.5")


@pytest.mark.parametrize("limit", [math.nan, math.inf])
def test_non_finite_time_limits_are_rejected(limit):
    with pytest.raises(ValueError, match="time_limit"):
        fit_rule_list(DATA, "0.1", time_limit=limit)
    with pytest.raises(ValueError, match="time_limit"):
        fit_rule_ensemble(np.array([[0.0], [1.0]]), [0, 1], time_limit=limit)


def test_numpy_integers_are_accepted_as_limits():
    assert fit_rule_list(DATA, "0.1", max_nodes=np.int64(3)).objective == Fraction(1, 10)


def test_verify_instances_check_shapes_and_names():
    with pytest.raises(ValueError, match=r"shape \(M, 3\)"):
        RuleListInstance.from_bits(np.ones((3, 2)), [1, 0, 1], "0.1")
    with pytest.raises(ValueError, match="3 names given for 1 rows"):
        RuleListInstance.from_bits([[1, 0]], [1, 0], "0.1", names=["a", "b", "c"])


def test_a_limited_claim_is_refuted_when_its_lower_bound_is_too_high():
    rng = np.random.default_rng(3)
    data = BinaryDataset.from_bits([f"a{m}" for m in range(6)], rng.random((6, 30)) < 0.5,
                                   rng.random(30) < 0.5)
    full = fit_rule_list(data, "1/50")
    limited = fit_rule_list(data, "1/50", max_nodes=1)
    assert limited.status == "node-limit" and full.objective < limited.objective   # 13/50 < 3/10
    instance = RuleListInstance.from_dataset(data, "1/50")
    honest = certify_rule_list(instance, limited.rule_list, data.classes, limited.objective,
                               checks=["oracle"], claimed_lower_bound=limited.lower_bound)
    assert honest.verdict == "undecided" and honest.checks[0]["verdict"] == "bounded"
    lying = certify_rule_list(instance, limited.rule_list, data.classes, limited.objective,
                              checks=["oracle"],
                              claimed_lower_bound=full.objective + Fraction(1, 1000))
    assert lying.verdict == "refuted"


def test_numpy_scalars_in_the_function_api():
    """A λ sweep built with np.linspace must work (np.float64 used to be read via its repr)."""
    from optrules.rule_boosting.fit import fit_rule_ensemble as boost
    for lam in np.linspace(0.1, 0.3, 3):
        assert fit_rule_list(DATA, lam).lam == Fraction(str(round(float(lam), 10)))
    assert fit_rule_list(DATA, np.float32(0.25)).lam == Fraction(1, 4)
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    ensemble = boost(X, [0, 0, 1, 1], n_rules=np.int64(1), lam=np.float64(0.5),
                     apx=np.float32(0.5), max_depth=np.int64(1), thresholds="all")
    assert ensemble.lam == Fraction(1, 2) and len(ensemble.rules) == 1
