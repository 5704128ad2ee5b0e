"""Independent re-scoring of returned models, in exact arithmetic.

These helpers recompute what a model's objective *is* from the data alone; they do not trust
any number the engine reported.
"""

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

__all__ = ["RuleListCheck", "rescore_rule_list", "rescore_rule"]


@dataclass(frozen=True)
class RuleListCheck:
    """Re-score of a rule list: exact mistakes and objective, labels that are not a majority
    label of the samples they capture (``"default"`` for the default rule), and per rule
    ``(rule, n_captured, n_positive, predicts_positive)``."""

    mistakes: int
    objective: Fraction
    non_majority_labels: tuple
    captures: tuple


def rescore_rule_list(instance, rule_list, classes):
    """Re-score a :class:`optrules.rule_lists.model.RuleList` on a RuleListInstance.

    A label is a majority label when it is the strictly more frequent label of the samples the
    rule captures, or either label on a tie (CORELS predicts positive on a tie; both give the
    same mistakes).

    Raises
    ------
    ValueError
        If the list names an antecedent the instance does not have, or a class not in
        ``classes``.
    """
    index = {name: m for m, name in enumerate(instance.names)}
    uncaptured = np.ones(instance.n_samples, dtype=bool)
    mistakes, bad_labels, captures = 0, [], []
    steps = []
    for k, rule in enumerate(rule_list.rules):
        if rule.antecedent not in index:
            raise ValueError(f"rule {k} uses antecedent {rule.antecedent!r}, which the "
                             "instance does not have.")
        steps.append((k, instance.antecedents[index[rule.antecedent]], rule.prediction))
    steps.append(("default", np.ones(instance.n_samples, dtype=bool), rule_list.default))
    for key, holds, prediction in steps:
        if prediction not in classes:
            raise ValueError(f"prediction {prediction!r} is not one of {list(classes)}.")
        captured = uncaptured & holds
        n_captured = int(captured.sum())
        n_positive = int(instance.labels[captured].sum())
        predicts_positive = prediction == classes[1]
        wrong = n_captured - n_positive if predicts_positive else n_positive
        if 2 * wrong > n_captured:
            bad_labels.append(key)
        captures.append((key, n_captured, n_positive, predicts_positive))
        mistakes += wrong
        uncaptured &= ~holds
    objective = Fraction(mistakes, instance.n_samples) + instance.lam * len(rule_list.rules)
    return RuleListCheck(mistakes, objective, tuple(bad_labels), tuple(captures))


def rescore_rule(instance, query):
    """Exact obj (eq. 2.3 of Boley et al.) of a conjunction of proposition indices."""
    return instance.objective(instance.extent_of(query))
