"""Gradient rule boosting with an optimal or greedy base learner (public entry point).

Boley et al. (2021), §2.3: start from f_0 = 0; in round t compute the gradient statistics
g_i, h_i of the loss at f_{t-1}, let the base learner choose the query q_t maximising eq. 2.3,
and add the rule w_t q_t with w_t from eq. 2.2. With ``intercept=True`` a first rule with the
empty query ⊤ (weight by eq. 2.2) is added before the k searched rules and not counted in k.
"""

import importlib
import math
import numbers
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from optrules.data import bitset
from optrules.rule_boosting.model import BoostedRule, RuleEnsemble, RuleSearchResult
from optrules.rule_boosting.gradient_problem import GradientProblem
from optrules.rule_boosting.losses import get_loss
from optrules.validation import parse_fraction
from optrules.data.propositions import PropositionSet, make_propositions

__all__ = ["fit_rule_ensemble", "fit_rule", "BaseLearnerConfig", "ENGINES", "SEARCHES"]

#: Engine name -> module holding ``optimal_rule`` and ``greedy_rule``.
ENGINES = {"reference": "optrules.reference.rule_boosting"}
SEARCHES = {"optimal": "optimal_rule", "greedy": "greedy_rule"}


@dataclass(frozen=True)
class BaseLearnerConfig:
    """Validated base-learner options."""

    alpha: Fraction = Fraction(1)
    max_depth: int | None = None
    bound_pruning: bool = True
    equivalence_pruning: bool = True
    max_nodes: int | None = None
    time_limit: float | None = None


def _positive_int(name, value, allow_none=True):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"The {name!r} parameter must be a positive integer"
                         f"{' or None' if allow_none else ''}. Got {value!r} instead.")
    return int(value)


def _config(apx, max_depth, bound_pruning, equivalence_pruning, max_nodes, time_limit):
    alpha = parse_fraction("apx", apx, low=0, high=1, function="rule boosting",
                           high_inclusive=True)
    if time_limit is not None and (isinstance(time_limit, bool) or
                                   not isinstance(time_limit, numbers.Real) or
                                   not 0 < time_limit < math.inf):
        raise ValueError(f"The 'time_limit' parameter must be a positive number of seconds or "
                         f"None. Got {time_limit!r} instead.")
    return BaseLearnerConfig(alpha, _positive_int("max_depth", max_depth), bool(bound_pruning),
                             bool(equivalence_pruning), _positive_int("max_nodes", max_nodes),
                             time_limit)


def _learner(engine, search):
    if engine not in ENGINES:
        raise ValueError(f"The 'engine' parameter must be one of {list(ENGINES)}. "
                         f"Got {engine!r} instead.")
    if search not in SEARCHES:
        raise ValueError(f"The 'search' parameter must be one of {list(SEARCHES)}. "
                         f"Got {search!r} instead.")
    return getattr(importlib.import_module(ENGINES[engine]), SEARCHES[search])


def fit_rule(problem, *, search="optimal", engine="reference", apx=1, max_depth=None,
             bound_pruning=True, equivalence_pruning=True, max_nodes=None, time_limit=None):
    """Run one base learner on a :class:`GradientProblem` (one boosting round).

    Returns
    -------
    RuleSearchResult
        For ``search="optimal"`` and status "optimal", obj(q) >= apx · max obj over all
        conjunctions (of at most ``max_depth`` propositions when given).
    """
    config = _config(apx, max_depth, bound_pruning, equivalence_pruning, max_nodes, time_limit)
    return _learner(engine, search)(problem, config)


