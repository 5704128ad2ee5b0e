"""Compressed rule ensembles end to end: the pipeline in both engines, the averaging variant, the
estimators' conventions, printing, explanations, model files, user rules and the command."""

import importlib
import json
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optrules import (BoostedRulesClassifier, CompressedRuleEnsembleClassifier,
                      CompressedRuleEnsembleRegressor, load_model)
from optrules.cli import main
from optrules.compressed_rules.clustering import cluster_split_points
from optrules.compressed_rules.design import (linear_terms, scale_rule_columns,
                                              select_rule_columns)
from optrules.compressed_rules.fit import fit_compressed_rules
from optrules.compressed_rules.glm import cross_validated_lasso
from optrules.compressed_rules.harvest import boosted_tree_rules
from optrules.compressed_rules.rule_sources import user_rules
from optrules.compressed_rules.soft_rules import compress_rules
from optrules.verify.lasso_kkt import check_lasso_kkt, second_opinion

def engine(name):
    return importlib.import_module(f"optrules.{name}.cre")


def step_data(n=240, seed=0, noise=0.1):
    """Two features, the class a noisy step in the first."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] > 0.3) ^ (rng.random(n) < noise)
    return X, y.astype(float)


def design_of(model_fit_inputs):
    """The GLM design of a fit, rebuilt from the public pieces (rules, clusters, filters)."""
    X, rules, clusters, eta = model_fit_inputs
    smooth = compress_rules(rules, clusters)
    outputs = engine("fast").smooth_rule_matrix(X, smooth.rules, clusters)
    kept = select_rule_columns(outputs)
    return scale_rule_columns(outputs[:, kept], [smooth.rules[h].length for h in kept], eta)


# ----- the pipeline in both engines ------------------------------------------------------------

@st.composite
def small_problems(draw):
    n = draw(st.integers(20, 50))
    seed = draw(st.integers(0, 2 ** 16))
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)).round(draw(st.sampled_from([0, 1, 3])))
    X[rng.random(X.shape) < draw(st.sampled_from([0.0, 0.1]))] = np.nan
    loss = draw(st.sampled_from(["logistic", "squared"]))
    signal = np.nan_to_num(X[:, 0])
    if loss == "logistic":
        y = ((signal + rng.normal(scale=0.7, size=n)) > 0).astype(float)
        y[:4] = [0.0, 1.0, 0.0, 1.0]          # two of each class, for the folds
    else:
        y = signal + rng.normal(scale=0.5, size=n)
    return X, y, loss, dict(kmax=draw(st.integers(1, 4)), n_trees=draw(st.integers(1, 8)),
                            max_depth=draw(st.integers(1, 3)), random_state=seed,
                            criterion=draw(st.sampled_from(["aic", "bic"])),
                            folds=draw(st.integers(2, 4)),
                            linear=draw(st.booleans()), eta=draw(st.sampled_from([0.0, 0.5, 1.0])))


@settings(max_examples=25, deadline=None)
@given(small_problems())
def test_both_engines_give_the_same_averaged_model(problem):
    """Up to the GLM, the engines agree bit for bit: the same clusters, smooth rules,
    candidates and rule outputs, hence the same averaged model (``to_dict`` equal)."""
    X, y, loss, params = problem
    models = [fit_compressed_rules(X, y, loss=loss, engine=name, variant="average", **params)
              for name in ("reference", "fast")]
    bodies = [model.to_dict() for model in models]
    for body in bodies:
        del body["fit"]["seconds"]
    assert bodies[0] == bodies[1]


@settings(max_examples=25, deadline=None)
@given(small_problems())
def test_the_fast_glm_fit_is_certified_by_an_independent_solver(problem):
    """The chosen GLM fit meets verify's KKT check on the pipeline's own design, and scipy's
    L-BFGS-B (verify's second opinion, a different method) finds no lower objective. (Both
    engines' lasso paths agree to 1e-8 in ``test_cre_glm.py``; the reference's plain
    coordinate descent is too slow on these ill-conditioned designs at small λ.)"""
    X, y, loss, params = problem
    model = fit_compressed_rules(X, y, loss=loss, **params)
    kkt = model.fit["kkt"]
    assert kkt["ok"], kkt["verdict"]
    if loss == "squared":             # the GLM solves the problem of the standardised target
        y = (y - model.fit["target_mean"]) / model.fit["target_sd"]
    design = pipeline_design(X, y, loss, params)
    _, _, other = second_opinion(design, y, model.fit["lambda"] / model.fit["target_sd"], loss)
    assert kkt["objective"] <= other + 1e-9 * max(1.0, abs(other))


def pipeline_design(X, y, loss, params):
    """The GLM design of a fit, rebuilt from the public pieces."""
    rules = boosted_tree_rules(X, y, loss=loss, n_trees=params["n_trees"],
                               max_depth=params["max_depth"],
                               random_state=params["random_state"])
    points = {}
    for rule in rules:
        for feature, _, threshold in rule:
            points.setdefault(feature, []).append(threshold)
    clusters = {feature: cluster_split_points(values, k_max=params["kmax"],
                                              criterion=params["criterion"])
                for feature, values in points.items()}
    design = design_of((X, rules, clusters, params["eta"]))
    return np.hstack([design, linear_terms(X)[0]]) if params["linear"] else design


# ----- what the model is --------------------------------------------------------------------

def test_the_model_predicts_with_the_lambda_it_reports():
    """The estimator's scores on its training data are the chosen fit of the path on the
    design rebuilt from the harvest (λ_1se's, not λ_min's: the R package predicts with
    λ_min), and verify accepts that fit's KKT conditions at the reported λ."""
    X, y = step_data()
    design = pipeline_design(X, y, "logistic", dict(n_trees=60, max_depth=3, random_state=1,
                                                    kmax=4, criterion="aic", eta=0.5,
                                                    linear=False))
    lasso = cross_validated_lasso(design, y, "logistic", engine("fast"), random_state=1)
    model = CompressedRuleEnsembleClassifier(n_trees=60, random_state=1).fit(X, y)
    chosen = lasso.coefficients[lasso.chosen]
    assert lasso.chosen < int(np.argmin(lasso.cv_mean))        # λ_1se > λ_min here
    assert model.model_.fit["lambda"] == lasso.lambdas[lasso.chosen]
    assert np.allclose(model.decision_function(X),
                       lasso.intercepts[lasso.chosen] + design @ chosen, atol=1e-10)
    assert len(model.model_.rules) == np.count_nonzero(chosen)
    check = check_lasso_kkt(design, y, lasso.intercepts[lasso.chosen], chosen,
                            lasso.lambdas[lasso.chosen], "logistic")
    assert check.ok and model.model_.fit["kkt"]["ok"]


