"""Boosted rules (BOOMER): estimators, model files and ``optrules boomer``."""

import json
import warnings

import numpy as np
import pytest
import scipy.sparse

from optrules import BoostedRulesClassifier, BoostedRulesRegressor, load_model
from optrules.boosted_rules import BoostedRules, fit_boosted_rules
from optrules.cli import main
from optrules.limits import StoppedSearchWarning


def mixed_data(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = {"colour, shade": rng.choice(["red", "blue", "green"], n).astype(object),
         "size: cm": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n).round(3)),
         "flag": rng.random(n) < 0.3}
    y = np.where((np.nan_to_num(X["size: cm"]) > 0.2) ^ (X["colour, shade"] == "red"),
                 "yes", "no")
    return X, y


def multi_label_data(n=60, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    Y = np.column_stack([X[:, 0] > 0, X[:, 1] + X[:, 0] > 0.5, X[:, 2] < -0.3]).astype(int)
    return X, Y


def fitted():
    X, y = mixed_data()
    Xm, Ym = multi_label_data()
    return {
        "binary": (BoostedRulesClassifier(15, random_state=0).fit(X, y), X),
        "multi-label": (BoostedRulesClassifier(15, head="complete", feature_sampling=False)
                        .fit(Xm, Ym), Xm),
        "regression": (BoostedRulesRegressor(15, random_state=2)
                       .fit(Xm, Xm[:, 0] * 2 + Ym[:, 1]), Xm),
        "multi-output": (BoostedRulesRegressor(10, feature_sampling=False)
                         .fit(Xm, Xm[:, :2]), Xm),
    }


@pytest.fixture(scope="module")
def models():
    return fitted()


@pytest.mark.parametrize("which", ["binary", "multi-label", "regression", "multi-output"])
def test_model_file_round_trip_predicts_identically(models, which, tmp_path):
    model, X = models[which]
    path = tmp_path / "model.json"
    model.to_json(path)
    loaded = load_model(path)
    assert type(loaded) is type(model) and loaded.get_params() == model.get_params()
    assert np.array_equal(loaded.predict(X), model.predict(X))
    assert str(loaded) == str(model) and loaded.rules_ == model.rules_
    if hasattr(model, "predict_proba"):
        assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))
        assert loaded.classes_.tolist() == model.classes_.tolist()


def test_damaged_model_files_are_refused(models, tmp_path):
    model, _ = models["binary"]
    path = tmp_path / "model.json"
    model.to_json(path)
    body = json.loads(path.read_text())
    for change, message in [
            (lambda b: b["model"].update(status="optimal"), "model.status must be one of"),
            (lambda b: b["model"]["rules"][1]["conditions"].append(
                {"feature": "flag", "operator": "<=", "threshold": 1}),
             r"operator must be one of \['==', '!='\]"),
            (lambda b: b["model"]["rules"].pop(0), "must start with the default rule"),
            (lambda b: _numeric_condition(b).update(threshold=1e308),    # found by review
             r"threshold 1e\+308 is beyond float32's range"),
            (lambda b: _numeric_condition(b).update(threshold=3.5e38),
             r"threshold 3\.5e\+38 is beyond float32's range"),
            (lambda b: b.update(outputs=["yes", "no"]), "in class order")]:
        damaged = json.loads(json.dumps(body))
        change(damaged)
        from optrules.model_files import write_model
        damaged.pop("sha256")
        for field in ("format", "version", "kind", "optrules_version"):
            damaged.pop(field)
        write_model(path, "BoostedRulesClassifier", damaged)
        with pytest.raises(ValueError, match=message):
            load_model(path)


def test_a_threshold_that_rounds_to_float32s_largest_value_loads(models, tmp_path):
    model, X = models["binary"]
    path = tmp_path / "model.json"
    model.to_json(path)
    body = json.loads(path.read_text())
    _numeric_condition(body).update(threshold=3.4028235e38)   # float32's maximum, printed
    from optrules.model_files import write_model
    for field in ("sha256", "format", "version", "kind", "optrules_version"):
        body.pop(field)
    write_model(path, "BoostedRulesClassifier", body)
    assert load_model(path).predict(X).shape == model.predict(X).shape


