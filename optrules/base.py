"""What every optrules estimator shares: scikit-learn conventions without importing scikit-learn.

* ``__init__`` only stores its parameters; :meth:`RuleEstimator.fit` validates them against the
  class's declarative ``_parameter_constraints`` table (:mod:`optrules.validation`).
* :meth:`~RuleEstimator.get_params` / :meth:`~RuleEstimator.set_params` read the ``__init__``
  signature, so ``sklearn.base.clone`` and grid searches work.
* Learned attributes end in ``_``; using an unfitted estimator raises :class:`NotFittedError`.
* Feature data are checked as scikit-learn does: ``n_features_in_``, ``feature_names_in_``
  (DataFrames with string column names), the same messages for a wrong number of features,
  mismatched names, 1-D, empty or sparse input.
* ``to_json(path)`` saves the fitted model as JSON (:mod:`optrules.model_files`).

scikit-learn itself is imported only by ``__sklearn_tags__``, which only scikit-learn calls.
"""

import functools
import inspect
import sys
import warnings

import numpy as np

from optrules.data.table import Features, as_features, sorted_classes
from optrules.validation import json_number, json_object, shown, validate_params

__all__ = ["RuleEstimator", "NotFittedError", "DataConversionWarning", "binary_classes",
           "target_classes", "sample_weight_vector", "regression_target", "r_squared"]


class NotFittedError(ValueError, AttributeError):
    """An estimator was used before ``fit`` (a ValueError and an AttributeError, as in
    scikit-learn).

    When scikit-learn is already imported in the process, the error raised is also an instance
    of ``sklearn.exceptions.NotFittedError``, so code written for scikit-learn catches it;
    optrules never imports scikit-learn itself.
    """

    def __reduce__(self):
        # The class combined with scikit-learn's has no name pickle can find: rebuild the
        # error where it is unpickled (found by review: a worker could not send it back).
        return _not_fitted_error, self.args


def _sklearn_compatible(own_class):
    """``own_class``, or, when scikit-learn is loaded, a subclass of it and of scikit-learn's
    class of the same name, so code written for scikit-learn recognises it."""
    sklearn_exceptions = sys.modules.get("sklearn.exceptions")
    theirs = getattr(sklearn_exceptions, own_class.__name__, None)
    return own_class if theirs is None else _combined(own_class, theirs)


@functools.cache
def _combined(own_class, theirs):
    return type(own_class.__name__, (own_class, theirs), {"__module__": __name__})


def _default_parameter(cls, name):
    """The default of the parameter ``name`` in the first ``__init__`` of ``cls``'s classes
    that declares it (a subclass may leave it out and never set it)."""
    for klass in cls.__mro__:
        parameter = inspect.signature(klass.__init__).parameters.get(name) \
            if "__init__" in vars(klass) else None
        if parameter is not None and parameter.default is not inspect.Parameter.empty:
            return parameter.default
    raise AttributeError(f"{cls.__name__} has no parameter {name!r}.")


def _not_fitted_error(*args):
    return _sklearn_compatible(NotFittedError)(*args)


class DataConversionWarning(UserWarning):
    """Input data were converted (e.g. a column-vector ``y`` was flattened); also scikit-learn's
    ``DataConversionWarning`` when scikit-learn is loaded."""


