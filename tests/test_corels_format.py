"""Error messages and round trip of the CORELS text formats (optrules.data.corels_files)."""

import re

import numpy as np
import pytest

from optrules.data.corels_files import (CorelsFormatError, load_corels, read_label, read_minor,
                                    read_out, save_corels, write_label, write_minor, write_out)
from optrules.data.binary_dataset import BinaryDataset
from optrules.rule_lists.equivalent_points import minority_bits

GOOD_OUT = "{a:x} 0 1 1 0\n{b:y} 1 1 0 0\n"
GOOD_LABEL = "{y:No} 1 0 1 0\n{y:Yes} 0 1 0 1\n"


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _where(path, line=None):
    """Regex for the message prefix naming the file (and the line)."""
    return "^" + re.escape(str(path) if line is None else f"{path}, line {line}")


# --- bad tokens and line lengths ----------------------------------------------------------

@pytest.mark.parametrize("token", ["2", "x", "-1", "01"])
def test_out_token_not_0_or_1(tmp_path, token):
    path = _write(tmp_path, "bad.out", f"{{a:x}} 0 1 1 0\n{{b:y}} 1 {token} 0 0\n")
    with pytest.raises(CorelsFormatError,
                       match=_where(path, 2) + re.escape(f": token 2 is '{token}'; every sample "
                                                         "must be 0 or 1.")):
        read_out(path)


def test_label_token_not_0_or_1(tmp_path):
    path = _write(tmp_path, "bad.label", "{y:No} 1 0 1 0\n{y:Yes} 0 1 0 x\n")
    with pytest.raises(CorelsFormatError, match=_where(path, 2) + ": token 4 is 'x'"):
        read_label(path)


def test_out_line_with_wrong_number_of_samples(tmp_path):
    path = _write(tmp_path, "short.out", "{a:x} 0 1 1 0\n{b:y} 1 1 0 0\n{c:z} 1 0 1\n")
    with pytest.raises(CorelsFormatError,
                       match=_where(path, 3) + re.escape(": {c:z} has 3 samples but line 1 "
                                                         "has 4.")):
        read_out(path)


def test_line_without_sample_bits(tmp_path):
    path = _write(tmp_path, "nobits.out", "{a:x}\n")
    with pytest.raises(CorelsFormatError, match=_where(path, 1) + re.escape(": {a:x} has no "
                                                                            "sample bits.")):
        read_out(path)


# --- sample counts disagree between files -------------------------------------------------

def test_label_sample_count_differs_from_out(tmp_path):
    out = _write(tmp_path, "d.out", "{a:x} 0 1 1 0 1 0\n")
    label = _write(tmp_path, "d.label", "{y:No} 1 0 1 0 1\n{y:Yes} 0 1 0 1 0\n")
    expected = (f"{label}: label file has 5 samples but the antecedent file {out} has 6.")
    with pytest.raises(CorelsFormatError, match="^" + re.escape(expected) + "$"):
        load_corels(out, label)


def test_minor_sample_count_differs_from_out(tmp_path):
    out = _write(tmp_path, "d.out", GOOD_OUT)
    label = _write(tmp_path, "d.label", GOOD_LABEL)
    minor = _write(tmp_path, "d.minor", "{group_minority} 0 0 1 0 0\n")
    expected = f"{minor}: minority file has 5 samples but the antecedent file {out} has 4."
    with pytest.raises(CorelsFormatError, match="^" + re.escape(expected) + "$"):
        load_corels(out, label, minor)


# --- names --------------------------------------------------------------------------------

def test_duplicate_antecedent_names_name_both_lines(tmp_path):
    path = _write(tmp_path, "dup.out", "{a:x} 0 1\n{b:y} 1 1\n{a:x} 1 0\n")
    with pytest.raises(CorelsFormatError,
                       match=_where(path, 3) + re.escape(": duplicate antecedent name {a:x} "
                                                         "(first on line 1).")):
        read_out(path)


