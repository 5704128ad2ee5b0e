"""Boosted rules (BOOMER): the sequential assemblage of rules (public entry point).

Algorithm 1 of Rapp et al. (2023): compute the label-space statistics (gradients and Hessians
of the loss, eq. 3) of the current scores; start with a default rule whose body is empty and
whose complete head is the regularised Newton step of all examples (not shrunk); then, for
each of ``max_rules`` rules, let the engine induce a rule greedily (Algorithms 2-3), multiply
its head by ``shrinkage``, add it to the scores of the examples it covers and update their
statistics. ``specs/boosted-rules.md`` states every step.
"""

import importlib
import math
import time

import numpy as np

from optrules.boosted_rules.heads import HEADS, output_scores, regularisation
from optrules.boosted_rules.losses import LOSSES
from optrules.boosted_rules.model import BoostedRules, Rule
from optrules.boosted_rules.search import SearchConfig
from optrules.boosted_rules.training_data import training_data
from optrules.data.table import as_features
from optrules.limits import Budget, interruptible, memory_cap
from optrules.validation import Boolean, Callable, Integer, Options, Real, validate_params

__all__ = ["fit_boosted_rules", "ENGINES", "BOOSTED_RULES_CONSTRAINTS", "default_sample_size"]

#: Engine name -> module holding ``RuleInduction``.
ENGINES = {"reference": "optrules.reference.boomer", "fast": "optrules.fast.boomer"}

#: Parameters of fit_boosted_rules (besides the data) and what each may be.
BOOSTED_RULES_CONSTRAINTS = {
    "loss": [Options(LOSSES)],
    "head": [Options(HEADS)],
    "max_rules": [Integer(0)],
    "shrinkage": [Real(0)],
    "l1": [Real(0, inclusive=True)],
    "l2": [Real(0, inclusive=True)],
    "feature_sampling": [Boolean()],
    "min_coverage": [Integer(1)],
    "max_conditions": [Integer(1), None],
    "mlrl_compatible": [Boolean()],
    "engine": [Options(ENGINES)],
    "random_state": [Integer(0), None],
    "time_limit": [Real(), None],
    "max_memory": [Real(), None, Options(("auto",))],
    "progress": [Callable(), None],
}


def default_sample_size(n_features):
    """⌊log2(F - 1) + 1⌋ features per refinement (Rapp et al. 2023, §3.5.1), at least 1."""
    if n_features <= 2:
        return n_features if n_features < 2 else 1
    return min(n_features, int(math.log2(n_features - 1) + 1))


def fit_boosted_rules(X, y, *, loss="logistic", head="single", max_rules=1000, shrinkage=0.3,
                      l1=0.0, l2=1.0, feature_sampling=True, min_coverage=1,
                      max_conditions=None, mlrl_compatible=False, engine="fast",
                      random_state=None, time_limit=None, max_memory="auto", budget=None,
                      output_names=None, progress=None):
    """Learn a default rule and ``max_rules`` boosted rules greedily (BOOMER).

    Parameters
    ----------
    X : ndarray (n, d), DataFrame, dict of columns or Features
        Numerical features are read as float32 (as mlrl-boomer does); categorical ones are
        nominal (``==`` / ``!=``); missing values satisfy no condition.
    y : array-like of shape (n,) or (n, n_outputs)
        0/1 labels (logistic loss; several columns for multi-label data) or real targets
        (squared loss).
    loss : {"logistic", "squared"}, default "logistic"
    head : {"single", "complete"}, default "single"
        A rule predicts for the one output of largest |score| (chosen with its first
        condition), or for every output.
    max_rules : int >= 0, default 1000
        Rules after the default rule (mlrl-boomer's ``max_rules`` counts the default rule:
        its 1001 is this 1000).
    shrinkage : float >= 0, default 0.3
        Factor of every induced rule's head (float32, as in mlrl-boomer); the default rule's
        head is not shrunk.
    l1, l2 : float >= 0, default 0 and 1
        L1 and L2 regularisation weights of the heads (float32).
    feature_sampling : bool, default True
        Search ⌊log2(F - 1) + 1⌋ random features per refinement, instead of all F.
    min_coverage : int >= 1, default 1
    max_conditions : int or None, default None
    mlrl_compatible : bool, default False
        Reproduce mlrl-boomer 0.12.3's numerical search exactly, including the boundary it
        skips (specs/boosted-rules.md §4.3).
    engine : {"fast", "reference"}, default "fast"
    random_state : int or None, default None
        Seed of the feature sampling.
    time_limit : float or None, default None
        Seconds for the whole fit; when they run out, or at a first Ctrl-C (SIGINT) or
        SIGTERM, or when the process's resident memory reaches ``max_memory`` MB ("auto": half
        of the physical or container memory), boosting stops after the rule under way and
        the model keeps the rules so far, with status "time-limit", "interrupted" or
        "memory-limit".
    max_memory : float, "auto" or None, default "auto"
    budget : optrules.limits.Budget, optional
        An outer budget the fit also stops at (the CLI's whole-command time limit).
    output_names : optional
        Names of the outputs (default ``y0, y1, ...``).
    progress : callable, optional
        Called as ``progress(t, rule_text)`` after each rule.

    Returns
    -------
    BoostedRules

    Examples
    --------
    >>> model = fit_boosted_rules([[1.0], [2.0], [3.0], [4.0]], [0, 0, 1, 1], max_rules=1,
    ...                           feature_sampling=False)
    >>> print(model)
    {} => (y0 = 0)
    {x0 > 2.5} => (y0 = 0.2)
    """
    given = validate_params(BOOSTED_RULES_CONSTRAINTS, {
        "loss": loss, "head": head, "max_rules": max_rules, "shrinkage": shrinkage, "l1": l1,
        "l2": l2, "feature_sampling": feature_sampling, "min_coverage": min_coverage,
        "max_conditions": max_conditions, "mlrl_compatible": mlrl_compatible,
        "engine": engine, "random_state": random_state, "time_limit": time_limit,
        "max_memory": max_memory, "progress": progress}, "fit_boosted_rules")
    data = training_data(as_features(X))
    targets = _targets(y, data.n_examples, given["loss"])
    names = tuple(output_names) if output_names is not None else \
        tuple(f"y{k}" for k in range(targets.shape[1]))
    with interruptible():
        total = Budget(given["time_limit"], memory_cap(given["max_memory"]), parent=budget)
        return _assemble(data, targets, names, given, total)


