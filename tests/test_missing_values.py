"""The data policy of specs/data.md for every method: missing values, mostly numeric columns
with stray text, and the one class order shared by the CLI and the estimators."""

import itertools
import json
import re
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from optrules import (OptimalRuleBoostingClassifier, RuleListClassifier, fit_rule_ensemble,
                      load_model)
from optrules.base import binary_classes
from optrules.cli import main
from optrules.data.mining import feature_items, mine_antecedents
from optrules.data.propositions import Proposition, make_propositions, numeric_thresholds
from optrules.data.table import (MISSING_TOKENS, MixedColumnWarning, as_features, read_csv,
                                 sorted_classes)
from optrules.rule_boosting.losses import LogisticLoss
from optrules.verify.instances import RuleInstance, RuleListInstance
from optrules.verify.oracle import optimal_rule, optimal_rule_list

NAN = float("nan")
#: The tokens of specs/data.md §2 as written there; lower and upper case and padding are
#: missing too, mixed case is not.
TOKENS = ["", "NA", "N/A", "NaN", "null", "None", "?", "<NA>", "#N/A"]


def _csv(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _spellings(token):
    """The token as written, in lower and upper case, and padded with spaces."""
    return sorted({token, token.lower(), token.upper(), f"  {token} "})


# --- which cells are missing -----------------------------------------------------------------

def test_the_documented_tokens_are_the_missing_tokens():
    assert MISSING_TOKENS == {s for token in TOKENS for s in (token, token.lower(),
                                                              token.upper())}


def test_mixed_case_values_are_categories_not_missing():
    """The element Na (sodium) or a title-case 'Null' are values, not missing tokens."""
    from optrules import RuleListClassifier
    X = {"element": ["Na"] * 10 + ["K"] * 5 + ["Ca"] * 5 + ["Null"] * 5}
    model = RuleListClassifier(lam=0.05).fit(X, [1] * 10 + [0] * 15)
    assert str(model.rule_list_).startswith("if {element:Na} then 1")


@pytest.mark.parametrize("token", [s for t in TOKENS for s in _spellings(t)])
def test_every_missing_token_keeps_a_csv_column_numeric_and_is_no_item(tmp_path, token):
    """A token in a numeric CSV column is NaN, the column stays numeric, no item or
    proposition names it, and no warning is given."""
    path = _csv(tmp_path, f'a,c,y\n1,u,0\n"{token}",v,1\n3,"{token}",0\n4,u,1\n')
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        features, _ = read_csv(path, "y")
    assert features.numeric == (True, False)
    assert np.array_equal(features.column("a"), [1.0, NAN, 3.0, 4.0], equal_nan=True)
    assert features.column("c").tolist() == ["u", "v", None, "u"]
    items = [p.name for column in feature_items(features, "all") for p in column]
    assert items == ["a<=2", "a>2", "a<=3.5", "a>3.5", "c==u", "c==v"]
    assert make_propositions(features, "all").names == (
        "a<=2", "a<=3.5", "a>2", "a>3.5", "c==u", "c==v", "c!=u", "c!=v")


def test_text_that_is_not_a_token_is_a_value(tmp_path):
    """Only the documented tokens are missing: '-', 'missing', '0' are values."""
    features = as_features({"c": ["-", "missing", "0", "NA"]})
    assert features.column("c").tolist() == ["-", "missing", "0", None]


@pytest.mark.parametrize("column", [
    [1.0, NAN, 3.0, np.nan],
    [1, None, 3, None],
    [1, pd.NA, 3.0, pd.NaT],
    np.array([1.0, np.nan, 3.0, np.nan]),
    np.array([1, None, "3", " nan "], dtype=object),
    np.array(["1", np.nan, "3", "NA"]),                    # numpy makes NaN the text 'nan'
    pd.array([1, None, 3, None], dtype="Int64"),
    pd.array([1.0, None, 3.0, np.nan], dtype="Float64"),
    pd.array(["1", None, "3", pd.NA], dtype="string"),
    pd.Series(pd.array([1, None, 3, None], dtype="Int64")).astype(str),   # '<NA>' text
], ids=lambda c: type(c).__name__ + "-" + str(getattr(c, "dtype", "list")))
def test_in_memory_missing_cells_keep_a_column_numeric(column):
    """None, NaN, pandas NA/NaT, nullable dtypes and their text forms are missing, in a dict
    of columns and in a DataFrame alike."""
    for data in ({"a": column}, pd.DataFrame({"a": column})):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            features = as_features(data)
        assert features.numeric == (True,)
        assert np.array_equal(features.column("a"), [1.0, NAN, 3.0, NAN], equal_nan=True)


@pytest.mark.parametrize("column", [
    ["x", NAN, "y", None], ["x", pd.NA, "y", "NA"], np.array(["x", np.nan, "y", "?"]),
    pd.Categorical(["x", None, "y", np.nan]), pd.array(["x", None, "y", pd.NA], dtype="string")])
def test_in_memory_missing_cells_are_no_category(column):
    features = as_features(pd.DataFrame({"c": column}))
    assert features.numeric == (False,)
    assert features.column("c").tolist() == ["x", None, "y", None]
    assert make_propositions(features, "all").names == ("c==x", "c==y", "c!=x", "c!=y")


def test_a_2d_array_with_nan_and_pandas_na():
    X = np.array([[1.0, "a"], [np.nan, pd.NA], [3.0, "b"]], dtype=object)
    features = as_features(X)
    assert features.numeric == (True, False)
    assert features.column("x1").tolist() == ["a", None, "b"]


# --- a missing cell satisfies no condition ---------------------------------------------------

@pytest.mark.parametrize("proposition, column, expected", [
    (Proposition("a", "<=", 2.0), [1.0, NAN, 3.0], [True, False, False]),
    (Proposition("a", ">", 0.0), [1.0, NAN, 3.0], [True, False, True]),
    (Proposition("c", "==", "u"), ["u", None, "v"], [True, False, False]),
    (Proposition("c", "!=", "v"), ["u", None, "v"], [True, False, False]),
    (Proposition("c", "!=", "w"), ["u", None, "v"], [True, False, True])])
def test_evaluate_is_false_on_missing_cells(proposition, column, expected):
    """Every operator, '!=' included, is False on a missing cell (NaN or None)."""
    held = proposition.evaluate(np.array(column, dtype=float if proposition.numeric else object))
    assert held.tolist() == expected


def test_mined_antecedents_and_propositions_are_false_where_a_column_is_missing():
    """Every antecedent (conjunctions included) and every proposition is False on the rows
    where one of its columns is missing."""
    data = {"a": ["1", "NA", "3", "4", "", "6"], "b": [0.5, 1.5, None, 2.5, 0.5, NAN],
            "c": ["u", "v", "?", "u", "null", "v"]}
    features = as_features(data)
    missing = {name: np.array([v is None or v != v for v in features.column(name).tolist()])
               for name in features.names}
    dataset = mine_antecedents(features, [0, 1, 0, 1, 1, 0], min_support=0, thresholds="all")
    assert dataset.n_antecedents > 20
    for conditions, bits in zip(dataset.antecedent_conditions, dataset.antecedent_bits()):
        for condition in conditions:
            assert not bits[missing[condition.feature]].any(), conditions
    propositions = make_propositions(features, "all")
    for j, proposition in enumerate(propositions.propositions):
        assert not set(propositions.extent_indices(j)) & set(
            np.flatnonzero(missing[proposition.feature])), proposition.name


MISSING = st.one_of(st.sampled_from(TOKENS).flatmap(lambda t: st.sampled_from(_spellings(t))),
                    st.sampled_from([None, NAN, np.nan, pd.NA, pd.NaT]))


@st.composite
def _column_with_missing(draw, size=st.integers(2, 12)):
    """(cells, values): numbers as text or numbers, with missing cells of every form; values
    are the numbers (None where missing)."""
    n = draw(size)
    values = draw(st.lists(st.one_of(st.none(), st.integers(-3, 3),
                                     st.floats(-10, 10, allow_nan=False).map(
                                         lambda v: round(v, 2))),
                           min_size=n, max_size=n))
    cells = [draw(MISSING) if v is None else draw(st.sampled_from([v, str(v), f" {v} "]))
             for v in values]
    return cells, values


@given(_column_with_missing(), st.sampled_from(["all", "quantile:3", "width:2"]))
def test_random_missing_cells_keep_a_column_numeric_and_satisfy_nothing(column, thresholds):
    """Property: numbers with random missing cells of every form read as numeric (when one
    number is present), without a warning; the missing rows satisfy no item or proposition,
    and the cut points are those of the present values alone."""
    cells, values = column
    present = np.array([v is not None for v in values])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        features = as_features({"a": np.array(cells, dtype=object)})
    if not present.any():
        assert features.column("a").tolist() == [None] * len(cells)
        return
    assert features.numeric == (True,)
    expected = np.array([NAN if v is None else float(v) for v in values])
    assert np.array_equal(features.column("a"), expected, equal_nan=True)
    cuts = numeric_thresholds(expected[present], thresholds)
    assert numeric_thresholds(features.column("a"), thresholds) == cuts
    for item in feature_items(features, thresholds)[0]:
        assert not item.evaluate(features.column("a"))[~present].any()
    propositions = make_propositions(features, thresholds)
    for j in range(len(propositions)):
        assert present[propositions.extent_indices(j)].all()


# --- the optimum with missing cells ----------------------------------------------------------

def _expected_items(numbers, categories):
    """Each item's rows, computed from the raw values alone: with ``thresholds="all"`` the cut
    in the k-th gap of the present values holds '<=' for present values up to v_k and '>' for
    those from v_(k+1); '==' holds where the category is present and equal. A missing value
    (None) is in no item. Returns {feature: [bool arrays]}."""
    distinct = sorted({v for v in numbers if v is not None})
    at_most = [np.array([v is not None and v <= low for v in numbers]) for low in distinct[:-1]]
    above = [np.array([v is not None and v > low for v in numbers]) for low in distinct[:-1]]
    equal = [np.array([c == value for c in categories])
             for value in sorted({c for c in categories if c is not None})]
    return {"a": at_most + above, "c": equal}


@st.composite
def _table(draw):
    n = draw(st.integers(3, 8))
    numbers = draw(st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=n, max_size=n))
    categories = draw(st.lists(st.sampled_from([None, "u", "v"]), min_size=n, max_size=n))
    labels = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    spell = [draw(MISSING) if v is None else v for v in numbers]
    cats = [draw(MISSING) if c is None else c for c in categories]
    return numbers, categories, labels, spell, cats


