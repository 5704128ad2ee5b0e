"""Certifiably optimal rule lists (Angelino et al. 2018): entry point, model, estimator.

:func:`fit_rule_list` searches a :class:`~optrules.data.binary_dataset.BinaryDataset` through
the engine chosen in :data:`ENGINES`; :class:`RuleList` and :class:`RuleListResult` are what it
returns. The problem, bounds and tie-breaking order are stated in ``specs/rule-lists.md``.
"""

from .fit import BOUNDS, ENGINES, POLICIES, SYMMETRY_MAPS, ProgressLog, fit_rule_list
from .model import Rule, RuleList, RuleListResult, score

__all__ = ["fit_rule_list", "ENGINES", "BOUNDS", "POLICIES", "SYMMETRY_MAPS", "ProgressLog",
           "Rule", "RuleList", "RuleListResult", "score"]
