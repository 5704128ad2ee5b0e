"""Boosting loop, ensembles (printing, prediction, JSON) and the ``optrules boost`` command."""

import json

import numpy as np
import pytest

from optrules import load_model
from optrules.cli import main
from optrules.data import bitset
from optrules.data.synthetic import noisy_parity
from optrules.rule_boosting.fit import fit_rule_ensemble
from optrules.rule_boosting.gradient_problem import GradientProblem
from optrules.rule_boosting.model import RuleEnsemble
from optrules.verify.instances import RuleInstance
from optrules.verify.oracle import optimal_rule


@pytest.fixture(scope="module")
def parity_csv(tmp_path_factory):
    X, y = noisy_parity(120, d=2, seed=3)
    path = tmp_path_factory.mktemp("data") / "parity.csv"
    rows = ["a,b,colour,y"] + [f"{a:.6f},{b:.6f},{'red' if a > b else 'blue'},{label}"
                              for (a, b), label in zip(X, y)]
    path.write_text("\n".join(rows) + "\n")
    return path, X, y


def test_boosting_weights_follow_eq_2_2_on_the_current_gradients():
    X, y = noisy_parity(60, d=2, seed=0)
    ensemble = fit_rule_ensemble(X, y, loss="squared", n_rules=3, lam=1, thresholds="quantile:6")
    scores = np.zeros(60)
    for rule in ensemble.rules:
        held = np.ones(60, dtype=bool)
        for proposition in rule.conditions:
            held &= proposition.evaluate(X[:, int(proposition.feature[1:])])
        residual = y - scores
        # squared loss: g = -2(y - f), h = 2, so w = Σ 2(y - f) / (λ + 2|I|)
        assert rule.weight == pytest.approx(2 * residual[held].sum() / (1 + 2 * held.sum()),
                                            rel=1e-12)
        assert rule.coverage == held.sum()
        scores += rule.weight * held
    assert np.allclose(ensemble.decision_function(X), scores)


def test_intercept_rule_comes_first_and_is_not_counted():
    X, y = noisy_parity(50, d=2, seed=4)
    ensemble = fit_rule_ensemble(X, y, n_rules=2, lam=2, intercept=True, thresholds="quantile:3")
    assert len(ensemble.rules) == 3 and ensemble.rules[0].conditions == ()
    assert str(ensemble).splitlines()[0].endswith(" if true")


def test_each_boosted_rule_is_optimal_for_its_round():
    """Re-derive each round's gradients and check the rule against exhaustive search."""
    from optrules.rule_boosting.losses import LogisticLoss
    from optrules.data.propositions import make_propositions
    X, y = noisy_parity(40, d=2, seed=8)
    propositions = make_propositions(X, "quantile:3")
    extents = bitset.unpack(propositions.extents, 40)
    ensemble = fit_rule_ensemble(X, y, n_rules=3, lam=2, thresholds="quantile:3")
    loss, scores = LogisticLoss(), np.zeros(40)
    target = loss.prepare_target(y)
    for rule in ensemble.rules:
        g, h = loss.gradients(target, scores)
        problem = GradientProblem.from_values(extents, propositions.names, g, h, 2)
        optimum, _ = optimal_rule(RuleInstance.from_values(extents, g, h, 2))
        assert rule.objective == pytest.approx(float(optimum), rel=1e-12)
        held = np.logical_and.reduce([p.evaluate(X[:, int(p.feature[1:])])
                                      for p in rule.conditions] or [np.ones(40, dtype=bool)])
        assert float(problem.objective(int("".join("1" if b else "0" for b in held[::-1]), 2))) \
            == pytest.approx(rule.objective, rel=1e-12)
        scores += rule.weight * held


def test_ensemble_dict_round_trip_predicts_the_same():
    X, y = noisy_parity(80, d=2, seed=5)
    labels = np.where(y > 0, "yes", "no")
    ensemble = fit_rule_ensemble(X, labels, n_rules=3, lam=2, thresholds="quantile:4")
    loaded = RuleEnsemble.from_dict(json.loads(json.dumps(ensemble.to_dict())))
    assert loaded.rules == ensemble.rules and loaded.to_dict() == ensemble.to_dict()
    assert str(loaded) == str(ensemble)
    assert np.array_equal(loaded.predict(X), ensemble.predict(X))
    assert np.array_equal(loaded.predict_proba(X), ensemble.predict_proba(X))
    with pytest.raises(ValueError, match="lacks the field 'loss'"):
        RuleEnsemble.from_dict({"format": "x"})


