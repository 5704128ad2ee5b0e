"""The L1-regularised GLM of compressed rule ensembles (Nalenz and Augustin eq. 10; glmnet's
problem, Friedman, Hastie and Tibshirani 2010): what both engines solve and how a λ is chosen.

For a design X (n, p), targets y and λ >= 0 the objective is

    squared:   (1/2n) Σ (y_i − b − x_i·β)²                   + λ Σ_j |β_j|
    logistic:  −(1/n) Σ [y_i η_i − log(1 + e^{η_i})]          + λ Σ_j |β_j|,  η = b + Xβ

with an unpenalised intercept b and no standardisation of the columns (``specs/cre.md`` §4: the
rule columns are scaled by the method itself). The engines' ``lasso_path`` solve it along a
decreasing λ sequence (:func:`lambda_sequence`) with warm starts (:func:`solve_path`, each with its
own weighted least-squares solver); :func:`cross_validate` picks
λ_min or λ_1se by K-fold cross-validation.
"""

import math
import warnings
from typing import NamedTuple

import numpy as np

__all__ = ["LOSSES", "FIT_TOLERANCE", "ConvergenceWarning", "warn_not_converged", "objective",
           "deviance", "gradient", "damped_step", "kkt_violation", "lambda_sequence",
           "path_ends", "fold_ids", "choose_lambda", "LassoFit", "cross_validated_lasso",
           "null_intercept", "working_response", "solve_path"]

LOSSES = ("squared", "logistic")


def linear_predictor(X, intercept, coefficients):
    """η = b + Xβ, from the columns of the nonzero coefficients only (a lasso fit has few)."""
    nonzero = np.flatnonzero(coefficients)
    return intercept + X[:, nonzero] @ coefficients[nonzero]


def deviance(y, eta, loss):
    """The mean loss of predictions η (squared: (1/2n) Σ (y − η)²; logistic: the mean
    negative log-likelihood, computed stably)."""
    if loss == "squared":
        return 0.5 * float(np.mean((y - eta) ** 2))
    return float(np.mean(np.logaddexp(0.0, eta) - y * eta))


def objective(X, y, intercept, coefficients, lam, loss):
    """The penalised objective at (``intercept``, ``coefficients``) for ``lam``."""
    return deviance(y, linear_predictor(X, intercept, coefficients), loss) + \
        lam * float(np.abs(coefficients).sum())


def gradient(X, y, intercept, coefficients, loss):
    """(∂/∂b, ∇_β) of the mean loss (without the penalty): −(1/n) Σ r_i (1, x_i), with the
    residual r = y − η (squared) or y − σ(η) (logistic)."""
    eta = linear_predictor(X, intercept, coefficients)
    fitted = eta if loss == "squared" else np.exp(-np.logaddexp(0.0, -eta))     # σ(η)
    residual = y - fitted
    return -float(residual.mean()), -(X.T @ residual) / len(y)


#: A fit ends when no KKT condition of its λ is violated by more than this (on the gradient of
#: the mean loss), a tenth of what ``verify.lasso_kkt`` accepts.
FIT_TOLERANCE = 1e-8


class ConvergenceWarning(UserWarning):
    """A fit stopped at its iteration limit before its KKT conditions held to
    :data:`FIT_TOLERANCE`."""


def warn_not_converged(X, y, intercept, coefficients, lam, loss, max_steps):
    """Warn that the fit for ``lam`` stopped after ``max_steps`` reweightings, naming its KKT
    violation."""
    warnings.warn(f"lasso_path: the fit for lambda={lam:.6g} stopped after {max_steps} "
                  "reweighted steps with a KKT violation of "
                  f"{kkt_violation(X, y, intercept, coefficients, lam, loss):.3g} (more than "
                  f"{FIT_TOLERANCE:g}); raise max_steps or use the fast engine.",
                  ConvergenceWarning, stacklevel=3)


def damped_step(X, y, loss, lam, old, new):
    """The point a reweighted step moves to: ``new`` (an (intercept, coefficients) pair), or,
    when that raises the objective above ``old``'s, the point halfway towards it, and so on
    (at most 50 halvings; then ``old``)."""
    start = objective(X, y, old[0], old[1], lam, loss)
    step = 1.0
    for _ in range(50):
        intercept = old[0] + step * (new[0] - old[0])
        coefficients = old[1] + step * (new[1] - old[1])
        if objective(X, y, intercept, coefficients, lam, loss) <= start:
            return intercept, coefficients
        step /= 2
    return old


