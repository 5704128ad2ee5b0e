"""Equivalent points (Angelino et al. 2018, §3.14, eq. 85-87, Thm 22), for C classes and
sample weights (specs/rule-lists.md §8, §11).

Samples are *equivalent* when every antecedent holds for both or for neither. Every rule list
captures a set e_u of equivalent samples with one rule (or the default), which predicts one
class for all of it, so it misclassifies at least the weight of e_u outside its largest
class. The *minority bits* mark the samples outside that class; the weight of the marked
samples not captured by a prefix is the equivalent-points bound b_0 of Thm 22. When classes
tie for the largest weight, the one left unmarked is the first in class order (for two
classes: the positive samples of an evenly split set are marked, as in CORELS' ``.minor``
files); any choice gives the same weight, the only thing the bound uses.
"""

import numpy as np

__all__ = ["equivalence_classes", "minority_bits", "check_minority", "MinorityMismatch"]


def equivalence_classes(dataset):
    """Class index (0..U-1, by first occurrence order) of every sample, shape (N,)."""
    if dataset.n_antecedents == 0:
        return np.zeros(dataset.n_samples, dtype=np.int64)
    columns = np.ascontiguousarray(dataset.antecedent_bits().T)  # (N, M): one row per sample
    keys = np.packbits(columns, axis=1)
    keys = np.ascontiguousarray(keys).view(np.dtype((np.void, keys.shape[1])))
    _, first, inverse = np.unique(keys.ravel(), return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first))  # renumber classes by first occurrence
    return order[inverse.ravel()]


def _class_weight_table(dataset, groups):
    """Integer weight of each (equivalence class, label class) pair, shape (U, C).

    ``np.add.at`` on int64 keeps the sums exact (np.bincount would sum in float64)."""
    table = np.zeros((int(groups.max()) + 1, dataset.n_classes), dtype=np.int64)
    np.add.at(table, (groups, dataset.labels), dataset.unit_weights())
    return table


def minority_bits(dataset):
    """Boolean vector (N,) marking each sample outside its equivalence class's largest class
    (the first largest in class order on a tie)."""
    groups = equivalence_classes(dataset)
    majority = _class_weight_table(dataset, groups).argmax(axis=1)  # argmax: first on a tie
    return dataset.labels != majority[groups]


class MinorityMismatch(ValueError):
    """Minority bits that would make Thm 22's bound unsound (:func:`check_minority`)."""


def check_minority(dataset, minority):
    """Raise :class:`MinorityMismatch` (a ValueError) if ``minority`` (bool, (N,)) would make
    Thm 22's bound unsound.

    The bound adds up the weight of marked samples, so it is sound exactly when no equivalence
    class has more marked weight than its weight outside its largest class. A weaker marking
    (less weight) is accepted.
    """
    groups = equivalence_classes(dataset)
    table = _class_weight_table(dataset, groups)
    allowed = table.sum(axis=1) - table.max(axis=1)
    marked = np.zeros(len(table), dtype=np.int64)
    marks = np.asarray(minority, dtype=bool)
    np.add.at(marked, groups, np.where(marks, dataset.unit_weights(), 0))
    too_many = np.flatnonzero(marked > allowed)
    if too_many.size:
        u = too_many[0]
        first_sample = int(np.flatnonzero(groups == u)[0])
        unit = 1 if dataset.weights is None else dataset.weight_unit
        what = "samples" if dataset.weights is None else "of weight"
        raise MinorityMismatch(
            f"the minority bits (.minor file) mark {unit * int(marked[u])} {what} in the "
            f"equivalence class of sample {first_sample + 1}, which has only "
            f"{unit * int(allowed[u])} outside its majority class ({too_many.size} classes are "
            "over-marked); they do not match these antecedents, labels and weights, and would "
            "make the equivalent-points bound unsound.")
