"""Boosting loop, ensembles (printing, prediction, JSON) and the ``optrules boost`` command."""

import json
import math
from fractions import Fraction

import numpy as np
import pytest

from optrules import load_model
from optrules.cli import main
from optrules.data import bitset
from optrules.data.synthetic import noisy_parity
from optrules.rule_boosting.fit import fit_rule, fit_rule_ensemble
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


def test_gradient_problem_holds_the_exact_values_scaled_to_integers():
    """specs §2: floats by their binary values (0.1 is 3602879701896397/2**55), ints,
    Fractions and numeric strings exactly, all over one common denominator S."""
    g = [0.1, np.float64(-0.75), 3, Fraction(-1, 3), "2/7"]
    h = [np.float32(0.5), 1e-20, Fraction(5, 2), 1, "0.25"]
    problem = GradientProblem.from_values(np.eye(5, dtype=bool), list("abcde"), g, h, "1/10")
    exact_g = [Fraction(0.1), Fraction(-3, 4), Fraction(3), Fraction(-1, 3), Fraction(2, 7)]
    exact_h = [Fraction(1, 2), Fraction(1e-20), Fraction(5, 2), Fraction(1), Fraction(1, 4)]
    assert Fraction(0.1) == Fraction(3602879701896397, 2 ** 55)
    assert problem.scale == math.lcm(*(v.denominator for v in exact_g + exact_h), 10)
    assert [Fraction(v, problem.scale) for v in problem.g] == exact_g
    assert [Fraction(v, problem.scale) for v in problem.h] == exact_h
    assert Fraction(problem.lam, problem.scale) == Fraction(1, 10)


def test_gradient_problem_takes_numpy_integer_scalars_as_python_ints():
    """Found by review: a list of numpy integers kept numpy integers (whose ``Fraction`` does),
    and both engines crashed on them (``bit_length``), or overflowed scaling them by S."""
    g = [np.int64(-1), np.int64(-1), np.int32(1), np.uint8(1)]
    problem = GradientProblem.from_values([[1, 1, 0, 0]], ["p0"], g, [np.int16(1)] * 4,
                                          Fraction(1, 2**70))
    assert {type(v) for v in problem.g + problem.h} == {int}
    assert [Fraction(v, problem.scale) for v in problem.g] == [-1, -1, 1, 1]
    for engine in ("fast", "reference"):
        assert fit_rule(problem, engine=engine).query == (0,)
    with pytest.raises(ValueError, match="g contains a non-finite value"):
        GradientProblem.from_values([[1, 0]], ["a"], [0.5, float("nan")], [1, 1], 0)
    with pytest.raises(ValueError, match="min h = -0.5"):
        GradientProblem.from_values([[1, 0]], ["a"], [1, 1], [1, -0.5], 0)


def test_intercept_rule_comes_first_and_is_not_counted():
    X, y = noisy_parity(50, d=2, seed=4)
    ensemble = fit_rule_ensemble(X, y, n_rules=2, lam=2, intercept=True, thresholds="quantile:3")
    assert len(ensemble.rules) == 3 and ensemble.rules[0].conditions == ()
    assert str(ensemble).splitlines()[0].split("   [")[0].rstrip().endswith(" if true")
    assert str(ensemble).splitlines()[0].endswith("   [optimal]")     # eq. 2.2 is exact


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
    assert all(line.endswith("   [heuristic]") for line in lines[:2])     # greedy proves nothing
    assert "2 of 2 rules, boosting complete" in lines[2]
    assert "greedy base learner, training accuracy" in lines[2]


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


# --- statuses, limits and the ensemble status ------------------------------------------------

