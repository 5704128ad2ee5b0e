"""Boosting model files are read strictly: a forged or damaged field is a ValueError naming the
file and the field's path, even when the forger recomputed the checksum."""

import copy
import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from optrules import (OptimalRuleBoostingClassifier, OptimalRuleBoostingRegressor,
                      load_model)
from optrules.data.synthetic import noisy_parity
from optrules.model_files import read_model, write_model
from optrules.rule_boosting.model import RuleEnsemble


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """Valid model files: a classifier (text and numeric features, a time-limited last rule),
    a Poisson regressor with an intercept (a base score) and a greedy regressor."""
    folder = tmp_path_factory.mktemp("models")
    rng = np.random.default_rng(0)
    X = {"colour": rng.choice(["red", "blue"], 60).astype(object),
         "size": rng.normal(size=60).round(2)}
    y = np.where((X["size"] > 0) ^ (X["colour"] == "red"), "yes", "no")
    OptimalRuleBoostingClassifier(3, thresholds="quantile:4", max_nodes=2).fit(X, y) \
        .to_json(folder / "classifier.json")
    Xp, _ = noisy_parity(60, d=2, seed=1)
    counts = rng.poisson(np.exp(2 + Xp[:, 0]))
    OptimalRuleBoostingRegressor(2, loss="poisson", intercept=True, thresholds="quantile:3") \
        .fit(Xp, counts).to_json(folder / "poisson.json")
    OptimalRuleBoostingRegressor(2, search="greedy", thresholds="quantile:3") \
        .fit(Xp, counts.astype(float)).to_json(folder / "greedy.json")
    return folder


def forged(folder, name, edit, tmp_path):
    """A copy of model ``name`` edited by ``edit`` and written with a valid checksum."""
    body = read_model(folder / name)
    edit(body)
    path = tmp_path / name
    write_model(path, body.pop("kind"), {k: v for k, v in body.items()
                                         if k not in ("format", "version", "optrules_version")})
    return path


def rule(k=0, *keys):
    """An edit's target: ``model.rules[k]`` and below."""
    return lambda body: _at(body["model"]["rules"][k], keys)


def _rename_feature(entry, feature):
    """Rename the feature of a rule's first condition, in its text too (a careful forgery;
    the text lists conditions by feature name, so the new name must sort like the old)."""
    entry["text"] = entry["text"].replace(entry["conditions"][0][0], feature)
    entry["conditions"][0][0] = feature


def _at(document, keys):
    for key in keys:
        document = document[key]
    return document


