"""Tabular input: CSV files, numpy arrays, pandas DataFrames and dicts of columns, canonicalised.

Every method starts from :class:`Features`, the canonical form of feature data: one column per
feature, each either *numeric* (a float array, NaN = missing) or *categorical* (an object array
of strings, None = missing). :func:`as_features` decides which; ``specs/data.md`` states the
rules, which hold for every method:

* numeric numpy dtypes (integers, floats) are numeric;
* booleans and pandas ``category`` columns are categorical (values ``"True"``/``"False"``, or
  the category's text), whatever their values look like;
* any other column (text, Python objects) is numeric when every non-missing cell is a number or
  text that parses as a finite number (so a CSV's ``"1.5"`` and a DataFrame's ``1.5`` give the
  same model), and categorical otherwise; categories are compared as stripped text. A column
  that is mostly numbers but holds other text stays categorical, with a
  :class:`MixedColumnWarning` naming the column and the offending cells.

A cell is missing when it is None, a float NaN, ``pandas.NA`` or ``pandas.NaT``, or text that
is one of :data:`MISSING_TOKENS` once stripped (empty, ``NA``, ``N/A``, ``NaN``, ``null``,
``None``, ``?``, ``<NA>``, ``#N/A``, each also in lower or upper case, not in mixed case). A missing cell satisfies no condition on its
column and is never a category. Feature and category names may be any text: spaces, commas and
colons included.

Targets have one class order everywhere (:func:`sorted_classes`): numbers numerically, strings
lexicographically, False < True; the last class is the positive one.

Raises ``ValueError`` for complex numbers and infinite values and ``TypeError`` for cells that
are neither text nor numbers (a dict, a list), naming the column.
"""

import math
import numbers
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from optrules.data.weights import integer_weights
from optrules.validation import exact_number, shown

__all__ = ["Features", "as_features", "read_csv", "read_weighted_csv", "read_csv_columns",
           "csv_features", "sorted_classes",
           "MISSING_TOKENS", "MixedColumnWarning"]

#: Text meaning "missing" in a CSV cell or a text column, compared after stripping whitespace:
#: each token as written, in lower case or in upper case, but not in mixed case, which is how
#: real values such as the element Na are spelt (specs/data.md §2 gives the reason for each).
MISSING_TOKENS = frozenset(spelling for token in ("", "NA", "N/A", "NaN", "null", "None", "?",
                                                  "<NA>", "#N/A")
                           for spelling in (token, token.lower(), token.upper()))

#: A column whose non-missing cells are at least this fraction numbers, but not all, is
#: "mostly numeric": it stays categorical, with a :class:`MixedColumnWarning`.
_MOSTLY_NUMERIC = 0.5


class MixedColumnWarning(UserWarning):
    """A mostly numeric column holds text that is neither a number nor a missing token, so it
    is read as categorical (specs/data.md §3)."""


@dataclass(frozen=True, eq=False)
class Features:
    """Feature columns in canonical form.

    Attributes
    ----------
    names : tuple of str
        Distinct feature names.
    columns : tuple of ndarray
        ``columns[j]`` is a float array (numeric feature, NaN = missing) or an object array of
        str (categorical feature, None = missing).
    numeric : tuple of bool
        Whether each feature is numeric.
    """

    names: tuple
    columns: tuple
    numeric: tuple

    @property
    def n_samples(self):
        return len(self.columns[0]) if self.columns else 0

    @property
    def n_features(self):
        return len(self.names)

    def column(self, name):
        """The canonical column of feature ``name``; ValueError naming the known features."""
        try:
            return self.columns[self.names.index(name)]
        except ValueError:
            raise ValueError(f"feature {name!r} is not a column of the data; columns are "
                             f"{list(self.names)}.") from None

    def take(self, rows):
        """The same features restricted to some rows (an index array or slice)."""
        return Features(self.names, tuple(column[rows] for column in self.columns), self.numeric)


