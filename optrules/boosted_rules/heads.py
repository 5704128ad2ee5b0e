"""Heads of boosted rules: the scores a rule predicts and the quality that ranks refinements.

For one output with summed gradient G and Hessian H over the examples a rule covers, and
regularisation weights λ1 (L1) and λ2 (L2), the score is the minimiser of the second-order
approximation of the loss with the regularisers (Rapp et al. 2020, §4.1)::

    s = (-G + r) / (H + λ2),   r = -λ1 if G > λ1, +λ1 if G < -λ1, else 0
    quality = G s + ½ H s² + λ1 |s| + ½ λ2 s²          (lower is better; 0 for the empty head)

(s is 0 when the division is not finite, checked only for λ2 = 0: with λ2 > 0 and H >= 0 it
is finite unless |G| overflows it). A *single-output* head predicts for the output of
largest |s| (the first one on ties); a *complete* head predicts for every output and its
quality is the sum of the outputs' qualities, in output order.

For the example-wise logistic loss the Hessians of a candidate form a symmetric matrix H (packed,
:mod:`~optrules.boosted_rules.losses`) and a complete head solves the linear system
(:func:`linear_system_heads`, as mlrl-boomer's ``DenseNonDecomposableCompleteRuleEvaluation``)::

    (H + λ2 I) s = o,   o_k = -G_k + r(-G_k)    (r as above: o is -G soft-thresholded by λ1)
    quality = s·G + ½ s·(H s) + λ1 |s|₁ + ½ λ2 |s|²

These are the formulas, and the order of floating-point operations, of mlrl-boomer 0.12.3
(``specs/boosted-rules.md`` §3): λ1 and λ2 are float32 there, so :func:`regularisation` rounds
them the same way. Every function works on a whole array of candidates at once (statistics
output first: shape (n_outputs, ...)), so the readable and the fast engine evaluate heads with
the same operations.
"""

import warnings

import numpy as np
import scipy.linalg

from optrules.boosted_rules.losses import packed_index

__all__ = ["regularisation", "output_scores", "output_qualities", "single_output_heads",
           "complete_heads", "linear_system_heads", "binned_linear_system_heads",
           "default_head", "HEADS"]

HEADS = ("single", "complete")


def regularisation(l1, l2):
    """(λ1, λ2) as the float64 values of their float32 roundings."""
    return float(np.float32(l1)), float(np.float32(l2))


def output_scores(gradients, hessians, l1, l2):
    """s for every element of the summed statistics (any shape)."""
    if l1:
        numerators = -gradients + np.where(gradients > l1, -l1,
                                           np.where(gradients < -l1, l1, 0.0))
    else:                   # r is ±0: -G + 0.0, which is 0.0 - G bit for bit (-0 becomes 0)
        numerators = 0.0 - gradients
    denominators = hessians + l2
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        scores = numerators / denominators
    if l2 > 0 and denominators.all():   # H >= 0 (sums of non-negative Hessians): s is finite
        return scores                   # unless |G| exceeds ~1e308·λ2
    # (H + λ2 = 0 with λ2 > 0: mlrl-boomer's bookkeeping can subtract an example twice, §4.8)
    return np.where(np.isfinite(scores), scores, 0.0)


def output_qualities(scores, gradients, hessians, l1, l2):
    """The quality of every element: G s + ½ H s² + λ1 |s| + ½ λ2 s²."""
    squared = scores * scores
    quality = (gradients * scores) + (0.5 * hessians * squared)
    if l1:                  # λ1 = 0 adds +0, which changes no non-zero quality
        quality = quality + l1 * np.abs(scores)
    return quality + 0.5 * l2 * squared


def single_output_heads(gradients, hessians, l1, l2):
    """The best single-output head of each candidate.

    Parameters
    ----------
    gradients, hessians : ndarray of shape (n_outputs, ...)
        Summed statistics of the outputs a head may predict for, output first, then any
        shape of candidates.

    Returns
    -------
    chosen : ndarray of int
        The position (along the first axis) of the output of largest |s|, the first on ties.
    scores, qualities : ndarray
        Of the chosen output; all three have the candidates' shape.
    """
    scores = output_scores(gradients, hessians, l1, l2)
    if len(scores) == 1:                    # nothing to choose
        best = np.zeros(scores.shape[1:], dtype=np.int64)
        return best, scores[0], output_qualities(scores[0], gradients[0], hessians[0], l1, l2)
    best = np.argmax(np.abs(scores), axis=0)[None]
    gradients, hessians, scores = (np.take_along_axis(a, best, axis=0)[0]
                                   for a in (gradients, hessians, scores))
    return best[0], scores, output_qualities(scores, gradients, hessians, l1, l2)


