"""Optimal rule boosting (Boley et al. 2021): entry points, models, losses, estimators.

:func:`fit_rule_ensemble` boosts an additive rule ensemble whose base learner, chosen in
:data:`ENGINES` and ``SEARCHES``, finds the conjunction maximising eq. 2.3 exactly (or greedily);
:func:`fit_rule` runs one base learner on a :class:`GradientProblem`. See
``specs/rule-boosting.md``.
"""

from .fit import ENGINES, SEARCHES, fit_rule, fit_rule_ensemble
from .gradient_problem import GradientProblem
from .losses import LOSSES, get_loss
from .model import BoostedRule, RuleEnsemble, RuleSearchResult

__all__ = ["fit_rule_ensemble", "fit_rule", "ENGINES", "SEARCHES", "GradientProblem", "LOSSES",
           "get_loss", "BoostedRule", "RuleEnsemble", "RuleSearchResult"]