FORGERIES = [
    ("classifier.json", lambda b: b["model"].update({"lambda": "1/0"}),
     'model.lambda must be an exact number like "1/3"; got \'1/0\''),
    ("classifier.json", lambda b: b["model"].update({"lambda": "-2/1"}), "model.lambda -2/1 is "
                                                                          "negative"),
    ("classifier.json", lambda b: rule(0, "conditions")(b)[0].__setitem__(1, "~="),
     "model.rules[0].conditions[0].operator is '~='"),
    ("classifier.json", lambda b: rule(0, "conditions")(b).append(rule(0, "conditions")(b)[0]),
     "model.rules[0].conditions holds a condition twice"),
    ("classifier.json", lambda b: rule(0)(b).update(conditions=None),
     "model.rules[0].conditions must be a list of conditions; got None"),
    ("classifier.json", lambda b: rule(0)(b).update(conditions=[["size", "<=", "1"]]),
     "model.rules[0].conditions[0].value: the threshold of condition"),
    ("classifier.json", lambda b: rule(0)(b).update(weight="0.5"),
     "model.rules[0].weight must be a finite number"),
    ("classifier.json", lambda b: rule(0)(b).update(weight=True),
     "model.rules[0].weight must be a finite number"),
    ("classifier.json", lambda b: rule(0)(b).update(weight=0.123456),
     "model.rules[0].text '"),                                  # the text shows another rule
    ("classifier.json", lambda b: rule(0)(b).update(objective="-1/3"),
     "model.rules[0].objective -1/3 is negative"),
    ("classifier.json", lambda b: rule(0)(b).update(objective="1/3"),
     "model.rules[0].objective_float"),
    ("classifier.json", lambda b: rule(0)(b).update(coverage=-1),
     "model.rules[0].coverage must be an integer >= 0"),
    ("classifier.json", lambda b: rule(0, "statistics")(b).update(status="limit"),
     "model.rules[0].statistics.status is 'limit'; a rule of the optimal search has one of"),
    ("classifier.json", lambda b: rule(0, "statistics")(b).update(status="heuristic"),
     "model.rules[0].statistics.status is 'heuristic'"),
    ("classifier.json", lambda b: rule(0, "statistics")(b).update(guarantee=1.5),
     "model.rules[0].statistics: upper_bound"),
    ("classifier.json", lambda b: rule(0, "statistics")(b).pop("guarantee"),
     "model.rules[0].statistics has upper_bound, bound_gap but not all of"),
    ("classifier.json", lambda b: rule(0, "statistics")(b).update(nodes=-3),
     "model.rules[0].statistics.nodes must be an integer >= 0"),
    ("classifier.json", lambda b: rule(0, "statistics")(b).update(extra=1),
     "model.rules[0].statistics has an unknown field 'extra'"),
    ("classifier.json", lambda b: rule(0)(b).pop("text"), "model.rules[0] lacks the field "
                                                          "'text'"),
    ("classifier.json", lambda b: b["model"].update(status="done"),
     "model.status is 'done'; it is 'complete' or one of"),
    ("classifier.json", lambda b: b["model"].update(classes=["yes", "yes"]),
     "model.classes must be the two distinct classes"),
    ("classifier.json", lambda b: b["model"].update(classes=["no", 1]),
     "Mix of label input types (string and number) in model.classes"),
    ("classifier.json", lambda b: b["model"].update(classes=None),
     "model.classes must be the two distinct classes"),
    ("classifier.json", lambda b: b["model"].update(classes=["yes", "no"]),
     "model.classes ['yes', 'no'] are not in class order"),
    ("classifier.json", lambda b: b["model"].update(loss="hinge"), "model.loss is 'hinge'"),
    ("classifier.json", lambda b: b["model"].update(base_score=0.5),
     "model.base_score is 0.5, but boosting with the logistic loss starts from 0"),
    ("classifier.json", lambda b: b["model"]["rules"].pop(),
     "model.rules has 2 rules, but the parameters n_rules=3 and intercept=False ask for 3 and "
     "model.status is 'complete'"),
    ("classifier.json", lambda b: _rename_feature(rule(0)(b), "cost"),
     "model.rules[0].conditions: a condition tests 'cost', which is not a feature"),
    ("poisson.json", lambda b: b["model"].update(classes=["a", "b"]),
     "model.classes must be null for the poisson loss"),
    ("poisson.json", lambda b: b["model"].update(base_score="2"),
     "model.base_score must be a finite number"),
    ("poisson.json", lambda b: b["model"].update(base_score=10 ** 400),
     "model.base_score must be a finite number >= -inf; got 1000"),
    ("poisson.json", lambda b: rule(1)(b).update(weight=-10 ** 309),
     "model.rules[1].weight must be a finite number >= -inf; got -1000"),
    ("poisson.json", lambda b: b["model"]["rules"].insert(0, b["model"]["rules"].pop(1)),
     "model.rules[0].conditions: with intercept=True the first rule is the intercept"),
    ("greedy.json", lambda b: rule(1, "statistics")(b).update(status="approximate"),
     "model.rules[1].statistics.status is 'approximate'; a rule of the greedy search"),
    ("greedy.json", lambda b: rule(1, "statistics")(b).update(
        upper_bound=1.0, bound_gap=0.0, guarantee=1.0),
     "model.rules[1].statistics has an upper bound, which the greedy search never proves"),
]


@pytest.mark.parametrize("name, edit, message", FORGERIES)
def test_forged_fields_are_named(saved, tmp_path, name, edit, message):
    path = forged(saved, name, edit, tmp_path)
    with pytest.raises(ValueError, match=re.escape(str(path)) + ": .* is invalid: .*"
                       + re.escape(message)):
        load_model(path)


def test_every_valid_file_loads_and_predicts_alike(saved):
    for name in ("classifier.json", "poisson.json", "greedy.json"):
        model = load_model(saved / name)
        body = read_model(saved / name)
        assert model.ensemble_.to_dict() == body["model"], name


