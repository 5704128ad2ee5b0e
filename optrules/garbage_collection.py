"""Python's cyclic garbage collector, run less often while a search allocates.

A branch-and-bound search allocates hundreds of thousands of long-lived objects (trie nodes,
queue entries, map entries). With the default thresholds (700, 10, 10) the collector runs a
young collection every 700 allocations and, every hundredth of those, a full pass that walks
all of them, although during the search they are freed by reference counting (a deleted
subtree's links are cut); the trie left at the end, whose nodes and parents refer to each
other, is freed by the collector (:func:`memory_given_back`). Measured on
COMPAS at λ = 0.0075 (the fast rule-list engine, one process, time in ``gc.callbacks``): 1 403
collections took 1.06 s of a 13.5 s search with the default thresholds, 6 took 0.26 s with
:func:`fewer_collections`.

Examples
--------
>>> import gc
>>> before = gc.get_threshold()
>>> with fewer_collections():
...     gc.get_threshold()
(100000, 50, 100)
>>> gc.get_threshold() == before
True
"""

import contextlib
import ctypes
import gc
import sys
import threading

from optrules.limits import resident_memory

__all__ = ["fewer_collections", "hold_fewer_collections", "release_fewer_collections",
           "memory_given_back", "GROWTH_TO_GIVE_BACK", "SEARCH_THRESHOLDS"]

#: MB a block's resident memory must grow by for :func:`memory_given_back` to collect.
GROWTH_TO_GIVE_BACK = 64


#: The collector's thresholds while a search runs.
SEARCH_THRESHOLDS = (100_000, 50, 100)

_LOCK = threading.Lock()
_HOLDERS = set()
_SAVED = []             # the thresholds before the first holder


def hold_fewer_collections(holder):
    """Set the collector's thresholds to :data:`SEARCH_THRESHOLDS` until
    :func:`release_fewer_collections` (``holder``): the thresholds from before the first
    holder come back when the last one releases, so that fits in parallel threads of one
    process, and a search's tasks on a worker, may overlap in any order.

    A distributed search's worker holds them from its first task of the search to the
    search's end, not for each task: restoring them at a task's end made the next young
    collection walk every object the task had left (its map, its trie): 0.49 s at the end of
    a part of COMPAS λ = 0.005's search on two workers, while the other worker waited for it.
    """
    with _LOCK:
        if not _HOLDERS:
            _SAVED[:] = [gc.get_threshold()]
            gc.set_threshold(*SEARCH_THRESHOLDS)
        _HOLDERS.add(holder)


def release_fewer_collections(holder):
    """End ``holder``'s :func:`hold_fewer_collections` (nothing if it holds none)."""
    with _LOCK:
        if holder not in _HOLDERS:
            return
        _HOLDERS.remove(holder)
        if not _HOLDERS:
            gc.set_threshold(*_SAVED.pop())


@contextlib.contextmanager
def fewer_collections():
    """Run the block with the collector's thresholds at :data:`SEARCH_THRESHOLDS`
    (:func:`hold_fewer_collections`)."""
    holder = object()
    hold_fewer_collections(holder)
    try:
        yield
    finally:
        release_fewer_collections(holder)


@contextlib.contextmanager
def memory_given_back():
    """Run the block (a fit); if this process's resident memory grew by at least
    :data:`GROWTH_TO_GIVE_BACK` MB meanwhile, collect the garbage it left and ask the C
    library to return free memory to the system.

    A search's trie is made of reference cycles (a node and its parent's children), which
    only the cyclic collector frees, and glibc keeps freed memory for reuse. Found by review:
    after a fit that reached its memory cap the process stayed at the cap, and every later fit
    in it, whose cap is on this process's memory, stopped at once with a near-empty model.
    """
    before = resident_memory()
    try:
        yield
    finally:
        after = resident_memory()
        if before is not None and after is not None and after - before >= GROWTH_TO_GIVE_BACK:
            gc.collect()
            _trim()


def _trim():
    """glibc's ``malloc_trim(0)``: return the free memory of the heap and of its arenas to the
    system (Linux with glibc only; nothing elsewhere)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6").malloc_trim(0)