def as_features(data, feature_names=None, numeric=None):
    """Canonicalise a 2-D array, a pandas DataFrame or a mapping ``name -> column``.

    Parameters
    ----------
    data : ndarray, list of rows, DataFrame, dict of columns or Features
    feature_names : sequence of str, optional
        Names for the columns (default: the DataFrame's or dict's, else ``x0, x1, ...``).
    numeric : sequence of bool, optional
        Force each column's kind instead of inferring it (a fitted model reads new data with
        the kinds it was trained on): a numeric column must hold numbers, a categorical one is
        read as text.

    Returns
    -------
    Features

    Raises
    ------
    ValueError
        On ragged columns, a wrong number of feature names, duplicate names, no columns, not
        2-D data, complex or infinite values.
    TypeError
        For an unsupported container, a sparse matrix, or cells that are neither text nor
        numbers.

    Warns
    -----
    MixedColumnWarning
        When a column is inferred categorical although at least half of its non-missing cells
        are numbers; the message names the column, counts the other cells, shows the first
        few and the row of the first.

    Examples
    --------
    >>> f = as_features({"mean radius": [17.99, 20.57], "sex": ["M", "F"], "ok": [True, False]})
    >>> f.names, f.numeric
    (('mean radius', 'sex', 'ok'), (True, False, False))
    >>> f.column("ok").tolist()
    ['True', 'False']

    Missing cells (None, NaN, pandas NA, or text such as ``""``, ``"NA"``, ``"?"``) are NaN
    in numeric columns and None in categorical ones:

    >>> f = as_features({"a": ["1", "NA", None, " ? "], "b": ["x", "n/a", float("nan"), "y"]})
    >>> f.numeric, f.column("a").tolist(), f.column("b").tolist()
    ((True, False), [1.0, nan, nan, nan], ['x', None, None, 'y'])
    """
    if isinstance(data, Features) and numeric is None and feature_names is None:
        return data
    if isinstance(data, Features):   # renamed or re-read: keep its kinds unless forced
        numeric = data.numeric if numeric is None else numeric
        data = dict(zip(data.names, data.columns))
    if hasattr(data, "toarray") and hasattr(data, "nnz"):
        raise TypeError("sparse input is not supported: optrules takes dense feature data; "
                        "convert a sparse matrix with X.toarray().")
    if hasattr(data, "columns") and hasattr(data, "__getitem__") and not isinstance(data, dict):
        names = [str(c) for c in data.columns]
        raw = [_frame_column(data[c]) for c in data.columns]
    elif isinstance(data, dict):
        names = [str(c) for c in data]
        raw = [(_as_array(v), False) for v in data.values()]
        for name, (column, _) in zip(names, raw):
            if column.ndim != 1:
                raise ValueError(f"column {name!r} must be a 1-D sequence of cells; got "
                                 f"{'a scalar' if column.ndim == 0 else f'shape {column.shape}'}.")
    elif isinstance(data, (np.ndarray, list, tuple)):
        try:
            array = _as_array(data)
        except ValueError:
            raise ValueError("the rows of the feature data have different lengths.") from None
        if array.ndim != 2:
            raise ValueError(f"feature data must be 2-D (samples x features); got an array of "
                             f"shape {array.shape}. Reshape 1-D data with X.reshape(-1, 1) for "
                             "one feature or X.reshape(1, -1) for one sample.")
        names = [f"x{j}" for j in range(array.shape[1])]
        raw = [(array[:, j], False) for j in range(array.shape[1])]
    else:
        raise TypeError(f"feature data must be a numpy array, a pandas DataFrame or a dict of "
                        f"columns; got {type(data).__name__}.")
    if feature_names is not None:
        if len(feature_names) != len(names):
            raise ValueError(f"{len(feature_names)} feature names given for {len(names)} "
                             "columns.")
        names = [str(n) for n in feature_names]
    if not names:
        raise ValueError("feature data has no columns.")
    if len(set(names)) != len(names):
        duplicate = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"duplicate feature name {duplicate!r}.")
    lengths = {len(column) for column, _ in raw}
    if len(lengths) != 1:
        raise ValueError(f"feature columns have different lengths: {sorted(lengths)}.")
    if numeric is not None and len(numeric) != len(names):
        raise ValueError(f"{len(numeric)} column kinds given for {len(names)} columns.")
    return _canonical_features(names, raw, numeric, lambda row: f"row {row}")


def _canonical_features(names, raw, numeric, where):
    """Features of checked raw columns ``(cells, always categorical?)``; ``where(row)`` names a
    0-based row in messages (a CSV names its line)."""
    columns, kinds = [], []
    for j, (name, (column, categorical)) in enumerate(zip(names, raw)):
        forced = None if numeric is None else bool(numeric[j])
        canonical, is_numeric = _canonical_column(name, column, categorical, forced, where)
        columns.append(canonical)
        kinds.append(is_numeric)
    return Features(tuple(names), tuple(columns), tuple(kinds))


