"""Antecedent mining: items from a table, conjunctions of items, support filtering.

Reproduces the antecedents CORELS ships for ProPublica COMPAS (Angelino et al. 2018, §3.1 and
§6): with ``max_cardinality=2`` and ``min_support=0.005`` it yields exactly the 155
antecedents of ``compas_train.out``, in the same order, with the same bits.

Items
    A categorical column gives one item ``feature:value`` per distinct non-missing value, in
    order of first appearance. A numeric column gives threshold items ``feature:<=t`` and
    ``feature:>t`` (in this order, thresholds ascending) for cut points ``t`` that are midpoints
    between consecutive distinct values: all of them when there are at most ``max_thresholds``,
    otherwise the midpoints just above the ``i/(max_thresholds+1)`` quantiles, i = 1..max_thresholds
    (duplicates dropped). A missing cell satisfies no item of its column.
Antecedents
    All conjunctions of 1..``max_cardinality`` items from distinct features, ordered by
    cardinality, then by the tuple of feature (column) positions, then by item order within
    each feature. Items are joined with ``,``. An antecedent is kept when its support count c
    satisfies ``s*N <= c <= (1 - s)*N`` (exact, with ``s`` a Fraction); by Thm 10 and Thm 12 of
    the paper, antecedents with support at most λ or at least 1 - λ never occur in an optimal
    rule list, so ``s <= λ`` loses nothing.
"""

import itertools
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from optrules.data.binary_dataset import BinaryDataset
from optrules.validation import parse_fraction

__all__ = ["Item", "table_items", "mine_antecedents", "binarize"]


@dataclass(frozen=True)
class Item:
    """One proposition about one column: ``feature == value``, ``feature <= t`` or ``> t``."""

    feature: str
    operator: str  # "==", "<=" or ">"
    value: str     # the category, or the threshold written with repr(float)

    @property
    def name(self):
        shown = self.value if self.operator == "==" else self.operator + self.value
        return f"{self.feature}:{shown}"

    def evaluate(self, table, column):
        """Boolean vector: rows of ``table`` (feature index ``column``) satisfying the item."""
        if self.operator == "==":
            return np.array([cell == self.value for cell in table.columns[column]], dtype=bool)
        values = table.column_values(column)
        with np.errstate(invalid="ignore"):
            threshold = float(self.value)
            held = values <= threshold if self.operator == "<=" else values > threshold
        return held & ~np.isnan(values)


def table_items(table, max_thresholds=9):
    """The items of every feature column, as a list (per feature) of lists of :class:`Item`."""
    items = []
    for column, feature in enumerate(table.feature_names):
        if table.numeric[column]:
            cuts = _cut_points(table.column_values(column), max_thresholds)
            items.append([Item(feature, op, repr(float(cut)))
                          for cut in cuts for op in ("<=", ">")])
        else:
            values = dict.fromkeys(cell for cell in table.columns[column] if cell != "")
            items.append([Item(feature, "==", value) for value in values])
    return items


def _cut_points(values, max_thresholds):
    present = np.sort(values[~np.isnan(values)])
    distinct = np.unique(present)
    midpoints = (distinct[:-1] + distinct[1:]) / 2
    if len(midpoints) <= max_thresholds:
        return list(midpoints)
    chosen = []
    for i in range(1, max_thresholds + 1):
        quantile_value = present[max(0, int(round(i * len(present) / (max_thresholds + 1))) - 1)]
        position = int(np.searchsorted(distinct, quantile_value))
        if position < len(midpoints) and midpoints[position] not in chosen:
            chosen.append(midpoints[position])
    return chosen


def mine_antecedents(table, max_cardinality=2, min_support=Fraction(1, 200), max_thresholds=9):
    """Mine antecedents from a :class:`~optrules.table.Table`.

    Parameters
    ----------
    table : Table
    max_cardinality : int, default 2
        Largest number of items in one antecedent (>= 1).
    min_support : Fraction, str or float, default 1/200
        s in [0, 1/2): keep antecedents holding for between s*N and (1-s)*N rows. Read
        exactly: ``"0.1"`` and ``0.1`` both mean 1/10.
    max_thresholds : int, default 9
        Most cut points per numeric column.

    Returns
    -------
    BinaryDataset
        Antecedents in the documented order, with the table's labels.

    Raises
    ------
    ValueError
        If ``min_support`` is not a number in [0, 1/2).

    Examples
    --------
    >>> from optrules.data.table import table_from_columns
    >>> t = table_from_columns({"a": ["x", "y", "x"], "b": ["u", "u", "v"], "y": [1, 0, 1]}, "y")
    >>> mine_antecedents(t, min_support=Fraction(0)).antecedent_names[:4]
    ('a:x', 'a:y', 'b:u', 'b:v')
    """
    items = table_items(table, max_thresholds)
    item_bits = [[item.evaluate(table, column) for item in column_items]
                 for column, column_items in enumerate(items)]
    n_samples = table.n_samples
    min_support_ = parse_fraction("min_support", min_support, low=0, high=Fraction(1, 2),
                                  function="mine_antecedents", low_inclusive=True)
    low, high = min_support_ * n_samples, (1 - min_support_) * n_samples
    names, bits = [], []
    for cardinality in range(1, max_cardinality + 1):
        for features in itertools.combinations(range(len(items)), cardinality):
            for choice in itertools.product(*(range(len(items[f])) for f in features)):
                held = np.logical_and.reduce([item_bits[f][i] for f, i in zip(features, choice)])
                if low <= int(held.sum()) <= high:
                    names.append(",".join(items[f][i].name for f, i in zip(features, choice)))
                    bits.append(held)
    return BinaryDataset.from_bits(names, np.array(bits, dtype=bool).reshape(len(names), n_samples),
                                   table.labels, target=table.target,
                                   class_names=table.class_names)


def binarize(table, antecedent_names):
    """Evaluate named antecedents (``"sex:Male,priors:>3"``) on the rows of a table.

    Used to apply a learned rule list to new data. The table's numeric columns decide
    whether ``<=t``/``>t`` is a threshold or a category literally named so.

    Raises
    ------
    ValueError
        If an antecedent names an unknown feature.
    """
    columns = {name: j for j, name in enumerate(table.feature_names)}
    rows = []
    for antecedent in antecedent_names:
        held = np.ones(table.n_samples, dtype=bool)
        for part in antecedent.split(","):
            feature, _, shown = part.partition(":")
            if feature not in columns:
                raise ValueError(f"antecedent {antecedent!r} uses feature {feature!r}, which is "
                                 f"not a column of the table ({sorted(columns)}).")
            column = columns[feature]
            held &= _parse_item(feature, shown, table.numeric[column]).evaluate(table, column)
        rows.append(held)
    return np.array(rows, dtype=bool).reshape(len(rows), table.n_samples)


def _parse_item(feature, shown, numeric):
    if numeric:
        for operator in ("<=", ">"):
            if shown.startswith(operator):
                return Item(feature, operator, shown[len(operator):])
    return Item(feature, "==", shown)
