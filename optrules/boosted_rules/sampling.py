"""Sampling for boosted rules: the holdout split, instance weights per rule, features per
refinement (Rapp et al. 2023, Algorithm 1's w_t and §3.5.1; ``specs/boosted-rules.md`` §5).

All draws come from one ``numpy.random.SeedSequence(random_state)``, split into independent
streams for the holdout split, the instances and the features, so a setting that draws nothing
(sampling off) leaves the other draws unchanged, and both engines see the same draws.
"""

import math

import numpy as np

__all__ = ["Sampler", "default_sample_size", "INSTANCE_SAMPLING"]

#: Instance sampling kinds: with replacement (weights are counts), without replacement and
#: stratified without replacement (weights 0/1).
INSTANCE_SAMPLING = ("with", "without", "stratified")


def default_sample_size(n_features):
    """⌊log2(F - 1) + 1⌋ features per refinement (§3.5.1), at least 1 and at most F."""
    if n_features <= 2:
        return min(n_features, 1)
    return min(n_features, int(math.log2(n_features - 1) + 1))


class Sampler:
    """The random choices of one fit.

    Parameters
    ----------
    targets : ndarray (n_examples, n_outputs)
    stratify : bool
        Whether strata exist (classification): examples with the same labels form a stratum.
    feature_sampling : bool
    instance_sampling : (kind, share) or None
    holdout : float or None
        Share of the examples set aside (stratified for classification).
    random_state : int or None
    """

    def __init__(self, targets, n_features, stratify, feature_sampling, instance_sampling,
                 holdout, random_state):
        holdout_seed, instance_seed, feature_seed = \
            np.random.SeedSequence(random_state).spawn(3)
        self.n_examples = len(targets)
        self.n_features = n_features
        self.strata = _strata(targets) if stratify else np.zeros(len(targets), dtype=np.int64)
        self.holdout = np.zeros(len(targets), dtype=bool)
        if holdout is not None:
            self.holdout[_stratified_choice(self.strata, holdout,
                                            np.random.default_rng(holdout_seed),
                                            keep_one=True)] = True
        self.training = np.flatnonzero(~self.holdout)
        self.instance_sampling = instance_sampling
        self.instance_rng = np.random.default_rng(instance_seed)
        self.feature_rng = np.random.default_rng(feature_seed) if feature_sampling else None
        self.feature_count = default_sample_size(n_features)

    def weights(self):
        """The example weights of the next rule: 1 for training examples, 0 for the holdout
        set, or a sample of the training examples."""
        weights = np.zeros(self.n_examples, dtype=np.int64)
        if self.instance_sampling is None:
            weights[self.training] = 1
            return weights
        kind, share = self.instance_sampling
        size = max(1, round(share * len(self.training)))
        if kind == "with":
            np.add.at(weights, self.training[self.instance_rng.integers(
                0, len(self.training), size)], 1)
        elif kind == "without":
            weights[self.instance_rng.choice(self.training, size, replace=False)] = 1
        else:
            chosen = _stratified_choice(self.strata[self.training], share, self.instance_rng)
            weights[self.training[chosen]] = 1
        return weights

    def features(self):
        """The features of the next refinement, in increasing order."""
        if self.feature_rng is None:
            return np.arange(self.n_features)
        # the first of a random permutation: a uniform sample without replacement, drawn
        # at a third of Generator.choice's cost (this runs once per refinement)
        return np.sort(self.feature_rng.permutation(self.n_features)[:self.feature_count])


def _strata(targets):
    """Each example's stratum: the index of its label vector among the distinct ones."""
    return np.unique(targets, axis=0, return_inverse=True)[1].reshape(-1)


def _stratified_choice(strata, share, rng, keep_one=False):
    """Indices of round(share · |stratum|) examples of each stratum, at least one, drawn
    without replacement; with ``keep_one``, at least one of each stratum is left (none is
    taken from a stratum of one)."""
    chosen = []
    for stratum in np.unique(strata):
        members = np.flatnonzero(strata == stratum)
        size = min(len(members), max(1, round(share * len(members))))
        if keep_one:
            size = min(size, len(members) - 1)
        chosen.append(rng.choice(members, size, replace=False))
    return np.sort(np.concatenate(chosen)) if chosen else np.array([], dtype=np.int64)
