"""Optimal rule lists as a CP-SAT model and as weighted MaxSAT (RC2), both exact.

Both encodings minimise the integer objective q·mistakes + p·N·K for λ = p/q (that is
R(d)·q·N, Angelino et al. 2018, eq. 6) over rule lists of at most K_max slots, where
K_max = min(M, floor(R(empty)/λ)) (a longer list costs more than the empty list).

Samples with the same antecedent vector form a group u with P_u positive and Q_u negative
samples; every rule list captures a group whole, so the models work on groups.

Variables (shared by both encodings):
  x[k][m]  slot k holds antecedent m;       used[k]  slot k holds some antecedent
  z[k]     slot k predicts positive;        z0       the default predicts positive
  fire[k][u] = OR_{m : a_u[m]} x[k][m]      (slot k's antecedent holds for group u)
  done[k][u] = done[k-1][u] OR fire[k][u]   (some slot <= k fires)
  cap[k][u]  = fire[k][u] AND NOT done[k-1][u]
  eP[k][u] >= cap[k][u] AND NOT z[k]        (P_u mistakes),  eN[k][u] >= cap[k][u] AND z[k]
  default: eP0[u] >= NOT done[K][u] AND NOT z0,  eN0[u] >= NOT done[K][u] AND z0
Constraints: at most one antecedent per slot, each antecedent in at most one slot,
used[k+1] -> used[k] (used slots form a prefix).
Objective: q·Σ (P_u·eP + Q_u·eN) + p·N·Σ used[k].

CP-SAT's objective is integer, so status OPTIMAL proves the optimum exactly. RC2 (stratified,
with core exhaustion and minimisation) minimises the total weight of falsified soft clauses
(¬used[k] weighs p·N, ¬eP weighs q·P_u, ¬eN weighs q·Q_u), which is the same integer.
"""

import math
import multiprocessing
import signal
import time
from dataclasses import dataclass
from fractions import Fraction

from optrules.limits import interrupt_requested

from .oracle import InstanceTooLarge
from .stopping import solve_cp_model, wait_for_answer

__all__ = ["SolverAnswer", "max_slots", "solve_cpsat", "solve_maxsat"]


@dataclass(frozen=True)
class SolverAnswer:
    """A solver's verdict on an instance.

    ``status`` is the solver's own word ("OPTIMAL", "FEASIBLE", "INFEASIBLE", "UNKNOWN", ...);
    ``objective`` is exact when ``certified`` (status proves optimality), else None.
    ``prefix`` / ``labels`` / ``default`` describe the solver's own optimal list.
    """

    solver: str
    status: str
    certified: bool
    objective: Fraction | None
    prefix: tuple
    labels: tuple
    default: bool | None
    seconds: float


def max_slots(instance):
    """K_max = min(M, floor(R(empty)/λ)): no optimal list is longer."""
    n_positive = int(instance.labels.sum())
    empty = Fraction(min(n_positive, instance.n_samples - n_positive), instance.n_samples)
    return min(instance.n_antecedents, math.floor(empty / instance.lam))


def _weights(instance):
    """(mistake weight q, rule weight p·N) of the integer objective."""
    return instance.lam.denominator, instance.lam.numerator * instance.n_samples


def solve_cpsat(instance, time_limit=60.0, workers=1):
    """Solve the rule-list problem with OR-Tools CP-SAT; see the module docstring."""
    from ortools.sat.python import cp_model
    start = time.perf_counter()
    groups = instance.groups()
    slots, n_antecedents = max_slots(instance), instance.n_antecedents
    mistake, rule = _weights(instance)
    if mistake * instance.n_samples + rule * slots >= 1 << 62:
        raise InstanceTooLarge("the rule-list objective's coefficients exceed CP-SAT's 64-bit "
                               f"integers (λ = {instance.lam}); use the MaxSAT encoding.")
    model = cp_model.CpModel()
    x = [[model.new_bool_var(f"x{k}_{m}") for m in range(n_antecedents)] for k in range(slots)]
    used = [model.new_bool_var(f"used{k}") for k in range(slots)]
    z = [model.new_bool_var(f"z{k}") for k in range(slots)]
    z0 = model.new_bool_var("z0")
    for k in range(slots):
        model.add(sum(x[k]) == used[k])                       # at most one antecedent per slot
        if k + 1 < slots:
            model.add_implication(used[k + 1], used[k])       # used slots form a prefix
    for m in range(n_antecedents):
        model.add(sum(x[k][m] for k in range(slots)) <= 1)   # distinct antecedents
    terms = []
    for u, (vector, positives, negatives) in enumerate(groups):
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
            terms += _cpsat_errors(model, cap, z[k], positives, negatives, f"{k}_{u}")
            done = next_done
        default = model.new_bool_var(f"default{u}")
        if done is None:
            model.add(default == 1)
        else:
            model.add(default == done.Not())
        terms += _cpsat_errors(model, default, z0, positives, negatives, f"d_{u}")
    objective = mistake * sum(w * e for w, e in terms) + rule * sum(used)
    model.minimize(objective)
    solver, status = solve_cp_model(model, time_limit, workers)
    name = solver.status_name(status)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return SolverAnswer("cp-sat", name, False, None, (), (), None,
                            time.perf_counter() - start)
    prefix, labels = [], []
    for k in range(slots):
        for m in range(n_antecedents):
            if solver.value(x[k][m]):
                prefix.append(m)
                labels.append(bool(solver.value(z[k])))
    value = Fraction(int(solver.value(objective)), mistake * instance.n_samples)
    certified = status == cp_model.OPTIMAL
    return SolverAnswer("cp-sat", name, certified, value if certified else None, tuple(prefix),
                        tuple(labels), bool(solver.value(z0)), time.perf_counter() - start)


