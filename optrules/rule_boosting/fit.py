"""Gradient rule boosting with an optimal or greedy base learner (public entry point).

Boley et al. (2021), §2.3: start from a constant score f_0; in round t compute the gradient
statistics g_i, h_i of the loss at f_{t-1}, let the base learner choose the query q_t maximising
eq. 2.3, and add the rule w_t q_t with w_t from eq. 2.2. f_0 = 0 as in the paper, except for the
Poisson loss, which starts from log(mean y) (``Loss.initial_score``). Each step is made safe:
w_t is halved while adding w_t q_t would increase the training loss. With ``intercept=True`` a
first rule with the empty query ⊤ (weight by eq. 2.2) is added before the k searched rules and
not counted in k. ``specs/rule-boosting.md`` §12 states the loop.
"""

import contextlib
import importlib
import math
import time
from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np

from optrules.data import bitset
from optrules.data.propositions import PropositionSet, make_propositions
from optrules.distributed.cluster import CLUSTER_CONSTRAINTS, cluster_parameters
from optrules.garbage_collection import memory_given_back
from optrules.limits import Budget, interruptible, memory_cap
from optrules.rule_boosting.gradient_problem import GradientProblem
from optrules.rule_boosting.losses import get_loss
from optrules.rule_boosting.model import BoostedRule, RuleEnsemble, RuleSearchResult
from optrules.rule_boosting.search_certificate import RuleSearchCertificateWriter
from optrules.validation import (Boolean, Callable, ExactFraction, FilePath, Integer, Options,
                                 Real, Thresholds, fraction_text, validate_params)

__all__ = ["fit_rule_ensemble", "fit_rule", "BaseLearnerConfig", "ENGINES", "SEARCHES",
           "BASE_LEARNER_CONSTRAINTS", "ENSEMBLE_CONSTRAINTS"]

#: Engine name -> module holding ``optimal_rule`` and ``greedy_rule``.
ENGINES = {"reference": "optrules.reference.rule_boosting", "fast": "optrules.fast.rule_boosting"}
SEARCHES = {"optimal": "optimal_rule", "greedy": "greedy_rule"}


@dataclass(frozen=True)
class BaseLearnerConfig:
    """Validated base-learner options; ``budget`` (time, memory cap, interrupts) is asked once
    per search node, and ``progress`` (optional) is called after each node as
    ``progress(nodes, describe)``, ``describe()`` giving obj(q*), the largest open bound and
    the boundary size."""

    alpha: Fraction = Fraction(1)
    max_depth: int | None = None
    bound_pruning: bool = True
    equivalence_pruning: bool = True
    max_nodes: int | None = None
    budget: Budget = field(default_factory=Budget)
    progress: object = None
    certificate: object = None       # a RuleSearchCertificateWriter, or None


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
    "max_memory": [Real(), None, Options(("auto",))],
}

#: Parameters of fit_rule_ensemble (besides the data and the loss) and what each may be.
ENSEMBLE_CONSTRAINTS = dict(
    {name: BASE_LEARNER_CONSTRAINTS[name] for name in (
        "search", "engine", "apx", "max_depth", "max_nodes", "time_limit", "max_memory")},
    rule_time_limit=[Real(), None],
    n_rules=[Integer(1)],
    lam=[ExactFraction(0, math.inf, low_inclusive=True)],
    thresholds=[Thresholds()],
    intercept=[Boolean()],
    progress=[Callable(), None],
    search_progress=[Callable(), None],
    **CLUSTER_CONSTRAINTS)


def _config(given, budget, progress=None):
    return BaseLearnerConfig(given["apx"], given["max_depth"],
                             given.get("bound_pruning", True),
                             given.get("equivalence_pruning", True), given["max_nodes"], budget,
                             progress)


def _learner(given):
    return getattr(importlib.import_module(ENGINES[given["engine"]]), SEARCHES[given["search"]])


def distributed_cluster(given, owner):
    """The :class:`~optrules.distributed.cluster.Cluster` that ``given``'s ``n_workers`` or
    ``scheduler`` ask for (None: one process). ValueError naming ``owner`` if both are given,
    or if the search is not the fast engine's optimal one (the one that runs distributed)."""
    cluster = cluster_parameters(given["n_workers"], given["scheduler"], owner)
    if cluster is not None and (given["search"], given["engine"]) != ("optimal", "fast"):
        raise ValueError(f"{owner}: a distributed search ('n_workers' or 'scheduler') runs the "
                         f"optimal search of the fast engine; got search={given['search']!r}, "
                         f"engine={given['engine']!r}.")
    return cluster


