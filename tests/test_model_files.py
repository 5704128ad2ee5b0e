"""Model files: JSON round trips predict identically; damaged or foreign files are refused."""

import hashlib
import json
import re
from fractions import Fraction

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
    _refused(path, "the RuleListClassifier model file is invalid: result.objective 1/1000 is "
                   "not the rule list's objective mistakes/N \\+ lambda\\*K = 13/80")


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
    _refused(path, "the OptimalRuleBoostingRegressor model file is invalid: model.loss: the "
                   "model's loss 'squared' is not the parameter loss='poisson'")


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


def test_weighted_multiclass_rule_list_round_trips_exactly(tmp_path):
    X, _ = mixed_data()
    y = np.array(["low", "mid", "high", "mid"] * 20)
    weights = ["0.5", 2, "1/3", 0] * 20
    model = RuleListClassifier(0.05).fit(X, y, sample_weight=weights)
    path = tmp_path / "model.json"
    model.to_json(path)
    saved = json.loads(path.read_text())
    assert saved["result"]["total_weight"] == "170/3"
    assert saved["model"]["classes"] == ["high", "low", "mid"]
    loaded = load_model(path)
    assert loaded.result_.total_weight == model.result_.total_weight == Fraction(170, 3)
    assert loaded.result_.mistakes == model.result_.mistakes
    assert loaded.objective_ == model.objective_
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert loaded.predict_proba(X).shape == (80, 3)
    saved["result"]["total_weight"] = "57/1"
    body = {key: value for key, value in saved.items() if key != "sha256"}
    saved["sha256"] = hashlib.sha256(json.dumps(body, sort_keys=True,
                                                separators=(",", ":")).encode()).hexdigest()
    path.write_text(json.dumps(saved))
    with pytest.raises(ValueError, match="result.total_weight is 57/1, but the rule list's "
                                         "class weights give 170/3"):
        load_model(path)


@pytest.mark.parametrize("edit, message", [
    (lambda b: b.update(kind=[]), "unknown model kind"),
    (lambda b: b["result"].update(objective="1/0"), 'result.objective must be an exact number'),
    (lambda b: b["result"].update({"lambda": "1/7"}), "is not the parameter lam"),
    (lambda b: b.update(feature_names_in="a"), "feature_names_in must be null or"),
    (lambda b: b.update(n_features_in=None), "n_features_in must be an integer >= 1"),
    (lambda b: b.update(feature_numeric=["x"]), "feature_numeric must be"),
    (lambda b: b.update(feature_categories={}), "feature_categories must be null or"),
    (lambda b: _set_conditions(b, 0, [["nowhere", "==", "a"]]),
     "model.rules[0].conditions: a condition tests 'nowhere', which is not a feature of the "
     "model"),
    (lambda b: _set_conditions(b, 0, [["colour, shade", "<=", 1.0]]),
     "does not fit the categorical feature 'colour, shade'"),
    (lambda b: _rule(b).update(antecedent="sex:Female"),
     "model.rules[0].antecedent 'sex:Female' is not the name of its conditions"),
])
def test_forgeries_with_valid_checksums_are_refused_at_load(models, tmp_path, edit, message):
    path = _saved(models, tmp_path)
    _rewritten(path, edit)
    with pytest.raises(ValueError, match=re.escape(str(path)) + ": .*" + re.escape(message)):
        load_model(path)


