"""Boosted rules (BOOMER, Rapp et al. 2023): greedy gradient-boosted rules with the pre-sorted
refinement search. :func:`fit_boosted_rules` learns a :class:`BoostedRules` model with an
engine of :data:`ENGINES`. See ``specs/boosted-rules.md``.
"""

from .fit import ENGINES, fit_boosted_rules
from .losses import LOSSES
from .model import BoostedRules, Condition, Rule

__all__ = ["fit_boosted_rules", "ENGINES", "LOSSES", "BoostedRules", "Condition", "Rule"]