@pytest.mark.parametrize("name", ["a:x", "{a:x", "a:x}", "{}"])
def test_name_not_in_braces(tmp_path, name):
    path = _write(tmp_path, "nobrace.out", f"{{a:y}} 0 1\n{name} 0 1\n")
    with pytest.raises(CorelsFormatError,
                       match=_where(path, 2) + re.escape(": expected a name in braces like "
                                                         f"'{{feature:value}}' first; got "
                                                         f"{name!r}.")):
        read_out(path)


def test_brace_inside_name(tmp_path):
    # Used to escape as a plain ValueError from BinaryDataset without file or line.
    out = _write(tmp_path, "inner.out", "{a:x} 0 1 1 0\n{a{b} 1 1 0 0\n")
    label = _write(tmp_path, "inner.label", GOOD_LABEL)
    with pytest.raises(CorelsFormatError,
                       match=_where(out, 2) + re.escape(": name '{a{b}' contains a brace")):
        load_corels(out, label)


# --- label files --------------------------------------------------------------------------

def test_label_file_of_one_line(tmp_path):
    path = _write(tmp_path, "n.label", "{y:c0} 1 1\n")
    with pytest.raises(CorelsFormatError,
                       match=_where(path) + re.escape(": a label file has one line per class, "
                                                      "at least 2 (in class order; for two "
                                                      "classes the negative, then the positive "
                                                      "class); found 1.") + "$"):
        read_label(path)


def test_label_file_of_two_lines_reads_negative_then_positive(tmp_path):
    path = _write(tmp_path, "two.label", GOOD_LABEL)
    target, classes, labels = read_label(path)
    assert (target, classes) == ("y", ("No", "Yes"))
    assert labels.dtype == np.int64 and labels.tolist() == [0, 1, 0, 1]


def test_label_file_of_three_lines_gives_class_indices_in_line_order(tmp_path):
    path = _write(tmp_path, "three.label", "{y:b} 1 0 0 0\n{y:a} 0 0 1 1\n{y:c} 0 1 0 0\n")
    target, classes, labels = read_label(path)
    assert (target, classes) == ("y", ("b", "a", "c"))     # line order, not sorted
    assert labels.dtype == np.int64 and labels.tolist() == [0, 2, 1, 1]


def test_label_lines_of_different_targets(tmp_path):
    path = _write(tmp_path, "t.label", "{y:No} 1 0 0\n{y:Maybe} 0 1 0\n{z:Yes} 0 0 1\n")
    with pytest.raises(CorelsFormatError,
                       match=_where(path, 3) + re.escape(": label name {z:Yes} names the target "
                                                         "'z', but line 1 names 'y'; every line "
                                                         "names a class of one target.")):
        read_label(path)


@pytest.mark.parametrize("text, line, first", [
    ("{y:Yes} 1 0\n{y:Yes} 0 1\n", 2, 1),
    ("{y:a} 1 0 0\n{y:b} 0 1 0\n{y:a} 0 0 1\n", 3, 1),
])
def test_label_lines_of_the_same_class(tmp_path, text, line, first):
    path = _write(tmp_path, "t.label", text)
    value = text.split("\n")[line - 1].split()[0][3:-1]
    with pytest.raises(CorelsFormatError,
                       match=_where(path, line) + re.escape(f": the class {value!r} is also on "
                                                            f"line {first}; every line names "
                                                            "another class.")):
        read_label(path)


def test_label_name_without_class(tmp_path):
    path = _write(tmp_path, "t.label", "{y:No} 1 0\n{yes} 0 1\n")
    with pytest.raises(CorelsFormatError,
                       match=_where(path, 2) + re.escape(": label name {yes} must look like "
                                                         "{target:class}.")):
        read_label(path)


def test_sample_with_both_label_bits(tmp_path):
    path = _write(tmp_path, "both.label", "{y:No} 1 1 0 1\n{y:Yes} 0 1 1 1\n")
    with pytest.raises(CorelsFormatError,
                       match=_where(path) + re.escape(": sample 2 has its label bit set on "
                                                      "lines 1 and 2 (2 samples with no label "
                                                      "or several); each sample has exactly "
                                                      "one label.") + "$"):
        read_label(path)


