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
costs more than the empty list).

Variables (shared by both encodings):
  x[k][m]  slot k holds antecedent m;       used[k]  slot k holds some antecedent
  z[k][c]  slot k predicts class c;         z0[c]    the default predicts class c
           (exactly one class per slot and for the default: one-hot)
  fire[k][u] = OR_{m : a_u[m]} x[k][m]      (slot k's antecedent holds for group u)
  done[k][u] = done[k-1][u] OR fire[k][u]   (some slot <= k fires)
  cap[k][u]  = fire[k][u] AND NOT done[k-1][u]
  e[k][u][c] >= cap[k][u] AND NOT z[k][c]   (group u's class-c samples are misclassified:
                                             weight G'_uc), for every c with G'_uc > 0
  default: e0[u][c] >= NOT done[K][u] AND NOT z0[c]
Constraints: at most one antecedent per slot, each antecedent in at most one slot,
used[k+1] -> used[k] (used slots form a prefix), one class per slot and for the default.
Objective: q·Σ G'_uc·e + p·W'·Σ used[k]. The error indicators are only bounded below; the
minimisation sets each to its bound. For C = 2 this is the two-class model with z[k][1] the
old "predicts positive" variable.

CP-SAT's objective is integer, so status OPTIMAL proves the optimum exactly. RC2 (stratified,
with core exhaustion and minimisation) minimises the total weight of falsified soft clauses
(¬used[k] weighs p·W', ¬e weighs q·G'_uc), which is the same integer.
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

__all__ = ["SolverAnswer", "integer_groups", "max_slots", "solve_cpsat", "solve_maxsat"]


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


def max_slots(instance):
    """K_max = min(M, floor(R(empty)/λ)): no optimal list is longer (a list of K rules costs
    at least λK, and R(empty) = (W − largest class weight)/W)."""
    groups, total = integer_groups(instance)
    class_totals = [sum(weights[c] for _, weights in groups) for c in range(instance.n_classes)]
    empty = Fraction(total - max(class_totals), total)
    return min(instance.n_antecedents, math.floor(empty / instance.lam))


def _weights(instance, total):
    """(mistake weight q, rule weight p·W') of the integer objective."""
    return instance.lam.denominator, instance.lam.numerator * total


def solve_cpsat(instance, time_limit=60.0, workers=1):
    """Solve the rule-list problem with OR-Tools CP-SAT; see the module docstring.

    Raises
    ------
    InstanceTooLarge
        If the objective's coefficients could exceed CP-SAT's 64-bit integers.
    """
    from ortools.sat.python import cp_model
    start = time.perf_counter()
    groups, total = integer_groups(instance)
    slots, n_antecedents, n_classes = max_slots(instance), instance.n_antecedents, \
        instance.n_classes
    mistake, rule = _weights(instance, total)
    if mistake * total + rule * slots >= 1 << 62:
        raise InstanceTooLarge("the rule-list objective's coefficients exceed CP-SAT's 64-bit "
                               f"integers (λ = {instance.lam}, total weight {total} in integer "
                               "units); use the MaxSAT encoding.")
    model = cp_model.CpModel()
    x = [[model.new_bool_var(f"x{k}_{m}") for m in range(n_antecedents)] for k in range(slots)]
    used = [model.new_bool_var(f"used{k}") for k in range(slots)]
    z = [[model.new_bool_var(f"z{k}_{c}") for c in range(n_classes)] for k in range(slots)]
    z0 = [model.new_bool_var(f"z0_{c}") for c in range(n_classes)]
    for k in range(slots):
        model.add(sum(x[k]) == used[k])                       # at most one antecedent per slot
        model.add_exactly_one(z[k])                           # one class per slot
        if k + 1 < slots:
            model.add_implication(used[k + 1], used[k])       # used slots form a prefix
    model.add_exactly_one(z0)
    for m in range(n_antecedents):
        model.add(sum(x[k][m] for k in range(slots)) <= 1)   # distinct antecedents
    terms = []
    for u, (vector, weights) in enumerate(groups):
        done = None
        for k in range(slots):
            holding = [x[k][m] for m in range(n_antecedents) if vector[m]]
            fire = model.new_bool_var(f"fire{k}_{u}")
            model.add(sum(holding) == fire)                   # at most one x[k][·] is true
            cap = model.new_bool_var(f"cap{k}_{u}")
            if done is None:
                model.add(cap == fire)
                next_done = fire
            else:
                model.add_bool_and([fire, done.Not()]).only_enforce_if(cap)
                model.add_bool_or([fire.Not(), done, cap])
                next_done = model.new_bool_var(f"done{k}_{u}")
                model.add_max_equality(next_done, [done, fire])
            terms += _cpsat_errors(model, cap, z[k], weights, f"{k}_{u}")
            done = next_done
        default = model.new_bool_var(f"default{u}")
        if done is None:
            model.add(default == 1)
        else:
            model.add(default == done.Not())
        terms += _cpsat_errors(model, default, z0, weights, f"d_{u}")
    objective = mistake * sum(w * e for w, e in terms) + rule * sum(used)
    model.minimize(objective)
    solver, status = solve_cp_model(model, time_limit, workers)
    name = solver.status_name(status)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return SolverAnswer("cp-sat", name, False, None, (), (), None,
                            time.perf_counter() - start)

    def predicted(one_hot):
        return next(c for c in range(n_classes) if solver.value(one_hot[c]))

    prefix, labels = [], []
    for k in range(slots):
        for m in range(n_antecedents):
            if solver.value(x[k][m]):
                prefix.append(m)
                labels.append(predicted(z[k]))
    value = Fraction(int(solver.value(objective)), mistake * total)
    certified = status == cp_model.OPTIMAL
    return SolverAnswer("cp-sat", name, certified, value if certified else None, tuple(prefix),
                        tuple(labels), predicted(z0), time.perf_counter() - start)


def _cpsat_errors(model, captured, predicts, weights, tag):
    """Error indicators of one group under one rule: (weight G'_uc, e) for each class c of
    positive weight, with e >= captured AND NOT predicts[c]."""
    terms = []
    for c, weight in enumerate(weights):
        if weight:
            error = model.new_bool_var(f"e{tag}_{c}")
            model.add_bool_or([captured.Not(), predicts[c], error])
            terms.append((weight, error))
    return terms


def solve_maxsat(instance, time_limit=60.0):
    """Solve the rule-list problem as weighted MaxSAT with PySAT's RC2; see the module docstring.

    RC2 has no time limit of its own, so it runs in a child process that is stopped after
    ``time_limit`` seconds (status "TIME LIMIT", not certified).
    """
    from pysat.card import CardEnc, EncType
    from pysat.formula import IDPool, WCNF
    start = time.perf_counter()
    groups, total = integer_groups(instance)
    slots, n_antecedents, n_classes = max_slots(instance), instance.n_antecedents, \
        instance.n_classes
    mistake, rule = _weights(instance, total)
    pool, formula = IDPool(), WCNF()
    x = [[pool.id(("x", k, m)) for m in range(n_antecedents)] for k in range(slots)]
    used = [pool.id(("used", k)) for k in range(slots)]
    z = [[pool.id(("z", k, c)) for c in range(n_classes)] for k in range(slots)]
    z0 = [pool.id(("z0", c)) for c in range(n_classes)]

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
        formula.append([-used[k]] + x[k])                     # used[k] -> some x[k][m]
        for m in range(n_antecedents):
            formula.append([-x[k][m], used[k]])               # x[k][m] -> used[k]
        if k + 1 < slots:
            formula.append([-used[k + 1], used[k]])           # used slots form a prefix
        formula.append([-used[k]], weight=rule)               # soft: each rule costs p·W'
    exactly_one(z0)
    for m in range(n_antecedents):
        at_most_one([x[k][m] for k in range(slots)])         # distinct antecedents
    for u, (vector, weights) in enumerate(groups):
        done = None
        for k in range(slots):
            holding = [x[k][m] for m in range(n_antecedents) if vector[m]]
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
            _maxsat_errors(formula, pool, cap, z[k], weights, mistake, (k, u))
            done = next_done
        default = pool.id(("default", u))
        if done is None:
            formula.append([default])
        else:
            formula.append([default, done])                   # default <-> NOT done
            formula.append([-default, -done])
        _maxsat_errors(formula, pool, default, z0, weights, mistake, ("d", u))
    outcome = _run_rc2_with_time_limit(formula, time_limit)
    seconds = time.perf_counter() - start
    if outcome is None:
        status = "INTERRUPTED" if interrupt_requested() else "TIME LIMIT"
        return SolverAnswer("maxsat-rc2", status, False, None, (), (), None, seconds)
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
    return SolverAnswer("maxsat-rc2", "OPTIMUM FOUND", True, Fraction(cost, mistake * total),
                        tuple(prefix), tuple(labels), predicted(z0), seconds)


def _rc2_optimum(formula, answers):
    """Child process: solve with RC2 and send (model, cost) back."""
    # The parent handles Ctrl-C and terminates this child; the forked copy of its handlers
    # would report the stop a second time.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    from pysat.examples.rc2 import RC2Stratified
    # Stratification by weight, core exhaustion, core minimisation and AtMost1 detection are
    # RC2's standard accelerations; on COMPAS (12 antecedents, 300 rows) they cut 40 s to 1 s.
    with RC2Stratified(formula, adapt=True, exhaust=True, minz=True) as solver:
        model = solver.compute()
        answers.put((model, solver.cost))


def _run_rc2_with_time_limit(formula, time_limit):
    """(model, cost) from RC2, or None if it did not finish within ``time_limit`` seconds (or
    a signal stopped it)."""
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


def _maxsat_errors(formula, pool, captured, predicts, weights, mistake, tag):
    """Error indicators of one group under one rule: hard e >= captured AND NOT predicts[c]
    and soft ¬e of weight q·G'_uc, for each class c of positive weight."""
    for c, weight in enumerate(weights):
        if weight:
            error = pool.id(("e",) + tag + (c,))
            formula.append([-captured, predicts[c], error])
            formula.append([-error], weight=mistake * weight)
