"""Optimal rule boosting as scikit-learn-style estimators: a classifier and a regressor."""

import sys
from dataclasses import replace

import numpy as np

from optrules.base import RuleEstimator, binary_classes, regression_target
from optrules.data.table import sorted_classes
from optrules.limits import Budget, interruptible, memory_cap, warn_if_stopped
from optrules.progress import ProgressLine
from optrules.rule_boosting.fit import (ENGINES, ENSEMBLE_CONSTRAINTS, distributed_cluster,
                                       fit_rule_ensemble)
from optrules.rule_boosting.model import RuleEnsemble
from optrules.validation import Boolean, Integer, Options, shown

__all__ = ["OptimalRuleBoostingClassifier", "OptimalRuleBoostingRegressor"]

_SHARED_DOC = """
    Each of ``n_rules`` boosting rounds adds the conjunction q of propositions that maximises
    (Σg)² / (2n(λ + Σh)) over the loss's gradients g and Hessians h at the current scores
    (Boley et al. 2021, eq. 2.3), found exactly by branch-and-bound (Algorithm 1), with weight
    w = -Σg / (λ + Σh) (eq. 2.2). Propositions: ``x<=t`` and ``x>t`` at the cut points of
    numeric columns (shortest decimals splitting the training values the same way), ``x==v``
    and ``x!=v`` for categorical ones; a missing value satisfies none.

    Parameters
    ----------
    n_rules : int >= 1, default 10
    lam : float, str or Fraction >= 0, default 2
        λ of eq. 2.2-2.3, read exactly ("0.5" is 1/2).
    search : {"optimal", "greedy"}, default "optimal"
        Algorithm 1, or the greedy base learner of §4 (for comparison; it proves nothing).
    thresholds : {"quantile:K", "width:K", "all"}, default "quantile:10"
    max_depth : int or None, default None
        Most propositions per rule.
    apx : float or Fraction in (0, 1], default 1
        Approximation factor α: each rule is within α of the best (status "approximate").
    intercept : bool, default False
        Start with a rule whose query is empty (not counted in ``n_rules``).
    max_nodes, rule_time_limit : int / float or None, default None
        Per-rule search limits (nodes, seconds): a stopped search keeps its best rule with its
        proven guarantee (status "node-limit" or "time-limit"), and boosting goes on.
    time_limit : float or None, default None
        Seconds for the whole fit (propositions included). When it runs out, the round under
        way keeps its best rule and boosting stops with fewer rules: ``ensemble_.status`` is
        "time-limit" and a warning says so.
    max_memory : float, "auto" or None, default "auto"
        Cap on this process's resident memory in MB, likewise ("memory-limit"); "auto" is half
        of the physical (or container) memory, None is no cap.
    engine : {"fast", "reference"}, default "fast"
        "fast" makes the reference engine's search (same rules, exact values and counters)
        with each node's children evaluated in array operations; "reference" follows the
        paper line by line.
    verbose : int, default 0
        If > 0, print each rule on stderr as it is found, with a throttled progress line during
        a long search (from the start and every second in a log if 2 or more).
    n_workers : int >= 1 or None, default None
        Spread each rule's optimal search over a local Dask cluster of this many processes,
        started once a fit (the extra ``optrules[distributed]``; specs/distributed.md). The
        same rules as one process; the fast engine and ``search="optimal"`` only.
    scheduler : str or None, default None
        Spread them over the Dask cluster whose scheduler listens at this address
        (``"tcp://host:8786"``) instead.

    A first Ctrl-C (SIGINT) or SIGTERM during ``fit`` stops boosting likewise (status
    "interrupted", the rules so far kept, with a warning); a second one aborts at once
    (KeyboardInterrupt).
"""

_SHARED_ATTRIBUTES = """
    ensemble_ : RuleEnsemble
        The learned rules; ``str(estimator)`` prints one line per rule with its search status
        and guarantee. ``ensemble_.status`` is "complete", or the stop status that ended
        boosting early; ``ensemble_.base_score`` is the constant f_0 the scores start from.
    rules_ : list of dict
        The rules as plain data: ``conditions`` (``[feature, operator, value]`` triples),
        ``weight``, exact ``objective`` (``"p/q"``), ``coverage`` and search ``statistics``
        (``status``, ``guarantee``, node counts, ``step_halvings``).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` had string column names.
"""


