"""Compressed rule ensembles (CRE) as scikit-learn-style estimators: a classifier and a
regressor."""

import sys

import numpy as np

from optrules.base import RuleEstimator, binary_classes, regression_target
from optrules.compressed_rules.design import rule_scales
from optrules.compressed_rules.fit import CRE_CONSTRAINTS, fit_compressed_rules
from optrules.compressed_rules.model import CompressedRules
from optrules.data.table import sorted_classes
from optrules.validation import Boolean, Integer

__all__ = ["CompressedRuleEnsembleClassifier", "CompressedRuleEnsembleRegressor"]

_PARAMETERS = ("kmax", "criterion", "eta", "linear", "variant", "rules_from", "folds",
               "lambda_choice", "n_rules", "n_trees", "max_depth", "engine", "random_state")

_SHARED_DOC = """
    Compressed rule ensembles (Nalenz and Augustin): rules are harvested from boosted trees
    (``n_trees`` rounds of depth ``max_depth``, learning rate 0.01, subsample 0.6; every
    internal node's path is a rule) or taken from a list the user passes; each feature's split
    points are clustered by optimal 1-D k-means (k <= ``kmax`` chosen by AIC or BIC); every
    condition ``x <= t`` / ``x > t`` becomes the soft condition of its cluster, the share of the
    cluster's split points it passes, so a rule becomes a smooth rule R(x) in [0, 1] (the
    product of its soft conditions); duplicate, complementary and nearly constant (mean
    outside [0.05, 0.95]) smooth rules are dropped. Then either an L1-regularised GLM on the
    smooth rules (each divided by its length^``eta``) and optional linear terms, λ chosen by
    ``folds``-fold cross-validation (λ_1se by default) and its KKT conditions checked by
    ``optrules.verify.lasso_kkt``; or (``variant="average"``) the average of the ``n_rules``
    most frequent smooth rules, each predicting R(x)·μ₊ + (1 − R(x))·μ₋. Features must be
    numeric (NaN for a missing value, which satisfies no condition and counts as the mean in
    a linear term). ``specs/cre.md`` states every step.

    Parameters
    ----------
    kmax : int >= 1, default 4
        The most clusters per feature (the paper's k_max; 2 gives the smallest models).
    criterion : {"aic", "bic"}, default "aic"
        How k is chosen: AIC as the paper, BIC as the authors' R code.
    eta : float >= 0, default 0.5
        Rule columns are divided by (number of conditions)^eta: longer rules cost more.
    linear : bool, default False
        Add a standardised linear term per feature to the GLM.
    variant : {"glm", "average"}, default "glm"
    rules_from : "boosted", a file name or a list of rules, default "boosted"
        A list holds rules as lists of (feature, operator, threshold) or as dicts with
        "conditions" (the form of ``BoostedRulesClassifier.rules_``); a file holds such a list
        in JSON (or an optrules model file of boosted rules). Operators ``<=``, ``>``, ``<``,
        ``>=``; features by name or index.
    folds : int >= 2, default 10
        Cross-validation folds (stratified by class for the classifier).
    lambda_choice : {"1se", "min"}, default "1se"
        λ_1se (the largest λ within one standard error of the least CV loss) or λ_min;
        the model and its predictions use the same λ.
    n_rules : int >= 1, default 10
        Rules averaged by the averaging variant.
    n_trees, max_depth : int >= 1, default 500 and 3
        The boosted trees the rules are harvested from.
    engine : {"fast", "reference"}, default "fast"
        The same clusters and smooth rules; GLM fits whose objectives agree to 1e-8. Where
        the lasso's optimum is not unique (more rule columns than a fold's design has rank,
        as with very few examples), the engines may stop at different optimal coefficients,
        and cross-validation may then choose different λ. The reference's plain coordinate
        descent can take minutes on ill-conditioned designs (nearly separated classes at
        small λ, nearly collinear rules), where the fast engine's feature-sign search takes a
        fraction of a second.
    random_state : int or None, default None
        Seed of the tree subsampling and of the folds.
    verbose : int, default 0
        If > 0, print each stage on stderr.
"""

_SHARED_ATTRIBUTES = """
    model_ : CompressedRules
        The terms; ``str(estimator)`` prints one per line, most important first
        (``BMI > [21.75;28.15]`` is a soft condition over the split points 21.75 to 28.15).
    terms_ : list of dict
        The terms as plain data (intercept, rules with their split points, linear terms).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` had string column names.
"""

_REFERENCES = """
    References
    ----------
    .. [1] M. Nalenz, T. Augustin. "Compressed rule ensemble learning." AISTATS 2022.
"""


