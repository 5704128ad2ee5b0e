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
