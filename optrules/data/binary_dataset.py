"""The rule-list problem's data: named binary antecedents and binary labels, as packed bitsets.

Names follow Angelino et al. (2018), §3.1: ``antecedents`` are the pre-mined
boolean assertions s_1..s_M, ``labels`` are y_n in {0, 1} (1 = the positive class).
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
        Distinct names such as ``"sex:Male,juvenile-crimes:>0"`` (no braces).
    antecedents : ndarray of uint64, shape (M, n_words)
        Packed bitsets: bit n of row m is set when antecedent m holds for sample n.
    labels : ndarray of uint64, shape (n_words,)
        Packed bitset of the samples whose label is the positive class.
    n_samples : int
        N, the number of samples.
    target : str
        Name of the label feature (``recidivate-within-two-years``).
    class_names : tuple of (str, str)
        ``(negative, positive)`` class names, e.g. ``("No", "Yes")``.
    minority : ndarray of uint64, shape (n_words,) or None
        Equivalent-points minority bitset (CORELS Thm 22) when known.
    """

    antecedent_names: tuple
    antecedents: np.ndarray
    labels: np.ndarray
    n_samples: int
    target: str = "label"
    class_names: tuple = ("0", "1")
    minority: np.ndarray | None = None

    @classmethod
    def from_bits(cls, antecedent_names, antecedent_bits, label_bits, *, target="label",
                  class_names=("0", "1"), minority_bits=None):
        """Validate boolean arrays and pack them.

        Parameters
        ----------
        antecedent_names : sequence of str, length M
        antecedent_bits : array-like of bool, shape (M, N)
        label_bits : array-like of bool, shape (N,)
            True marks the positive class ``class_names[1]``.
        target : str, default "label"
        class_names : (str, str), default ("0", "1")
        minority_bits : array-like of bool, shape (N,), optional

        Raises
        ------
        ValueError
            On shape mismatches, duplicate or empty antecedent names, equal class names,
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
        class_names = tuple(str(c) for c in class_names)
        if len(class_names) != 2 or class_names[0] == class_names[1]:
            raise ValueError(f"class_names must be two distinct names; got {class_names}.")
        minority = None
        if minority_bits is not None:
            minority_array = np.asarray(minority_bits, dtype=bool)
            if minority_array.shape != (n_samples,):
                raise ValueError(f"minority bits have shape {minority_array.shape}; "
                                 f"expected ({n_samples},).")
            minority = bitset.pack(minority_array)
        return cls(names, bitset.pack(matrix).reshape(len(names), bitset.n_words(n_samples)),
                   bitset.pack(labels), n_samples, str(target), class_names, minority)

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
                                       class_names=self.class_names,
                                       minority_bits=minority_bits)

    def subset(self, antecedents=None, samples=None):
        """A new dataset restricted to some antecedent indices and/or sample indices.

        The equivalent-points minority is dropped, since it depends on both.
        """
        names = list(self.antecedent_names)
        matrix = self.antecedent_bits()
        labels = self.label_bits()
        if antecedents is not None:
            antecedents = list(antecedents)
            names = [names[i] for i in antecedents]
            matrix = matrix[antecedents]
        if samples is not None:
            samples = np.asarray(samples)
            matrix = matrix[:, samples]
            labels = labels[samples]
        return BinaryDataset.from_bits(names, matrix, labels, target=self.target,
                                       class_names=self.class_names)

    def __repr__(self):
        return (f"BinaryDataset({self.n_antecedents} antecedents, {self.n_samples} samples, "
                f"target={self.target!r}, classes={self.class_names})")


def _check_names(names):
    seen = {}
    for index, name in enumerate(names):
        if not name or any(ch.isspace() for ch in name) or "{" in name or "}" in name:
            raise ValueError(f"antecedent {index} has an invalid name {name!r}: names must be "
                             "non-empty without whitespace or braces.")
        if name in seen:
            raise ValueError(f"duplicate antecedent name {name!r} (antecedents {seen[name]} "
                             f"and {index}).")
        seen[name] = index