def complete_heads(gradients, hessians, l1, l2):
    """The complete head of each candidate: (scores of the shape of ``gradients``,
    (n_outputs, ...); qualities of the candidates' shape, summed over the outputs in output
    order)."""
    scores = output_scores(gradients, hessians, l1, l2)
    qualities = output_qualities(scores, gradients, hessians, l1, l2)
    total = qualities[0].copy()
    for k in range(1, len(qualities)):
        total += qualities[k]
    return scores, total


def linear_system_heads(gradients, hessians, l1, l2):
    """The complete head of each candidate of non-decomposable statistics.

    Parameters
    ----------
    gradients : ndarray of shape (K, ...)
    hessians : ndarray of shape (K(K+1)/2, ...)
        Summed packed Hessian matrices, then any shape of candidates.

    Returns
    -------
    scores : ndarray of shape (K, ...)
        The solution s of (H + λ2 I) s = o (LAPACK's symmetric solver, one system per
        candidate; 0 for a singular system).
    qualities : ndarray of the candidates' shape
        s·G + ½ s·(H s) + λ1 |s|₁ + ½ λ2 |s|², the dot products summed in output order.
    """
    k = len(gradients)
    shape = gradients.shape[1:]
    g = gradients.reshape(k, -1).T                                      # (m, K)
    h = hessians.reshape(len(hessians), -1).T
    matrix = np.empty((len(g), k, k))
    for c in range(k):
        for r in range(c + 1):
            matrix[:, r, c] = matrix[:, c, r] = h[:, packed_index(r, c)]
    ordinates = -g + (np.where(-g > l1, -l1, np.where(-g < -l1, l1, 0.0)) if l1 else 0.0)
    system = matrix + l2 * np.eye(k)
    scores = _solve(system, ordinates)
    products = np.stack([_dot(matrix[:, r], scores) for r in range(k)], axis=1) if k \
        else scores                                                     # H s
    dot_g, dot_h = _dot(scores, g), _dot(scores, products)
    qualities = dot_g + 0.5 * dot_h
    regulariser = l1 * _dot(np.abs(scores), np.ones_like(scores)) if l1 else 0.0
    qualities = qualities + (regulariser + 0.5 * l2 * _dot(scores, scores))
    return scores.T.reshape((k,) + shape), qualities.reshape(shape)