class BoostingProgress:
    """Progress of a verbose fit on stderr: each rule as it is found, and a throttled line
    during a long search (:class:`~optrules.progress.ProgressLine`)."""

    def __init__(self, n_rounds, verbose):
        self.n_rounds = n_rounds
        self.line = ProgressLine.for_verbosity(verbose)

    def rule(self, t, rule):
        self.line.close()
        print(f"rule {t + 1}: {rule}", file=sys.stderr, flush=True)

    def search(self, t, nodes, describe):
        self.line.update(lambda: _search_text(t, self.n_rounds, nodes, describe()))


def _search_text(t, n_rounds, nodes, figures):
    workers = figures.get("nodes_by_worker")    # a distributed search: each worker's nodes
    return (f"rule {t + 1}/{n_rounds}: nodes {nodes:>9} boundary {figures['boundary']:>8} "
            f"best obj {figures['objective']:.6g} upper bound {figures['upper_bound']:.6g}" +
            ("" if not workers else " workers " + " ".join(
                f"{name}:{count}" for name, count in workers.items())))


class _RuleBoosting(RuleEstimator):
    """Fitting, prediction scores and model files shared by the two estimators."""

    _losses = ()
    #: Parameters that came after the first model files; none of them changes the rules.
    _params_added_later = ("n_workers", "scheduler")

    def __init__(self, n_rules=10, *, lam=2, loss=None, search="optimal",
                 thresholds="quantile:10", max_depth=None, apx=1, intercept=False,
                 max_nodes=None, time_limit=None, rule_time_limit=None, max_memory="auto",
                 engine="fast", verbose=0, n_workers=None, scheduler=None):
        self.n_rules = n_rules
        self.lam = lam
        self.loss = loss
        self.search = search
        self.thresholds = thresholds
        self.max_depth = max_depth
        self.apx = apx
        self.intercept = intercept
        self.max_nodes = max_nodes
        self.time_limit = time_limit
        self.rule_time_limit = rule_time_limit
        self.max_memory = max_memory
        self.engine = engine
        self.verbose = verbose
        self.n_workers = n_workers
        self.scheduler = scheduler

    @property
    def _parameter_constraints(self):
        constraints = {name: ENSEMBLE_CONSTRAINTS[name] for name in (
            "n_rules", "lam", "search", "thresholds", "max_depth", "apx", "intercept",
            "max_nodes", "time_limit", "rule_time_limit", "max_memory", "n_workers",
            "scheduler")}
        return dict(constraints, loss=[Options(self._losses)], engine=[Options(ENGINES)],
                    verbose=[Integer(0), Boolean()])

    def _validated_params(self):
        params = super()._validated_params()
        distributed_cluster(params, type(self).__name__)   # its errors name this estimator
        return params

    def _boost(self, X, y):
        """Validate, then boost on the target encoded by the subclass's loss, within the
        whole fit's budget; a stopped fit keeps its rules so far and warns."""
        params = self._validated_params()
        with interruptible():
            budget = Budget(params["time_limit"], memory_cap(params["max_memory"]))
            features = self._training_features(X)
            target, classes = self._target(y, features.n_samples)
            progress = BoostingProgress(params["n_rules"] + params["intercept"],
                                        params["verbose"]) if params["verbose"] else None
            ensemble = fit_rule_ensemble(
                features, target, loss=params["loss"], n_rules=params["n_rules"],
                lam=params["lam"], search=params["search"], thresholds=params["thresholds"],
                max_depth=params["max_depth"], apx=params["apx"], engine=params["engine"],
                intercept=params["intercept"], max_nodes=params["max_nodes"],
                rule_time_limit=params["rule_time_limit"], max_memory=None, budget=budget,
                progress=progress and progress.rule, search_progress=progress and progress.search,
                n_workers=params["n_workers"], scheduler=params["scheduler"])
            if progress is not None:
                progress.line.close()
        if classes is not None:          # the loss saw booleans; keep the real class values
            ensemble = replace(ensemble, classes=classes)
        self._restore(ensemble)
        self._remember_features(X, features)
        warn_if_stopped(type(self).__name__, ensemble.status,
                        f"{len(ensemble.rules)} of {params['n_rules'] + params['intercept']} "
                        "rules")
        return self

    def _scores(self, X):
        """The ensemble's score f(x) = Σ_k w_k q_k(x) of every row, shape (n_samples,)."""
        features = self._features_for_predict(X)
        return self.ensemble_.decision_function(features)

    def _model_text(self):
        return str(self.ensemble_)

    def _model_content(self):
        return dict(self._common_content(), model=self.ensemble_.to_dict())

    @classmethod
    def _from_model_content(cls, body):
        """The estimator a model file describes, every field checked against the others:
        the ensemble (:meth:`RuleEnsemble.from_dict`) against the parameters (loss, λ,
        search, number of rules and intercept), the classes in class order, each condition
        against the feature schema."""
        estimator = cls._unfitted_from_content(body)
        estimator._restore_common(body)
        params = estimator._validated_params()
        ensemble = RuleEnsemble.from_dict(body["model"], "model")
        for field, value, name in (("loss", ensemble.loss.name, "loss"),
                                   ("lambda", ensemble.lam, "lam"),
                                   ("search", ensemble.search, "search")):
            if value != params[name]:
                raise ValueError(f"model.{field}: the model's {field} {body['model'][field]!r} "
                                 f"is not the parameter {name}={getattr(estimator, name)!r}.")
        if ensemble.classes is not None and ensemble.classes != sorted_classes(ensemble.classes):
            raise ValueError(f"model.classes {list(ensemble.classes)} are not in class order "
                             "(negative first), as a classifier's are.")
        asked = params["n_rules"] + params["intercept"]
        if len(ensemble.rules) > asked or \
                (ensemble.status == "complete" and len(ensemble.rules) != asked):
            raise ValueError(f"model.rules has {len(ensemble.rules)} rules, but the parameters "
                             f"n_rules={shown(params['n_rules'])} and intercept="
                             f"{params['intercept']} ask for {shown(asked)} and model.status is "
                             f"{ensemble.status!r}.")
        for k, rule in enumerate(ensemble.rules):
            if k == 0 and params["intercept"] and rule.conditions:
                raise ValueError("model.rules[0].conditions: with intercept=True the first rule "
                                 "is the intercept, which has no conditions.")
            try:
                estimator._check_conditions(rule.conditions)
            except ValueError as error:
                raise ValueError(f"model.rules[{k}].conditions: {error}") from None
        estimator._restore(ensemble)
        return estimator

    def _restore(self, ensemble):
        self.ensemble_ = ensemble
        self.rules_ = [rule.to_dict() for rule in ensemble.rules]


