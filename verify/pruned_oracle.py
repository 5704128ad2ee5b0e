"""Exact enumeration of rule lists pruned by the hierarchical bound alone.

The plain oracle (:mod:`.oracle`) enumerates every list and stops at 2 million. This one
enumerates the same lists but skips every extension of a prefix that the hierarchical bound
(Angelino et al. 2018, Theorem 1) shows cannot beat the best list found so far. That bound is
the only pruning, and its proof fits in two lines an auditor can check by hand:

    A list that starts with prefix p = (r_1, ..., r_k) misclassifies at least what r_1..r_k
    misclassify (later rules and the default only see the samples p leaves uncaptured, and
    weights are >= 0), and has at least k rules. So every list starting with p has
    R >= b(p) = (mistakes of r_1..r_k)/W + λk.

Hence a prefix with b(p) >= the best objective so far has no extension (itself included)
that is strictly better, and is not extended; a prefix with b(p) + λ >= best has no strictly
better extension with another rule (each has b >= b(p) + λ), so its children are not generated.
Nothing else is pruned, and no code is shared with the engines.

Lists are enumerated over groups of samples with one antecedent vector (a list captures a group
whole) with integer class weights (:func:`.rule_list_encodings.integer_groups`), all children of
a batch of prefixes at once: the class weights each child captures, and those its default gets,
are float64 matrix products of 0/1 values and integers with sums below 2**53, hence exact;
objectives are int64 integers in units of 1/(q·W') for λ = p/q, below 2**62.
"""

import time
from fractions import Fraction

import numpy as np

from .oracle import InstanceTooLarge
from .rule_list_encodings import SolverAnswer, integer_groups, max_slots
from .stopping import check_interrupt

__all__ = ["pruned_optimal_rule_list"]

#: Most entries (prefixes × groups) of one batch.
BATCH_ENTRIES = 1 << 20


