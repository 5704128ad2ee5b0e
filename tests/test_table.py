"""Tabular input (optrules.data.table) and antecedent mining (optrules.data.mining): errors and
behaviour."""

import math
import re
from fractions import Fraction

import numpy as np
import pytest

from optrules.data.mining import antecedent_name, feature_items, mine_antecedents
from optrules.data.propositions import Proposition
from optrules.data.table import (Features, MixedColumnWarning, as_features, read_csv,
                                  read_csv_columns)

NAN = float("nan")


def _csv(tmp_path, text, name="t.csv", encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def _in(path, line=None):
    """Regex for the message prefix naming the file (and the line)."""
    return "^" + re.escape(str(path) if line is None else f"{path}, line {line}")


# --- read_csv errors ----------------------------------------------------------------------

def test_missing_target_column_lists_the_columns(tmp_path):
    """A missing target column is reported with the sorted column names."""
    path = _csv(tmp_path, "b,a,y\nx,1,0\nz,2,1\n")
    with pytest.raises(ValueError, match=_in(path) + re.escape(
            ": target column 'label' not found; columns are ['a', 'b', 'y'].")):
        read_csv(path, "label")


@pytest.mark.parametrize("text, line, fields, header", [
    ("a,b,y\nx,1,0\nz,1\nq,2,1\n", 3, 2, 3),          # too few fields
    ("a,b,y\nx,1,0\nz,1,1\nq,2,1,7\n", 4, 4, 3),      # too many fields
    ('a,b,y\n"p\nq",1,0\nx,1\n', 4, 2, 3),            # a quoted cell spans lines 2-3
    ("a,b,y\nx,1,0\n\nz,1\n", 4, 2, 3),               # blank lines are skipped, not counted
])
def test_wrong_field_count_names_the_file_line(tmp_path, text, line, fields, header):
    """A ragged row is reported with the file and the line where it ends."""
    path = _csv(tmp_path, text)
    with pytest.raises(ValueError, match=_in(path, line) + re.escape(
            f": {fields} fields but the header has {header}.")):
        read_csv(path, "y")


def test_missing_target_values(tmp_path):
    """Empty, blank or missing-token target cells are counted and the first one located (file,
    line and data row)."""
    path = _csv(tmp_path, "a,y\nx,1\nz,\nx,0\nz,  \nx,NA\n")
    with pytest.raises(ValueError, match=_in(path, 3) + re.escape(
            ": target column 'y' is missing in 3 row(s) (first: data row 2).")):
        read_csv(path, "y")


def test_duplicate_header_names(tmp_path):
    """Header names equal after stripping are duplicates."""
    path = _csv(tmp_path, "a,b, a,y\nx,1,2,0\nz,1,2,1\n")
    with pytest.raises(ValueError, match=_in(path) + re.escape(
            ": duplicate column name 'a' in the header.")):
        read_csv(path, "y")


def test_empty_file(tmp_path):
    """An empty file is an error naming the file."""
    path = _csv(tmp_path, "")
    with pytest.raises(ValueError, match=_in(path) + re.escape(
            ": file is empty; expected a header row.")):
        read_csv(path, "y")


def test_header_without_rows(tmp_path):
    """A header without data rows is an error naming the file."""
    path = _csv(tmp_path, "a,y\n")
    with pytest.raises(ValueError, match=_in(path) + ": the file has a header but no data rows."):
        read_csv(path, "y")


def test_missing_file(tmp_path):
    """An unreadable path is a ValueError naming the file, not an OSError."""
    path = tmp_path / "absent.csv"
    with pytest.raises(ValueError, match=_in(path) + re.escape(
            ": cannot read CSV file (No such file or directory).")):
        read_csv(path, "y")


def test_file_that_is_not_utf8(tmp_path):
    """A file that is not UTF-8 is a ValueError naming the file."""
    path = _csv(tmp_path, "a,y\nSão,0\n", encoding="latin-1")
    with pytest.raises(ValueError, match=_in(path) + ": not a readable UTF-8 CSV file"):
        read_csv(path, "y")


def test_target_as_the_only_column(tmp_path):
    """A file holding only the target has no features."""
    path = _csv(tmp_path, "y\n0\n1\n")
    with pytest.raises(ValueError, match=_in(path) + re.escape(
            ": no feature columns besides the target 'y'.")):
        read_csv(path, "y")


# --- read_csv results ---------------------------------------------------------------------

def test_byte_order_mark_is_not_part_of_the_first_name(tmp_path):
    """A UTF-8 byte-order mark does not stick to the first column name."""
    path = _csv(tmp_path, "\ufeffa,y\n1,0\n2,1\n")
    features, target = read_csv(path, "a")
    assert features.names == ("y",)
    assert target.tolist() == [1, 2]


def test_integer_literal_targets_become_integers(tmp_path):
    """A target of integer literals becomes Python ints (so classes sort as numbers)."""
    _, target = read_csv(_csv(tmp_path, "a,y\nx,1\nz,-1\nx,+1\n"), "y")
    assert target.tolist() == [1, -1, 1]
    assert all(type(cell) is int for cell in target)


@pytest.mark.parametrize("cells, values", [
    (["1.0", "0.0"], [1.0, 0.0]), (["2", "10.5"], [2.0, 10.5]),        # all numbers: floats
    (["True", "false"], [True, False]), (["TRUE", "False"], [True, False]),   # booleans
    (["no", "yes"], ["no", "yes"]), (["1", "x"], ["1", "x"]), (["True", "1"], ["True", "1"])])
def test_other_targets_are_typed_like_in_memory_targets(tmp_path, cells, values):
    """Numbers become floats, true/false (any case) booleans, anything else stays text, so a
    CSV target's classes sort as the same target in memory would."""
    _, target = read_csv(_csv(tmp_path, f"a,y\nx,{cells[0]}\nz,{cells[1]}\n"), "y")
    assert target.tolist() == values
    assert [type(v) for v in target] == [type(v) for v in values]


def test_without_target_every_column_is_a_feature(tmp_path):
    """Without a target every column is a feature and no target is returned."""
    features, target = read_csv(_csv(tmp_path, "a,y\nx,1\nz,0\n"))
    assert target is None
    assert features.names == ("a", "y") and features.numeric == (False, True)


def test_csv_cells_are_stripped_and_typed_like_in_memory_data(tmp_path):
    """CSV cells are stripped, empty ones missing, kinds inferred as for in-memory data."""
    path = _csv(tmp_path, "n,c,t,y\n 1.5 , a ,nan,0\n,b,1,1\n-2,,2,0\n")
    assert read_csv_columns(path) == {"n": ("1.5", "", "-2"), "c": ("a", "b", ""),
                                      "t": ("nan", "1", "2"), "y": ("0", "1", "0")}
    features, _ = read_csv(path, "y")
    assert features.numeric == (True, False, True)   # "nan" text is missing, not a category
    assert np.array_equal(features.column("n"), [1.5, NAN, -2.0], equal_nan=True)
    assert features.column("c").tolist() == ["a", "b", None]
    assert np.array_equal(features.column("t"), [NAN, 1.0, 2.0], equal_nan=True)
    reference = as_features({"n": [1.5, NAN, -2.0], "c": ["a", "b", None],
                             "t": ["nan", "1", "2"]})
    assert reference.numeric == features.numeric


def test_names_and_values_with_spaces_commas_and_colons_in_a_csv(tmp_path):
    """Quoted names and values with spaces, commas and colons survive reading and mining."""
    path = _csv(tmp_path, 'mean radius,"sex, at: birth",y\n'
                          '17.99,"M F, x: y",0\n20.57,F,1\n13,"M F, x: y",1\n')
    features, target = read_csv(path, "y")
    assert features.names == ("mean radius", "sex, at: birth")
    assert features.column("sex, at: birth").tolist() == ["M F, x: y", "F", "M F, x: y"]
    dataset = mine_antecedents(features, target == 1, max_cardinality=1, min_support=0,
                               thresholds="all")
    assert dataset.antecedent_names == (
        "mean radius:<=15", "mean radius:>15", "mean radius:<=20", "mean radius:>20",
        '"sex, at: birth":"M F, x: y"', '"sex, at: birth":F')
    assert dataset.antecedent_bits()[4].tolist() == [True, False, True]
    assert dataset.antecedent_conditions[4] == (Proposition("sex, at: birth", "==",
                                                            "M F, x: y"),)


# --- as_features: forms and kinds ---------------------------------------------------------

def test_mixed_columns_canonical_form():
    """Features holds float and object columns with their kinds; Features pass through."""
    features = as_features({"n": [1.5, 2.5], "c": ["u", None]})
    assert isinstance(features, Features)
    assert features.names == ("n", "c") and features.numeric == (True, False)
    assert features.n_samples == 2 and features.n_features == 2
    assert features.column("c").tolist() == ["u", None]
    assert as_features(features) is features


def test_take_selects_rows_of_every_column():
    """take restricts every column to the same rows and keeps names and kinds."""
    features = as_features({"n": [1.5, 2.5, 3.5], "c": ["u", None, "v"]})
    taken = features.take([2, 0])
    assert taken.names == features.names and taken.numeric == features.numeric
    assert taken.column("n").tolist() == [3.5, 1.5]
    assert taken.column("c").tolist() == ["v", "u"]


def test_a_single_non_numeric_string_makes_the_column_categorical():
    """One non-number (or 'inf') makes a text column categorical, with a warning (the column
    is mostly numbers; tests/test_missing_values.py checks the message)."""
    with pytest.warns(MixedColumnWarning) as caught:
        features = as_features({"c": ["1", "2", "x"], "d": ["1", "inf", "2"]})
    assert [str(w.message)[:11] for w in caught] == ["feature 'c'", "feature 'd'"]
    assert features.numeric == (False, False)
    assert features.columns[0].dtype == object
    assert features.columns[0].tolist() == ["1", "2", "x"]


def test_names_and_values_with_spaces_commas_and_colons():
    """Any text is a valid feature name or category."""
    features = as_features({"mean radius": [1.0, 2.0], "sex, at: birth": ["M F", "a,b: c"]})
    assert features.names == ("mean radius", "sex, at: birth")
    assert features.column("sex, at: birth").tolist() == ["M F", "a,b: c"]
    renamed = as_features(np.zeros((1, 2)), feature_names=["a b", "c,d:e"])
    assert renamed.names == ("a b", "c,d:e")


def test_boolean_columns_are_categorical_text():
    """numpy and Python booleans become the categories 'True' and 'False'."""
    features = as_features({"b": np.array([True, False]), "o": [True, None]})
    assert features.numeric == (False, False)
    assert features.column("b").tolist() == ["True", "False"]
    assert features.column("o").tolist() == ["True", None]


def test_pandas_category_columns_are_categorical_even_when_numeric_looking():
    """pandas category and bool columns are categorical whatever their values look like."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"k": pd.Categorical([3, 1, 3]),
                          "s": pd.Categorical(["1.5", None, "2"]),
                          "b": [True, False, True], "n": [3, 1, 3]})
    features = as_features(frame)
    assert features.numeric == (False, False, False, True)
    assert features.column("k").tolist() == ["3", "1", "3"]
    assert features.column("s").tolist() == ["1.5", None, "2"]
    assert features.column("b").tolist() == ["True", "False", "True"]


def test_renamed_features_keep_their_kinds():
    """Renaming Features keeps each column's kind instead of re-inferring it."""
    pd = pytest.importorskip("pandas")
    features = as_features(pd.DataFrame({"k": pd.Categorical(["1", "2"])}))
    renamed = as_features(features, feature_names=["m"])
    assert renamed.names == ("m",) and renamed.numeric == (False,)
    assert renamed.column("m").tolist() == ["1", "2"]


# --- as_features: forcing kinds with numeric= ----------------------------------------------

def test_numeric_false_reads_numbers_as_category_text():
    """numeric=False reads numbers and numeric text as stripped category text."""
    features = as_features({"i": np.array([1, 2]), "s": ["1", " 2 "]}, numeric=[False, False])
    assert features.numeric == (False, False)
    assert features.column("i").tolist() == ["1", "2"]
    assert features.column("s").tolist() == ["1", "2"]


def test_numeric_true_reads_text_and_missing_cells_as_numbers():
    """numeric=True parses text and accepts all-missing columns."""
    features = as_features({"s": ["1", None, " 2.5"], "e": ["", None, " "]},
                           numeric=[True, True])
    assert features.numeric == (True, True)
    assert np.array_equal(features.column("s"), [1.0, NAN, 2.5], equal_nan=True)
    assert np.isnan(features.column("e")).all()


@pytest.mark.parametrize("column, bad", [(["1", "a b"], "a b"), (["inf", "1"], "inf"),
                                         (np.array([True, False]), "True")])
def test_numeric_true_with_a_non_number_names_the_feature_and_value(column, bad):
    """A forced numeric column with a non-number names the feature and the value."""
    with pytest.raises(ValueError, match=re.escape(
            f"feature 'x, y' is numeric in the model, but the data has the value {bad!r} (row")):
        as_features({"x, y": column}, numeric=[True])


def test_wrong_number_of_column_kinds_raises():
    """numeric= must give one kind per column."""
    with pytest.raises(ValueError, match=re.escape("2 column kinds given for 1 columns.")):
        as_features({"x": [1, 2]}, numeric=[True, False])


# --- as_features: errors ------------------------------------------------------------------

@pytest.mark.parametrize("column", [np.array([1 + 2j, 3]), [1 + 2j, 3.0],
                                    np.array(["a", 1j], dtype=object)])
def test_complex_data_is_not_supported(column):
    """Complex numbers are rejected in arrays, lists and object columns."""
    with pytest.raises(ValueError, match=re.escape(
            "Complex data not supported: feature 'z' holds complex numbers.")):
        as_features({"z": column})


@pytest.mark.parametrize("cell, kind", [({"a": 1}, "dict"), ([1, 2], "list")])
def test_cells_that_are_neither_text_nor_numbers_raise_type_error(cell, kind):
    """A dict or list cell is a TypeError naming the feature and the cell."""
    column = np.empty(2, dtype=object)
    column[:] = [cell, "x"]
    with pytest.raises(TypeError, match=re.escape(
            f"feature 'd' has a cell of type {kind} ({cell!r}); every cell must be a string or "
            "a number.")):
        as_features({"d": column})


def test_sparse_input_raises_type_error():
    """Sparse matrices are rejected with a hint to densify them."""
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(TypeError, match="sparse input is not supported.*X.toarray()"):
        as_features(sparse.csr_matrix(np.eye(2)))


def test_ragged_columns_raise():
    """Dict columns of different lengths are rejected up front."""
    with pytest.raises(ValueError, match=r"different lengths: \[2, 3\]"):
        as_features({"a": [1, 2, 3], "b": [1, 2]})


def test_wrong_number_of_feature_names_raises():
    """feature_names must name every column."""
    with pytest.raises(ValueError, match="3 feature names given for 2 columns"):
        as_features(np.zeros((4, 2)), feature_names=["a", "b", "c"])
    with pytest.raises(ValueError, match="1 feature names given for 2 columns"):
        as_features({"a": [1], "b": [2]}, feature_names=["a"])


def test_duplicate_feature_names_raise():
    """Feature names must be distinct after conversion to text."""
    with pytest.raises(ValueError, match="duplicate feature name 'a'"):
        as_features(np.zeros((3, 3)), feature_names=["a", "b", "a"])
    with pytest.raises(ValueError, match="duplicate feature name '1'"):
        as_features({1: [0.0], "1": [1.0]})


@pytest.mark.parametrize("data, shape", [
    (np.arange(4.0), r"\(4,\)"), (np.zeros((2, 2, 2)), r"\(2, 2, 2\)"), ([1.0, 2.0], r"\(2,\)")])
def test_arrays_that_are_not_2d_raise(data, shape):
    """Only 2-D arrays are feature data."""
    with pytest.raises(ValueError, match=f"must be 2-D .*got an array of shape {shape}"):
        as_features(data)


@pytest.mark.parametrize("data", ["x0", 3.0, {1, 2}, None, iter([[1.0]])])
def test_unsupported_containers_raise_type_error(data):
    """Other containers are a TypeError naming their type."""
    with pytest.raises(TypeError, match=r"numpy array, a pandas DataFrame or a dict of columns; "
                                        rf"got {type(data).__name__}\."):
        as_features(data)


def test_no_columns_raise():
    """Feature data needs at least one column."""
    with pytest.raises(ValueError, match="no columns"):
        as_features({})
    with pytest.raises(ValueError, match="no columns"):
        as_features(np.zeros((3, 0)))


@pytest.mark.parametrize("bad", [math.inf, -math.inf])
def test_infinite_numeric_values_raise(bad):
    """Infinite values are rejected, naming the feature."""
    with pytest.raises(ValueError, match="feature 'x1' contains an infinite value"):
        as_features(np.array([[1.0, 2.0], [3.0, bad]]))
    with pytest.raises(ValueError, match="feature 'v' contains an infinite value"):
        as_features({"v": [0.0, bad, NAN]})


def test_unknown_feature_name_in_column_raises():
    """Asking for an unknown column lists the known ones."""
    features = as_features({"a": [1.0], "b": ["x"]})
    with pytest.raises(ValueError, match=r"feature 'z' is not a column of the data; "
                                         r"columns are \['a', 'b'\]\."):
        features.column("z")


# --- items --------------------------------------------------------------------------------

def _names(items):
    return [[antecedent_name((item,)) for item in column] for column in items]


def test_numeric_column_gives_quartile_thresholds_by_default():
    """Numeric items default to the (shortened) quartiles, <= before > per cut."""
    # quartiles of 1 1 3 3 6 are 1, 3, 3: training values, so the thresholds are 1 and 3
    features = as_features({"x": ["1", "3", "3", "6", "1"]})
    assert features.numeric == (True,)
    assert _names(feature_items(features)) == [["x:<=1", "x:>1", "x:<=3", "x:>3"]]


@pytest.mark.parametrize("thresholds, cuts", [
    ("all", ["1.5", "2.5", "3.5", "4.5", "5.5", "6.5", "7.5"]),
    ("quantile:3", ["2.7", "4.5", "6.2"]),   # 2.75, 4.5, 6.25; ties to the smaller decimal
    ("width:4", ["2.7", "4.5", "6.2"]),
    ("quantile:1", ["4.5"])])
def test_threshold_spec_chooses_the_cuts(thresholds, cuts):
    """The thresholds spec of mining picks the cuts as numeric_thresholds does."""
    features = as_features({"x": list(range(1, 9))})
    expected = [name for t in cuts for name in (f"x:<={t}", f"x:>{t}")]
    assert _names(feature_items(features, thresholds)) == [expected]


def test_categorical_items_in_order_of_first_appearance():
    """Categorical items follow the first appearance of each value."""
    features = as_features({"c": ["v", "u", "v", "w"]})
    assert features.numeric == (False,)
    assert _names(feature_items(features)) == [["c:v", "c:u", "c:w"]]


def test_missing_cells_satisfy_no_item_of_their_column():
    """Missing cells satisfy no item of their column, in conjunctions too."""
    features = as_features({"x": ["1", "", "3", None, math.nan, "5"],
                            "c": ["u", "", "v", None, "u", "v"]})
    assert features.numeric == (True, False)
    dataset = mine_antecedents(features, [0, 1, 0, 1, 0, 1], max_cardinality=1, min_support=0)
    # quartiles of 1 3 5 are 2, 3, 4; 3 and 4 fall in the same gap [3, 5), so 4 is dropped
    assert dataset.antecedent_names == ("x:<=2", "x:>2", "x:<=3", "x:>3", "c:u", "c:v")
    covered = dataset.antecedent_bits()
    assert not covered[:4, [1, 3, 4]].any()  # x is missing in rows 1, 3, 4
    assert not covered[4:, [1, 3]].any()  # c is missing in rows 1, 3
    assert covered.T.astype(int).tolist() == [[1, 0, 1, 0, 1, 0],
                                              [0, 0, 0, 0, 0, 0],
                                              [0, 1, 1, 0, 0, 1],
                                              [0, 0, 0, 0, 0, 0],
                                              [0, 0, 0, 0, 1, 0],
                                              [0, 1, 0, 1, 0, 1]]


# --- mining -------------------------------------------------------------------------------

ORDER_DATA = {"a": ["x", "y", "x", "y"], "b": [1, 2, 1, 2], "c": ["v", "u", "u", "v"]}
ORDER_LABELS = [1, 0, 1, 0]


def test_mining_order():
    """Antecedents: by cardinality, then feature positions, then item order."""
    dataset = mine_antecedents(ORDER_DATA, ORDER_LABELS, max_cardinality=2,
                               min_support=Fraction(0), thresholds="all")
    assert dataset.antecedent_names == (
        "a:x", "a:y", "b:<=1.5", "b:>1.5", "c:v", "c:u",
        "a:x,b:<=1.5", "a:x,b:>1.5", "a:y,b:<=1.5", "a:y,b:>1.5",
        "a:x,c:v", "a:x,c:u", "a:y,c:v", "a:y,c:u",
        "b:<=1.5,c:v", "b:<=1.5,c:u", "b:>1.5,c:v", "b:>1.5,c:u")
    bits = dataset.antecedent_bits()
    assert bits[dataset.antecedent_names.index("a:y,c:u")].tolist() == [False, True, False, False]
    assert not bits[dataset.antecedent_names.index("a:x,b:>1.5")].any()  # support 0 = s*N kept
    assert dataset.labels.tolist() == [1, 0, 1, 0]


def test_classes_and_target_are_passed_through():
    """classes and target default to (0, 1) and 'label' and are kept when given."""
    default = mine_antecedents(ORDER_DATA, ORDER_LABELS, max_cardinality=1)
    assert default.classes == (0, 1) and default.target == "label"
    named = mine_antecedents(ORDER_DATA, ORDER_LABELS, max_cardinality=1,
                             classes=("good", "bad"), target="risk")
    assert named.classes == ("good", "bad") and named.target == "risk"


def test_max_cardinality_one_gives_single_items():
    """max_cardinality=1 mines the items alone."""
    dataset = mine_antecedents(ORDER_DATA, ORDER_LABELS, max_cardinality=1, min_support=0,
                               thresholds="all")
    assert dataset.antecedent_names == ("a:x", "a:y", "b:<=1.5", "b:>1.5", "c:v", "c:u")


def test_conditions_of_each_antecedent_evaluate_to_its_bits():
    """Each antecedent's conditions, evaluated on the raw columns, give exactly its bits."""
    data = {"a": ["x", "y", "", "y", "x", "z"],
            "n": ["0.5", "2", "7", "", "2", "-1"],
            "c": ["<=3", ">3", "<=3", "<=3", ">3", ""]}
    features = as_features(data)
    dataset = mine_antecedents(data, [1, 0, 1, 0, 1, 1], max_cardinality=2, min_support=0)
    index = dataset.antecedent_names.index("c:<=3")      # a category literally named "<=3"
    assert dataset.antecedent_conditions[index] == (Proposition("c", "==", "<=3"),)
    assert len(dataset.antecedent_conditions) == dataset.n_antecedents > 0
    for name, conditions, row in zip(dataset.antecedent_names, dataset.antecedent_conditions,
                                     dataset.antecedent_bits()):
        assert antecedent_name(conditions) == name
        held = np.logical_and.reduce([p.evaluate(features.column(p.feature))
                                      for p in conditions])
        np.testing.assert_array_equal(held, row)


def test_antecedent_names_follow_corels_convention():
    """Names are feature:value, feature:<=t, feature:>t joined by commas."""
    conditions = (Proposition("sex", "==", "Male"), Proposition("priors", ">", 3.0),
                  Proposition("age", "<=", 17.38))
    assert antecedent_name(conditions) == "sex:Male,priors:>3,age:<=17.38"


def _support_data():
    # N = 10: a:p holds 2 times, a:q 8, b:r 1, b:t 9.
    return {"a": ["p"] * 2 + ["q"] * 8, "b": ["r"] + ["t"] * 9}


SUPPORT_LABELS = [0, 1] * 5


def test_support_filter_keeps_the_exact_boundaries():
    """Supports of exactly s*N and (1-s)*N are kept."""
    dataset = mine_antecedents(_support_data(), SUPPORT_LABELS, max_cardinality=1,
                               min_support=Fraction(1, 5))
    # s*N = 2 and (1-s)*N = 8 are kept; 1 and 9 are outside.
    assert dataset.antecedent_names == ("a:p", "a:q")


def test_support_filter_just_above_the_boundary_drops_it():
    """A min_support a hair above the boundary drops it."""
    dataset = mine_antecedents(_support_data(), SUPPORT_LABELS, max_cardinality=1,
                               min_support=Fraction(1, 5) + Fraction(1, 10**9))
    assert dataset.antecedent_names == ()


@pytest.mark.parametrize("min_support", [0.1, "0.1", "1/10", Fraction(1, 10), np.float64(0.1)])
def test_support_is_read_exactly(min_support):
    """Floats, numpy floats, text and Fractions all mean the decimal they show."""
    # N = 30, s = 1/10: count 3 sits on the boundary. Fraction(0.1) is slightly above 1/10 and
    # would drop it; the float is read as the decimal 0.1.
    dataset = mine_antecedents({"a": ["p"] * 3 + ["q"] * 27}, [0, 1] * 15, max_cardinality=1,
                               min_support=min_support)
    assert dataset.antecedent_names == ("a:p", "a:q")


def test_min_support_one_half_keeps_only_antecedents_holding_for_half_the_rows():
    """min_support=1/2 is allowed and keeps only supports of exactly N/2."""
    dataset = mine_antecedents({"a": ["p"] * 5 + ["q"] * 5, "b": ["r"] * 4 + ["t"] * 6},
                               SUPPORT_LABELS, max_cardinality=1, min_support=Fraction(1, 2))
    assert dataset.antecedent_names == ("a:p", "a:q")


@pytest.mark.parametrize("min_support, problem", [
    (-0.1, "must be a fraction in [0, 1/2"), (0.6, "must be a fraction in [0, 1/2"),
    ("abc", "must be a number like '0.01' or '1/100'")])
def test_bad_min_support_names_the_parameter(min_support, problem):
    """Out-of-range or unparsable min_support is a ValueError naming it."""
    with pytest.raises(ValueError, match=re.escape(
            f"The 'min_support' parameter of mine_antecedents {problem}")):
        mine_antecedents(_support_data(), SUPPORT_LABELS, min_support=min_support)


@pytest.mark.parametrize("min_support", [None, True])
def test_min_support_of_the_wrong_type_raises_type_error(min_support):
    """None and bools are not supports."""
    with pytest.raises(TypeError, match="The 'min_support' parameter of mine_antecedents"):
        mine_antecedents(_support_data(), SUPPORT_LABELS, min_support=min_support)


def test_bad_thresholds_name_mine_antecedents():
    """A bad thresholds spec names mine_antecedents."""
    with pytest.raises(ValueError, match=re.escape(
            "The 'thresholds' parameter of mine_antecedents must be 'all', 'quantile:K' or "
            "'width:K' with an integer K in [1, 100000] ('all' cuts every gap). Got 'quantile:0' "
            "instead.")):
        mine_antecedents(_support_data(), SUPPORT_LABELS, thresholds="quantile:0")


def test_labels_must_match_the_rows():
    """Labels must have one entry per row."""
    with pytest.raises(ValueError, match=re.escape("3 labels for 10 rows.")):
        mine_antecedents(_support_data(), [0, 1, 1])


def test_names_that_would_collide_are_quoted_apart():
    """Feature a with value b:c and feature a:b with value c used to share the name a:b:c;
    a value holding ',' could mimic a conjunction."""
    dataset = mine_antecedents({"a": ["b:c", "x"], "a:b": ["c", "y"]}, [0, 1], min_support=0,
                               max_cardinality=1)
    assert dataset.antecedent_names == ('a:"b:c"', "a:x", '"a:b":c', '"a:b":y')
    dataset = mine_antecedents({"a": ["x,b:y", "x"], "b": ["y", "z"]}, [0, 1], min_support=0)
    assert '"a":"x,b:y"' not in dataset.antecedent_names
    assert len(set(dataset.antecedent_names)) == dataset.n_antecedents
    assert 'a:"x,b:y"' in dataset.antecedent_names and "a:x,b:y" in dataset.antecedent_names


def test_max_cardinality_must_be_a_positive_integer():
    with pytest.raises(ValueError, match="The 'max_cardinality' parameter of mine_antecedents "
                                         "must be a positive integer. Got 0 instead."):
        mine_antecedents({"a": ["p", "q"]}, [0, 1], max_cardinality=0)


def test_mining_names_with_spaces_commas_and_colons():
    """Mining accepts any names; the conditions hold the exact feature and value."""
    data = {"mean radius": [1.5, 2.5, 3.5], "sex, at: birth": ["M F", "a,b", "c: d"]}
    dataset = mine_antecedents(data, [0, 1, 1], min_support=0, thresholds="all")
    assert dataset.antecedent_names[:7] == (
        "mean radius:<=2", "mean radius:>2", "mean radius:<=3", "mean radius:>3",
        '"sex, at: birth":M F', '"sex, at: birth":"a,b"', '"sex, at: birth":"c: d"')
    last = dataset.antecedent_conditions[-1]
    assert last == (Proposition("mean radius", ">", 3.0), Proposition("sex, at: birth", "==",
                                                                       "c: d"))
    assert dataset.antecedent_bits()[-1].tolist() == [False, False, True]


def test_blank_lines_are_skipped(tmp_path):
    """A trailing blank line (CRLF too) and blank lines between rows are not rows."""
    path = tmp_path / "t.csv"
    path.write_bytes(b"a,y\r\n1,0\r\n\r\n2,1\r\n\r\n")
    features, target = read_csv(path, "y")
    assert features.column("a").tolist() == [1.0, 2.0] and target.tolist() == [0, 1]


@pytest.mark.parametrize("data, message", [
    ({"a": 5}, "column 'a' must be a 1-D sequence of cells; got a scalar."),
    ({"a": np.zeros((3, 2))}, r"column 'a' must be a 1-D sequence of cells; got shape \(3, 2\)."),
    ([[1, 2], [3]], "the rows of the feature data have different lengths."),
])
def test_malformed_containers_are_named(data, message):
    with pytest.raises(ValueError, match=message):
        as_features(data)


def test_integers_beyond_float_precision_warn():
    with pytest.warns(UserWarning, match="integers beyond 2\\*\\*53"):
        as_features({"id": np.array([2 ** 62, 2 ** 62 + 1], dtype=np.int64)})