class RuleEstimator:
    """Base class of the optrules estimators; see the module docstring.

    Subclasses define ``_parameter_constraints`` (every ``__init__`` parameter), ``_kind``
    (``"classifier"`` or ``"regressor"``), ``_multi_class`` for a classifier of more than two
    classes, and ``_model_text()``.
    """

    _parameter_constraints = {}
    _kind = None
    #: Whether a classifier takes more than two classes.
    _multi_class = False
    #: Parameters added after model files were first written: a file without one loads with
    #: the parameter's default (the fitted model does not depend on it).
    _params_added_later = ()

    # ----- parameters ---------------------------------------------------------------------------
    @classmethod
    def _get_param_names(cls):
        signature = inspect.signature(cls.__init__)
        return sorted(name for name, p in signature.parameters.items()
                      if name != "self" and p.kind != p.VAR_KEYWORD)

    def get_params(self, deep=True):
        """The estimator's parameters as a dict (``deep`` is accepted for scikit-learn)."""
        return {name: getattr(self, name) for name in self._get_param_names()}

    def set_params(self, **params):
        """Set parameters by name and return the estimator; ValueError for an unknown name."""
        valid = self._get_param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"Invalid parameter {name!r} for estimator "
                                 f"{type(self).__name__}. Valid parameters are: {valid!r}.")
            setattr(self, name, value)
        return self

    def _validated_params(self):
        """The parameters checked against ``_parameter_constraints``, in canonical form. A
        subclass may add a parameter without a constraint (passed as it is) and leave some
        out of its ``__init__`` (their attributes are read), as scikit-learn allows (found by
        review: both were KeyErrors)."""
        params = self.get_params()
        known = {name: params[name] if name in params else
                 getattr(self, name, _default_parameter(type(self), name))
                 for name in self._parameter_constraints}
        return dict(params, **validate_params(self._parameter_constraints, known,
                                              type(self).__name__))

    def __repr__(self):
        defaults = {name: p.default for name, p in
                    inspect.signature(type(self).__init__).parameters.items()}
        changed = [f"{name}={value!r}" for name, value in self.get_params().items()
                   if not _same(value, defaults.get(name))]
        return f"{type(self).__name__}({', '.join(changed)})"

    def __str__(self):
        """The fitted model in readable form; the parameters before fitting."""
        return self._model_text() if self.__sklearn_is_fitted__() else repr(self)

    # ----- fitted state ------------------------------------------------------------------------
    def __sklearn_is_fitted__(self):
        return hasattr(self, "n_features_in_")

    def _check_is_fitted(self):
        if not self.__sklearn_is_fitted__():
            raise _not_fitted_error(f"This {type(self).__name__} instance is not fitted yet. "
                                    "Call 'fit' with appropriate arguments before using this "
                                    "estimator.")

    # ----- feature data ------------------------------------------------------------------------
    @staticmethod
    def _training_features(X):
        """Canonical features of training data (columns without string names become
        ``x0, x1, ...``)."""
        X = _array_like(X)
        features = _checked_features(X, None, None)
        if features.n_samples == 0:
            raise ValueError(f"Found array with 0 sample(s) (shape=(0, {features.n_features})) "
                             "while a minimum of 1 is required.")
        if _feature_names(X) is None:
            features = as_features(features, [f"x{j}" for j in range(features.n_features)])
        return features

    def _remember_features(self, X, features):
        """Set ``n_features_in_``, ``feature_names_in_`` and the column kinds and categories new
        data will be read with; called once fitting has succeeded, so a failed ``fit`` leaves no
        half-fitted estimator."""
        names = _feature_names(X)
        self.n_features_in_ = features.n_features
        if names is not None:
            self.feature_names_in_ = np.array(names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self._feature_kinds = features.numeric
        self._feature_categories = {
            name: sorted({cell for cell in column if cell is not None})
            for name, column, numeric in zip(features.names, features.columns, features.numeric)
            if not numeric}

    def _features_for_predict(self, X):
        """Canonical features of new data, read with the training columns' kinds and names."""
        self._check_is_fitted()
        X = _array_like(X)
        names = _feature_names(X)
        fitted = getattr(self, "feature_names_in_", None)
        estimator = type(self).__name__
        if names is not None and fitted is None:
            warnings.warn(f"X has feature names, but {estimator} was fitted without feature "
                          "names", UserWarning)
        elif names is None and fitted is not None:
            warnings.warn(f"X does not have valid feature names, but {estimator} was fitted "
                          "with feature names", UserWarning)
        elif names is not None and list(names) != list(fitted):
            raise ValueError(_feature_name_mismatch(list(fitted), list(names)))
        _check_shape(X)
        n_columns = _n_columns(X)
        if n_columns != self.n_features_in_:
            raise ValueError(f"X has {n_columns} features, but {estimator} is expecting "
                             f"{self.n_features_in_} features as input.")
        model_names = list(fitted) if fitted is not None else \
            [f"x{j}" for j in range(self.n_features_in_)]
        features = _checked_features(X, model_names, self._feature_kinds)
        self._warn_unseen_categories(features)
        return features

    def _warn_unseen_categories(self, features):
        """Warn about categories never seen in training (a bool column passed as 0/1, say):
        they satisfy no ``==`` test, which silently changes predictions otherwise."""
        if self._feature_categories is None:      # antecedents given, not mined here
            return
        unseen = {}
        for name, known in self._feature_categories.items():
            new = sorted({c for c in features.column(name) if c is not None} - set(known))
            if new:
                unseen[name] = new
        if unseen:
            shown = "; ".join(f"{name!r}: {values[:5]}{' ...' if len(values) > 5 else ''}"
                              for name, values in unseen.items())
            warnings.warn(f"categories not seen in training, which satisfy no '==' test: "
                          f"{shown}.", UserWarning, stacklevel=3)

    def score(self, X, y, sample_weight=None):
        """Accuracy (classifiers) or the coefficient of determination R² (regressors) of the
        predictions for ``X`` against ``y``, weighted by ``sample_weight`` if given (as
        scikit-learn's). Several outputs (a 2-D ``y``): the share of rows with every output
        right, or R² averaged over the outputs."""
        predictions = self.predict(X)
        estimator = type(self).__name__
        if predictions.ndim == 2:
            y = np.asarray(y)
            if y.shape != predictions.shape:
                raise ValueError(f"y has shape {y.shape}, but {estimator} predicts "
                                 f"{predictions.shape[1]} outputs for {len(predictions)} "
                                 "samples.")
        else:
            y = _target_vector(y, len(predictions), estimator)
        weights = np.ones(len(predictions)) if sample_weight is None else \
            _score_weights(sample_weight, len(predictions))
        if self._kind == "classifier":
            right = predictions == y
            return float(np.average(right.all(axis=1) if right.ndim == 2 else right,
                                    weights=weights))
        if predictions.ndim == 2:
            return float(np.mean([r_squared(y[:, j], predictions[:, j], weights)
                                  for j in range(y.shape[1])]))
        return r_squared(y, predictions, weights)

    # ----- files -------------------------------------------------------------------------------
    def to_json(self, path):
        """Save the fitted estimator as a JSON model file (never pickle).

        ``optrules.load_model(path)`` gives back an estimator that predicts identically.
        """
        from optrules.model_files import write_model
        self._check_is_fitted()
        try:
            write_model(path, type(self).__name__, self._model_content())
        except OSError as error:
            raise ValueError(f"{path}: cannot write the model file ({error.strerror}).") \
                from None

    def _common_content(self):
        """Parameters and feature schema, the part of a model file every estimator has."""
        from optrules.model_files import json_params
        names = getattr(self, "feature_names_in_", None)
        return {"params": json_params(self.get_params()),
                "n_features_in": self.n_features_in_,
                "feature_names_in": None if names is None else [str(n) for n in names],
                "feature_numeric": [bool(k) for k in self._feature_kinds],
                "feature_categories": self._feature_categories}

    @classmethod
    def _unfitted_from_content(cls, content):
        """A new estimator with a model file's parameters, validated (JSON lists become the
        tuples the parameters hold)."""
        params = content["params"]
        names = set(cls._get_param_names())
        if not isinstance(params, dict) or not \
                names - set(cls._params_added_later) <= set(params) <= names:
            raise ValueError(f"'params' must name exactly the parameters "
                             f"{cls._get_param_names()}"
                             + (f" (files written before {list(cls._params_added_later)} "
                                "existed may lack those)" if cls._params_added_later else "")
                             + ".")
        defaults = inspect.signature(cls.__init__).parameters
        estimator = cls(**{name: tuple(value) if isinstance(value, list) and
                           isinstance(defaults[name].default, tuple) else value
                           for name, value in params.items()})
        estimator._validated_params()
        return estimator

    def _restore_common(self, content, fields=("model",)):
        """Inverse of :meth:`_common_content` on a fresh estimator, checking every field.

        ``content`` must hold exactly the model file's header, the common fields and the
        estimator's own ``fields``; errors name the field.
        """
        from optrules.model_files import HEADER_FIELDS
        json_object(content, "", HEADER_FIELDS + ("params", "n_features_in", "feature_names_in",
                                                  "feature_numeric", "feature_categories")
                    + tuple(fields))
        count = json_number(content["n_features_in"], "n_features_in", low=1, integer=True)
        names, kinds = content["feature_names_in"], content["feature_numeric"]
        categories = content["feature_categories"]
        if names is not None and (not isinstance(names, list) or len(names) != count or
                                  not all(isinstance(n, str) for n in names) or
                                  len(set(names)) != count):
            raise ValueError(f"feature_names_in must be null or {count} distinct strings; got "
                             f"{shown(names)}.")
        if not isinstance(kinds, list) or len(kinds) != count or \
                not all(isinstance(k, bool) for k in kinds):
            raise ValueError(f"feature_numeric must be {count} booleans; got {shown(kinds)}.")
        schema = names if names is not None else [f"x{j}" for j in range(count)]
        categorical = [n for n, numeric in zip(schema, kinds) if not numeric]
        if categories is not None and (
                not isinstance(categories, dict) or sorted(categories) != sorted(categorical)
                or not all(isinstance(v, list) and all(isinstance(c, str) for c in v)
                           and len(set(v)) == len(v) for v in categories.values())):
            raise ValueError("feature_categories must be null or list the distinct categories "
                             "(strings) of exactly the categorical features; got "
                             f"{shown(categories)}.")
        self.n_features_in_ = count
        if names is not None:
            self.feature_names_in_ = np.array(names, dtype=object)
        self._feature_kinds = tuple(kinds)
        self._feature_categories = categories

    def _check_conditions(self, conditions):
        """Every condition must test a feature of the schema, as a threshold on a numeric one or
        a category test on a categorical one (a model file could say otherwise)."""
        names = getattr(self, "feature_names_in_", None)
        schema = dict(zip(list(names) if names is not None else
                          [f"x{j}" for j in range(self.n_features_in_)], self._feature_kinds))
        for condition in conditions:
            if condition.feature not in schema:
                raise ValueError(f"a condition tests {condition.feature!r}, which is not a "
                                 "feature of the model.")
            if condition.numeric != schema[condition.feature]:
                kind = "numeric" if schema[condition.feature] else "categorical"
                raise ValueError(f"the condition {condition.name!r} does not fit the {kind} "
                                 f"feature {condition.feature!r}.")

    # ----- scikit-learn integration -------------------------------------------------------------
    def __sklearn_tags__(self):
        from sklearn.utils import (ClassifierTags, InputTags, RegressorTags, Tags,
                                   TargetTags)
        classifier = self._kind == "classifier"
        return Tags(estimator_type=self._kind,
                    target_tags=TargetTags(required=True),
                    classifier_tags=ClassifierTags(multi_class=self._multi_class)
                    if classifier else None,
                    regressor_tags=None if classifier else RegressorTags(),
                    input_tags=InputTags(allow_nan=True, string=True, categorical=True))


def _same(value, default):
    try:
        return bool(value == default) and type(value) is type(default)
    except (TypeError, ValueError):
        return value is default


def _feature_names(X):
    """Column names of a DataFrame whose names are all strings, else None (scikit-learn's
    rule); a dict of columns and canonical Features have names too."""
    if isinstance(X, dict):
        return [str(name) for name in X]
    if isinstance(X, Features):
        return list(X.names)
    columns = getattr(X, "columns", None)
    if columns is None or not hasattr(X, "__getitem__"):
        return None
    names = list(columns)
    return names if names and all(isinstance(name, str) for name in names) else None


def _n_columns(X):
    if isinstance(X, dict):
        return len(X)
    if isinstance(X, Features):
        return X.n_features
    if hasattr(X, "columns"):
        return len(X.columns)
    shape = np.shape(X) if not hasattr(X, "shape") else X.shape
    return shape[1] if len(shape) == 2 else -1


def _is_table(X):
    """A mapping, DataFrame, Features or sparse matrix: not converted with np.asarray."""
    return isinstance(X, (dict, Features)) or hasattr(X, "columns") or hasattr(X, "nnz")


def _array_like(X):
    """Array-likes that are not tables (lists, objects with ``__array__``) as numpy arrays."""
    if _is_table(X) or isinstance(X, np.ndarray):
        return X
    array = np.asarray(X)
    if array.dtype.kind in "US":      # keep Python strings and NaN apart (see as_features)
        array = np.asarray(X, dtype=object)
    return array


def _check_shape(X):
    """scikit-learn's messages for 1-D and featureless input."""
    if _is_table(X):
        return
    shape = np.shape(X)
    if len(shape) == 2 and shape[1] == 0:
        raise ValueError(f"Found array with 0 feature(s) (shape={shape}) while a minimum "
                         "of 1 is required.")
    if len(shape) == 1:
        raise ValueError(f"Expected 2D array, got 1D array instead: array of shape {shape}. "
                         "Reshape your data either using array.reshape(-1, 1) if your data "
                         "has a single feature or array.reshape(1, -1) if it contains a "
                         "single sample.")


def _checked_features(X, names, kinds):
    """``as_features`` after the shape checks."""
    _check_shape(X)
    return as_features(X, names, kinds)


def _feature_name_mismatch(fitted, given):
    message = "The feature names should match those that were passed during fit.\n"
    unexpected = sorted(set(given) - set(fitted))
    missing = sorted(set(fitted) - set(given))
    if unexpected:
        message += "Feature names unseen at fit time:\n" + \
            "".join(f"- {name}\n" for name in unexpected)
    if missing:
        message += "Feature names seen at fit time, yet now missing:\n" + \
            "".join(f"- {name}\n" for name in missing)
    if not unexpected and not missing:
        message += "Feature names must be in the same order as they were in fit.\n"
    return message


def r_squared(y, predictions, weights=None):
    """The coefficient of determination R² of ``predictions`` for the numbers ``y``: 1 minus
    the residual over the total sum of squares, each square weighted by ``weights`` if given
    (for a constant ``y``: 1 when every prediction is exact, else 0)."""
    y = np.asarray(y).astype(float)
    weights = np.ones(len(y)) if weights is None else weights
    residual = float((weights * (y - predictions) ** 2).sum())
    total = float((weights * (y - np.average(y, weights=weights)) ** 2).sum())
    return 1.0 - residual / total if total > 0 else (1.0 if residual == 0 else 0.0)


def _score_weights(sample_weight, n_samples):
    """``sample_weight`` of :meth:`score` as floats: n_samples finite numbers >= 0, not all
    0; ValueError naming the parameter otherwise."""
    try:
        weights = np.asarray(sample_weight, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("sample_weight must hold numbers.") from None
    if weights.shape != (n_samples,):
        raise ValueError(f"sample_weight has shape {weights.shape}; expected ({n_samples},), "
                         "one weight per sample.")
    if not (np.isfinite(weights).all() and (weights >= 0).all() and weights.max() > 0):
        raise ValueError("sample_weight must hold finite numbers >= 0, not all zero.")
    return weights / weights.max()          # a score does not depend on the weights' scale


def _target_vector(y, n_samples, estimator):
    """``y`` as a 1-D array of n_samples entries (a column vector is flattened, with a
    warning)."""
    if y is None:
        raise ValueError(f"{estimator} requires y to be passed, but the target y is None.")
    # A list keeps its elements' types (numpy would turn [1, "a"] into the text "1", "a",
    # hiding the mix of numbers and strings that the class order refuses).
    y = np.asarray(y, dtype=object) if isinstance(y, (list, tuple)) else np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected. Please "
                      "change the shape of y to (n_samples,), for example using ravel().",
                      _sklearn_compatible(DataConversionWarning), stacklevel=3)
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"y should be a 1d array, got an array of shape {y.shape} instead.")
    if y.shape[0] != n_samples:
        raise ValueError(f"y has {y.shape[0]} values but X has {n_samples} rows.")
    return y


