"""One BLAS thread while a fast engine searches.

The fast engines multiply small matrices many thousands of times. A second BLAS thread gains
nothing there, and when another process keeps the other core busy it costs a factor 2-3
(measured on COMPAS at λ = 0.01: 6.5 s with one OpenBLAS thread, 15.9 s with two, under the
same load). :func:`single_blas_thread` sets the OpenBLAS libraries loaded in this process to one
thread for the duration of a ``with`` block and restores their settings afterwards, as
threadpoolctl does. Where no OpenBLAS can be found (another BLAS, or no ``/proc/self/maps``) it
changes nothing, which only costs speed. Fits running in parallel threads of one process share
the setting.

Examples
--------
>>> with single_blas_thread():
...     pass
"""

import contextlib
import ctypes
import functools
import re

__all__ = ["single_blas_thread", "openblas_thread_controls"]

#: Symbol names of OpenBLAS builds: numpy's and scipy's wheels prefix theirs with "scipy_" and
#: suffix the 64-bit-integer builds with "64_".
_NAMES = [(f"{prefix}openblas_get_num_threads{suffix}",
           f"{prefix}openblas_set_num_threads{suffix}")
          for prefix in ("scipy_", "") for suffix in ("64_", "")]


@functools.cache
def openblas_thread_controls():
    """(get, set) functions of every OpenBLAS library loaded in this process (after numpy)."""
    import numpy  # noqa: F401  (numpy loads its BLAS on import)
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            paths = sorted(set(re.findall(r"(/\S*openblas\S*\.so\S*)", maps.read())))
    except OSError:
        return ()
    controls = []
    for path in paths:
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        for get_name, set_name in _NAMES:
            get, put = getattr(library, get_name, None), getattr(library, set_name, None)
            if get is not None and put is not None:
                get.restype, put.argtypes = ctypes.c_int, [ctypes.c_int]
                controls.append((get, put))
                break
    return tuple(controls)


@contextlib.contextmanager
def single_blas_thread():
    """Run the block with one OpenBLAS thread; restore the previous thread counts after."""
    controls = openblas_thread_controls()
    previous = [get() for get, _ in controls]
    for _, put in controls:
        put(1)
    try:
        yield
    finally:
        for (_, put), count in zip(controls, previous):
            put(count)