def test_sample_with_neither_label_bit(tmp_path):
    path = _write(tmp_path, "neither.label", "{y:No} 1 0 0\n{y:Yes} 0 1 0\n")
    with pytest.raises(CorelsFormatError,
                       match=_where(path) + re.escape(": sample 3 has its label bit set on no "
                                                      "line (1 sample with no label or "
                                                      "several)")):
        read_label(path)


@pytest.mark.parametrize("text, message", [
    ("{y:a} 1 0 0 1\n{y:b} 0 1 0 0\n{y:c} 0 0 0 0\n",
     "sample 3 has its label bit set on no line (1 sample"),
    ("{y:a} 1 0 0 0\n{y:b} 0 1 1 0\n{y:c} 0 0 1 1\n",
     "sample 3 has its label bit set on lines 2 and 3 (1 sample"),
    ("{y:a} 1 1 0 0\n{y:b} 0 1 1 0\n{y:c} 0 1 0 1\n",
     "sample 2 has its label bit set on lines 1, 2 and 3 (1 sample"),
    ("{y:a} 0 0 0 0\n{y:b} 1 1 0 1\n{y:c} 0 0 0 1\n",
     "sample 3 has its label bit set on no line (2 samples"),
])
def test_three_class_sample_in_no_line_or_in_several(tmp_path, text, message):
    path = _write(tmp_path, "c.label", text)
    with pytest.raises(CorelsFormatError, match=_where(path) + ": " + re.escape(message)):
        read_label(path)


# --- minor files --------------------------------------------------------------------------

def test_minor_file_with_2_lines(tmp_path):
    path = _write(tmp_path, "two.minor", "{group_minority} 0 1\n{other} 1 0\n")
    with pytest.raises(CorelsFormatError,
                       match=_where(path) + re.escape(": a minority file has exactly 1 line; "
                                                      "found 2.")):
        read_minor(path)


# --- missing, empty, blank lines ----------------------------------------------------------

@pytest.mark.parametrize("reader", [read_out, read_label, read_minor])
def test_missing_file(tmp_path, reader):
    path = tmp_path / "absent.out"
    with pytest.raises(CorelsFormatError,
                       match=_where(path) + re.escape(": cannot read file (No such file or "
                                                      "directory).")):
        reader(path)


def test_missing_label_file_through_load_corels(tmp_path):
    out = _write(tmp_path, "d.out", GOOD_OUT)
    with pytest.raises(CorelsFormatError, match=_where(tmp_path / "d.label") + ": cannot read"):
        load_corels(out, tmp_path / "d.label")


@pytest.mark.parametrize("reader", [read_out, read_label, read_minor])
def test_empty_file(tmp_path, reader):
    path = _write(tmp_path, "empty.out", "")
    with pytest.raises(CorelsFormatError, match=_where(path) + re.escape(": file is empty.")):
        reader(path)


def test_file_of_one_newline(tmp_path):
    path = _write(tmp_path, "newline.out", "\n")
    with pytest.raises(CorelsFormatError, match=_where(path, 1) + re.escape(": line is empty.")):
        read_out(path)


def test_not_utf8(tmp_path):
    path = tmp_path / "binary.out"
    path.write_bytes(b"{a:x} 0 1\n\xff\xfe\n")
    with pytest.raises(CorelsFormatError, match=_where(path) + ": not a UTF-8 text file."):
        read_out(path)


def test_blank_line_in_the_middle(tmp_path):
    path = _write(tmp_path, "blank.out", "{a:x} 0 1\n\n{b:y} 1 0\n")
    with pytest.raises(CorelsFormatError, match=_where(path, 2) + re.escape(": line is empty.")):
        read_out(path)


def test_whitespace_only_line(tmp_path):
    path = _write(tmp_path, "blank.out", "{a:x} 0 1\n{b:y} 1 0\n   \n")
    with pytest.raises(CorelsFormatError, match=_where(path, 3) + ": line is empty."):
        read_out(path)


def test_corels_format_error_is_a_value_error():
    assert issubclass(CorelsFormatError, ValueError)


# --- writing ------------------------------------------------------------------------------

