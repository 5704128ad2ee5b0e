"""Gradient rule boosting with an optimal or greedy base learner (public entry point).

Boley et al. (2021), §2.3: start from f_0 = 0; in round t compute the gradient statistics
g_i, h_i of the loss at f_{t-1}, let the base learner choose the query q_t maximising eq. 2.3,
and add the rule w_t q_t with w_t from eq. 2.2. With ``intercept=True`` a first rule with the
empty query ⊤ (weight by eq. 2.2) is added before the k searched rules and not counted in k.
"""

import importlib
import math
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from optrules.data import bitset
from optrules.data.propositions import PropositionSet, make_propositions
from optrules.rule_boosting.gradient_problem import GradientProblem
from optrules.rule_boosting.losses import get_loss
from optrules.rule_boosting.model import BoostedRule, RuleEnsemble, RuleSearchResult
from optrules.validation import (Boolean, Callable, ExactFraction, Integer, Options, Real,
                                 Thresholds, validate_params)

__all__ = ["fit_rule_ensemble", "fit_rule", "BaseLearnerConfig", "ENGINES", "SEARCHES",
           "BASE_LEARNER_CONSTRAINTS", "ENSEMBLE_CONSTRAINTS"]

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


#: Parameters of one base-learner run (fit_rule) and what each may be.
BASE_LEARNER_CONSTRAINTS = {
    "search": [Options(SEARCHES)],
    "engine": [Options(ENGINES)],
    "apx": [ExactFraction(0, 1, high_inclusive=True)],
    "max_depth": [Integer(1), None],
    "bound_pruning": [Boolean()],
    "equivalence_pruning": [Boolean()],
    "max_nodes": [Integer(1), None],
    "time_limit": [Real(), None],
}

#: Parameters of fit_rule_ensemble (besides the data and the loss) and what each may be.
ENSEMBLE_CONSTRAINTS = dict(
    {name: BASE_LEARNER_CONSTRAINTS[name]
     for name in ("search", "engine", "apx", "max_depth", "max_nodes", "time_limit")},
    n_rules=[Integer(1)],
    lam=[ExactFraction(0, math.inf, low_inclusive=True)],
    thresholds=[Thresholds()],
    intercept=[Boolean()],
    progress=[Callable(), None])


def _config(given):
    return BaseLearnerConfig(given["apx"], given["max_depth"],
                             given.get("bound_pruning", True),
                             given.get("equivalence_pruning", True), given["max_nodes"],
                             given["time_limit"])


def _learner(given):
    return getattr(importlib.import_module(ENGINES[given["engine"]]), SEARCHES[given["search"]])


def fit_rule(problem, *, search="optimal", engine="reference", apx=1, max_depth=None,
             bound_pruning=True, equivalence_pruning=True, max_nodes=None, time_limit=None):
    """Run one base learner on a :class:`GradientProblem` (one boosting round).

    Returns
    -------
    RuleSearchResult
        For ``search="optimal"``: with status "optimal", obj(q) = max obj over all
        conjunctions (of at most ``max_depth`` propositions when given); with "approximate"
        (``apx`` < 1), obj(q) >= apx · max obj; with "limit", obj(q) >= guarantee · max obj.
    """
    if not isinstance(problem, GradientProblem):
        raise TypeError(f"The 'problem' parameter of fit_rule must be a GradientProblem. "
                        f"Got {type(problem).__name__} instead.")
    given = validate_params(BASE_LEARNER_CONSTRAINTS, {
        "search": search, "engine": engine, "apx": apx, "max_depth": max_depth,
        "bound_pruning": bound_pruning, "equivalence_pruning": equivalence_pruning,
        "max_nodes": max_nodes, "time_limit": time_limit}, "fit_rule")
    return _learner(given)(problem, _config(given))


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
    given = validate_params(ENSEMBLE_CONSTRAINTS, {
        "search": search, "engine": engine, "apx": apx, "max_depth": max_depth,
        "max_nodes": max_nodes, "time_limit": time_limit, "n_rules": n_rules, "lam": lam,
        "thresholds": thresholds, "intercept": intercept, "progress": progress},
        "fit_rule_ensemble")
    learner, config, lam_ = _learner(given), _config(given), given["lam"]
    propositions = X if isinstance(X, PropositionSet) else make_propositions(
        X, thresholds, feature_names)
    target = loss_.prepare_target(y)
    if target.shape != (propositions.n_samples,):
        raise ValueError(f"y has {target.size} values but X has {propositions.n_samples} rows.")
    scores = np.zeros(propositions.n_samples)
    rules = []
    for t in range(given["n_rules"] + given["intercept"]):
        with np.errstate(over="ignore", invalid="ignore"):   # checked just below
            g, h = loss_.gradients(target, scores)
        if not (np.isfinite(g).all() and np.isfinite(h).all()):
            raise ValueError(f"the scores diverged after {t} rule(s): the {loss_.name} loss's "
                             f"gradients are no longer finite. Raise lam (now {lam_}) or rescale "
                             "the target.")
        problem = GradientProblem.from_values(propositions.extents, propositions.names, g, h,
                                              lam_)
        if given["intercept"] and t == 0:
            result = _intercept(problem)
        else:
            result = learner(problem, config)
        rule = _boosted_rule(propositions, result)
        rules.append(rule)
        scores += rule.weight * bitset.unpack(bitset.from_int(result.extent, target.size),
                                              target.size)
        if progress is not None:
            progress(t, rule)
    classes = getattr(loss_, "classes", None)
    return RuleEnsemble(tuple(rules), loss_, lam_, search,
                        None if classes is None else tuple(classes),
                        time.perf_counter() - start)


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
                       _float(result.weight, "weight"), result.objective, result.coverage,
                       statistics)
