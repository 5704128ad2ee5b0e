"""The averaging variant of compressed rule ensembles, a soft SIRUS (Nalenz and Augustin §4.4,
eqs. 11-13; ``specs/cre.md`` §5).

The K smooth rules that the most hard rules became (ties: the rule that appeared first) are
averaged; rule h predicts

    ŷ_h(x) = R_h(x)·μ₊ + (1 − R_h(x))·μ₋,
    μ₊ = Σ y_i R_h(x_i) / Σ R_h(x_i),   μ₋ = Σ y_i (1 − R_h(x_i)) / Σ (1 − R_h(x_i)),

the means of y weighted by the rule's output and by its complement (eqs. 11-12), and the
ensemble predicts the mean of the K rules' ŷ_h. Only rules that passed the support filter are
candidates (``design.select_rule_columns``), so both denominators are positive.

Examples
--------
>>> import numpy as np
>>> outputs = np.array([[1.0, 0.5], [0.0, 0.5], [1.0, 0.0], [0.0, 1.0]])
>>> most_frequent([3, 5], 1)
(1,)
>>> mu_plus, mu_minus = rule_means(outputs, np.array([1.0, 0.0, 1.0, 0.0]))
>>> mu_plus.tolist(), mu_minus.tolist()
([1.0, 0.25], [0.0, 0.75])
>>> averaged_prediction(outputs, mu_plus, mu_minus).tolist()
[0.75, 0.25, 0.875, 0.125]
"""

__all__ = ["most_frequent", "rule_means", "averaged_prediction"]


def most_frequent(counts, n_rules):
    """The indices of the ``n_rules`` largest ``counts`` (all when fewer), most frequent first,
    the earlier index on a tie."""
    order = sorted(range(len(counts)), key=lambda h: (-counts[h], h))
    return tuple(order[:n_rules])


def rule_means(outputs, y):
    """(μ₊, μ₋) of every column of ``outputs`` (n, K) for targets ``y`` (eqs. 11-12)."""
    uncovered = 1.0 - outputs
    return (y @ outputs) / outputs.sum(axis=0), (y @ uncovered) / uncovered.sum(axis=0)


def averaged_prediction(outputs, mu_plus, mu_minus):
    """The mean over the rules of R_h(x)·μ₊ + (1 − R_h(x))·μ₋ (eq. 13), one value per row."""
    return (outputs * mu_plus + (1.0 - outputs) * mu_minus).mean(axis=1)