@contextlib.contextmanager
def _learner_on(given, owner):
    """The base learner ``given`` asks for, as ``learner(problem, config)``: in this process,
    or spread over the Dask cluster of ``n_workers``/``scheduler`` (the optimal search of
    the fast engine; specs/distributed.md), started once for every search it makes."""
    cluster = distributed_cluster(given, owner)
    if cluster is None:
        yield _learner(given)
        return
    from optrules.distributed import rule_boosting, tasks
    with cluster.client() as client:
        yield lambda problem, config: rule_boosting.optimal_rule(problem, config,
                                                                 tasks.OnDask(client))


def fit_rule(problem, *, search="optimal", engine="fast", apx=1, max_depth=None,
             bound_pruning=True, equivalence_pruning=True, max_nodes=None, time_limit=None,
             max_memory="auto", certificate=None, progress=None, n_workers=None,
             scheduler=None):
    """Run one base learner on a :class:`GradientProblem` (one boosting round).

    ``max_nodes``, ``time_limit`` (seconds) and ``max_memory`` (MB of resident memory; "auto"
    is half of the physical or container memory, None no cap) stop the search with its best
    query so far; so does a first SIGINT/SIGTERM (a second one aborts).

    ``certificate`` (a file name; gzip if it ends in ``.gz``) asks the optimal search to write
    its search certificate (specs/certificates.md §5), which
    :func:`optrules.verify.rule_search_certificate.check_rule_search_certificate` replays;
    both engines write one, for the optimal search without ``max_depth``, when it finishes
    ("optimal" or "approximate").

    ``progress``, if given, is called as ``progress(nodes, describe)`` after each node of the
    search, ``describe()`` giving its figures (``boundary``, ``objective``, ``upper_bound``).

    ``n_workers`` (a local Dask cluster of that many processes) or ``scheduler`` (the address
    of a Dask scheduler, ``"tcp://host:8786"``) spread the optimal search of the fast engine
    over a cluster (the extra ``optrules[distributed]``; specs/distributed.md): the same query,
    objective and status as one process, counters summed over its tasks, and each worker's
    expanded nodes in the progress figures (``nodes_by_worker``). A lost cluster stops the
    search with status "cluster-lost" and its exact guarantee.

    Returns
    -------
    RuleSearchResult
        For ``search="optimal"``: with status "optimal", obj(q) = max obj over all
        conjunctions (of at most ``max_depth`` propositions when given); with "approximate"
        (``apx`` < 1), obj(q) >= apx · max obj; when stopped ("node-limit", "time-limit",
        "memory-limit", "interrupted"), obj(q) >= guarantee · max obj.

    Examples
    --------
    >>> problem = GradientProblem.from_values([[1, 1, 0, 0]], ["p0"], [-1, -1, 1, 1],
    ...                                       [1, 1, 1, 1], 1)
    >>> result = fit_rule(problem)
    >>> result.conditions, result.weight, result.status
    (('p0',), Fraction(2, 3), 'optimal')
    """
    if not isinstance(problem, GradientProblem):
        raise TypeError(f"The 'problem' parameter of fit_rule must be a GradientProblem. "
                        f"Got {type(problem).__name__} instead.")
    given = validate_params(dict(BASE_LEARNER_CONSTRAINTS, certificate=[FilePath(), None],
                                 progress=[Callable(), None], **CLUSTER_CONSTRAINTS), {
        "search": search, "engine": engine, "apx": apx, "max_depth": max_depth,
        "bound_pruning": bound_pruning, "equivalence_pruning": equivalence_pruning,
        "max_nodes": max_nodes, "time_limit": time_limit, "max_memory": max_memory,
        "certificate": certificate, "progress": progress, "n_workers": n_workers,
        "scheduler": scheduler}, "fit_rule")
    budget = Budget(given["time_limit"], memory_cap(given["max_memory"]))
    config = _config(given, budget, given["progress"])
    if given["certificate"] is not None:
        if (given["search"], given["max_depth"]) != ("optimal", None):
            raise ValueError("fit_rule: a search certificate is written by the optimal search "
                             "without max_depth; got "
                             f"search={given['search']!r}, max_depth={given['max_depth']!r}.")
        config = replace(config, certificate=RuleSearchCertificateWriter(
            given["certificate"], 2 * problem.n_samples * problem.scale))
    try:
        with interruptible(), memory_given_back(), _learner_on(given, "fit_rule") as learner:
            result = learner(problem, config)
    except BaseException:
        if config.certificate is not None:
            config.certificate.discard()
        raise
    if config.certificate is not None:
        _finish_certificate(config, problem, result, given["engine"])
    return result


