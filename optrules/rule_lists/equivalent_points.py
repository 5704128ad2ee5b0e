"""Equivalent points (Angelino et al. 2018, §3.14, eq. 85-87, Thm 22).

Samples are *equivalent* when every antecedent holds for both or for neither. Within each set
e_u of equivalent samples, every rule list predicts one label, so it misclassifies at least the
samples carrying the set's minority label q_u. The *minority bits* mark those samples; the
number of marked samples not captured by a prefix is the equivalent-points bound b_0 of Thm 22.
When the two labels are equally frequent in a set, the positive-class samples are marked (either
choice gives the same count, the only thing the bound uses).
"""

import numpy as np

__all__ = ["equivalence_classes", "minority_bits", "check_minority"]


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


def minority_bits(dataset):
    """Boolean vector (N,) marking each sample whose label is its equivalence class's minority."""
    classes = equivalence_classes(dataset)
    labels = dataset.label_bits()
    n_classes = int(classes.max()) + 1
    positives = np.bincount(classes, weights=labels, minlength=n_classes).astype(np.int64)
    sizes = np.bincount(classes, minlength=n_classes)
    positive_is_minority = 2 * positives <= sizes
    return np.where(positive_is_minority[classes], labels, ~labels)


def check_minority(dataset, minority):
    """Raise ValueError if ``minority`` (bool, (N,)) would make Thm 22's bound unsound.

    The bound counts marked samples, so it is sound exactly when no equivalence class has more
    marked samples than its minority-label count. A weaker marking (fewer samples) is accepted.
    """
    classes = equivalence_classes(dataset)
    labels = dataset.label_bits()
    n_classes = int(classes.max()) + 1
    positives = np.bincount(classes, weights=labels, minlength=n_classes)
    sizes = np.bincount(classes, minlength=n_classes)
    marked = np.bincount(classes, weights=np.asarray(minority, dtype=bool), minlength=n_classes)
    allowed = np.minimum(positives, sizes - positives)
    too_many = np.flatnonzero(marked > allowed)
    if too_many.size:
        u = too_many[0]
        first_sample = int(np.flatnonzero(classes == u)[0])
        raise ValueError(
            f"the minority file marks {int(marked[u])} samples in the equivalence class of sample "
            f"{first_sample + 1}, which has only {int(allowed[u])} minority-label samples "
            f"({too_many.size} classes are over-marked); it does not match these antecedents and "
            "labels, and would make the equivalent-points bound unsound.")
