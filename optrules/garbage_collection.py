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

from optrules.limits import resident_memory

__all__ = ["fewer_collections", "memory_given_back", "GROWTH_TO_GIVE_BACK"]

#: MB a block's resident memory must grow by for :func:`memory_given_back` to collect.
GROWTH_TO_GIVE_BACK = 64


@contextlib.contextmanager
def fewer_collections():
    """Run the block with the collector's thresholds at (100 000, 50, 100); restore them
    after. Fits running in parallel threads of one process share the setting."""
    thresholds = gc.get_threshold()
    gc.set_threshold(100_000, 50, 100)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


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
