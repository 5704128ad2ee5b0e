"""Deliberately broken engines (test doubles): each returns a suboptimal answer with a claim
that it is optimal, so the verify checks must refute it."""

from fractions import Fraction

from optrules.reference import rule_boosting
from optrules.reference.corels import corels as reference_corels
from optrules.rule_lists.model import RuleList, RuleListResult


def corels(dataset, lam, config):
    """Claims the empty rule list is optimal (with its true objective)."""
    honest = reference_corels(dataset, lam, config)
    labels = dataset.label_bits()
    n_positive = int(labels.sum())
    default = dataset.classes[int(2 * n_positive >= dataset.n_samples)]
    mistakes = min(n_positive, dataset.n_samples - n_positive)
    objective = Fraction(mistakes, dataset.n_samples)
    return RuleListResult(RuleList((), default, dataset.target, dataset.classes),
                          objective, mistakes, dataset.n_samples, lam, "optimal", objective,
                          honest.nodes_expanded, honest.seconds)


def optimal_rule(problem, config):
    """Claims the greedy rule is optimal."""
    return rule_boosting.greedy_rule(problem, config)


greedy_rule = rule_boosting.greedy_rule
