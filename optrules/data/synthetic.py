"""Synthetic data: the noisy parity problem of Boley et al. (2021), Fig. 1.

Latent cluster centres C ~ Unif({-1, 1}^d), observed features X | C ~ N(C, σ²I_d), target
Y = Π_i C_i. No proper subset of the features is associated with Y, so greedy rule learners
see only noise in their first d - 1 choices, while optimal rules can find the 2^d orthants.
"""

import numpy as np

__all__ = ["noisy_parity"]


def noisy_parity(n, d=3, sigma=0.5, seed=0):
    """Draw ``n`` samples of the d-dimensional noisy parity problem.

    Parameters
    ----------
    n : int
    d : int, default 3
    sigma : float, default 0.5
        Standard deviation of the Gaussian noise around each centre.
    seed : int, default 0
        Seed of numpy's default generator (same seed, same data).

    Returns
    -------
    X : ndarray of float, shape (n, d)
    y : ndarray of int, shape (n,), values in {-1, 1}

    Examples
    --------
    >>> X, y = noisy_parity(4, d=2, seed=1)
    >>> X.shape, sorted(set(y.tolist())) <= [-1, 1]
    ((4, 2), True)
    """
    rng = np.random.default_rng(seed)
    centres = rng.choice([-1, 1], size=(n, d))
    X = centres + sigma * rng.standard_normal((n, d))
    return X, np.prod(centres, axis=1)