@pytest.mark.parametrize("edit, message", [
    (lambda b: b["model"].update(search=5), "model.search is 5; the searches are"),
    (lambda b: b["model"].update(search="greedy"), "model.rules[0].statistics has an upper "
                                                   "bound, which the greedy search never proves"),
    (lambda b: b["model"].update({"lambda": "1/0"}), "model.lambda must be an exact number like"),
    (lambda b: b["model"].update({"lambda": "1/7"}), "model.lambda: the model's lambda '1/7' is "
                                                     "not the parameter lam=2"),
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


# --- every field of a rule-list file, checksum recomputed after the edit (issue 8) --------------

def _rule(body, k=0):
    return body["model"]["rules"][k]


def _set_conditions(body, k, conditions):
    """Rule k with other conditions, renamed consistently (as a careful forger would)."""
    from optrules.data.mining import antecedent_name
    from optrules.data.propositions import Proposition
    _rule(body, k).update(conditions=conditions, antecedent=antecedent_name(
        [Proposition(*condition) for condition in conditions]))


def _copy_rule(body, source, target):
    body["model"]["rules"][target] = json.loads(json.dumps(_rule(body, source)))


RULE_LIST_FORGERIES = [
    # conditions: operators, values, shape
    (lambda b: _rule(b)["conditions"][1].__setitem__(1, "~="),
     "model.rules[0].conditions[1].operator is '~='; a condition must be [feature, operator, "
     "value] with operator '<=', '>', '==' or '!='"),
    (lambda b: _rule(b)["conditions"][0].__setitem__(1, None), "conditions[0].operator is None"),
    (lambda b: _rule(b)["conditions"][1].__setitem__(2, "0.23"),
     "model.rules[0].conditions[1].value: the threshold of condition model.rules[0]"
     ".conditions[1] must be a finite number; got '0.23'"),
    (lambda b: _rule(b)["conditions"][1].__setitem__(2, 10 ** 400),
     "conditions[1] must be a finite number"),
    (lambda b: _rule(b)["conditions"][1].__setitem__(2, True), "must be a finite number; got True"),
    (lambda b: _rule(b)["conditions"][0].__setitem__(2, 3),
     "model.rules[0].conditions[0].value: the category of condition"),
    (lambda b: _rule(b)["conditions"][0].__setitem__(0, 7), "model.rules[0].conditions[0].feature"),
    (lambda b: _rule(b)["conditions"][0].append("x"), "model.rules[0].conditions[0] must be "
                                                      "[feature, operator, value]"),
    (lambda b: _rule(b, 1).update(conditions=None), "model.rules: conditions must be given for "
                                                    "every rule"),
    (lambda b: [rule.update(conditions=None) for rule in b["model"]["rules"]],
     "model.rules[0].conditions is null, but the model was fitted on feature columns"),
    (lambda b: _rule(b).update(conditions=[]), "model.rules[0].conditions must be a non-empty "
                                               "list of conditions, or null"),
    (lambda b: _rule(b).update(conditions="size<=1"), "model.rules[0].conditions must be"),
    (lambda b: _rule(b)["conditions"].append(_rule(b)["conditions"][0]),
     "model.rules[0].conditions holds a condition twice"),
    # antecedents
    (lambda b: _rule(b).update(antecedent=None), "model.rules[0].antecedent must be a non-empty "
                                                 "string; got None"),
    (lambda b: _rule(b, 2).update(antecedent=""), "model.rules[2].antecedent must be"),
    (lambda b: _copy_rule(b, 0, 2), "model.rules[2] repeats the antecedent of model.rules[0]"),
    (lambda b: _rule(b, 1).update(antecedent=_rule(b)["antecedent"]),
     "is not the name of its conditions"),
    (lambda b: _set_conditions(b, 1, _rule(b)["conditions"][::-1]),
     "model.rules[1] repeats the antecedent of model.rules[0]"),   # same conditions, new name
    # classes and predictions
    (lambda b: _rule(b, 1).update(prediction="maybe"),
     "model.rules[1].prediction 'maybe' is not one of the classes ['no', 'yes']"),
    (lambda b: b["model"].update(default=None), "model.default None is not one of the classes"),
    (lambda b: b["model"].update(classes=["no", "no"]),
     "model.classes must be two or more distinct strings or numbers"),
    (lambda b: b["model"].update(classes=["no", "yes", "maybe"]),
     "model.rules[0].class_counts: class counts must be a list of 3 numbers, one per class"),
    (lambda b: b["model"].update(classes=["no"]), "model.classes must be two or more"),
    (lambda b: b["model"].update(classes=["no", 1]), "model.classes must be two or more"),
    (lambda b: b["model"].update(classes=None), "model.classes must be two or more"),
    (lambda b: b["model"].update(classes=["yes", "no"], default=True),
     "model.default True is not one of the classes"),
    # class counts and the figures they give
    (lambda b: _rule(b).update(class_counts=[16, -1]),
     "model.rules[0].class_counts[1] must be a non-negative integer or an exact weight"),
    (lambda b: _rule(b).update(class_counts=[True, 0]),
     "model.rules[0].class_counts[0] must be a non-negative integer"),
    (lambda b: _rule(b).update(class_counts=["1/0", 0]),
     "model.rules[0].class_counts[0] must be an exact number"),
    (lambda b: _rule(b).update(class_counts=[16]), "class counts must be a list of 2 numbers"),
    (lambda b: _rule(b).update(class_counts=["31/2", "1/2"]),
     "model class counts are weights, but result.total_weight is null"),
    (lambda b: b["result"].update(total_weight="7/2"),
     "result.total_weight is 7/2, but the rule list's class weights give 80/1"),
    (lambda b: _rule(b).update(class_counts=None),
     "model: class counts must be given for every rule and the default, or for none"),
    (lambda b: [rule.update(class_counts=None) for rule in b["model"]["rules"]] and
     b["model"].update(default_counts=None), "model.default_counts is null"),
    (lambda b: _rule(b).update(class_counts=[15, 0]),
     "result.n_samples is 80, but the rule list's class counts give 79"),
    (lambda b: b["result"].update(mistakes=2),
     "result.mistakes is 2, but the rule list's class counts give 1"),
    (lambda b: _rule(b).update(class_counts=[0, 16]),
     "model.rules[0].prediction is 'no', but its class counts make 'yes' the majority class"),
    (lambda b: _rule(b).update(class_counts=[8, 8]),        # a tie goes to the last class
     "model.rules[0].prediction is 'no', but its class counts make 'yes' the majority class"),
    (lambda b: b["result"].update(mistakes=True), "result.mistakes is True, but"),
    (lambda b: b["result"].update(n_samples=0), "result.n_samples must be an integer >= 1"),
    # exact fractions and status
    (lambda b: b["result"].update({"lambda": "1/0"}),
     'result.lambda must be an exact number like "1/3"; got \'1/0\''),
    (lambda b: b["result"].update({"lambda": "nan"}), "result.lambda must be an exact number"),
    (lambda b: b["result"].update({"lambda": "abc"}), "result.lambda must be an exact number"),
    (lambda b: b["result"].update({"lambda": "0.05"}), "result.lambda must be an exact number"),
    (lambda b: b["result"].update({"lambda": 0.05}), "result.lambda must be an exact number"),
    (lambda b: b["result"].update({"lambda": "1e999999999"}), "result.lambda must be an exact"),
    (lambda b: b["result"].update({"lambda": "-1/20"}),
     "result.lambda -1/20 is not the parameter lam=1/20"),
    (lambda b: b["result"].update({"lambda": "-1/20"}) or b["params"].update(lam="-1/20"),
     "The 'lam' parameter of RuleListClassifier must be a fraction in (0, 1)"),
    (lambda b: b["result"].update({"lambda": "3/2"}) or b["params"].update(lam=1.5),
     "The 'lam' parameter of RuleListClassifier must be a fraction in (0, 1)"),
    (lambda b: b["result"].update(lower_bound="1/0"), "result.lower_bound must be an exact"),
    (lambda b: b["result"].update(lower_bound="1/2"),
     "result.lower_bound 1/2 is not in [0, result.objective]"),
    (lambda b: b["result"].update(lower_bound="-1/2", status="time-limit"),
     "result.lower_bound -1/2 is not in [0, result.objective]"),
    (lambda b: b["result"].update(lower_bound="1/80"), "result.status 'optimal' is not a "
                                                       "status, or not the one its lower bound"),
    (lambda b: b["result"].update(status="limit"), "result.status 'limit' is not a status"),
    (lambda b: b["result"].update(status=None), "result.status None is not a status"),
    # other result fields
    (lambda b: b["result"].update(n_antecedents=2), "result.n_antecedents must be an integer "
                                                    ">= 3; got 2"),
    (lambda b: b["result"].update(n_antecedents="47"), "result.n_antecedents must be"),
    (lambda b: b["result"].update(seconds="fast"), "result.seconds must be a finite number"),
    (lambda b: b["result"].update(seconds=-1), "result.seconds must be a finite number >= 0"),
    (lambda b: b["result"].update(nodes_expanded=1.5), "result.nodes_expanded must be an integer"),
    (lambda b: b["result"].update(remaining_search_space="abc"),
     "result.remaining_search_space must be null or a non-negative integer as text"),
    (lambda b: b["result"].update(remaining_search_space=0), "result.remaining_search_space"),
    (lambda b: b["result"].update(remaining_search_space="\u0663"),
     "result.remaining_search_space"),
    (lambda b: b["result"].update(statistics=[]), "result.statistics must be a JSON object"),
    (lambda b: b["result"]["statistics"].update(pruned_lower_bound=-3),    # found by review
     "result.statistics.pruned_lower_bound must be an integer >= 0; got -3"),
    (lambda b: b["result"]["statistics"].update(nodes_by_worker={"a": "many"}),
     "result.statistics.nodes_by_worker.a must be an integer >= 0; got 'many'"),
    (lambda b: b["result"]["statistics"].update(nodes_by_worker={"a": {"b": 1}}),
     "result.statistics.nodes_by_worker.a must be an integer >= 0"),
    (lambda b: b["result"]["statistics"].update(tasks=[1]),
     "result.statistics.tasks must be an integer >= 0; got [1]"),
    # missing, unknown and mistyped fields
    (lambda b: _rule(b).pop("prediction"), "model.rules[0] lacks the field 'prediction'"),
    (lambda b: _rule(b).pop("conditions"), "model.rules[0] lacks the field 'conditions'"),
    (lambda b: b["result"].pop("lambda"), "result lacks the field 'lambda'"),
    (lambda b: b["model"].pop("classes"), "model lacks the field 'classes'"),
    (lambda b: b.pop("feature_numeric"), "the file lacks the field 'feature_numeric'"),
    (lambda b: b.pop("result"), "the file lacks the field 'result'"),
    (lambda b: b.update(extra=1), "the file has an unknown field 'extra'"),
    (lambda b: _rule(b).update(weight=1.0), "model.rules[0] has an unknown field 'weight'"),
    (lambda b: b["result"].update(gap="0/1"), "result has an unknown field 'gap'"),
    (lambda b: b.update(model=[]), "model must be a JSON object; got []"),
    (lambda b: b.update(result=None), "result must be a JSON object; got None"),
    (lambda b: b["model"].update(rules={}), "model.rules must be a list; got {}"),
    (lambda b: b["model"]["rules"].__setitem__(1, "rule"), "model.rules[1] must be a JSON object"),
    (lambda b: b["model"].update(target=5), "model.target must be a string; got 5"),
    (lambda b: b.update(n_features_in=True), "n_features_in must be an integer >= 1; got True"),
    (lambda b: b["feature_categories"].update(flag=["True", "True"]),
     "feature_categories must be null or list the distinct categories"),
    (lambda b: b.update(params=None), "'params' must name exactly the parameters"),
    (lambda b: b["params"].update(lam="1e-999999999"),   # would take minutes to expand
     "The 'lam' parameter of RuleListClassifier must be a number like '0.01' or '1/100'"),
    (lambda b: b["params"].update(time_limit=10 ** 400),
     "The 'time_limit' parameter of RuleListClassifier must be a positive finite number. Got "
     "an integer beyond the float range instead."),
]


@pytest.mark.parametrize("edit, message", RULE_LIST_FORGERIES)
def test_every_field_of_a_rule_list_file_is_checked(models, tmp_path, edit, message):
    """Each forgery carries a recomputed checksum; the error names the file and the field."""
    path = _saved(models, tmp_path)
    _rewritten(path, edit)
    with pytest.raises(ValueError) as raised:
        load_model(path)
    assert str(raised.value).startswith(f"{path}: "), raised.value
    assert message in str(raised.value)


def test_the_forgeries_start_from_a_file_that_loads(models, tmp_path):
    """The edits above are refused because of what they change: the untouched file, written
    back the same way, loads and predicts as the model."""
    path = _saved(models, tmp_path)
    _rewritten(path, lambda body: None)
    model, X = models[0]
    assert np.array_equal(load_model(path).predict(X), model.predict(X))
    # a distributed search's counters too
    _rewritten(path, lambda body: body["result"]["statistics"].update(
        nodes_by_worker={"0": 3, "1": 4}, tasks=2, donations=1))
    assert load_model(path).result_.statistics["nodes_by_worker"] == {"0": 3, "1": 4}
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())     # a BOM (found by review)
    assert np.array_equal(load_model(path).predict(X), model.predict(X))


def _with_checksum(path, body):
    """Write ``body`` with the checksum the module docstring defines (a forger's own tool)."""
    body.pop("sha256", None)
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    body["sha256"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    path.write_text(json.dumps(body))


@pytest.mark.parametrize("field, value, message", [
    ("optrules_version", 5, "the model file's optrules_version must be a string; got 5"),
    ("version", "1", "the model file has an invalid version '1'"),
    ("version", True, "the model file has an invalid version True"),
    ("kind", None, "unknown model kind None"),
])
def test_header_fields_are_checked(models, tmp_path, field, value, message):
    path = _saved(models, tmp_path)
    body = read_model(path)
    body[field] = value
    _with_checksum(path, body)
    _refused(path, re.escape(message))


@pytest.mark.parametrize("old, new, message", [
    ('0.23\n', 'NaN\n', "holds NaN, which is not a JSON number"),
    ('0.23\n', '-Infinity\n', "holds -Infinity, which is not a JSON number"),
    ('0.23\n', '1e999\n', "holds the number 1e999, beyond the range of floats"),
    ('0.23\n', '1' * 5000 + '\n', "holds an integer of 5000 digits, too long to read"),
    ('"green"', '"\\ud800"', "escapes a lone surrogate"),
])
def test_numbers_and_text_json_cannot_hold_are_refused_before_the_checksum(
        models, tmp_path, old, new, message):
    path = _saved(models, tmp_path)
    path.write_text(path.read_text().replace(old, new, 1))
    _refused(path, "(the model file |not a model file \\(it )" + re.escape(message))


def test_a_directory_or_an_empty_file_is_not_a_model(tmp_path):
    _refused(tmp_path, r"cannot read the model file \(Is a directory\)")
    empty = tmp_path / "empty.json"
    empty.write_text("")
    _refused(empty, r"not a complete JSON document \(Expecting value at line 1, column 1\)")


def test_a_rule_list_file_from_before_the_trace_parameter_loads(models, tmp_path):
    """Files written before ``trace`` (and ``n_workers``, ``scheduler``) existed lack them and
    load with their defaults; a file lacking any other parameter is still refused."""
    path = _saved(models, tmp_path)
    for name in ("trace", "n_workers", "scheduler"):
        _rewritten(path, lambda b: b["params"].pop(name))
        model = load_model(path)
        assert getattr(model, name) is None and model.objective_ == models[0][0].objective_
    _rewritten(path, lambda b: b["params"].pop("lam"))
    with pytest.raises(ValueError, match="'params' must name exactly the parameters .* "
                                         r"\(files written before \['trace', 'n_workers', "
                                         r"'scheduler'\] existed may lack"):
        load_model(path)


@pytest.mark.parametrize("parameter", ["trace", "certificate"])
def test_path_parameters_are_saved_as_text(parameter, tmp_path):
    """``trace`` and ``certificate`` given as Paths are written, and load back, as text."""
    X, y = mixed_data()
    path = tmp_path / f"{parameter}.jsonl"
    model = RuleListClassifier(lam="0.05", **{parameter: path}).fit(X, y)
    model.to_json(tmp_path / "model.json")
    loaded = load_model(tmp_path / "model.json")
    assert loaded.get_params()[parameter] == str(path)
    assert np.array_equal(loaded.predict(X), model.predict(X))