@given(_table())
def test_rule_list_optimum_with_missing_cells_matches_the_oracle(table):
    """Property: RuleListClassifier's objective on data with missing cells of every form is
    the brute-force optimum over antecedents built from the raw values by the policy (a
    missing cell in no item)."""
    numbers, categories, labels, spell, cats = table
    items = _expected_items(numbers, categories)
    antecedents = [bits for column in items.values() for bits in column]
    antecedents += [x & y for x, y in itertools.product(items["a"], items["c"])]
    lam = Fraction(1, 5)
    expected, _ = optimal_rule_list(RuleListInstance.from_bits(
        np.array(antecedents, dtype=bool).reshape(-1, len(labels)), labels, lam))
    X = {"a": np.array(spell, dtype=object), "c": np.array(cats, dtype=object)}
    y = [int(v) for v in labels]
    if len(set(y)) < 2:
        return
    model = RuleListClassifier(lam, min_support=0, thresholds="all").fit(X, y)
    assert model.objective_ == expected and model.status_ == "optimal"


@given(_table())
def test_boosting_rule_with_missing_cells_matches_the_oracle(table):
    """Property: the first optimal boosting rule's objective on data with missing cells is the
    brute-force maximum over propositions built from the raw values by the policy."""
    numbers, categories, labels, spell, cats = table
    items = _expected_items(numbers, categories)
    present = np.array([c is not None for c in categories])
    differ = [present & ~bits for bits in items["c"]]          # c != v: present and not v
    extents = items["a"] + items["c"] + differ
    y = np.array([1.0 if v else -1.0 for v in labels])
    g, h = -2 * y, np.full(len(y), 2.0)                         # squared loss at f = 0
    expected, _ = optimal_rule(RuleInstance.from_values(
        np.array(extents, dtype=bool).reshape(-1, len(y)), g, h, 1), max_length=2)
    X = {"a": np.array(spell, dtype=object), "c": np.array(cats, dtype=object)}
    ensemble = fit_rule_ensemble(X, y, loss="squared", n_rules=1, lam=1, thresholds="all",
                                 max_depth=2)
    assert ensemble.rules[0].objective == expected