def _numeric_condition(body):
    return next(condition for rule in body["model"]["rules"] for condition in rule["conditions"]
                if isinstance(condition["threshold"], (int, float)))


def test_a_score_written_as_a_huge_json_integer_is_read_as_a_float(models, tmp_path):
    """Found by review: a score of 10**30 written as an integer loaded as a Python int, and
    predict failed in numpy (an object array)."""
    model, X = models["regression"]
    path = tmp_path / "model.json"
    model.to_json(path)
    body = json.loads(path.read_text())
    head = body["model"]["rules"][0]["head"]
    output = next(iter(head))
    head[output] = 10**30
    from optrules.model_files import write_model
    for field in ("sha256", "format", "version", "kind", "optrules_version"):
        body.pop(field)
    write_model(path, "BoostedRulesRegressor", body)
    predictions = load_model(path).predict(X)
    assert predictions.dtype == np.float64 and np.all(predictions > 1e29)
    head[output] = 10**400                                       # beyond every float
    write_model(path, "BoostedRulesRegressor", body)
    with pytest.raises(ValueError, match=f"head.{output} must be a finite number"):
        load_model(path)


def test_shapes_of_multi_label_and_binary_predictions(models):
    model, X = models["multi-label"]
    assert model.predict(X).shape == (len(X), 3)
    assert model.predict_proba(X).shape == (len(X), 3)
    assert all(len(rule["head"]) == 3 for rule in model.rules_)       # complete heads
    binary, Xb = models["binary"]
    assert binary.predict_proba(Xb).shape == (80, 2)
    assert set(binary.predict(Xb)) <= {"no", "yes"}
    assert models["multi-output"][0].predict(X).shape == (len(X), 2)


def test_predictions_from_the_first_rules(models):
    model, X = models["regression"]
    default_only = model.predict(X, n_rules=0)
    assert np.all(default_only == default_only[0])
    assert np.array_equal(model.predict(X, n_rules=15), model.predict(X))
    losses = [np.mean((model.predict(X, n_rules=k) - (X[:, 0] * 2)) ** 2) for k in (0, 15)]
    assert losses[1] < losses[0]


def test_text_shows_the_default_rule_and_conditions(models):
    text = str(models["binary"][0]).splitlines()
    assert text[0].startswith("{} => (y = ")
    assert len(text) == 16 and all(line.startswith("{") and " => (y = " in line
                                   for line in text)


def test_a_time_limit_keeps_the_rules_so_far():
    X, Y = multi_label_data(400)
    with pytest.warns(StoppedSearchWarning, match="time limit"):
        model = BoostedRulesClassifier(10_000, time_limit=0.3).fit(X, Y)
    assert model.model_.status == "time-limit" and 1 < len(model.rules_) < 10_001


def test_verbose_prints_each_rule(capsys):
    X, y = mixed_data()
    BoostedRulesClassifier(2, verbose=1, random_state=0).fit(X, y)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and all(line.startswith(f"rule {k + 1}: {{") and " => (y = " in line
                                   for k, line in enumerate(lines))


@pytest.mark.parametrize("X, y, options, message", [
    ([[1.0], [2.0], [1e39]], [0, 1, 1], {},
     r"'x0' holds the value 1e\+39, beyond float32's range"),
    (scipy.sparse.csr_matrix([[1.0], [1e39], [0]]), [0, 1, 1], {},
     r"'x0 \(column 0\)' holds the value 1e\+39, beyond float32's range"),
    (scipy.sparse.csr_matrix([[1j], [2.0]]), [0, 1], {}, "must hold real numbers"),
    (scipy.sparse.coo_array(np.array([1.0, 2.0])), [0, 1], {}, "must be 2-D"),
    (np.empty((0, 2)), np.empty(0), {}, "X has no rows"),
    ([[1.0], [2.0]], np.empty((2, 0)), {}, "one column per output"),
    ([[1.0], [2.0]], [[0, 1], [1, 0]], {"output_names": ["a"]}, "name the 2 outputs"),
    ([[1.0], [2.0]], [0, 1], {"shrinkage": 1e40}, "'shrinkage' .* must be a number in"),
    ([[1.0], [2.0]], [0, 1], {"l1": 1e40}, "'l1' .* must be a number in"),
    ([[1.0], [2.0]], [0, 1], {"l2": 1e40}, "'l2' .* must be a number in"),
])
def test_bad_input_gets_a_clear_error(X, y, options, message):
    """Found by an adversarial review: each of these used to crash or to fit nonsense (a
    value beyond float32's range became inf)."""
    with pytest.raises(ValueError, match=message):
        fit_boosted_rules(X, y, **options)