def test_written_text_has_the_exact_format(tmp_path):
    out, label, minor = tmp_path / "t.out", tmp_path / "t.label", tmp_path / "t.minor"
    write_out(out, ["a:x", "b:>1.5,c:z"], np.array([[0, 1, 1], [1, 0, 0]], dtype=bool))
    write_label(label, "y", ("No", "Yes"), np.array([True, False, True]))
    write_minor(minor, np.array([False, False, True]))
    assert out.read_text(encoding="utf-8") == "{a:x} 0 1 1\n{b:>1.5,c:z} 1 0 0\n"
    assert label.read_text(encoding="utf-8") == "{y:No} 0 1 0\n{y:Yes} 1 0 1\n"
    assert minor.read_text(encoding="utf-8") == "{group_minority} 0 0 1\n"


def test_round_trip_of_a_random_dataset(tmp_path):
    rng = np.random.default_rng(20240531)
    n_antecedents, n_samples = 7, 131  # more than two 64-bit words
    names = [f"f{m}:v{m % 3}" + (",g:>0.5" if m % 2 else "") for m in range(n_antecedents)]
    bits = rng.random((n_antecedents, n_samples)) < 0.4
    labels = rng.random(n_samples) < 0.5
    dataset = BinaryDataset.from_bits(names, bits, labels, target="risk",
                                      classes=("low", "high"))
    dataset = dataset.with_minority(minority_bits(dataset))
    paths = tmp_path / "r.out", tmp_path / "r.label", tmp_path / "r.minor"
    save_corels(dataset, *paths)
    loaded = load_corels(*paths)
    assert loaded.antecedent_names == tuple(names)
    np.testing.assert_array_equal(loaded.antecedent_bits(), bits)
    np.testing.assert_array_equal(loaded.labels, labels)
    assert loaded.target == "risk"
    assert loaded.classes == ("low", "high")
    np.testing.assert_array_equal(loaded.minority, dataset.minority)
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
            assert re.fullmatch(r"\{[^{}\s]+\}( [01])+\n", line), (path, line)


def test_save_minor_without_minority(tmp_path):
    dataset = BinaryDataset.from_bits(["a:x"], [[True, False]], [True, False])
    with pytest.raises(ValueError, match="no equivalent-points minority to write"):
        save_corels(dataset, tmp_path / "m.out", tmp_path / "m.label", tmp_path / "m.minor")


def test_round_trip_of_three_classes(tmp_path):
    rng = np.random.default_rng(7)
    bits = rng.random((4, 70)) < 0.5
    labels = rng.integers(0, 3, 70)
    dataset = BinaryDataset.from_bits([f"f:{m}" for m in range(4)], bits, labels, target="t",
                                      classes=("low", "mid", "high"))
    out, label = tmp_path / "c.out", tmp_path / "c.label"
    save_corels(dataset, out, label)
    assert [line.split()[0] for line in label.read_text().splitlines()] == \
        ["{t:low}", "{t:mid}", "{t:high}"]
    loaded = load_corels(out, label)
    assert loaded.classes == ("low", "mid", "high") and loaded.n_classes == 3
    np.testing.assert_array_equal(loaded.labels, labels)
    np.testing.assert_array_equal(loaded.antecedent_bits(), bits)


def test_write_label_takes_bool_or_class_indices(tmp_path):
    path = tmp_path / "w.label"
    write_label(path, "y", ("n", "p"), [True, False, True])
    assert path.read_text() == "{y:n} 0 1 0\n{y:p} 1 0 1\n"
    write_label(path, "y", ("a", "b", "c"), np.array([2, 0, 1]))
    assert path.read_text() == "{y:a} 0 1 0\n{y:b} 0 0 1\n{y:c} 1 0 0\n"


@pytest.mark.parametrize("classes, labels, message", [
    (("a", "b"), [0, 2], "sample 2 has label 2, which is not a class index 0..1 of ('a', 'b')."),
    (("a", "b", "c"), [0, -1], "sample 2 has label -1, which is not a class index 0..2"),
    (("a",), [0, 0], "a label file needs two or more classes; got ('a',)."),
])
def test_write_label_refuses_labels_that_are_not_class_indices(tmp_path, classes, labels,
                                                               message):
    path = tmp_path / "w.label"
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        write_label(path, "y", classes, labels)
    assert not path.exists()
