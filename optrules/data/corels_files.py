"""Read and write the CORELS text formats: ``.out`` (antecedents), ``.label``, ``.minor``.

Every line is ``{name}`` followed by one space-separated bit per sample, for example::

    {sex:Male,juvenile-crimes:>0} 0 1 1 0 ...

* ``.out``: one line per antecedent; names distinct.
* ``.label``: one line per class, C >= 2 lines ``{target:class}`` in class order (for two
  classes ``{target:negative}`` then ``{target:positive}``, as CORELS writes them); every
  sample has its bit set on exactly one line.
* ``.minor``: exactly one line (conventionally ``{group_minority}``) marking the rows whose label
  is the minority label among rows with an identical antecedent vector (Angelino et al. 2018,
  §3.14, Thm 22).

Reading is strict: a bad token, a line of the wrong length, mismatched sample counts between
files, a duplicate name, fewer than two label lines or a sample with no or several labels raise :class:`CorelsFormatError`
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
    """Read a ``.label`` file: C >= 2 lines ``{target:class}``, one per class, in class order.

    Returns
    -------
    target : str
        The label feature's name (the text before the last ``:``, the same on every line).
    class_names : tuple of C str
        The classes in line order (for two lines: negative, then positive).
    labels : ndarray of int64, shape (N,)
        The class index of each sample: the line (0-based) whose bit is set.

    Raises
    ------
    CorelsFormatError
        Naming the file (and the line): fewer than two lines, a name that is not
        ``{target:class}``, lines of different targets or of the same class, a sample with its
        bit set on no line or on several (naming the sample, 1-based, and the lines), or any
        fault of the line format.
    """
    parsed = list(_parse_lines(path))
    if len(parsed) < 2:
        raise CorelsFormatError(f"{path}: a label file has one line per class, at least 2 (in "
                                "class order; for two classes the negative, then the positive "
                                f"class); found {len(parsed)}.")
    target, class_names, first_line = None, [], {}
    for number, name, _ in parsed:
        where = f"{path}, line {number}"
        line_target, sep, value = name.rpartition(":")
        if not sep or not line_target or not value:
            raise CorelsFormatError(f"{where}: label name {{{name}}} must look like "
                                    "{target:class}.")
        if target is None:
            target = line_target
        elif line_target != target:
            raise CorelsFormatError(f"{where}: label name {{{name}}} names the target "
                                    f"{line_target!r}, but line 1 names {target!r}; every line "
                                    "names a class of one target.")
        if value in first_line:
            raise CorelsFormatError(f"{where}: the class {value!r} is also on line "
                                    f"{first_line[value]}; every line names another class.")
        first_line[value] = number
        class_names.append(value)
    bits = np.array([line_bits for _, _, line_bits in parsed])       # (C, N)
    per_sample = bits.sum(axis=0)
    conflict = np.flatnonzero(per_sample != 1)
    if conflict.size:
        n = int(conflict[0])
        lines = [str(c + 1) for c in np.flatnonzero(bits[:, n])]
        which = ("no line" if not lines else
                 f"lines {', '.join(lines[:-1])} and {lines[-1]}")
        raise CorelsFormatError(
            f"{path}: sample {n + 1} has its label bit set on {which} ({conflict.size} "
            f"sample{'s' if conflict.size != 1 else ''} with no label or several); each sample "
            "has exactly one label.")
    return target, tuple(class_names), np.argmax(bits, axis=0).astype(np.int64)


def read_minor(path):
    """Read a ``.minor`` file; returns the minority bits, bool of shape (N,)."""
    parsed = list(_parse_lines(path))
    if len(parsed) != 1:
        raise CorelsFormatError(f"{path}: a minority file has exactly 1 line; "
                                f"found {len(parsed)}.")
    return parsed[0][2]


def load_corels(out_path, label_path, minor_path=None):
    """Load ``.out`` + ``.label`` (+ optional ``.minor``) into a :class:`BinaryDataset` whose
    classes are the label file's, in line order.

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
    """Write labels as a ``.label`` file of one line per class, in the order of ``classes``.

    Parameters
    ----------
    path : str or Path
    target : str
    classes : sequence of C >= 2 class values
    labels : array-like of int (class indices 0..C-1) or bool (True = ``classes[1]``), (N,)

    Raises
    ------
    ValueError
        If there are fewer than two classes or a label is not a class index (nothing is
        written then); :class:`CorelsFormatError` for a name the format cannot hold.
    """
    classes = tuple(classes)
    labels = np.asarray(labels)
    labels = labels.astype(np.int64) if labels.dtype == bool else labels
    if len(classes) < 2:
        raise ValueError(f"a label file needs two or more classes; got {classes}.")
    bad = [n for n, label in enumerate(labels.tolist())
           if isinstance(label, bool) or not isinstance(label, int)
           or not 0 <= label < len(classes)]
    if bad:
        raise ValueError(f"sample {bad[0] + 1} has label {labels.tolist()[bad[0]]!r}, which is "
                         f"not a class index 0..{len(classes) - 1} of {classes}.")
    text = "".join(_format_line(f"{target}:{value}", labels == c)
                   for c, value in enumerate(classes))
    Path(path).write_text(text, encoding="utf-8")


def write_minor(path, minority):
    """Write the equivalent-points minority bits as a one-line ``.minor`` file."""
    Path(path).write_text(_format_line("group_minority", np.asarray(minority, dtype=bool)),
                          encoding="utf-8")


def save_corels(dataset, out_path, label_path, minor_path=None):
    """Write a :class:`BinaryDataset` in CORELS formats: antecedents, one label line per class
    (``.minor`` only if asked, and then the dataset must have one). Sample weights have no
    place in these formats and are not written."""
    write_out(out_path, dataset.antecedent_names, dataset.antecedent_bits())
    write_label(label_path, dataset.target, dataset.classes, dataset.labels)
    if minor_path is not None:
        if dataset.minority is None:
            raise ValueError("the dataset has no equivalent-points minority to write; compute "
                             "it with optrules.rule_lists.equivalent_points.minority_bits first.")
        write_minor(minor_path, bitset.unpack(dataset.minority, dataset.n_samples))
