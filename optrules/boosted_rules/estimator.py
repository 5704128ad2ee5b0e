"""Boosted rules (BOOMER) as scikit-learn-style estimators: a classifier and a regressor."""

import sys
import numpy as np

from optrules.base import RuleEstimator, binary_classes, regression_target
from optrules.data.table import as_features, sorted_classes
from optrules.limits import warn_if_stopped
from optrules.boosted_rules.fit import BOOSTED_RULES_CONSTRAINTS, fit_boosted_rules
from optrules.boosted_rules.losses import LOSSES
from optrules.boosted_rules.model import BoostedRules
from optrules.boosted_rules.training_data import (feature_matrix, is_sparse_matrix,
                                                  sparse_training_data)
from optrules.validation import Boolean, Integer, Options, validate_params

__all__ = ["BoostedRulesClassifier", "BoostedRulesRegressor"]

_PARAMETERS = ("max_rules", "head", "shrinkage", "l1", "l2", "feature_sampling",
               "instance_sampling", "holdout", "patience", "binning", "min_coverage",
               "max_conditions", "mlrl_compatible", "engine", "random_state", "n_jobs",
               "time_limit", "max_memory", "label_binning", "nominal_features")

_SHARED_DOC = """
    A default rule (empty body, the regularised Newton step of all examples) and then
    ``max_rules`` rules learned greedily one after the other (Rapp et al. 2023, Algorithms
    1-3): each rule's body is grown condition by condition, each time adding the condition of
    best quality found by the pre-sorted search over every (sampled) feature, until no
    condition improves the rule; its head, the Newton step of the examples it covers with L1
    and L2 regularisation, is multiplied by ``shrinkage``. Numerical features are read as
    float32, as mlrl-boomer does; categorical ones give ``==`` / ``!=`` conditions; missing
    values satisfy no condition. ``X`` may be a scipy.sparse matrix: its zeros are never
    visited (the sparsity-aware search), and the model is the one its dense form gives.

    Parameters
    ----------
    max_rules : int >= 0, default 1000
        Rules after the default rule (mlrl-boomer's ``max_rules`` counts the default rule).
    head : {"single", "complete"}, default "single"
        A rule predicts for the one output of largest |score| or for all outputs.
    shrinkage : float > 0, default 0.3
    l1, l2 : float >= 0, default 0 and 1
        Regularisation weights of the heads.
    feature_sampling : bool, default True
        Search ⌊log2(F - 1) + 1⌋ random features per condition instead of all F.
    instance_sampling : {"with:R", "without:R", "stratified:R"} or None, default None
        Learn each rule on a random sample of round(R·n) training examples, drawn with or
        without replacement, or without replacement per label combination; the rule's head
        is then recomputed on all training examples it covers.
    holdout : float in (0, 1) or None, default None
        Share of the examples set aside (stratified for classification) to measure the
        ``model_.holdout_loss`` curve and stop early.
    patience : int >= 1, default 50
        With a holdout set: stop once the last ``patience`` rules have not lowered the holdout
        loss below its least value so far, keeping the rules up to that value.
    binning : {"width:R", "frequency:R"} or None, default None
        Histogram-based search: each numerical feature in max(2, ⌈R · distinct values⌉)
        equal-width or equal-frequency bins, trying only thresholds between neighbouring bins
        (faster on many examples). Not with ``mlrl_compatible``.
    min_coverage : int >= 1, default 1
        Fewest examples a condition may cover.
    max_conditions : int or None, default None
    mlrl_compatible : bool, default False
        Follow mlrl-boomer 0.12.3's search, quirks, bookkeeping of sums and counts, order of
        equal, nominal and missing values, nominal and sparse search included
        (``specs/boosted-rules.md`` §4.2-4.8), so that with ``feature_sampling=False`` the
        rules, thresholds and heads are those mlrl-boomer learns with sampling off (§7).
    engine : {"fast", "reference"}, default "fast"
        Both learn the same rules; "reference" follows the paper line by line.
    random_state : int or None, default None
        Seed of the feature and instance sampling and of the holdout split.
    n_jobs : int >= 1, default 1
        Threads searching the features of a condition at once; the rules do not change.
    time_limit : float or None, default None
        Seconds for the whole fit. When they run out, boosting stops after the rule under way
        and keeps the rules so far (``model_.status`` "time-limit", with a warning); likewise
        at a first Ctrl-C or SIGTERM ("interrupted") and when the process's resident memory
        reaches ``max_memory`` MB ("memory-limit").
    max_memory : float, "auto" or None, default "auto"
        "auto" is half of the physical (or container) memory, None is no cap.
    label_binning : float in (0, 1) or None, default None
        With ``loss="example-wise-logistic"``: gradient-based label binning with this bin
        ratio (mlrl-boomer uses 0.04): each head's outputs share the scores of at most
        ⌈ratio·K⌉ + 1 bins, a smaller linear system per candidate.
    nominal_features : sequence of int or None, default None
        Numeric columns to treat as nominal (``x == v`` / ``x != v`` for their values v).
    verbose : int, default 0
        If > 0, print each rule on stderr as it is learned.
"""

