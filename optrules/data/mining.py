"""Antecedent mining: items from feature columns, conjunctions of items, support filtering.

Reproduces the antecedents CORELS ships for ProPublica COMPAS (Angelino et al. 2018, §3.1 and
§6): with ``max_cardinality=2`` and ``min_support=0.005`` it yields exactly the 155
antecedents of ``compas_train.out``, in the same order, with the same bits.

Items
    A categorical column gives one item ``feature == value`` per distinct non-missing value, in
    order of first appearance. A numeric column gives threshold items ``feature <= t`` and
    ``feature > t`` (in this order, t ascending) at the cut points of
    :func:`optrules.data.propositions.numeric_thresholds` (default ``"quantile:3"``: the
    quartiles, each printed as the shortest decimal that splits the training values the same
    way). A missing cell satisfies no item of its column.
Antecedents
    All conjunctions of 1..``max_cardinality`` items from distinct features, ordered by
    cardinality, then by the tuple of feature (column) positions, then by item order within
    each feature. An antecedent is kept when its support count c satisfies
    ``s*N <= c <= (1 - s)*N`` (exact, with ``s`` a Fraction; with sample weights c is the
    weight of the rows it holds for and N the total weight); by Thm 10 and Thm 12 of the
    paper, antecedents with support at most λ or at least 1 - λ never occur in an optimal rule
    list, so ``s <= λ`` loses nothing.
Names
    CORELS' convention: items ``feature:value``, ``feature:<=t``, ``feature:>t``, joined by
    ``,`` (``sex:Male,priors:>3``). A feature name or category holding ``:``, ``,`` or ``"`` is
    written in double quotes, with inner quotes doubled (``"sex, reported":Male``), so distinct
    antecedents always get distinct names. Names are for reading and for the CORELS files; a
    model applies an antecedent through its conditions
    (:class:`~optrules.data.propositions.Proposition` objects), so feature names and values may
    contain any character.
"""

import itertools
from fractions import Fraction

import numpy as np

from optrules.data.binary_dataset import BinaryDataset
from optrules.data.propositions import Proposition, format_value, numeric_thresholds
from optrules.data.table import as_features
from optrules.data.weights import integer_weights
from optrules.limits import Stopped
from optrules.validation import ExactFraction, Integer, Thresholds, validate_params

__all__ = ["feature_items", "mine_antecedents", "antecedent_name", "count_candidates",
           "MAX_CANDIDATES"]

#: Default cap on the conjunctions mining may test (each costs a pass over the rows, and a
#: search over a million antecedents is out of reach anyway).
MAX_CANDIDATES = 1_000_000

#: Candidates tested between two looks at the budget.
_CHECK_EVERY = 512

_CONSTRAINTS = {"min_support": [ExactFraction(0, Fraction(1, 2), low_inclusive=True,
                                              high_inclusive=True)],
                "max_cardinality": [Integer(1)],
                "max_candidates": [Integer(1)],
                "thresholds": [Thresholds()]}


def antecedent_name(conditions):
    """CORELS-style name of a conjunction of items: ``sex:Male,priors:<=3.5``.

    Examples
    --------
    >>> antecedent_name([Proposition("sex, reported", "==", "M"), Proposition("n", ">", 2.0)])
    '"sex, reported":M,n:>2'
    """
    return ",".join(f"{_quoted(p.feature)}:{'' if p.operator == '==' else p.operator}"
                    f"{_quoted(format_value(p.value))}" for p in conditions)


def _quoted(text):
    """Text as is, or in double quotes (inner quotes doubled) when it holds ``:``, ``,`` or
    ``"``, which would make a name ambiguous."""
    if any(ch in text for ch in ':,"'):
        return '"' + text.replace('"', '""') + '"'
    return text


def feature_items(features, thresholds="quantile:3", weights=None):
    """The items of every feature column: a list (per feature) of lists of Proposition.

    Missing cells (None or NaN in canonical ``features``; specs/data.md §2) give no item: the
    cut points come from the present values, the categories from the present cells. With
    row ``weights`` (exact, >= 0), a row of weight w counts as w rows: rows of weight 0 give
    no item, and quantile cut points are those of the rows repeated by their weights.
    """
    items = []
    for name, column, is_numeric in zip(features.names, features.columns, features.numeric):
        if is_numeric:
            cuts = numeric_thresholds(column, thresholds, weights)
            items.append([Proposition(name, op, cut) for cut in cuts for op in ("<=", ">")])
        else:
            values = dict.fromkeys(cell for n, cell in enumerate(column)
                                   if cell is not None and (weights is None or weights[n] > 0))
            items.append([Proposition(name, "==", value) for value in values])
    return items


def count_candidates(items_per_feature, max_cardinality):
    """How many conjunctions of 1..``max_cardinality`` items from distinct features exist.

    The sum of the elementary symmetric polynomials e_1..e_k of the per-feature item counts.

    Examples
    --------
    >>> count_candidates([2, 2, 3], 2)       # 7 single items + 2*2 + 2*3 + 2*3 pairs
    23
    """
    # A conjunction takes at most one item per feature, so sizes beyond the feature count are
    # empty (and a huge max_cardinality must not allocate a huge list).
    max_cardinality = min(max_cardinality, len(items_per_feature))
    by_size = [1] + [0] * max_cardinality   # by_size[j]: conjunctions of j items so far
    for count in items_per_feature:
        for j in range(max_cardinality, 0, -1):
            by_size[j] += by_size[j - 1] * count
    return sum(by_size[1:])