def test_missing_tokens_in_a_csv_give_the_model_of_nan_in_memory(tmp_path):
    """The same data with tokens in a CSV and with NaN/None in a DataFrame: one model."""
    path = _csv(tmp_path, "a,c,y\n1,u,0\nNA,v,1\n3,?,0\n?,u,1\n5,,1\nnan,v,0\n7,N/A,1\n"
                          "8,u,0\n")
    X, y = read_csv(path, "y")
    frame = pd.DataFrame({"a": [1, np.nan, 3, np.nan, 5, np.nan, 7, 8],
                          "c": ["u", "v", None, "u", None, "v", pd.NA, "u"]})
    from_csv = RuleListClassifier(0.05, min_support=0, thresholds="all").fit(X, y)
    in_memory = RuleListClassifier(0.05, min_support=0, thresholds="all").fit(frame, y)
    assert from_csv.rules_ == in_memory.rules_ and from_csv.objective_ == in_memory.objective_
    assert not any("NA" in rule["antecedent"] or "?" in rule["antecedent"]
                   for rule in from_csv.rules_[:-1])


# --- mostly numeric columns with stray text --------------------------------------------------

def test_stray_text_in_a_numeric_csv_column_warns_with_column_count_value_and_line(tmp_path):
    """The issue's probe: NA, nan, ?, an empty cell and one 'abc' in a numeric column."""
    path = _csv(tmp_path, "a,y\n1,0\nNA,1\nnan,0\n?,1\n,0\n6,1\nabc,0\n8,1\n")
    with pytest.warns(MixedColumnWarning) as caught:
        features, _ = read_csv(path, "y")
    assert len(caught) == 1
    assert str(caught[0].message) == (
        f"feature 'a' is read as categorical: 1 of its 4 non-missing cells are not numbers "
        f"('abc'; the first at {path}, line 8). Write a missing value as an empty cell, NA or "
        "?, or fix those cells, to read the column as numeric.")
    assert features.numeric == (False,)                  # we cannot guess: categorical
    assert features.column("a").tolist() == ["1", None, None, None, None, "6", "abc", "8"]


