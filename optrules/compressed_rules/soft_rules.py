"""Soft conditions and smooth rules of compressed rule ensembles (Nalenz and Augustin §4.3,
eqs. 6-7; ``specs/cre.md`` §3): the problem both engines evaluate.

Each hard condition ``x_v <= t`` or ``x_v > t`` of a harvested rule is replaced by the soft
condition of the cluster of v's split points that holds t (:func:`compress_rules`). The soft
condition of cluster l for ``<=`` is Φ(x) = (1/n_l) Σ_{t in l} w_t I(x <= t), for ``>`` it is
1 − Φ(x), and 0 for a missing x; a smooth rule is the product of its distinct soft conditions.
The engines' ``smooth_rule_matrix`` evaluate the rules on data.

Examples
--------
>>> from optrules.compressed_rules.clustering import cluster_split_points
>>> clusters = {0: cluster_split_points([1.0, 2.0, 2.0, 9.0], k_max=2)}
>>> smooth = compress_rules([((0, "<=", 2.0),), ((0, "<=", 1.0),), ((0, ">", 9.0),)], clusters)
>>> smooth.rules
(SmoothRule(conditions=(SoftCondition(feature=0, cluster=0, operator='<='),)), \
SmoothRule(conditions=(SoftCondition(feature=0, cluster=1, operator='>'),)))
>>> smooth.counts                # how many hard rules became each smooth rule
(2, 1)
"""

from typing import NamedTuple

__all__ = ["SoftCondition", "SmoothRule", "SmoothRules", "compress_rules", "OPERATORS"]

OPERATORS = ("<=", ">")


class SoftCondition(NamedTuple):
    """The soft condition of cluster ``cluster`` (index, ascending) of ``feature``'s split
    points, for ``operator`` "<=" or ">"."""

    feature: int
    cluster: int
    operator: str


class SmoothRule(NamedTuple):
    """A product of distinct soft conditions, sorted."""

    conditions: tuple

    @property
    def length(self):
        """The number of soft conditions (eq. 9's length)."""
        return len(self.conditions)


class SmoothRules(NamedTuple):
    """The distinct smooth rules of a rule harvest, in order of first appearance, and how many
    hard rules became each (``counts``, what the averaging variant ranks them by)."""

    rules: tuple
    counts: tuple


def compress_rules(rules, clusters):
    """The :class:`SmoothRules` of hard ``rules`` (tuples of (feature, operator, threshold)),
    given each feature's clusters (``clusters[feature]``: the
    :class:`~optrules.compressed_rules.clustering.Cluster` s of its split points, which hold
    every threshold of the rules). Conditions that become the same soft condition appear once
    in their rule.

    Raises ValueError for an operator other than "<=" and ">", and for a threshold in no
    cluster of its feature.
    """
    where = {}
    for feature, feature_clusters in clusters.items():
        for index, cluster in enumerate(feature_clusters):
            for value in cluster.values:
                where[feature, value] = index
    counts = {}
    for position, rule in enumerate(rules):
        conditions = set()
        for feature, operator, threshold in rule:
            if operator not in OPERATORS:
                raise ValueError(f"rule {position}: operator {operator!r} is not one of "
                                 f"{OPERATORS}.")
            key = (feature, float(threshold))
            if key not in where:
                raise ValueError(f"rule {position}: split point {threshold!r} of feature "
                                 f"{feature} is in none of its clusters.")
            conditions.add(SoftCondition(feature, where[key], operator))
        rule = SmoothRule(tuple(sorted(conditions)))
        if rule.conditions:
            counts[rule] = counts.get(rule, 0) + 1       # dicts keep first appearances' order
    return SmoothRules(tuple(counts), tuple(counts.values()))