def test_lambda_min_keeps_at_least_as_many_terms_as_lambda_1se():
    X, y = step_data(noise=0.2)
    fits = {choice: CompressedRuleEnsembleClassifier(n_trees=60, lambda_choice=choice,
                                                     random_state=0).fit(X, y)
            for choice in ("1se", "min")}
    assert fits["min"].model_.fit["lambda"] <= fits["1se"].model_.fit["lambda"]
    assert fits["min"].model_.fit["cv_loss"] <= fits["1se"].model_.fit["cv_loss"]


def test_printed_terms_add_up_to_the_score_with_linear_terms_and_missing_values():
    X, y = step_data(seed=3)
    y_real = 2.0 * X[:, 1] + 3.0 * (X[:, 0] > 0.3)
    model = CompressedRuleEnsembleRegressor(n_trees=80, linear=True, random_state=0).fit(
        X, y_real)
    assert any(term["kind"] == "linear" for term in model.terms_)
    rows = np.array([[0.5, -1.0], [np.nan, 2.0], [0.1, np.nan]])
    scores = model.predict(rows)
    for row, score, explanation in zip(rows, scores, model.explain(rows)):
        assert math.isclose(sum(r[3] for r in explanation.rows), score, abs_tol=1e-9)
        assert explanation.score == pytest.approx(score, abs=1e-12)
        by_term = {r[0]: r for r in explanation.rows}
        assert by_term["intercept"][1] == model.terms_[0]["coefficient"]
        linear = by_term["linear: x1"]
        assert linear[2] == (row[1] if not np.isnan(row[1]) else model.model_.linear[0].mean)
    # the printed formula, evaluated by hand from terms_, gives the same scores
    by_hand = np.full(len(rows), model.terms_[0]["coefficient"])
    outputs = model.model_.rule_outputs(rows)
    texts = [model.model_.rule_text(rule) for rule in model.model_.rules]
    for term in model.terms_[1:]:
        if term["kind"] == "rule":
            by_hand += term["coefficient"] * outputs[:, texts.index(term["term"])]
        else:
            column = rows[:, 1]
            by_hand += term["coefficient"] * np.where(np.isnan(column),
                                                      model.model_.linear[0].mean, column)
    assert np.allclose(by_hand, scores, atol=1e-9)


