"""Tests of optrules.data.propositions: order, shortest-decimal thresholds, missing values, input
forms, extents, conditions as JSON."""

import json
import math
import re
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from optrules.data import bitset
from optrules.data.propositions import (Proposition, PropositionSet, make_propositions,
                                        numeric_thresholds, shortest_separating_decimal)
from optrules.data.table import as_features
from optrules.validation import parse_thresholds

NAN = float("nan")


def thresholds_of(ps, feature, operator="<="):
    return [p.value for p in ps.propositions if p.feature == feature and p.operator == operator]


def bits(ps):
    return bitset.unpack(ps.extents, ps.n_samples)


def evaluate(propositions, features):
    """Boolean matrix (propositions x rows) of propositions on canonical features."""
    return np.array([p.evaluate(features.column(p.feature)) for p in propositions],
                    dtype=bool).reshape(len(propositions), features.n_samples)


# --- proposition order ---------------------------------------------------------------------

def test_docstring_example_names_and_order():
    """make_propositions' docstring example: numeric <= then >, categorical == then !=."""
    ps = make_propositions({"x": [1.0, 2.0, 3.0], "c": ["a", "b", "a"]}, thresholds="all")
    assert ps.names == ("x<=1.5", "x<=2.5", "x>1.5", "x>2.5",
                        "c==a", "c==b", "c!=a", "c!=b")


def test_columns_keep_input_order_and_categories_sort_as_strings():
    """Columns stay in input order; categories sort as strings ("10" < "9" < "a")."""
    data = {"c": ["b", "10", "a", "9"], "y": [4.0, 3.0, 2.0, 1.0], "d": ["q", "p", "q", "p"]}
    ps = make_propositions(data, thresholds="all")
    assert ps.names == (
        "c==10", "c==9", "c==a", "c==b", "c!=10", "c!=9", "c!=a", "c!=b",
        "y<=1.5", "y<=2.5", "y<=3.5", "y>1.5", "y>2.5", "y>3.5",
        "d==p", "d==q", "d!=p", "d!=q")
    assert all(isinstance(p.value, str) for p in ps.propositions[:8])
    assert all(isinstance(p.value, float) for p in ps.propositions[8:14])


def test_numeric_thresholds_ascending_whatever_the_row_order():
    """Thresholds come out ascending however the rows are ordered."""
    ps = make_propositions(np.array([[5.0], [1.0], [3.0], [2.0], [3.0]]), thresholds="all")
    assert ps.names == ("x0<=1.5", "x0<=2.5", "x0<=4", "x0>1.5", "x0>2.5", "x0>4")


def test_proposition_name_formats():
    """Names print thresholds in shortest round-trip form without '.0' (what is printed is the
    threshold used: no rounding for display)."""
    assert Proposition("x", "<=", 2.0).name == "x<=2"
    assert Proposition("x", ">", -0.25).name == "x>-0.25"
    assert Proposition("x", "<=", 0.55444).name == "x<=0.55444"
    assert Proposition("c", "!=", "red").name == "c!=red"
    assert Proposition("x", "<=", 1.0).numeric and not Proposition("c", "==", "1").numeric


# --- thresholds: which cuts ----------------------------------------------------------------

def test_all_thresholds_are_midpoints_of_distinct_values():
    """'all' cuts every gap between distinct values once, duplicates ignored."""
    ps = make_propositions({"x": [3, 1, 2, 2, 5, 1]}, thresholds="all")
    assert thresholds_of(ps, "x") == [1.5, 2.5, 4.0]
    assert thresholds_of(ps, "x", ">") == [1.5, 2.5, 4.0]


def test_all_thresholds_split_adjacent_floats_at_the_lower_one():
    """No float lies strictly between neighbouring doubles, so the cut is the lower value."""
    low, high = 0.3, 0.1 + 0.2
    assert np.nextafter(low, 1.0) == high
    assert numeric_thresholds(np.array([high, low]), "all") == [low]
    assert numeric_thresholds(np.array([1 + 2 ** -52, 1 + 2 ** -51, 2.0]), "all") == \
        [1 + 2 ** -52, 1.5]


