"""Exhaustive rule-list enumeration for tests, independent of the engines' search code.

Enumerates every ordered list of distinct antecedents up to Cor. 5's length bound
floor(1/(2λ)) (the empty list scores at most 1/2, so no longer list can be optimal) and scores
each exactly with Fractions. Only for tiny instances.
"""

from fractions import Fraction

import numpy as np


def optimal_objective(antecedent_bits, label_bits, lam):
    """Minimum of mistakes/N + λK over all rule lists; also returns how many lists were scored."""
    antecedent_bits = np.asarray(antecedent_bits, dtype=bool)
    labels = np.asarray(label_bits, dtype=bool)
    n_samples = labels.size
    max_length = min(int(1 / (2 * lam)), len(antecedent_bits))
    sets = [frozenset(np.flatnonzero(row)) for row in antecedent_bits]
    positives = frozenset(np.flatnonzero(labels))

    def majority_mistakes(samples):
        n_positive = len(samples & positives)
        return min(n_positive, len(samples) - n_positive)

    best = Fraction(majority_mistakes(frozenset(range(n_samples))), n_samples)
    scored = 1
    stack = [((), frozenset(range(n_samples)), 0)]
    while stack:
        prefix, uncaptured, prefix_mistakes = stack.pop()
        if len(prefix) == max_length:
            continue
        for m, antecedent in enumerate(sets):
            if m in prefix:
                continue
            captured = uncaptured & antecedent
            mistakes = prefix_mistakes + majority_mistakes(captured)
            rest = uncaptured - captured
            objective = Fraction(mistakes + majority_mistakes(rest), n_samples) \
                + lam * (len(prefix) + 1)
            best = min(best, objective)
            scored += 1
            stack.append((prefix + (m,), rest, mistakes))
    return best, scored


def rescore(antecedent_bits, label_bits, names, class_names, rule_list):
    """Mistakes of a returned rule list, checking each label is its captured samples' majority.

    Returns (mistakes, label_errors) where label_errors lists rules (index, or "default")
    whose prediction is not a majority label (a tie must predict the positive class).
    """
    antecedent_bits = np.asarray(antecedent_bits, dtype=bool)
    labels = np.asarray(label_bits, dtype=bool)
    uncaptured = np.ones(labels.size, dtype=bool)
    mistakes, label_errors = 0, []
    steps = [(k, antecedent_bits[names.index(r.antecedent)], r.prediction)
             for k, r in enumerate(rule_list.rules)]
    steps.append(("default", np.ones(labels.size, dtype=bool), rule_list.default))
    for key, holds, prediction in steps:
        captured = uncaptured & holds
        n_positive, n_captured = int(labels[captured].sum()), int(captured.sum())
        predicts_positive = prediction == class_names[1]
        if predicts_positive != (2 * n_positive >= n_captured):
            label_errors.append(key)
        mistakes += n_captured - n_positive if predicts_positive else n_positive
        uncaptured &= ~holds
    return mistakes, label_errors


def best_conjunction(extents, g, h, lam, max_length=None):
    """max over all conjunctions (⊤ included) of (Σg)^2 / (2n(λ + Σh)), exact, by enumeration.

    ``extents`` is a boolean matrix (d, n); g, h, lam are exact numbers (int or Fraction).
    Returns (best objective, list of the index tuples attaining it).
    """
    import itertools
    extents = np.asarray(extents, dtype=bool)
    n_samples = extents.shape[1]
    lengths = range(len(extents) + 1 if max_length is None else max_length + 1)
    best, argmax = None, []
    for length in lengths:
        for query in itertools.combinations(range(len(extents)), length):
            held = np.logical_and.reduce([extents[j] for j in query]) if query \
                else np.ones(n_samples, dtype=bool)
            value = conjunction_objective(held, g, h, lam)
            if best is None or value > best:
                best, argmax = value, [query]
            elif value == best:
                argmax.append(query)
    return best, argmax


def conjunction_objective(held, g, h, lam):
    """Exact eq. 2.3 for the samples where ``held`` is True."""
    members = np.flatnonzero(held)
    total_g = sum((Fraction(g[i]) for i in members), Fraction(0))
    total_d = Fraction(lam) + sum((Fraction(h[i]) for i in members), Fraction(0))
    if total_d == 0:
        return Fraction(0)
    return total_g * total_g / (2 * len(held) * total_d)


def best_subset_value(g, h, lam, members):
    """max over all subsets J of ``members`` of G_J^2 / (λ + H_J) (Thm 3.1's bnd, unscaled n)."""
    import itertools
    best = Fraction(0)
    for size in range(1, len(members) + 1):
        for subset in itertools.combinations(members, size):
            total_g = sum(Fraction(g[i]) for i in subset)
            total_d = Fraction(lam) + sum(Fraction(h[i]) for i in subset)
            best = max(best, total_g * total_g / total_d)
    return best
