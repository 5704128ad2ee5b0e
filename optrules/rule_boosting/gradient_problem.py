"""The base-learner problem of gradient rule boosting, held exactly.

Boley et al. (2021), §2.3: for a query q with extent I(q), maximise

    obj(q) = (Σ_{i∈I(q)} g_i)^2 / (2n (λ + Σ_{i∈I(q)} h_i))            (eq. 2.3)

and give the rule the weight w = -Σg / (λ + Σh)                          (eq. 2.2).

Exactness: g, h and λ are converted to rationals (floats exactly, through ``Fraction``) and
multiplied by one common denominator ``scale`` S, so the engines work on integers:
G = S·Σg, D = S·λ + S·Σh, and obj = G^2 / (2n·S·D). Comparing two objectives is comparing
G_1^2·D_2 with G_2^2·D_1, an integer comparison. Floats are only ever outputs.
"""

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from optrules.data import bitset
from optrules.validation import parse_fraction

__all__ = ["GradientProblem"]


def _exact(values, what):
    """Each value exactly as (numerator, denominator) in lowest terms: a float's binary value
    (``float.as_integer_ratio``, much faster than a Fraction, which boosting makes n of per
    round), anything else through ``Fraction`` (as Python ints: a numpy integer's
    ``Fraction`` keeps numpy integers, which overflow)."""
    exact = []
    for value in values:
        if isinstance(value, (float, np.floating)):
            if not math.isfinite(value):
                raise ValueError(f"{what} contains a non-finite value {value!r}.")
            exact.append(float(value).as_integer_ratio())
        else:
            value = Fraction(value)
            exact.append((int(value.numerator), int(value.denominator)))
    return exact


@dataclass(frozen=True, eq=False)
class GradientProblem:
    """Propositions' extents and exact, integer-scaled gradient statistics.

    Attributes
    ----------
    extents : tuple of int
        Extent of each proposition as a Python-int bitset over samples (bit i = sample i).
    names : tuple of str
        Proposition names, in the fixed proposition order.
    g, h : tuple of int
        S·g_i and S·h_i (h_i > 0).
    lam : int
        S·λ (λ >= 0).
    scale : int
        S, the common denominator.
    n_samples : int
    """

    extents: tuple
    names: tuple
    g: tuple
    h: tuple
    lam: int
    scale: int
    n_samples: int

    @classmethod
    def from_values(cls, extents, names, g, h, lam):
        """Build from packed or boolean extents and numbers (float, int or Fraction).

        Raises
        ------
        ValueError
            If lengths disagree, a value is not finite, some h_i <= 0 or λ < 0.
        """
        g_exact = _exact(np.asarray(g, dtype=object).ravel().tolist(), "g")
        h_exact = _exact(np.asarray(h, dtype=object).ravel().tolist(), "h")
        lam_exact = parse_fraction("lam", lam, low=0, high=math.inf, function="GradientProblem",
                                   low_inclusive=True)
        n_samples = len(g_exact)
        if len(h_exact) != n_samples or n_samples == 0:
            raise ValueError(f"g and h must be non-empty and of equal length; got {len(g_exact)} "
                             f"and {len(h_exact)}.")
        if min(numerator for numerator, _ in h_exact) <= 0:
            raise ValueError("every h_i must be strictly positive (Boley et al. 2021, Thm 3.1); "
                             f"got min h = {float(min(Fraction(*v) for v in h_exact))}.")
        scale = math.lcm(*(denominator for _, denominator in g_exact + h_exact),
                         lam_exact.denominator)
        extents = np.asarray(extents)
        if extents.dtype == np.uint64:     # packed bitsets, as in PropositionSet.extents
            if extents.ndim != 2 or extents.shape[1] != bitset.n_words(n_samples):
                raise ValueError(f"packed extents must have shape (d, "
                                 f"{bitset.n_words(n_samples)}); got {extents.shape}.")
            ints = tuple(bitset.to_int(row) for row in extents)
            if any(value >> n_samples for value in ints):
                raise ValueError(f"packed extents have bits beyond sample {n_samples - 1}.")
        else:                              # a 0/1 or boolean matrix (d, n)
            if extents.size == 0:
                extents = extents.reshape(0, n_samples)
            if extents.ndim != 2 or extents.shape[1] != n_samples or \
                    not np.isin(extents, (0, 1)).all():
                raise ValueError(f"extents must be a 0/1 matrix of shape (d, {n_samples}); got "
                                 f"shape {extents.shape}.")
            packed = bitset.pack(extents.astype(bool))
            ints = tuple(bitset.to_int(row) for row in packed.reshape(len(extents),
                                                                     bitset.n_words(n_samples)))
        if len(names) != len(ints):
            raise ValueError(f"{len(names)} names for {len(ints)} extents.")
        return cls(ints, tuple(names), tuple(p * (scale // q) for p, q in g_exact),
                   tuple(p * (scale // q) for p, q in h_exact), int(lam_exact * scale), scale,
                   n_samples)

    @property
    def everything(self):
        """The extent of the empty query ⊤ (all samples)."""
        return (1 << self.n_samples) - 1

    def sums(self, extent):
        """(G, D) = (S·Σg, S·λ + S·Σh) over a bitset extent."""
        members = bitset.int_members(extent)
        return (sum(self.g[i] for i in members), self.lam + sum(self.h[i] for i in members))

    def objective_of_sums(self, total_g, total_d):
        """obj = G^2 / (2n·S·D) as an exact Fraction (0 for an empty extent with λ = 0)."""
        if total_d == 0:
            return Fraction(0)
        return Fraction(total_g * total_g, 2 * self.n_samples * self.scale * total_d)

    def objective(self, extent):
        """Exact obj of the query with this extent (eq. 2.3)."""
        return self.objective_of_sums(*self.sums(extent))

    def weight(self, extent):
        """Exact optimal weight w = -Σg / (λ + Σh) (eq. 2.2); 0 when undefined."""
        total_g, total_d = self.sums(extent)
        return Fraction(-total_g, total_d) if total_d else Fraction(0)