def test_all_thresholds_do_not_overflow_for_huge_values():
    """Midpoints of huge values do not overflow and still split each gap."""
    with np.errstate(over="raise"):
        ps = make_propositions({"x": [1e308, 1.5e308, -1.7e308]}, thresholds="all")
    cuts = thresholds_of(ps, "x")
    # the midpoint -3.5e307 of the first gap becomes a one-digit decimal next to it
    assert cuts[0] in (-4e307, -3e307) and 1e308 <= cuts[1] < 1.5e308
    assert bits(ps).tolist()[:2] == [[False, False, True], [True, False, True]]


def test_all_thresholds_none_for_a_constant_column():
    """A constant column has no gap, hence no proposition."""
    assert make_propositions({"x": [2.0, 2.0, 2.0]}, thresholds="all").names == ()


@pytest.mark.parametrize("count, expected", [
    (1, [2.5]),                 # median of 0 1 2 3 4 10 (linear): 2.5
    (3, [1.2, 2.5, 3.7]),       # 1.25 and 3.75: two equally close decimals, the smaller wins
    (4, [1.0, 2.0, 3.0, 4.0]),  # positions 5 * j/5: training values, kept as they are
])
def test_quantile_thresholds_are_numpys_linear_quantiles_shortened(count, expected):
    """'quantile:K' cuts at numpy's linear quantiles, shortened to decimals splitting alike."""
    values = np.array([10.0, 0.0, 4.0, 1.0, 3.0, 2.0])
    assert numeric_thresholds(values, f"quantile:{count}") == expected
    quantiles = np.quantile(values, [j / (count + 1) for j in range(1, count + 1)])
    for threshold, quantile in zip(expected, quantiles):
        assert np.array_equal(values <= threshold, values <= quantile)


def test_quantile_thresholds_use_repeated_values_not_distinct_ones():
    """Quantiles are of the sample with multiplicity, not of the distinct values."""
    ps = make_propositions({"x": [0.0, 0.0, 0.0, 10.0]}, thresholds="quantile:1")
    assert thresholds_of(ps, "x") == [0.0]      # the median of the sample, not of {0, 10}


def test_quantile_thresholds_deduplicated_and_below_the_maximum():
    """Equal quantiles collapse and quantiles at the maximum are dropped."""
    assert thresholds_of(make_propositions({"x": [1, 1, 1, 1, 2]}, "quantile:3"), "x") == [1.0]
    assert make_propositions({"x": [0, 5, 5, 5, 5]}, "quantile:3").names == ()
    ps = make_propositions({"x": [0, 0, 0, 0, 5]}, "quantile:3")
    assert ps.names == ("x<=0", "x>0")


def test_quantile_thresholds_ignore_missing_values():
    """Missing values take no part in the quantiles."""
    with_missing = make_propositions({"x": [NAN, 0.0, 1.0, NAN, 2.0, 3.0]}, "quantile:3")
    without = make_propositions({"x": [0.0, 1.0, 2.0, 3.0]}, "quantile:3")
    assert with_missing.names == without.names
    assert thresholds_of(without, "x") == [0.7, 1.5, 2.2]   # quantiles 0.75, 1.5, 2.25


@pytest.mark.parametrize("count, expected", [
    (1, []), (2, [5.0]), (4, [2.0]), (5, [2.0]), (10, [1.0])])
def test_width_thresholds_are_interior_bin_edges_shortened_one_per_gap(count, expected):
    """'width:K' cuts at the K-1 interior edges of equal bins, shortened; edges falling in the
    same gap between training values split them alike, so only the first is kept."""
    # edges of [0, 10]; every edge from 1 on falls in the gap [1, 10)
    values = np.array([0.0, 10.0, 1.0, 1.0, 1.0])
    assert numeric_thresholds(values, f"width:{count}") == expected


def test_width_thresholds_offset_range_and_constant_column():
    """Width bins span [min, max] wherever it lies; a constant column has none."""
    assert numeric_thresholds(np.array([2.0, 8.0, 3.5, 5.0]), "width:3") == [4.0, 6.0]
    assert make_propositions({"x": [4.0, 4.0]}, thresholds="width:3").names == ()


def test_default_thresholds_are_quantile_10():
    """The default threshold choice is 'quantile:10'."""
    values = np.arange(100.0).reshape(-1, 1)
    assert make_propositions(values).names == make_propositions(values, "quantile:10").names
    assert len(make_propositions(values)) == 20


@pytest.mark.parametrize("spec, parsed", [
    ("all", ("all", None)), ("quantile:1", ("quantile", 1)), ("quantile:12", ("quantile", 12)),
    ("width:3", ("width", 3))])
