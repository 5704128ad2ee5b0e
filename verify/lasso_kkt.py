"""Certificates of the L1-regularised GLM of compressed rule ensembles (``specs/cre.md`` §4).

The problem is convex, so a point is optimal exactly when it satisfies the KKT conditions:
with the mean-loss gradient g_b (intercept) and g_j (coefficient j),

    g_b = 0,    g_j = −λ sign(β_j) where β_j != 0,    |g_j| <= λ where β_j = 0.

:func:`check_lasso_kkt` evaluates them from the data alone, in float64, and accepts the
coefficients when no condition is violated by more than ``tolerance`` (default
:data:`KKT_TOLERANCE`); the floats make this a check within a stated tolerance, not an exact
proof. :func:`second_opinion` minimises the same objective by another method (scipy's
L-BFGS-B on the split β = β⁺ − β⁻, β± >= 0) and returns its objective, which no feasible point
can beat by more than rounding. Nothing here calls the engines' solvers.
"""

from dataclasses import dataclass

import numpy as np
import scipy.optimize

__all__ = ["KktCheck", "check_lasso_kkt", "second_opinion", "KKT_TOLERANCE"]

#: The largest violation of a KKT condition (on the gradient of the mean loss) accepted.
KKT_TOLERANCE = 1e-7


@dataclass(frozen=True)
class KktCheck:
    """The outcome of :func:`check_lasso_kkt`: ``ok``, the largest violation and where
    (``"intercept"`` or a coefficient index), and the objective at the point."""

    ok: bool
    largest_violation: float
    where: object
    objective: float
    tolerance: float

    def __str__(self):
        verdict = "KKT conditions hold" if self.ok else "KKT conditions violated"
        return (f"{verdict}: largest violation {self.largest_violation:.3g} at {self.where} "
                f"(tolerance {self.tolerance:g}); objective {self.objective:.17g}")


def _mean_loss_and_residual(X, y, intercept, coefficients, loss):
    eta = intercept + X @ coefficients
    if loss == "squared":
        return 0.5 * float(np.mean((y - eta) ** 2)), y - eta
    fitted = np.where(eta >= 0, 1.0 / (1.0 + np.exp(-np.abs(eta))),
                      np.exp(-np.abs(eta)) / (1.0 + np.exp(-np.abs(eta))))
    return float(np.mean(np.logaddexp(0.0, eta) - y * eta)), y - fitted


def check_lasso_kkt(X, y, intercept, coefficients, lam, loss, tolerance=KKT_TOLERANCE):
    """Check the KKT conditions of (``intercept``, ``coefficients``) for ``lam``.

    >>> X = np.array([[1.0], [0.0], [1.0], [0.0]]); y = np.array([1.0, 0.0, 1.0, 0.0])
    >>> check_lasso_kkt(X, y, 0.0, np.array([1.0]), 0.0, "squared").ok
    True
    >>> check_lasso_kkt(X, y, 0.0, np.array([0.9]), 0.0, "squared").ok
    False
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    coefficients = np.asarray(coefficients, dtype=np.float64)
    mean_loss, residual = _mean_loss_and_residual(X, y, intercept, coefficients, loss)
    n = len(y)
    gradient_b = -float(residual.sum()) / n
    gradient = -(X.T @ residual) / n
    violations = np.where(coefficients != 0, np.abs(gradient + lam * np.sign(coefficients)),
                          np.maximum(np.abs(gradient) - lam, 0.0))
    where, largest = "intercept", abs(gradient_b)
    if len(violations) and violations.max() > largest:
        where, largest = int(np.argmax(violations)), float(violations.max())
    objective = mean_loss + lam * float(np.abs(coefficients).sum())
    return KktCheck(largest <= tolerance, largest, where, objective, tolerance)


def second_opinion(X, y, lam, loss):
    """(intercept, coefficients, objective) of scipy's L-BFGS-B on the split problem
    (b, β⁺, β⁻ >= 0), from zero, with tight tolerances, restarted from its own point while
    that lowers the objective (it can stop early where the loss is flat)."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n, p = X.shape

    def value_and_gradient(v):
        b, plus, minus = v[0], v[1:p + 1], v[p + 1:]
        mean_loss, residual = _mean_loss_and_residual(X, y, b, plus - minus, loss)
        g = -(X.T @ residual) / n
        value = mean_loss + lam * float(plus.sum() + minus.sum())
        return value, np.concatenate([[-residual.sum() / n], g + lam, -g + lam])

    bounds = [(None, None)] + [(0.0, None)] * (2 * p)
    start, best = np.zeros(2 * p + 1), None
    for _ in range(20):        # restarted from its own point while that still improves
        result = scipy.optimize.minimize(value_and_gradient, start, jac=True,
                                         method="L-BFGS-B", bounds=bounds,
                                         options={"ftol": 1e-15, "gtol": 1e-12,
                                                  "maxiter": 100_000, "maxfun": 100_000})
        if best is not None and not result.fun < best.fun:
            break
        best, start = result, result.x
    coefficients = best.x[1:p + 1] - best.x[p + 1:]
    return float(best.x[0]), coefficients, float(best.fun)
