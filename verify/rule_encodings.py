"""Certifying optimal boosting rules with CP-SAT: claim checks, Dinkelbach, cardinality ILP.

Problem (Boley et al. 2021, eq. 2.3): maximise obj(q) = G(q)^2 / (2n·D(q)) over conjunctions q
of propositions, G = Σ_{i∈I(q)} g_i, D = λ + Σ_{i∈I(q)} h_i. All numbers are rationals; they are
scaled by their common denominator S to integers, and samples with the same membership in
every proposition are merged into groups u (G_u = Σ S·g_i, H_u = Σ S·h_i, size n_u).

Model: s_j = "proposition j is in q"; in_u = "group u is covered", with in_u -> NOT s_j and
in_u OR Σ_{j : u ∉ p_j} s_j (so in_u = AND_{j selected} [u ∈ p_j]); G = Σ G_u in_u,
D = S·λ + Σ H_u in_u, sq = G·G (``add_multiplication_equality``).

* :func:`check_claim` decides whether some conjunction has obj > t for a claimed t = P/Q, i.e.
  Q·sq - P·2n·S·D >= 1. INFEASIBLE (proved) certifies the claim; FEASIBLE yields a
  counterexample query, re-scored exactly.
* :func:`dinkelbach_optimum` finds the optimum from scratch: start from t = obj(⊤), maximise
  Q·sq - P·2n·S·D; while the maximum is positive, re-score the maximiser exactly and raise t.
* :func:`cardinality_optimum` (constant h only) is a second opinion with a linear model: for
  each coverage size c, maximise and minimise G subject to Σ n_u in_u = c; then
  obj = max over c of max(G_max^2, G_min^2) / (2n(λ + h·c)).

All models have integer coefficients; an answer counts as proof only with status OPTIMAL or
INFEASIBLE. Coefficients from 2^53 up are refused (``InstanceTooLarge``): CP-SAT works in 64-bit
integers, but its rule-list answers were wrong from about 2^56 (see
``rule_list_encodings.CP_SAT_EXACT``)."""

import math
import time
from dataclasses import dataclass
from fractions import Fraction


from .oracle import InstanceTooLarge
from .rule_list_encodings import CP_SAT_EXACT
from .stopping import solve_cp_model

__all__ = ["RuleCheck", "check_claim", "dinkelbach_optimum", "cardinality_optimum"]

_LIMIT = CP_SAT_EXACT


@dataclass(frozen=True)
class RuleCheck:
    """Verdict on a claimed optimum of a boosting rule.

    ``verdict`` is "certified" (no conjunction beats the claim), "refuted" (``counterexample``
    beats it, with exact ``counterexample_objective``) or "undecided" (the solver stopped
    without proof). ``optimum`` is set by the from-scratch methods.
    """

    method: str
    verdict: str
    solver_status: str
    counterexample: tuple | None = None
    counterexample_objective: Fraction | None = None
    optimum: Fraction | None = None
    query: tuple | None = None
    seconds: float = 0.0
    iterations: int = 0


class _ScaledInstance:
    """Integer data of a RuleInstance: scale S, grouped samples, and the model's coefficients."""

    def __init__(self, instance):
        self.instance = instance
        values = list(instance.g) + list(instance.h) + [instance.lam]
        self.scale = math.lcm(*(v.denominator for v in values))
        members = {}
        for i in range(instance.n_samples):
            key = tuple(bool(b) for b in instance.extents[:, i])
            members.setdefault(key, []).append(i)
        self.groups = list(members.items())
        self.g = [sum(int(instance.g[i] * self.scale) for i in idx) for _, idx in self.groups]
        self.h = [sum(int(instance.h[i] * self.scale) for i in idx) for _, idx in self.groups]
        self.lam = int(instance.lam * self.scale)
        self.g_low = sum(v for v in self.g if v < 0)
        self.g_high = sum(v for v in self.g if v > 0)
        self.d_high = self.lam + sum(self.h)
        if max(-self.g_low, self.g_high) ** 2 >= _LIMIT or self.d_high >= _LIMIT:
            raise InstanceTooLarge("gradient sums are too large for CP-SAT's exact range "
                                   "(2**53); use integer gradients of moderate size.")

    def model(self):
        """A CP-SAT model with selection, coverage, G, D and sq = G^2."""
        from ortools.sat.python import cp_model
        model = cp_model.CpModel()
        d = len(self.instance.extents)
        select = [model.new_bool_var(f"s{j}") for j in range(d)]
        covered = []
        for u, (key, _) in enumerate(self.groups):
            var = model.new_bool_var(f"in{u}")
            excluded = [select[j] for j in range(d) if not key[j]]
            for literal in excluded:
                model.add_implication(literal, var.Not())
            model.add_bool_or([var] + excluded)
            covered.append(var)
        total_g = model.new_int_var(self.g_low, self.g_high, "G")
        model.add(total_g == sum(v * c for v, c in zip(self.g, covered)))
        total_d = model.new_int_var(self.lam, self.d_high, "D")
        model.add(total_d == self.lam + sum(v * c for v, c in zip(self.h, covered)))
        square = model.new_int_var(0, max(-self.g_low, self.g_high) ** 2, "sq")
        model.add_multiplication_equality(square, [total_g, total_g])
        return model, select, covered, total_g, total_d, square

    def claim_coefficients(self, claimed):
        """(A, B) with obj > claimed  <=>  A·G^2 - B·D >= 1 (G, D scaled by S)."""
        claimed = Fraction(claimed)
        a, b = claimed.denominator, claimed.numerator * 2 * self.instance.n_samples * self.scale
        if a * max(-self.g_low, self.g_high) ** 2 >= _LIMIT or b * self.d_high >= _LIMIT:
            raise InstanceTooLarge("the claimed value's numerator and denominator make CP-SAT "
                                   "coefficients beyond its exact range (2**53).")
        return a, b


