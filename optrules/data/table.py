"""Tabular input: a CSV file or columns of strings, one binary target column.

A column whose every non-missing cell parses as a finite number is *numeric*; any other
column is *categorical*. An empty cell is missing. The target column must have exactly two
distinct non-missing values; ``0``/``1`` targets are named ``No``/``Yes`` as in the CORELS
label files, any other pair is ordered by string value (negative first) unless
``positive`` names the positive class.
"""

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["Table", "read_csv", "read_csv_columns", "table_from_columns"]

_RESERVED = (",", "{", "}")


@dataclass(frozen=True, eq=False)
class Table:
    """Feature columns of strings plus a binary label vector.

    Attributes
    ----------
    feature_names : tuple of str
    columns : tuple of tuple of str
        ``columns[j][n]`` is the raw cell of feature j in row n ("" = missing).
    numeric : tuple of bool
        Whether each feature column is numeric.
    target : str
    class_names : (str, str)
        ``(negative, positive)``.
    labels : ndarray of bool, shape (N,)
        True for the positive class.
    """

    feature_names: tuple
    columns: tuple
    numeric: tuple
    target: str
    class_names: tuple
    labels: np.ndarray

    @property
    def n_samples(self):
        return self.labels.size

    def column_values(self, j):
        """Numeric column j as float array with NaN for missing cells."""
        return np.array([float(cell) if cell != "" else math.nan for cell in self.columns[j]])


def read_csv_columns(path):
    """Read a CSV file with a header row into ``{column name: tuple of cell strings}``.

    Cells are stripped; an empty cell is missing. Raises ValueError naming the file (and the
    line, for a row with the wrong number of fields) when the file cannot be read, is empty,
    has no data rows, a ragged row or a duplicate column name.
    """
    path = Path(path)
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:  # tolerate a BOM
            reader = csv.reader(handle)
            # (line number where the row ends, row): a quoted cell may span several lines.
            numbered = [(reader.line_num, row) for row in reader]
    except OSError as error:
        raise ValueError(f"{path}: cannot read CSV file ({error.strerror}).") from error
    except (UnicodeDecodeError, csv.Error) as error:
        raise ValueError(f"{path}: not a readable UTF-8 CSV file ({error}).") from error
    if not numbered:
        raise ValueError(f"{path}: file is empty; expected a header row.")
    header = [name.strip() for name in numbered[0][1]]
    body = [row for _, row in numbered[1:]]
    if not body:
        raise ValueError(f"{path}: the file has a header but no data rows.")
    for number, row in numbered[1:]:
        if len(row) != len(header):
            raise ValueError(f"{path}, line {number}: {len(row)} fields but the header has "
                             f"{len(header)}.")
    columns = {name: tuple(row[j].strip() for row in body) for j, name in enumerate(header)}
    if len(columns) != len(header):
        duplicate = next(n for n in header if header.count(n) > 1)
        raise ValueError(f"{path}: duplicate column name {duplicate!r} in the header.")
    return columns


def read_csv(path, target, positive=None):
    """Read a CSV file with a header row into a :class:`Table`.

    Parameters
    ----------
    path : str or Path
    target : str
        Name of the label column.
    positive : str, optional
        The positive class value; by default ``1`` for 0/1 targets, else the larger value.

    Raises
    ------
    ValueError
        If the file cannot be read, is empty, lacks the target column, has a row with the
        wrong number of fields, or its target is not binary. Messages name file and line.
    """
    columns = read_csv_columns(path)
    try:
        return table_from_columns(columns, target, positive)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from error


def table_from_columns(columns, target, positive=None):
    """Build a :class:`Table` from a mapping ``name -> sequence of cells`` (strings or numbers).

    Raises
    ------
    ValueError
        Unknown target, ragged columns, non-binary or missing target values, or names and
        values that cannot be written as antecedents (they may not contain ``,``, braces or
        whitespace; feature names may not contain ``:``).
    """
    columns = {str(name): tuple("" if _is_missing(c) else str(c).strip() for c in cells)
               for name, cells in columns.items()}
    if target not in columns:
        raise ValueError(f"target column {target!r} not found; columns are {sorted(columns)}.")
    lengths = {len(cells) for cells in columns.values()}
    if len(lengths) != 1:
        raise ValueError(f"columns have different lengths: {sorted(lengths)}.")
    target_cells = columns.pop(target)
    missing = [n for n, cell in enumerate(target_cells) if cell == ""]
    if missing:
        raise ValueError(f"target column {target!r} is missing in {len(missing)} row(s) "
                         f"(first: data row {missing[0] + 1}).")
    negative_value, positive_value = _class_values(target, target_cells, positive)
    labels = np.array([cell == positive_value for cell in target_cells], dtype=bool)
    # CORELS' label files call a 0/1 target's classes No and Yes.
    class_names = (("No", "Yes") if (negative_value, positive_value) == ("0", "1")
                   else (negative_value, positive_value))
    _check_text(f"target column name {target!r}", target, extra=(":",))
    for value in class_names:
        _check_text(f"class {value!r} of target column {target!r}", value)
    names = tuple(columns)
    for name in names:
        _check_text(f"column name {name!r}", name, extra=(":",))
    numeric = tuple(_is_numeric(columns[name]) for name in names)
    for name, is_numeric in zip(names, numeric):
        if not is_numeric:
            for cell in sorted(set(columns[name]) - {""}):
                _check_text(f"value {cell!r} of column {name!r}", cell)
    return Table(names, tuple(columns[name] for name in names), numeric, target, class_names,
                 labels)


def _class_values(target, cells, positive):
    """The target's (negative, positive) raw values."""
    values = sorted(set(cells))
    if len(values) != 2:
        shown = values[:5] + (["..."] if len(values) > 5 else [])
        raise ValueError(f"target column {target!r} must have exactly 2 distinct values; "
                         f"found {len(values)}: {shown}.")
    if positive is not None:
        if positive not in values:
            raise ValueError(f"positive class {positive!r} is not a value of target column "
                             f"{target!r}; values are {values}.")
        return (values[0] if values[1] == positive else values[1], positive)
    return (values[0], values[1])


def _is_missing(cell):
    return cell is None or (isinstance(cell, float) and math.isnan(cell))


def _is_numeric(cells):
    present = [cell for cell in cells if cell != ""]
    if not present:
        return False
    try:
        return all(math.isfinite(float(cell)) for cell in present)
    except ValueError:
        return False


def _check_text(what, text, extra=()):
    bad = [ch for ch in _RESERVED + tuple(extra) if ch in text]
    if not text or bad or any(ch.isspace() for ch in text):
        problem = f"contains {bad[0]!r}" if bad else "is empty or contains whitespace"
        raise ValueError(f"{what} {problem}; antecedent names cannot represent it.")