def test_each_printed_rule_shows_its_status_and_guarantee():
    """[optimal]; [approximate, obj >= α x optimum]; [heuristic]; a stopped search shows its
    stop status and its proven guarantee, rounded down."""
    X, y = noisy_parity(80, d=2, seed=6)
    for options, tag in (({}, "[optimal]"),
                         ({"apx": "1/2"}, "[approximate, obj >= 0.5 x optimum]"),
                         ({"search": "greedy"}, "[heuristic]")):
        ensemble = fit_rule_ensemble(X, y, n_rules=2, lam=2, thresholds="quantile:4", **options)
        assert all(line.endswith(tag) for line in str(ensemble).splitlines()), (options, tag)
    stopped = fit_rule_ensemble(X, y, n_rules=2, lam=2, thresholds="quantile:4", max_nodes=1)
    rule = stopped.rules[0]
    assert rule.statistics["status"] == "node-limit" and rule.statistics["guarantee"] < 1
    shown = str(rule).split("   [node-limit, obj >= ")[1]
    assert shown.endswith(" x optimum]")
    printed = float(shown.split()[0])               # 4 significant digits, never more
    assert rule.statistics["guarantee"] - 1e-4 < printed <= rule.statistics["guarantee"]
    assert stopped.status == "complete"           # a per-rule limit does not stop boosting
    assert len({len(line.split("   [")[0]) for line in str(stopped).splitlines()}) == 1  # aligned


def test_printed_guarantees_are_rounded_down():
    from optrules.rule_boosting.model import BoostedRule
    for guarantee, shown in ((0.99999, "0.9999"), (0.3, "0.3"), (1 / 3, "0.3333"),
                             (2 / 3, "0.6666"), (1e-7, "1E-7")):
        rule = BoostedRule((), 1.0, Fraction(1), 3, {"status": "time-limit",
                                                      "guarantee": guarantee})
        assert str(rule) == f"+1.0000 if true   [time-limit, obj >= {shown} x optimum]"
    rule = BoostedRule((), 1.0, Fraction(1), 3, {"status": "interrupted", "step_halvings": 2})
    assert str(rule).endswith("[interrupted, no guarantee, step halved 2x]")


def test_the_memory_cap_stops_boosting_with_the_round_best_rule_and_its_guarantee():
    """A cap below this process's size stops the first search at its first node: the round
    keeps its best rule (⊤) with its proven guarantee, and boosting stops there."""
    X, y = noisy_parity(60, d=2, seed=2)
    ensemble = fit_rule_ensemble(X, y, n_rules=4, lam=2, thresholds="quantile:4", max_memory=1)
    assert ensemble.status == "memory-limit" and len(ensemble.rules) == 1
    rule = ensemble.rules[0]
    assert rule.statistics["status"] == "memory-limit" and rule.conditions == ()
    full = fit_rule_ensemble(X, y, n_rules=1, lam=2, thresholds="quantile:4", max_memory=None)
    optimum = full.rules[0].objective
    assert rule.objective <= optimum <= rule.statistics["upper_bound"] * (1 + 1e-12)
    assert rule.statistics["guarantee"] * float(optimum) <= float(rule.objective) * (1 + 1e-12)
    assert str(ensemble).splitlines()[-1] == \
        "boosting stopped after 1 rule(s): the memory cap was reached (status memory-limit)"