def test_predict_refuses_values_beyond_float32_and_fractional_rule_counts():
    model = BoostedRulesClassifier(2).fit([[1.0], [2.0], [3.0], [4.0]], [0, 0, 1, 1])
    with pytest.raises(ValueError, match="beyond float32's range"):
        model.predict([[1e39]])
    for n_rules in (1.5, True, "2"):
        with pytest.raises(TypeError, match="'n_rules' .* must be an integer >= 0 or None"):
            model.predict([[1.0]], n_rules=n_rules)


def test_bad_targets_get_clear_errors():
    X, Y = multi_label_data()
    with pytest.raises(ValueError, match="must hold 0/1 labels"):
        BoostedRulesClassifier(2).fit(X, Y * 2)
    with pytest.raises(ValueError, match="max_rules"):
        BoostedRulesClassifier(-1).fit(X, Y)
    with pytest.raises(ValueError, match="y must hold finite numbers"):
        BoostedRulesRegressor(2).fit(X, np.where(Y == 1, np.nan, 0.0))


# ----- optrules boomer ---------------------------------------------------------------------------

@pytest.fixture
def table(tmp_path):
    X, Y = multi_label_data()
    path = tmp_path / "data.csv"
    rows = ["a,b,c,d,y0,y1,y2"] + [",".join(map(str, list(x) + list(t))) for x, t in zip(X, Y)]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_cli_learns_and_prints_rules(table, capsys):
    assert main(["boomer", "--csv", str(table), "--target", "y0", "--max-rules", "5",
                 "--feature-sampling", "off", "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("{} => (y = ") and len(out) == 7
    assert out[-1].startswith("5 of 5 rules after the default rule (complete), logistic loss")


def test_cli_json_multi_label_and_saved_model(table, tmp_path, capsys):
    saved = tmp_path / "m.json"
    assert main(["boomer", "--csv", str(table), "--target", "y0,y1,y2", "--max-rules", "4",
                 "--head", "complete", "--json", "--save-model", str(saved), "--quiet"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert len(body["rules"]) == 5 and body["rules"][0]["conditions"] == []
    assert set(body["rules"][1]["head"]) == {"y0", "y1", "y2"}
    assert len(body["training_loss"]) == 5 and body["seconds"] > 0
    assert BoostedRules.from_dict(body).rules == load_model(saved).model_.rules


def test_cli_errors_name_the_problem(table, capsys):
    assert main(["boomer", "--csv", str(table), "--target", "nope"]) == 2
    assert "nope" in capsys.readouterr().err
    assert main(["boomer", "--csv", str(table), "--target", "a,b", "--loss", "logistic"]) == 2
    assert "0/1 labels" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["boomer", "--csv", str(table), "--target", "y0", "--l2", "-1"])


def test_cli_regression_on_several_targets(table, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main(["boomer", "--csv", str(table), "--target", "a,b", "--loss", "squared",
                     "--max-rules", "3", "--seed", "1", "--quiet"]) == 0
    assert "squared loss" in capsys.readouterr().out


# ----- sampling, holdout, early stopping ---------------------------------------------------------

def test_instance_samples_and_holdout_split():
    from optrules.boosted_rules.sampling import Sampler
    targets = np.repeat([[0], [1]], [30, 70], axis=0).astype(float)
    for kind, check in [("with", lambda w: w.sum() == 56 and w.max() >= 1),
                        ("without", lambda w: w.sum() == 56 and w.max() == 1),
                        ("stratified", lambda w: (w[:30].sum(), w[30:].sum()) == (17, 39))]:
        sampler = Sampler(targets, 3, True, False, (kind, 0.7), 0.2, random_state=5)
        assert sampler.holdout.sum() == 20 and sampler.holdout[:30].sum() == 6    # stratified
        weights = sampler.weights()
        assert not weights[sampler.holdout].any() and check(weights), kind
        again = Sampler(targets, 3, True, False, (kind, 0.7), 0.2, random_state=5)
        assert np.array_equal(again.weights(), weights)
    assert Sampler(targets, 3, True, False, None, None, 0).weights().tolist() == [1] * 100


def test_early_stopping_keeps_the_rules_up_to_the_least_holdout_loss():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(300, 5)), rng.integers(0, 2, 300)          # noise: overfits
    model = BoostedRulesClassifier(500, holdout=0.3, patience=20, random_state=0).fit(X, y)
    curve = model.model_.holdout_loss
    assert model.model_.status == "early-stopping"
    assert curve[-1] == min(curve) and len(curve) == len(model.rules_)
    assert len(model.model_.training_loss) == len(curve) < 501


def test_instance_sampling_recomputes_heads_on_all_covered_training_examples():
    X, Y = multi_label_data(200)
    model = BoostedRulesClassifier(3, instance_sampling="without:0.3", feature_sampling=False,
                                   random_state=3).fit(X, Y[:, 0])
    from optrules.boosted_rules.training_data import training_data
    from optrules.data.table import as_features
    values = training_data(as_features(X)).values
    y = Y[:, 0].astype(float)
    scores = model.model_.scores(values, 0)[:, 0]
    rule = model.model_.rules[1]
    covered = rule.covers(values)
    p = 1 / (1 + np.exp(-scores[covered]))
    G, H = np.sum(p - y[covered]), np.sum(p * (1 - p))
    assert np.isclose(rule.scores[0], np.float32(0.3) * -G / (H + 1), rtol=1e-9)


def test_bad_sampling_parameters_name_the_parameter():
    X, Y = multi_label_data()
    with pytest.raises(ValueError, match="'instance_sampling' parameter .* must be 'KIND:R'"):
        BoostedRulesClassifier(2, instance_sampling="with:2").fit(X, Y)
    with pytest.raises(ValueError, match="cannot be combined with binning"):
        BoostedRulesClassifier(2, binning="width:0.5", mlrl_compatible=True).fit(X, Y)
    with pytest.raises(ValueError, match=r"'binning' parameter .* KIND one of width, frequency"):
        BoostedRulesClassifier(2, binning="quantile:0.5").fit(X, Y)
    with pytest.raises(ValueError, match=r"'holdout' parameter .* must be a number in \(0, 1\)"):
        BoostedRulesClassifier(2, holdout=1.0).fit(X, Y)


def test_cli_holdout_and_instance_sampling(table, capsys):
    assert main(["boomer", "--csv", str(table), "--target", "y0", "--max-rules", "30",
                 "--instance-sampling", "stratified:0.5", "--holdout", "0.25", "--patience",
                 "5", "--seed", "2", "--binning", "frequency:0.5", "--quiet"]) == 0
    assert "holdout loss" in capsys.readouterr().out
    assert main(["boomer", "--csv", str(table), "--target", "y0", "--holdout", "x"]) == 2
    assert "--holdout must be none or a number" in capsys.readouterr().err


def test_sparse_input_fits_and_predicts_as_dense_input(tmp_path):
    """A scipy.sparse X (a nominal column among them) gives the dense X's model and
    predictions, also after a model-file round trip; sparse X meets a model with
    categorical features with a clear error."""
    scipy_sparse = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(5)
    X = rng.normal(size=(120, 5)) * (rng.random((120, 5)) < 0.3)
    X[:, 4] = rng.choice([0.0, 0.0, 1.0, 2.0], 120)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + (X[:, 4] == 1) > 0.2).astype(int)
    rows, cols = np.nonzero(X != 0)
    sparse = scipy_sparse.csr_matrix((X[rows, cols], (rows, cols)), shape=X.shape)
    dense_model = BoostedRulesClassifier(30, nominal_features=[4], random_state=3).fit(X, y)
    sparse_model = BoostedRulesClassifier(30, nominal_features=[4], random_state=3).fit(sparse,
                                                                                         y)
    assert str(sparse_model) == str(dense_model)
    assert "x4 ==" in str(dense_model) or "x4 !=" in str(dense_model)
    scores = dense_model.decision_function(X)
    assert np.array_equal(sparse_model.decision_function(sparse), scores)
    sparse_model.to_json(tmp_path / "model.json")
    assert np.array_equal(load_model(tmp_path / "model.json").decision_function(sparse), scores)
    with pytest.raises(ValueError, match="X has 4 features, but BoostedRulesClassifier is "
                                         "expecting 5"):
        sparse_model.predict(sparse[:, :4])
    X_mixed, y_mixed = mixed_data()
    categorical = BoostedRulesClassifier(5, random_state=0).fit(X_mixed, y_mixed)
    with pytest.raises(TypeError, match="fitted with categorical features"):
        categorical.predict(scipy_sparse.csr_matrix(np.zeros((2, 3))))
    with pytest.raises(ValueError, match="nominal_features. parameter of "
                                         "BoostedRulesClassifier names an index twice"):
        BoostedRulesClassifier(nominal_features=[1, 1]).fit(X, y)


def test_example_wise_logistic_loss_in_the_estimator_and_the_cli(table, tmp_path, capsys):
    """The example-wise loss learns multi-label rules whose training loss falls, predicts
    0/1 rows and σ(score), and survives a model file; the CLI takes it by name."""
    X, Y = multi_label_data()
    model = BoostedRulesClassifier(20, loss="example-wise-logistic", head="complete",
                                   random_state=0).fit(X, Y)
    curve = model.model_.training_loss
    assert curve[-1] < curve[0] and len(curve) == 21
    assert model.predict(X).shape == Y.shape and set(np.unique(model.predict(X))) <= {0, 1}
    probabilities = model.predict_proba(X)
    assert np.allclose(probabilities, 1 / (1 + np.exp(-model.decision_function(X))))
    model.to_json(tmp_path / "m.json")
    again = load_model(tmp_path / "m.json")
    assert np.array_equal(again.decision_function(X), model.decision_function(X))
    with pytest.raises(ValueError, match="takes complete heads"):
        BoostedRulesClassifier(5, loss="example-wise-logistic").fit(X, Y)
    binned = BoostedRulesClassifier(20, loss="example-wise-logistic", head="complete",
                                    label_binning=0.3, random_state=0).fit(X, Y)
    assert str(binned) != str(model) and binned.model_.training_loss[-1] < curve[0]
    assert main(["boomer", "--csv", str(table), "--target", "y0,y1,y2", "--max-rules", "3",
                 "--loss", "example-wise-logistic", "--head", "complete",
                 "--label-binning", "0.3", "--seed", "0", "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "example-wise-logistic loss" in out[-1] and len(out) == 5
    heads = [line.split(" => ")[1] for line in out[:4]]          # the columns are a, b, ...
    assert heads == [line.split(" => ")[1] for line in str(binned).splitlines()[:4]]


def test_a_target_whose_statistics_would_overflow_is_refused():
    """Found by review: with |y| about 1e155 every head's quality was inf - inf = NaN, and
    the fit silently learnt no rule; up to 1e140 the rules are those of y itself."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = 2 * X[:, 0] + rng.normal(size=60)
    small = BoostedRulesRegressor(4, random_state=0).fit(X, y)
    large = BoostedRulesRegressor(4, random_state=0).fit(X, y * 1e139)
    assert [r["conditions"] for r in large.rules_] == [r["conditions"] for r in small.rules_]
    with pytest.raises(ValueError, match="beyond 1e\\+140 in magnitude.*rescale y"):
        BoostedRulesRegressor(4).fit(X, y * 1e155)
    with pytest.raises(ValueError, match="beyond 1e\\+140"):
        BoostedRulesRegressor(4).fit(X, np.column_stack([y, y * 1e155]))
