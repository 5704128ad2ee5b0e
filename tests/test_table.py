"""Tabular input (optrules.data.table) and antecedent mining (optrules.data.mining): errors and behaviour."""

import math
import re
from fractions import Fraction

import numpy as np
import pytest

from optrules.data.mining import binarize, mine_antecedents, table_items
from optrules.data.table import read_csv, table_from_columns


def _csv(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _in(path, line=None):
    """Regex for the message prefix naming the file (and the line)."""
    return "^" + re.escape(str(path) if line is None else f"{path}, line {line}")


# --- read_csv errors ----------------------------------------------------------------------

def test_missing_target_column_lists_the_columns(tmp_path):
    path = _csv(tmp_path, "b,a,y\nx,1,0\nz,2,1\n")
    with pytest.raises(ValueError, match=_in(path) + re.escape(
            ": target column 'label' not found; columns are ['a', 'b', 'y'].")):
        read_csv(path, "label")


@pytest.mark.parametrize("text, line, fields, header", [
    ("a,b,y\nx,1,0\nz,1\nq,2,1\n", 3, 2, 3),          # too few fields
    ("a,b,y\nx,1,0\nz,1,1\nq,2,1,7\n", 4, 4, 3),      # too many fields
    ('a,b,y\n"p\nq",1,0\nx,1\n', 4, 2, 3),            # a quoted cell spans lines 2-3
    ("a,y\nx,0\n\nz,1\n", 3, 0, 2),                   # a blank line is a row of 0 fields
])
def test_wrong_field_count_names_the_file_line(tmp_path, text, line, fields, header):
    path = _csv(tmp_path, text)
    with pytest.raises(ValueError, match=_in(path, line) + re.escape(
            f": {fields} fields but the header has {header}.")):
        read_csv(path, "y")


def test_target_with_three_values(tmp_path):
    path = _csv(tmp_path, "a,y\nx,lo\nz,mid\nx,hi\n")
    with pytest.raises(ValueError, match=_in(path) + re.escape(
            ": target column 'y' must have exactly 2 distinct values; found 3: "
            "['hi', 'lo', 'mid'].")):
        read_csv(path, "y")


def test_target_with_one_value(tmp_path):
    path = _csv(tmp_path, "a,y\nx,1\nz,1\n")
    with pytest.raises(ValueError, match=re.escape("exactly 2 distinct values; found 1: ['1']")):
        read_csv(path, "y")


def test_many_target_values_are_abbreviated():
    with pytest.raises(ValueError, match=re.escape(
            "found 7: ['0', '1', '2', '3', '4', '...'].")):
        table_from_columns({"a": list("abcdefg"), "y": list(range(7))}, "y")


def test_missing_target_values(tmp_path):
    path = _csv(tmp_path, "a,y\nx,1\nz,\nx,0\nz,  \n")
    with pytest.raises(ValueError, match=_in(path) + re.escape(
            ": target column 'y' is missing in 2 row(s) (first: data row 2).")):
        read_csv(path, "y")


@pytest.mark.parametrize("cell, problem", [('"p,q"', "contains ','"),
                                           ("p q", "is empty or contains whitespace"),
                                           ("p\tq", "is empty or contains whitespace"),
                                           ("{p}", "contains '{'")])
def test_value_that_cannot_be_an_antecedent_name(tmp_path, cell, problem):
    path = _csv(tmp_path, f"a,c,y\nx,{cell},1\nz,r,0\n")
    shown = cell.strip('"')
    with pytest.raises(ValueError, match=_in(path) + re.escape(
            f": value {shown!r} of column 'c' {problem}; antecedent names cannot represent it.")):
        read_csv(path, "y")


@pytest.mark.parametrize("name, problem", [("c:d", "contains ':'"),
                                           ("c d", "is empty or contains whitespace")])
def test_column_name_that_cannot_be_an_antecedent_name(tmp_path, name, problem):
    path = _csv(tmp_path, f"a,{name},y\nx,r,1\nz,r,0\n")
    with pytest.raises(ValueError, match=_in(path) + re.escape(
            f": column name {name!r} {problem}")):
        read_csv(path, "y")


def test_duplicate_header_names(tmp_path):
    path = _csv(tmp_path, "a,b, a,y\nx,1,2,0\nz,1,2,1\n")
    with pytest.raises(ValueError, match=_in(path) + re.escape(
            ": duplicate column name 'a' in the header.")):
        read_csv(path, "y")


def test_empty_file(tmp_path):
    path = _csv(tmp_path, "")
    with pytest.raises(ValueError, match=_in(path) + re.escape(
            ": file is empty; expected a header row.")):
        read_csv(path, "y")


def test_header_without_rows(tmp_path):
    path = _csv(tmp_path, "a,y\n")
    with pytest.raises(ValueError, match=_in(path) + ": the file has a header but no data rows."):
        read_csv(path, "y")


def test_missing_file(tmp_path):
    path = tmp_path / "absent.csv"
    with pytest.raises(ValueError, match=_in(path) + re.escape(
            ": cannot read CSV file (No such file or directory).")):
        read_csv(path, "y")


def test_positive_not_among_the_values(tmp_path):
    path = _csv(tmp_path, "a,y\nx,no\nz,yes\n")
    with pytest.raises(ValueError, match=_in(path) + re.escape(
            ": positive class 'Yes' is not a value of target column 'y'; values are "
            "['no', 'yes'].")):
        read_csv(path, "y", positive="Yes")


def test_ragged_columns():
    with pytest.raises(ValueError, match=re.escape("columns have different lengths: [2, 3].")):
        table_from_columns({"a": ["x", "y", "x"], "y": [0, 1]}, "y")


# --- targets ------------------------------------------------------------------------------

def test_zero_one_target_is_named_no_yes(tmp_path):
    table = read_csv(_csv(tmp_path, "a,y\nx,1\nz,0\nx,1\n"), "y")
    assert table.class_names == ("No", "Yes")
    assert table.labels.tolist() == [True, False, True]


def test_other_targets_ordered_by_value_unless_positive_given():
    columns = {"a": ["x", "z", "x"], "y": ["bad", "good", "bad"]}
    default = table_from_columns(columns, "y")
    assert default.class_names == ("bad", "good")
    assert default.labels.tolist() == [False, True, False]
    chosen = table_from_columns(columns, "y", positive="bad")
    assert chosen.class_names == ("good", "bad")
    assert chosen.labels.tolist() == [True, False, True]


# --- items --------------------------------------------------------------------------------

def _names(items):
    return [[item.name for item in column] for column in items]


def test_numeric_column_gives_thresholds_at_midpoints():
    table = table_from_columns({"x": ["1", "3", "3", "6", "1"], "y": [1, 0, 1, 0, 1]}, "y")
    assert table.numeric == (True,)
    assert _names(table_items(table)) == [["x:<=2.0", "x:>2.0", "x:<=4.5", "x:>4.5"]]


@pytest.mark.parametrize("max_thresholds, cuts", [(7, [1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5]),
                                                  (3, [2.5, 4.5, 6.5]),
                                                  (1, [4.5])])
def test_max_thresholds(max_thresholds, cuts):
    table = table_from_columns({"x": list(range(1, 9)), "y": [0, 1] * 4}, "y")
    expected = [name for t in cuts for name in (f"x:<={t!r}", f"x:>{t!r}")]
    assert _names(table_items(table, max_thresholds)) == [expected]


def test_categorical_items_in_order_of_first_appearance():
    table = table_from_columns({"c": ["v", "u", "v", "w"], "y": [0, 1, 0, 1]}, "y")
    assert table.numeric == (False,)
    assert _names(table_items(table)) == [["c:v", "c:u", "c:w"]]


def test_missing_cells_satisfy_no_item_of_their_column():
    table = table_from_columns({"x": ["1", "", "3", None, math.nan, "5"],
                                "c": ["u", "", "v", None, "u", "v"],
                                "y": [0, 1, 0, 1, 0, 1]}, "y")
    assert table.numeric == (True, False)
    dataset = mine_antecedents(table, max_cardinality=1, min_support=0)
    assert dataset.antecedent_names == ("x:<=2.0", "x:>2.0", "x:<=4.0", "x:>4.0", "c:u", "c:v")
    covered = dataset.antecedent_bits()
    assert not covered[:4, [1, 3, 4]].any()  # x is missing in rows 1, 3, 4
    assert not covered[4:, [1, 3]].any()  # c is missing in rows 1, 3
    assert covered.astype(int).tolist() == [[1, 0, 0, 0, 0, 0],
                                            [0, 0, 1, 0, 0, 1],
                                            [1, 0, 1, 0, 0, 0],
                                            [0, 0, 0, 0, 0, 1],
                                            [1, 0, 0, 0, 1, 0],
                                            [0, 0, 1, 0, 0, 1]]


# --- mining -------------------------------------------------------------------------------

def _order_table():
    return table_from_columns({"a": ["x", "y", "x", "y"],
                               "b": [1, 2, 1, 2],
                               "c": ["v", "u", "u", "v"],
                               "y": [1, 0, 1, 0]}, "y")


def test_mining_order():
    dataset = mine_antecedents(_order_table(), max_cardinality=2, min_support=Fraction(0))
    assert dataset.antecedent_names == (
        "a:x", "a:y", "b:<=1.5", "b:>1.5", "c:v", "c:u",
        "a:x,b:<=1.5", "a:x,b:>1.5", "a:y,b:<=1.5", "a:y,b:>1.5",
        "a:x,c:v", "a:x,c:u", "a:y,c:v", "a:y,c:u",
        "b:<=1.5,c:v", "b:<=1.5,c:u", "b:>1.5,c:v", "b:>1.5,c:u")
    bits = dataset.antecedent_bits()
    assert bits[dataset.antecedent_names.index("a:y,c:u")].tolist() == [False, True, False, False]
    assert not bits[dataset.antecedent_names.index("a:x,b:>1.5")].any()  # support 0 = s*N kept
    assert dataset.label_bits().tolist() == [True, False, True, False]
    assert dataset.class_names == ("No", "Yes")
    assert dataset.target == "y"


def test_max_cardinality_one_gives_single_items():
    dataset = mine_antecedents(_order_table(), max_cardinality=1, min_support=0)
    assert dataset.antecedent_names == ("a:x", "a:y", "b:<=1.5", "b:>1.5", "c:v", "c:u")


def _support_table():
    # N = 10: a:p holds 2 times, a:q 8, b:r 1, b:t 9.
    return table_from_columns({"a": ["p"] * 2 + ["q"] * 8,
                               "b": ["r"] + ["t"] * 9,
                               "y": [0, 1] * 5}, "y")


def test_support_filter_keeps_the_exact_boundaries():
    dataset = mine_antecedents(_support_table(), max_cardinality=1, min_support=Fraction(1, 5))
    # s*N = 2 and (1-s)*N = 8 are kept; 1 and 9 are outside.
    assert dataset.antecedent_names == ("a:p", "a:q")


def test_support_filter_just_above_the_boundary_drops_it():
    dataset = mine_antecedents(_support_table(), max_cardinality=1,
                               min_support=Fraction(1, 5) + Fraction(1, 10**9))
    assert dataset.antecedent_names == ()


@pytest.mark.parametrize("min_support", [0.1, "0.1", "1/10", Fraction(1, 10)])
def test_support_is_read_exactly(min_support):
    # N = 30, s = 1/10: count 3 sits on the boundary. Fraction(0.1) is slightly above 1/10 and
    # used to drop it; the float is now read as the decimal 0.1.
    table = table_from_columns({"a": ["p"] * 3 + ["q"] * 27, "y": [0, 1] * 15}, "y")
    dataset = mine_antecedents(table, max_cardinality=1, min_support=min_support)
    assert dataset.antecedent_names == ("a:p", "a:q")


@pytest.mark.parametrize("min_support", [-0.1, Fraction(1, 2), 0.6, "abc"])
def test_bad_min_support_names_the_parameter(min_support):
    with pytest.raises(ValueError, match=re.escape(
            "The 'min_support' parameter of mine_antecedents must be")):
        mine_antecedents(_support_table(), min_support=min_support)


def test_binarize_reproduces_mined_bits():
    table = table_from_columns({"a": ["x", "y", "", "y", "x", "z"],
                                "n": ["0.5", "2", "7", "", "2", "-1"],
                                "c": ["<=3", ">3", "<=3", "<=3", ">3", ""],
                                "y": [1, 0, 1, 0, 1, 1]}, "y")
    dataset = mine_antecedents(table, max_cardinality=2, min_support=0)
    assert "c:<=3" in dataset.antecedent_names  # a category literally named "<=3"
    np.testing.assert_array_equal(binarize(table, dataset.antecedent_names),
                                  dataset.antecedent_bits())


def test_binarize_unknown_feature():
    table = _order_table()
    with pytest.raises(ValueError, match=re.escape(
            "antecedent 'a:x,sex:Male' uses feature 'sex', which is not a column of the table "
            "(['a', 'b', 'c']).")):
        binarize(table, ["a:x", "a:x,sex:Male"])


def test_binarize_of_no_antecedents_has_shape_zero_by_n():
    assert binarize(_order_table(), []).shape == (0, 4)


def test_class_value_that_cannot_be_written_as_a_label_name():
    with pytest.raises(ValueError, match="class 'high risk' of target column 'y' is empty or "
                                         "contains whitespace"):
        table_from_columns({"a": ["x", "y"], "y": ["high risk", "low"]}, "y")