def test_parse_thresholds_accepts_valid_specs(spec, parsed):
    """parse_thresholds reads 'all', 'quantile:K' and 'width:K'."""
    assert parse_thresholds(spec) == parsed


@pytest.mark.parametrize("spec", [
    "quantile:0", "width:0", "foo", "width:x", "quantile", "quantile:", "width:-2",
    "quantile:1.5", "all:3", "ALL", "", None, 5, "quantile:²", "quantile:٣", "width:100001",
    "quantile:99999999999"])
def test_invalid_threshold_specs_raise_naming_the_parameter(spec):
    """Every entry point rejects a bad spec with the same message naming the parameter (K is
    ASCII digits and bounded: a huge K used to exhaust memory)."""
    message = ("The 'thresholds' parameter of make_propositions must be 'all', 'quantile:K' or "
               "'width:K' with an integer K in [1, 100000] ('all' cuts every gap). Got "
               f"{spec!r} instead.")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        parse_thresholds(spec)
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        make_propositions({"x": [1.0, 2.0]}, thresholds=spec)
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        numeric_thresholds(np.array([1.0, 2.0]), spec)


# --- thresholds: shortest decimals ---------------------------------------------------------

def test_docstring_examples_of_shortest_decimals():
    """The documented examples: 17.384999999999998 becomes 17.38, etc."""
    assert shortest_separating_decimal(17.384999999999998, 17.37, 17.4) == 17.38
    assert shortest_separating_decimal(3.0, 3.0, 3.5) == 3.0
    assert shortest_separating_decimal(1.5, 1.0, 2.0) == 1.5
    assert numeric_thresholds(np.array([17.37, 17.40, NAN, 20.0]), "all") == [17.38, 19.0]


def test_shortest_decimal_ties_go_to_the_smaller():
    """Two equally short decimals equally close to the cut: the smaller wins."""
    # -1.7 and -1.8 are both 0.05 from -1.75
    assert shortest_separating_decimal(-1.75, -2.0, -1.5) == -1.8


@pytest.mark.parametrize("cut, below, above, expected", [
    (1.5e-300, 1e-300, 2e-300, 1.5e-300),   # 1e-300 is the value below: not in the open gap
    (5e-324, 5e-324, 1e-323, 5e-324),       # adjacent subnormals: the closed end
    (1e-323, 5e-324, 1.5e-323, 1e-323),     # the only float strictly between
    (1.2e300, 1e300, 2e300, 1.2e300),
])
def test_shortest_decimal_at_extreme_magnitudes(cut, below, above, expected):
    """Tiny, subnormal and huge gaps get the right decimal (or the cut itself)."""
    assert shortest_separating_decimal(cut, below, above) == expected


def test_shortest_decimal_is_the_threshold_the_propositions_use():
    """Propositions carry (and print) the shortened threshold, not the raw cut."""
    ps = make_propositions({"s": np.array(["1", " 2.5", "4 ", None], dtype=object)}, "all")
    assert ps.names == ("s<=2", "s<=3", "s>2", "s>3")   # cuts 1.75 and 3.25, shortened
    assert thresholds_of(ps, "s") == [2.0, 3.0]


def test_a_cut_at_a_training_value_keeps_that_value_when_it_is_shortest():
    """In [below, above) the value below itself is a candidate (docstring rule): 0.4 denotes
    the float below = 0.40000000000000002220446..., so it qualifies although it is smaller."""
    assert shortest_separating_decimal(0.4, 0.4, 0.5) == 0.4
    assert numeric_thresholds(np.array([0.0, 0.4, 0.5]), "quantile:1") == [0.4]
    assert shortest_separating_decimal(1e308, 1e308, 1.5e308) == 1e308


def test_equally_short_decimals_tie_to_the_one_closest_to_the_cut():
    """Among decimals with equally few digits the closest to the cut wins (docstring rule)."""
    assert shortest_separating_decimal(4.0, 3.0, 100.0) == 4.0        # not 10
    assert shortest_separating_decimal(10.99, 1.0, 1000.0) == 10.0
    assert shortest_separating_decimal(2.0, -1.0, 5.0) == 2.0          # not 0
    assert shortest_separating_decimal(4.5, 3.0, 100.0) == 4.0         # 4 and 5 tie: smaller
    assert numeric_thresholds(np.array([3.0, 100.0, 5.0]), "width:97") == [4.0, 5.0]


