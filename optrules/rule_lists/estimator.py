"""RuleListClassifier: certifiably optimal rule lists as a scikit-learn-style estimator."""

import itertools
import re
import time
import warnings
from fractions import Fraction

import numpy as np

from optrules.base import RuleEstimator, sample_weight_vector, target_classes
from optrules.data.binary_dataset import BinaryDataset
from optrules.data.mining import mine_antecedents
from optrules.distributed.cluster import CLUSTER_CONSTRAINTS, cluster_parameters
from optrules.limits import (STOP_STATUSES, Budget, Stopped, interruptible, memory_cap,
                             warn_if_stopped)
from optrules.rule_lists.fit import (BOUNDS, ENGINES, POLICIES, SYMMETRY_MAPS, ProgressLog,
                                     fit_rule_list, unsearched_result)
from optrules.rule_lists.model import RuleList, RuleListResult, exact_json
from optrules.validation import (Boolean, ExactFraction, FilePath, Integer, Options, Real,
                                 Subset, Thresholds, fraction_from_text, fraction_text,
                                 json_number, json_object, shown)

__all__ = ["RuleListClassifier"]

_HALF = Fraction(1, 2)


class RuleListClassifier(RuleEstimator):
    """Certifiably optimal rule list (CORELS objective) for a target of two or more classes.

    ``fit(X, y)`` turns the columns of ``X`` into items, mines antecedents (conjunctions of up
    to ``max_cardinality`` items from distinct features) and finds the rule list minimising

        R(d) = mistakes(d)/N + lam · (number of rules)

    (with ``sample_weight``: mistaken weight / total weight + lam · rules) over all lists of
    those antecedents, exactly (integer arithmetic), with a certificate:
    ``status_ == "optimal"`` means ``objective_`` is the minimum; a limit gives the best list
    found with ``lower_bound_ <= minimum <= objective_``.

    Items: a categorical column (text, ``bool`` or pandas ``category``) gives ``col:value``
    for each value; a numeric column gives ``col:<=t`` and ``col:>t`` at the cut points chosen
    by ``thresholds``, printed as the shortest decimal that splits the training values the same
    way. A missing cell satisfies no item of its column.

    Parameters
    ----------
    lam : float, str or Fraction in (0, 1), default 0.01
        λ, the penalty per rule, read exactly (0.01 is 1/100; numpy scalars work).
    max_cardinality : int >= 1, default 2
        Most items per antecedent.
    min_support : float, str or Fraction in [0, 1/2], or None, default None
        Mine only antecedents holding for between ``min_support``·N and
        (1 - ``min_support``)·N rows (by weight, when weighted). None means λ: by Thm 10 and Thm 12 of the paper an
        antecedent outside [λN, (1-λ)N] never appears in an optimal list, so nothing is lost
        and the certificate holds for all conjunctions of up to ``max_cardinality`` items. A
        larger value gives a warning: the list is then optimal among the mined antecedents
        only.
    thresholds : {"quantile:K", "width:K", "all"}, default "quantile:3"
        Cut points of numeric columns (quartiles by default).
    policy : {"lower-bound", "bfs", "dfs", "curiosity", "objective"}, default "lower-bound"
        Search order.
    symmetry_map : {"prefix", "captured", "none"}, default "prefix"
        Symmetry-aware pruning (prefix permutations, Cor. 18, or captured vectors, Thm 17).
    max_nodes, max_queue : int or None, default None
        Stop after expanding this many prefixes, or when more than this many wait in the
        queue; the best list so far is kept with its exact gap (``status_`` says why).
    time_limit : float or None, default None
        Seconds for the whole fit (mining included), likewise. When it runs out while mining,
        the model is the default rule alone with lower bound 0.
    max_memory : float, "auto" or None, default "auto"
        Cap on this process's resident memory in MB, likewise; "auto" is half of the physical
        (or container) memory, None is no cap.
    disabled_bounds : tuple of str, default ()
        Bounds to switch off, for ablation (the optimum does not change); names in
        ``optrules.rule_lists.BOUNDS``.
    engine : {"fast", "reference"}, default "fast"
        "reference" follows the paper line by line; "fast" makes the same search (same list,
        bounds and counters) on compressed samples with vectorised children.
    verbose : int, default 0
        If 1, show a progress line on stderr during a search longer than 2 s (rewritten in
        place on a terminal; a new line every 10 s otherwise); if 2 or more, from the start
        (every second when stderr is not a terminal). The line shows the elapsed time, prefixes
        expanded, queue and map sizes, best objective, global lower bound and log10 of the
        remaining search space.
    certificate : str or path, optional
        Write the search certificate of each ``fit`` here (JSON Lines, gzip when the name ends
        in ``.gz``; specs/certificates.md), for ``optrules check-certificate``. Only a finished
        search ("optimal") writes one.
    trace : str or path, optional
        Write the trace of each ``fit``'s search here (JSON Lines, ``specs/trace.md``): best
        objective, lower bound, queue size and prefix lengths over time, which
        ``optrules.plot.search_trace`` draws. The search is the same with or without it.
    n_workers : int >= 1, optional
        Spread each search over a local Dask cluster of this many processes (the extra
        ``optrules[distributed]``; specs/distributed.md): the same list, faster on several
        cores.
    scheduler : str, optional
        Spread it over the Dask cluster whose scheduler listens at this address
        (``"tcp://host:8786"``) instead.

    A first Ctrl-C (SIGINT) or SIGTERM during ``fit`` stops the search at its next node: the
    best list so far is kept, with ``status_ == "interrupted"`` and a warning; a second one
    aborts at once (KeyboardInterrupt).

    Attributes
    ----------
    rule_list_ : RuleList
        The learned list; ``str(rule_list_)`` prints it.
    rules_ : list of dict
        The list as plain data: one dict per rule (``antecedent``, ``conditions`` as
        ``[feature, operator, value]`` triples, ``prediction``, ``class_counts``), then the
        default rule (``antecedent`` None, no conditions).
    objective_ : Fraction
        Exact objective of ``rule_list_`` on the training data.
    lower_bound_ : Fraction
        Proven lower bound on every rule list's objective (= ``objective_`` when optimal).
    status_ : {"optimal", "node-limit", "queue-limit", "time-limit", "memory-limit", \
"interrupted"}
    result_ : RuleListResult
        The search's full result (nodes, seconds, statistics).
    n_antecedents_ : int
        Number of antecedents mined.
    classes_ : ndarray of shape (C,)
        The class values, sorted (numbers numerically, strings lexicographically); a tie for
        the largest count goes to the class that comes last (for two classes the positive
        class ``classes_[1]``, as in CORELS).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` had string column names.

    Notes
    -----
    ``predict_proba`` gives, for the rule that classifies a sample, the class frequencies of
    the training samples that rule captured (by weight when weighted; no smoothing). A rule
    predicts the majority class of what it captures, so ``predict`` is the most probable
    class, except on an exact tie, where the last of the tied classes is predicted (for two
    classes the positive class ``classes_[1]``, as in CORELS).

    Sample weights are exact (integers, decimals, fractions; a float is read as its shortest
    decimal): weight k gives exactly the rule list of k copies of the row.

    References
    ----------
    .. [1] E. Angelino, N. Larus-Stone, D. Alabi, M. Seltzer, C. Rudin. "Learning certifiably
       optimal rule lists for categorical data." JMLR 18(234), 2018.

    Examples
    --------
    >>> X = {"sex": ["M", "M", "F", "F", "M", "F"], "priors": [5, 0, 4, 0, 7, 1]}
    >>> y = [1, 0, 0, 0, 1, 0]
    >>> model = RuleListClassifier(lam=0.05, min_support=0).fit(X, y)
    >>> print(model.rule_list_)
    if {priors:<=4.7} then 0
    else 1
    >>> model.objective_, model.status_
    (Fraction(1, 20), 'optimal')
    >>> model.predict({"sex": ["F"], "priors": [9]}).tolist()
    [1]

    Three classes, the first row weighing 3:

    >>> y = ["high", "low", "mid", "low", "high", "mid"]
    >>> model = RuleListClassifier(lam=0.05, min_support=0).fit(
    ...     X, y, sample_weight=[3, 1, 1, 1, 1, 1])
    >>> print(model.rule_list_)
    if {priors:<=0.7} then low
    elif {sex:M} then high
    else mid
    """

    _kind = "classifier"
    _multi_class = True
    #: Parameters that came after the first model files; none of them changes the list.
    _params_added_later = ("trace", "n_workers", "scheduler")
    _parameter_constraints = {
        "lam": [ExactFraction(0, 1)],
        "max_cardinality": [Integer(1)],
        "min_support": [ExactFraction(0, _HALF, low_inclusive=True, high_inclusive=True),
                        None],
        "thresholds": [Thresholds()],
        "policy": [Options(POLICIES)],
        "symmetry_map": [Options(SYMMETRY_MAPS)],
        "max_nodes": [Integer(1), None],
        "max_queue": [Integer(1), None],
        "time_limit": [Real(), None],
        "max_memory": [Real(), None, Options(("auto",))],
        "disabled_bounds": [Subset(BOUNDS)],
        "engine": [Options(ENGINES)],
        "verbose": [Integer(0), Boolean()],
        "certificate": [FilePath(), None],
        "trace": [FilePath(), None],
        **CLUSTER_CONSTRAINTS,
    }

    def __init__(self, lam=0.01, *, max_cardinality=2, min_support=None,
                 thresholds="quantile:3", policy="lower-bound", symmetry_map="prefix",
                 max_nodes=None, max_queue=None, time_limit=None, max_memory="auto",
                 disabled_bounds=(), engine="fast", verbose=0, certificate=None, trace=None,
                 n_workers=None, scheduler=None):
        self.lam = lam
        self.max_cardinality = max_cardinality
        self.min_support = min_support
        self.thresholds = thresholds
        self.policy = policy
        self.symmetry_map = symmetry_map
        self.max_nodes = max_nodes
        self.max_queue = max_queue
        self.time_limit = time_limit
        self.max_memory = max_memory
        self.disabled_bounds = disabled_bounds
        self.engine = engine
        self.verbose = verbose
        self.certificate = certificate
        self.trace = trace
        self.n_workers = n_workers
        self.scheduler = scheduler

    def _validated_params(self):
        params = super()._validated_params()
        # both 'n_workers' and 'scheduler': the error names this estimator, not fit_rule_list
        cluster_parameters(params["n_workers"], params["scheduler"], type(self).__name__)
        return params

    # ----- fitting ------------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Mine antecedents from ``X`` and find the optimal rule list for ``y``.

        Parameters
        ----------
        X : DataFrame, ndarray (n_samples, n_features) or dict of columns
        y : array-like (n_samples,) with two or more classes
        sample_weight : array-like (n_samples,) of numbers >= 0, optional
            Exact row weights (see the class docstring); None weighs every row 1.

        Returns
        -------
        self
        """
        params = self._validated_params()
        with interruptible():
            budget = Budget(params["time_limit"], memory_cap(params["max_memory"]))
            features = self._training_features(X)
            classes, labels = target_classes(y, features.n_samples, type(self).__name__)
            sample_weight = sample_weight_vector(sample_weight, features.n_samples)
            target = str(getattr(y, "name", None) or "y")
            try:
                dataset = self._mine(features, classes, labels, target, params, budget,
                                     sample_weight)
            except Stopped as stop:
                result, n_antecedents = unsearched_result(
                    labels, params["lam"], stop.status, classes=classes, target=target,
                    sample_weight=sample_weight, seconds=time.perf_counter() - budget.start,
                    trace=params["trace"], engine=params["engine"],
                    policy=params["policy"]), 0
            else:
                result = self._search(dataset, params, budget)
                n_antecedents = dataset.n_antecedents
        self._set_result(result, n_antecedents)
        self._remember_features(X, features)
        warn_if_stopped(type(self).__name__, result.status, f"gap {float(result.gap):.6g}")
        return self

    def antecedents(self, X, y, sample_weight=None):
        """The antecedents, labels and weights ``fit(X, y, sample_weight)`` searches, as a
        :class:`BinaryDataset`.

        An auditor can certify a fitted model's claim on exactly this problem with
        :func:`optrules.verify.certify_rule_list`. Nothing is fitted.
        """
        params = self._validated_params()
        features = self._training_features(X)
        classes, labels = target_classes(y, features.n_samples, type(self).__name__)
        sample_weight = sample_weight_vector(sample_weight, features.n_samples)
        return self._mine(features, classes, labels, str(getattr(y, "name", None) or "y"),
                          params, None, sample_weight)

    def _mine(self, features, classes, labels, target, params, budget, sample_weight):
        lam = params["lam"]
        min_support = lam if params["min_support"] is None else params["min_support"]
        if min_support > lam:
            warnings.warn(f"min_support={self.min_support!r} is larger than lam={self.lam!r}: "
                          "antecedents with support between lam and min_support were not "
                          "mined, so the rule list is optimal only among the mined antecedents "
                          "(min_support=None mines at lam and loses nothing).", UserWarning,
                          stacklevel=3)
        return mine_antecedents(features, labels, classes=classes, target=target,
                                max_cardinality=params["max_cardinality"],
                                min_support=min(min_support, _HALF),
                                thresholds=params["thresholds"], budget=budget,
                                sample_weight=sample_weight)

    def fit_antecedents(self, dataset, sample_weight=None):
        """Find the optimal rule list over pre-mined antecedents (e.g. CORELS files).

        The mining parameters (``max_cardinality``, ``min_support``, ``thresholds``) do not
        apply. The fitted model predicts from a :class:`BinaryDataset` with the same antecedent
        names; when the antecedents were mined from features (they carry conditions) it also
        predicts from raw rows holding the features they use.

        Parameters
        ----------
        dataset : BinaryDataset
        sample_weight : array-like (N,) of numbers >= 0, optional
            Replaces the dataset's weights (if any).

        Returns
        -------
        self
        """
        if not isinstance(dataset, BinaryDataset):
            raise TypeError(f"fit_antecedents takes a BinaryDataset; got "
                            f"{type(dataset).__name__}.")
        params = self._validated_params()
        if sample_weight is not None:
            dataset = dataset.with_weights(sample_weight_vector(sample_weight,
                                                                dataset.n_samples))
        with interruptible():
            result = self._search(dataset, params, Budget(
                params["time_limit"], memory_cap(params["max_memory"])))
        conditions = dataset.antecedent_conditions
        if conditions is None:
            names, kinds = list(dataset.antecedent_names), (False,) * dataset.n_antecedents
        else:
            used = {}
            for condition in (c for antecedent in conditions for c in antecedent):
                used.setdefault(condition.feature, condition.numeric)
            names, kinds = list(used), tuple(used.values())
        self._set_result(result, dataset.n_antecedents)
        self.n_features_in_ = len(names)
        self.feature_names_in_ = np.array(names, dtype=object)
        self._feature_kinds = kinds
        self._feature_categories = None      # mining is not ours: categories are unknown
        warn_if_stopped(type(self).__name__, result.status, f"gap {float(result.gap):.6g}")
        return self

    def _search(self, dataset, params, budget):
        """The search's result within ``budget``; sets nothing."""
        progress = ProgressLog.for_verbosity(params["verbose"]) if params["verbose"] else None
        try:
            return fit_rule_list(
                dataset, params["lam"], engine=params["engine"], policy=params["policy"],
                symmetry_map=params["symmetry_map"], disabled_bounds=params["disabled_bounds"],
                max_nodes=params["max_nodes"], max_queue=params["max_queue"], max_memory=None,
                budget=budget, progress=progress, certificate=params["certificate"],
                trace=params["trace"], n_workers=params["n_workers"],
                scheduler=params["scheduler"])
        finally:
            if progress is not None:
                progress.close()

    def _set_result(self, result, n_antecedents):
        self.result_ = result
        self.rule_list_ = result.rule_list
        self.rules_ = _plain_rules(result.rule_list)
        self.objective_ = result.objective
        self.lower_bound_ = result.lower_bound
        self.status_ = result.status
        self.n_antecedents_ = n_antecedents
        self.classes_ = np.array(result.rule_list.classes)

    # ----- prediction ---------------------------------------------------------------------------
    def _rows(self, X):
        """What the rule list is applied to: a BinaryDataset as is, else checked features."""
        self._check_is_fitted()
        return X if isinstance(X, BinaryDataset) else self._features_for_predict(X)

    def predict(self, X):
        """Predicted class of every row of ``X`` (raw rows, or a BinaryDataset)."""
        rows = self._rows(X)
        return self.rule_list_.predict(rows)

    def predict_proba(self, X):
        """Class probabilities (n_samples, C), columns in ``classes_`` order (see Notes)."""
        rows = self._rows(X)
        return self.rule_list_.predict_proba(rows)

    def _model_text(self):
        return f"{self.rule_list_}\n{self.result_.summary()}"

    # ----- model files --------------------------------------------------------------------------
    def _model_content(self):
        result = self.result_
        return dict(self._common_content(), model=self.rule_list_.to_dict(), result={
            "objective": fraction_text(result.objective),
            "lower_bound": fraction_text(result.lower_bound),
            "lambda": fraction_text(result.lam), "status": result.status,
            "mistakes": exact_json(result.mistakes), "n_samples": result.n_samples,
            "total_weight": None if result.total_weight is None
            else fraction_text(result.total_weight),
            "nodes_expanded": result.nodes_expanded, "seconds": round(result.seconds, 6),
            "remaining_search_space": None if result.remaining_search_space is None
            else str(result.remaining_search_space),
            "n_antecedents": self.n_antecedents_, "statistics": result.statistics})

    @classmethod
    def _from_model_content(cls, body):
        estimator = cls._unfitted_from_content(body)
        estimator._restore_common(body, fields=("model", "result"))
        rule_list = RuleList.from_dict(body["model"])
        for k, rule in enumerate(rule_list.rules):
            if rule.conditions is None and estimator._feature_categories is not None:
                raise ValueError(f"model.rules[{k}].conditions is null, but the model was "
                                 "fitted on feature columns (feature_categories is set), so "
                                 "every rule has conditions.")
            try:
                estimator._check_conditions(rule.conditions or ())
            except ValueError as error:
                raise ValueError(f"model.rules[{k}].conditions: {error}") from None
        result = _result_from_content(body["result"], rule_list,
                                      estimator._validated_params()["lam"])
        estimator._set_result(result, body["result"]["n_antecedents"])
        return estimator