_SHARED_ATTRIBUTES = """
    model_ : BoostedRules
        The default rule and the learned rules; ``str(estimator)`` prints one per line,
        ``{feature1 <= 1.53 & feature2 > 7.935} => (y = -0.31)``.
    rules_ : list of dict
        The rules as plain data, default rule first: ``conditions`` (``feature``,
        ``operator``, ``threshold``) and ``head`` (output -> score).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` had string column names.
"""

_REFERENCES = """
    References
    ----------
    .. [1] M. Rapp, J. Fürnkranz, E. Hüllermeier. "On the efficient implementation of
       classification rule learning." Advances in Data Analysis and Classification, 2023.
"""


class _BoostedRules(RuleEstimator):
    """Fitting, scores and model files shared by the two estimators."""

    _losses = ()

    def __init__(self, max_rules=1000, *, loss=None, head="single", shrinkage=0.3, l1=0.0,
                 l2=1.0, feature_sampling=True, instance_sampling=None, holdout=None,
                 patience=50, binning=None, min_coverage=1, max_conditions=None,
                 mlrl_compatible=False, engine="fast", random_state=None, n_jobs=1,
                 time_limit=None, max_memory="auto", label_binning=None, nominal_features=None,
                 verbose=0):
        self.max_rules = max_rules
        self.loss = loss
        self.head = head
        self.shrinkage = shrinkage
        self.l1 = l1
        self.l2 = l2
        self.feature_sampling = feature_sampling
        self.instance_sampling = instance_sampling
        self.holdout = holdout
        self.patience = patience
        self.binning = binning
        self.min_coverage = min_coverage
        self.max_conditions = max_conditions
        self.mlrl_compatible = mlrl_compatible
        self.engine = engine
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.time_limit = time_limit
        self.max_memory = max_memory
        self.label_binning = label_binning
        self.nominal_features = nominal_features
        self.verbose = verbose

    @property
    def _parameter_constraints(self):
        constraints = {name: BOOSTED_RULES_CONSTRAINTS[name] for name in _PARAMETERS}
        return dict(constraints, loss=[Options(self._losses)], verbose=[Integer(0), Boolean()])

    def _fit(self, X, y):
        params = self._validated_params()
        sparse = is_sparse_matrix(X)
        features = X if sparse else self._training_features(X)
        targets, output_names, outputs = self._targets(y, X.shape[0] if sparse
                                                       else features.n_samples)
        progress = _print_rule if params["verbose"] else None
        model = fit_boosted_rules(features, targets, loss=params["loss"],
                                  output_names=output_names, progress=progress,
                                  **{name: params[name] for name in _PARAMETERS})
        self._restore(model)
        self.__dict__.update(outputs)
        if sparse:                        # numeric columns without names
            self._remember_features(None, as_features(np.zeros((1, X.shape[1]))))
        else:
            self._remember_features(X, features)
        warn_if_stopped(type(self).__name__, model.status,
                        f"{len(model.rules) - 1} of {params['max_rules']} rules")
        return self

    def _scores(self, X, n_rules):
        """Scores (n_samples, n_outputs) from the default rule and the first ``n_rules``."""
        if is_sparse_matrix(X):
            self._check_is_fitted()
            if X.shape[1] != self.n_features_in_:
                raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is "
                                 f"expecting {self.n_features_in_} features as input.")
            if any(c is not None for c in self.model_.categories):
                raise TypeError("sparse X holds numbers only, but this model was fitted with "
                                "categorical features; pass the data as a DataFrame.")
            values = sparse_training_data(X).values
        else:
            features = self._features_for_predict(X)
            values = feature_matrix(features, self.model_.categories)
        n_rules = validate_params({"n_rules": [Integer(0), None]}, {"n_rules": n_rules},
                                  type(self).__name__)["n_rules"]
        return self.model_.scores(values, n_rules)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _restore(self, model):
        self.model_ = model
        self.rules_ = model.to_dict()["rules"]

    def _model_text(self):
        return str(self.model_)

    def _model_content(self):
        return dict(self._common_content(), model=self.model_.to_dict(),
                    outputs=self._outputs_content())

    @classmethod
    def _from_model_content(cls, body):
        """The estimator a model file describes: the model (:meth:`BoostedRules.from_dict`)
        checked against the parameters and the feature schema."""
        estimator = cls._unfitted_from_content(body)
        estimator._restore_common(body, fields=("model", "outputs"))
        params = estimator._validated_params()
        model = BoostedRules.from_dict(body["model"], "model")
        if model.loss != params["loss"]:
            raise ValueError(f"model.loss {model.loss!r} is not the parameter "
                             f"loss={params['loss']!r}.")
        if len(model.rules) > params["max_rules"] + 1:
            raise ValueError(f"model.rules has {len(model.rules)} rules, more than the default "
                             f"rule and max_rules={params['max_rules']}.")
        names = getattr(estimator, "feature_names_in_", None)
        schema = [str(n) for n in names] if names is not None else \
            [f"x{j}" for j in range(estimator.n_features_in_)]
        categories = [None if numeric else tuple(estimator._feature_categories[name])
                      for name, numeric in zip(schema, estimator._feature_kinds)]
        if list(model.feature_names) != schema or list(model.categories) != categories:
            raise ValueError("model.features do not match the feature schema (names "
                             "feature_names_in, kinds feature_numeric, categories "
                             "feature_categories).")
        estimator._restore(model)
        estimator.__dict__.update(estimator._outputs_from_content(body["outputs"], model))
        return estimator