def test_exact_quantiles_do_not_inherit_numpys_rounding():
    """The 3/11 quantile of 0..99 is 27 exactly (numpy: 26.999999999999996), so the cut is at
    the training value 27 and 27 is on its left side."""
    assert numeric_thresholds(np.arange(100.0), "quantile:10")[2] == 27.0


@pytest.mark.parametrize("spec", ["width:2", "quantile:1"])
def test_huge_ranges_keep_their_width_and_quantile_cuts(spec):
    """Width and quantile cuts exist for ranges wider than the largest float."""
    with np.errstate(over="raise"):
        assert numeric_thresholds(np.array([-1e308, 1e308]), spec) == [0.0]


# --- thresholds: properties ----------------------------------------------------------------

def significant_digits(x):
    """Significant digits of a float's shortest repr (0.0 has one)."""
    return len(Decimal(repr(x)).normalize().as_tuple().digits)


def float_or_infinity(x):
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def decimal_with_at_most(digits, below, above, closed):
    """Whether some k * 10**e with |k| < 10**digits denotes a float in (below, above), or in
    [below, above) when closed. Independent of the library: for each e, binary search for the
    smallest k whose float passes the lower end (rounding is monotone), then test the upper."""
    if digits == 0:
        return False
    low, high, largest = Fraction(below), Fraction(above), 10 ** digits - 1
    nearest = min(abs(low), abs(high)) if low * high > 0 else 0
    farthest = max(abs(low), abs(high), Fraction(1))
    for e in range(math.floor(math.log10(farthest)) + 2,
                   (math.floor(math.log10(nearest)) if nearest else -330) - digits - 2, -1):
        step = Fraction(10) ** e
        first = max(-largest, math.floor(low / step) - 2)
        last = min(largest, math.ceil(high / step) + 2)
        if first > last:
            continue
        while first < last:
            middle = (first + last) // 2
            value = float_or_infinity(middle * step)
            if below <= value if closed else below < value:
                last = middle
            else:
                first = middle + 1
        value = float_or_infinity(first * step)
        if (below <= value if closed else below < value) and value < above:
            return True
    return False


def reference_cuts(values, spec):
    """The exact cut points of the module docstring, from their definitions in Fractions:
    midpoints, linear quantiles at position (n - 1)·j/(K + 1) of the sorted sample, and equal
    width edges; only those with min <= t < max."""
    ordered = sorted(Fraction(float(v)) for v in values)
    distinct = sorted(set(ordered))
    kind, _, count = spec.partition(":")
    if kind == "all":
        raw = [(a + b) / 2 for a, b in zip(distinct, distinct[1:])]
    elif kind == "quantile":
        raw = []
        for j in range(1, int(count) + 1):
            position = Fraction((len(ordered) - 1) * j, int(count) + 1)
            i = math.floor(position)
            upper = ordered[min(i + 1, len(ordered) - 1)]
            raw.append(ordered[i] + (position - i) * (upper - ordered[i]))
    else:
        raw = [distinct[0] + j * (distinct[-1] - distinct[0]) / int(count)
               for j in range(1, int(count))]
    return sorted({t for t in raw if distinct[0] <= t < distinct[-1]})


finite = st.one_of(st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False),
                   st.floats(-1e-300, 1e-300, allow_nan=False, allow_infinity=False),
                   st.integers(-20, 20).map(lambda i: i / 4))
short_decimals = st.tuples(st.integers(-30, 30), st.lists(st.integers(-9, 9), min_size=1,
                                                         max_size=6)).map(
    lambda scaled: [float(Decimal(i).scaleb(scaled[0])) for i in scaled[1]])
float_columns = st.one_of(st.lists(finite, min_size=1, max_size=6), short_decimals).flatmap(
    lambda pool: st.lists(st.sampled_from(pool), min_size=1, max_size=12)).map(np.array)
threshold_specs = st.one_of(st.just("all"), st.integers(1, 12).map("quantile:{}".format),
                            st.integers(1, 12).map("width:{}".format))


def gaps(values, spec):
    """(cut, below, above) for the first reference cut in each gap between consecutive
    distinct training values: the training values around it."""
    distinct = sorted({Fraction(float(v)) for v in values})
    seen = set()
    for cut in reference_cuts(values, spec):
        above = next(v for v in distinct if v > cut)
        if above not in seen:
            seen.add(above)
            yield cut, float(max(v for v in distinct if v <= cut)), float(above)


