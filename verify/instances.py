"""Canonical, exact problem instances for certification, with stable SHA-256 digests.

An auditor certifies a claim about *an instance*; the digest names that instance so a
certificate file can be matched to its data. The digest is the SHA-256 of a canonical JSON
text (sorted keys, no whitespace) of the instance's exact content.
"""

import hashlib
import json
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from optrules.validation import fraction_text, parse_fraction

__all__ = ["RuleListInstance", "RuleInstance"]


def _bits_text(row):
    return "".join("1" if bit else "0" for bit in row)


def _names(names, count, prefix):
    if names is None:
        return tuple(f"{prefix}{j}" for j in range(count))
    names = tuple(str(name) for name in names)
    if len(names) != count:
        raise ValueError(f"{len(names)} names given for {count} rows of the matrix.")
    return names


def _digest(payload):
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, eq=False)
class RuleListInstance:
    """A rule-list problem: antecedents (M, N) bool, labels (N,) bool, λ = p/q exact.

    Attributes
    ----------
    antecedents : ndarray of bool, shape (M, N)
    labels : ndarray of bool, shape (N,)
    lam : Fraction
    names : tuple of str
    """

    antecedents: np.ndarray
    labels: np.ndarray
    lam: Fraction
    names: tuple

    @classmethod
    def from_dataset(cls, dataset, lam):
        """From an :class:`optrules.dataset.BinaryDataset` (shared data type) and λ."""
        return cls.from_bits(dataset.antecedent_bits(), dataset.label_bits(), lam,
                             dataset.antecedent_names)

    @classmethod
    def from_bits(cls, antecedents, labels, lam, names=None):
        labels = np.array(labels, dtype=bool)
        if labels.ndim != 1 or labels.size == 0:
            raise ValueError("labels must be a non-empty 1-D array.")
        antecedents = np.array(antecedents, dtype=bool)
        if antecedents.size == 0:
            antecedents = antecedents.reshape(0, labels.size)
        if antecedents.ndim != 2 or antecedents.shape[1] != labels.size:
            raise ValueError(f"antecedents must have shape (M, {labels.size}); got "
                             f"{antecedents.shape}.")
        lam = parse_fraction("lam", lam, low=0, high=1, function="RuleListInstance")
        names = _names(names, len(antecedents), "a")
        return cls(antecedents, labels, lam, names)

    @property
    def n_samples(self):
        return self.labels.size

    @property
    def n_antecedents(self):
        return len(self.antecedents)

    def digest(self):
        return _digest({"kind": "rule-list", "lambda": fraction_text(self.lam),
                        "labels": _bits_text(self.labels), "names": list(self.names),
                        "antecedents": [_bits_text(row) for row in self.antecedents]})

    def groups(self):
        """Samples grouped by antecedent vector: list of (vector, positives, negatives).

        Equivalent samples (§3.14 of Angelino et al.) are captured together by every rule
        list, so the encodings work on groups with integer multiplicities.
        """
        counts = {}
        for n in range(self.n_samples):
            key = tuple(bool(b) for b in self.antecedents[:, n])
            positives, negatives = counts.get(key, (0, 0))
            counts[key] = (positives + bool(self.labels[n]), negatives + (not self.labels[n]))
        return [(key, p, q) for key, (p, q) in counts.items()]


@dataclass(frozen=True, eq=False)
class RuleInstance:
    """A boosting base-learner problem: extents (d, n) bool and exact g, h > 0, λ >= 0.

    Attributes
    ----------
    extents : ndarray of bool, shape (d, n)
    g, h : tuple of Fraction
    lam : Fraction
    names : tuple of str
    """

    extents: np.ndarray
    g: tuple
    h: tuple
    lam: Fraction
    names: tuple

    @classmethod
    def from_values(cls, extents, g, h, lam, names=None):
        g = tuple(Fraction(v) for v in g)
        h = tuple(Fraction(v) for v in h)
        if len(h) != len(g) or not g:
            raise ValueError("g and h must be non-empty and of equal length.")
        extents = np.array(extents, dtype=bool)
        if extents.size == 0:
            extents = extents.reshape(0, len(g))
        if extents.ndim != 2 or extents.shape[1] != len(g):
            raise ValueError(f"extents must have shape (d, {len(g)}); got {extents.shape}.")
        if min(h) <= 0:
            raise ValueError("every h_i must be > 0.")
        lam = parse_fraction("lam", lam, low=0, high=float("inf"), function="RuleInstance",
                             low_inclusive=True)
        return cls(extents, g, h, lam, _names(names, len(extents), "p"))

    @classmethod
    def from_problem(cls, problem):
        """From an :class:`optrules.gradient_problem.GradientProblem` (shared data type)."""
        n = problem.n_samples
        extents = [[bool(extent >> i & 1) for i in range(n)] for extent in problem.extents]
        scale = problem.scale
        return cls.from_values(np.array(extents, dtype=bool).reshape(-1, n),
                               [Fraction(v, scale) for v in problem.g],
                               [Fraction(v, scale) for v in problem.h],
                               Fraction(problem.lam, scale), problem.names)

    @property
    def n_samples(self):
        return len(self.g)

    def digest(self):
        return _digest({"kind": "rule", "lambda": fraction_text(self.lam),
                        "g": [fraction_text(v) for v in self.g],
                        "h": [fraction_text(v) for v in self.h], "names": list(self.names),
                        "extents": [_bits_text(row) for row in self.extents]})

    def objective(self, held):
        """Exact eq. 2.3 of Boley et al. for the samples where ``held`` is True."""
        members = np.flatnonzero(held)
        total_g = sum((self.g[i] for i in members), Fraction(0))
        total_d = self.lam + sum((self.h[i] for i in members), Fraction(0))
        return Fraction(0) if total_d == 0 else total_g * total_g / (2 * self.n_samples * total_d)

    def extent_of(self, query):
        """Boolean extent of a conjunction of proposition indices (⊤ for ())."""
        held = np.ones(self.n_samples, dtype=bool)
        for j in query:
            held &= self.extents[j]
        return held