def _targets(y, n_examples, loss):
    targets = np.asarray(y, dtype=np.float64)
    if targets.ndim == 1:
        targets = targets[:, None]
    if targets.ndim != 2 or len(targets) != n_examples:
        raise ValueError(f"y must have {n_examples} rows (one per example) and one column per "
                         f"output. Got shape {np.shape(y)} instead.")
    if not np.isfinite(targets).all():
        raise ValueError("y must hold finite numbers.")
    if loss == "logistic" and not np.isin(targets, (0.0, 1.0)).all():
        raise ValueError("y must hold 0/1 labels for the logistic loss.")
    return targets


def _assemble(data, targets, output_names, given, budget):
    """Algorithm 1: the default rule, then ``max_rules`` induced rules, while ``budget``
    allows."""
    start = time.perf_counter()
    loss = LOSSES[given["loss"]]
    l1, l2 = regularisation(given["l1"], given["l2"])
    shrinkage = float(np.float32(given["shrinkage"]))
    config = SearchConfig(given["head"], l1, l2, given["min_coverage"], given["max_conditions"],
                          given["mlrl_compatible"])
    engine = importlib.import_module(ENGINES[given["engine"]])
    induction = engine.RuleInduction(data, config)
    sample_features = _feature_sampler(data.n_features, given["feature_sampling"],
                                       given["random_state"])
    scores = np.zeros_like(targets)
    gradients, hessians = loss.statistics(targets, scores)
    # the default rule: the complete head of all examples, not shrunk
    total_g, total_h = np.cumsum(gradients, axis=0)[-1], np.cumsum(hessians, axis=0)[-1]
    default = output_scores(total_g, total_h, l1, l2)
    rules = [Rule((), tuple(range(targets.shape[1])), tuple(float(s) for s in default))]
    scores += default
    gradients, hessians = loss.statistics(targets, scores)
    training_loss = [float(loss.values(targets, scores).mean())]
    weights = np.ones(data.n_examples, dtype=np.int64)
    status = "complete"
    for t in range(given["max_rules"]):
        stop = budget.stop_reason()
        if stop is not None:
            status = stop
            break
        found = induction.find_rule(gradients, hessians, weights, sample_features)
        if found is None:
            status = "no-improvement"
            break
        head = found.scores * shrinkage
        rows = np.flatnonzero(found.covered)
        scores[np.ix_(rows, found.outputs)] += head
        gradients[rows], hessians[rows] = loss.statistics(targets[rows], scores[rows])
        rule = Rule(found.conditions, tuple(int(k) for k in found.outputs),
                    tuple(float(s) for s in head))
        rules.append(rule)
        training_loss.append(float(loss.values(targets, scores).mean()))
        if given["progress"] is not None:
            given["progress"](t, rule)
    return BoostedRules(tuple(rules), loss.name, data.names, data.categories, output_names,
                        tuple(training_loss), (), time.perf_counter() - start, status)


def _feature_sampler(n_features, sampling, random_state):
    """``sample_features()``: all features, or a fresh sorted random sample per call."""
    every = np.arange(n_features)
    if not sampling:
        return lambda: every
    rng = np.random.default_rng(random_state)
    size = default_sample_size(n_features)
    return lambda: np.sort(rng.choice(n_features, size=size, replace=False))