def splits(values, threshold):
    return [Fraction(float(v)) <= threshold for v in values]


@example(np.array([0.0, 0.1, 0.5]), "width:5")      # float 0.1 lies above the cut 1/10
@example(np.array([0.0, 1e-29, 5e-29]), "width:5")  # 2e-29, on the coarser grid above 1e-29
@given(float_columns, threshold_specs)
def test_thresholds_split_like_the_cuts_and_are_shortest_in_open_gaps(values, spec):
    """One threshold per gap that holds a cut, splitting the training values as the exact cut
    does; thresholds rise strictly; a cut strictly inside a gap gets a decimal no shorter one
    can replace (or the lower value when no float lies strictly inside)."""
    expected = []
    for cut, below, above in gaps(values, spec):
        decimal = shortest_separating_decimal(cut, below, above)
        assert splits(values, decimal) == splits(values, cut)
        if cut != below and np.nextafter(below, math.inf) < above:
            assert below < decimal < above
            assert not decimal_with_at_most(significant_digits(decimal) - 1, below, above,
                                            closed=False)
        elif cut != below:
            assert decimal == below             # neighbouring floats: split at the lower one
        expected.append(decimal)
    thresholds = numeric_thresholds(values, spec)
    assert all(a < b for a, b in zip(thresholds, thresholds[1:]))
    assert thresholds == expected


@example(np.array([0.0, 0.4, 0.5]), "quantile:1")
@given(float_columns, threshold_specs)
def test_thresholds_are_shortest_in_closed_gaps(values, spec):
    """A cut at a training value gets a decimal in [below, above) no shorter one can replace."""
    for cut, below, above in gaps(values, spec):
        if cut == below:
            decimal = shortest_separating_decimal(cut, below, above)
            assert below <= decimal < above
            assert not decimal_with_at_most(significant_digits(decimal) - 1, below, above,
                                            closed=True)


def test_brute_force_shorter_decimal_search_finds_known_cases():
    """The independent search used by the property tests is itself right on known gaps."""
    assert decimal_with_at_most(1, 0.4, 0.5, closed=True)        # 0.4 itself
    assert not decimal_with_at_most(1, 0.4, 0.5, closed=False)
    assert decimal_with_at_most(2, 0.4, 0.5, closed=False)       # 0.41
    assert not decimal_with_at_most(1, 1.0, 2.0, closed=False)
    assert decimal_with_at_most(1, -1.0, 5.0, closed=False)      # 0 .. 4
    assert decimal_with_at_most(1, 1e308, 1.5e308, closed=True)
    assert not decimal_with_at_most(1, 1e308, 1.5e308, closed=False)
    assert decimal_with_at_most(1, 5e-324, 1e-323, closed=True)
    assert not decimal_with_at_most(16, 0.3, 0.1 + 0.2, closed=False)


# --- missing values ------------------------------------------------------------------------

def test_missing_numeric_values_satisfy_no_proposition():
    """NaN satisfies neither x <= t nor x > t."""
    X = np.array([[1.0], [NAN], [3.0], [2.0]])
    ps = make_propositions(X, thresholds="all")
    assert len(ps) == 4
    b = bits(ps)
    assert not b[:, 1].any()
    assert (b[:, [0, 2, 3]].sum(axis=0) == 2).all()      # exactly one of <= t, > t per t


def test_missing_cells_in_object_columns_satisfy_no_proposition():
    """None, empty text and NaN in object columns satisfy no proposition, != included."""
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
    """NaN among strings is missing, not the category 'nan'."""
    ps = make_propositions({"c": ["a", NAN, "b"]}, thresholds="all")
    assert ps.names == ("c==a", "c==b", "c!=a", "c!=b")
    assert not bits(ps)[:, 1].any()
    ps = make_propositions([[1.0, "a"], [2.0, NAN], [NAN, "b"]], thresholds="all")
    assert ps.names == ("x0<=1.5", "x0>1.5", "x1==a", "x1==b", "x1!=a", "x1!=b")
    assert not bits(ps)[:2, 2].any() and not bits(ps)[2:, 1].any()


def test_whitespace_only_cell_is_missing():
    """A whitespace-only cell is missing."""
    ps = make_propositions({"c": np.array(["a", "  ", "b"], dtype=object)}, thresholds="all")
    assert ps.names == ("c==a", "c==b", "c!=a", "c!=b")
    assert not bits(ps)[:, 1].any()


