"""Feature values as boosted rules see them: float32 columns, nominal codes, NaN missing.

mlrl-boomer reads features as float32 (``specs/boosted-rules.md`` §1), so every threshold is a
float32 and a condition compares float32 values. :func:`training_data` rounds the numeric
columns of :class:`~optrules.data.table.Features` the same way; a categorical column becomes a
*nominal* feature whose value is the index of its category in sorted order (``==`` / ``!=``
conditions), and a missing cell is NaN, which no condition covers.
"""

from dataclasses import dataclass

import numpy as np

__all__ = ["TrainingData", "training_data", "feature_matrix"]


@dataclass(frozen=True, eq=False)
class TrainingData:
    """The features of a fit.

    Attributes
    ----------
    values : tuple of ndarray of float32
        One column per feature: the value, or the category's index for a nominal feature;
        NaN where missing.
    nominal : tuple of bool
    categories : tuple
        The sorted category names of each nominal feature, None for a numeric one.
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


def training_data(features):
    """The :class:`TrainingData` of canonical ``features``, nominal categories sorted."""
    categories = tuple(None if numeric else tuple(sorted({v for v in column if v is not None}))
                       for column, numeric in zip(features.columns, features.numeric))
    return TrainingData(feature_matrix(features, categories),
                        tuple(not n for n in features.numeric),
                        categories, tuple(features.names))


def feature_matrix(features, categories):
    """Float32 columns of ``features`` with nominal values coded by ``categories`` (a category
    not among them, as in new data, is coded as a value no condition names: -1)."""
    columns = []
    for column, known in zip(features.columns, categories):
        if known is None:
            columns.append(np.asarray(column, dtype=np.float32))
        else:
            index = {category: float(k) for k, category in enumerate(known)}
            columns.append(np.array([np.nan if v is None else index.get(v, -1.0) for v in column],
                                    dtype=np.float32))
    return tuple(columns)