class OptimalRuleBoostingClassifier(_RuleBoosting):
    __doc__ = """Optimal rule boosting for a binary target (logistic loss).
    """ + _SHARED_DOC + """    loss : {"logistic"}, default "logistic"

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Sorted class values; a positive score predicts ``classes_[1]``.""" + \
        _SHARED_ATTRIBUTES + """
    References
    ----------
    .. [1] M. Boley, S. Teshuva, P. Le Bodic, G. I. Webb. "Better short than greedy:
       interpretable models through optimal rule boosting." SDM 2021.

    Examples
    --------
    >>> X = [[0.0], [1.0], [2.0], [3.0]]
    >>> model = OptimalRuleBoostingClassifier(n_rules=2, lam=1, thresholds="all").fit(
    ...     X, ["no", "no", "yes", "yes"])
    >>> print(model)
    -0.6667 if x0<=1.5   [optimal]
    +0.6667 if x0>1.5    [optimal]
    >>> model.predict([[0.5], [2.5]]).tolist()
    ['no', 'yes']
    """

    _kind = "classifier"
    _losses = ("logistic",)

    def __init__(self, n_rules=10, *, lam=2, loss="logistic", search="optimal",
                 thresholds="quantile:10", max_depth=None, apx=1, intercept=False,
                 max_nodes=None, time_limit=None, rule_time_limit=None, max_memory="auto",
                 engine="fast", verbose=0, n_workers=None, scheduler=None):
        super().__init__(n_rules, lam=lam, loss=loss, search=search, thresholds=thresholds,
                         max_depth=max_depth, apx=apx, intercept=intercept,
                         max_nodes=max_nodes, time_limit=time_limit,
                         rule_time_limit=rule_time_limit, max_memory=max_memory,
                         engine=engine, verbose=verbose, n_workers=n_workers,
                         scheduler=scheduler)

    def fit(self, X, y):
        """Boost ``n_rules`` rules on features ``X`` for a two-class target ``y``."""
        return self._boost(X, y)

    def _target(self, y, n_samples):
        """(target for the loss, class values)."""
        classes, labels = binary_classes(y, n_samples, type(self).__name__)
        return labels, classes

    def _restore(self, ensemble):
        if ensemble.classes is None:
            raise ValueError("a classifier model needs its classes.")
        super()._restore(ensemble)
        self.classes_ = np.array(ensemble.classes)

    def decision_function(self, X):
        """The score f(x) = Σ_k w_k q_k(x) of every row, shape (n_samples,); positive scores
        predict ``classes_[1]``."""
        return self._scores(X)

    def predict(self, X):
        """Predicted class of every row: ``classes_[1]`` where the score is positive."""
        positive = self._scores(X) > 0
        return self.classes_[positive.astype(int)]

    def predict_proba(self, X):
        """Class probabilities (n_samples, 2): (1 - σ(f(x)), σ(f(x)))."""
        scores = self._scores(X)
        positive = self.ensemble_.loss.transform(scores)
        return np.column_stack([1.0 - positive, positive])


