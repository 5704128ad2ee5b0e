"""Loss functions for gradient rule boosting (Boley et al. 2021, §2.1 and §2.3).

A loss is any object with

* ``name`` (str),
* ``prepare_target(y)`` -> float array the other methods take (validates and encodes labels),
* ``loss(y, f)`` -> per-sample loss l(y_i, f_i) (twice differentiable and convex in f),
* ``gradients(y, f)`` -> ``(g, h)``, the first and second derivatives of l in f at f_i, with
  h > 0 (Thm 3.1 needs strictly positive h; λ > 0 also keeps weights finite),
* ``transform(f)`` -> the prediction scale (identity, probability, mean count).

Subclass :class:`Loss` and override ``loss`` and ``gradients`` for a new loss.
"""

import numpy as np
from scipy.special import expit

from optrules.data.table import sorted_classes

__all__ = ["Loss", "SquaredLoss", "LogisticLoss", "PoissonLoss", "LOSSES", "get_loss"]


class Loss:
    """Base class: identity target encoding and transform."""

    name = "custom"

    def prepare_target(self, y):
        y = np.asarray(y, dtype=float)
        if not np.isfinite(y).all():
            raise ValueError(f"the target of the {self.name} loss must be finite numbers.")
        return y

    def loss(self, y, f):
        raise NotImplementedError

    def gradients(self, y, f):
        raise NotImplementedError

    def transform(self, f):
        return f


class SquaredLoss(Loss):
    """l(y, f) = (y - f)^2; g = -2(y - f), h = 2."""

    name = "squared"

    def loss(self, y, f):
        return (y - f) ** 2

    def gradients(self, y, f):
        return -2.0 * (y - f), np.full(np.shape(y), 2.0)


class LogisticLoss(Loss):
    """l(y, f) = log(1 + exp(-y f)) for y in {-1, +1}; g = -y σ(-y f), h = σ(y f) σ(-y f).

    ``prepare_target`` accepts labels of any two classes: the positive class (+1) is
    ``positive`` if given, else the last class in the order of
    :func:`~optrules.data.table.sorted_classes` (numbers numerically, strings
    lexicographically, False < True). ``classes`` holds (negative, positive) after preparation.
    """

    name = "logistic"

    def __init__(self, positive=None):
        self.positive = positive
        self.classes = None

    def prepare_target(self, y):
        labels = np.asarray(y)
        values = list(sorted_classes(labels.tolist(), "the target"))
        if len(values) != 2:
            raise ValueError(f"the logistic loss needs exactly two classes; the target has "
                             f"{len(values)}: {values[:5]}.")
        if self.positive is not None:
            if self.positive not in values:
                raise ValueError(f"positive class {self.positive!r} is not a target value "
                                 f"({values}).")
            positive = self.positive
        else:
            positive = values[1]
        negative = values[0] if values[1] == positive else values[1]
        self.classes = (negative, positive)
        return np.where(labels == positive, 1.0, -1.0)

    def loss(self, y, f):
        return np.logaddexp(0.0, -y * f)

    def gradients(self, y, f):
        return -y * expit(-y * f), expit(y * f) * expit(-y * f)

    def transform(self, f):
        return expit(f)


class PoissonLoss(Loss):
    """l(y, f) = exp(f) - y f (log link, counts y >= 0); g = exp(f) - y, h = exp(f)."""

    name = "poisson"

    def prepare_target(self, y):
        y = super().prepare_target(y)
        if (y < 0).any():
            raise ValueError("the poisson loss needs non-negative targets (counts).")
        return y

    def loss(self, y, f):
        return np.exp(f) - y * f

    def gradients(self, y, f):
        rate = np.exp(f)
        return rate - y, rate

    def transform(self, f):
        return np.exp(f)


LOSSES = {"squared": SquaredLoss, "logistic": LogisticLoss, "poisson": PoissonLoss}


def get_loss(loss, positive=None):
    """A fresh loss object from a name in :data:`LOSSES`, or the given :class:`Loss` itself."""
    if isinstance(loss, Loss):
        return loss
    if loss not in LOSSES:
        raise ValueError(f"The 'loss' parameter must be one of {list(LOSSES)} or a Loss "
                         f"instance. Got {loss!r} instead.")
    return LogisticLoss(positive) if loss == "logistic" else LOSSES[loss]()
