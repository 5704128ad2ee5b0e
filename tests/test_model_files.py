"""Model files: JSON round trips predict identically; damaged or foreign files are refused."""

import json
import re

import numpy as np
import pytest

from optrules import (OptimalRuleBoostingClassifier, OptimalRuleBoostingRegressor,
                      RuleListClassifier, load_model)
from optrules.data.synthetic import noisy_parity
from optrules.model_files import read_model, write_model


def mixed_data(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = {"colour, shade": rng.choice(["red", "blue", "green"], n).astype(object),
         "size: cm": rng.normal(size=n).round(3),
         "flag": rng.random(n) < 0.3}
    y = np.where((X["size: cm"] > 0.2) ^ (X["colour, shade"] == "red"), "yes", "no")
    return X, y


def fitted_models():
    X, y = mixed_data()
    Xp, yp = noisy_parity(60, d=2, seed=1)
    return [
        (RuleListClassifier(0.05).fit(X, y), X),
        (OptimalRuleBoostingClassifier(3, thresholds="quantile:4").fit(X, y), X),
        (OptimalRuleBoostingRegressor(3, lam="1/2", intercept=True).fit(Xp, yp), Xp),
    ]


@pytest.fixture(scope="module")
def models():
    return fitted_models()


@pytest.mark.parametrize("which", [0, 1, 2], ids=["rule list", "boosting classifier",
                                                  "boosting regressor"])
def test_round_trip_predicts_identically(models, which, tmp_path):
    model, X = models[which]
    path = tmp_path / "model.json"
    model.to_json(path)
    loaded = load_model(path)
    assert type(loaded) is type(model)
    assert loaded.get_params() == model.get_params()
    assert np.array_equal(loaded.predict(X), model.predict(X))
    assert str(loaded) == str(model)
    if hasattr(model, "predict_proba"):
        assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))
        assert loaded.classes_.tolist() == model.classes_.tolist()
    assert loaded.n_features_in_ == model.n_features_in_
    assert getattr(loaded, "feature_names_in_", None) is None or \
        loaded.feature_names_in_.tolist() == model.feature_names_in_.tolist()
    assert loaded.rules_ == model.rules_
    assert "pickle" not in path.read_text()


def test_rule_list_file_keeps_the_exact_certificate(models, tmp_path):
    model, _ = models[0]
    path = tmp_path / "model.json"
    model.to_json(path)
    body = json.loads(path.read_text())
    assert body["format"] == "optrules.model" and body["version"] == 1
    assert body["kind"] == "RuleListClassifier"
    assert body["result"]["objective"] == f"{model.objective_.numerator}/" \
                                          f"{model.objective_.denominator}"
    loaded = load_model(path)
    assert (loaded.objective_, loaded.lower_bound_, loaded.status_) == \
        (model.objective_, model.lower_bound_, model.status_)


def _saved(models, tmp_path, which=0):
    path = tmp_path / "model.json"
    models[which][0].to_json(path)
    return path


def _refused(path, message):
    with pytest.raises(ValueError, match=re.escape(str(path)) + ": " + message):
        load_model(path)


@pytest.mark.parametrize("keep", [0.1, 0.5, 0.99])
def test_truncated_files_are_refused(models, tmp_path, keep):
    path = _saved(models, tmp_path)
    text = path.read_text()
    path.write_text(text[:int(len(text) * keep)])
    _refused(path, r"not a complete JSON document \(.* at line \d+, column \d+\); the file "
                   "may be truncated")


def test_edited_files_fail_the_checksum(models, tmp_path):
    path = _saved(models, tmp_path)
    body = json.loads(path.read_text())
    body["model"]["rules"][0]["prediction"] = body["model"]["default"]
    path.write_text(json.dumps(body))
    _refused(path, "the model file's content does not match its sha256 checksum")


def test_consistent_looking_forgeries_are_still_refused(models, tmp_path):
    """A file whose checksum was recomputed after an edit is checked for meaning too."""
    path = _saved(models, tmp_path)
    body = read_model(path)
    body["result"]["objective"] = "1/1000"             # a better claim than the list achieves
    write_model(path, body.pop("kind"), {k: v for k, v in body.items()
                                         if k not in ("format", "version", "optrules_version")})
    _refused(path, "the RuleListClassifier model file is invalid: the objective, mistakes and "
                   "bound do not match")