def kkt_violation(X, y, intercept, coefficients, lam, loss):
    """The largest violation of the KKT conditions at a point: |∂/∂b|, and per coefficient
    |g_j + λ sign(β_j)| where β_j != 0, max(|g_j| − λ, 0) where β_j = 0."""
    g_b, g = gradient(X, y, intercept, coefficients, loss)
    violations = np.where(coefficients != 0, np.abs(g + lam * np.sign(coefficients)),
                          np.maximum(np.abs(g) - lam, 0.0))
    return max(abs(g_b), float(violations.max()) if len(violations) else 0.0)


def lambda_sequence(X, y, loss, n_lambdas=100, ratio=None):
    """glmnet's λ sequence: from λ_max, the least λ with β = 0 (the largest |∂/∂β_j| at the
    intercept-only fit), down to ``ratio`` λ_max (0.01 when n < p, else 1e-4) on a
    logarithmic grid of ``n_lambdas`` values. Empty when λ_max is at most
    :data:`FIT_TOLERANCE` (no column moves the fit: β = 0 meets the KKT conditions of every
    λ >= 0 to the fits' tolerance; a column whose correlation with the residual is 0 exactly
    has a gradient of rounding noise, which would make a path of noise whose end differs
    between the engines)."""
    n, p = X.shape
    intercept = float(np.mean(y)) if loss == "squared" else \
        math.log(np.mean(y) / (1 - np.mean(y))) if 0 < np.mean(y) < 1 else 0.0
    _, grad = gradient(X, y, intercept, np.zeros(p), loss)
    lam_max = float(np.abs(grad).max()) if p else 0.0
    if lam_max <= FIT_TOLERANCE:
        return np.empty(0)
    ratio = (0.01 if n < p else 1e-4) if ratio is None else ratio
    return lam_max * np.exp(np.linspace(0.0, math.log(ratio), n_lambdas))


def path_ends(deviances, null_deviance):
    """Whether the path ends after its latest fit (glmnet's rule), ``deviances`` being the
    mean losses of its fits so far and ``null_deviance`` the intercept-only fit's: when the
    fit explains at least 0.999 of the null deviance, or explains less than 1e-5 of it (as a
    fraction of what it explains) more than the fit before."""
    if null_deviance <= 0:
        return True
    ratio = 1 - deviances[-1] / null_deviance
    if ratio >= 0.999:
        return True
    if len(deviances) > 1:
        previous = 1 - deviances[-2] / null_deviance
        return ratio - previous < 1e-5 * ratio
    return False


def null_intercept(y, loss):
    """The intercept of the fit without features: the mean, or its log-odds."""
    mean = float(np.mean(y))
    if loss == "squared":
        return mean
    return float(np.log(mean / (1 - mean))) if 0 < mean < 1 else 0.0


def working_response(eta, y, loss):
    """(weights w, working response z) of the quadratic approximation at η: (1, y) for the
    squared loss; (p(1 − p), η + (y − p)/w) for the logistic loss, w at least 1e-12 (the
    steps are damped where they would raise the objective, so saturated examples may take
    full Newton steps, which glmnet's floor of 1e-5 slows down on nearly separable data)."""
    if loss == "squared":
        return np.ones(len(y)), y
    prob = np.exp(-np.logaddexp(0.0, -eta))               # σ(η), without overflow
    w = np.maximum(prob * (1.0 - prob), 1e-12)
    return w, eta + (y - prob) / w


def solve_path(X, y, loss, lambdas, weighted_lasso, max_steps):
    """The path both engines follow, with the engine's ``weighted_lasso(z, w, λ, b, β)``
    solving each weighted least-squares problem: for each λ (decreasing), warm-started,
    iteratively reweighted least squares (one step for the squared loss), each step damped
    (:func:`damped_step`), until the KKT conditions hold to :data:`FIT_TOLERANCE` (else a
    :class:`ConvergenceWarning` after ``max_steps``); the path ends by :func:`path_ends`.
    Returns (intercepts (L,), coefficients (L, p))."""
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
    n, p = X.shape
    intercept, beta = null_intercept(y, loss), np.zeros(p)
    null_deviance = deviance(y, np.full(n, intercept), loss)
    intercepts, coefficients, deviances = [], [], []
    for lam in lambdas:
        for _ in range(max_steps):
            w, z = working_response(linear_predictor(X, intercept, beta), y, loss)
            step = weighted_lasso(z, w, lam, intercept, beta.copy())
            intercept, beta = step if loss == "squared" else \
                damped_step(X, y, loss, lam, (intercept, beta), step)
            if kkt_violation(X, y, intercept, beta, lam, loss) < FIT_TOLERANCE:
                break
        else:
            warn_not_converged(X, y, intercept, beta, lam, loss, max_steps)
        intercepts.append(intercept)
        coefficients.append(beta.copy())
        deviances.append(deviance(y, linear_predictor(X, intercept, beta), loss))
        if path_ends(deviances, null_deviance):
            break
    return np.array(intercepts), np.array(coefficients).reshape(len(coefficients), p)