def fit_rule_ensemble(X, y, *, loss="logistic", n_rules=10, lam=2, search="optimal",
                      thresholds="quantile:10", max_depth=None, apx=1, engine="reference",
                      intercept=False, positive=None, max_nodes=None, time_limit=None,
                      feature_names=None, progress=None):
    """Boost an additive ensemble of ``n_rules`` conjunctive rules.

    Parameters
    ----------
    X : ndarray (n, d), DataFrame or dict of columns
        Numeric and categorical features; missing values satisfy no proposition.
    y : array-like (n,)
        Target: any two classes (logistic), reals (squared) or counts (poisson).
    loss : {"logistic", "squared", "poisson"} or Loss, default "logistic"
    n_rules : int, default 10
    lam : number or str, default 2
        λ >= 0 of eq. 2.2-2.3 (exact; "0.5" is 1/2).
    search : {"optimal", "greedy"}, default "optimal"
    thresholds : {"all", "quantile:K", "width:K"}, default "quantile:10"
        See :mod:`optrules.data.propositions`.
    max_depth : int, optional
        Most propositions per rule.
    apx : float or Fraction in (0, 1], default 1
        Approximation factor α of Algorithm 1 (1 = exactly optimal rules).
    engine : {"reference"}, default "reference"
    intercept : bool, default False
        Add a first rule with the empty query (not counted in ``n_rules``).
    positive : optional
        Positive class for the logistic loss.
    max_nodes, time_limit : optional
        Per-rule search limits; a limited rule reports its guarantee in its statistics.
    feature_names : sequence of str, optional
    progress : callable, optional
        Called as ``progress(t, rule)`` after each rule.

    Returns
    -------
    RuleEnsemble

    References
    ----------
    .. [1] M. Boley, S. Teshuva, P. Le Bodic, G. I. Webb. "Better short than greedy:
       interpretable models through optimal rule boosting." SDM 2021.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> ensemble = fit_rule_ensemble(X, [0, 0, 1, 1], n_rules=1, lam=1, thresholds="all")
    >>> print(ensemble)      # x0<=1.5 ties with x0>1.5; the lower proposition index wins
    -0.6667 if x0<=1.5
    """
    start = time.perf_counter()
    loss_ = get_loss(loss, positive)
    n_rules_ = _positive_int("n_rules", n_rules, allow_none=False)
    lam_ = parse_fraction("lam", lam, low=0, high=float("inf"), function="fit_rule_ensemble",
                          low_inclusive=True)
    learner = _learner(engine, search)
    config = _config(apx, max_depth, True, True, max_nodes, time_limit)
    propositions = X if isinstance(X, PropositionSet) else make_propositions(
        X, thresholds, feature_names)
    target = loss_.prepare_target(y)
    if target.shape != (propositions.n_samples,):
        raise ValueError(f"y has {target.size} values but X has {propositions.n_samples} rows.")
    scores = np.zeros(propositions.n_samples)
    rules = []
    for t in range(n_rules_ + bool(intercept)):
        g, h = loss_.gradients(target, scores)
        problem = GradientProblem.from_values(propositions.extents, propositions.names, g, h,
                                              lam_)
        if intercept and t == 0:
            result = _intercept(problem)
        else:
            result = learner(problem, config)
        rule = _boosted_rule(propositions, result)
        rules.append(rule)
        scores += rule.weight * bitset.unpack(bitset.from_int(result.extent, target.size),
                                              target.size)
        if progress is not None:
            progress(t, rule)
    return RuleEnsemble(tuple(rules), loss_, lam_, search, time.perf_counter() - start)


def _intercept(problem):
    everything = problem.everything
    return RuleSearchResult((), (), problem.objective(everything), problem.weight(everything),
                            problem.n_samples, everything, None, "optimal", {"nodes": 0})


def _float(value, what):
    """An exact value as a float, or a clear error when it does not fit in one."""
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"the {what} of a boosted rule exceeds the float range; rescale the "
                         "target or raise lam.") from None


def _boosted_rule(propositions, result):
    statistics = dict(result.statistics, status=result.status, seconds=round(result.seconds, 6))
    if result.upper_bound is not None:
        statistics["upper_bound"] = _float(result.upper_bound, "upper bound")
        statistics["bound_gap"] = _float(result.bound_gap, "bound gap")
        statistics["guarantee"] = float(result.guarantee)
    return BoostedRule(tuple(propositions.propositions[j] for j in result.query),
                       _float(result.weight, "weight"), _float(result.objective, "objective"),
                       result.coverage, statistics)