def test_all_missing_columns_give_no_propositions():
    """A column with no present value yields no proposition."""
    ps = make_propositions({"n": [NAN, NAN], "o": [None, ""], "x": [1.0, 2.0]}, "all")
    assert ps.names == ("x<=1.5", "x>1.5")


def test_evaluate_with_missing_values_in_new_data():
    """Missing cells of new data read with the training kinds satisfy nothing."""
    features = as_features({"x": [1.0, 2.0], "c": ["a", "b"]})
    ps = make_propositions(features, thresholds="all")
    new = as_features({"x": [NAN, 1.0, None], "c": [None, "", "a"]}, numeric=features.numeric)
    assert evaluate(ps.propositions, new).tolist() == [
        [False, True, False], [False, False, False],
        [False, False, True], [False, False, False], [False, False, False],
        [False, False, True]]


# --- input forms ---------------------------------------------------------------------------

def test_numpy_array_gets_names_x0_x1_and_feature_names_override():
    """Array columns are named x0, x1, ... unless feature_names is given; extents agree."""
    X = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    assert make_propositions(X, "all").names == (
        "x0<=1.5", "x0<=2.5", "x0>1.5", "x0>2.5", "x1<=0.5", "x1>0.5")
    named = make_propositions(X, "all", feature_names=["age", "sex"])
    assert named.names == ("age<=1.5", "age<=2.5", "age>1.5", "age>2.5", "sex<=0.5", "sex>0.5")
    assert np.array_equal(named.extents, make_propositions(X, "all").extents)


def test_array_dict_list_and_features_inputs_agree():
    """An array, a dict, a list of rows and Features give the same propositions."""
    X = np.array([[1.0, 7.0], [2.0, 5.0], [NAN, 6.0], [4.0, 5.0]])
    from_array = make_propositions(X, "all")
    from_dict = make_propositions({"x0": X[:, 0], "x1": list(X[:, 1])}, "all")
    from_list = make_propositions(X.tolist(), "all")
    from_features = make_propositions(as_features(X), "all")
    for other in (from_dict, from_list, from_features):
        assert other.names == from_array.names
        assert np.array_equal(other.extents, from_array.extents)


def test_integer_columns_are_numeric_and_boolean_columns_categorical():
    """Integer columns get thresholds, boolean columns ==/!= tests on 'True'/'False'."""
    features = as_features({"i": np.array([3, 1, 2]), "b": np.array([True, False, True])})
    assert features.numeric == (True, False)
    assert features.column("b").tolist() == ["True", "False", "True"]
    assert make_propositions(features, "all").names == (
        "i<=1.5", "i<=2.5", "i>1.5", "i>2.5", "b==False", "b==True", "b!=False", "b!=True")


def test_numeric_strings_in_an_object_column_are_numeric():
    """Text that parses as finite numbers is numeric, padded or not."""
    features = as_features({"s": np.array(["1", " 2.5", "4 ", None], dtype=object)})
    assert features.numeric == (True,)
    assert np.array_equal(features.columns[0], [1.0, 2.5, 4.0, NAN], equal_nan=True)
    string_array = np.array([["1", "a"], ["3", "b"]])
    assert as_features(string_array).numeric == (True, False)
    assert make_propositions(string_array, "all").names == (
        "x0<=2", "x0>2", "x1==a", "x1==b", "x1!=a", "x1!=b")


def test_non_string_column_names_become_strings():
    """Non-string dict keys become string feature names."""
    ps = make_propositions({1: [0.0, 1.0], "k": ["a", "b"]}, "all")
    assert ps.names == ("1<=0.5", "1>0.5", "k==a", "k==b", "k!=a", "k!=b")


def test_names_and_values_with_spaces_commas_and_colons():
    """Feature names and categories may contain spaces, commas and colons."""
    data = {"mean radius": [17.99, 20.57, 13.0], "sex, at: birth": ["M F", "a,b", "c: d"]}
    ps = make_propositions(data, "all")
    assert ps.names == (
        "mean radius<=15", "mean radius<=20", "mean radius>15", "mean radius>20",
        "sex, at: birth==M F", "sex, at: birth==a,b", "sex, at: birth==c: d",
        "sex, at: birth!=M F", "sex, at: birth!=a,b", "sex, at: birth!=c: d")
    assert bits(ps)[4:].astype(int).tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 1],
                                                 [0, 1, 1], [1, 0, 1], [1, 1, 0]]