def pruned_optimal_rule_list(instance, time_limit=60.0, known=None):
    """Minimum of R(d) over all rule lists, by enumeration pruned with Theorem 1 only.

    Parameters
    ----------
    instance : RuleListInstance
    time_limit : float
        Seconds before it gives up (status "TIME LIMIT", not certified).
    known : KnownList, optional
        A list whose objective U the caller computed from the data: the search then starts
        with U as the best objective, and finds the lists strictly below it (the optimum is U
        if there is none).

    Returns
    -------
    SolverAnswer
        ``solver`` "pruned-oracle", ``status`` "ENUMERATED (n prefixes)" with the exact
        optimum and one optimal list (each rule and the default predicting a largest class of
        what it captures), or "TIME LIMIT".

    Raises
    ------
    InstanceTooLarge
        If the integer weights leave the exact float64/int64 range.
    Interrupted
        If a signal asked every method to stop.

    Examples
    --------
    >>> from optrules.verify.instances import RuleListInstance
    >>> instance = RuleListInstance.from_bits([[1, 1, 0, 0], [0, 1, 1, 0]], [1, 1, 0, 0], "1/10")
    >>> answer = pruned_optimal_rule_list(instance)
    >>> answer.status, answer.objective, answer.prefix, answer.labels, answer.default
    ('ENUMERATED (1 prefixes)', Fraction(1, 10), (0,), (1,), 0)
    """
    start = time.perf_counter()
    groups, total = integer_groups(instance)
    mistake, rule = instance.lam.denominator, instance.lam.numerator * total
    slots = max_slots(instance, known)
    if total >= 1 << 53 or mistake * total + rule * (slots + 1) >= 1 << 62:
        raise InstanceTooLarge(f"the pruned oracle's exact range ends at a total weight of "
                               f"2**53 and objectives of 2**62 units (here {total} and λ = "
                               f"{instance.lam}); use the MaxSAT encoding.")
    holds = np.array([vector for vector, _ in groups], dtype=bool).reshape(
        len(groups), instance.n_antecedents).T                     # (M, U)
    weights = np.array([w for _, w in groups], dtype=np.float64)   # (U, C)
    n_antecedents, n_groups = holds.shape
    n_classes = weights.shape[1]
    # captured_weights[u, m·C + c]: group u's class-c weight if antecedent m holds for it, so
    # (uncaptured groups) @ captured_weights = each child's captured weight of each class
    captured_weights = (holds.T[:, :, None] * weights[:, None, :]).reshape(
        n_groups, n_antecedents * n_classes)

    def mistakes(per_class):
        """Weight outside a largest class, (..., C) float -> int64 (...)."""
        per_class = per_class.astype(np.int64)
        return per_class.sum(axis=-1) - per_class.max(axis=-1)

    everything = np.ones((1, n_groups), dtype=bool)
    best = mistake * int(mistakes(everything @ weights)[0])        # the empty list
    best_prefix = ()
    if known is not None and known.objective * mistake * total < best:
        best, best_prefix = int(known.objective * mistake * total), tuple(known.prefix)
    batch = max(1, BATCH_ENTRIES // max(1, n_groups))
    # open prefixes: uncaptured groups, antecedents in order, b(p) in units
    stack = [(everything, np.zeros((1, 0), dtype=np.int64), np.zeros(1, dtype=np.int64))]
    nodes = 0
    while stack and slots:
        check_interrupt()
        if time.perf_counter() - start > time_limit:
            return SolverAnswer("pruned-oracle", "TIME LIMIT", False, None, (), (), None,
                                time.perf_counter() - start)
        uncaptured, prefixes, bounds = stack.pop()
        if len(bounds) > batch:
            stack.append((uncaptured[:-batch], prefixes[:-batch], bounds[:-batch]))
            uncaptured, prefixes, bounds = \
                uncaptured[-batch:], prefixes[-batch:], bounds[-batch:]
        nodes += len(bounds)
        open_weights = uncaptured.astype(np.float64)
        captured = (open_weights @ captured_weights).reshape(-1, n_antecedents, n_classes)
        left = (open_weights @ weights)[:, None, :] - captured      # what the default gets
        child_bounds = bounds[:, None] + mistake * mistakes(captured) + rule
        fresh = np.ones(child_bounds.shape, dtype=bool)
        np.put_along_axis(fresh, prefixes, False, axis=1)           # distinct antecedents
        rows, antecedents = np.nonzero(fresh & (child_bounds < best))
        if not len(rows):
            continue
        child_bounds = child_bounds[rows, antecedents]
        objectives = child_bounds + mistake * mistakes(left[rows, antecedents])
        winner = int(np.argmin(objectives))
        if objectives[winner] < best:
            best = int(objectives[winner])
            best_prefix = tuple(prefixes[rows[winner]].tolist()) + (int(antecedents[winner]),)
        if prefixes.shape[1] + 1 < slots:
            extend = child_bounds + rule < best                     # b(child) + λ < best
            rows, antecedents = rows[extend], antecedents[extend]
            stack.append((uncaptured[rows] & ~holds[antecedents], np.column_stack(
                (prefixes[rows], antecedents)), child_bounds[extend]))
    labels = _largest_classes(instance, best_prefix)
    return SolverAnswer("pruned-oracle", f"ENUMERATED ({nodes} prefixes)", True,
                        Fraction(best, mistake * total), best_prefix, labels[:-1], labels[-1],
                        time.perf_counter() - start)


def _largest_classes(instance, prefix):
    """A class of largest weight among the samples each rule of ``prefix``, then the
    default, captures (for the report; the optimum does not depend on them)."""
    weights = instance.sample_weights()
    uncaptured = np.ones(instance.n_samples, dtype=bool)
    labels = []
    for holds in [instance.antecedents[m] for m in prefix] + [uncaptured]:
        captured = uncaptured & holds
        per_class = [0] * instance.n_classes
        for n in np.flatnonzero(captured).tolist():
            per_class[instance.labels[n]] += weights[n]
        labels.append(per_class.index(max(per_class)))
        uncaptured &= ~captured
    return tuple(labels)