def _frame_column(series):
    """(values, always categorical?) of a DataFrame column; category columns stay categorical."""
    categorical = str(getattr(series, "dtype", "")) == "category"
    return np.asarray(series, dtype=object if categorical else None), categorical


def _as_array(values):
    """``np.asarray``, but a Python sequence mixing strings and NaN stays an object array (numpy
    would turn NaN into the category 'nan')."""
    array = np.asarray(values)
    if array.dtype.kind in "US" and not isinstance(values, np.ndarray):
        array = np.asarray(values, dtype=object)
    return array


def _is_missing(cell):
    """Whether a raw cell is missing: None, NaN, pandas NA/NaT or a missing token."""
    if cell is None:
        return True
    if isinstance(cell, str):
        return cell.strip() in MISSING_TOKENS
    if isinstance(cell, (float, np.floating)):
        return math.isnan(cell)
    return type(cell).__name__ in ("NAType", "NaTType")  # pandas.NA / NaT (ambiguous truth)


def _canonical_column(name, column, categorical, forced, where):
    """(canonical column, numeric?) of one raw column; ``forced`` overrides the inference."""
    kind = column.dtype.kind
    if kind == "c":
        raise ValueError(f"Complex data not supported: feature {name!r} holds complex numbers.")
    if kind in "iuf" and not categorical and forced is not False:
        values = column.astype(float)
        if np.isinf(values).any():
            raise ValueError(f"feature {name!r} contains an infinite value.")
        if kind in "iu" and np.abs(values).max(initial=0) > 2 ** 53 and \
                not np.array_equal(values.astype(column.dtype), column):
            warnings.warn(f"feature {name!r} has integers beyond 2**53, which numeric features "
                          "(float64) cannot all tell apart; pass the column as text to keep "
                          "them distinct as categories.", UserWarning, stacklevel=3)
        return values, True
    cells = [None if _is_missing(c) else _cell_text(name, c) for c in column.tolist()]
    if forced is None and (categorical or kind == "b"):
        forced = False
    if forced is False:
        return np.array(cells, dtype=object), False
    # Parse each distinct text once: categorical columns repeat few values.
    number = {text: _finite_float(text) for text in set(cells) if text is not None}
    present = sum(text is not None for text in cells)
    other = [row for row, text in enumerate(cells) if text is not None and number[text] is None]
    if not other and (present or forced):
        return np.array([math.nan if text is None else number[text] for text in cells]), True
    if forced:
        raise ValueError(f"feature {name!r} is numeric in the model, but the data has the "
                         f"value {cells[other[0]]!r} ({where(other[0])}).")
    if other and present - len(other) >= _MOSTLY_NUMERIC * present:
        shown = list(dict.fromkeys(cells[row] for row in other))
        warnings.warn(MixedColumnWarning(
            f"feature {name!r} is read as categorical: {len(other)} of its {present} "
            f"non-missing cells are not numbers ({', '.join(map(repr, shown[:3]))}"
            f"{', ...' if len(shown) > 3 else ''}; the first at {where(other[0])}). Write a "
            "missing value as an empty cell, NA or ?, or fix those cells, to read the column "
            "as numeric."), stacklevel=4)
    return np.array(cells, dtype=object), False


def _is_integer_literal(text):
    digits = text[1:] if text[:1] in "+-" else text
    return digits.isascii() and digits.isdigit()