@pytest.mark.parametrize("edit, message", [
    (lambda b: b["model"]["rules"][0].update(prediction="maybe"), "prediction 'maybe' is not"),
    (lambda b: b["model"]["rules"][0].update(conditions=[["x", "<", 1]]), "a condition must"),
    (lambda b: b["params"].update(lam=7), "The 'lam' parameter of RuleListClassifier"),
    (lambda b: b.pop("model"), "lacks the field 'model'"),
])
def test_invalid_content_is_refused_with_the_reason(models, tmp_path, edit, message):
    path = _saved(models, tmp_path)
    body = read_model(path)
    edit(body)
    write_model(path, body.pop("kind"), {k: v for k, v in body.items()
                                         if k not in ("format", "version", "optrules_version")})
    _refused(path, "the RuleListClassifier model file is invalid: .*" + re.escape(message))


def test_wrong_kinds_and_versions_are_refused(models, tmp_path):
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"format": "optrules.certificate", "version": 1}))
    _refused(path, 'not an optrules model file \\(expected "format": "optrules.model"\\)')
    write_model(path, "LinearRegression", {"params": {}})
    _refused(path, r"unknown model kind 'LinearRegression'; this optrules reads")
    body = read_model(_saved(models, tmp_path))
    body["version"] = 2
    path.write_text(json.dumps(body))
    _refused(path, "the model file has version 2, written by a newer optrules")


def test_a_boosting_file_cannot_claim_another_loss(models, tmp_path):
    path = _saved(models, tmp_path, which=2)
    body = read_model(path)
    body["params"]["loss"] = "poisson"
    write_model(path, body.pop("kind"), {k: v for k, v in body.items()
                                         if k not in ("format", "version", "optrules_version")})
    _refused(path, "the OptimalRuleBoostingRegressor model file is invalid: the model's loss "
                   "'squared' is not the parameter loss='poisson'")


def test_unreadable_and_non_json_files(tmp_path):
    _refused(tmp_path / "absent.json", r"cannot read the model file \(")
    binary = tmp_path / "model.pkl"
    binary.write_bytes(b"\x80\x04\x95\xff")
    _refused(binary, r"not a model file \(not UTF-8 text\)")


def _rewritten(path, edit):
    """Edit a saved model and write it back with a valid checksum (a careful forgery)."""
    body = read_model(path)
    edit(body)
    write_model(path, body.pop("kind"), {k: v for k, v in body.items()
                                         if k not in ("format", "version", "optrules_version")})


@pytest.mark.parametrize("edit, message", [
    (lambda b: b.update(kind=[]), "unknown model kind"),
    (lambda b: b["result"].update(objective="1/0"), '\'objective\' must be an exact number'),
    (lambda b: b["result"].update({"lambda": "1/7"}), "is not the parameter lam"),
    (lambda b: b.update(feature_names_in="a"), "'feature_names_in' must be null or"),
    (lambda b: b.update(n_features_in=None), "'n_features_in' must be a positive integer"),
    (lambda b: b.update(feature_numeric=["x"]), "'feature_numeric' must be"),
    (lambda b: b.update(feature_categories={}), "'feature_categories' must be null or"),
    (lambda b: b["model"]["rules"][0].update(conditions=[["nowhere", "==", "a"]]),
     "tests 'nowhere', which is not a feature of the model"),
    (lambda b: b["model"]["rules"][0].update(conditions=[["colour, shade", "<=", 1.0]]),
     "does not fit the categorical feature 'colour, shade'"),
])
def test_forgeries_with_valid_checksums_are_refused_at_load(models, tmp_path, edit, message):
    path = _saved(models, tmp_path)
    _rewritten(path, edit)
    with pytest.raises(ValueError, match=re.escape(str(path)) + ": .*" + re.escape(message)):
        load_model(path)


@pytest.mark.parametrize("edit, message", [
    (lambda b: b["model"].update(search=5), "the model's lambda and search are not"),
    (lambda b: b["model"].update({"lambda": "1/0"}), "'lambda' must be an exact number like"),
])
def test_boosting_forgeries_are_refused_at_load(models, tmp_path, edit, message):
    path = _saved(models, tmp_path, which=1)
    _rewritten(path, edit)
    with pytest.raises(ValueError, match=re.escape(message)):
        load_model(path)


def test_deeply_nested_json_is_refused(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    _refused(path, r"not a model file \(JSON nested too deeply\)")


def test_numpy_float32_parameters_keep_their_value(tmp_path):
    X, y = mixed_data()
    model = RuleListClassifier(lam=np.float32(0.05)).fit(X, y)
    model.to_json(tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert loaded.lam == 0.05 and loaded.result_.lam == model.result_.lam
    assert RuleListClassifier(**loaded.get_params()).fit(X, y).objective_ == model.objective_


def test_an_unwritable_path_is_a_clear_error(models, tmp_path):
    with pytest.raises(ValueError, match="cannot write the model file"):
        models[0][0].to_json(tmp_path / "missing" / "m.json")