def test_a_signal_stops_boosting_after_the_round_under_way():
    """The first SIGINT asks the search to stop; the round keeps its rule, boosting ends with
    status "interrupted" (here the signal comes between rounds: both searches finished)."""
    import os
    import signal

    def interrupt_after_the_second_rule(t, rule):
        if t == 1:
            os.kill(os.getpid(), signal.SIGINT)

    X, y = noisy_parity(60, d=2, seed=2)
    ensemble = fit_rule_ensemble(X, y, n_rules=5, lam=2, thresholds="quantile:4",
                                 progress=interrupt_after_the_second_rule)
    assert ensemble.status == "interrupted" and len(ensemble.rules) == 2
    assert [r.statistics["status"] for r in ensemble.rules] == ["optimal", "optimal"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler      # restored


def test_the_total_time_limit_covers_the_whole_ensemble(monkeypatch):
    """time_limit is the whole ensemble's; here a fake clock jumps past it after rule 1."""
    import optrules.limits as limits
    clock = {"now": 0.0}
    monkeypatch.setattr(limits.time, "perf_counter", lambda: clock["now"])

    def an_hour_passes(t, rule):
        clock["now"] += 3600.0

    X, y = noisy_parity(60, d=2, seed=2)
    ensemble = fit_rule_ensemble(X, y, n_rules=3, lam=2, thresholds="quantile:4",
                                 time_limit=60, progress=an_hour_passes)
    assert ensemble.status == "time-limit" and len(ensemble.rules) == 1
    assert ensemble.rules[0].statistics["status"] == "optimal"


def test_the_rule_time_limit_is_per_rule_and_boosting_goes_on():
    X, y = noisy_parity(60, d=2, seed=2)
    ensemble = fit_rule_ensemble(X, y, n_rules=3, lam=2, thresholds="quantile:4",
                                 rule_time_limit=1e-9, time_limit=600)
    assert ensemble.status == "complete" and len(ensemble.rules) == 3
    assert {r.statistics["status"] for r in ensemble.rules} == {"time-limit"}
    assert all(0 <= r.statistics["guarantee"] <= 1 for r in ensemble.rules)


def test_a_stopped_estimator_keeps_its_rules_warns_and_saves_its_status(tmp_path):
    from optrules import OptimalRuleBoostingClassifier
    from optrules.limits import StoppedSearchWarning
    X, y = noisy_parity(60, d=2, seed=2)
    model = OptimalRuleBoostingClassifier(4, thresholds="quantile:4", max_memory=1)
    with pytest.warns(StoppedSearchWarning, match=r"memory cap was reached \(status "
                                                  r"'memory-limit'\).*1 of 4 rules"):
        model.fit(X, y)
    assert model.ensemble_.status == "memory-limit" and len(model.rules_) == 1
    assert model.predict(X).shape == (60,)
    model.to_json(tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert loaded.ensemble_.status == "memory-limit" and str(loaded) == str(model)


def test_boost_cli_reports_the_stop_in_text_and_json(parity_csv, capsys, tmp_path):
    path, _, _ = parity_csv
    model = tmp_path / "model.json"
    arguments = ["boost", "--csv", str(path), "--target", "y", "--rules", "3", "--quiet",
                 "--thresholds", "quantile:4", "--max-memory", "1"]
    assert main(arguments + ["--save-model", str(model)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "[memory-limit, obj >= " in lines[0] and " x optimum]" in lines[0]
    assert lines[1] == ("boosting stopped after 1 rule(s): the memory cap was reached "
                        "(status memory-limit)")
    assert lines[2].startswith("1 of 3 rules, boosting memory-limit, logistic loss")
    assert load_model(model).ensemble_.status == "memory-limit"
    assert main(arguments + ["--json"]) == 0
    output = json.loads(capsys.readouterr().out)
    assert output["status"] == "memory-limit" and len(output["rules"]) == 1
    assert output["rules"][0]["statistics"]["status"] == "memory-limit"


@pytest.mark.parametrize("option, value", [("--time-limit", "0"), ("--rule-time-limit", "-1"),
                                           ("--max-memory", "0")])
def test_boost_cli_limits_are_validated(parity_csv, capsys, option, value):
    path, _, _ = parity_csv
    with pytest.raises(SystemExit) as exit_:
        main(["boost", "--csv", str(path), "--target", "y", option, value])
    assert exit_.value.code == 2 and option in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("signum, code", [("SIGINT", 130), ("SIGTERM", 143)])
def test_boost_cli_signal_prints_the_rules_so_far_and_writes_the_model(tmp_path, signum, code):
    """A first signal stops the search under way: its best rule is kept with its guarantee,
    boosting stops, the ensemble is printed and saved with status "interrupted"."""
    import signal
    import subprocess
    import sys
    import time
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 8)).round(3)
    y = rng.poisson(150 * np.exp(0.3 * X[:, 0] - 0.2 * X[:, 1]))   # rounds of seconds each
    csv = tmp_path / "counts.csv"
    csv.write_text("\n".join([",".join(f"x{j}" for j in range(8)) + ",y"] + [
        ",".join(map(repr, row)) + f",{count}" for row, count in zip(X.tolist(), y)]) + "\n")
    model = tmp_path / "model.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "optrules", "boost", "--csv", str(csv), "--target", "y",
         "--loss", "poisson", "--rules", "50", "--save-model", str(model)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(4)
    process.send_signal(getattr(signal, signum))
    out, err = process.communicate(timeout=60)
    assert process.returncode == code, err
    assert signum in err and "Traceback" not in err
    lines = out.splitlines()
    assert lines[-2].endswith("interrupted by a signal (status interrupted)"), out
    assert ", boosting interrupted, poisson loss" in lines[-1]
    assert "[interrupted, obj >= " in lines[-3] or lines[-3].endswith("[optimal]")
    saved = load_model(model).ensemble_
    assert saved.status == "interrupted" and 1 <= len(saved.rules) < 50