def _result_from_content(saved, rule_list, lam):
    """The search result a model file's ``result`` records, every field checked, the figures
    against the rule list's class counts and the parameter ``lam``."""
    json_object(saved, "result", ("objective", "lower_bound", "lambda", "status", "mistakes",
                                  "n_samples", "total_weight", "nodes_expanded", "seconds",
                                  "remaining_search_space", "n_antecedents", "statistics"))
    if fraction_from_text(saved["lambda"], "result.lambda") != lam:
        raise ValueError(f"result.lambda {saved['lambda']} is not the parameter lam="
                         f"{fraction_text(lam)}.")
    objective = fraction_from_text(saved["objective"], "result.objective")
    lower_bound = fraction_from_text(saved["lower_bound"], "result.lower_bound")
    counts = [rule.class_counts for rule in rule_list.rules] + [rule_list.default_counts]
    if counts[-1] is None:           # RuleList.from_dict: counts for every rule or for none
        raise ValueError("model.default_counts is null: the rule list lacks its class counts.")
    predictions = [rule.prediction for rule in rule_list.rules] + [rule_list.default]
    for k, (c, prediction) in enumerate(zip(counts, predictions)):
        majority = rule_list.classes[max(i for i, count in enumerate(c) if count == max(c))]
        if prediction != majority:
            where = "model.default" if k == len(rule_list) else f"model.rules[{k}].prediction"
            raise ValueError(f"{where} is {shown(prediction)}, but its class counts make "
                             f"{shown(majority)} the majority class (ties go to the last).")
    total = sum(sum(c) for c in counts)
    mistakes = sum(sum(c) - c[rule_list.classes.index(prediction)]
                   for c, prediction in zip(counts, predictions))
    total_weight = saved["total_weight"]
    if total_weight is None:
        if not all(isinstance(c, int) for c in itertools.chain(*counts)):
            raise ValueError("model class counts are weights, but result.total_weight is null.")
        n_samples = json_number(saved["n_samples"], "result.n_samples", integer=True, low=1)
        if n_samples != total:
            raise ValueError(f"result.n_samples is {n_samples}, but the rule list's class "
                             f"counts give {total}.")
    else:
        total_weight = fraction_from_text(total_weight, "result.total_weight")
        n_samples = json_number(saved["n_samples"], "result.n_samples", integer=True, low=1)
        if total_weight != total:
            raise ValueError(f"result.total_weight is {saved['total_weight']}, but the rule "
                             f"list's class weights give {fraction_text(total)}.")
    if total == 0:
        raise ValueError("the rule list's class counts add up to 0.")
    saved_mistakes = saved["mistakes"]
    if isinstance(saved_mistakes, str):
        saved_mistakes = fraction_from_text(saved_mistakes, "result.mistakes")
    if isinstance(saved_mistakes, bool) or saved_mistakes != mistakes:
        raise ValueError(f"result.mistakes is {shown(saved['mistakes'])}, but the rule list's "
                         f"class counts give {exact_json(mistakes)}.")
    if total_weight is not None:
        mistakes = Fraction(mistakes)           # weighted results hold exact weights
    exact = Fraction(mistakes) / total + lam * len(rule_list)
    if objective != exact:
        raise ValueError(f"result.objective {saved['objective']} is not the rule list's "
                         f"objective mistakes/N + lambda*K = {fraction_text(exact)}.")
    if not 0 <= lower_bound <= objective:
        raise ValueError(f"result.lower_bound {saved['lower_bound']} is not in [0, "
                         f"result.objective].")
    status = saved["status"]
    if status not in ("optimal", *STOP_STATUSES) or (status == "optimal") != \
            (lower_bound == objective):
        raise ValueError(f"result.status {shown(status)} is not a status, or not the one its "
                         "lower bound gives ('optimal' exactly when lower_bound = objective).")
    space = saved["remaining_search_space"]
    if space is not None and not (isinstance(space, str) and re.fullmatch("[0-9]{1,4000}", space)):
        raise ValueError(f"result.remaining_search_space must be null or a non-negative integer "
                         f"as text; got {shown(space)}.")
    json_number(saved["n_antecedents"], "result.n_antecedents", integer=True,
                low=len(rule_list))
    _check_counters(saved["statistics"], "result.statistics")
    return RuleListResult(rule_list, objective, mistakes, n_samples, lam, status, lower_bound,
                          json_number(saved["nodes_expanded"], "result.nodes_expanded",
                                      integer=True),
                          json_number(saved["seconds"], "result.seconds"),
                          None if space is None else int(space), dict(saved["statistics"]),
                          total_weight)


def _check_counters(value, where):
    """The search's statistics: counters (integers >= 0), or objects of them (a distributed
    search's ``nodes_by_worker``); ValueError naming the member otherwise (found by review:
    any JSON was accepted)."""
    if not isinstance(value, dict):
        raise ValueError(f"{where} must be a JSON object; got {shown(value)}.")
    for name, count in value.items():
        if isinstance(count, dict) and where == "result.statistics":
            _check_counters(count, f"{where}.{name}")
        else:
            json_number(count, f"{where}.{name}", integer=True)


def _plain_rules(rule_list):
    """The rule list as plain data (see the ``rules_`` attribute)."""
    description = rule_list.to_dict()
    return description["rules"] + [{"antecedent": None, "conditions": [],
                                     "prediction": description["default"],
                                     "class_counts": description["default_counts"]}]
