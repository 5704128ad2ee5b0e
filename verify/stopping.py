"""Stopping every certification method on SIGINT/SIGTERM.

Inside :func:`optrules.limits.interruptible`, the first signal requests a stop. The brute-force
oracles poll the request (:func:`check_interrupt`); CP-SAT, which holds no Python lock while it
solves, runs in a thread that is told to stop (:func:`solve_cp_model`); the MaxSAT child
process is terminated (:func:`wait_for_answer`). An interrupted method proves nothing, so its
check is "undecided".
"""

import queue
import threading
import time

from optrules.limits import interrupt_requested

__all__ = ["Interrupted", "OutOfTime", "check_interrupt", "time_for_next_check",
           "solve_cp_model", "wait_for_answer", "POLL_SECONDS"]

#: Seconds between two looks at the stop request while a solver runs.
POLL_SECONDS = 0.1


class Interrupted(Exception):
    """A signal stopped a certification method before it finished."""


class OutOfTime(Exception):
    """The whole run's time budget ran out before a certification method could start."""


def check_interrupt():
    """Raise :class:`Interrupted` if a signal asked every method to stop."""
    if interrupt_requested():
        raise Interrupted("interrupted by a signal")


def time_for_next_check(time_limit, budget):
    """Seconds the next method may take: ``time_limit``, within what is left of ``budget``
    (an :class:`optrules.limits.Budget` or None).

    Raises :class:`Interrupted` after a signal and :class:`OutOfTime` when nothing is left.
    """
    check_interrupt()
    left = None if budget is None else budget.remaining_time()
    if left is None:
        return time_limit
    if left <= 0:
        raise OutOfTime
    return min(time_limit, left)


def solve_cp_model(model, time_limit, workers=1):
    """CP-SAT on ``model`` for at most ``time_limit`` seconds, stopped early by a signal.

    Returns ``(solver, status)``; a stopped solve has status FEASIBLE or UNKNOWN, never OPTIMAL
    or INFEASIBLE, so it certifies nothing.
    """
    from ortools.sat.python import cp_model
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = float(time_limit)
    solver.parameters.num_workers = workers
    # CP-SAT's own SIGINT handler would fight Python's (it aborts the process when the solve
    # runs outside the main thread); the signal reaches Python, which stops the search below.
    solver.parameters.catch_sigint_signal = False
    outcome = {}

    def solve():
        try:
            outcome["status"] = solver.solve(model)
        except Exception as error:          # re-raised below, in the caller's thread
            outcome["error"] = error

    worker = threading.Thread(target=solve, daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(POLL_SECONDS)
        if interrupt_requested():
            solver.stop_search()
    if "error" in outcome:
        raise outcome["error"]
    return solver, outcome["status"]


def wait_for_answer(answers, time_limit):
    """The next item of a child process's ``answers`` queue, or None when ``time_limit``
    seconds pass or a signal asks to stop first (the caller then terminates the child)."""
    deadline = time.perf_counter() + time_limit
    while not interrupt_requested():
        left = deadline - time.perf_counter()
        if left <= 0:
            return None
        try:
            return answers.get(timeout=min(left, POLL_SECONDS))
        except queue.Empty:
            continue
    return None
