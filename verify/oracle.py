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


def _majority_mistakes(members, positives):
    n_positive = len(members & positives)
    return min(n_positive, len(members) - n_positive)


def optimal_rule_list(instance):
    """Minimum of R(d) = mistakes/N + λK over all rule lists (Angelino et al. 2018, eq. 6).

    Enumerates every ordered list of distinct antecedents up to K_max = min(M,
    floor(R(empty)/λ)): a longer list costs more than λ·K_max >= R(empty) and cannot win.

    Returns
    -------
    objective : Fraction
    prefix : tuple of int
        Antecedent indices of one optimal list (the first found in enumeration order).

    Raises
    ------
    InstanceTooLarge
        If more than :data:`MAX_RULE_LISTS` lists would be enumerated.
    Interrupted
        If a signal asked every method to stop (see :mod:`.stopping`).
    """
    n_samples, lam = instance.n_samples, instance.lam
    everything = frozenset(range(n_samples))
    positives = frozenset(np.flatnonzero(instance.labels).tolist())
    empty = Fraction(_majority_mistakes(everything, positives), n_samples)
    max_length = min(instance.n_antecedents, math.floor(empty / lam))
    count = sum(math.perm(instance.n_antecedents, k) for k in range(max_length + 1))
    if count > MAX_RULE_LISTS:
        raise InstanceTooLarge(f"the rule-list oracle would enumerate {count} lists "
                               f"(limit {MAX_RULE_LISTS}); use the CP-SAT or MaxSAT encodings.")
    sets = [frozenset(np.flatnonzero(row).tolist()) for row in instance.antecedents]
    best, best_prefix = empty, ()
    stack = [((), everything, 0)]
    while stack:
        check_interrupt()
        prefix, uncaptured, prefix_mistakes = stack.pop()
        if len(prefix) == max_length:
            continue
        for m, antecedent in enumerate(sets):
            if m in prefix:
                continue
            captured = uncaptured & antecedent
            mistakes = prefix_mistakes + _majority_mistakes(captured, positives)
            rest = uncaptured - captured
            objective = Fraction(mistakes + _majority_mistakes(rest, positives), n_samples) \
                + lam * (len(prefix) + 1)
            if objective < best:
                best, best_prefix = objective, prefix + (m,)
            stack.append((prefix + (m,), rest, mistakes))
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
