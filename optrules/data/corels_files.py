"""Read and write the CORELS text formats: ``.out`` (antecedents), ``.label``, ``.minor``.

Every line is ``{name}`` followed by one space-separated bit per sample, for example::

    {sex:Male,juvenile-crimes:>0} 0 1 1 0 ...

* ``.out``: one line per antecedent; names distinct.
* ``.label``: exactly two lines, ``{target:negative}`` then ``{target:positive}``; every
  sample has exactly one of the two bits set.
* ``.minor``: exactly one line (conventionally ``{group_minority}``) marking the rows whose label
  is the minority label among rows with an identical antecedent vector (Angelino et al. 2018,
  §3.14, Thm 22).

Reading is strict: a bad token, a line of the wrong length, mismatched sample counts between
files, a duplicate name or the wrong number of label lines raise :class:`CorelsFormatError`
naming the file, the line and the problem. Nothing is skipped silently.
"""

from pathlib import Path

import numpy as np

from optrules.data import bitset
from optrules.data.binary_dataset import BinaryDataset

__all__ = ["CorelsFormatError", "read_out", "read_label", "read_minor", "load_corels",
           "write_out", "write_label", "write_minor", "save_corels"]


class CorelsFormatError(ValueError):
    """A CORELS text file is malformed; the message names the file and line."""