def test_stray_text_in_memory_names_the_row_and_shows_the_first_values():
    column = ["1", "x", "2", "y", "3", "x", "z", "w", "4", "5", "6", "7", "NA"]
    with pytest.warns(MixedColumnWarning, match=re.escape(
            "feature 'v' is read as categorical: 5 of its 12 non-missing cells are not numbers "
            "('x', 'y', 'z', ...; the first at row 1).")):
        as_features({"v": column})


@pytest.mark.parametrize("column, warns", [
    (["1", "2", "a", "b"], True),           # exactly half numbers: mostly numeric
    (["1", "a", "b"], False),               # fewer than half: a text column
    (["a", "b", "1", "NA", "NA"], False),   # missing cells do not count
    (["1", "2", "inf"], True),              # an infinite number is not a number
])
def test_the_mostly_numeric_rule(column, warns):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        features = as_features({"v": column})
    assert features.numeric == (False,)
    assert [w.category for w in caught] == ([MixedColumnWarning] if warns else [])


def test_bool_category_and_forced_columns_never_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        as_features(pd.DataFrame({"b": [True, False, True], "k": pd.Categorical(["1", "2", "a"])}))
        assert as_features({"v": ["1", "2", "a"]}, numeric=[False]).numeric == (False,)


def test_mixed_column_warning_is_a_user_warning():
    assert issubclass(MixedColumnWarning, UserWarning)