def test_soft_conditions_print_with_their_split_point_intervals():
    X, y = step_data()
    model = CompressedRuleEnsembleClassifier(n_trees=60, random_state=0).fit(X, y)
    text = str(model)
    lines = text.splitlines()
    assert lines[0].startswith("CompressedRuleEnsembleClassifier: L1 GLM, lambda_1se = ")
    assert lines[1].split() == ["coefficient", "term"] and lines[2].endswith("intercept")
    term = model.terms_[1]
    condition = term["conditions"][0]
    low, high = condition["low"], condition["high"]
    assert low == condition["split_points"][0][0] and high == condition["split_points"][-1][0]
    shown = f"[{low:.6g};{high:.6g}]" if low != high else f"{low:.6g}"
    assert f"{condition['feature']} {condition['operator']} {shown}" in term["term"]
    assert term["term"] in text
    assert text.endswith("P(y = 1.0) = 1/(1 + exp(-score))")


def test_the_regressor_does_not_depend_on_the_targets_units_or_origin():
    """The squared loss is fitted on the standardised target: shifting y shifts the
    predictions, scaling it scales them (up to rounding), every fit is certified, and large
    targets neither hang the solver nor overflow."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(100, 3))
    y = 2 * X[:, 0] + rng.normal(size=100)
    params = dict(n_trees=30, folds=5, random_state=0)
    base = CompressedRuleEnsembleRegressor(**params).fit(X, y)
    shifted = CompressedRuleEnsembleRegressor(**params).fit(X, y + 1e10)
    assert [t["term"] for t in shifted.terms_[1:]] == [t["term"] for t in base.terms_[1:]]
    # y + 1e10 keeps y to about 2e-6: the same fit up to that perturbation and the fit's
    # tolerance (predictions in [-2.4, 1.7])
    assert np.allclose(shifted.predict(X) - 1e10, base.predict(X), atol=0.05)
    for factor in (1e8, 1e300):
        scaled = CompressedRuleEnsembleRegressor(**params).fit(X, y * factor)
        assert scaled.model_.fit["kkt"]["ok"] and np.isfinite(scaled.predict(X)).all()
        assert np.corrcoef(scaled.predict(X) / factor, base.predict(X))[0, 1] > 0.99


def test_the_harvest_starts_from_the_best_constant():
    """Boosting from 0, a target far from 0 gives every gradient one sign and no split a
    positive gain; from the mean, the trees are those of the centred target."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(80, 2))
    y = X[:, 0] + rng.normal(scale=0.1, size=80)
    rules = boosted_tree_rules(X, y, loss="squared", n_trees=5, random_state=0)
    assert rules and boosted_tree_rules(X, y + 300.0, loss="squared", n_trees=5,
                                        random_state=0) == rules


@pytest.mark.parametrize("points", [
    [-5e-324, 0.0, 0.0, 1.0],                   # x < 0 rewritten as x <= -5e-324
    [1e-310, 2e-310, 1.0, 1.0],                 # subnormal split points
    [-1e308, 0.0, 1e308, 1e308],                # squares beyond float64
    [3e-300, 1e-300, 2e-300, 9e-300],
])
def test_the_choice_of_k_survives_extreme_split_points(points):
    clusters = cluster_split_points(points, k_max=3)
    assert sum(c.size for c in clusters) == len(points)


