"""The design matrix of compressed rule ensembles' GLM (Nalenz and Augustin §4.4, eq. 9;
``specs/cre.md`` §3): which smooth rules enter, how they and the linear terms are scaled.

Examples
--------
>>> import numpy as np
>>> outputs = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [1.0, 0.0, 0.25], [0.0, 1.0, 1.0]])
>>> kept = select_rule_columns(outputs)
>>> kept                      # column 1 is 1 − column 0: collinear with the intercept
(0, 2)
>>> scale_rule_columns(outputs[:, kept], [1, 2]).round(3).tolist()[0]
[1.0, 0.354]
"""

import numpy as np

__all__ = ["select_rule_columns", "scale_rule_columns", "rule_scales", "linear_terms",
           "standardised", "SUPPORT", "LINEAR_SCALE"]

#: The least and greatest mean output a smooth rule may have (the authors' R code).
SUPPORT = (0.05, 0.95)
#: The scale of a standardised linear term (the authors' R code, after RuleFit).
LINEAR_SCALE = 0.4


def select_rule_columns(outputs, support=SUPPORT):
    """The indices of the columns of ``outputs`` (n, H; smooth rule outputs in [0, 1]) that
    enter the GLM, in order: a column whose mean is outside ``support`` is dropped, and so is
    one equal to an earlier kept column or to one minus it (collinear with the intercept)."""
    kept, seen = [], set()
    low, high = support
    for h in range(outputs.shape[1]):
        column = outputs[:, h]
        if not low <= column.mean() <= high:
            continue
        if column.tobytes() in seen:
            continue
        seen.update((column.tobytes(), (1.0 - column).tobytes()))  # it and its complement
        kept.append(h)
    return tuple(kept)


def scale_rule_columns(outputs, lengths, eta=0.5):
    """Eq. 9: each column divided by its rule's length (number of soft conditions) to the power
    ``eta`` (:func:`rule_scales`)."""
    return outputs / rule_scales(lengths, eta)


def rule_scales(lengths, eta):
    """Each rule's length to the power ``eta``: inf where that passes the float range (a
    huge eta; the rule's column is then 0), without numpy's overflow warning."""
    with np.errstate(over="ignore"):
        return np.asarray(lengths, dtype=np.float64) ** eta


def linear_terms(X, scale=LINEAR_SCALE):
    """Standardised linear terms: (x − mean)/sd × ``scale`` per column of ``X`` (means and
    standard deviations over the values present; a missing value becomes 0, the mean), and
    the (mean, sd) used, so that new data are transformed the same way. A constant column
    gets sd 1."""
    X = np.asarray(X, dtype=np.float64)
    present = ~np.isnan(X)
    count = present.sum(axis=0)
    # Each column over a power of 2 near its largest magnitude, which scales exactly: squares
    # of values beyond 1e154 would overflow (found by review), and other values are unchanged.
    _, exponent = np.frexp(np.where(present, np.abs(X), 0.0).max(axis=0, initial=0.0))
    unit = np.ldexp(1.0, exponent - 1)
    scaled = X / unit
    mean = np.where(present, scaled, 0.0).sum(axis=0) / np.maximum(count, 1)  # 0 if none present
    sd = np.sqrt(np.where(present, (scaled - mean) ** 2, 0.0).sum(axis=0) / np.maximum(count, 1))
    mean, sd = np.nan_to_num(mean) * unit, np.nan_to_num(sd) * unit
    sd = np.where(sd > 0, sd, 1.0)
    return standardised(X, mean, sd, scale), (mean, sd)


def standardised(X, mean, sd, scale=LINEAR_SCALE):
    """(x − mean)/sd × ``scale`` per column, a missing value giving 0 (new data are transformed
    with the training data's mean and sd). Where mean or sd pass 1, x, mean and sd are first
    divided by a power of 2 near the larger, which changes no quotient: x − mean overflowed for
    columns spanning ±1e308 (found by review)."""
    unit = _power_of_2_at_least_1(np.maximum(np.abs(mean), sd))
    return np.nan_to_num((np.asarray(X, dtype=np.float64) / unit - mean / unit) / (sd / unit)
                         * scale)


def _power_of_2_at_least_1(magnitude):
    """A power of 2 within a factor 2 below ``magnitude`` (elementwise), and 1 where that
    is below 1: dividing by it is exact, and leaves values up to 2 in magnitude."""
    _, exponent = np.frexp(magnitude)
    return np.ldexp(1.0, np.maximum(exponent - 1, 0))
