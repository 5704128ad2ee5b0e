"""The rule-list problem's data: named binary antecedents, class labels and sample weights.

Names follow Angelino et al. (2018), §3.1: ``antecedents`` are the pre-mined boolean
assertions s_1..s_M (packed bitsets), ``labels`` are y_n in {0..C-1}, indices into ``classes``.
Weights (optional) are exact: ``weight_unit * weights[n]`` with integer ``weights``
(:mod:`optrules.data.weights`); unweighted data weigh 1 per sample.
Antecedents mined from feature data also carry their *conditions* (the propositions whose
conjunction they are), so a model learned on them can be applied to new raw rows; antecedents
read from CORELS files are opaque names.
"""

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from optrules.data import bitset
from optrules.data.weights import integer_weights

__all__ = ["BinaryDataset"]


@dataclass(frozen=True, eq=False)
class BinaryDataset:
    """Binary antecedents over N samples with class labels and optional sample weights.

    Build it with :meth:`from_bits`, which validates; the constructor trusts its input.

    Attributes
    ----------
    antecedent_names : tuple of str
        Distinct non-empty names such as ``"sex:Male,juvenile-crimes:>0"``.
    antecedents : ndarray of uint64, shape (M, n_words)
        Packed bitsets: bit n of row m is set when antecedent m holds for sample n.
    labels : ndarray of int64, shape (N,)
        Class index of each sample, into ``classes``.
    n_samples : int
        N, the number of samples.
    target : str
        Name of the label feature (``recidivate-within-two-years``).
    classes : tuple of C >= 2 values
        The class values in class order, e.g. ``("No", "Yes")`` or ``(0, 1, 2)``. A tie for the
        largest count is won by the class that comes *last* (for two classes, the positive
        class ``classes[1]``).
    minority : ndarray of uint64, shape (n_words,) or None
        Equivalent-points minority bitset (CORELS Thm 22) when known.
    antecedent_conditions : tuple of (tuple of Proposition) or None
        For mined antecedents, the propositions each one is the conjunction of.
    weights : ndarray of int64, shape (N,), or None
        Integer sample weights with gcd 1 (None: unweighted, every sample weighs 1).
    weight_unit : Fraction
        What one unit of ``weights`` weighs in the caller's units.
    """

    antecedent_names: tuple
    antecedents: np.ndarray
    labels: np.ndarray
    n_samples: int
    target: str = "label"
    classes: tuple = ("0", "1")
    minority: np.ndarray | None = None
    antecedent_conditions: tuple | None = None
    weights: np.ndarray | None = None
    weight_unit: Fraction = Fraction(1)

    @classmethod
    def from_bits(cls, antecedent_names, antecedent_bits, labels, *, target="label",
                  classes=None, minority_bits=None, antecedent_conditions=None,
                  sample_weight=None):
        """Validate arrays and pack them.

        Parameters
        ----------
        antecedent_names : sequence of str, length M
        antecedent_bits : array-like of bool, shape (M, N)
        labels : array-like of int or bool, shape (N,)
            Class index of each sample (True/False are 1/0: True marks ``classes[1]``).
        target : str, default "label"
        classes : sequence of C >= 2 distinct values, optional
            Class values (str, int, float or bool) in class order. Default ``("0", "1", ...)``
            with C = max(2, largest label + 1).
        minority_bits : array-like of bool, shape (N,), optional
        antecedent_conditions : sequence of (sequence of Proposition), length M, optional
        sample_weight : sequence of numbers >= 0, length N, optional
            Exact weights (integers, decimals, fractions; :mod:`optrules.data.weights`).

        Raises
        ------
        ValueError
            On shape mismatches, duplicate or empty antecedent names, fewer than two or equal
            classes, a label that is not a class index, bad weights, or no samples.

        Examples
        --------
        >>> data = BinaryDataset.from_bits(["a"], [[1, 0, 0]], [2, 0, 1], classes=("x", "y", "z"),
        ...                                sample_weight=[1, 0.5, 2])
        >>> data.labels.tolist(), data.weights.tolist(), data.total_weight
        ([2, 0, 1], [2, 1, 4], Fraction(7, 2))
        """
        names = tuple(str(name) for name in antecedent_names)
        matrix = np.asarray(antecedent_bits, dtype=bool)
        labels = _class_indices(labels)
        n_samples = labels.size
        if matrix.size == 0:
            matrix = matrix.reshape(len(names), n_samples)
        if matrix.ndim != 2 or matrix.shape != (len(names), n_samples):
            raise ValueError(
                f"antecedent matrix has shape {matrix.shape} but {len(names)} names and "
                f"{n_samples} labels were given; expected ({len(names)}, {n_samples}).")
        _check_names(names)
        if classes is None:
            if labels.max() >= max(2, n_samples):
                n = int(labels.argmax())
                raise ValueError(f"sample {n + 1} has label {int(labels[n])}, more than there "
                                 "are samples; pass classes=(...) to name the classes (labels "
                                 "are indices into it).")
            classes = tuple(str(c) for c in range(max(2, int(labels.max()) + 1)))
        classes = _checked_classes(classes)
        if labels.max() >= len(classes):
            n = int(np.flatnonzero(labels >= len(classes))[0])
            raise ValueError(f"sample {n + 1} has label {int(labels[n])}, but there are only "
                             f"{len(classes)} classes {classes} (labels are indices 0.."
                             f"{len(classes) - 1}).")
        if antecedent_conditions is not None:
            antecedent_conditions = tuple(tuple(c) for c in antecedent_conditions)
            if len(antecedent_conditions) != len(names):
                raise ValueError(f"{len(antecedent_conditions)} condition lists for "
                                 f"{len(names)} antecedents.")
        minority = None
        if minority_bits is not None:
            minority_array = np.asarray(minority_bits, dtype=bool)
            if minority_array.shape != (n_samples,):
                raise ValueError(f"minority bits have shape {minority_array.shape}; "
                                 f"expected ({n_samples},).")
            minority = bitset.pack(minority_array)
        weights, unit = None, Fraction(1)
        if sample_weight is not None:
            if np.ndim(sample_weight) != 1 or len(sample_weight) != n_samples:
                raise ValueError(f"sample_weight has shape {np.shape(sample_weight)}; expected "
                                 f"one weight per sample, ({n_samples},).")
            weights, unit = integer_weights(sample_weight)
        return cls(names, bitset.pack(matrix).reshape(len(names), bitset.n_words(n_samples)),
                   labels, n_samples, str(target), classes, minority, antecedent_conditions,
                   weights, unit)

    @property
    def n_antecedents(self):
        """M, the number of antecedents."""
        return len(self.antecedent_names)

    @property
    def n_classes(self):
        """C, the number of classes."""
        return len(self.classes)

    @property
    def weighted(self):
        """Whether the samples carry weights."""
        return self.weights is not None

    @property
    def total_weight(self):
        """Total sample weight in the caller's units (N when unweighted), a Fraction."""
        if self.weights is None:
            return Fraction(self.n_samples)
        return self.weight_unit * int(self.weights.sum())

    def unit_weights(self):
        """The integer weight of every sample in units of ``weight_unit`` (int64, (N,)); ones
        when unweighted."""
        if self.weights is None:
            return np.ones(self.n_samples, dtype=np.int64)
        return self.weights

    def sample_weight(self):
        """Exact weight of every sample (a tuple of Fractions), or None when unweighted."""
        if self.weights is None:
            return None
        return tuple(self.weight_unit * int(k) for k in self.weights)

    def antecedent_bits(self):
        """Boolean matrix (M, N) of the antecedents."""
        return bitset.unpack(self.antecedents, self.n_samples)

    def class_bits(self):
        """Boolean matrix (C, N): row c marks the samples of class c."""
        return self.labels[np.newaxis, :] == np.arange(self.n_classes)[:, np.newaxis]

    def _rebuilt(self, **changes):
        fields = {"antecedent_names": self.antecedent_names,
                  "antecedent_bits": self.antecedent_bits(), "labels": self.labels,
                  "target": self.target, "classes": self.classes,
                  "antecedent_conditions": self.antecedent_conditions,
                  "sample_weight": self.sample_weight(),
                  "minority_bits": None if self.minority is None
                  else bitset.unpack(self.minority, self.n_samples)}
        fields.update(changes)
        names, bits, labels = (fields.pop(key) for key in
                               ("antecedent_names", "antecedent_bits", "labels"))
        return BinaryDataset.from_bits(names, bits, labels, **fields)

    def with_minority(self, minority_bits):
        """A copy carrying the given equivalent-points minority bits (bool, shape (N,))."""
        return self._rebuilt(minority_bits=minority_bits)

    def with_weights(self, sample_weight):
        """A copy with these sample weights (None: unweighted). Minority bits are kept; the
        fit checks them against the weights (a marking sound by count can be unsound by
        weight)."""
        return self._rebuilt(sample_weight=sample_weight)

    def subset(self, antecedents=None, samples=None):
        """A new dataset restricted to some antecedent indices and/or sample indices.

        The equivalent-points minority is dropped, since it depends on both.
        """
        names = list(self.antecedent_names)
        conditions = self.antecedent_conditions
        matrix = self.antecedent_bits()
        labels = self.labels
        weights = self.sample_weight()
        if antecedents is not None:
            antecedents = list(antecedents)
            names = [names[i] for i in antecedents]
            matrix = matrix[antecedents]
            conditions = None if conditions is None else [conditions[i] for i in antecedents]
        if samples is not None:
            samples = np.asarray(samples)
            matrix = matrix[:, samples]
            labels = labels[samples]
            weights = None if weights is None else [weights[i] for i in samples.tolist()]
        return self._rebuilt(antecedent_names=names, antecedent_bits=matrix, labels=labels,
                             antecedent_conditions=conditions, sample_weight=weights,
                             minority_bits=None)

    def __repr__(self):
        weighted = f", total weight {self.total_weight}" if self.weighted else ""
        return (f"BinaryDataset({self.n_antecedents} antecedents, {self.n_samples} samples, "
                f"target={self.target!r}, classes={self.classes}{weighted})")


