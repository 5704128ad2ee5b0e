"""Canonical, exact problem instances for certification, with stable SHA-256 digests.

An auditor certifies a claim about *an instance*; the digest names that instance so a
certificate file can be matched to its data. The digest is the SHA-256 of a canonical JSON
text (sorted keys, no whitespace) of the instance's exact content.
"""

import hashlib
import json
import math
import numbers
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
    """A rule-list problem: antecedents (M, N) bool, class indices (N,), λ = p/q exact, and
    optionally exact sample weights.

    A sample of weight w counts exactly as w copies of it (specs/verification.md §2).

    Attributes
    ----------
    antecedents : ndarray of bool, shape (M, N)
    labels : ndarray of int64, shape (N,)
        Class indices 0..C-1.
    lam : Fraction
    names : tuple of str
    n_classes : int
        C >= 2.
    weights : tuple of Fraction or None
        w_n >= 0 with a positive total; None when unweighted (every w_n = 1).
    """

    antecedents: np.ndarray
    labels: np.ndarray
    lam: Fraction
    names: tuple
    n_classes: int = 2
    weights: tuple | None = None

    @classmethod
    def from_dataset(cls, dataset, lam):
        """From an :class:`optrules.data.binary_dataset.BinaryDataset` (shared data type,
        read through its fields only) and λ."""
        return cls.from_bits(dataset.antecedent_bits(), dataset.labels, lam,
                             dataset.antecedent_names, dataset.n_classes,
                             dataset.sample_weight())

    @classmethod
    def from_bits(cls, antecedents, labels, lam, names=None, n_classes=None, weights=None):
        """Validate and canonicalise an instance.

        Parameters
        ----------
        antecedents : array-like of bool, shape (M, N)
        labels : array-like, shape (N,)
            Class indices 0..C-1 (booleans for two classes: True is class 1).
        lam : Fraction, int, str or float
            λ in (0, 1), read exactly (a float through its shortest repr).
        names : sequence of str, optional
            Antecedent names (default ``a0, a1, ...``).
        n_classes : int, optional
            C >= 2 (default: max(2, largest label + 1)).
        weights : sequence, optional
            One weight per sample, each an int, Fraction, decimal string or float (through its
            shortest repr), finite and >= 0, with a positive total. None: unweighted.

        Raises
        ------
        ValueError
            For a wrong shape, a label outside 0..C-1, C < 2, a bad weight (naming the
            sample), a zero total weight, or a bad λ.
        TypeError
            For a weight or λ of another type.
        """
        labels = _class_indices(labels)
        antecedents = np.array(antecedents, dtype=bool)
        if antecedents.size == 0:
            antecedents = antecedents.reshape(0, labels.size)
        if antecedents.ndim != 2 or antecedents.shape[1] != labels.size:
            raise ValueError(f"antecedents must have shape (M, {labels.size}); got "
                             f"{antecedents.shape}.")
        lam = parse_fraction("lam", lam, low=0, high=1, function="RuleListInstance")
        names = _names(names, len(antecedents), "a")
        largest = int(labels.max())
        if n_classes is None:
            n_classes = max(2, largest + 1)
        if isinstance(n_classes, bool) or not isinstance(n_classes, numbers.Integral) or \
                n_classes < 2:
            raise ValueError(f"n_classes must be an integer >= 2; got {n_classes!r}.")
        if largest >= n_classes:
            raise ValueError(f"labels must be class indices 0..{n_classes - 1}; sample "
                             f"{int(np.argmax(labels)) + 1} has label {largest}.")
        if weights is not None:
            weights = _exact_weights(weights, labels.size)
        return cls(antecedents, labels, lam, names, int(n_classes), weights)

    @property
    def n_samples(self):
        return self.labels.size

    @property
    def n_antecedents(self):
        return len(self.antecedents)

    @property
    def weighted(self):
        return self.weights is not None

    def sample_weights(self):
        """w_n of every sample: the weights, or ``1`` (an int) for each when unweighted."""
        return (1,) * self.n_samples if self.weights is None else self.weights

    @property
    def total_weight(self):
        """W = Σ w_n as a Fraction (N when unweighted)."""
        return Fraction(sum(self.sample_weights()))

    def digest(self):
        """SHA-256 of the canonical JSON of the instance.

        Two classes without weights give exactly the payload of certificate version 1 (labels
        as a bit string), so older certificates still match their data; otherwise the labels
        are a list of class indices, with ``n_classes`` and ``weights`` (``"p/q"`` texts, or
        null) added.
        """
        payload = {"kind": "rule-list", "lambda": fraction_text(self.lam),
                   "names": list(self.names),
                   "antecedents": [_bits_text(row) for row in self.antecedents]}
        if self.n_classes == 2 and self.weights is None:
            payload["labels"] = _bits_text(self.labels)
        else:
            payload.update(labels=self.labels.tolist(), n_classes=self.n_classes,
                           weights=None if self.weights is None
                           else [fraction_text(w) for w in self.weights])
        return _digest(payload)

    def groups(self):
        """Samples grouped by antecedent vector: list of (vector, class weights), in order of
        first occurrence; ``class weights[c]`` is the exact total weight of the group's
        samples of class c (an int count when unweighted, else a Fraction).

        Equivalent samples (§3.14 of Angelino et al.) are captured together by every rule
        list, so the encodings work on groups with these weights.
        """
        zero = 0 if self.weights is None else Fraction(0)
        totals = {}
        for n, weight in enumerate(self.sample_weights()):
            key = tuple(bool(b) for b in self.antecedents[:, n])
            row = totals.setdefault(key, [zero] * self.n_classes)
            row[self.labels[n]] += weight
        return [(key, tuple(row)) for key, row in totals.items()]


def _class_indices(labels):
    """Labels as int64 class indices (N,), N >= 1 (booleans: True is class 1)."""
    raw = np.asarray(labels)
    if raw.ndim != 1 or raw.size == 0:
        raise ValueError("labels must be a non-empty 1-D array.")
    if raw.dtype == bool:
        return raw.astype(np.int64)
    values = raw.tolist() if isinstance(labels, np.ndarray) else list(labels)
    for n, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"labels must be class indices 0, 1, ..., C-1 (or booleans); "
                             f"sample {n + 1} has label {value!r}.")
    return np.array(values, dtype=np.int64)


def _exact_weights(weights, n_samples):
    """The weights as a tuple of Fractions, each finite and >= 0, with a positive total."""
    weights = list(weights.tolist() if isinstance(weights, np.ndarray) else weights)
    if len(weights) != n_samples:
        raise ValueError(f"{len(weights)} weights given for {n_samples} samples.")
    exact = tuple(parse_fraction(f"weights[{n}]", value, low=0, high=math.inf,
                                 function="RuleListInstance", low_inclusive=True)
                  for n, value in enumerate(weights))
    if sum(exact) == 0:
        raise ValueError("the weights sum to 0; at least one sample needs a positive weight.")
    return exact


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