def _print_rule(t, rule_text):
    print(f"rule {t + 1}: {rule_text}", file=sys.stderr, flush=True)


class BoostedRulesClassifier(_BoostedRules):
    __doc__ = """Boosted classification rules (BOOMER) for binary or multi-label targets.
    """ + _SHARED_DOC + """    loss : {"logistic", "example-wise-logistic"}, default "logistic"
        Label-wise logistic loss, or the example-wise logistic loss of multi-label targets
        (non-decomposable, a surrogate of the subset 0/1 loss; needs ``head="complete"``: each
        head solves the linear system of its summed gradients and Hessian matrix).
        ``predict_proba`` gives each label's σ(score) and ``predict`` the labels of positive
        score in both cases.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Sorted class values of a binary target; a positive score predicts ``classes_[1]``.
        For a multi-label target (a 2-D 0/1 array) there is one output per column and
        ``classes_`` is ``[0, 1]``.""" + _SHARED_ATTRIBUTES + _REFERENCES + """
    Examples
    --------
    >>> X = [[1.0], [2.0], [3.0], [4.0]]
    >>> model = BoostedRulesClassifier(max_rules=1, feature_sampling=False).fit(
    ...     X, ["no", "no", "yes", "yes"])
    >>> print(model)
    {} => (y = 0)
    {x0 > 2.5} => (y = 0.2)
    >>> model.predict([[1.5], [3.5]]).tolist()
    ['no', 'yes']
    """

    _kind = "classifier"
    _losses = ("logistic", "example-wise-logistic")

    def __init__(self, max_rules=1000, *, loss="logistic", head="single", shrinkage=0.3,
                 l1=0.0, l2=1.0, feature_sampling=True, instance_sampling=None, holdout=None,
                 patience=50, binning=None, min_coverage=1, max_conditions=None,
                 mlrl_compatible=False, engine="fast", random_state=None, n_jobs=1,
                 time_limit=None, max_memory="auto", label_binning=None, nominal_features=None,
                 verbose=0):
        super().__init__(max_rules, loss=loss, head=head, shrinkage=shrinkage, l1=l1, l2=l2,
                         feature_sampling=feature_sampling,
                         instance_sampling=instance_sampling, holdout=holdout,
                         patience=patience, binning=binning, min_coverage=min_coverage,
                         max_conditions=max_conditions, mlrl_compatible=mlrl_compatible,
                         engine=engine, random_state=random_state, n_jobs=n_jobs,
                         time_limit=time_limit, max_memory=max_memory,
                         label_binning=label_binning, nominal_features=nominal_features,
                         verbose=verbose)

    def fit(self, X, y):
        """Learn the rules on features ``X`` for a binary target ``y`` of shape (n_samples,)
        or a multi-label 0/1 target of shape (n_samples, n_labels)."""
        return self._fit(X, y)

    def _targets(self, y, n_samples):
        """(0/1 targets (n, n_outputs), output names, the attributes describing them)."""
        labels = np.asarray(y, dtype=object) if isinstance(y, (list, tuple)) else np.asarray(y)
        if labels.ndim == 2 and labels.shape[1] > 1:
            targets = _multi_label_targets(labels, n_samples, type(self).__name__)
            return targets, tuple(f"y{k}" for k in range(targets.shape[1])), \
                {"classes_": np.array([0, 1]), "_multi_label": True}
        classes, encoded = binary_classes(y, n_samples, type(self).__name__)
        return encoded.astype(np.float64)[:, None], ("y",), \
            {"classes_": np.array(classes), "_multi_label": False}

    def _outputs_content(self):
        """The class values of a binary target, or null for a multi-label one."""
        return None if self._multi_label else self.classes_.tolist()

    def _outputs_from_content(self, classes, model):
        if classes is None:
            if len(model.output_names) < 2:
                raise ValueError("outputs: null (multi-label) needs a model of several outputs.")
            return {"classes_": np.array([0, 1]), "_multi_label": True}
        if not isinstance(classes, list) or len(classes) != 2 or \
                list(classes) != list(sorted_classes(classes)) or \
                len(model.output_names) != 1:
            raise ValueError("outputs must list the two classes of a binary target in class "
                             f"order (or be null for a multi-label one). Got {classes!r}.")
        return {"classes_": np.array(classes), "_multi_label": False}

    def decision_function(self, X, n_rules=None):
        """Scores: shape (n_samples,) for a binary target, positive predicting
        ``classes_[1]``; (n_samples, n_labels) for a multi-label one. ``n_rules`` uses only the
        default rule and the first ``n_rules`` rules."""
        scores = self._scores(X, n_rules)
        return scores if self._multi_label else scores[:, 0]

    def predict(self, X, n_rules=None):
        """Predicted class of every row (a 0/1 row per example for multi-label targets): a
        label is predicted where its score is positive."""
        positive = self._scores(X, n_rules) > 0
        if self._multi_label:
            return positive.astype(np.int64)
        return self.classes_[positive[:, 0].astype(int)]

    def predict_proba(self, X, n_rules=None):
        """Probabilities σ(score): (n_samples, 2) for a binary target, (n_samples, n_labels)
        of each label being relevant for a multi-label one."""
        scores = self._scores(X, n_rules)
        probabilities = LOSSES[self.model_.loss].transform(scores)
        if self._multi_label:
            return probabilities
        return np.column_stack([1.0 - probabilities[:, 0], probabilities[:, 0]])