def _class_indices(labels):
    """Labels as int64 class indices (N,), N >= 1; ValueError naming the first bad sample."""
    # A list keeps each label's own type (numpy would make [0, 1.0, 1] all floats and blame
    # the first sample).
    raw = np.asarray(labels, dtype=object) if isinstance(labels, (list, tuple)) \
        else np.asarray(labels)
    if raw.ndim != 1 or raw.size == 0:
        raise ValueError(f"labels must be a non-empty 1-D array; got shape {raw.shape}.")
    if raw.dtype == bool:
        return raw.astype(np.int64)
    values = [value.item() if isinstance(value, np.generic) else value for value in raw.tolist()]
    if all(isinstance(value, bool) for value in values):
        return np.array(values, dtype=np.int64)
    for n, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 62:
            raise ValueError(f"sample {n + 1} has label {value!r}; labels are class indices "
                             "0, 1, ..., C-1 (or booleans for two classes).")
    return np.array(values, dtype=np.int64)


def _checked_classes(classes):
    """Two or more distinct class values, each a str, int, float or bool that a model file can
    hold (numpy scalars become Python values); strings and numbers not mixed."""
    classes = tuple(c.item() if isinstance(c, np.generic) else c for c in classes)
    if len(classes) < 2 or len(set(classes)) != len(classes) or \
            not all(isinstance(c, (str, int, float, bool)) for c in classes) or \
            any(isinstance(c, float) and not math.isfinite(c) for c in classes) or \
            len({isinstance(c, str) for c in classes}) != 1:
        raise ValueError(f"classes must be two or more distinct values, all strings or all "
                         f"finite numbers or booleans; got {classes}.")
    return classes


def _check_names(names):
    seen = {}
    for index, name in enumerate(names):
        if not name:
            raise ValueError(f"antecedent {index} has an empty name.")
        if name in seen:
            raise ValueError(f"duplicate antecedent name {name!r} (antecedents {seen[name]} "
                             f"and {index}).")
        seen[name] = index