def test_a_nan_weight_is_refused_before_any_field(saved, tmp_path):
    """NaN is no JSON number, so no checksum covers it: the reader refuses the file."""
    path = tmp_path / "nan.json"
    path.write_text((saved / "classifier.json").read_text().replace(
        '"weight": ', '"weight": NaN, "was": ', 1))
    with pytest.raises(ValueError, match=re.escape(str(path)) + ": the model file holds NaN"):
        load_model(path)
    ensemble = read_model(saved / "classifier.json")["model"]
    ensemble["rules"][0]["weight"] = math.nan         # read some other way: still refused
    with pytest.raises(ValueError, match=r"model.rules\[0\].weight must be a finite number"):
        RuleEnsemble.from_dict(ensemble, "model")


def test_boosting_may_repeat_a_query_and_such_files_load(tmp_path):
    """Boosting can choose a query again in a later round (here λ = 50 shrinks each step, so the
    same rule is chosen twice): repeated rules are valid, not a forgery."""
    X = np.array([[0.0], [1.0], [2.0], [3.0]] * 3)
    y = np.array([0.0, 0.0, 4.0, 4.0] * 3)
    model = OptimalRuleBoostingRegressor(3, lam=50, thresholds="all").fit(X, y)
    queries = [tuple(r["conditions"]) for r in model.rules_]
    assert len(set(map(str, queries))) < len(queries)
    model.to_json(tmp_path / "m.json")
    assert load_model(tmp_path / "m.json").rules_ == model.rules_


# --- fuzzing -----------------------------------------------------------------------------------

#: Values of every JSON type and the texts that broke readers before.
JUNK = st.sampled_from([None, True, False, 0, -1, 2.5, -0.0, 1e308, 10 ** 400, "", "x", "~=",
                        "1/0", "-1/2", "nan", "limit", [], {}, ["a", "==", "b"], [[]], {"x": 1}])

HEADER = ("format", "version", "kind", "optrules_version")


def _paths(document, prefix=()):
    """Every path (keys and indices) to a value below the header, with the value."""
    if isinstance(document, dict):
        items = document.items()
    elif isinstance(document, list):
        items = enumerate(document)
    else:
        return
    for key, value in items:
        if prefix or key not in HEADER:
            yield prefix + (key,)
            yield from _paths(value, prefix + (key,))


@st.composite
def mutations(draw, body):
    """(edited copy of ``body``, names that an error about it may give): one value replaced by
    junk, removed, or joined by an unknown field."""
    body = copy.deepcopy(body)
    paths = list(_paths(body))
    model_paths = [path for path in paths if path[0] == "model"]
    path = draw(st.sampled_from(model_paths if draw(st.integers(0, 3)) else paths))
    parent = _at(body, path[:-1])
    edit = draw(st.sampled_from(["junk", "junk", "junk", "remove", "add"]))
    names = [str(step) for step in path if isinstance(step, str)]
    if edit == "junk":
        parent[path[-1]] = copy.deepcopy(draw(JUNK))
    elif edit == "remove":
        del parent[path[-1]]
    elif isinstance(parent[path[-1]], dict):
        parent[path[-1]]["extra"] = draw(JUNK)
        names.append("extra")
    return body, names


#: The feature schema's fields are checked against each other (base.py): an error may name
#: the one that disagrees with the edited one.
SCHEMA = ["n_features_in", "feature_names_in", "feature_numeric", "feature_categories"]


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data(), name=st.sampled_from(["classifier.json", "poisson.json", "greedy.json"]))
def test_fuzzed_boosting_files_load_or_fail_naming_the_field(saved, tmp_path, data, name):
    """Mutated model files with recomputed checksums: they load, or raise a ValueError/TypeError
    naming the file and a field on the mutated path (a parameter by its name), or for an edit
    of the feature schema a field of the schema."""
    body, names = data.draw(mutations(read_model(saved / name)))
    if names[0] in SCHEMA:
        names += SCHEMA
    path = tmp_path / "fuzzed.json"
    write_model(path, body.pop("kind"), {k: v for k, v in body.items() if k not in HEADER})
    try:
        load_model(path)
    except (ValueError, TypeError) as error:
        message = str(error)
        assert message.startswith(f"{path}: "), message
        named = [n for n in names if re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", message)]
        assert named, (names, message)