def _finish_certificate(config, problem, result, engine):
    """Put the claim in front of the search certificate's records, or drop them when a limit
    stopped the search."""
    from optrules.verify.instances import RuleInstance      # verify imports this package
    if result.status not in ("optimal", "approximate"):
        config.certificate.discard()
        return
    instance = RuleInstance.from_problem(problem)
    config.certificate.finish({
        "kind": "rule", "instance_sha256": instance.digest(),
        "lambda": fraction_text(instance.lam),
        "claimed_objective": fraction_text(result.objective),
        "alpha": fraction_text(config.alpha),
        "model": {"query": list(result.query), "conditions": list(result.conditions)},
        "engine": engine})


def fit_rule_ensemble(X, y, *, loss="logistic", n_rules=10, lam=2, search="optimal",
                      thresholds="quantile:10", max_depth=None, apx=1, engine="fast",
                      intercept=False, positive=None, max_nodes=None, time_limit=None,
                      rule_time_limit=None, max_memory="auto", budget=None,
                      feature_names=None, progress=None, search_progress=None, n_workers=None,
                      scheduler=None):
    """Boost an additive ensemble of ``n_rules`` conjunctive rules.

    Parameters
    ----------
    X : ndarray (n, d), DataFrame or dict of columns
        Numeric and categorical features; missing values satisfy no proposition.
    y : array-like (n,)
        Target: any two classes (logistic), reals (squared) or counts, not all 0 (poisson).
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
    engine : {"fast", "reference"}, default "fast"
        "fast" makes the reference engine's search (same rules, exact values and counters)
        with each node's children evaluated in array operations; "reference" follows the
        paper line by line.
    intercept : bool, default False
        Add a first rule with the empty query (not counted in ``n_rules``).
    positive : optional
        Positive class for the logistic loss.
    max_nodes, rule_time_limit : optional
        Per-rule search limits (nodes, seconds): a stopped search keeps its best rule, which
        reports its status and guarantee in its statistics, and boosting goes on.
    time_limit : float, optional
        Seconds for the whole ensemble, propositions included. When it runs out, the round
        under way keeps its best rule (status "time-limit", with its proven guarantee) and
        boosting stops: the ensemble has fewer rules and ``status`` "time-limit".
    max_memory : float, "auto" or None, default "auto"
        Cap on this process's resident memory in MB, likewise ("memory-limit"); "auto" is half
        of the physical (or container) memory, None is no cap. A first SIGINT/SIGTERM likewise
        stops boosting ("interrupted"); a second one aborts (KeyboardInterrupt).
    budget : optrules.limits.Budget, optional
        An enclosing budget (an estimator's whole fit) that also stops boosting.
    feature_names : sequence of str, optional
    progress : callable, optional
        Called as ``progress(t, rule)`` after each rule.
    search_progress : callable, optional
        Called as ``search_progress(t, nodes, describe)`` after each node of round t's search
        (see :class:`BaseLearnerConfig`; for a throttled progress line).
    n_workers : int >= 1, optional
        Spread each round's optimal search over a local Dask cluster of this many processes,
        started once for all rounds (the extra ``optrules[distributed]``;
        specs/distributed.md). Same rules as one process; counters are sums over the tasks.
    scheduler : str, optional
        Spread them over the Dask cluster whose scheduler listens at this address
        (``"tcp://host:8786"``) instead.

    Returns
    -------
    RuleEnsemble
        Its ``status`` is "complete" when all rounds ran.

    Notes
    -----
    Boosting starts from f_0 = ``loss.initial_score(y)``: 0 (as in [1]) except log(mean y) for
    the Poisson loss. After the base learner's rule, its weight w (eq. 2.2) is halved while
    the step would increase the training loss Σ l(y_i, f_i), so the training loss never
    increases from one rule to the next; the rule's ``statistics["step_halvings"]`` counts the
    halvings. The query and its objective (eq. 2.3) do not change, only the step length.

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
    -0.6667 if x0<=1.5   [optimal]
    >>> ensemble.status
    'complete'
    """
    start = time.perf_counter()
    loss_ = get_loss(loss, positive)
    given = validate_params(ENSEMBLE_CONSTRAINTS, {
        "search": search, "engine": engine, "apx": apx, "max_depth": max_depth,
        "max_nodes": max_nodes, "time_limit": time_limit, "rule_time_limit": rule_time_limit,
        "max_memory": max_memory, "n_rules": n_rules, "lam": lam, "thresholds": thresholds,
        "intercept": intercept, "progress": progress,
        "search_progress": search_progress, "n_workers": n_workers,
        "scheduler": scheduler}, "fit_rule_ensemble")
    if budget is not None and not isinstance(budget, Budget):
        raise TypeError(f"The 'budget' parameter of fit_rule_ensemble must be an "
                        f"optrules.limits.Budget or None. Got {type(budget).__name__} instead.")
    with interruptible(), memory_given_back():
        total = Budget(given["time_limit"], memory_cap(given["max_memory"]), parent=budget)
        propositions = X if isinstance(X, PropositionSet) else make_propositions(
            X, thresholds, feature_names)
        target = loss_.prepare_target(y)
        if target.shape != (propositions.n_samples,):
            raise ValueError(f"y has {target.size} values but X has {propositions.n_samples} "
                             "rows.")
        base_score = loss_.initial_score(target)
        with _learner_on(given, "fit_rule_ensemble") as learner:
            rules, status = _boost(propositions, target, loss_, base_score, given, total,
                                   learner)
    classes = getattr(loss_, "classes", None)
    return RuleEnsemble(tuple(rules), loss_, given["lam"], search,
                        None if classes is None else tuple(classes),
                        time.perf_counter() - start, base_score, status)