@given(st.lists(st.integers(-50, 50), min_size=1, max_size=12), st.integers(-900, 900))
def test_the_choice_of_k_does_not_depend_on_the_units(values, exponent):
    """Scaling every split point by a power of two (exactly) changes no cluster."""
    points = [float(v) for v in values]
    scaled = [math.ldexp(v, exponent) for v in points]
    assert [c.weights for c in cluster_split_points(points)] == \
        [c.weights for c in cluster_split_points(scaled)]


# ----- the averaging variant -----------------------------------------------------------------

def test_the_averaging_variant_follows_equations_11_to_13():
    X, y = step_data(noise=0.15)
    model = CompressedRuleEnsembleClassifier(n_trees=80, variant="average", n_rules=5,
                                             random_state=0).fit(X, y)
    fitted = model.model_
    assert len(fitted.rules) == 5
    outputs = fitted.rule_outputs(X)
    for h in range(5):
        r = outputs[:, h]
        assert 0.05 <= r.mean() <= 0.95
        assert fitted.mu_plus[h] == pytest.approx((y * r).sum() / r.sum(), rel=1e-12)
        assert fitted.mu_minus[h] == pytest.approx((y * (1 - r)).sum() / (1 - r).sum(),
                                                   rel=1e-12)
    # the most frequent candidates, in order of their counts
    assert list(fitted.counts) == sorted(fitted.counts, reverse=True)
    by_formula = np.mean([outputs[:, h] * fitted.mu_plus[h] +
                          (1 - outputs[:, h]) * fitted.mu_minus[h] for h in range(5)], axis=0)
    assert np.allclose(model.predict_proba(X)[:, 1], by_formula, atol=1e-12)
    assert np.array_equal(model.predict(X), np.where(by_formula > 0.5, 1.0, 0.0))
    explanation = model.explain(X[:1])[0]
    assert np.mean([row[4] for row in explanation.rows]) == pytest.approx(by_formula[0])
    assert "mu+" in str(model) and "mu_plus" in str(explanation)


def test_the_averaging_variant_counts_the_harvested_rules_behind_each_smooth_rule():
    rules = [[(0, ">", 0.3)], [(0, ">", 0.31)], [(0, ">", 0.29)], [(1, "<=", 0.0)],
             [(1, "<=", 0.0)], [(0, ">", 0.3), (1, "<=", 0.0)]]
    X, y = step_data()
    model = CompressedRuleEnsembleClassifier(rules_from=rules, variant="average", n_rules=2,
                                             kmax=1).fit(X, y)
    assert model.model_.counts == (3, 2)
    assert [term["term"] for term in model.terms_] == ["x0 > [0.29;0.31]", "x1 <= 0"]


# ----- rules from the user -------------------------------------------------------------------

def test_user_rules_in_every_form_give_the_same_model(tmp_path):
    X, y = step_data()
    booster = BoostedRulesClassifier(30, random_state=0).fit(X, y)
    numeric = [rule for rule in booster.rules_ if rule["conditions"]]
    as_triples = [[(c["feature"], c["operator"], c["threshold"]) for c in rule["conditions"]]
                  for rule in numeric]
    path = tmp_path / "rules.json"
    path.write_text(json.dumps({"rules": booster.rules_}))
    model_path = tmp_path / "boomer.json"
    booster.to_json(model_path)
    models = [CompressedRuleEnsembleClassifier(rules_from=source, random_state=0).fit(X, y)
              for source in (booster.rules_, as_triples, str(path), model_path)]
    assert len({str(model) for model in models}) == 1


def test_strict_and_non_strict_operators_are_rewritten_exactly():
    rules = user_rules([[("a", "<", 1.0)], [("a", ">=", 1.0)]], ["a"])
    below = math.nextafter(1.0, -math.inf)
    assert rules == [((0, "<=", below),), ((0, ">", below),)]
    values = np.array([below, 1.0])
    assert np.array_equal(values <= below, values < 1.0)
    big = 2 ** 53 + 1                      # no float64: x < big for x = 2^53, x <= big too
    assert user_rules([[("a", "<", big)], [("a", "<=", big)], [("a", ">=", Fraction(1, 3))]],
                      ["a"]) == [((0, "<=", 2.0 ** 53),), ((0, "<=", 2.0 ** 53),),
                                 ((0, ">", float(Fraction(1, 3))),)]
    assert float(Fraction(1, 3)) < Fraction(1, 3)       # so x > it means x >= 1/3


