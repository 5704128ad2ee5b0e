"""Independent re-scoring of returned models, in exact arithmetic.

These helpers recompute what a model's objective *is* from the data alone; they do not trust
any number the engine reported.
"""

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

__all__ = ["RuleListCheck", "rescore_rule_list", "rescore_rule", "miscounted_rules"]


@dataclass(frozen=True)
class RuleListCheck:
    """Re-score of a rule list.

    Attributes
    ----------
    mistakes : int or Fraction
        Exact weight of the misclassified samples (their number when unweighted).
    objective : Fraction
        R(d) = mistakes/W + λK.
    non_majority_labels : tuple
        The rules (index k, or ``"default"``) whose label is not a majority label: some class
        has strictly more captured weight than the predicted one.
    captures : tuple
        Per rule, then the default: ``(rule, class_weights, predicted)`` with the exact
        captured weight of each class (a tuple of length C; int counts when unweighted) and
        the predicted class index.
    """

    mistakes: int | Fraction
    objective: Fraction
    non_majority_labels: tuple
    captures: tuple


def rescore_rule_list(instance, rule_list, classes):
    """Re-score a :class:`optrules.rule_lists.model.RuleList` on a RuleListInstance.

    A label is a majority label when no class has strictly more weight among the samples the
    rule captures (on a tie any maximal class is accepted: all give the same mistakes; the
    engines predict the last of them in class order).

    Parameters
    ----------
    instance : RuleListInstance
    rule_list : RuleList
    classes : sequence
        The C class values, in the order of the instance's class indices.

    Raises
    ------
    ValueError
        If ``classes`` does not have the instance's C values, the list names an antecedent the
        instance does not have, or a prediction not in ``classes``.
    """
    classes = list(classes)
    if len(classes) != instance.n_classes:
        raise ValueError(f"{len(classes)} classes {classes} given for an instance with "
                         f"{instance.n_classes} classes.")
    index = {name: m for m, name in enumerate(instance.names)}
    steps = []
    for k, rule in enumerate(rule_list.rules):
        if rule.antecedent not in index:
            raise ValueError(f"rule {k} uses antecedent {rule.antecedent!r}, which the "
                             "instance does not have.")
        steps.append((k, instance.antecedents[index[rule.antecedent]], rule.prediction))
    steps.append(("default", np.ones(instance.n_samples, dtype=bool), rule_list.default))
    weights = instance.sample_weights()
    zero = 0 if instance.weights is None else Fraction(0)
    uncaptured = np.ones(instance.n_samples, dtype=bool)
    mistakes, bad_labels, captures = zero, [], []
    for key, holds, prediction in steps:
        if prediction not in classes:
            raise ValueError(f"prediction {prediction!r} is not one of {classes}.")
        predicted = classes.index(prediction)
        captured = uncaptured & holds
        class_weights = [zero] * instance.n_classes
        for n in np.flatnonzero(captured).tolist():
            class_weights[instance.labels[n]] += weights[n]
        if max(class_weights) > class_weights[predicted]:
            bad_labels.append(key)
        captures.append((key, tuple(class_weights), predicted))
        mistakes += sum(class_weights) - class_weights[predicted]
        uncaptured &= ~holds
    objective = Fraction(mistakes) / instance.total_weight + \
        instance.lam * len(rule_list.rules)
    return RuleListCheck(mistakes, objective, tuple(bad_labels), tuple(captures))


def miscounted_rules(check, rule_list):
    """The keys (rule index, or "default") of ``check.captures`` (a :class:`RuleListCheck` of
    ``rule_list``) whose stated class counts are not the class weights the rule captures
    (lists without counts have none)."""
    stated = [rule.class_counts for rule in rule_list.rules] + [rule_list.default_counts]
    return [key for (key, weights, _), counts in zip(check.captures, stated)
            if counts is not None and tuple(counts) != weights]


def rescore_rule(instance, query):
    """Exact obj (eq. 2.3 of Boley et al.) of a conjunction of proposition indices."""
    return instance.objective(instance.extent_of(query))
