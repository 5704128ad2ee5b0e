"""Anytime limits shared by every search: time, memory and interrupts.

A search asks its :class:`Budget` once per node whether it must stop; the answer is a status
string (one of :data:`STOP_STATUSES`) or None. The search then returns its best model with the
exact gap it has proven, exactly as for its own node limit. ``specs/limits.md`` states the
contract.

Interrupts (SIGINT, i.e. Ctrl-C, and SIGTERM) are turned into a stop request by
:func:`interruptible`: the first signal asks every running search to stop at its next node
(status ``"interrupted"``); a second one raises :class:`KeyboardInterrupt` at once.

Examples
--------
>>> budget = Budget(time_limit=60, max_memory=None)
>>> budget.stop_reason() is None
True
"""

import contextlib
import os
import signal
import sys
import threading
import time
import warnings

__all__ = ["Budget", "STOP_STATUSES", "Stopped", "StoppedSearchWarning", "warn_if_stopped", "interruptible", "interrupt_requested", "received_signal",
           "default_max_memory", "memory_cap", "resident_memory", "MEMORY_CHECK_INTERVAL",
           "DEFAULT_MEMORY_FRACTION"]

#: Why a search stopped before proving its answer (status -> what happened): its own node or
#: queue limit, the time limit, the memory cap, or a signal.
STOP_STATUSES = {
    "node-limit": "the node limit was reached",
    "queue-limit": "the queue limit was reached",
    "time-limit": "the time limit was reached",
    "memory-limit": "the memory cap was reached",
    "interrupted": "interrupted by a signal",
    "cluster-lost": "the Dask cluster of a distributed search failed",
}


class StoppedSearchWarning(UserWarning):
    """A fit kept the best model found so far without proving it optimal, because a limit or a
    signal stopped its search."""


def warn_if_stopped(owner, status, detail):
    """Warn (:class:`StoppedSearchWarning`) when ``status`` is a stop status; ``owner`` names
    the estimator, ``detail`` gives the proven gap or guarantee."""
    if status in STOP_STATUSES:
        warnings.warn(f"{owner}: {STOP_STATUSES[status]} (status {status!r}); the best model "
                      f"found so far is kept, not proven optimal ({detail}).",
                      StoppedSearchWarning, stacklevel=3)


class Stopped(Exception):
    """Raised by preparatory work (antecedent mining) that a budget stops before any search
    began: there is no best-so-far answer to return. ``status`` is a :data:`STOP_STATUSES`
    key."""

    def __init__(self, status, stage):
        super().__init__(f"{STOP_STATUSES[status]} while {stage}")
        self.status = status

#: Seconds between two reads of the resident memory (the cap may be overshot by what a search
#: allocates in this time: a few MB for the reference engines).
MEMORY_CHECK_INTERVAL = 0.05

#: The default memory cap as a fraction of the memory this process may use (physical memory,
#: or the container's cgroup limit when lower).
DEFAULT_MEMORY_FRACTION = 0.5

_MB = 1 << 20