class _CompressedRules(RuleEstimator):
    """Fitting, explanations and model files shared by the two estimators."""

    _loss = None

    def __init__(self, kmax=4, *, criterion="aic", eta=0.5, linear=False, variant="glm",
                 rules_from="boosted", folds=10, lambda_choice="1se", n_rules=10, n_trees=500,
                 max_depth=3, engine="fast", random_state=None, verbose=0):
        self.kmax = kmax
        self.criterion = criterion
        self.eta = eta
        self.linear = linear
        self.variant = variant
        self.rules_from = rules_from
        self.folds = folds
        self.lambda_choice = lambda_choice
        self.n_rules = n_rules
        self.n_trees = n_trees
        self.max_depth = max_depth
        self.engine = engine
        self.random_state = random_state
        self.verbose = verbose

    @property
    def _parameter_constraints(self):
        return dict({name: CRE_CONSTRAINTS[name] for name in _PARAMETERS},
                    verbose=[Integer(0), Boolean()])

    def fit(self, X, y):
        """Learn the compressed rule ensemble on numeric features ``X`` and target ``y``."""
        params = self._validated_params()
        features = self._training_features(_numeric_cells(X))
        values = _feature_values(features)
        target, outputs = self._target(y, features.n_samples)
        progress = _print_stage if params["verbose"] else None
        model = fit_compressed_rules(values, target, loss=self._loss,
                                     feature_names=features.names, progress=progress,
                                     **{name: params[name] for name in _PARAMETERS})
        self._restore(model)
        self.__dict__.update(outputs)
        self._remember_features(X, features)
        return self

    def _values_for_predict(self, X):
        return _feature_values(self._features_for_predict(_numeric_cells(X)))

    def _scores(self, X):
        values = self._values_for_predict(X)             # checks that the model is fitted
        return self.model_.scores(values)

    def explain(self, X):
        """How the prediction of each row of ``X`` comes about: one
        :class:`~optrules.compressed_rules.model.Explanation` per row, printing as the paper's
        Table 4 (term, coefficient, value, contribution; the contributions add up to the
        score)."""
        values = self._values_for_predict(X)
        return [self.model_.explain(row, self._prediction_text) for row in values]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = tags.input_tags.categorical = False
        return tags

    def _restore(self, model):
        self.model_ = model
        self.terms_ = model.terms()

    def _model_text(self):
        fit = self.model_.fit
        if self.model_.variant == "average":
            how = f"the average of the {len(self.model_.rules)} most frequent smooth rules"
        else:
            terms = len(self.terms_) - 1
            how = (f"L1 GLM, lambda_{fit['lambda_choice']} = {fit['lambda']:.4g} by "
                   f"{fit['folds']}-fold CV, {terms} term{'s' if terms != 1 else ''} from "
                   f"{fit['candidate_rules']} candidate rules")
        return f"{type(self).__name__}: {how}\n{self.model_}\n{self._score_meaning()}"

    def _model_content(self):
        return dict(self._common_content(), model=self.model_.to_dict(),
                    outputs=self._outputs_content())

    @classmethod
    def _from_model_content(cls, body):
        """The estimator a model file describes, checked against its parameters and schema."""
        estimator = cls._unfitted_from_content(body)
        estimator._restore_common(body, fields=("model", "outputs"))
        params = estimator._validated_params()
        model = CompressedRules.from_dict(body["model"], "model")
        if model.loss != cls._loss or model.variant != params["variant"]:
            raise ValueError(f"model.loss and model.variant must be {cls._loss!r} and the "
                             f"parameter variant={params['variant']!r}.")
        names = getattr(estimator, "feature_names_in_", None)
        schema = [str(n) for n in names] if names is not None else \
            [f"x{j}" for j in range(estimator.n_features_in_)]
        if list(model.feature_names) != schema or not all(estimator._feature_kinds):
            raise ValueError("model.features must be the numeric features of the schema "
                             "(feature_names_in, feature_numeric).")
        if model.linear and not params["linear"]:
            raise ValueError("model.linear holds terms, but the parameter linear is false.")
        if model.variant == "average" and len(model.rules) > params["n_rules"]:
            raise ValueError(f"model.rules has {len(model.rules)} rules, more than "
                             f"n_rules={params['n_rules']}.")
        lengths = [rule.length for rule in model.rules]
        if model.variant == "glm" and \
                not np.array_equal(np.array(model.scales), rule_scales(lengths, params["eta"])):
            raise ValueError(f"model.rules: each scale must be the rule's length to the power "
                             f"eta={params['eta']}, as the model was fitted.")
        estimator._restore(model)
        estimator.__dict__.update(estimator._outputs_from_content(body["outputs"]))
        return estimator


def _numeric_cells(X):
    """``X`` unchanged, except that an object array is read as numbers first, so a cell that
    is not one is named (with numpy's message) instead of making its column categorical."""
    if isinstance(X, np.ndarray) and X.dtype == object and X.ndim == 2:
        for (row, column), cell in np.ndenumerate(X):
            try:
                float(cell)
            except (TypeError, ValueError) as error:
                raise type(error)(f"feature x{column}, row {row}: {error}; compressed rule "
                                  "ensembles need numeric features.") from None
        return X.astype(np.float64)
    return X