def _finite_float(text):
    """The finite number a text spells, else None."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _cell_text(name, cell):
    if isinstance(cell, (str, bool, np.bool_)) or isinstance(cell, numbers.Number):
        if isinstance(cell, complex):
            raise ValueError(f"Complex data not supported: feature {name!r} holds complex "
                             "numbers.")
        return str(cell).strip()
    raise TypeError(f"feature {name!r} has a cell of type {type(cell).__name__} ({cell!r}); "
                    "every cell must be a string or a number.")


def read_csv_columns(path, lines=False):
    """Read a CSV file with a header row into ``{column name: tuple of cell strings}`` (and,
    if ``lines``, the line number where each data row ends: :func:`csv_features` names them).

    Cells are stripped (a missing token stays as written; :func:`as_features` reads it as
    missing). Raises ValueError naming the file (and the line, for a row with the wrong number
    of fields) when the file cannot be read, is empty, has no data rows, a ragged row or a
    duplicate column name.
    """
    columns, numbers = _read_columns(path)
    return (columns, numbers) if lines else columns


def csv_features(path, columns, lines, numeric=None):
    """:func:`as_features` of ``columns`` ({name: cells}) read from the CSV file ``path`` with
    the data rows ending at ``lines`` (:func:`read_csv_columns`), and the kinds ``numeric`` if
    given (a fitted model's): a message names the file and the line of a cell."""
    return _canonical_features(
        list(columns), [(np.array(cells, dtype=object), False) for cells in columns.values()],
        numeric, lambda row: f"{path}, line {lines[row]}")


def _read_columns(path):
    """(columns as :func:`read_csv_columns` gives them, line number where each data row ends)."""
    import csv                 # only here: a fit of arrays reads no CSV file
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
    # Blank lines (a trailing one, say) are skipped, as spreadsheet programs do. In a file of
    # one column a blank line between rows could also be a missing cell (which CSV writers
    # write as ""), and skipping it would shift every later row: refused, naming the line.
    while numbered and not numbered[-1][1]:
        numbered.pop()
    first = next((k for k, (_, row) in enumerate(numbered) if row), None)   # the header
    if first is not None and len(numbered[first][1]) == 1:
        blank = next((number for number, row in numbered[first + 1:] if not row), None)
        if blank is not None:
            raise ValueError(f"{path}, line {blank}: a blank line in a file of one column; "
                             'write a missing cell as "" (two double quotes), or remove the '
                             "line.")
    numbered = [(number, row) for number, row in numbered if row]
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
    return columns, [number for number, _ in numbered[1:]]


def read_csv(path, target=None):
    """Read a CSV file into canonical features and, optionally, the target values.

    Parameters
    ----------
    path : str or Path
    target : str, optional
        Name of the target column, which is split off the features.

    Returns
    -------
    features : Features
    target : ndarray of object or None
        The target column (None when ``target`` is not given), typed as an in-memory target
        would be, so that classes sort the same way (:func:`sorted_classes`): integers when
        every cell is an integer literal (``2``, ``-1``), else floats when every cell is a
        finite number, else booleans when every cell is ``true`` or ``false`` (any case), else
        the text.

    Raises
    ------
    ValueError
        If the file cannot be read, is malformed (messages name the file and line), lacks the
        target column, or a target cell is missing (empty or a missing token).

    Warns
    -----
    MixedColumnWarning
        For a mostly numeric column holding other text, naming the line of the first such cell.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = path.write_text("a,y\\n1.5,10\\nNA,2\\n?,10\\n")
    >>> X, y = read_csv(path, target="y")
    >>> X.numeric, X.column("a").tolist(), y.tolist(), sorted_classes(y)
    ((True,), [1.5, nan, nan], [10, 2, 10], (2, 10))
    """
    features, values, _ = _read_table(path, target, None)
    return features, values


def read_weighted_csv(path, target, weight_column):
    """:func:`read_csv` with one more column split off the features: each row's weight.

    Parameters
    ----------
    path : str or Path
    target : str
        Name of the target column.
    weight_column : str
        Name of the weight column, another column than ``target``. Each cell is a number
        >= 0 read exactly (``2``, ``0.25``, ``1e-3``, ``1/3``); the weights must not all be 0.

    Returns
    -------
    features : Features
        The columns other than the target and the weights.
    target : ndarray of object
        As :func:`read_csv` gives it.
    sample_weight : list of Fraction
        The exact weight of each data row.

    Raises
    ------
    ValueError
        As :func:`read_csv`, and naming the file and line for a missing, non-numeric, negative,
        NaN or infinite weight; for a missing weight column, the target as weight column, or
        weights that sum to 0.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = path.write_text("a,w,y\\nu,2,1\\nv,0.5,0\\nu,1/3,2\\n")
    >>> X, y, w = read_weighted_csv(path, "y", "w")
    >>> X.names, y.tolist(), [str(weight) for weight in w]
    (('a',), [1, 0, 2], ['2', '1/2', '1/3'])
    """
    if weight_column == target:
        raise ValueError(f"{path}: the weight column {weight_column!r} is the target column; "
                         "give another column.")
    return _read_table(path, target, weight_column)


def _read_table(path, target, weight_column):
    """(features, target values or None, weights or None) of a CSV file."""
    columns, lines = _read_columns(path)
    values = weights = None
    if target is not None:
        if target not in columns:
            raise ValueError(f"{path}: target column {target!r} not found; columns are "
                             f"{sorted(columns)}.")
        cells = columns.pop(target)
        missing = [row for row, cell in enumerate(cells) if _is_missing(cell)]
        if missing:
            raise ValueError(f"{path}, line {lines[missing[0]]}: target column {target!r} is "
                             f"missing in {len(missing)} row(s) (first: data row "
                             f"{missing[0] + 1}).")
        values = np.array(_typed_targets(cells), dtype=object)
    if weight_column is not None:
        if weight_column not in columns:
            raise ValueError(f"{path}: weight column {weight_column!r} not found; columns are "
                             f"{sorted(columns)}.")
        weights = _weight_cells(path, weight_column, columns.pop(weight_column), lines)
    if not columns:
        weight = "" if weight_column is None else f" and the weight column {weight_column!r}"
        raise ValueError(f"{path}: no feature columns besides the target {target!r}{weight}.")
    try:
        features = csv_features(path, columns, lines)
    except (ValueError, TypeError) as error:
        raise type(error)(f"{path}: {error}") from error
    return features, values, weights


def _weight_cells(path, column, cells, lines):
    """The exact weights of a weight column's cells; ValueError naming the line of the first
    missing, non-numeric or negative cell, or weights that sum to 0."""
    exact = []
    for cell, line in zip(cells, lines):
        where = f"{path}, line {line}: the weight column {column!r}"
        if _is_missing(cell):
            raise ValueError(f"{where} is missing ({shown(cell)}); every row needs a weight "
                             "(0 leaves the row out).")
        try:
            weight = exact_number(cell)
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{where} holds {shown(cell)}, which is not a number; a weight is "
                             "a finite number >= 0 such as 2, 0.25 or 1/3.") from None
        if weight < 0:
            raise ValueError(f"{where} holds the negative weight {shown(cell)}; weights are "
                             ">= 0.")
        exact.append(weight)
    counts, unit = integer_weights(exact, f"{path}, weight column {column!r}", "data row")
    return [unit * int(k) for k in counts]


