"""The estimators: scikit-learn conventions, parameters, input forms and what new users hit."""

import re
import warnings
from fractions import Fraction

import numpy as np
import pytest

from optrules import (BoostedRulesClassifier, BoostedRulesRegressor, NotFittedError,
                      OptimalRuleBoostingClassifier, OptimalRuleBoostingRegressor,
                      RuleListClassifier)
from optrules.base import DataConversionWarning
from optrules.verify import RuleListInstance, certify_rule_list

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.utils.estimator_checks import check_estimator  # noqa: E402

# Small settings keep scikit-learn's ~50 checks to seconds. The rule-list search gets a node
# limit because several checks fit random labels on 10 random numeric features, where a
# certified search at lam = 0.02 takes minutes (the limit returns the best list with its gap).
CHECKED = [
    RuleListClassifier(lam=0.02, max_nodes=300),
    OptimalRuleBoostingClassifier(3, thresholds="quantile:4", max_depth=2),
    OptimalRuleBoostingRegressor(4, lam=0, thresholds="quantile:4", max_depth=2),
    BoostedRulesClassifier(20, random_state=0),
    BoostedRulesRegressor(20, random_state=0),
]
#: Checks expected to fail, with the reason (none today).
EXPECTED_FAILURES = {}


# optrules does not import scikit-learn, so its estimators cannot inherit BaseEstimator; they
# implement the protocol (get_params, set_params, __sklearn_tags__, ...) instead.
@pytest.mark.filterwarnings("ignore:Estimator .* does not inherit from")
@pytest.mark.filterwarnings("ignore:Skipping check check_array_api_input")
@pytest.mark.parametrize("estimator", CHECKED, ids=lambda e: type(e).__name__)
def test_scikit_learn_check_estimator(estimator):
    results = check_estimator(estimator, on_fail=None,
                              expected_failed_checks=EXPECTED_FAILURES)
    failed = [f"{r['check_name']}: {r['exception']!r}" for r in results
              if r["status"] == "failed"]
    assert not failed, "\n".join(failed)
    assert sum(r["status"] == "passed" for r in results) > 40


