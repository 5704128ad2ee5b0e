"""Shared fixtures: paths to the COMPAS files in ../shared and Hypothesis profiles."""

import os
import signal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# One test suite runs against every engine (a base class with one subclass per engine, as
# CPython's heapq tests do), so a property test is called from several classes on purpose.
SUPPRESSED = [HealthCheck.too_slow, HealthCheck.differing_executors]
settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=SUPPRESSED)
settings.register_profile("deep", max_examples=10_000, deadline=None,
                          suppress_health_check=SUPPRESSED)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# A test run started in the background (``pytest &``) inherits an ignored SIGINT; the tests
# that send themselves Ctrl-C need it delivered, or the search they interrupt never stops.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

SHARED_COMPAS = Path(__file__).resolve().parents[2] / "shared" / "data" / "compas"


@pytest.fixture(scope="session")
def compas_dir():
    """The CORELS COMPAS files; CI clones the repository with ../shared beside it."""
    if not (SHARED_COMPAS / "compas_train.out").is_file():
        pytest.fail(f"COMPAS reference files not found in {SHARED_COMPAS}; "
                    "clone the repository next to the shared/ folder.")
    return SHARED_COMPAS


@pytest.fixture(scope="session")
def cluster():
    """A local Dask cluster of two worker processes (one thread each), as ``n_workers=2``
    starts, for the distributed searches' tests."""
    import logging
    import dask
    from distributed import LocalCluster
    from optrules.distributed.cluster import QUIET_WORKERS
    with dask.config.set(QUIET_WORKERS), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                         dashboard_address=":0", silence_logs=logging.ERROR) as local:
        yield local