def fold_ids(n, n_folds, random_state, strata=None):
    """Each example's fold, 0..K−1: a random permutation of 0, 1, ..., K−1, 0, 1, ... (glmnet's
    balanced random folds). With ``strata`` (a class per example) the examples, randomly
    permuted, are ordered by class (stably) before the folds 0, 1, ... are dealt out, so every
    class is spread evenly: a class of two or more examples is in every fold's training part.
    """
    rng = np.random.default_rng(random_state)
    order = rng.permutation(n)
    if strata is not None:
        order = order[np.argsort(np.asarray(strata)[order], kind="stable")]
    ids = np.empty(n, dtype=np.int64)
    ids[order] = np.arange(n) % n_folds
    return ids


def choose_lambda(lambdas, cv_mean, cv_se, rule):
    """The index of λ_min (least mean CV loss; the larger λ on a tie) or λ_1se (the largest λ
    whose mean CV loss is at most the least plus its standard error)."""
    best = int(np.argmin(cv_mean))                 # first occurrence: the larger λ
    if rule == "min":
        return best
    return int(np.flatnonzero(cv_mean <= cv_mean[best] + cv_se[best])[0])


class LassoFit(NamedTuple):
    """A cross-validated L1 GLM: the λ sequence, the path fitted on all examples
    (``intercepts`` (L,), ``coefficients`` (L, p)), the mean and standard error of the
    held-out loss per λ, and the index of the λ chosen (``chosen``)."""

    lambdas: np.ndarray
    intercepts: np.ndarray
    coefficients: np.ndarray
    cv_mean: np.ndarray
    cv_se: np.ndarray
    chosen: int


def cross_validated_lasso(X, y, loss, engine_module, n_folds=10, rule="1se", n_lambdas=100,
                          random_state=None, progress=None):
    """The path on all examples and K-fold cross-validation on the same λ sequence (each fold
    fitted without its examples, its mean loss on them; folds stratified by class for the
    logistic loss, :func:`fold_ids`), λ chosen by ``rule`` ("1se" or "min",
    :func:`choose_lambda`). The model reported and its predictions use that λ. ``progress``,
    when given, is called with a line of text after each path."""
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
    lambdas = lambda_sequence(X, y, loss, n_lambdas)
    if not len(lambdas):                      # no column moves the fit: λ_max = 0
        lambdas = np.zeros(1)
    intercepts, coefficients = engine_module.lasso_path(X, y, loss, lambdas)
    lambdas = lambdas[:len(intercepts)]                 # the path may end early
    if progress:
        progress(f"lasso path on all examples: {len(lambdas)} values of lambda")
    folds = fold_ids(len(y), n_folds, random_state, y if loss == "logistic" else None)
    held_out = np.empty((n_folds, len(lambdas)))
    for fold in range(n_folds):
        train, test = folds != fold, folds == fold
        b, beta = engine_module.lasso_path(X[train], y[train], loss, lambdas)
        last = len(b) - 1                # a fold's path that ends early: its last fit on
        held_out[fold] = [deviance(y[test], linear_predictor(X[test], b[min(i, last)],
                                                             beta[min(i, last)]), loss)
                          for i in range(len(lambdas))]
        if progress:
            progress(f"cross-validation: fold {fold + 1} of {n_folds}")
    cv_mean = held_out.mean(axis=0)
    cv_se = held_out.std(axis=0, ddof=1) / math.sqrt(n_folds)
    return LassoFit(lambdas, intercepts, coefficients, cv_mean, cv_se,
                    choose_lambda(lambdas, cv_mean, cv_se, rule))