def _solve(model, time_limit):
    from ortools.sat.python import cp_model
    solver, status = solve_cp_model(model, time_limit)
    return solver, status, solver.status_name(status), cp_model


def _selected(solver, select):
    return tuple(j for j, var in enumerate(select) if solver.value(var))


def check_claim(instance, claimed, time_limit=60.0):
    """Decide whether any conjunction has obj > ``claimed`` (a Fraction in eq. 2.3's units)."""
    start = time.perf_counter()
    scaled = _ScaledInstance(instance)
    a, b = scaled.claim_coefficients(claimed)
    model, select, _, _, total_d, square = scaled.model()
    model.add(a * square - b * total_d >= 1)
    solver, status, name, cp_model = _solve(model, time_limit)
    seconds = time.perf_counter() - start
    if status == cp_model.INFEASIBLE:
        return RuleCheck("cp-sat claim check", "certified", name, seconds=seconds)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        query = _selected(solver, select)
        return RuleCheck("cp-sat claim check", "refuted", name, query,
                         instance.objective(instance.extent_of(query)), seconds=seconds)
    return RuleCheck("cp-sat claim check", "undecided", name, seconds=seconds)


def dinkelbach_optimum(instance, time_limit=60.0):
    """The optimum from scratch by Dinkelbach iteration on CP-SAT (see the module docstring)."""
    start = time.perf_counter()
    scaled = _ScaledInstance(instance)
    query = ()
    best = instance.objective(instance.extent_of(query))
    for iteration in range(1, 10_000):
        a, b = scaled.claim_coefficients(best)
        model, select, _, _, total_d, square = scaled.model()
        model.maximize(a * square - b * total_d)
        remaining = time_limit - (time.perf_counter() - start)
        solver, status, name, cp_model = _solve(model, max(remaining, 0.01))
        if status != cp_model.OPTIMAL:
            return RuleCheck("cp-sat dinkelbach", "undecided", name, seconds=time.perf_counter()
                             - start, iterations=iteration)
        if a * solver.value(square) - b * solver.value(total_d) <= 0:
            return RuleCheck("cp-sat dinkelbach", "certified", name, optimum=best, query=query,
                             seconds=time.perf_counter() - start, iterations=iteration)
        candidate = _selected(solver, select)
        value = instance.objective(instance.extent_of(candidate))
        if not value > best:    # an explicit check: it must survive python -O
            raise RuntimeError(f"Dinkelbach step did not improve ({value} <= {best}): the "
                               "CP-SAT model and the exact re-score disagree.")
        query, best = candidate, value
    raise RuntimeError("Dinkelbach iteration did not converge")


def cardinality_optimum(instance, time_limit=60.0):
    """Second opinion for constant h: maximise ±G for every coverage size (linear models)."""
    if len(set(instance.h)) != 1:
        raise ValueError("the cardinality model needs a constant h.")
    start = time.perf_counter()
    scaled = _ScaledInstance(instance)
    sizes = [len(idx) for _, idx in scaled.groups]
    h0 = instance.h[0]
    best, best_query = instance.objective(instance.extent_of(())), ()
    for coverage in range(1, instance.n_samples + 1):
        for sign in (1, -1):
            model, select, covered, total_g, _, _ = scaled.model()
            model.add(sum(n * c for n, c in zip(sizes, covered)) == coverage)
            model.maximize(sign * total_g)
            remaining = time_limit - (time.perf_counter() - start)
            solver, status, name, cp_model = _solve(model, max(remaining, 0.01))
            if status == cp_model.INFEASIBLE:
                break                       # no conjunction covers exactly this many samples
            if status != cp_model.OPTIMAL:
                return RuleCheck("cp-sat cardinality", "undecided", name,
                                 seconds=time.perf_counter() - start)
            total = Fraction(int(solver.value(total_g)), scaled.scale)
            value = total * total / (2 * instance.n_samples * (instance.lam + h0 * coverage))
            if value > best:
                best, best_query = value, _selected(solver, select)
    return RuleCheck("cp-sat cardinality", "certified", "OPTIMAL", optimum=best,
                     query=best_query, seconds=time.perf_counter() - start)