def _boost(propositions, target, loss, base_score, given, total, learner):
    """The boosting rounds (§2.3) with the base learner ``learner`` within the budget
    ``total``: (rules, ensemble status)."""
    lam = given["lam"]
    scores = np.full(target.size, base_score)
    current = loss.mean_loss(target, scores)
    rules = []
    for t in range(given["n_rules"] + given["intercept"]):
        with np.errstate(over="ignore", invalid="ignore"):   # checked just below
            g, h = loss.gradients(target, scores)
        # Safe steps keep the built-in losses' scores finite; a custom loss may still diverge.
        if not (np.isfinite(g).all() and np.isfinite(h).all()):
            raise ValueError(f"the scores diverged after {t} rule(s): the {loss.name} loss's "
                             f"gradients are no longer finite. Raise lam (now {lam}) or rescale "
                             "the target.")
        problem = GradientProblem.from_values(propositions.extents, propositions.names, g, h,
                                              lam)
        if given["intercept"] and t == 0:
            result = _intercept(problem)
        else:       # the round's own budget: rule_time_limit within the ensemble's
            round_budget = total.within(given["rule_time_limit"])
            result = learner(problem, _config(given, round_budget, _round_progress(given, t)))
        held = bitset.unpack(bitset.from_int(result.extent, target.size), target.size)
        weight, halvings, current = _safe_step(loss, target, scores, held,
                                               _float(result.weight, "weight"), current)
        scores = scores + weight * held
        rule = _boosted_rule(propositions, result, weight, halvings)
        rules.append(rule)
        if given["progress"] is not None:
            given["progress"](t, rule)
        stop = total.stop_reason()      # the round's best rule is kept, then boosting ends
        if stop is None and result.status == "cluster-lost":
            stop = "cluster-lost"       # a distributed search's cluster is gone for good
        if stop is not None:
            return rules, stop
    return rules, "complete"


def _round_progress(given, t):
    """Round t's per-node callback for ``search_progress`` (None without one)."""
    report = given["search_progress"]
    return None if report is None else lambda nodes, describe: report(t, nodes, describe)


def _safe_step(loss, target, scores, held, weight, current):
    """Backtracking on the Newton weight w of eq. 2.2: the first of w, w/2, w/4, ... whose step
    does not increase the mean training loss ``current``. Returns (weight, halvings, new loss).

    A convex loss decreases along -G for small enough steps, and w = 0 changes nothing, so the
    halving ends (after at most ~1075 halvings, when w underflows to 0)."""
    halvings = 0
    while True:
        after = loss.mean_loss(target, scores + weight * held)
        if after <= current or weight == 0:
            return weight, halvings, after
        weight /= 2
        halvings += 1


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


def _boosted_rule(propositions, result, weight, halvings):
    statistics = dict(result.statistics, status=result.status, seconds=round(result.seconds, 6),
                      step_halvings=halvings)
    if result.upper_bound is not None:
        statistics["upper_bound"] = _float(result.upper_bound, "upper bound")
        statistics["bound_gap"] = _float(result.bound_gap, "bound gap")
        statistics["guarantee"] = float(result.guarantee)
    return BoostedRule(tuple(propositions.propositions[j] for j in result.query), weight,
                       result.objective, result.coverage, statistics)