# --- prediction with missing cells -----------------------------------------------------------

def test_rule_list_prediction_with_missing_cells_falls_through_without_warning():
    X = {"sex": ["M", "M", "F", "F", "M", "F"], "priors": [5, 0, 4, 0, 7, 1]}
    model = RuleListClassifier(lam=0.05, min_support=0).fit(X, [1, 0, 0, 0, 1, 0])
    assert str(model.rule_list_).splitlines() == ["if {priors:<=4.7} then 0", "else 1"]
    new = pd.DataFrame({"sex": ["NA", None, "?", "F", pd.NA],
                        "priors": [np.nan, "NA", 2, None, pd.NA]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        predicted = model.predict(new).tolist()
        proba = model.predict_proba(new)
    assert predicted == [1, 1, 0, 1, 1]           # priors missing: 'priors<=4.7' fails
    assert proba.shape == (5, 2)
    with pytest.warns(UserWarning, match=r"categories not seen in training.*'sex': \['X'\]"):
        model.predict({"sex": ["X"], "priors": [1]})      # a real unseen category still warns


def test_boosting_prediction_with_missing_cells_scores_zero_for_their_rules():
    X = {"x": [0.0, 1.0, 2.0, 3.0], "c": ["a", "a", "b", "b"]}
    model = OptimalRuleBoostingClassifier(n_rules=2, lam=1, thresholds="all").fit(
        X, ["no", "no", "yes", "yes"])
    assert all(c[0] == "x" for rule in model.rules_ for c in rule["conditions"]), model.rules_
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scores = model.decision_function({"x": ["?", NAN], "c": ["n/a", None]})
    assert scores.tolist() == [0.0, 0.0]


# --- class order -----------------------------------------------------------------------------

@pytest.mark.parametrize("values, expected", [
    ([10, 2, 10], (2, 10)), ([2.0, 10.0], (2.0, 10.0)), ([np.int64(10), 2], (2, 10)),
    (["yes", "no"], ("no", "yes")), (["b", "B", "a"], ("B", "a", "b")),
    ([True, False], (False, True)), (np.array([1, 0]), (0, 1)), ([-1, 1], (-1, 1))])
def test_sorted_classes(values, expected):
    classes = sorted_classes(values)
    assert classes == expected
    assert all(type(c) in (int, float, str, bool) for c in classes)


@pytest.mark.parametrize("values, message", [
    (["a", 1], "Mix of label input types (string and number) in y."),
    ([1, None, 2, NAN], "y has 2 missing value(s) (first at row 1)."),
    (["yes", "NA"], "y has 1 missing value(s) (first at row 1: the text 'NA' reads as "
                    "missing, as NA, None and ? do; give that class another name)."),
    (["mild", "none", "none"], "y has 2 missing value(s) (first at row 1: the text 'none' "
                               "reads as missing"),     # found by review: it did not say why
    ([(1,), (2,)], "Unknown label type: y holds ['tuple'] values")])
def test_sorted_classes_refuses(values, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        sorted_classes(values)


@pytest.mark.parametrize("y, positive", [
    ([2, 10, 2], 10), (["2", "10"], "2"), ([True, False], True), (["no", "yes"], "yes"),
    ([0, 1], 1), ([-1, 1], 1), ([10.0, 2.0], 10.0)])
def test_estimators_and_logistic_loss_share_the_order(y, positive):
    classes, labels = binary_classes(y, len(y), "E")
    loss = LogisticLoss()
    target = loss.prepare_target(y)
    assert classes[1] == positive and loss.classes == classes
    assert (target > 0).tolist() == labels.tolist()


def test_logistic_positive_overrides_the_order():
    loss = LogisticLoss(positive=2)
    assert loss.prepare_target([2, 10]).tolist() == [1.0, -1.0] and loss.classes == (10, 2)


TARGETS = {"2/10": ("2", "10", [2, 10]), "2.0/10.0": ("2.0", "10.0", [2.0, 10.0]),
           "yes/no": ("yes", "no", ["no", "yes"]), "0/1": ("0", "1", [0, 1]),
           "True/False": ("True", "False", [False, True])}


def _target_csv(tmp_path, first, second):
    """A table with a two-rule optimal list at λ = 1/10."""
    rows = [(1, "x", first), (2, "x", first), (3, "y", second), (4, "y", second),
            (5, "y", second), (6, "z", first), (7, "z", first), (8, "z", second),
            (9, "x", first), (10, "y", first)]
    return _csv(tmp_path, "a,b,label\n" + "".join(f"{a},{b},{t}\n" for a, b, t in rows))


@pytest.mark.parametrize("name", TARGETS)
def test_cli_rulelist_and_estimator_agree_on_classes_and_model(tmp_path, capsys, name):
    first, second, classes = TARGETS[name]
    path = _target_csv(tmp_path, first, second)
    saved = tmp_path / "model.json"
    assert main(["rulelist", "--csv", str(path), "--target", "label", "--lam", "0.1", "--json",
                 "--quiet", "--min-support", "0", "--save-model", str(saved)]) == 0
    output = json.loads(capsys.readouterr().out)
    frame = pd.read_csv(path)                 # the same CSV, read as a pandas user would
    model = RuleListClassifier(0.1, min_support=0).fit(frame[["a", "b"]], frame["label"])
    assert output["model"]["classes"] == model.classes_.tolist() == classes
    assert [type(c) for c in output["model"]["classes"]] == [type(c) for c in classes]
    assert output["model"]["rules"] == model.rule_list_.to_dict()["rules"]
    assert output["default"] == model.rule_list_.default
    assert output["objective"] == f"{model.objective_.numerator}/{model.objective_.denominator}"
    assert len(output["rules"]) >= 1
    assert load_model(saved).classes_.tolist() == classes


@pytest.mark.parametrize("name", TARGETS)
def test_cli_boost_and_estimator_agree_on_classes_and_model(tmp_path, capsys, name):
    first, second, classes = TARGETS[name]
    path = _target_csv(tmp_path, first, second)
    assert main(["boost", "--csv", str(path), "--target", "label", "--rules", "2", "--lam", "1",
                 "--thresholds", "all", "--json", "--quiet"]) == 0
    output = json.loads(capsys.readouterr().out)
    frame = pd.read_csv(path)
    model = OptimalRuleBoostingClassifier(2, lam=1, thresholds="all").fit(
        frame[["a", "b"]], frame["label"])
    assert output["classes"] == model.classes_.tolist() == classes
    expected = model.ensemble_.to_dict()
    assert [(r["conditions"], r["weight"], r["objective"]) for r in output["rules"]] == \
        [(r["conditions"], r["weight"], r["objective"]) for r in expected["rules"]]


@pytest.mark.parametrize("name", TARGETS)
def test_the_last_class_is_positive_in_the_cli_and_the_api(tmp_path, capsys, name):
    """The issue's probe (targets 2/10 from a CSV) and the other target kinds: a tie in the
    default rule predicts the positive class, the last one (10, 10.0, yes, 1, True)."""
    first, second, classes = TARGETS[name]
    path = _csv(tmp_path, f"a,y\n1,{first}\n1,{second}\n")
    assert main(["rulelist", "--csv", str(path), "--target", "y", "--lam", "0.1", "--json",
                 "--quiet"]) == 0
    output = json.loads(capsys.readouterr().out)
    assert output["rules"] == [] and output["default"] == classes[1]
    assert output["model"]["classes"] == classes
    model = RuleListClassifier(0.1).fit({"a": [1, 1]}, pd.read_csv(path)["y"])
    assert model.rules_[-1]["prediction"] == classes[1]
    assert model.classes_.tolist() == classes
