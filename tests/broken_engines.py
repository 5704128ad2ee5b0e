"""Deliberately broken engines (test doubles): each returns a suboptimal answer with a claim
that it is optimal, so the verify checks must refute it."""

from fractions import Fraction

from optrules.reference import rule_boosting
from optrules.reference.corels import corels as reference_corels
from optrules.rule_lists.model import RuleList, RuleListResult


def corels(dataset, lam, config):
    """Claims the empty rule list is optimal (with its true objective)."""
    honest = reference_corels(dataset, lam, config)
    weights = [1] * dataset.n_samples if not dataset.weighted else dataset.sample_weight()
    class_weights = [sum(w for w, label in zip(weights, dataset.labels) if label == c)
                     for c in range(dataset.n_classes)]
    largest = max(class_weights)
    default = dataset.classes[max(c for c, w in enumerate(class_weights) if w == largest)]
    mistakes = sum(class_weights) - largest
    objective = Fraction(mistakes) / sum(class_weights)
    return RuleListResult(RuleList((), default, dataset.target, dataset.classes),
                          objective, mistakes, dataset.n_samples, lam, "optimal", objective,
                          honest.nodes_expanded, honest.seconds,
                          total_weight=dataset.total_weight if dataset.weighted else None)


def optimal_rule(problem, config):
    """Claims the greedy rule is optimal."""
    return rule_boosting.greedy_rule(problem, config)


greedy_rule = rule_boosting.greedy_rule
