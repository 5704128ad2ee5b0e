"""Loss functions for gradient rule boosting (Boley et al. 2021, §2.1 and §2.3).

A loss is any object with

* ``name`` (str),
* ``prepare_target(y)`` -> float array the other methods take (validates and encodes labels),
* ``loss(y, f)`` -> per-sample loss l(y_i, f_i) (twice differentiable and convex in f), and
  ``mean_loss(y, f)``, their mean (the training loss that boosting's safe steps never increase),
* ``gradients(y, f)`` -> ``(g, h)``, the first and second derivatives of l in f at f_i, with
  h > 0 (Thm 3.1 needs strictly positive h; λ > 0 also keeps weights finite),
* ``transform(f)`` -> the prediction scale (identity, probability, mean count),
* ``initial_score(y)`` -> f_0, the constant score boosting starts from: 0 as in Boley et al.
  (2021, §2.3), except for the Poisson loss (not in the paper), which starts from its
  loss-optimal constant log(mean y) (``specs/rule-boosting.md`` §12 says why).

Subclass :class:`Loss` and override ``loss`` and ``gradients`` for a new loss.
"""

import math

import numpy as np

from optrules.data.table import sorted_classes

__all__ = ["Loss", "SquaredLoss", "LogisticLoss", "PoissonLoss", "LOSSES", "get_loss"]


def expit(x):
    """σ(x) = 1 / (1 + e^-x), the formula of scipy.special.expit, in numpy (importing scipy
    would double optrules' start-up time); e^-x overflowing to inf gives 0, as it should."""
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-np.asarray(x, dtype=float)))


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

    def mean_loss(self, y, f):
        """The mean of ``loss(y, f)``: inf if a term is not finite (a step that overshoots),
        else Σ l_i/n correctly rounded (``math.fsum``, independent of the order of terms)."""
        with np.errstate(over="ignore", invalid="ignore"):
            values = self.loss(y, f) / np.size(y)
        return math.fsum(values) if np.isfinite(values).all() else math.inf

    def gradients(self, y, f):
        raise NotImplementedError

    def transform(self, f):
        return f

    def initial_score(self, y):
        """f_0 = 0 (Boley et al. 2021, §2.3), for the prepared target ``y``."""
        return 0.0


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
    """l(y, f) = exp(f) - y f (log link, counts y >= 0); g = exp(f) - y, h = exp(f).

    Boosting starts from f_0 = log(mean y), the constant minimising the loss. All-zero counts
    are refused: their loss-optimal rate is 0, i.e. f = -inf, which no finite score reaches.

    Examples
    --------
    >>> loss = PoissonLoss()
    >>> y = loss.prepare_target([1, 2, 3, 6])
    >>> loss.initial_score(y) == float(np.log(3.0))
    True
    """

    name = "poisson"

    def prepare_target(self, y):
        y = super().prepare_target(y)
        if (y < 0).any():
            raise ValueError("the poisson loss needs non-negative targets (counts).")
        if not (y > 0).any():
            raise ValueError("the poisson loss needs at least one positive count: for "
                             "all-zero targets the best rate is 0, a log rate of -inf.")
        return y

    def loss(self, y, f):
        return np.exp(f) - y * f

    def gradients(self, y, f):
        rate = np.exp(f)
        return rate - y, rate

    def transform(self, f):
        return np.exp(f)

    def initial_score(self, y):
        """f_0 = log(mean y), the loss-optimal constant (d/df Σ(e^f - y f) = 0)."""
        return float(np.log(np.sum(y / y.size)))     # Σ(y/n) <= max y: no overflow


LOSSES = {"squared": SquaredLoss, "logistic": LogisticLoss, "poisson": PoissonLoss}


def get_loss(loss, positive=None):
    """A fresh loss object from a name in :data:`LOSSES`, or the given :class:`Loss` itself."""
    if isinstance(loss, Loss):
        return loss
    if loss not in LOSSES:
        raise ValueError(f"The 'loss' parameter must be one of {list(LOSSES)} or a Loss "
                         f"instance. Got {loss!r} instead.")
    return LogisticLoss(positive) if loss == "logistic" else LOSSES[loss]()
