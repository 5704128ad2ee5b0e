"""Label-wise decomposable losses of boosted rules: gradients, Hessians and loss values.

BOOMER (Rapp et al. 2023, eq. 3) keeps, for every example n and output k, the gradient
g_nk = ∂ℓ/∂p_nk and the Hessian h_nk = ∂²ℓ/∂p_nk² of the loss at the current score p_nk. Both
losses here are decomposable (each output on its own), so the Hessian is diagonal.

The formulas, and the order of their floating-point operations, are those of mlrl-boomer 0.12.3
(``specs/boosted-rules.md`` §2), so that equal statistics give equal rules:

* logistic: σ(p) = e/(1+e) with e = exp(p) when p < 0, else 1/(1+e) with e = exp(-p);
  g = σ(p) - 1 for a positive label, σ(p) for a negative one; h = σ(p) - σ²(p), where σ²(p) is
  e²/((e+1)(e+1)) or 1/((e+1)(e+1)); ℓ = log(1 + exp(-y p)) with y ∈ {-1, +1};
* squared: g = p - y, h = 1, ℓ = (y - p)² (g is the derivative of ½(y-p)², as in mlrl-boomer).

Every function takes arrays of the same shape and works element by element.
"""

import numpy as np

__all__ = ["LOSSES", "Loss", "LogisticLoss", "SquaredLoss"]


class Loss:
    """A decomposable loss: ``statistics(y, p)``, ``values(y, p)``, ``transform(p)``."""

    name = None

    def statistics(self, y, p):
        """(g, h): gradients and Hessians at scores ``p`` for targets ``y``, float64."""
        raise NotImplementedError

    def values(self, y, p):
        """The loss ℓ(y, p) of every element."""
        raise NotImplementedError

    def transform(self, p):
        """Scores on the prediction scale (probabilities for the logistic loss)."""
        return p


def _exponentials(p):
    """e = exp(p) where p < 0 and exp(-p) elsewhere: the stable branch of each formula."""
    with np.errstate(over="ignore"):
        return np.exp(np.where(p < 0, p, -p))


def logistic_function(p):
    """σ(p), computed as mlrl-boomer does (two branches, never overflowing)."""
    p = np.asarray(p, dtype=np.float64)
    e = _exponentials(p)
    return np.where(p < 0, e / (1 + e), 1 / (1 + e))


class LogisticLoss(Loss):
    """ℓ(y, p) = log(1 + exp(-y p)) per output, labels y ∈ {0, 1} read as -1 / +1."""

    name = "logistic"

    def statistics(self, y, p):
        p = np.asarray(p, dtype=np.float64)
        e = _exponentials(p)
        sigma = np.where(p < 0, e / (1 + e), 1 / (1 + e))
        squared = np.where(p < 0, (e * e) / ((e + 1) * (e + 1)), 1 / ((e + 1) * (e + 1)))
        gradients = np.where(np.asarray(y, dtype=bool), sigma - 1.0, sigma)
        return gradients, sigma - squared

    def values(self, y, p):
        p = np.asarray(p, dtype=np.float64)
        return np.logaddexp(0.0, np.where(np.asarray(y, dtype=bool), -p, p))

    def transform(self, p):
        return logistic_function(p)


class SquaredLoss(Loss):
    """ℓ(y, p) = (y - p)² per output; g = p - y, h = 1."""

    name = "squared"

    def statistics(self, y, p):
        p = np.asarray(p, dtype=np.float64)
        return p - y, np.ones_like(p)

    def values(self, y, p):
        return (np.asarray(y, dtype=np.float64) - p) ** 2


#: Loss name -> loss.
LOSSES = {loss.name: loss for loss in (LogisticLoss(), SquaredLoss())}