def _typed_targets(cells):
    """Target cells (text, none missing) as ints, floats, bools or text (see read_csv)."""
    if all(_is_integer_literal(cell) for cell in cells):
        return [int(cell) for cell in cells]
    numbers = [_finite_float(cell) for cell in cells]
    if None not in numbers:
        return numbers
    if all(cell.lower() in ("true", "false") for cell in cells):
        return [cell.lower() == "true" for cell in cells]
    return list(cells)


def sorted_classes(values, name="y"):
    """The distinct class values of a target, in the one class order of optrules.

    Every classifier, the logistic loss and the CLI order classes with this function
    (specs/data.md §4), and the positive class is the last one unless the user names another.

    Parameters
    ----------
    values : iterable of str, int, float or bool (Python or numpy scalars)
    name : str, default "y"
        What the values are, for messages.

    Returns
    -------
    tuple
        The distinct values as Python scalars, ascending: numbers numerically (booleans as
        numbers, so False < True), strings lexicographically (by code point).

    Raises
    ------
    ValueError
        For a missing value (None, NaN, pandas NA or a missing token, as for features), values
        that are neither strings nor numbers, or strings mixed with numbers.

    Examples
    --------
    >>> sorted_classes([10, 2, 10]), sorted_classes(["yes", "no"]), sorted_classes([True, False])
    ((2, 10), ('no', 'yes'), (False, True))
    """
    values = [value.item() if isinstance(value, np.generic) else value for value in values]
    missing = [row for row, value in enumerate(values) if _is_missing(value)]
    if missing:
        first = values[missing[0]]
        token = f": the text {first!r} reads as missing, as NA, None and ? do; give that " \
            "class another name" if isinstance(first, str) else ""
        raise ValueError(f"{name} has {len(missing)} missing value(s) (first at row "
                         f"{missing[0]}{token}).")
    kinds = {"string" if isinstance(value, str) else
             "number" if isinstance(value, (int, float)) else type(value).__name__
             for value in values}
    if not kinds <= {"string", "number"}:
        raise ValueError(f"Unknown label type: {name} holds "
                         f"{sorted(kinds - {'string', 'number'})} values; class labels are "
                         "strings or numbers.")
    if len(kinds) > 1:
        raise ValueError(f"Mix of label input types (string and number) in {name}.")
    return tuple(sorted(set(values)))