def target_classes(y, n_samples, estimator, n_classes=None):
    """(classes, labels) of a classification target: ``classes`` in the class order of
    :func:`~optrules.data.table.sorted_classes` (numbers numerically, strings
    lexicographically, False < True) as Python str/int/float/bool values, ``labels`` the int64
    class index of each row.

    Parameters
    ----------
    n_classes : int, optional
        The exact number of classes required (2 for binary estimators); default: two or more.

    Raises
    ------
    ValueError
        For a missing target, continuous values ("Unknown label type"), mixed strings and
        numbers, or a wrong number of classes (the message names them).

    Examples
    --------
    >>> target_classes(["b", "a", "c", "a"], 4, "RuleListClassifier")
    (('a', 'b', 'c'), array([1, 0, 2, 0]))
    """
    y = _target_vector(y, n_samples, estimator)
    values = y.tolist()
    classes = list(sorted_classes(values))
    fractional = [v for v in classes if isinstance(v, float) and not v.is_integer()]
    if fractional:
        raise ValueError(f"Unknown label type: continuous. {estimator} needs discrete classes "
                         f"in y, not values such as {fractional[0]!r}: maybe you are trying "
                         "to fit a classifier on a regression target.")
    if len(classes) < 2 or (n_classes is not None and len(classes) != n_classes):
        shown = classes[:5] + (["..."] if len(classes) > 5 else [])
        needed = "2 or more" if n_classes is None else f"exactly {n_classes}"
        binary = "Only binary classification is supported. " if n_classes == 2 and \
            len(classes) > 2 else ""
        raise ValueError(f"{binary}{estimator} needs {needed} classes in y; y has "
                         f"{'only ' if len(classes) < 2 else ''}{len(classes)} "
                         f"class{'es' if len(classes) != 1 else ''}: {shown}.")
    index = {value: c for c, value in enumerate(classes)}
    return tuple(classes), np.array([index[v] for v in values], dtype=np.int64)