def compas_like(n=120, seed=0):
    """A small mixed table: categorical, boolean, numeric and pandas-categorical columns with
    names holding spaces, commas and colons."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    priors = rng.integers(0, 8, n)
    frame = pd.DataFrame({
        "sex, reported": rng.choice(["Male", "Female"], n),
        "juvenile: any": rng.random(n) < 0.2,
        "mean priors": priors + rng.random(n).round(2),
        "charge degree": pd.Categorical(rng.choice(["1", "2", "3"], n)),
    })
    y = np.where((priors > 3) | (frame["juvenile: any"] & (frame["sex, reported"] == "Male")),
                 "yes", "no")
    flip = rng.random(n) < 0.1
    return frame, np.where(flip, np.where(y == "yes", "no", "yes"), y)


# --- parameters ---------------------------------------------------------------------------

@pytest.mark.parametrize("estimator", CHECKED, ids=lambda e: type(e).__name__)
def test_get_params_set_params_and_clone_round_trip(estimator):
    params = estimator.get_params()
    copy = clone(estimator)
    assert copy is not estimator and copy.get_params() == params
    assert copy.set_params(time_limit=5) is copy and copy.time_limit == 5
    assert estimator.time_limit is None
    with pytest.raises(ValueError, match=r"Invalid parameter 'lamda' for estimator "
                                         rf"{type(estimator).__name__}\. Valid parameters"):
        copy.set_params(lamda=1)


def test_repr_shows_the_changed_parameters_and_str_the_model():
    estimator = RuleListClassifier(0.05, thresholds="quantile:2")
    assert repr(estimator) == "RuleListClassifier(lam=0.05, thresholds='quantile:2')"
    assert str(estimator) == repr(estimator)          # not fitted yet
    X, y = compas_like()
    fitted = str(estimator.fit(X, y))
    assert fitted.startswith("if {") and "certified optimal: objective" in fitted


def test_init_only_stores_and_fit_validates():
    estimator = RuleListClassifier(lam=-1)                # no error before fit
    X, y = compas_like()
    with pytest.raises(ValueError, match=re.escape(
            "The 'lam' parameter of RuleListClassifier must be a fraction in (0, 1). "
            "Got -1 instead.")):
        estimator.fit(X, y)
    with pytest.raises(TypeError, match="The 'max_depth' parameter of "
                                        "OptimalRuleBoostingClassifier must be a positive "
                                        "integer or None. Got 'deep' instead."):
        OptimalRuleBoostingClassifier(max_depth="deep").fit(X, y)
    with pytest.raises(ValueError, match=r"The 'loss' parameter of OptimalRuleBoosting"
                                         r"Regressor must be one of \['squared', 'poisson'\]"):
        OptimalRuleBoostingRegressor(loss="logistic").fit(X, np.arange(len(y)))


def test_numpy_scalars_work_wherever_a_number_does():
    X, y = compas_like()
    lams = np.linspace(0.02, 0.04, 3)                      # np.float64 values
    objectives = [RuleListClassifier(lam, max_nodes=np.int64(10_000),
                                     time_limit=np.float32(60)).fit(X, y).objective_
                  for lam in lams]
    exact = [RuleListClassifier(text).fit(X, y).objective_ for text in ("0.02", "0.03", "0.04")]
    assert objectives == exact
    booster = OptimalRuleBoostingClassifier(np.int64(2), lam=np.float64(0.5),
                                            apx=np.float64(0.5), max_depth=np.int32(2))
    assert len(booster.fit(X, y).rules_) == 2
    assert booster.ensemble_.lam == Fraction(1, 2)


# --- unfitted use -------------------------------------------------------------------------

@pytest.mark.parametrize("estimator", CHECKED, ids=lambda e: type(e).__name__)
def test_unfitted_use_raises_a_clear_error(estimator, tmp_path):
    methods = [lambda: estimator.predict([[0.0]]), lambda: estimator.to_json(tmp_path / "m")]
    for method in ("predict_proba", "decision_function"):
        if hasattr(estimator, method):
            methods.append(lambda m=method: getattr(estimator, m)([[0.0]]))
    for call in methods:
        with pytest.raises(NotFittedError, match=f"This {type(estimator).__name__} instance "
                                                 "is not fitted yet"):
            call()
    assert not (tmp_path / "m").exists()


def test_not_fitted_error_is_scikit_learns_too():
    from sklearn.exceptions import NotFittedError as SklearnNotFittedError
    with pytest.raises(SklearnNotFittedError):
        RuleListClassifier().predict([[0]])


# --- input forms --------------------------------------------------------------------------

def test_dataframe_with_any_names_bool_and_categorical_columns():
    X, y = compas_like()
    model = RuleListClassifier(0.02).fit(X, y)
    assert list(model.feature_names_in_) == list(X.columns) and model.n_features_in_ == 4
    assert model._feature_kinds == (False, False, True, False)   # bool, category: categorical
    assert set(model.classes_) == {"no", "yes"}
    new_rows = X.iloc[[5, 0, 3]].reset_index(drop=True)
    everything = model.predict(X)
    assert model.predict(new_rows).tolist() == [everything[i] for i in (5, 0, 3)]
    conditions = [c for rule in model.rule_list_.rules for c in rule.conditions]
    assert {c.feature for c in conditions} <= set(X.columns)


def test_numpy_array_input_gets_positional_names_and_dataframes_warn():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] > 0.3).astype(int)
    model = RuleListClassifier(0.05).fit(X, y)
    assert not hasattr(model, "feature_names_in_")
    assert str(model.rule_list_).startswith("if {x0:")
    with pytest.warns(UserWarning, match="X has feature names, but RuleListClassifier was "
                                         "fitted without feature names"):
        assert model.predict(pd.DataFrame(X, columns=["a", "b", "c"])).tolist() == \
            model.predict(X).tolist()


def test_column_vector_target_is_flattened_with_a_warning():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    with pytest.warns(DataConversionWarning, match="A column-vector y was passed"):
        model = OptimalRuleBoostingRegressor(1, lam=0, thresholds="all").fit(
            X, np.array([[0.0], [0.0], [2.0], [2.0]]))
    assert model.predict(X).tolist() == [0.0, 0.0, 2.0, 2.0]


@pytest.mark.parametrize("y, message", [
    ([0.5, 1.5, 0.5, 1.5], "Unknown label type: continuous"),
    (["a", 1, "a", 1], r"Mix of label input types \(string and number\)"),
    ([1, 1, 1, 1], r"classes in y; y has only 1 class: \[1\]"),
    ([1, None, 0, 1], r"y has 1 missing value\(s\) \(first at row 1\)"),
    ([1, 0, 1], "y has 3 values but X has 4 rows"),
])
def test_classifier_targets_are_checked(y, message):
    X = [[0.0], [1.0], [2.0], [3.0]]
    for estimator in (RuleListClassifier(0.1), OptimalRuleBoostingClassifier(1)):
        with pytest.raises(ValueError, match=message):
            estimator.fit(X, np.array(y, dtype=object))


def test_boosting_is_binary_and_rule_lists_take_several_classes():
    X, y = [[0.0], [1.0], [2.0], [3.0]], [1, 2, 3, 1]
    with pytest.raises(ValueError, match="Only binary classification is supported.*needs "
                                         "exactly 2 classes"):
        OptimalRuleBoostingClassifier(1).fit(X, y)
    with pytest.raises(ValueError, match=r"needs 2 or more classes in y; y has only 1 class"):
        RuleListClassifier(0.1).fit(X, [1, 1, 1, 1])
    model = RuleListClassifier(0.1, min_support=0).fit(X, y)
    assert model.classes_.tolist() == [1, 2, 3]
    assert model.predict_proba(X).shape == (4, 3)


def test_zero_one_target_prints_its_actual_values():
    """A 0/1 target used to print as No/Yes ("then Yes" meant benign)."""
    X = {"worst area": [500.0, 600.0, 1000.0, 1200.0, 550.0, 1100.0]}
    model = RuleListClassifier(0.1).fit(X, [1, 1, 0, 0, 1, 0])
    assert str(model.rule_list_) == "if {worst area:<=800} then 1\nelse 0"
    assert model.predict({"worst area": [700.0, 900.0]}).tolist() == [1, 0]


def test_breast_cancer_names_with_spaces_fit_print_and_predict_new_rows():
    """sklearn's own column names ("mean radius") used to be rejected; re-mining new rows used
    to fail. Thresholds print as the shortest decimal splitting the training values."""
    from sklearn.datasets import load_breast_cancer
    data = load_breast_cancer(as_frame=True)
    X, y = data.data.iloc[:, :4], data.target
    model = RuleListClassifier(0.02, max_cardinality=1).fit(X.iloc[:400], y.iloc[:400])
    assert model.status_ == "optimal"
    for rule in model.rule_list_.rules:
        for condition in rule.conditions:
            assert len(repr(condition.value)) <= 8, rule.antecedent     # e.g. 17.38, not 17.3849
    predictions = model.predict(X.iloc[400:])
    assert predictions.shape == (169,) and set(predictions) <= {0, 1}
    assert model.score(X.iloc[400:], y.iloc[400:]) > 0.8


def test_empty_proposition_sets_give_trivial_models():
    X = np.zeros((6, 2))
    y = [0, 1, 1, 0, 1, 1]
    rule_list = RuleListClassifier(0.1).fit(X, y)
    assert rule_list.n_antecedents_ == 0 and str(rule_list.rule_list_) == "always 1"
    booster = OptimalRuleBoostingClassifier(2).fit(X, y)
    assert [rule["conditions"] for rule in booster.rules_] == [[], []]
    assert str(booster).splitlines()[0].endswith(" if true   [optimal]")


# --- rule lists: mining at λ, probabilities, certification ------------------------------

def test_min_support_above_lam_warns_that_optimality_is_relative():
    X, y = compas_like()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RuleListClassifier(0.02).fit(X, y)                       # None: mine at λ, no warning
        RuleListClassifier(0.02, min_support=0.01).fit(X, y)     # below λ: loses nothing
    with pytest.warns(UserWarning, match="optimal only among the mined antecedents"):
        RuleListClassifier(0.02, min_support=0.1).fit(X, y)


def test_mining_at_lam_loses_nothing_against_mining_everything():
    X, y = compas_like()
    at_lam = RuleListClassifier(0.05).fit(X, y)
    everything = RuleListClassifier(0.05, min_support=0).fit(X, y)
    assert at_lam.n_antecedents_ < everything.n_antecedents_
    assert at_lam.objective_ == everything.objective_ and at_lam.status_ == "optimal"


def test_predict_proba_is_the_capturing_rules_training_frequency():
    X, y = compas_like()
    model = RuleListClassifier(0.02).fit(X, y)
    probabilities = model.predict_proba(X)
    capture = model.rule_list_.capturing_rule(model._features_for_predict(X))
    for k, entry in enumerate(model.rules_):
        captured = capture == k
        expected = [np.mean(np.asarray(y)[captured] == c) for c in model.classes_]
        assert entry["class_counts"] == [int(np.sum(np.asarray(y)[captured] == c))
                                         for c in model.classes_]
        assert np.allclose(probabilities[captured], expected)
    predicted = model.classes_[np.argmax(probabilities, axis=1)]
    assert (predicted == model.predict(X)).all()     # no 0.5/0.5 tie in this data


def test_the_estimators_claim_is_certified_independently():
    X, y = compas_like(n=60)
    model = RuleListClassifier(0.05, max_cardinality=1).fit(X, y)
    dataset = model.antecedents(X, y)
    certificate = certify_rule_list(RuleListInstance.from_dataset(dataset, model.result_.lam),
                                    model.rule_list_, tuple(model.classes_.tolist()),
                                    model.objective_, checks=("oracle", "maxsat"))
    assert certificate.verdict == "certified", certificate.to_dict()


def test_fit_antecedents_on_corels_files_predicts_antecedent_bits(compas_dir):
    from optrules.data.corels_files import load_corels
    data = load_corels(compas_dir / "compas_train.out", compas_dir / "compas_train.label")
    model = RuleListClassifier("0.02").fit_antecedents(data)
    assert model.classes_.tolist() == ["No", "Yes"]
    predictions = model.predict(data)
    assert predictions.shape == (6489,) and set(predictions) == {"No", "Yes"}
    with pytest.raises(ValueError, match="came from a CORELS file and is only a name"):
        model.predict({name: ["0"] for name in model.feature_names_in_})


# --- boosting -----------------------------------------------------------------------------

def test_boosting_classifier_probabilities_scores_and_statuses():
    X, y = compas_like()
    model = OptimalRuleBoostingClassifier(3, lam=1, thresholds="quantile:4").fit(X, y)
    scores = model.decision_function(X)
    probabilities = model.predict_proba(X)
    assert np.allclose(probabilities[:, 1], 1 / (1 + np.exp(-scores)))
    assert np.allclose(probabilities.sum(axis=1), 1)
    assert (model.predict(X) == model.classes_[(scores > 0).astype(int)]).all()
    assert [rule["statistics"]["status"] for rule in model.rules_] == ["optimal"] * 3
    assert len(str(model).splitlines()) == 3


def test_approximate_rules_report_their_guarantee():
    X, y = compas_like()
    model = OptimalRuleBoostingClassifier(2, apx=0.5, thresholds="quantile:4").fit(X, y)
    for rule in model.rules_:
        assert rule["statistics"]["status"] == "approximate"
        assert rule["statistics"]["guarantee"] == 0.5 or rule["statistics"]["upper_bound"] == 0


def test_poisson_regressor_predicts_rates():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 2))
    counts = rng.poisson(np.where(X[:, 0] > 0, 4.0, 1.0))
    model = OptimalRuleBoostingRegressor(3, loss="poisson", lam=1,
                                         thresholds="quantile:4").fit(X, counts)
    assert (model.predict(X) > 0).all() and not hasattr(model, "decision_function")
    assert model.score(X, counts) > 0.2


# --- review fixes -------------------------------------------------------------------------

def test_boosting_prints_the_thresholds_it_uses():
    X = [[1.00001], [1.00002], [1.00003], [1.00004]]
    model = OptimalRuleBoostingRegressor(1, lam=0, thresholds="all").fit(X, [0, 0, 1, 1])
    threshold = model.rules_[0]["conditions"][0][2]
    assert f"x0>{threshold!r}" in str(model) and threshold == 1.000025


def test_categories_unseen_in_training_are_reported():
    """A bool column passed as 0/1 at predict matches no category: say so, not silently."""
    X = {"flag": np.array([True, False, True, False, True, False]), "n": [1, 2, 3, 4, 5, 6]}
    model = RuleListClassifier(0.1, min_support=0).fit(X, [1, 0, 1, 0, 1, 1])
    with pytest.warns(UserWarning, match=r"categories not seen in training.*'flag': \['0', "
                                         r"'1'\]"):
        model.predict({"flag": np.array([1, 0]), "n": [1, 2]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.predict({"flag": np.array([True, False]), "n": [1, 2]})


def test_verbose_accepts_booleans_and_score_checks_y():
    X, y = compas_like()
    model = RuleListClassifier(0.05, verbose=True).fit(X, y)
    with pytest.raises(ValueError, match="y has 5 values but X has 120 rows"):
        model.score(X, y[:5])


def test_disabled_bounds_of_the_wrong_type_are_named():
    X, y = compas_like()
    with pytest.raises(TypeError, match="The 'disabled_bounds' parameter of RuleListClassifier "
                                        "must be a collection of names"):
        RuleListClassifier(0.05, disabled_bounds=[["lookahead"]]).fit(X, y)


def test_data_conversion_warning_is_scikit_learns_too():
    from sklearn.exceptions import DataConversionWarning as SklearnWarning
    with pytest.warns(SklearnWarning):
        RuleListClassifier(0.1).fit([[0], [1], [0], [1]], np.array([[0], [1], [0], [1]]))


@pytest.mark.parametrize("estimator", CHECKED, ids=lambda e: type(e).__name__)
def test_a_failed_fit_leaves_no_half_fitted_estimator(estimator):
    X = [[0.0], [1.0], [2.0], [3.0]]
    fresh = clone(estimator)
    with pytest.raises(ValueError):
        fresh.fit(X, ["a", "b", None, "d"] if fresh._kind == "classifier"
                  else [0.0, 1.0, float("nan"), 2.0])
    with pytest.raises(NotFittedError):
        fresh.predict(X)


def test_score_takes_sample_weight_and_several_outputs_as_scikit_learn_does():
    """Found by review: score() had no sample_weight, and refused the 2-D targets that
    BoostedRules fit and predict."""
    from sklearn.metrics import accuracy_score, r2_score
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    labels = ((X + rng.normal(size=(60, 3))) > 0).astype(int)
    values = X[:, :2] * 2 + rng.normal(size=(60, 2))
    weights = rng.random(60)
    for model, y, metric in (
            (BoostedRulesClassifier(max_rules=5, head="complete"), labels, accuracy_score),
            (BoostedRulesRegressor(max_rules=5), values, r2_score),
            (RuleListClassifier(lam=0.05), labels[:, 0], accuracy_score)):
        predictions = model.fit(X, y).predict(X)
        assert model.score(X, y) == pytest.approx(metric(y, predictions), rel=1e-12)
        assert model.score(X, y, sample_weight=weights) == pytest.approx(
            metric(y, predictions, sample_weight=weights), rel=1e-12)
        assert model.score(X, y, weights) != model.score(X, y)
    with pytest.raises(ValueError, match="sample_weight has shape"):
        model.score(X, labels[:, 0], sample_weight=weights[:5])
    huge = weights * 1e308                  # a sum beyond the float range: same score
    assert model.score(X, labels[:, 0], huge) == pytest.approx(
        model.score(X, labels[:, 0], weights), rel=1e-12)


def test_the_not_fitted_error_pickles():
    """Found by review: with scikit-learn loaded, the error raised (also scikit-learn's
    NotFittedError) could not be pickled, so a joblib worker could not send it back."""
    import pickle
    import sklearn.exceptions
    with pytest.raises(NotFittedError) as raised:
        RuleListClassifier().predict([[1]])
    error = pickle.loads(pickle.dumps(raised.value))
    assert isinstance(error, sklearn.exceptions.NotFittedError) and \
        isinstance(error, NotFittedError) and str(error) == str(raised.value)
    for args in ((), ("a", "b")):
        assert pickle.loads(pickle.dumps(NotFittedError(*args))).args == args


def test_a_subclass_may_add_a_parameter_without_a_constraint():
    """Found by review: fit raised KeyError for it (scikit-learn validates only the
    parameters that have constraints)."""
    class Tagged(RuleListClassifier):
        def __init__(self, lam=0.01, tag="a"):          # the other parameters left out
            super().__init__(lam)
            self.tag = tag

    model = clone(Tagged(lam=0.05, tag="b")).fit([[0], [1], [1]], [0, 1, 1])
    assert model.tag == "b" and model.score([[0], [1]], [0, 1]) == 1.0

    class Bare(RuleListClassifier):
        def __init__(self, lam=0.05):                   # nor sets the others: defaults
            self.lam = lam

    assert Bare().fit([[0], [1], [1]], [0, 1, 1]).score([[0], [1]], [0, 1]) == 1.0
