"""The shared problem model: bitsets, datasets, rule lists, exact scores, parameters."""

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, strategies as st

from optrules.data import bitset
from optrules.data.binary_dataset import BinaryDataset
from optrules.rule_lists.equivalent_points import check_minority, minority_bits
from optrules.validation import parse_fraction
from optrules.rule_lists.fit import fit_rule_list
from optrules.rule_lists.model import Rule, RuleList, score


@given(st.lists(st.booleans(), min_size=1, max_size=300))
def test_bitset_round_trips(bits):
    words = bitset.pack(bits)
    assert words.dtype == np.uint64 and words.size == bitset.n_words(len(bits))
    assert list(bitset.unpack(words, len(bits))) == bits
    assert bitset.popcount(words) == sum(bits)
    as_int = bitset.to_int(words)
    assert as_int == sum(1 << i for i, b in enumerate(bits) if b)
    assert np.array_equal(bitset.from_int(as_int, len(bits)), words)


def test_bitset_from_int_rejects_bits_past_n_samples():
    with pytest.raises(ValueError, match="beyond sample 3"):
        bitset.from_int(1 << 4, 4)


def test_dataset_validation_messages():
    with pytest.raises(ValueError, match=r"expected \(2, 3\)"):
        BinaryDataset.from_bits(["a", "b"], [[1, 0, 1]], [1, 0, 1])
    with pytest.raises(ValueError, match="duplicate antecedent name 'a'"):
        BinaryDataset.from_bits(["a", "a"], [[1, 0], [0, 1]], [1, 0])
    with pytest.raises(ValueError, match="two or more distinct values"):
        BinaryDataset.from_bits(["a"], [[1, 0]], [1, 0], classes=("x", "x"))
    with pytest.raises(ValueError, match="antecedent 1 has an empty name"):
        BinaryDataset.from_bits(["a", ""], [[1, 0], [0, 1]], [1, 0])


def test_dataset_names_may_hold_any_character():
    names = ["mean radius:<=17.38", "a b,c:{d}"]
    data = BinaryDataset.from_bits(names, [[1, 0], [0, 1]], [1, 0])
    assert data.antecedent_names == tuple(names)


def example_rule_list():
    return RuleList((Rule("a", "Yes"), Rule("b", "No")), "Yes", target="t",
                    classes=("No", "Yes"))


def test_rule_list_prints_if_elif_else():
    assert str(example_rule_list()) == "if {a} then Yes\nelif {b} then No\nelse Yes"
    assert str(RuleList((), "No", "t", ("No", "Yes"))) == "always No"


def test_rule_list_dict_round_trip():
    rule_list = example_rule_list()
    assert RuleList.from_dict(json.loads(json.dumps(rule_list.to_dict()))) == rule_list
    assert rule_list.to_dict()["rules"][0] == {"antecedent": "a", "conditions": None,
                                               "prediction": "Yes", "class_counts": None}


def test_rule_list_dict_errors():
    with pytest.raises(ValueError, match="lacks the field 'classes'"):
        RuleList.from_dict({"rules": []})
    bad = example_rule_list().to_dict()
    bad["default"] = "Maybe"
    with pytest.raises(ValueError, match="'Maybe' is not one of"):
        RuleList.from_dict(bad)
    del bad["rules"]
    with pytest.raises(ValueError, match="rules"):
        RuleList.from_dict(bad)
    with pytest.raises(ValueError, match="two or more distinct strings or numbers"):
        RuleList.from_dict(dict(example_rule_list().to_dict(), classes=["Yes", "Yes"]))
    with pytest.raises(ValueError, match=r"default_counts\[1\] must be a non-negative integer"):
        RuleList.from_dict(dict(example_rule_list().to_dict(), default_counts=[1, -1]))


def test_predict_and_exact_score():
    data = BinaryDataset.from_bits(["a", "b"], [[1, 1, 0, 0, 0], [1, 0, 1, 1, 0]],
                                   [1, 0, 0, 1, 1], classes=("No", "Yes"))
    rule_list = example_rule_list()
    assert list(rule_list.predict(data)) == ["Yes", "Yes", "No", "No", "Yes"]
    result = score(rule_list, data, Fraction(1, 10))
    assert result.mistakes == 2 and result.objective == Fraction(2, 5) + Fraction(2, 10)
    with pytest.raises(ValueError, match="no antecedent named 'c'"):
        RuleList((Rule("c", "Yes"),), "No", "t", ("No", "Yes")).predict(data)