def binary_classes(y, n_samples, estimator):
    """(classes, labels) of a two-class target (:func:`target_classes` with exactly two
    classes), ``labels`` True for the positive class, the last one, ``classes[1]``."""
    classes, labels = target_classes(y, n_samples, estimator, n_classes=2)
    return classes, labels.astype(bool)


def sample_weight_vector(sample_weight, n_samples):
    """``sample_weight`` as a 1-D array of n_samples entries, or None (values are checked
    exactly later, by :func:`optrules.data.weights.integer_weights`)."""
    if sample_weight is None:
        return None
    # A list keeps Fractions and decimal strings as they are (numpy would make text or floats).
    weights = np.asarray(sample_weight, dtype=object) if isinstance(sample_weight, (list, tuple)) \
        else np.asarray(sample_weight)
    if weights.shape != (n_samples,):
        raise ValueError(f"sample_weight has shape {weights.shape}; expected one weight per "
                         f"row, ({n_samples},).")
    return weights


def regression_target(y, n_samples, estimator):
    """``y`` as a finite float vector; ValueError naming the problem."""
    y = _target_vector(y, n_samples, estimator)
    try:
        values = y.astype(float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{estimator} needs a numeric target y ({error}).") from None
    if not np.isfinite(values).all():
        raise ValueError(f"y has {int((~np.isfinite(values)).sum())} missing or infinite "
                         f"value(s) (first at row {int(np.flatnonzero(~np.isfinite(values))[0])}).")
    return values