@pytest.mark.parametrize("rules, message", [
    ("boosted-ish", "rules file"),
    ([[("z", "<=", 1.0)]], r"rule 0, condition 0: feature 'z' is not a column of X"),
    ([[(0, "<=", 1.0)], [(0, "==", "a")]], r"rule 1, condition 0: operator '==' is not a "),
    ([[(5, ">", 1.0)]], r"feature index 5 is not in 0\.\.1"),
    ([[(0, ">", float("nan"))]], "threshold nan is not a finite number"),
    ([[(0, "<", -1.7976931348623157e308)]], r"rule 0, condition 0: no float64 value is < "
                                            r"-1\.79.*e\+308, so the condition never holds"),
    ([[{"feature": "x0", "operator": ">"}]], "lacks 'threshold'"),
    ([[(0, ">")]], r"a condition is \(feature, operator, threshold\)"),
    ([7], "a rule is a list of conditions"),
])
def test_bad_user_rules_are_named(rules, message):
    X, y = step_data(n=40)
    with pytest.raises(ValueError, match=message):
        CompressedRuleEnsembleClassifier(rules_from=rules).fit(X, y)


# ----- estimator conventions -----------------------------------------------------------------

sklearn = pytest.importorskip("sklearn")


@pytest.mark.filterwarnings("ignore:Estimator .* does not inherit from")
@pytest.mark.filterwarnings("ignore:Skipping check check_array_api_input")
@pytest.mark.parametrize("estimator", [
    CompressedRuleEnsembleClassifier(n_trees=20, folds=3),
    CompressedRuleEnsembleRegressor(n_trees=20, folds=3, linear=True),
    CompressedRuleEnsembleClassifier(n_trees=20, variant="average"),
], ids=["classifier", "regressor", "average"])
def test_scikit_learn_check_estimator(estimator):
    from sklearn.utils.estimator_checks import check_estimator
    results = check_estimator(estimator, on_fail=None)
    failed = [f"{r['check_name']}: {r['exception']!r}" for r in results
              if r["status"] == "failed"]
    assert not failed, "\n".join(failed)
    assert sum(r["status"] == "passed" for r in results) > 40


@pytest.mark.parametrize("variant", ["glm", "average"])
def test_model_files_round_trip(tmp_path, variant):
    X, y = step_data()
    names = np.where(y > 0, "yes", "no")
    model = CompressedRuleEnsembleClassifier(n_trees=40, variant=variant, linear=False,
                                             random_state=0).fit(X, names)
    path = tmp_path / "cre.json"
    model.to_json(path)
    loaded = load_model(path)
    assert type(loaded) is CompressedRuleEnsembleClassifier
    assert str(loaded) == str(model) and loaded.get_params() == model.get_params()
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert "pickle" not in path.read_text()


def _rewritten(path, change):
    from optrules.model_files import _digest
    body = json.loads(path.read_text())
    body.pop("sha256")
    change(body)
    body["sha256"] = _digest(body)
    path.write_text(json.dumps(body))