def _feature_values(features):
    """The (n, d) float matrix of numeric features; ValueError naming a categorical one."""
    for name, numeric in zip(features.names, features.numeric):
        if not numeric:
            raise ValueError(f"feature {name!r} is categorical: compressed rule ensembles need "
                             "numeric features (encode it as 0/1 columns first).")
    if not features.columns:
        return np.empty((features.n_samples, 0))
    return np.column_stack(features.columns).astype(np.float64)


def _print_stage(text):
    print(f"CRE: {text}", file=sys.stderr, flush=True)


class CompressedRuleEnsembleClassifier(_CompressedRules):
    __doc__ = """Compressed rule ensemble for a binary target.
    """ + _SHARED_DOC + """
    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The sorted class values; ``predict_proba(X)[:, 1]`` is the probability of
        ``classes_[1]``.""" + _SHARED_ATTRIBUTES + _REFERENCES + """
    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2)); y = np.where(X[:, 0] > 0.5, "yes", "no")
    >>> model = CompressedRuleEnsembleClassifier(n_trees=50, random_state=0).fit(X, y)
    >>> model.predict([[2.0, 0.0], [-1.0, 0.0]]).tolist()
    ['yes', 'no']
    >>> model.terms_[1]["term"]
    'x0 <= [0.477184;0.482369]'
    """

    _kind = "classifier"
    _loss = "logistic"

    def _target(self, y, n_samples):
        classes, labels = binary_classes(y, n_samples, type(self).__name__)
        counts = np.bincount(labels.astype(int), minlength=2)
        if self.variant == "glm" and counts.min() < 2:
            rare = classes[int(np.argmin(counts))]
            raise ValueError(f"{type(self).__name__} needs at least 2 examples of each class "
                             f"for cross-validation; class {rare!r} has {counts.min()}.")
        return labels.astype(np.float64), {"classes_": np.array(classes)}

    def _score_meaning(self):
        positive = self.classes_.tolist()[1]
        if self.model_.variant == "average":
            return f"P(y = {positive!r}) = score"
        return f"P(y = {positive!r}) = 1/(1 + exp(-score))"

    def _prediction_text(self, score):
        probability = self._probabilities(np.array([score]))[0]
        return f"score {score:.4g}: P(y = {self.classes_.tolist()[1]!r}) = {probability:.4g}"

    def _probabilities(self, scores):
        if self.model_.variant == "average":
            return scores
        return np.exp(-np.logaddexp(0.0, -scores))          # σ(score), without overflow

    def _outputs_content(self):
        return self.classes_.tolist()

    def _outputs_from_content(self, classes):
        if not isinstance(classes, list) or len(classes) != 2 or \
                list(classes) != list(sorted_classes(classes)):
            raise ValueError("outputs must list the two classes in class order. Got "
                             f"{classes!r}.")
        return {"classes_": np.array(classes)}

    def decision_function(self, X):
        """Scores, positive predicting ``classes_[1]``: the GLM's log-odds, or the averaged
        probability less 1/2."""
        scores = self._scores(X)
        return scores - 0.5 if self.model_.variant == "average" else scores

    def predict_proba(self, X):
        """Probabilities of the two classes, (n_samples, 2)."""
        positive = self._probabilities(self._scores(X))
        return np.column_stack([1.0 - positive, positive])

    def predict(self, X):
        """The class of probability above 1/2 (``classes_[0]`` at exactly 1/2)."""
        positive = self.decision_function(X) > 0         # checks that the model is fitted
        return self.classes_[positive.astype(int)]


class CompressedRuleEnsembleRegressor(_CompressedRules):
    __doc__ = """Compressed rule ensemble for a numeric target (squared loss).
    """ + _SHARED_DOC + """
    Attributes
    ----------""" + _SHARED_ATTRIBUTES + _REFERENCES + """
    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2)); y = np.where(X[:, 0] > 0.5, 3.0, 0.0)
    >>> model = CompressedRuleEnsembleRegressor(n_trees=50, random_state=0).fit(X, y)
    >>> model.predict([[2.0, 0.0], [-1.0, 0.0]]).round(1).tolist()
    [2.9, 0.0]
    """

    _kind = "regressor"
    _loss = "squared"

    def _target(self, y, n_samples):
        return regression_target(y, n_samples, type(self).__name__), {}

    def _score_meaning(self):
        return "prediction = score"

    def _prediction_text(self, score):
        return f"prediction {score:.4g}"

    def _outputs_content(self):
        return None

    def _outputs_from_content(self, outputs):
        if outputs is not None:
            raise ValueError(f"outputs must be null for a regressor. Got {outputs!r}.")
        return {}

    def predict(self, X):
        """Predicted values, (n_samples,)."""
        return self._scores(X)