class OptimalRuleBoostingRegressor(_RuleBoosting):
    __doc__ = """Optimal rule boosting for a real-valued target (squared or Poisson loss).
    """ + _SHARED_DOC + """    loss : {"squared", "poisson"}, default "squared"
        Poisson takes counts (not all 0) and predicts exp(f(x)), starting from the base score
        f_0 = log(mean y). Each weight is a Newton step (eq. 2.2), halved while it would
        increase the training loss.

    Attributes
    ----------""" + _SHARED_ATTRIBUTES + """
    References
    ----------
    .. [1] M. Boley, S. Teshuva, P. Le Bodic, G. I. Webb. "Better short than greedy:
       interpretable models through optimal rule boosting." SDM 2021.

    Examples
    --------
    >>> X = [[0.0], [1.0], [2.0], [3.0]]
    >>> model = OptimalRuleBoostingRegressor(n_rules=1, lam=0, thresholds="all").fit(
    ...     X, [0.0, 0.0, 2.0, 2.0])
    >>> print(model)
    +2.0000 if x0>1.5   [optimal]
    >>> model.predict([[3.0]]).tolist()
    [2.0]
    """

    _kind = "regressor"
    _losses = ("squared", "poisson")

    def __init__(self, n_rules=10, *, lam=2, loss="squared", search="optimal",
                 thresholds="quantile:10", max_depth=None, apx=1, intercept=False,
                 max_nodes=None, time_limit=None, rule_time_limit=None, max_memory="auto",
                 engine="fast", verbose=0, n_workers=None, scheduler=None):
        super().__init__(n_rules, lam=lam, loss=loss, search=search, thresholds=thresholds,
                         max_depth=max_depth, apx=apx, intercept=intercept,
                         max_nodes=max_nodes, time_limit=time_limit,
                         rule_time_limit=rule_time_limit, max_memory=max_memory,
                         engine=engine, verbose=verbose, n_workers=n_workers,
                         scheduler=scheduler)

    def fit(self, X, y):
        """Boost ``n_rules`` rules on features ``X`` for a numeric target ``y``."""
        return self._boost(X, y)

    def _target(self, y, n_samples):
        """(target for the loss, None: no classes)."""
        return regression_target(y, n_samples, type(self).__name__), None

    def predict(self, X):
        """Predictions: the score f(x) (squared loss) or exp(f(x)) (Poisson loss)."""
        scores = self._scores(X)
        return self.ensemble_.loss.transform(scores)