@pytest.mark.parametrize("change, message", [
    (lambda b: b["model"]["rules"][0]["conditions"][0].update(cluster=9), "is not a cluster"),
    (lambda b: next(iter(b["model"]["clusters"].values()))[0]["split_points"].reverse(),
     "strictly ascending|must be non-empty"),
    (lambda b: b["model"].update(variant="forest"), "variant must be one of"),
    (lambda b: b["model"]["rules"][0].update(scale=0), r"every scale \(length\^eta\) must"),
    (lambda b: b["model"]["rules"][0].update(scale=1e-320), "must be at least 1"),
    (lambda b: b["model"]["rules"][0]["conditions"][0].update(operator="<"), "operator must"),
    (lambda b: b["model"]["rules"][0].update(scale=7.0), "length to the power eta=0.5"),
    (lambda b: b["model"]["linear"].append({"feature": "x0", "coefficient": 1.0, "mean": 0.0,
                                            "sd": 1.0}), "the parameter linear is false"),
    (lambda b: b["model"].update(fit={}), r"model\.fit\.harvested_rules is missing"),
    (lambda b: b["model"]["fit"].pop("kkt"), r"model\.fit\.kkt is missing"),
    (lambda b: next(iter(b["model"]["clusters"].values()))[0]["weights"].__setitem__(0, 10**30),
     r"weights must be an integer of magnitude below 2\*\*63"),    # was a numpy error later
])
def test_edited_model_files_are_refused_with_the_field_named(tmp_path, change, message):
    X, y = step_data()
    model = CompressedRuleEnsembleRegressor(n_trees=40, random_state=0).fit(X, y + X[:, 1])
    path = tmp_path / "cre.json"
    model.to_json(path)
    _rewritten(path, change)
    with pytest.raises(ValueError, match=message):
        load_model(path)


@pytest.mark.parametrize("change, message", [
    (lambda b: b["model"]["rules"][0].update(mu_plus=3.0), r"in \[0, 1\]"),
    (lambda b: b["params"].update(n_rules=1), "more than n_rules=1"),
])
def test_edited_averaging_model_files_are_refused(tmp_path, change, message):
    X, y = step_data()
    model = CompressedRuleEnsembleClassifier(n_trees=40, variant="average", n_rules=3,
                                             random_state=0).fit(X, y)
    path = tmp_path / "cre.json"
    model.to_json(path)
    _rewritten(path, change)
    with pytest.raises(ValueError, match=message):
        load_model(path)


def test_input_errors_name_the_problem():
    X, y = step_data(n=30)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"age": X[:, 0], "colour": np.where(y > 0, "red", "blue")})
    with pytest.raises(ValueError, match="feature 'colour' is categorical"):
        CompressedRuleEnsembleClassifier(n_trees=5).fit(frame, y)
    with pytest.raises(ValueError, match="at least 2 examples of each class for cross-"
                                         "validation; class 1.0 has 1"):
        CompressedRuleEnsembleClassifier(n_trees=5).fit(X, np.r_[np.zeros(29), 1.0])
    with pytest.raises(ValueError, match="folds=10 needs at least 10 examples; X has 3 "
                                         "samples"):
        CompressedRuleEnsembleRegressor(n_trees=5).fit(X[:3], y[:3])
    with pytest.raises(ValueError, match="'kmax' parameter .* must be a positive integer"):
        CompressedRuleEnsembleRegressor(kmax=0).fit(X, y)
    cells = X.astype(object)
    cells[4, 1] = "tall"
    with pytest.raises(ValueError, match="feature x1, row 4: could not convert"):
        CompressedRuleEnsembleRegressor(n_trees=5).fit(cells, y)


# ----- the command ---------------------------------------------------------------------------

