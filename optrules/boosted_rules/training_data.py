"""Feature values as boosted rules see them: float32 columns, nominal codes, NaN missing.

mlrl-boomer reads features as float32 (``specs/boosted-rules.md`` §1), so every threshold is a
float32 and a condition compares float32 values. :func:`training_data` rounds the numeric
columns of :class:`~optrules.data.table.Features` the same way; a categorical column becomes a
*nominal* feature whose value is the index of its category in sorted order (``==`` / ``!=``
conditions), and a missing cell is NaN, which no condition covers. A numeric column can also
be declared nominal: its values are then its codes.

A scipy.sparse matrix gives :class:`SparseColumn` s (Rapp et al. 2023, §3.2): only the
non-zero entries are stored (an explicitly stored NaN is a missing value), and the engines'
sparsity-aware search never visits the examples whose value is zero.
"""

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

__all__ = ["TrainingData", "SparseColumn", "training_data", "sparse_training_data",
           "feature_matrix", "dense_column", "is_sparse_matrix"]


class SparseColumn(NamedTuple):
    """One feature of sparse data: ``values`` (float32, non-zero or NaN) of the examples
    ``rows`` (increasing); every other example of the ``n_examples`` has the value 0."""

    rows: np.ndarray
    values: np.ndarray
    n_examples: int

    def __len__(self):
        return self.n_examples


@dataclass(frozen=True, eq=False)
class TrainingData:
    """The features of a fit.

    Attributes
    ----------
    values : tuple of (ndarray of float32 or SparseColumn)
        One column per feature: the value, or the category's index for a nominal feature;
        NaN where missing. All columns are :class:`SparseColumn` s when the data were sparse.
    nominal : tuple of bool
    categories : tuple
        The sorted category names of each categorical feature, None for a numeric one (a
        numeric nominal feature's values are its codes).
    names : tuple of str
    """

    values: tuple
    nominal: tuple
    categories: tuple
    names: tuple

    @property
    def n_examples(self):
        return len(self.values[0]) if self.values else 0

    @property
    def n_features(self):
        return len(self.values)

    @property
    def sparse(self):
        return bool(self.values) and isinstance(self.values[0], SparseColumn)

    def densified(self):
        """The same data with dense columns."""
        return TrainingData(tuple(dense_column(c) for c in self.values), self.nominal,
                            self.categories, self.names)


def training_data(features, nominal_features=()):
    """The :class:`TrainingData` of canonical ``features``, nominal categories sorted; the
    numeric columns ``nominal_features`` (indices) are nominal with their values as codes."""
    categories = tuple(None if numeric else tuple(sorted({v for v in column if v is not None}))
                       for column, numeric in zip(features.columns, features.numeric))
    nominal = set(nominal_features)
    return TrainingData(feature_matrix(features, categories),
                        tuple(not n or j in nominal for j, n in enumerate(features.numeric)),
                        categories, tuple(features.names))


def is_sparse_matrix(X):
    """Whether ``X`` is a scipy.sparse matrix or array (without importing scipy)."""
    return hasattr(X, "nnz") and hasattr(X, "tocsc")


def sparse_training_data(matrix, nominal_features=(), names=None):
    """The :class:`TrainingData` of a scipy.sparse matrix (numbers; ``nominal_features`` are
    column indices of nominal features), read column by column from its CSC form.

    Raises ValueError for a matrix that is not 2-D with at least one row and one column, and
    for infinite values (naming the column)."""
    if matrix.dtype.kind not in "biuf":
        raise ValueError(f"Sparse X of dtype {matrix.dtype} not supported: it must hold real "
                         "numbers.")
    matrix = matrix.tocsc(copy=True)
    matrix.sum_duplicates()
    n_examples, n_features = matrix.shape
    if n_examples == 0 or n_features == 0:
        raise ValueError(f"Found array with shape {matrix.shape}: sparse X needs at least one "
                         "example and one feature.")
    names = tuple(names) if names is not None else tuple(f"x{j}" for j in range(n_features))
    columns = []
    for j in range(n_features):
        start, stop = matrix.indptr[j], matrix.indptr[j + 1]
        if np.isinf(matrix.data[start:stop]).any():
            raise ValueError(f"Feature {names[j]!r} (column {j}) holds an infinite value.")
        values = _float32(matrix.data[start:stop], f"{names[j]} (column {j})")
        rows = np.asarray(matrix.indices[start:stop], dtype=np.int64)
        keep = values != 0                 # explicitly stored zeros are zeros
        order = np.argsort(rows[keep], kind="stable")
        columns.append(SparseColumn(rows[keep][order], values[keep][order], n_examples))
    nominal = set(nominal_features)
    return TrainingData(tuple(columns), tuple(j in nominal for j in range(n_features)),
                        (None,) * n_features, names)


def _float32(values, name):
    """``values`` as float32; ValueError for a finite value beyond float32's range."""
    with np.errstate(over="ignore"):
        rounded = np.asarray(values, dtype=np.float32)
    beyond = np.isinf(rounded)
    if beyond.any():
        raise ValueError(f"Feature {name!r} holds the value "
                         f"{float(np.asarray(values)[beyond][0]):g}, beyond float32's range "
                         f"(|x| > {float(np.finfo(np.float32).max):.4g}); rules compare "
                         "float32 values.")
    return rounded


def dense_column(column):
    """A column as a float32 array (a :class:`SparseColumn` with its zeros filled in)."""
    if not isinstance(column, SparseColumn):
        return column
    dense = np.zeros(column.n_examples, dtype=np.float32)
    dense[column.rows] = column.values
    return dense


def feature_matrix(features, categories):
    """Float32 columns of ``features`` with nominal values coded by ``categories`` (a category
    not among them, as in new data, is coded as a value no condition names: -1); ValueError
    for a value beyond float32's range (naming the feature)."""
    columns = []
    for name, column, known in zip(features.names, features.columns, categories):
        if known is None:                          # + 0: -0.0 is 0.0, as in sparse data
            columns.append(_float32(column, name) + np.float32(0))
        else:
            index = {category: float(k) for k, category in enumerate(known)}
            columns.append(np.array([np.nan if v is None else index.get(v, -1.0) for v in column],
                                    dtype=np.float32))
    return tuple(columns)