@pytest.mark.parametrize("options, message", [
    ({"n_rules": 0}, "'n_rules' parameter of fit_rule_ensemble must be a positive integer"),
    ({"lam": -1}, r"'lam' parameter of fit_rule_ensemble must be a fraction in \[0, inf\)"),
    ({"search": "beam"}, r"'search' parameter of fit_rule_ensemble must be one of "
                         r"\['optimal', 'greedy'\]"),
    ({"engine": "gpu"}, "'engine' parameter of fit_rule_ensemble must be one of"),
    ({"apx": 1.5}, r"'apx' parameter of fit_rule_ensemble must be a fraction in \(0, 1\]"),
    ({"max_depth": 0}, "'max_depth' parameter of fit_rule_ensemble must be a positive integer"),
    ({"thresholds": "quantile:0"}, "'thresholds' parameter of fit_rule_ensemble must be 'all', "
                                   "'quantile:K' or 'width:K'"),
    ({"loss": "hinge"}, "'loss' parameter must be one of"),
])
def test_fit_rule_ensemble_parameter_errors(options, message):
    X, y = noisy_parity(10, d=2, seed=0)
    with pytest.raises(ValueError, match=message):
        fit_rule_ensemble(X, y, **options)


def test_rows_and_target_must_agree():
    X, y = noisy_parity(10, d=2, seed=0)
    with pytest.raises(ValueError, match="y has 9 values but X has 10 rows"):
        fit_rule_ensemble(X, y[:9])


def test_boost_cli_json_contract(parity_csv, capsys, tmp_path):
    path, X, y = parity_csv
    model = tmp_path / "model.json"
    status = main(["boost", "--csv", str(path), "--target", "y", "--rules", "3", "--lam", "2",
                   "--thresholds", "quantile:4", "--json", "--quiet", "--save-model", str(model)])
    assert status == 0
    output = json.loads(capsys.readouterr().out)
    assert {"rules", "loss", "lambda", "seconds"} <= output.keys()
    assert output["loss"] == "logistic" and output["lambda"] == "2/1"
    assert len(output["rules"]) == 3
    for rule in output["rules"]:
        assert {"conditions", "weight", "objective", "coverage"} <= rule.keys()
        assert isinstance(rule["weight"], float) and isinstance(rule["coverage"], int)
        numerator, denominator = map(int, rule["objective"].split("/"))   # exact, as "p/q"
        assert rule["objective_float"] == pytest.approx(numerator / denominator, rel=1e-12)
        statistics = rule["statistics"]
        assert {"nodes", "bound_immediate", "bound_propagated", "equivalence_immediate",
                "equivalence_propagated", "bound_gap"} <= statistics.keys()
        assert statistics["bound_gap"] == 0 and statistics["status"] == "optimal"
    assert 0.5 < output["training_accuracy"] <= 1
    assert load_model(model).ensemble_.to_dict()["rules"] == output["rules"]


def test_boost_cli_prints_one_line_per_rule(parity_csv, capsys):
    path, _, _ = parity_csv
    status = main(["boost", "--csv", str(path), "--target", "y", "--rules", "2",
                   "--search", "greedy", "--quiet", "--thresholds", "width:4"])
    lines = capsys.readouterr().out.splitlines()
    assert status == 0 and len(lines) == 3
    assert all(line[0] in "+-" and " if " in line for line in lines[:2])
    assert "greedy search, training accuracy" in lines[2]


def test_boost_cli_regression_target_must_be_numeric(parity_csv, capsys):
    path, _, _ = parity_csv
    assert main(["boost", "--csv", str(path), "--target", "colour", "--loss", "squared",
                 "--quiet"]) == 2
    assert "target column 'colour' must be numeric for the squared loss" in \
        capsys.readouterr().err


def test_boost_cli_missing_target_is_named(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("a,y\n1,1\n2,\n3,0\n")
    assert main(["boost", "--csv", str(path), "--target", "y", "--quiet"]) == 2
    assert "target column 'y' is missing in 1 row(s) (first: data row 2)" in \
        capsys.readouterr().err


def test_boost_model_file_predicts_through_the_cli(parity_csv, capsys, tmp_path):
    path, X, y = parity_csv
    model = tmp_path / "model.json"
    assert main(["boost", "--csv", str(path), "--target", "y", "--rules", "3",
                 "--thresholds", "quantile:4", "--quiet", "--save-model", str(model)]) == 0
    capsys.readouterr()
    assert main(["predict", "--model", str(model), "--csv", str(path), "--proba"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "prediction,P(-1),P(1)" and len(lines) == 121
    estimator = load_model(model)
    from optrules.data.table import read_csv
    features, _ = read_csv(path, "y")
    assert [line.split(",")[0] for line in lines[1:]] == \
        [str(p) for p in estimator.predict(features)]