@pytest.mark.parametrize("given_value, exact", [("0.01", Fraction(1, 100)), ("1/100", Fraction(1, 100)),
                                         (0.01, Fraction(1, 100)), (Fraction(3, 7), Fraction(3, 7))])
def test_parse_fraction_is_exact(given_value, exact):
    assert parse_fraction("lam", given_value, low=0, high=1, function="f") == exact


@pytest.mark.parametrize("bad, error, message", [
    ("abc", ValueError, "must be a number like"), (0, ValueError, r"in \(0, 1\)"),
    ("1", ValueError, r"in \(0, 1\)"), (True, TypeError, "must be a fraction"),
    (float("nan"), ValueError, "finite"), ([0.1], TypeError, "must be a fraction")])
def test_parse_fraction_errors(bad, error, message):
    with pytest.raises(error, match=message):
        parse_fraction("lam", bad, low=0, high=1, function="fit_rule_list")


@pytest.mark.parametrize("options, error, message", [
    ({"engine": "turbo"}, ValueError,
     r"'engine' parameter of fit_rule_list must be one of \['reference', 'fast'\]"),
    ({"policy": "random"}, ValueError, "'policy' parameter"),
    ({"symmetry_map": 3}, TypeError, "'symmetry_map' parameter"),
    ({"disabled_bounds": ["nonsense"]}, ValueError, "unknown items \\['nonsense'\\]"),
    ({"max_nodes": 0}, ValueError, "'max_nodes' parameter of fit_rule_list must be a "
                                   "positive integer"),
    ({"time_limit": "1"}, TypeError, "'time_limit' parameter")])
def test_fit_rule_list_parameter_errors(options, error, message):
    data = BinaryDataset.from_bits(["a"], [[1, 0]], [1, 0])
    with pytest.raises(error, match=message):
        fit_rule_list(data, "0.1", **options)


def test_fit_rule_list_rejects_non_dataset():
    with pytest.raises(TypeError, match="must be a BinaryDataset. Got list"):
        fit_rule_list([[1, 0]], "0.1")


@given(st.integers(1, 6), st.integers(1, 40), st.randoms(use_true_random=False))
def test_minority_bits_count_minorities_of_identical_rows(n_antecedents, n_samples, rnd):
    bits = [[rnd.random() < 0.5 for _ in range(n_samples)] for _ in range(n_antecedents)]
    labels = [rnd.random() < 0.5 for _ in range(n_samples)]
    data = BinaryDataset.from_bits([f"a{m}" for m in range(n_antecedents)], bits, labels)
    minority = minority_bits(data)
    groups = {}
    for n in range(n_samples):
        groups.setdefault(tuple(row[n] for row in bits), []).append(labels[n])
    assert minority.sum() == sum(min(sum(g), len(g) - sum(g)) for g in groups.values())
    check_minority(data, minority)  # sound by construction


def test_unsound_minority_file_is_rejected():
    data = BinaryDataset.from_bits(["a"], [[1, 1, 0, 0]], [1, 0, 0, 0])
    with pytest.raises(ValueError, match="mark 2 samples in the equivalence class of sample 1"):
        fit_rule_list(data.with_minority([1, 1, 0, 0]), "0.1")
    weaker = fit_rule_list(data.with_minority([0, 0, 0, 0]), "0.1")  # sound, just weaker
    assert weaker.objective == fit_rule_list(data, "0.1").objective
    # Sound by count (one minority sample of two) but not by weight: sample 1 weighs 5/2 and
    # is then the majority, so marking it claims 5/2 mistakes where only 1/3 is certain.
    marked = data.with_minority([1, 0, 0, 0])
    fit_rule_list(marked, "0.1")
    with pytest.raises(ValueError, match="mark 5/2 of weight in the equivalence class of "
                                         "sample 1, which has only 1/3 outside"):
        fit_rule_list(marked, "0.1", sample_weight=["5/2", "1/3", 1, 1])


@given(st.lists(st.booleans(), max_size=300))
def test_int_bitset_members_round_trip(bits):
    value = sum(1 << i for i, bit in enumerate(bits) if bit)
    members = bitset.int_members(value)
    assert members == [i for i, bit in enumerate(bits) if bit]
    assert bitset.int_from_members(members, max(len(bits), 1)) == value