def _cpsat_errors(model, captured, predicts_positive, positives, negatives, tag):
    """Error indicators of one group under one rule: (weight, indicator) pairs."""
    terms = []
    if positives:
        error = model.new_bool_var(f"eP{tag}")
        model.add_bool_or([captured.Not(), predicts_positive, error])
        terms.append((positives, error))
    if negatives:
        error = model.new_bool_var(f"eN{tag}")
        model.add_bool_or([captured.Not(), predicts_positive.Not(), error])
        terms.append((negatives, error))
    return terms


def solve_maxsat(instance, time_limit=60.0):
    """Solve the rule-list problem as weighted MaxSAT with PySAT's RC2; see the module docstring.

    RC2 has no time limit of its own, so it runs in a child process that is stopped after
    ``time_limit`` seconds (status "TIME LIMIT", not certified).
    """
    from pysat.card import CardEnc, EncType
    from pysat.formula import IDPool, WCNF
    start = time.perf_counter()
    groups = instance.groups()
    slots, n_antecedents = max_slots(instance), instance.n_antecedents
    mistake, rule = _weights(instance)
    pool, formula = IDPool(), WCNF()
    x = [[pool.id(("x", k, m)) for m in range(n_antecedents)] for k in range(slots)]
    used = [pool.id(("used", k)) for k in range(slots)]
    z = [pool.id(("z", k)) for k in range(slots)]
    z0 = pool.id("z0")

    def at_most_one(literals):
        if len(literals) > 1:
            encoded = CardEnc.atmost(lits=literals, bound=1, vpool=pool, encoding=EncType.pairwise)
            formula.extend(encoded.clauses)

    for k in range(slots):
        at_most_one(x[k])
        formula.append([-used[k]] + x[k])                     # used[k] -> some x[k][m]
        for m in range(n_antecedents):
            formula.append([-x[k][m], used[k]])               # x[k][m] -> used[k]
        if k + 1 < slots:
            formula.append([-used[k + 1], used[k]])           # used slots form a prefix
        formula.append([-used[k]], weight=rule)               # soft: each rule costs p·N
    for m in range(n_antecedents):
        at_most_one([x[k][m] for k in range(slots)])         # distinct antecedents
    for u, (vector, positives, negatives) in enumerate(groups):
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
            _maxsat_errors(formula, pool, cap, z[k], positives, negatives, mistake, (k, u))
            done = next_done
        default = pool.id(("default", u))
        if done is None:
            formula.append([default])
        else:
            formula.append([default, done])                   # default <-> NOT done
            formula.append([-default, -done])
        _maxsat_errors(formula, pool, default, z0, positives, negatives, mistake, ("d", u))
    outcome = _run_rc2_with_time_limit(formula, time_limit)
    seconds = time.perf_counter() - start
    if outcome is None:
        status = "INTERRUPTED" if interrupt_requested() else "TIME LIMIT"
        return SolverAnswer("maxsat-rc2", status, False, None, (), (), None, seconds)
    model, cost = outcome
    if model is None:
        return SolverAnswer("maxsat-rc2", "UNSATISFIABLE", False, None, (), (), None, seconds)
    true = {literal for literal in model if literal > 0}
    prefix, labels = [], []
    for k in range(slots):
        for m in range(n_antecedents):
            if x[k][m] in true:
                prefix.append(m)
                labels.append(z[k] in true)
    return SolverAnswer("maxsat-rc2", "OPTIMUM FOUND", True,
                        Fraction(cost, mistake * instance.n_samples), tuple(prefix),
                        tuple(labels), z0 in true, seconds)


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


def _maxsat_errors(formula, pool, captured, predicts_positive, positives, negatives, mistake,
                   tag):
    if positives:
        error = pool.id(("eP",) + tag)
        formula.append([-captured, predicts_positive, error])
        formula.append([-error], weight=mistake * positives)
    if negatives:
        error = pool.id(("eN",) + tag)
        formula.append([-captured, -predicts_positive, error])
        formula.append([-error], weight=mistake * negatives)