def test_pandas_dataframe_matches_dict_of_columns():
    """A DataFrame gives the same propositions as the dict of its columns."""
    pd = pytest.importorskip("pandas")
    data = {"num": [1.0, NAN, 3.0, 2.0], "cat": ["a", None, "b", "a"],
            "int": [1, 2, 3, 4], "txt": ["1", "2", "", "4"]}
    frame = pd.DataFrame(data)
    from_frame = make_propositions(frame, "all")
    from_dict = make_propositions(data, "all")
    assert from_frame.names == from_dict.names
    assert np.array_equal(from_frame.extents, from_dict.extents)
    assert as_features(frame).numeric == (True, False, True, True)


def test_pandas_bool_and_category_columns_are_categorical():
    """pandas category (numeric-looking too), bool and nullable boolean columns are categorical."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"c": pd.Categorical([3, 1, 3]), "b": [True, False, True],
                          "nb": pd.array([True, None, False], dtype="boolean")})
    ps = make_propositions(frame, "all")
    assert ps.names == ("c==1", "c==3", "c!=1", "c!=3", "b==False", "b==True", "b!=False",
                        "b!=True", "nb==False", "nb==True", "nb!=False", "nb!=True")
    assert not bits(ps)[8:, 1].any()


def test_pandas_missing_markers_are_missing():
    """pandas NA in string, Int64, category and object columns is missing."""
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
    """Extents are the packed evaluations of the propositions, padding bits zero."""
    data = mixed_data()
    ps = make_propositions(data, "quantile:4")
    assert isinstance(ps, PropositionSet)
    assert ps.n_samples == 70
    assert ps.extents.dtype == np.uint64 and ps.extents.shape == (len(ps), bitset.n_words(70))
    evaluated = evaluate(ps.propositions, as_features(data))
    assert np.array_equal(bits(ps), evaluated)
    assert np.array_equal(ps.extents, bitset.pack(evaluated))
    # padding bits past n_samples stay zero
    assert (ps.extents[:, -1] >> np.uint64(70 - 64) == 0).all()


def test_extent_indices_are_sorted_sample_indices():
    """extent_indices lists the set bits of an extent in order."""
    ps = make_propositions(mixed_data(), "all")
    b = bits(ps)
    for j in range(len(ps)):
        indices = ps.extent_indices(j)
        assert np.array_equal(indices, np.flatnonzero(b[j]))
        assert len(indices) == bitset.popcount(ps.extents[j])


def test_evaluate_on_row_subsets_matches_training_bits():
    """Re-read or taken rows evaluate to the matching columns of the training extents."""
    data = mixed_data()
    features = as_features(data)
    ps = make_propositions(features, "quantile:3")
    rows = [5, 0, 69, 33, 33]
    subset = {name: np.asarray(column)[rows] for name, column in data.items()}
    new = as_features(subset, numeric=features.numeric)
    assert np.array_equal(evaluate(ps.propositions, new), bits(ps)[:, rows])
    assert np.array_equal(evaluate(ps.propositions, features.take(rows)), bits(ps)[:, rows])
    assert evaluate(ps.propositions, features.take(slice(0, 0))).shape == (len(ps), 0)


def test_categorical_propositions_on_new_rows_that_look_numeric():
    """New rows holding only "7", "8" or missing would parse as numeric; the training kinds
    (numeric=) keep them categorical, so they compare with the training categories."""
    features = as_features({"c": ["7", "a", "7", None, "8"]})
    ps = make_propositions(features, "all")
    assert ps.names == ("c==7", "c==8", "c==a", "c!=7", "c!=8", "c!=a")
    assert as_features({"c": ["7", None, "8"]}).numeric == (True,)
    new = as_features({"c": ["7", None, "8"]}, numeric=features.numeric)
    assert np.array_equal(evaluate(ps.propositions, new), bits(ps)[:, [0, 3, 4]])
    ints = as_features({"c": np.array([7, 8])}, numeric=features.numeric)
    assert np.array_equal(evaluate(ps.propositions, ints), bits(ps)[:, [2, 4]])


def test_evaluate_does_not_depend_on_extra_columns_or_column_order():
    """Propositions find their column by name: extra or reordered columns change nothing."""
    data = mixed_data(n=20)
    ps = make_propositions(data, "all")
    reordered = {"u": data["u"], "extra": np.zeros(20), "cat": data["cat"], "num": data["num"]}
    assert np.array_equal(evaluate(ps.propositions, as_features(reordered)), bits(ps))


@pytest.mark.parametrize("proposition, column, expected", [
    (Proposition("mean radius", "<=", 17.38), [17.38, 17.39, NAN], [True, False, False]),
    (Proposition("mean radius", ">", 17.38), [17.38, 17.39, NAN], [False, True, False]),
    (Proposition("sex, at: birth", "==", "M F, x: y"), ["M F, x: y", "M F", None],
     [True, False, False]),
    (Proposition("sex, at: birth", "!=", "M F, x: y"), ["M F, x: y", "M F", None],
     [False, True, False]),
])
def test_proposition_evaluate_on_canonical_columns(proposition, column, expected):
    """evaluate compares a canonical column, names with spaces, commas and colons included."""
    canonical = np.array(column, dtype=float if proposition.numeric else object)
    assert proposition.evaluate(canonical).tolist() == expected


# --- conditions as JSON --------------------------------------------------------------------

@pytest.mark.parametrize("proposition", [
    Proposition("x", "<=", 17.384999999999998), Proposition("x", ">", 0.1 + 0.2),
    Proposition("x", "<=", -1e-300), Proposition("mean radius", ">", 1e300),
    Proposition("sex, at: birth", "==", "M F: x,y"), Proposition("c", "!=", "1.5")])
def test_proposition_json_round_trip(proposition):
    """to_json gives plain JSON that from_json turns back into the same proposition."""
    item = json.loads(json.dumps(proposition.to_json()))
    assert item == [proposition.feature, proposition.operator, proposition.value]
    assert Proposition.from_json(item) == proposition


def test_from_json_reads_integer_thresholds_as_floats():
    """A JSON integer threshold is read as the equal float."""
    proposition = Proposition.from_json(["x", "<=", 3])
    assert proposition == Proposition("x", "<=", 3.0)
    assert isinstance(proposition.value, float) and proposition.name == "x<=3"


@pytest.mark.parametrize("item, problem", [
    (("x", "<=", 1.0), "must be \\[feature, operator, value\\]"),
    ({"feature": "x"}, "must be \\[feature, operator, value\\]"),
    (["x", "<=", 1.0, 2.0], "must be \\[feature, operator, value\\]"),
    (["x", "<="], "must be \\[feature, operator, value\\]"),
    ([1, "<=", 1.0], "must be \\[feature, operator, value\\]"),
    (["x", "<", 1.0], "must be \\[feature, operator, value\\]"),
    (["x", "<=", "1.0"], "threshold of condition .* must be a finite number"),
    (["x", ">", True], "threshold of condition .* must be a finite number"),
    (["x", "<=", math.nan], "threshold of condition .* must be a finite number"),
    (["x", "<=", math.inf], "threshold of condition .* must be a finite number"),
    (["x", "<=", None], "threshold of condition .* must be a finite number"),
    (["c", "==", 1], "category of condition .* must be a string"),
    (["c", "!=", None], "category of condition .* must be a string"),
])
def test_from_json_rejects_malformed_items(item, problem):
    """from_json rejects anything but [str, operator, finite number or string]."""
    with pytest.raises(ValueError, match=problem):
        Proposition.from_json(item)


# --- properties ----------------------------------------------------------------------------

cells = st.one_of(st.integers(-3, 3).map(float),
                  st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
                  st.just(NAN))


@st.composite
def matrices(draw):
    n = draw(st.integers(1, 12))
    d = draw(st.integers(1, 3))
    rows = draw(st.lists(st.lists(cells, min_size=d, max_size=d), min_size=n, max_size=n))
    return np.array(rows, dtype=float)


@given(matrices(), threshold_specs, st.randoms(use_true_random=False))
def test_extents_match_direct_numpy_evaluation(X, spec, random):
    """Extents are the numpy comparisons, thresholds lie in [min, max), the order is the
    documented one, and shuffling rows permutes the extents only."""
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
    order = list(range(len(X)))
    random.shuffle(order)
    shuffled = make_propositions(X[order], thresholds=spec)
    assert shuffled.names == ps.names
    assert np.array_equal(bits(shuffled), b[:, order])