def binned_linear_system_heads(gradients, hessians, l1, l2, ratio):
    """:func:`linear_system_heads` with gradient-based label binning (Rapp et al. 2021, as
    mlrl-boomer's ``EqualWidthLabelBinning`` and ``AbstractNonDecomposableBinnedRule
    Evaluation``): the outputs share the scores of at most ⌈ratio·K⌉ + 1 bins.

    Each output's criterion is its own score :func:`output_scores` (G_k, h_kk). The outputs
    of negative criterion go into B- = max(1, ⌈ratio·K-⌉) bins of equal width between the least
    and the largest negative criterion (⌊(c - least) / width⌋, the last bin capped), those of
    positive criterion likewise into B+ bins after them; an output of criterion 0 is in no bin
    and scores 0. Empty bins are dropped. Bin b has G_b = Σ G_k, H_bb = Σ h_kk, H_bc = Σ h_kl
    over k in b, l in c (b != c; pairs within one bin are left out, as in mlrl-boomer), and its
    L1 and L2 weights are multiplied by its size n_b; the system (H + λ2·diag(n)) s = o of the
    bins is solved as in :func:`linear_system_heads`, and the quality adds λ1 Σ n_b |s_b| and
    ½ λ2 Σ n_b s_b². Every candidate's system is padded to the same size (bins of zero
    statistics and weight 1, which score 0), so each candidate's head does not depend on the
    others in its batch.
    """
    k = len(gradients)
    shape = gradients.shape[1:]
    g = gradients.reshape(k, -1).T                                      # (m, K)
    h = hessians.reshape(len(hessians), -1).T
    m = len(g)
    diagonal = h[:, [packed_index(c, c) for c in range(k)]]
    criteria = output_scores(g, diagonal, l1, l2)
    size = min(k, _bounded_fraction(k, ratio) + 1)
    bins, offset = np.full((m, k), -1), np.zeros(m, dtype=np.int64)
    for side in (criteria < 0, criteria > 0):     # the negative bins first, then the positive
        count = side.sum(axis=1)
        n_bins = np.maximum(np.minimum(count, 1),
                            np.ceil(float(np.float32(ratio)) * count).astype(np.int64))
        values = np.where(side, criteria, np.nan)
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)        # all-NaN rows: no side
            low, high = np.nanmin(values, axis=1), np.nanmax(values, axis=1)
            index = np.floor((criteria - low[:, None]) /
                             ((high - low) / np.maximum(n_bins, 1))[:, None])
        index = np.minimum(np.where(np.isfinite(index), index, 0), n_bins[:, None] - 1)
        bins = np.where(side, index.astype(np.int64) + offset[:, None], bins)
        offset = offset + n_bins
    # drop the empty bins: the occupied ones renumbered 0, 1, ... in order
    occupied = np.zeros((m, 2 * k + 1), dtype=bool)
    np.put_along_axis(occupied, np.where(bins >= 0, bins, 2 * k), True, axis=1)
    renumber = np.cumsum(occupied[:, :2 * k], axis=1) - 1
    bins = np.where(bins >= 0, np.take_along_axis(renumber, np.maximum(bins, 0), axis=1), -1)
    members = np.zeros((m, size))
    binned_g = np.zeros((m, size))
    matrix = np.zeros((m, size, size))
    rows = np.arange(m)
    for c in range(k):                                  # diagonal: in output order
        inside = bins[:, c] >= 0
        b = np.maximum(bins[:, c], 0)
        members[rows, b] += inside
        binned_g[rows, b] += np.where(inside, g[:, c], 0.0)
        matrix[rows, b, b] += np.where(inside, diagonal[:, c], 0.0)
    for c in range(1, k):                               # pairs of outputs in two bins
        for r in range(c):
            both = (bins[:, c] >= 0) & (bins[:, r] >= 0) & (bins[:, c] != bins[:, r])
            low, high = np.minimum(bins[:, c], bins[:, r]), np.maximum(bins[:, c], bins[:, r])
            low, high = np.maximum(low, 0), np.maximum(high, 0)
            value = np.where(both, h[:, packed_index(r, c)], 0.0)
            matrix[rows, low, high] += value
            matrix[rows, high, low] = matrix[rows, low, high]
    used = members > 0
    r1 = np.where(-binned_g > l1, -l1, np.where(-binned_g < -l1, l1, 0.0)) if l1 else 0.0
    ordinates = -binned_g + members * r1
    diagonal_terms = np.where(used, l2 * members, 1.0)      # padding bins: the identity
    scores = np.where(used, _solve(matrix + diagonal_terms[:, :, None] * np.eye(size),
                                   ordinates), 0.0)
    products = np.stack([_dot(matrix[:, r], scores) for r in range(size)], axis=1) if size \
        else scores
    qualities = _dot(scores, binned_g) + 0.5 * _dot(scores, products)
    regulariser = l1 * _dot(np.abs(scores), members) if l1 else 0.0
    qualities = qualities + (regulariser + 0.5 * l2 * _dot(scores * scores, members))
    label_scores = np.where(bins >= 0, np.take_along_axis(scores, np.maximum(bins, 0), axis=1),
                            0.0)
    return label_scores.T.reshape((k,) + shape), qualities.reshape(shape)


def _bounded_fraction(n, ratio):
    """mlrl-boomer's ``calculateBoundedFraction(n, ratio, 1, 0)``: ⌈ratio·n⌉, at least
    min(1, n)."""
    return max(min(1, n), int(np.ceil(np.float32(ratio) * n)))


def _dot(a, b):
    """Row-wise a·b of (m, K) arrays, added in output order."""
    total = np.zeros(len(a))
    for k in range(a.shape[1]):
        total = total + a[:, k] * b[:, k]
    return total


def _solve(systems, ordinates):
    """Solutions of the symmetric systems (m, K, K) for (m, K) right-hand sides, each by
    itself when one is singular (its solution 0); non-finite solutions are 0. A 1 x 1 system
    is a division (scipy's batched solver divides differently for a batch of several than
    for one: the bits of a candidate's head would depend on its batch)."""
    if systems.shape[1] == 1:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            scores = ordinates / systems[:, :, 0]
        return np.where(np.isfinite(scores), scores, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)
        try:
            scores = scipy.linalg.solve(systems, ordinates[..., None], assume_a="sym")[..., 0]
        except (np.linalg.LinAlgError, ValueError):
            scores = np.zeros_like(ordinates)
            for m in range(len(systems)):
                try:
                    scores[m] = scipy.linalg.solve(systems[m], ordinates[m], assume_a="sym")
                except (np.linalg.LinAlgError, ValueError):
                    pass                                 # singular: no prediction
    return np.where(np.isfinite(scores), scores, 0.0)


def default_head(gradients, hessians, l1, l2, packed_hessian):
    """The scores of one complete head of summed statistics (1-D): the default rule's."""
    if packed_hessian:
        return linear_system_heads(gradients[:, None], hessians[:, None], l1, l2)[0][:, 0]
    return output_scores(gradients, hessians, l1, l2)