def _multi_label_targets(labels, n_samples, estimator):
    if labels.shape[0] != n_samples:
        raise ValueError(f"y has {labels.shape[0]} rows but X has {n_samples} rows.")
    try:
        targets = labels.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{estimator}: a 2-D y is a multi-label target and must hold 0/1 "
                         "labels.") from None
    if not np.isin(targets, (0.0, 1.0)).all():
        raise ValueError(f"{estimator}: a 2-D y is a multi-label target and must hold 0/1 "
                         "labels.")
    return targets


class BoostedRulesRegressor(_BoostedRules):
    __doc__ = """Boosted regression rules (BOOMER) for one or several real-valued targets.
    """ + _SHARED_DOC + """    loss : {"squared"}, default "squared"

    Attributes
    ----------""" + _SHARED_ATTRIBUTES + _REFERENCES + """
    Examples
    --------
    >>> X = [[1.0], [2.0], [3.0], [4.0]]
    >>> model = BoostedRulesRegressor(max_rules=20, feature_sampling=False).fit(
    ...     X, [0.0, 0.0, 2.0, 2.0])
    >>> model.predict([[1.0], [4.0]]).round(2).tolist()
    [0.11, 1.9]
    """

    _kind = "regressor"
    _losses = ("squared",)

    def __init__(self, max_rules=1000, *, loss="squared", head="single", shrinkage=0.3, l1=0.0,
                 l2=1.0, feature_sampling=True, instance_sampling=None, holdout=None,
                 patience=50, binning=None, min_coverage=1, max_conditions=None,
                 mlrl_compatible=False, engine="fast", random_state=None, n_jobs=1,
                 time_limit=None, max_memory="auto", label_binning=None, nominal_features=None,
                 verbose=0):
        super().__init__(max_rules, loss=loss, head=head, shrinkage=shrinkage, l1=l1, l2=l2,
                         feature_sampling=feature_sampling,
                         instance_sampling=instance_sampling, holdout=holdout,
                         patience=patience, binning=binning, min_coverage=min_coverage,
                         max_conditions=max_conditions, mlrl_compatible=mlrl_compatible,
                         engine=engine, random_state=random_state, n_jobs=n_jobs,
                         time_limit=time_limit, max_memory=max_memory,
                         label_binning=label_binning, nominal_features=nominal_features,
                         verbose=verbose)

    def fit(self, X, y):
        """Learn the rules on features ``X`` for a numeric target ``y`` of shape (n_samples,)
        or (n_samples, n_outputs)."""
        return self._fit(X, y)

    def _targets(self, y, n_samples):
        """(targets (n, n_outputs), output names, the attributes describing them)."""
        values = np.asarray(y)
        if values.ndim == 2 and values.shape[1] > 1:
            if values.shape[0] != n_samples:
                raise ValueError(f"y has {values.shape[0]} rows but X has {n_samples} rows.")
            try:
                targets = np.asarray(values, dtype=np.float64)
            except (TypeError, ValueError):
                targets = np.full(values.shape, np.nan)
            if not np.isfinite(targets).all():
                raise ValueError("BoostedRulesRegressor: y must hold finite numbers.")
            return _within_range(targets), tuple(f"y{k}" for k in range(targets.shape[1])), \
                {"_multi_output": True}
        target = regression_target(y, n_samples, type(self).__name__)
        return _within_range(target)[:, None], ("y",), {"_multi_output": False}

    def _outputs_content(self):
        return len(self.model_.output_names)

    def _outputs_from_content(self, n_outputs, model):
        if n_outputs != len(model.output_names):
            raise ValueError(f"outputs ({n_outputs!r}) must be the model's number of outputs, "
                             f"{len(model.output_names)}.")
        return {"_multi_output": n_outputs > 1}

    def predict(self, X, n_rules=None):
        """Predicted values: (n_samples,) for one target, (n_samples, n_outputs) for several."""
        scores = self._scores(X, n_rules)
        return scores if self._multi_output else scores[:, 0]


#: The largest |y| the squared loss's statistics hold: a head's quality G·s + H·s²/2 grows
#: as n·y², which overflows beyond about 1e154/√n (then every quality is NaN and no rule is
#: learnt; found by review).
_LARGEST_TARGET = 1e140


def _within_range(targets):
    if np.abs(targets).max(initial=0.0) > _LARGEST_TARGET:
        raise ValueError(f"BoostedRulesRegressor: y holds values beyond {_LARGEST_TARGET:g} in "
                         "magnitude, where the squared loss's statistics overflow; rescale y.")
    return targets
