"""Losses of boosted rules: gradients, Hessians and loss values.

BOOMER (Rapp et al. 2023, eq. 3) keeps, for every example n and output k, the gradient
g_nk = ∂ℓ/∂p_nk and the Hessians h_nkl = ∂²ℓ/∂p_nk∂p_nl of the loss at the current scores.
The label-wise losses are decomposable (each output on its own), so the Hessian is diagonal
and ``statistics`` gives one per output. The example-wise logistic loss is not: its Hessian is
a full symmetric matrix per example, given packed (:data:`Loss.packed_hessian`): the upper
triangle column by column, h_rc (r <= c) at index c(c+1)/2 + r, as mlrl-boomer stores it.

The formulas, and the order of their floating-point operations, are those of mlrl-boomer 0.12.3
(``specs/boosted-rules.md`` §2), so that equal statistics give equal rules:

* logistic: σ(p) = e/(1+e) with e = exp(p) when p < 0, else 1/(1+e) with e = exp(-p);
  g = σ(p) - 1 for a positive label, σ(p) for a negative one; h = σ(p) - σ²(p), where σ²(p) is
  e²/((e+1)(e+1)) or 1/((e+1)(e+1)); ℓ = log(1 + exp(-y p)) with y ∈ {-1, +1};
* squared: g = p - y, h = 1, ℓ = (y - p)² (g is the derivative of ½(y-p)², as in mlrl-boomer);
* example-wise logistic (a surrogate of the subset 0/1 loss, Rapp et al. 2020):
  ℓ = log(1 + Σ_k exp(x_k)), x_k = -y_k p_k with y_k ∈ {-1, +1}; with t_k = exp(x_k) / (1 +
  Σ_j exp(x_j)) (computed after subtracting max(0, x), as mlrl-boomer): g_k = -y_k t_k,
  h_kk = t_k (1 - t_k), h_kl = -y_k y_l t_k t_l.

Every function takes arrays of the same shape and works element by element. exp and log are
the C library's (:func:`math.exp`, as mlrl-boomer's ``std::exp``), never numpy's: numpy's
vectorised exp differs from it in the last bit for about one input in twenty, and by CPU, so
its statistics would part from mlrl-boomer's (and from one machine to the next) in near ties.
"""

import math

import numpy as np

__all__ = ["LOSSES", "Loss", "LogisticLoss", "SquaredLoss", "ExampleWiseLogisticLoss",
           "packed_index"]


def packed_index(r, c):
    """Where h_rc (r <= c) of a symmetric matrix lies in its packed upper triangle."""
    return c * (c + 1) // 2 + r


class Loss:
    """A loss: ``statistics(y, p)``, ``values(y, p)``, ``transform(p)``."""

    name = None
    #: Whether ``statistics`` gives each example's full Hessian matrix, packed.
    packed_hessian = False

    def statistics(self, y, p):
        """(g, h): gradients and Hessians at scores ``p`` for targets ``y``, float64."""
        raise NotImplementedError

    def values(self, y, p):
        """The loss ℓ(y, p) of every element."""
        raise NotImplementedError

    def transform(self, p):
        """Scores on the prediction scale (probabilities for the logistic loss)."""
        return p


def libm(function, x):
    """``function`` (:func:`math.exp` or :func:`math.log`: the C library's) of every element of
    the float64 array ``x``.

    Examples
    --------
    >>> libm(math.exp, np.array([[0.0, 1.0]]))
    array([[1.        , 2.71828183]])
    """
    x = np.asarray(x, dtype=np.float64)
    return np.fromiter(map(function, x.ravel().tolist()), dtype=np.float64,
                       count=x.size).reshape(x.shape)


def _exponentials(p):
    """e = exp(p) where p < 0 and exp(-p) elsewhere: the stable branch of each formula."""
    return libm(math.exp, np.where(p < 0, p, -p))


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
        x = np.where(np.asarray(y, dtype=bool), -p, p)
        # mlrl-boomer's log-sum-exp: x + log(exp(0 - x) + 1) for x > 0, else log(1 + exp(x))
        return np.where(x > 0, x + libm(math.log, _exponentials(x) + 1),
                        libm(math.log, 1 + _exponentials(x)))

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


class ExampleWiseLogisticLoss(Loss):
    """ℓ(y, p) = log(1 + Σ_k exp(-y_k p_k)) per example, labels y ∈ {0, 1} read as -1 / +1;
    statistics (n, K) gradients and (n, K(K+1)/2) packed Hessians."""

    name = "example-wise-logistic"
    packed_hessian = True

    def statistics(self, y, p):
        p = np.asarray(p, dtype=np.float64)
        signs = np.where(np.asarray(y, dtype=bool), 1.0, -1.0)             # y_k
        x = -signs * p
        largest = np.maximum(x.max(axis=1), 0.0)[:, None]                # exp-normalize
        exponentials = libm(math.exp, x - largest)
        t = exponentials / (libm(math.exp, -largest) + exponentials.sum(axis=1, keepdims=True))
        n, k = p.shape
        hessians = np.empty((n, k * (k + 1) // 2))
        for c in range(k):
            for r in range(c):
                hessians[:, packed_index(r, c)] = -signs[:, r] * signs[:, c] * t[:, r] * t[:, c]
            hessians[:, packed_index(c, c)] = t[:, c] * (1.0 - t[:, c])
        return -signs * t, hessians

    def values(self, y, p):
        """The loss of every example, shape (n,)."""
        x = np.where(np.asarray(y, dtype=bool), -1.0, 1.0) * np.asarray(p, dtype=np.float64)
        largest = np.maximum(x.max(axis=1), 0.0)                        # exp-normalize
        return largest + libm(math.log, libm(math.exp, -largest) +
                              libm(math.exp, x - largest[:, None]).sum(axis=1))

    def transform(self, p):
        """Each label's marginal probability σ(p_k) (mlrl-boomer offers others)."""
        return logistic_function(p)


#: Loss name -> loss.
LOSSES = {loss.name: loss for loss in (LogisticLoss(), SquaredLoss(), ExampleWiseLogisticLoss())}
