"""Optimal rule lists as a CP-SAT model and as weighted MaxSAT (RC2), both exact.

The problem has C >= 2 classes and exact sample weights w_n >= 0 (w_n = 1 unweighted); R(d) =
(weighted mistakes)/W + λK (Angelino et al. 2018, eq. 6, with weights; W = Σ w_n). Samples with
the same antecedent vector form a group u; every rule list captures a group whole, so the models
work on groups, with G_uc the total weight of group u's samples of class c.

Integer weights: the G_uc are exact rationals. They are multiplied by the lcm L of their
denominators and divided by the gcd g of the results, giving integers G'_uc = G_uc·L/g and
W' = Σ G'_uc. Scaling every weight by one positive factor L/g scales the mistakes and W alike,
so R(d) = (weighted mistakes in these units)/W' + λK. Unweighted, G_uc are counts (L = 1).
This scaling is the encodings' own; it does not use the engines'.

Both encodings minimise the integer objective q·Σ(mistakes in units) + p·W'·K for λ = p/q (that
is R(d)·q·W') over rule lists of at most K_max = min(M, floor(R(empty)/λ)) slots (a longer list
costs more than the empty list), or floor(U/λ) slots when a list of objective U is known.

Mistakes are split into a constant and an excess (the equivalent-points bound of Angelino et
al. §3.14 made exact): whichever class c a rule predicts for the group u it captures, it costs
G'_u − G'_uc = (G'_u − max_c' G'_uc') + (max_c' G'_uc' − G'_uc). Every group is captured
exactly once (by a rule or the default), so the first term sums to a constant and only the excess
max − G'_uc of predicting a class c that is not a largest one needs a variable.

Variables (shared by both encodings):
  x[k][m]  slot k holds antecedent m;       used[k]  slot k holds some antecedent
  z[k][c]  slot k predicts class c;         z0[c]    the default predicts class c
           (exactly one class per slot and for the default: one-hot)
  fire[k][u] = OR_{m : a_u[m]} x[k][m]      (slot k's antecedent holds for group u)
  done[k][u] = done[k-1][u] OR fire[k][u]   (some slot <= k fires)
  cap[k][u]  = fire[k][u] AND NOT done[k-1][u]
  e[k][u][c] >= cap[k][u] AND z[k][c]       (group u is captured and predicted c: excess
                                             max − G'_uc), for every c with positive excess
  default: e0[u][c] >= NOT done[K][u] AND z0[c]
Constraints: at most one antecedent per slot, each antecedent in at most one slot,
used[k+1] -> used[k] (used slots form a prefix), one class per slot and for the default.
Objective: q·(constant + Σ excess·e) + p·W'·Σ used[k]. The error indicators are only bounded
below; the minimisation sets each to its bound.

Canonical lists (symmetry breaking). Among the optimal lists there is always one with
(a) no rule that captures nothing (deleting it keeps every prediction and saves λ),
(b) a last rule that predicts another class than the default (else deleting it moves its
    samples to the default, which predicts the same class, and saves λ), and
(c) the antecedents of adjacent rules that predict the same class in increasing order
    (swapping two such rules changes no prediction: each sample either of them captures gets
    that class); sorting does not undo (a) and (b) in an optimal list, since a sorted list
    with a rule that captures nothing could be shortened below the optimum.
Both encodings require (a)-(c), and an unused slot predicts class 0, so far fewer lists are
equivalent.

CP-SAT's objective is integer, so status OPTIMAL proves the optimum exactly. RC2 (stratified,
with core exhaustion and minimisation) minimises the total weight of falsified soft clauses
(¬used[k] weighs p·W', e weighs q·excess), which is the same integer less q·constant.

A known list (the claim, re-scored by the caller) helps CP-SAT: it is the solution hint, and
the question becomes "is there a list of objective below U?" (objective <= U·qW' − 1); the
answer INFEASIBLE proves the optimum is U.
"""

import math
import multiprocessing
import signal
import time
from dataclasses import dataclass
from fractions import Fraction
from functools import reduce

from optrules.limits import interrupt_requested

from .oracle import InstanceTooLarge
from .stopping import solve_cp_model, wait_for_answer

__all__ = ["SolverAnswer", "KnownList", "integer_groups", "max_slots", "solve_cpsat",
           "solve_maxsat"]