@pytest.fixture
def step_csv(tmp_path):
    X, y = step_data(n=150)
    path = tmp_path / "step.csv"
    lines = ["size,weight,label"] + [f"{a},{'' if i == 3 else b},{'yes' if c else 'no'}"
                                     for i, ((a, b), c) in enumerate(zip(X, y))]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_command_prints_terms_explanations_and_json(step_csv, tmp_path, capsys):
    model_path = tmp_path / "model.json"
    assert main(["cre", "--csv", str(step_csv), "--target", "label", "--trees", "40",
                 "--seed", "0", "--kmax", "2", "--explain", "4", "--save-model",
                 str(model_path)]) == 0
    out = capsys.readouterr().out
    assert "CompressedRuleEnsembleClassifier: L1 GLM" in out and "KKT conditions hold" in out
    assert "row 4:" in out and "contribution" in out
    assert main(["cre", "--csv", str(step_csv), "--target", "label", "--trees", "40",
                 "--seed", "0", "--kmax", "2", "--json", "--explain", "1"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["terms"][0]["kind"] == "intercept" and body["classes"] == ["no", "yes"]
    assert body["fit"]["kkt"]["ok"] and body["explanations"][0]["row"] == 1
    score = sum(t["contribution"] for t in body["explanations"][0]["terms"])
    assert score == pytest.approx(body["explanations"][0]["score"], abs=1e-9)
    assert all(t["kind"] == "intercept" or t["conditions"] for t in body["terms"])
    loaded = load_model(model_path)
    assert loaded.model_.fit["lambda"] == body["fit"]["lambda"]


def test_the_command_reads_rules_from_a_file_and_names_bad_input(step_csv, tmp_path, capsys):
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps([[["size", ">", 0.3]], [["weight", "<=", 0.0]]]))
    assert main(["cre", "--csv", str(step_csv), "--target", "label", "--rules-from",
                 str(rules), "--variant", "average", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert [t["term"] for t in body["terms"]] == ["size > 0.3", "weight <= 0"]
    rules.write_text(json.dumps([[["height", ">", 0.3]]]))
    assert main(["cre", "--csv", str(step_csv), "--target", "label", "--rules-from",
                 str(rules)]) == 2
    assert "rule 0, condition 0: feature 'height' is not a column" in capsys.readouterr().err
    assert main(["cre", "--csv", str(step_csv), "--target", "label", "--explain", "999"]) == 2
    assert "--explain 999" in capsys.readouterr().err


def test_linear_terms_of_huge_values_are_standardised_as_any_others():
    """Found by review: squares of values beyond 1e154 overflowed, the sd became 1.8e308 and
    the lasso dropped the column; now each column is scaled by a power of 2 first, which
    leaves ordinary columns' mean and sd bit for bit."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    X[5, 1] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for factor in (1.0, 2.0**600, 1e-200):
            terms, (mean, sd) = linear_terms(X * factor)
            reference, (mean1, sd1) = linear_terms(X)
            assert np.allclose(terms, reference, rtol=1e-12, atol=0)
            assert np.allclose(mean, mean1 * factor, rtol=1e-12) and \
                np.allclose(sd, sd1 * factor, rtol=1e-12)


def test_targets_and_columns_spanning_the_float_range_are_standardised_without_overflow():
    """Found by review: y − mean (squared loss) and x − mean (linear terms) overflowed for
    values spanning ±1.7e308: an internal error, or 'SVD did not converge'. Both now divide by
    a power of 2 first, which leaves ordinary quotients bit for bit."""
    from optrules.compressed_rules.design import LINEAR_SCALE, standardised
    rng = np.random.default_rng(1)
    X, mean, sd = rng.normal(size=(30, 3)) * 50, np.array([3.0, -7.5, 0.0]), \
        np.array([2.0, 0.25, 1e3])
    assert np.array_equal(standardised(X, mean, sd), (X - mean) / sd * LINEAR_SCALE)
    huge = np.array([1.7e308, -1.7e308, 1.7e308, 1.0, -1.7e308, 2.0, 3.0, 1.7e308])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        regressor = CompressedRuleEnsembleRegressor(n_trees=5, folds=2, random_state=0).fit(
            np.arange(8.0)[:, None], huge)
        assert np.isfinite(regressor.predict(np.arange(8.0)[:, None])).all()
        X = np.column_stack([huge, np.arange(8.0)])
        classifier = CompressedRuleEnsembleClassifier(n_trees=5, folds=2, linear=True,
                                                      random_state=0).fit(X, [1, 0] * 4)
        assert np.isfinite(classifier.predict_proba(X)).all()


def test_a_huge_eta_leaves_only_single_condition_rules_without_a_warning():
    """Found by review: eta = 1e308 printed numpy's 'overflow encountered in power'; a rule of
    several conditions then has scale inf, and its column is 0."""
    from optrules.compressed_rules.design import rule_scales
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rule_scales([1, 2, 3], 1e308).tolist() == [1.0, math.inf, math.inf]
        rng = np.random.default_rng(0)
        X = rng.normal(size=(60, 2))
        model = CompressedRuleEnsembleClassifier(n_trees=10, folds=3, eta=1e308,
                                                 random_state=0).fit(X, X[:, 0] > 0)
        assert all(rule.length == 1 for rule, beta in zip(model.model_.rules,
                                                          model.model_.coefficients) if beta)
