"""The L1-regularised GLM of compressed rule ensembles (Nalenz and Augustin eq. 10; glmnet's
problem, Friedman, Hastie and Tibshirani 2010): what both engines solve and how a λ is chosen.

For a design X (n, p), targets y and λ >= 0 the objective is

    squared:   (1/2n) Σ (y_i − b − x_i·β)²                   + λ Σ_j |β_j|
    logistic:  −(1/n) Σ [y_i η_i − log(1 + e^{η_i})]          + λ Σ_j |β_j|,  η = b + Xβ

with an unpenalised intercept b and no standardisation of the columns (``specs/cre.md`` §4: the
rule columns are scaled by the method itself). The engines' ``lasso_path`` solve it along a
decreasing λ sequence (:func:`lambda_sequence`) with warm starts; :func:`cross_validate` picks
λ_min or λ_1se by K-fold cross-validation.
"""

import math
from typing import NamedTuple

import numpy as np

__all__ = ["LOSSES", "objective", "deviance", "gradient", "lambda_sequence", "fold_ids",
           "choose_lambda", "LassoFit", "cross_validated_lasso"]

LOSSES = ("squared", "logistic")


def linear_predictor(X, intercept, coefficients):
    """η = b + Xβ."""
    return intercept + X @ coefficients


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
    fitted = eta if loss == "squared" else 1.0 / (1.0 + np.exp(-eta))
    residual = y - fitted
    return -float(residual.mean()), -(X.T @ residual) / len(y)


def lambda_sequence(X, y, loss, n_lambdas=100, ratio=None):
    """glmnet's λ sequence: from λ_max, the least λ with β = 0 (the largest |∂/∂β_j| at the
    intercept-only fit), down to ``ratio`` λ_max (0.01 when n < p, else 1e-4) on a
    logarithmic grid of ``n_lambdas`` values. Empty when λ_max = 0 (no column moves the
    fit)."""
    n, p = X.shape
    intercept = float(np.mean(y)) if loss == "squared" else \
        math.log(np.mean(y) / (1 - np.mean(y))) if 0 < np.mean(y) < 1 else 0.0
    _, grad = gradient(X, y, intercept, np.zeros(p), loss)
    lam_max = float(np.abs(grad).max()) if p else 0.0
    if lam_max == 0.0:
        return np.empty(0)
    ratio = (0.01 if n < p else 1e-4) if ratio is None else ratio
    return lam_max * np.exp(np.linspace(0.0, math.log(ratio), n_lambdas))


def fold_ids(n, n_folds, random_state):
    """Each example's fold, 0..K−1: a random permutation of 0, 1, ..., K−1, 0, 1, ... (glmnet's
    balanced random folds)."""
    rng = np.random.default_rng(random_state)
    return rng.permutation(np.arange(n) % n_folds)


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
                          random_state=None):
    """The path on all examples and K-fold cross-validation on the same λ sequence (each fold
    fitted without its examples, its mean loss on them), λ chosen by ``rule`` ("1se" or
    "min", :func:`choose_lambda`). The model reported and its predictions use that λ."""
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
    lambdas = lambda_sequence(X, y, loss, n_lambdas)
    if not len(lambdas):                      # no column moves the fit: λ_max = 0
        lambdas = np.zeros(1)
    intercepts, coefficients = engine_module.lasso_path(X, y, loss, lambdas)
    folds = fold_ids(len(y), n_folds, random_state)
    held_out = np.empty((n_folds, len(lambdas)))
    for fold in range(n_folds):
        train, test = folds != fold, folds == fold
        b, beta = engine_module.lasso_path(X[train], y[train], loss, lambdas)
        held_out[fold] = [deviance(y[test], linear_predictor(X[test], b[i], beta[i]), loss)
                          for i in range(len(lambdas))]
    cv_mean = held_out.mean(axis=0)
    cv_se = held_out.std(axis=0, ddof=1) / math.sqrt(n_folds)
    return LassoFit(lambdas, intercepts, coefficients, cv_mean, cv_se,
                    choose_lambda(lambdas, cv_mean, cv_se, rule))