def _usable_memory():
    """Bytes of physical memory, lowered to the cgroup (container) limit; None if unknown."""
    limits = []
    with contextlib.suppress(ValueError, OSError, AttributeError):
        limits.append(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        with contextlib.suppress(ValueError, OSError):
            with open(path) as file:
                limits.append(int(file.read().strip()))     # "max" (no limit) -> ValueError
    limits = [limit for limit in limits if limit > 0]
    return min(limits) if limits else None


def default_max_memory():
    """The default memory cap in MB: :data:`DEFAULT_MEMORY_FRACTION` of the usable memory.

    None (no cap) when the platform does not tell how much memory there is.
    """
    usable = _usable_memory()
    return None if usable is None else usable * DEFAULT_MEMORY_FRACTION / _MB


def memory_cap(max_memory):
    """A validated ``max_memory`` parameter in MB: "auto" is :func:`default_max_memory`."""
    return default_max_memory() if max_memory == "auto" else max_memory


def resident_memory():
    """This process's resident memory in MB, or None where it cannot be read.

    Linux reads the current resident set (``/proc/self/statm``); elsewhere the peak resident set
    (``getrusage``) stands in for it, which can only stop a search earlier, never later.
    """
    with contextlib.suppress(OSError, ValueError, IndexError):
        with open("/proc/self/statm") as file:
            return int(file.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / _MB
    with contextlib.suppress(ImportError):
        import resource
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / _MB if sys.platform == "darwin" else peak / 1024   # bytes vs KiB
    return None


class Budget:
    """The deadline, memory cap and interrupt state of one run.

    Parameters
    ----------
    time_limit : float, optional
        Seconds from now.
    max_memory : float, optional
        Resident memory cap of this process, in MB.
    parent : Budget, optional
        A budget this one lies within (a boosting round within the whole ensemble): it stops
        when the parent does.
    """

    def __init__(self, time_limit=None, max_memory=None, parent=None):
        now = time.perf_counter()
        self.start = now
        self.deadline = None if time_limit is None else now + time_limit
        self.max_memory = max_memory
        self.parent = parent
        self._next_memory_check = now
        self._memory_exhausted = False

    def within(self, time_limit):
        """A budget ending at ``time_limit`` seconds from now or at this one's end."""
        return Budget(time_limit=time_limit, parent=self)

    def remaining_time(self):
        """Seconds left before the earliest deadline (None if there is none)."""
        deadlines = [b.deadline for b in self._chain() if b.deadline is not None]
        return None if not deadlines else max(0.0, min(deadlines) - time.perf_counter())

    def _chain(self):
        budget = self
        while budget is not None:
            yield budget
            budget = budget.parent

    def stop_reason(self):
        """"interrupted", "time-limit", "memory-limit" or None (go on)."""
        if interrupt_requested():
            return "interrupted"
        now = time.perf_counter()
        for budget in self._chain():
            if budget.deadline is not None and now >= budget.deadline:
                return "time-limit"
            if budget._memory_over(now):
                return "memory-limit"
        return None

    def _memory_over(self, now):
        if self.max_memory is None or self._memory_exhausted:
            return self._memory_exhausted
        if now >= self._next_memory_check:
            self._next_memory_check = now + MEMORY_CHECK_INTERVAL
            used = resident_memory()
            # Once reached, the cap stays reached: memory a search frees is not given back to
            # the system reliably, and a search resumed at the cap would stop again at once.
            self._memory_exhausted = used is not None and used >= self.max_memory
        return self._memory_exhausted


# ----- interrupts ------------------------------------------------------------------------
_requests = 0          # signals received since the outermost interruptible() began
_first_signal = None   # the first of them
_depth = 0             # nesting depth of interruptible()
_searching = 0         # how many of those blocks hold a search (work with a best-so-far)
_previous = None       # the handlers ours replaced, while ours are installed
_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def interrupt_requested():
    """True once SIGINT or SIGTERM arrived inside the current :func:`interruptible` block."""
    return _depth > 0 and _requests > 0


def received_signal():
    """The first signal received in the last :func:`interruptible` block (None if none)."""
    return _first_signal


def _restore_handlers():
    global _previous
    if _previous is not None:
        for signum, handler in _previous.items():
            signal.signal(signum, handler)
        _previous = None


def _on_signal(signum, frame):
    global _requests, _first_signal, _depth, _searching
    _requests += 1
    if _first_signal is None:
        _first_signal = signal.Signals(signum)
    if _requests > 1 or not _searching:
        # Abort (a second signal, or one while no search runs, e.g. reading a file): the usual
        # handlers come back first, and no block is left open, whichever frame (even an inner
        # block's entry or exit) the KeyboardInterrupt unwinds.
        _restore_handlers()
        _depth = _searching = 0
        raise KeyboardInterrupt
    print(f"\n{_first_signal.name}: stopping at the next node with the best result so far "
          "(press Ctrl-C again to abort)", file=sys.stderr, flush=True)


class interruptible:
    """Within this block, the first SIGINT/SIGTERM requests a clean stop, the second aborts.

    Parameters
    ----------
    searching : bool, default True
        Whether the block runs a search, whose best-so-far a first signal keeps. A command's
        outer block passes False: a signal while no search runs (reading data, writing
        files) aborts at once, as usual.

    Re-entrant: inner blocks share the outer block's handlers and state. A signal the process
    ignores (a background job's SIGINT) stays ignored. Outside the main thread (where Python
    cannot install handlers) it does nothing, and signals keep their usual effect.
    """

    def __init__(self, searching=True):
        self.searching = searching

    def __enter__(self):
        global _requests, _first_signal, _depth, _previous, _searching
        self.active = threading.current_thread() is threading.main_thread()
        if self.active:
            if _depth == 0:
                _requests, _first_signal = 0, None
                _previous = {signum: signal.getsignal(signum) for signum in _SIGNALS
                             if signal.getsignal(signum) is not signal.SIG_IGN}
                for signum in _previous:
                    signal.signal(signum, _on_signal)
            _depth += 1
            _searching += self.searching
        return self

    def __exit__(self, *exception):
        global _depth, _searching
        if self.active and _depth > 0:
            _depth -= 1
            _searching = max(0, _searching - self.searching)
            if _depth == 0:
                _restore_handlers()
        return False
