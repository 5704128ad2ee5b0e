"""Exact brute-force oracles for tiny instances, in ``Fraction`` arithmetic.

They enumerate the whole search space, so they need no bound and no search code of the
engines: an auditor can read them in a minute. Size guards refuse instances that would take
too long, with a clear error.
"""

import itertools
import math
from fractions import Fraction

import numpy as np

from .stopping import check_interrupt

__all__ = ["InstanceTooLarge", "optimal_rule_list", "optimal_rule", "MAX_RULE_LISTS",
           "MAX_CONJUNCTIONS"]

#: Most rule lists the rule-list oracle enumerates.
MAX_RULE_LISTS = 2_000_000
#: Most conjunctions the rule oracle enumerates.
MAX_CONJUNCTIONS = 1 << 16


class InstanceTooLarge(ValueError):
    """The instance is too large for exhaustive enumeration."""


def optimal_rule_list(instance):
    """Minimum of R(d) = (weighted mistakes)/W + λK over all rule lists (Angelino et al. 2018,
    eq. 6, with C classes and sample weights w_n; W = Σ w_n).

    Each rule, and the default, predicts a class of largest weight among the samples it
    captures, so a set S of captured samples costs w(S) − max_c w(S ∩ class c) (every maximal
    class costs the same, so ties do not matter here). Enumerates every ordered list of
    distinct antecedents of length at most K_max = min(M, floor(R(empty)/λ)).

    Returns
    -------
    objective : Fraction
    prefix : tuple of int
        Antecedent indices of the optimal list that comes first in the result order of
        specs/rule-lists.md §6: fewest rules, then lexicographically smallest indices.

    Raises
    ------
    InstanceTooLarge
        If more than :data:`MAX_RULE_LISTS` lists would be enumerated.
    Interrupted
        If a signal asked every method to stop (see :mod:`.stopping`).
    """
    lam, total = instance.lam, instance.total_weight
    weights = instance.sample_weights()
    classes = [frozenset(np.flatnonzero(instance.labels == c).tolist())
               for c in range(instance.n_classes)]

    def mistakes(captured):
        """Weight of the samples in ``captured`` outside a class of largest weight there."""
        per_class = [sum((weights[n] for n in captured & members), Fraction(0))
                     for members in classes]
        return sum(per_class) - max(per_class)

    everything = frozenset(range(instance.n_samples))
    empty = mistakes(everything) / total
    # K_max: the misclassification term is >= 0 (weights are >= 0), so a list of K rules has
    # R >= λK; if λK > R(empty) it is strictly worse than the empty list, so every optimal list
    # has K <= R(empty)/λ, i.e. K <= floor(R(empty)/λ); and K <= M (distinct antecedents).
    max_length = min(instance.n_antecedents, math.floor(empty / lam))
    count = sum(math.perm(instance.n_antecedents, k) for k in range(max_length + 1))
    if count > MAX_RULE_LISTS:
        raise InstanceTooLarge(f"the rule-list oracle would enumerate {count} lists "
                               f"(limit {MAX_RULE_LISTS}); use the pruned oracle or the "
                               "CP-SAT or MaxSAT encodings.")
    sets = [frozenset(np.flatnonzero(row).tolist()) for row in instance.antecedents]
    best, best_prefix = empty, ()
    stack = [((), everything, Fraction(0))]
    while stack:
        check_interrupt()
        prefix, uncaptured, prefix_mistakes = stack.pop()
        if len(prefix) == max_length:
            continue
        for m, antecedent in enumerate(sets):
            if m in prefix:
                continue
            captured = uncaptured & antecedent
            with_rule = prefix_mistakes + mistakes(captured)
            rest = uncaptured - captured
            objective = (with_rule + mistakes(rest)) / total + lam * (len(prefix) + 1)
            if objective < best or objective == best and \
                    (len(prefix) + 1, prefix + (m,)) < (len(best_prefix), best_prefix):
                best, best_prefix = objective, prefix + (m,)
            stack.append((prefix + (m,), rest, with_rule))
    return best, best_prefix


def optimal_rule(instance, max_length=None):
    """Maximum of obj(q) (Boley et al. 2021, eq. 2.3) over all conjunctions, ⊤ included.

    Parameters
    ----------
    instance : RuleInstance
    max_length : int, optional
        Only conjunctions of at most this many propositions.

    Returns
    -------
    objective : Fraction
    query : tuple of int
        One maximiser (the first in order of length, then lexicographic order).

    Raises
    ------
    InstanceTooLarge
        If more than :data:`MAX_CONJUNCTIONS` conjunctions would be enumerated.
    Interrupted
        If a signal asked every method to stop (see :mod:`.stopping`).
    """
    d = len(instance.extents)
    top = d if max_length is None else min(d, max_length)
    count = sum(math.comb(d, k) for k in range(top + 1))
    if count > MAX_CONJUNCTIONS:
        raise InstanceTooLarge(f"the rule oracle would enumerate {count} conjunctions "
                               f"(limit {MAX_CONJUNCTIONS}); use the CP-SAT check.")
    best, best_query = None, ()
    for length in range(top + 1):
        check_interrupt()
        for query in itertools.combinations(range(d), length):
            value = instance.objective(instance.extent_of(query))
            if best is None or value > best:
                best, best_query = value, query
    return best, best_query