@dataclass(frozen=True)
class SolverAnswer:
    """A solver's verdict on an instance.

    ``status`` is the solver's own word ("OPTIMAL", "FEASIBLE", "INFEASIBLE", "UNKNOWN", ...);
    ``objective`` is exact when ``certified`` (status proves optimality), else None.
    ``prefix`` (antecedent indices), ``labels`` (one class index per rule) and ``default``
    (a class index, None without a solution) describe the solver's own list.
    """

    solver: str
    status: str
    certified: bool
    objective: Fraction | None
    prefix: tuple
    labels: tuple
    default: int | None
    seconds: float


def integer_groups(instance):
    """The groups with integer class weights, and their integer total.

    Returns
    -------
    groups : list of (vector, tuple of int)
        Antecedent vector and G'_uc = G_uc·L/g per class (see the module docstring); groups of
        zero weight, which no rule list pays for, are left out.
    total : int
        W' = Σ G'_uc > 0.
    """
    exact = [(vector, [Fraction(w) for w in weights]) for vector, weights in instance.groups()]
    scale = reduce(math.lcm, (w.denominator for _, weights in exact for w in weights), 1)
    scaled = [(vector, [int(w * scale) for w in weights]) for vector, weights in exact]
    divisor = reduce(math.gcd, (w for _, weights in scaled for w in weights), 0)
    groups = [(vector, tuple(w // divisor for w in weights)) for vector, weights in scaled
              if any(weights)]
    return groups, sum(sum(weights) for _, weights in groups)


def max_slots(instance, known=None):
    """K_max = min(M, floor(R(empty)/λ)): no optimal list is longer (a list of K rules costs
    at least λK, and R(empty) = (W − largest class weight)/W); with a ``known`` list of
    objective U, min(M, floor(min(R(empty), U)/λ)) (the optimum is at most U too)."""
    groups, total = integer_groups(instance)
    class_totals = [sum(weights[c] for _, weights in groups) for c in range(instance.n_classes)]
    ceiling = Fraction(total - max(class_totals), total)
    if known is not None:
        ceiling = min(ceiling, known.objective)
    return min(instance.n_antecedents, math.floor(ceiling / instance.lam))


@dataclass(frozen=True)
class KnownList:
    """A rule list whose exact objective the caller has computed from the data itself (the
    claim, re-scored): ``prefix`` antecedent indices, ``labels`` and ``default`` class
    indices."""

    objective: Fraction
    prefix: tuple
    labels: tuple
    default: int

    def canonical(self):
        """(prefix, labels) with each run of adjacent rules of one class sorted by antecedent
        (the same predictions; the form (c) of the module docstring requires)."""
        rules = list(zip(self.labels, self.prefix))
        start = 0
        for k in range(1, len(rules) + 1):
            if k == len(rules) or rules[k][0] != rules[start][0]:
                rules[start:k] = sorted(rules[start:k])
                start = k
        return tuple(m for _, m in rules), tuple(c for c, _ in rules)


class _Sizes:
    """What both encodings build on: integer groups, slots, objective weights, and each
    group's constant mistakes and class excesses (module docstring)."""

    def __init__(self, instance, known):
        self.groups, self.total = integer_groups(instance)
        self.slots = max_slots(instance, known)
        self.n_antecedents, self.n_classes = instance.n_antecedents, instance.n_classes
        self.mistake = instance.lam.denominator                  # q
        self.rule = instance.lam.numerator * self.total          # p·W'
        self.constant = sum(sum(weights) - max(weights) for _, weights in self.groups)
        self.excess = [[(c, max(weights) - w) for c, w in enumerate(weights) if w < max(weights)]
                       for _, weights in self.groups]

    def holding(self, x, k, u):
        """x[k][m] of the antecedents m that hold for group u."""
        vector = self.groups[u][0]
        return [x[k][m] for m in range(self.n_antecedents) if vector[m]]

    def value(self, units):
        """R(d) of an objective in integer units (without the constant mistakes)."""
        return Fraction(units + self.mistake * self.constant, self.mistake * self.total)


#: The objective values CP-SAT answers exactly: it works in 64-bit integers, but not every
#: part of its search does (an objective of up to 2**57 units, λ = 1/(10**17 + 1), was
#: "OPTIMAL" at twice the optimum; found by review). Beyond, ``InstanceTooLarge``.
CP_SAT_EXACT = 1 << 53


def solve_cpsat(instance, time_limit=60.0, workers=1, known=None):
    """Solve the rule-list problem with OR-Tools CP-SAT; see the module docstring.

    With a ``known`` list (:class:`KnownList`, objective U) it is the hint and CP-SAT looks
    for a list of objective below U: INFEASIBLE proves the optimum is U, OPTIMAL gives the
    optimum below U.

    Raises
    ------
    InstanceTooLarge
        If the objective's values could reach :data:`CP_SAT_EXACT` (2**53).
    """
    from ortools.sat.python import cp_model
    start = time.perf_counter()
    sizes = _Sizes(instance, known)
    slots, n_antecedents, n_classes = sizes.slots, sizes.n_antecedents, sizes.n_classes
    if sizes.mistake * sizes.total + sizes.rule * slots >= CP_SAT_EXACT:
        raise InstanceTooLarge("the rule-list objective's coefficients exceed 2**53, where "
                               f"CP-SAT's answers are not exact (λ = {instance.lam}, total "
                               f"weight {sizes.total} in integer units); use the MaxSAT "
                               "encoding.")
    model = cp_model.CpModel()
    x = [[model.new_bool_var(f"x{k}_{m}") for m in range(n_antecedents)] for k in range(slots)]
    used = [model.new_bool_var(f"used{k}") for k in range(slots)]
    z = [[model.new_bool_var(f"z{k}_{c}") for c in range(n_classes)] for k in range(slots)]
    z0 = [model.new_bool_var(f"z0_{c}") for c in range(n_classes)]
    index = [sum(m * x[k][m] for m in range(n_antecedents)) for k in range(slots)]
    for k in range(slots):
        model.add(sum(x[k]) == used[k])                       # at most one antecedent per slot
        model.add_exactly_one(z[k])                           # one class per slot
        model.add_implication(used[k].Not(), z[k][0])         # an unused slot predicts 0
        last = [used[k]] + ([used[k + 1].Not()] if k + 1 < slots else [])
        for c in range(n_classes):
            model.add_bool_or([z[k][c].Not(), z0[c].Not()]).only_enforce_if(last)   # (b)
            if k + 1 < slots:                                 # (c)
                model.add(index[k] + 1 <= index[k + 1]).only_enforce_if(
                    [used[k + 1], z[k][c], z[k + 1][c]])
        if k + 1 < slots:
            model.add_implication(used[k + 1], used[k])       # used slots form a prefix
    model.add_exactly_one(z0)
    for m in range(n_antecedents):
        model.add(sum(x[k][m] for k in range(slots)) <= 1)   # distinct antecedents
    terms, captures = [], [[] for _ in range(slots)]
    for u, excess in enumerate(sizes.excess):
        done = None
        for k in range(slots):
            fire = model.new_bool_var(f"fire{k}_{u}")
            model.add(sum(sizes.holding(x, k, u)) == fire)    # at most one x[k][·] is true
            cap = model.new_bool_var(f"cap{k}_{u}")
            if done is None:
                model.add(cap == fire)
                next_done = fire
            else:
                model.add_bool_and([fire, done.Not()]).only_enforce_if(cap)
                model.add_bool_or([fire.Not(), done, cap])
                next_done = model.new_bool_var(f"done{k}_{u}")
                model.add_max_equality(next_done, [done, fire])
            captures[k].append(cap)
            terms += _cpsat_errors(model, cap, z[k], excess, f"{k}_{u}")
            done = next_done
        default = model.new_bool_var(f"default{u}")
        if done is None:
            model.add(default == 1)
        else:
            model.add(default == done.Not())
        terms += _cpsat_errors(model, default, z0, excess, f"d_{u}")
    for k in range(slots):
        model.add_bool_or(captures[k]).only_enforce_if(used[k])    # (a)
    objective = sizes.mistake * sum(w * e for w, e in terms) + sizes.rule * sum(used)
    model.minimize(objective)
    if known is not None:
        below = known.objective * sizes.mistake * sizes.total - sizes.mistake * sizes.constant
        model.add(objective <= math.ceil(below) - 1)           # strictly below U
        _hint(model, known, x, used, z, z0, slots)
    solver, status = solve_cp_model(model, time_limit, workers)
    name = solver.status_name(status)
    seconds = time.perf_counter() - start
    if known is not None and status == cp_model.INFEASIBLE:
        return SolverAnswer("cp-sat", name, True, known.objective, known.prefix, known.labels,
                            known.default, seconds)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return SolverAnswer("cp-sat", name, False, None, (), (), None, seconds)

    def predicted(one_hot):
        return next(c for c in range(n_classes) if solver.value(one_hot[c]))

    prefix, labels = [], []
    for k in range(slots):
        for m in range(n_antecedents):
            if solver.value(x[k][m]):
                prefix.append(m)
                labels.append(predicted(z[k]))
    certified = status == cp_model.OPTIMAL
    value = sizes.value(int(solver.value(objective)))
    return SolverAnswer("cp-sat", name, certified, value if certified else None, tuple(prefix),
                        tuple(labels), predicted(z0), seconds)


def _hint(model, known, x, used, z, z0, slots):
    """The known list (in canonical form) as CP-SAT's solution hint, as far as it fits."""
    prefix, labels = known.canonical()
    for k in range(slots):
        holds = k < len(prefix)
        model.add_hint(used[k], holds)
        for m in range(len(x[k])):
            model.add_hint(x[k][m], holds and prefix[k] == m)
        for c in range(len(z[k])):
            model.add_hint(z[k][c], labels[k] == c if holds else c == 0)
    for c in range(len(z0)):
        model.add_hint(z0[c], known.default == c)


def _cpsat_errors(model, captured, predicts, excess, tag):
    """Error indicators of one group under one rule: (excess, e) for each class c with an
    excess, with e >= captured AND predicts[c]."""
    terms = []
    for c, weight in excess:
        error = model.new_bool_var(f"e{tag}_{c}")
        model.add_bool_or([captured.Not(), predicts[c].Not(), error])
        terms.append((weight, error))
    return terms


def solve_maxsat(instance, time_limit=60.0, known=None):
    """Solve the rule-list problem as weighted MaxSAT with PySAT's RC2; see the module docstring.

    A ``known`` list (:class:`KnownList`) only bounds the number of slots. RC2 has no time
    limit of its own, so it runs in a child process that is stopped after ``time_limit``
    seconds (status "TIME LIMIT", not certified).
    """
    from pysat.card import CardEnc, EncType
    from pysat.formula import IDPool, WCNF
    start = time.perf_counter()
    sizes = _Sizes(instance, known)
    slots, n_antecedents, n_classes = sizes.slots, sizes.n_antecedents, sizes.n_classes
    pool, formula = IDPool(), WCNF()
    x = [[pool.id(("x", k, m)) for m in range(n_antecedents)] for k in range(slots)]
    used = [pool.id(("used", k)) for k in range(slots)]
    z = [[pool.id(("z", k, c)) for c in range(n_classes)] for k in range(slots)]
    z0 = [pool.id(("z0", c)) for c in range(n_classes)]
    # below[k][m]: slot k holds an antecedent of index <= m (only this direction is needed)
    below = [[pool.id(("below", k, m)) for m in range(n_antecedents)] for k in range(slots)]

    def at_most_one(literals):
        if len(literals) > 1:
            encoded = CardEnc.atmost(lits=literals, bound=1, vpool=pool, encoding=EncType.pairwise)
            formula.extend(encoded.clauses)

    def exactly_one(literals):
        formula.append(list(literals))
        at_most_one(literals)

    for k in range(slots):
        at_most_one(x[k])
        exactly_one(z[k])                                     # one class per slot
        formula.append([used[k], z[k][0]])                    # an unused slot predicts 0
        formula.append([-used[k]] + x[k])                     # used[k] -> some x[k][m]
        for m in range(n_antecedents):
            formula.append([-x[k][m], used[k]])               # x[k][m] -> used[k]
            formula.append([-below[k][m], x[k][m]] + ([below[k][m - 1]] if m else []))
        last = [-used[k]] + ([used[k + 1]] if k + 1 < slots else [])
        for c in range(n_classes):
            formula.append(last + [-z[k][c], -z0[c]])         # (b)
            if k + 1 < slots:                                 # (c): index k < index k + 1
                for m in range(n_antecedents):
                    formula.append([-x[k + 1][m], -z[k][c], -z[k + 1][c]] +
                                   ([below[k][m - 1]] if m else []))
        if k + 1 < slots:
            formula.append([-used[k + 1], used[k]])           # used slots form a prefix
        formula.append([-used[k]], weight=sizes.rule)         # soft: each rule costs p·W'
    exactly_one(z0)
    for m in range(n_antecedents):
        at_most_one([x[k][m] for k in range(slots)])         # distinct antecedents
    captures = [[-used[k]] for k in range(slots)]
    for u, excess in enumerate(sizes.excess):
        done = None
        for k in range(slots):
            holding = sizes.holding(x, k, u)
            fire = pool.id(("fire", k, u))
            formula.append([-fire] + holding)                 # fire <-> OR holding
            for literal in holding:
                formula.append([-literal, fire])
            cap = pool.id(("cap", k, u))
            formula.append([-cap, fire])                      # cap <-> fire AND NOT done
            if done is None:
                formula.append([-fire, cap])
                next_done = fire
            else:
                formula.append([-cap, -done])
                formula.append([-fire, done, cap])
                next_done = pool.id(("done", k, u))           # next_done <-> done OR fire
                formula.append([-next_done, done, fire])
                formula.append([-done, next_done])
                formula.append([-fire, next_done])
            captures[k].append(cap)
            _maxsat_errors(formula, pool, cap, z[k], excess, sizes.mistake, (k, u))
            done = next_done
        default = pool.id(("default", u))
        if done is None:
            formula.append([default])
        else:
            formula.append([default, done])                   # default <-> NOT done
            formula.append([-default, -done])
        _maxsat_errors(formula, pool, default, z0, excess, sizes.mistake, ("d", u))
    formula.extend(captures)                                  # (a)
    if not formula.soft:       # no rule fits and no group has an excess: RC2 needs a soft
        formula.append([-pool.id("free")], weight=1)          # clause; a free one costs 0
    outcome = _run_rc2_with_time_limit(formula, time_limit)
    seconds = time.perf_counter() - start
    if outcome is None:
        status = "INTERRUPTED" if interrupt_requested() else "TIME LIMIT"
        return SolverAnswer("maxsat-rc2", status, False, None, (), (), None, seconds)
    if isinstance(outcome, str):
        return SolverAnswer("maxsat-rc2", f"FAILED ({outcome})", False, None, (), (), None,
                            seconds)
    model, cost = outcome
    if model is None:
        return SolverAnswer("maxsat-rc2", "UNSATISFIABLE", False, None, (), (), None, seconds)
    true = {literal for literal in model if literal > 0}

    def predicted(one_hot):
        return next(c for c in range(n_classes) if one_hot[c] in true)

    prefix, labels = [], []
    for k in range(slots):
        for m in range(n_antecedents):
            if x[k][m] in true:
                prefix.append(m)
                labels.append(predicted(z[k]))
    return SolverAnswer("maxsat-rc2", "OPTIMUM FOUND", True, sizes.value(cost), tuple(prefix),
                        tuple(labels), predicted(z0), seconds)


def _maxsat_errors(formula, pool, captured, predicts, excess, mistake, tag):
    """Error indicators of one group under one rule: hard e >= captured AND predicts[c] and
    soft ¬e of weight q·excess, for each class c with an excess."""
    for c, weight in excess:
        error = pool.id(("e",) + tag + (c,))
        formula.append([-captured, -predicts[c], error])
        formula.append([-error], weight=mistake * weight)


def _rc2_optimum(formula, answers):
    """Child process: solve with RC2 and send (model, cost) back."""
    # The parent handles Ctrl-C and terminates this child; the forked copy of its handlers
    # would report the stop a second time.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    from pysat.examples.rc2 import RC2Stratified
    # Stratification by weight, core exhaustion, core minimisation and AtMost1 detection are
    # RC2's standard accelerations; on COMPAS (12 antecedents, 300 rows) they cut 40 s to 1 s.
    try:
        with RC2Stratified(formula, adapt=True, exhaust=True, minz=True) as solver:
            model = solver.compute()
            answers.put((model, solver.cost))
    except Exception as error:         # said at once: the parent would wait out its time
        answers.put(f"{type(error).__name__}: {error}")


def _run_rc2_with_time_limit(formula, time_limit):
    """(model, cost) from RC2, the text of its error if it raised one, or None if it did not
    finish within ``time_limit`` seconds (or a signal stopped it)."""
    context = multiprocessing.get_context(
        "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    answers = context.Queue()
    worker = context.Process(target=_rc2_optimum, args=(formula, answers), daemon=True)
    worker.start()
    try:
        return wait_for_answer(answers, time_limit)
    finally:
        if worker.is_alive():
            worker.terminate()
        worker.join()