def mine_antecedents(features, labels, *, classes=(0, 1), target="label", max_cardinality=2,
                     min_support=Fraction(1, 200), thresholds="quantile:3",
                     max_candidates=MAX_CANDIDATES, budget=None, sample_weight=None):
    """Mine antecedents from feature data and pair them with class labels.

    Parameters
    ----------
    features : Features, ndarray, DataFrame or dict of columns
    labels : array-like of int or bool, shape (N,)
        Class index of each row into ``classes`` (True/False: ``classes[1]``/``classes[0]``).
    classes : sequence of C >= 2 class values, default (0, 1)
    target : str, default "label"
    max_cardinality : int, default 2
        Largest number of items in one antecedent (>= 1).
    min_support : Fraction, str or float, default 1/200
        s in [0, 1/2]: keep antecedents holding for between s*N and (1-s)*N rows. Read
        exactly: ``"0.1"`` and ``0.1`` both mean 1/10.
    thresholds : {"all", "quantile:K", "width:K"}, default "quantile:3"
        Cut points of numeric columns.
    max_candidates : int, default :data:`MAX_CANDIDATES`
        Refuse, before any work, to test more conjunctions than this
        (:func:`count_candidates` tells how many the other parameters give).
    budget : optrules.limits.Budget, optional
        Time, memory and interrupt limits; when one is reached mining raises
        :class:`optrules.limits.Stopped`.
    sample_weight : sequence of numbers >= 0, shape (N,), optional
        Exact row weights (:mod:`optrules.data.weights`); supports are then weights.

    Returns
    -------
    BinaryDataset
        Antecedents in the documented order, with their conditions, and the labels.

    Raises
    ------
    ValueError
        If ``min_support`` is not a number in [0, 1/2], ``max_cardinality`` is not a positive
        integer, ``thresholds`` is invalid, the labels do not match the rows, or there are
        more than ``max_candidates`` candidate conjunctions.

    Examples
    --------
    >>> data = mine_antecedents({"a": ["x", "y", "x"], "b": ["u", "u", "v"]}, [1, 0, 1],
    ...                         min_support=0)
    >>> data.antecedent_names[:4]
    ('a:x', 'a:y', 'b:u', 'b:v')
    """
    features = as_features(features)
    labels = np.asarray(labels)
    if labels.shape != (features.n_samples,):
        raise ValueError(f"{labels.size} labels for {features.n_samples} rows.")
    if sample_weight is not None and (np.ndim(sample_weight) != 1 or
                                      len(sample_weight) != features.n_samples):
        raise ValueError(f"sample_weight has shape {np.shape(sample_weight)}; expected one "
                         f"weight per row, ({features.n_samples},).")
    if sample_weight is None:
        total, support, exact = features.n_samples, lambda held: int(held.sum()), None
    else:
        weights, unit = integer_weights(sample_weight)
        total, support = int(weights.sum()), lambda held: int(weights[held].sum())
        exact = [unit * int(k) for k in weights]
    given = validate_params(_CONSTRAINTS, {"min_support": min_support,
                                           "max_cardinality": max_cardinality,
                                           "thresholds": thresholds,
                                           "max_candidates": max_candidates},
                             "mine_antecedents")
    min_support_, max_cardinality = given["min_support"], given["max_cardinality"]
    items = feature_items(features, thresholds, exact)
    max_cardinality = min(max_cardinality, len(items))   # one item per feature at most
    n_candidates = count_candidates([len(column) for column in items], max_cardinality)
    if n_candidates > max_candidates:
        raise ValueError(
            f"mining would test {n_candidates:,} conjunctions of up to {max_cardinality} items "
            f"({sum(map(len, items)):,} items from {len(items):,} columns), more than "
            f"max_candidates={max_candidates:,}: lower max_cardinality (--max-cardinality), use "
            "fewer numeric cut points (thresholds, --thresholds quantile:K with a small K) or "
            "fewer columns; in Python, mine_antecedents(max_candidates=...) raises the cap.")
    item_bits = [[item.evaluate(features.columns[f]) for item in column_items]
                 for f, column_items in enumerate(items)]
    n_samples = features.n_samples
    low, high = min_support_ * total, (1 - min_support_) * total
    conditions, bits = [], []
    tested = itertools.count()
    for cardinality in range(1, max_cardinality + 1):
        for chosen in itertools.combinations(range(len(items)), cardinality):
            for choice in itertools.product(*(range(len(items[f])) for f in chosen)):
                if budget is not None and next(tested) % _CHECK_EVERY == 0 and \
                        (stop := budget.stop_reason()) is not None:
                    raise Stopped(stop, f"mining antecedents ({len(bits):,} kept so far)")
                held = np.logical_and.reduce([item_bits[f][i] for f, i in zip(chosen, choice)])
                if low <= support(held) <= high:
                    conditions.append(tuple(items[f][i] for f, i in zip(chosen, choice)))
                    bits.append(held)
    names = [antecedent_name(c) for c in conditions]
    return BinaryDataset.from_bits(names, np.array(bits, dtype=bool).reshape(len(names),
                                                                             n_samples),
                                   labels, target=target, classes=classes,
                                   antecedent_conditions=conditions, sample_weight=sample_weight)