def _parse_lines(path):
    """Yield ``(line_number, name, bits)`` for each line of a CORELS file, validated."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # tolerate a byte-order mark
    except OSError as error:
        raise CorelsFormatError(f"{path}: cannot read file ({error.strerror}).") from error
    except UnicodeDecodeError as error:
        raise CorelsFormatError(f"{path}: not a UTF-8 text file.") from error
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline
    if not lines:
        raise CorelsFormatError(f"{path}: file is empty.")
    first_length = None
    for number, line in enumerate(lines, start=1):
        where = f"{path}, line {number}"
        tokens = line.split()
        if not tokens:
            raise CorelsFormatError(f"{where}: line is empty.")
        name = tokens[0]
        if not (name.startswith("{") and name.endswith("}")) or len(name) < 3:
            raise CorelsFormatError(
                f"{where}: expected a name in braces like '{{feature:value}}' first; got {name!r}.")
        if "{" in name[1:-1] or "}" in name[1:-1]:
            raise CorelsFormatError(f"{where}: name {name!r} contains a brace inside the braces.")
        bits = tokens[1:]
        if not set(bits) <= {"0", "1"}:
            position, token = next((i, t) for i, t in enumerate(bits, 1) if t not in ("0", "1"))
            raise CorelsFormatError(
                f"{where}: token {position} is {token!r}; every sample must be 0 or 1.")
        if not bits:
            raise CorelsFormatError(f"{where}: {name} has no sample bits.")
        if first_length is None:
            first_length = len(bits)
        elif len(bits) != first_length:
            raise CorelsFormatError(
                f"{where}: {name} has {len(bits)} samples but line 1 has {first_length}.")
        yield number, name[1:-1], np.array(bits) == "1"


def read_out(path):
    """Read a ``.out`` antecedent file.

    Returns
    -------
    names : list of str
        Antecedent names without braces.
    bits : ndarray of bool, shape (M, N)
    """
    names, rows, first_line = [], [], {}
    for number, name, bits in _parse_lines(path):
        if name in first_line:
            raise CorelsFormatError(f"{path}, line {number}: duplicate antecedent name "
                                    f"{{{name}}} (first on line {first_line[name]}).")
        first_line[name] = number
        names.append(name)
        rows.append(bits)
    return names, np.array(rows, dtype=bool)


def read_label(path):
    """Read a ``.label`` file.

    Returns
    -------
    target : str
        The label feature's name.
    class_names : (str, str)
        Negative class (first line), positive class (second line).
    labels : ndarray of bool, shape (N,)
        True where the sample has the positive class.
    """
    parsed = list(_parse_lines(path))
    if len(parsed) != 2:
        raise CorelsFormatError(f"{path}: a label file has exactly 2 lines (negative class, "
                                f"then positive class); found {len(parsed)}.")
    (_, negative_name, negative), (_, positive_name, positive) = parsed
    targets, class_names = [], []
    for number, name in ((1, negative_name), (2, positive_name)):
        target, sep, value = name.rpartition(":")
        if not sep or not target or not value:
            raise CorelsFormatError(f"{path}, line {number}: label name {{{name}}} must look "
                                    "like {target:class}.")
        targets.append(target)
        class_names.append(value)
    if targets[0] != targets[1] or class_names[0] == class_names[1]:
        raise CorelsFormatError(f"{path}: the two lines must name two classes of one target; "
                                f"got {{{negative_name}}} and {{{positive_name}}}.")
    conflict = np.flatnonzero(negative == positive)
    if conflict.size:
        which = "both label bits" if positive[conflict[0]] else "neither label bit"
        raise CorelsFormatError(
            f"{path}: sample {conflict[0] + 1} has {which} set ({conflict.size} such samples); "
            "each sample has exactly one label.")
    return targets[0], (class_names[0], class_names[1]), positive


def read_minor(path):
    """Read a ``.minor`` file; returns the minority bits, bool of shape (N,)."""
    parsed = list(_parse_lines(path))
    if len(parsed) != 1:
        raise CorelsFormatError(f"{path}: a minority file has exactly 1 line; "
                                f"found {len(parsed)}.")
    return parsed[0][2]


def load_corels(out_path, label_path, minor_path=None):
    """Load ``.out`` + ``.label`` (+ optional ``.minor``) into a :class:`BinaryDataset`.

    Raises
    ------
    CorelsFormatError
        If any file is malformed or the files disagree on the number of samples.
    """
    names, bits = read_out(out_path)
    target, class_names, labels = read_label(label_path)
    _check_same_samples("label", label_path, labels.size, out_path, bits.shape[1])
    minority = None
    if minor_path is not None:
        minority = read_minor(minor_path)
        _check_same_samples("minority", minor_path, minority.size, out_path, bits.shape[1])
    return BinaryDataset.from_bits(names, bits, labels, target=target, classes=class_names,
                                   minority_bits=minority)


def _check_same_samples(kind, path, n_samples, reference_path, reference_samples):
    if n_samples != reference_samples:
        raise CorelsFormatError(f"{path}: {kind} file has {n_samples} samples but the "
                                f"antecedent file {reference_path} has {reference_samples}.")


def _format_line(name, bits):
    """One line ``{name} b b b``; the format has no escapes, so some names cannot be written."""
    if not name or any(ch.isspace() for ch in name) or "{" in name or "}" in name:
        raise CorelsFormatError(f"the name {name!r} cannot be written in the CORELS text format, "
                                "whose names are non-empty and have no whitespace or braces; "
                                "rename the column or value (the JSON model files take any "
                                "name).")
    return "{" + name + "} " + " ".join("1" if b else "0" for b in bits) + "\n"


def write_out(path, names, bits):
    """Write antecedents (names, bool matrix (M, N)) as a ``.out`` file.

    Raises
    ------
    CorelsFormatError
        If a name is empty or has whitespace or braces (nothing is written then).
    """
    text = "".join(_format_line(n, row) for n, row in zip(names, bits))
    Path(path).write_text(text, encoding="utf-8")


def write_label(path, target, classes, labels):
    """Write labels (bool, True = ``classes[1]``) as a two-line ``.label`` file."""
    labels = np.asarray(labels, dtype=bool)
    text = (_format_line(f"{target}:{classes[0]}", ~labels)
            + _format_line(f"{target}:{classes[1]}", labels))
    Path(path).write_text(text, encoding="utf-8")


def write_minor(path, minority):
    """Write the equivalent-points minority bits as a one-line ``.minor`` file."""
    Path(path).write_text(_format_line("group_minority", np.asarray(minority, dtype=bool)),
                          encoding="utf-8")


def save_corels(dataset, out_path, label_path, minor_path=None):
    """Write a :class:`BinaryDataset` in CORELS formats (``.minor`` only if it has one)."""
    write_out(out_path, dataset.antecedent_names, dataset.antecedent_bits())
    write_label(label_path, dataset.target, dataset.classes, dataset.label_bits())
    if minor_path is not None:
        if dataset.minority is None:
            raise ValueError("the dataset has no equivalent-points minority to write; compute "
                             "it with optrules.rule_lists.equivalent_points.minority_bits first.")
        write_minor(minor_path, bitset.unpack(dataset.minority, dataset.n_samples))
