"""The rule-list problem's data: named binary antecedents and binary labels, as packed bitsets.

Names follow Angelino et al. (2018), §3.1: ``antecedents`` are the pre-mined
boolean assertions s_1..s_M, ``labels`` are y_n in {0, 1} (1 = the positive class).
Antecedents mined from feature data also carry their *conditions* (the propositions whose
conjunction they are), so a model learned on them can be applied to new raw rows; antecedents
read from CORELS files are opaque names.
"""

from dataclasses import dataclass

import numpy as np

from optrules.data import bitset

__all__ = ["BinaryDataset"]


@dataclass(frozen=True, eq=False)
class BinaryDataset:
    """Binary antecedents over N samples with binary labels.

    Build it with :meth:`from_bits`, which validates; the constructor trusts its input.

    Attributes
    ----------
    antecedent_names : tuple of str
        Distinct non-empty names such as ``"sex:Male,juvenile-crimes:>0"``.
    antecedents : ndarray of uint64, shape (M, n_words)
        Packed bitsets: bit n of row m is set when antecedent m holds for sample n.
    labels : ndarray of uint64, shape (n_words,)
        Packed bitset of the samples whose label is the positive class.
    n_samples : int
        N, the number of samples.
    target : str
        Name of the label feature (``recidivate-within-two-years``).
    classes : tuple of 2 values
        ``(negative, positive)`` class values, e.g. ``("No", "Yes")`` or ``(0, 1)``.
    minority : ndarray of uint64, shape (n_words,) or None
        Equivalent-points minority bitset (CORELS Thm 22) when known.
    antecedent_conditions : tuple of (tuple of Proposition) or None
        For mined antecedents, the propositions each one is the conjunction of.
    """

    antecedent_names: tuple
    antecedents: np.ndarray
    labels: np.ndarray
    n_samples: int
    target: str = "label"
    classes: tuple = ("0", "1")
    minority: np.ndarray | None = None
    antecedent_conditions: tuple | None = None

    @classmethod
    def from_bits(cls, antecedent_names, antecedent_bits, label_bits, *, target="label",
                  classes=("0", "1"), minority_bits=None, antecedent_conditions=None):
        """Validate boolean arrays and pack them.

        Parameters
        ----------
        antecedent_names : sequence of str, length M
        antecedent_bits : array-like of bool, shape (M, N)
        label_bits : array-like of bool, shape (N,)
            True marks the positive class ``classes[1]``.
        target : str, default "label"
        classes : (negative, positive), default ("0", "1")
            Two distinct class values (str, int, float or bool).
        minority_bits : array-like of bool, shape (N,), optional
        antecedent_conditions : sequence of (sequence of Proposition), length M, optional

        Raises
        ------
        ValueError
            On shape mismatches, duplicate or empty antecedent names, equal classes,
            or no samples.
        """
        names = tuple(str(name) for name in antecedent_names)
        matrix = np.asarray(antecedent_bits, dtype=bool)
        labels = np.asarray(label_bits, dtype=bool)
        if labels.ndim != 1 or labels.size == 0:
            raise ValueError(f"labels must be a non-empty 1-D array; got shape {labels.shape}.")
        n_samples = labels.size
        if matrix.size == 0:
            matrix = matrix.reshape(len(names), n_samples)
        if matrix.ndim != 2 or matrix.shape != (len(names), n_samples):
            raise ValueError(
                f"antecedent matrix has shape {matrix.shape} but {len(names)} names and "
                f"{n_samples} labels were given; expected ({len(names)}, {n_samples}).")
        _check_names(names)
        classes = tuple(classes)
        if len(classes) != 2 or classes[0] == classes[1]:
            raise ValueError(f"classes must be two distinct values; got {classes}.")
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
        return cls(names, bitset.pack(matrix).reshape(len(names), bitset.n_words(n_samples)),
                   bitset.pack(labels), n_samples, str(target), classes, minority,
                   antecedent_conditions)

    @property
    def n_antecedents(self):
        """M, the number of antecedents."""
        return len(self.antecedent_names)

    def antecedent_bits(self):
        """Boolean matrix (M, N) of the antecedents."""
        return bitset.unpack(self.antecedents, self.n_samples)

    def label_bits(self):
        """Boolean vector (N,): True for the positive class."""
        return bitset.unpack(self.labels, self.n_samples)

    def with_minority(self, minority_bits):
        """A copy carrying the given equivalent-points minority bits (bool, shape (N,))."""
        return BinaryDataset.from_bits(self.antecedent_names, self.antecedent_bits(),
                                       self.label_bits(), target=self.target,
                                       classes=self.classes, minority_bits=minority_bits,
                                       antecedent_conditions=self.antecedent_conditions)

    def subset(self, antecedents=None, samples=None):
        """A new dataset restricted to some antecedent indices and/or sample indices.

        The equivalent-points minority is dropped, since it depends on both.
        """
        names = list(self.antecedent_names)
        conditions = self.antecedent_conditions
        matrix = self.antecedent_bits()
        labels = self.label_bits()
        if antecedents is not None:
            antecedents = list(antecedents)
            names = [names[i] for i in antecedents]
            matrix = matrix[antecedents]
            conditions = None if conditions is None else [conditions[i] for i in antecedents]
        if samples is not None:
            samples = np.asarray(samples)
            matrix = matrix[:, samples]
            labels = labels[samples]
        return BinaryDataset.from_bits(names, matrix, labels, target=self.target,
                                       classes=self.classes, antecedent_conditions=conditions)

    def __repr__(self):
        return (f"BinaryDataset({self.n_antecedents} antecedents, {self.n_samples} samples, "
                f"target={self.target!r}, classes={self.classes})")


def _check_names(names):
    seen = {}
    for index, name in enumerate(names):
        if not name:
            raise ValueError(f"antecedent {index} has an empty name.")
        if name in seen:
            raise ValueError(f"duplicate antecedent name {name!r} (antecedents {seen[name]} "
                             f"and {index}).")
        seen[name] = index
