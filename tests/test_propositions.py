"""Tests of optrules.data.propositions: order, thresholds, missing values, input forms, errors."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from optrules.data import bitset
from optrules.data.propositions import (Features, Proposition, PropositionSet, as_features,
                                   make_propositions, parse_thresholds)

NAN = float("nan")


def thresholds_of(ps, feature, operator="<="):
    return [p.value for p in ps.propositions if p.feature == feature and p.operator == operator]


def bits(ps):
    return bitset.unpack(ps.extents, ps.n_samples)


# --- proposition order ---------------------------------------------------------------------

def test_docstring_example_names_and_order():
    ps = make_propositions({"x": [1.0, 2.0, 3.0], "c": ["a", "b", "a"]}, thresholds="all")
    assert ps.names == ("x<=1.5", "x<=2.5", "x>1.5", "x>2.5",
                        "c==a", "c==b", "c!=a", "c!=b")


def test_columns_keep_input_order_and_categories_sort_as_strings():
    data = {"c": ["b", "10", "a", "9"], "y": [4.0, 3.0, 2.0, 1.0], "d": ["q", "p", "q", "p"]}
    ps = make_propositions(data, thresholds="all")
    assert ps.names == (
        "c==10", "c==9", "c==a", "c==b", "c!=10", "c!=9", "c!=a", "c!=b",
        "y<=1.5", "y<=2.5", "y<=3.5", "y>1.5", "y>2.5", "y>3.5",
        "d==p", "d==q", "d!=p", "d!=q")
    assert [p.operator for p in ps.propositions][:8] == ["=="] * 4 + ["!="] * 4
    assert all(isinstance(p.value, str) for p in ps.propositions[:8])
    assert all(isinstance(p.value, float) for p in ps.propositions[8:14])


def test_numeric_thresholds_ascending_whatever_the_row_order():
    ps = make_propositions(np.array([[5.0], [1.0], [3.0], [2.0], [3.0]]), thresholds="all")
    assert ps.names == ("x0<=1.5", "x0<=2.5", "x0<=4", "x0>1.5", "x0>2.5", "x0>4")


def test_proposition_name_formats_whole_floats_without_decimal_point():
    assert Proposition("x", "<=", 2.0).name == "x<=2"
    assert Proposition("x", ">", -0.25).name == "x>-0.25"
    assert Proposition("c", "!=", "red").name == "c!=red"


# --- thresholds ----------------------------------------------------------------------------

def test_all_thresholds_are_midpoints_of_distinct_values():
    ps = make_propositions({"x": [3, 1, 2, 2, 5, 1]}, thresholds="all")
    assert thresholds_of(ps, "x") == [1.5, 2.5, 4.0]
    assert thresholds_of(ps, "x", ">") == [1.5, 2.5, 4.0]


def test_all_thresholds_split_adjacent_floats():
    # 0.1 + 0.2 and 0.3 are neighbouring doubles; their rounded midpoint is the larger one
    low, high = 0.3, 0.1 + 0.2
    assert low < high and np.nextafter(low, 1.0) == high
    for values in ([low, high], [low, high, 5.0], [1 + 2 ** -52, 1 + 2 ** -51, 2.0]):
        cuts = thresholds_of(make_propositions({"x": values}, thresholds="all"), "x")
        distinct = sorted(set(values))
        assert len(cuts) == len(distinct) - 1
        for a, b, t in zip(distinct, distinct[1:], cuts):
            assert a <= t < b


def test_all_thresholds_do_not_overflow_for_huge_values():
    with np.errstate(over="raise"):
        ps = make_propositions({"x": [1e308, 1.5e308, -1.7e308]}, thresholds="all")
    cuts = thresholds_of(ps, "x")
    assert len(cuts) == 2
    assert -1.7e308 <= cuts[0] < 1e308 <= cuts[1] < 1.5e308
    assert bits(ps).tolist()[:2] == [[False, False, True], [True, False, True]]


def test_all_thresholds_none_for_a_constant_column():
    assert make_propositions({"x": [2.0, 2.0, 2.0]}, thresholds="all").names == ()


@pytest.mark.parametrize("count, expected", [
    (1, [2.5]),                 # median of 0 1 2 3 4 10 (linear): 2.5
    (3, [1.25, 2.5, 3.75]),     # positions 5 * (1/4, 2/4, 3/4)
    (4, [1.0, 2.0, 3.0, 4.0]),  # positions 5 * j/5
])
def test_quantile_thresholds_are_numpys_linear_quantiles(count, expected):
    values = [10.0, 0.0, 4.0, 1.0, 3.0, 2.0]
    ps = make_propositions({"x": values}, thresholds=f"quantile:{count}")
    assert thresholds_of(ps, "x") == pytest.approx(expected, abs=1e-12)
    probabilities = [j / (count + 1) for j in range(1, count + 1)]
    assert thresholds_of(ps, "x") == pytest.approx(list(np.quantile(values, probabilities)))


def test_quantile_thresholds_use_repeated_values_not_distinct_ones():
    ps = make_propositions({"x": [0.0, 0.0, 0.0, 10.0]}, thresholds="quantile:1")
    assert thresholds_of(ps, "x") == [0.0]      # the median of the sample, not of {0, 10}


def test_quantile_thresholds_deduplicated_and_below_the_maximum():
    assert thresholds_of(make_propositions({"x": [1, 1, 1, 1, 2]}, "quantile:3"), "x") == [1.0]
    assert make_propositions({"x": [0, 5, 5, 5, 5]}, "quantile:3").names == ()
    ps = make_propositions({"x": [0, 0, 0, 0, 5]}, "quantile:3")
    assert ps.names == ("x<=0", "x>0")


def test_quantile_thresholds_ignore_missing_values():
    with_missing = make_propositions({"x": [NAN, 0.0, 1.0, NAN, 2.0, 3.0]}, "quantile:3")
    without = make_propositions({"x": [0.0, 1.0, 2.0, 3.0]}, "quantile:3")
    assert with_missing.names == without.names
    assert thresholds_of(without, "x") == pytest.approx([0.75, 1.5, 2.25])


@pytest.mark.parametrize("count, expected", [
    (1, []), (2, [5.0]), (4, [2.5, 5.0, 7.5]), (5, [2.0, 4.0, 6.0, 8.0])])
def test_width_thresholds_are_interior_bin_edges(count, expected):
    ps = make_propositions({"x": [0.0, 10.0, 1.0, 1.0, 1.0]}, thresholds=f"width:{count}")
    assert thresholds_of(ps, "x") == pytest.approx(expected, abs=1e-12)
    assert len(thresholds_of(ps, "x")) == count - 1


def test_width_thresholds_offset_range_and_constant_column():
    ps = make_propositions({"x": [-3.0, 3.0, 0.5]}, thresholds="width:3")
    assert thresholds_of(ps, "x") == pytest.approx([-1.0, 1.0])
    assert make_propositions({"x": [4.0, 4.0]}, thresholds="width:3").names == ()


def test_default_thresholds_are_quantile_10():
    values = np.arange(100.0).reshape(-1, 1)
    assert make_propositions(values).names == make_propositions(values, "quantile:10").names
    assert len(make_propositions(values)) == 20


@pytest.mark.parametrize("spec, parsed", [
    ("all", ("all", None)), ("quantile:1", ("quantile", 1)), ("quantile:12", ("quantile", 12)),
    ("width:3", ("width", 3))])
def test_parse_thresholds_accepts_valid_specs(spec, parsed):
    assert parse_thresholds(spec) == parsed


@pytest.mark.parametrize("spec", [
    "quantile:0", "width:0", "foo", "width:x", "quantile", "quantile:", "width:-2",
    "quantile:1.5", "all:3", "ALL", "", None, 5])
def test_invalid_threshold_specs_raise(spec):
    with pytest.raises(ValueError, match="thresholds must be 'all', 'quantile:K' or 'width:K'"):
        parse_thresholds(spec)
    with pytest.raises(ValueError, match=r"K >= 1; got"):
        make_propositions({"x": [1.0, 2.0]}, thresholds=spec)


# --- missing values ------------------------------------------------------------------------

def test_missing_numeric_values_satisfy_no_proposition():
    X = np.array([[1.0], [NAN], [3.0], [2.0]])
    ps = make_propositions(X, thresholds="all")
    assert len(ps) == 4
    b = bits(ps)
    assert not b[:, 1].any()
    assert (b[:, [0, 2, 3]].sum(axis=0) == 2).all()      # exactly one of <= t, > t per t


def test_missing_cells_in_object_columns_satisfy_no_proposition():
    data = {"n": np.array(["1", None, "", "3", NAN, "2"], dtype=object),
            "c": np.array(["a", None, "", "b", NAN, "a"], dtype=object)}
    ps = make_propositions(data, thresholds="all")
    assert ps.names == ("n<=1.5", "n<=2.5", "n>1.5", "n>2.5", "c==a", "c==b", "c!=a", "c!=b")
    b = bits(ps)
    assert not b[:, [1, 2, 4]].any()
    assert b[:, [0, 3, 5]].tolist() == [
        [True, False, False], [True, False, True], [False, True, True], [False, True, False],
        [True, False, True], [False, True, False], [False, True, False], [True, False, True]]


def test_nan_in_a_python_list_of_strings_is_missing_not_a_category():
    ps = make_propositions({"c": ["a", NAN, "b"]}, thresholds="all")
    assert ps.names == ("c==a", "c==b", "c!=a", "c!=b")
    assert not bits(ps)[:, 1].any()
    ps = make_propositions([[1.0, "a"], [2.0, NAN], [NAN, "b"]], thresholds="all")
    assert ps.names == ("x0<=1.5", "x0>1.5", "x1==a", "x1==b", "x1!=a", "x1!=b")
    assert not bits(ps)[:2, 2].any() and not bits(ps)[2:, 1].any()


def test_whitespace_only_cell_is_missing():
    ps = make_propositions({"c": np.array(["a", "  ", "b"], dtype=object)}, thresholds="all")
    assert ps.names == ("c==a", "c==b", "c!=a", "c!=b")
    assert not bits(ps)[:, 1].any()


def test_all_missing_columns_give_no_propositions():
    ps = make_propositions({"n": [NAN, NAN], "o": [None, ""], "x": [1.0, 2.0]}, "all")
    assert ps.names == ("x<=1.5", "x>1.5")


def test_evaluate_with_missing_values_in_new_data():
    ps = make_propositions({"x": [1.0, 2.0], "c": ["a", "b"]}, thresholds="all")
    new = {"x": [NAN, 1.0, None], "c": [None, "", "a"]}
    assert ps.evaluate(new).tolist() == [
        [False, True, False], [False, False, False],
        [False, False, True], [False, False, False], [False, False, False],
        [False, False, True]]


# --- input forms ---------------------------------------------------------------------------

def test_numpy_array_gets_names_x0_x1_and_feature_names_override():
    X = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    assert make_propositions(X, "all").names == (
        "x0<=1.5", "x0<=2.5", "x0>1.5", "x0>2.5", "x1<=0.5", "x1>0.5")
    named = make_propositions(X, "all", feature_names=["age", "sex"])
    assert named.names == ("age<=1.5", "age<=2.5", "age>1.5", "age>2.5", "sex<=0.5", "sex>0.5")
    assert np.array_equal(named.extents, make_propositions(X, "all").extents)


def test_array_dict_list_and_features_inputs_agree():
    X = np.array([[1.0, 7.0], [2.0, 5.0], [NAN, 6.0], [4.0, 5.0]])
    from_array = make_propositions(X, "all")
    from_dict = make_propositions({"x0": X[:, 0], "x1": list(X[:, 1])}, "all")
    from_list = make_propositions(X.tolist(), "all")
    from_features = make_propositions(as_features(X), "all")
    for other in (from_dict, from_list, from_features):
        assert other.names == from_array.names
        assert np.array_equal(other.extents, from_array.extents)


def test_integer_and_boolean_columns_are_numeric():
    features = as_features({"i": np.array([3, 1, 2]), "b": np.array([True, False, True])})
    assert features.numeric == (True, True)
    assert features.columns[0].dtype == float and features.columns[1].tolist() == [1.0, 0.0, 1.0]
    assert make_propositions(features, "all").names == (
        "i<=1.5", "i<=2.5", "i>1.5", "i>2.5", "b<=0.5", "b>0.5")


def test_numeric_strings_in_an_object_column_are_numeric():
    data = {"s": np.array(["1", " 2.5", "4 ", None], dtype=object)}
    features = as_features(data)
    assert features.numeric == (True,)
    assert np.array_equal(features.columns[0], [1.0, 2.5, 4.0, NAN], equal_nan=True)
    assert make_propositions(data, "all").names == ("s<=1.75", "s<=3.25", "s>1.75", "s>3.25")
    string_array = np.array([["1", "a"], ["3", "b"]])
    assert as_features(string_array).numeric == (True, False)
    assert make_propositions(string_array, "all").names == (
        "x0<=2", "x0>2", "x1==a", "x1==b", "x1!=a", "x1!=b")


def test_a_single_non_numeric_string_makes_the_column_categorical():
    features = as_features({"c": ["1", "2", "x"], "d": ["1", "inf", "2"]})
    assert features.numeric == (False, False)
    assert features.columns[0].dtype == object
    assert features.columns[0].tolist() == ["1", "2", "x"]


def test_mixed_columns_canonical_form():
    features = as_features({"n": [1.5, 2.5], "c": ["u", None]})
    assert isinstance(features, Features)
    assert features.names == ("n", "c") and features.numeric == (True, False)
    assert features.n_samples == 2
    assert features.column("c").tolist() == ["u", None]
    assert as_features(features) is features


def test_non_string_column_names_become_strings():
    ps = make_propositions({1: [0.0, 1.0], "k": ["a", "b"]}, "all")
    assert ps.names == ("1<=0.5", "1>0.5", "k==a", "k==b", "k!=a", "k!=b")


def test_pandas_dataframe_matches_dict_of_columns():
    pd = pytest.importorskip("pandas")
    data = {"num": [1.0, NAN, 3.0, 2.0], "cat": ["a", None, "b", "a"],
            "int": [1, 2, 3, 4], "txt": ["1", "2", "", "4"]}
    frame = pd.DataFrame(data)
    from_frame = make_propositions(frame, "all")
    from_dict = make_propositions(data, "all")
    assert from_frame.names == from_dict.names
    assert np.array_equal(from_frame.extents, from_dict.extents)
    assert as_features(frame).numeric == (True, False, True, True)
    assert np.array_equal(from_frame.evaluate(frame.iloc[[3, 0]]), bits(from_frame)[:, [3, 0]])


def test_pandas_missing_markers_are_missing():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({
        "s": pd.array(["a", None, "b"], dtype="string"),
        "i": pd.array([1, None, 3], dtype="Int64"),
        "k": pd.Categorical(["u", None, "v"]),
        "o": pd.Series(["p", pd.NA, "q"], dtype=object)})
    ps = make_propositions(frame, "all")
    assert ps.names == ("s==a", "s==b", "s!=a", "s!=b", "i<=2", "i>2",
                        "k==u", "k==v", "k!=u", "k!=v", "o==p", "o==q", "o!=p", "o!=q")
    assert not bits(ps)[:, 1].any()


# --- extents and evaluation ----------------------------------------------------------------

def mixed_data(n=70, seed=0):
    rng = np.random.default_rng(seed)
    numeric = rng.integers(0, 6, n).astype(float)
    numeric[rng.random(n) < 0.15] = NAN
    category = rng.choice(np.array(["red", "green", "blue", "7", None], dtype=object), n)
    return {"num": numeric, "cat": category, "u": rng.normal(size=n)}


def test_extents_are_packed_evaluated_bits():
    data = mixed_data()
    ps = make_propositions(data, "quantile:4")
    assert isinstance(ps, PropositionSet)
    assert ps.n_samples == 70
    assert ps.extents.dtype == np.uint64 and ps.extents.shape == (len(ps), bitset.n_words(70))
    evaluated = ps.evaluate(data)
    assert evaluated.dtype == bool and evaluated.shape == (len(ps), 70)
    assert np.array_equal(bits(ps), evaluated)
    assert np.array_equal(ps.extents, bitset.pack(evaluated))
    for j, proposition in enumerate(ps.propositions):
        column = as_features(data).column(proposition.feature)
        assert np.array_equal(evaluated[j], proposition.evaluate(column))
    # padding bits past n_samples stay zero
    assert (ps.extents[:, -1] >> np.uint64(70 - 64) == 0).all()


def test_extent_indices_are_sorted_sample_indices():
    ps = make_propositions(mixed_data(), "all")
    b = bits(ps)
    for j in range(len(ps)):
        indices = ps.extent_indices(j)
        assert indices.tolist() == sorted(indices.tolist())
        assert np.array_equal(indices, np.flatnonzero(b[j]))
        assert len(indices) == bitset.popcount(ps.extents[j])


def test_evaluate_on_row_subsets_matches_training_bits():
    data = mixed_data()
    ps = make_propositions(data, "quantile:3")
    training = bits(ps)
    rows = [5, 0, 69, 33, 33]
    subset = {name: np.asarray(column)[rows] for name, column in data.items()}
    assert np.array_equal(ps.evaluate(subset), training[:, rows])
    assert ps.evaluate({name: column[:0] for name, column in subset.items()}).shape == (len(ps), 0)


def test_categorical_propositions_on_new_rows_that_look_numeric():
    # the training column is categorical; new rows holding only "7" / missing parse as numeric
    ps = make_propositions({"c": ["7", "a", "7", None, "8"]}, "all")
    assert ps.names == ("c==7", "c==8", "c==a", "c!=7", "c!=8", "c!=a")
    new = {"c": ["7", None, "8"]}
    assert np.array_equal(ps.evaluate(new), bits(ps)[:, [0, 3, 4]])
    assert np.array_equal(ps.evaluate({"c": np.array([7, 8])}), bits(ps)[:, [2, 4]])


def test_evaluate_does_not_depend_on_extra_columns_or_column_order():
    data = mixed_data(n=20)
    ps = make_propositions(data, "all")
    reordered = {"u": data["u"], "extra": np.zeros(20), "cat": data["cat"], "num": data["num"]}
    assert np.array_equal(ps.evaluate(reordered), bits(ps))


# --- errors --------------------------------------------------------------------------------

def test_ragged_columns_raise():
    with pytest.raises(ValueError, match=r"different lengths: \[2, 3\]"):
        as_features({"a": [1, 2, 3], "b": [1, 2]})


def test_wrong_number_of_feature_names_raises():
    with pytest.raises(ValueError, match="3 feature names given for 2 columns"):
        make_propositions(np.zeros((4, 2)), feature_names=["a", "b", "c"])
    with pytest.raises(ValueError, match="1 feature names given for 2 columns"):
        as_features({"a": [1], "b": [2]}, feature_names=["a"])


def test_duplicate_feature_names_raise():
    with pytest.raises(ValueError, match="duplicate feature name 'a'"):
        as_features(np.zeros((3, 3)), feature_names=["a", "b", "a"])
    with pytest.raises(ValueError, match="duplicate feature name '1'"):
        as_features({1: [0.0], "1": [1.0]})


@pytest.mark.parametrize("data, shape", [
    (np.arange(4.0), r"\(4,\)"), (np.zeros((2, 2, 2)), r"\(2, 2, 2\)"), ([1.0, 2.0], r"\(2,\)")])
def test_arrays_that_are_not_2d_raise(data, shape):
    with pytest.raises(ValueError, match=f"must be 2-D .*got shape {shape}"):
        make_propositions(data)


@pytest.mark.parametrize("data", ["x0", 3.0, {1, 2}, None, iter([[1.0]])])
def test_unsupported_containers_raise_type_error(data):
    with pytest.raises(TypeError, match=r"numpy array, a pandas DataFrame or a dict of columns; "
                                        rf"got {type(data).__name__}\."):
        make_propositions(data)


def test_no_columns_raise():
    with pytest.raises(ValueError, match="no columns"):
        as_features({})
    with pytest.raises(ValueError, match="no columns"):
        as_features(np.zeros((3, 0)))


@pytest.mark.parametrize("bad", [math.inf, -math.inf])
def test_infinite_numeric_values_raise(bad):
    with pytest.raises(ValueError, match="feature 'x1' contains an infinite value"):
        make_propositions(np.array([[1.0, 2.0], [3.0, bad]]))
    with pytest.raises(ValueError, match="feature 'v' contains an infinite value"):
        as_features({"v": [0.0, bad, NAN]})


def test_unknown_feature_name_in_column_raises():
    features = as_features({"a": [1.0], "b": ["x"]})
    with pytest.raises(ValueError, match=r"feature 'z' is not a column of the data; "
                                         r"columns are \['a', 'b'\]\."):
        features.column("z")
    ps = make_propositions({"a": [1.0, 2.0]}, "all")
    with pytest.raises(ValueError, match="feature 'a' is not a column"):
        ps.evaluate({"b": [1.0]})


# --- properties ----------------------------------------------------------------------------

cells = st.one_of(st.integers(-3, 3).map(float),
                  st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
                  st.just(NAN))
specs = st.one_of(st.just("all"), st.integers(1, 6).map("quantile:{}".format),
                  st.integers(1, 6).map("width:{}".format))


@st.composite
def matrices(draw):
    n = draw(st.integers(1, 12))
    d = draw(st.integers(1, 3))
    rows = draw(st.lists(st.lists(cells, min_size=d, max_size=d), min_size=n, max_size=n))
    return np.array(rows, dtype=float)


@given(matrices(), specs, st.randoms(use_true_random=False))
def test_extents_match_direct_numpy_evaluation(X, spec, random):
    ps = make_propositions(X, thresholds=spec)
    b = bits(ps)
    for j, p in enumerate(ps.propositions):
        column = X[:, int(p.feature[1:])]
        expected = column <= p.value if p.operator == "<=" else column > p.value
        assert p.operator in ("<=", ">")
        assert np.array_equal(b[j], expected & ~np.isnan(column))
        present = column[~np.isnan(column)]
        assert present.min() <= p.value < present.max()
    # order: columns in input order; per column all <= ascending then all > ascending
    position = 0
    for k in range(X.shape[1]):
        block = [p for p in ps.propositions if p.feature == f"x{k}"]
        assert list(ps.propositions[position:position + len(block)]) == block
        position += len(block)
        cuts = [p.value for p in block[:len(block) // 2]]
        assert [p.operator for p in block] == ["<="] * len(cuts) + [">"] * len(cuts)
        assert [p.value for p in block[len(cuts):]] == cuts
        assert cuts == sorted(set(cuts))
        if spec == "all":
            distinct = np.unique(X[:, k][~np.isnan(X[:, k])])
            assert len(cuts) == max(len(distinct) - 1, 0)
            assert all(a <= t < b for a, b, t in zip(distinct, distinct[1:], cuts))
        elif spec.startswith("width"):
            assert len(cuts) <= int(spec.split(":")[1]) - 1
        else:
            assert len(cuts) <= int(spec.split(":")[1])
    # row order changes neither the propositions nor (up to the permutation) their extents
    order = list(range(len(X)))
    random.shuffle(order)
    shuffled = make_propositions(X[order], thresholds=spec)
    assert shuffled.names == ps.names
    assert set(shuffled.names) == set(ps.names)
    assert np.array_equal(bits(shuffled), b[:, order])
    assert np.array_equal(ps.evaluate(X[order]), b[:, order])
