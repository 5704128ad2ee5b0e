"""Executors for the distributed searches' tests whose tasks really share entries, which
``InProcess`` never does (every task there reads the hub through one worker state whose
cursor has already passed the batches of the earlier tasks, all written from that state);
and a cluster that dies mid-search."""

import concurrent.futures
import contextlib
import logging
import threading
import uuid

import dask
from distributed import Client, LocalCluster

from optrules.distributed.cluster import QUIET_WORKERS, SearchHub
from optrules.distributed.tasks import InProcess, OnDask, _forget


class _LockedHub(SearchHub):
    def __init__(self, best):
        super().__init__(best)
        self.lock = threading.Lock()

    def exchange(self, origin, offer, batch, cursor, donation=None, report=None):
        with self.lock:
            return super().exchange(origin, offer, batch, cursor, donation, report)

    def take_donations(self):
        with self.lock:
            return super().take_donations()

    def progress(self):
        with self.lock:
            return super().progress()


class FreshWorkers(InProcess):
    """As InProcess, but each task runs as on a new worker (its own cache and hub cursor):
    it receives every batch of entries of the earlier tasks."""

    shares_entries = True

    def start(self, task, best):
        super().start(task, best)
        self.names = []

    def submit(self, frontier, best, limits):
        name = f"{self.name}-{uuid.uuid4().hex}"
        self.names.append(name)
        return self.function(*self.arguments, frontier, best, limits, self.hub, name)

    def finish(self):
        for name in self.names:
            _forget(name)


class Threads:
    """Tasks run concurrently in threads of this process (each as on its own worker), with a
    hub shared under a lock: entries arrive while the receiving task is searching."""

    failures = ()
    shares_entries = True

    def __init__(self, n_workers=3, time_slice=0.0):
        self.n_workers, self.time_slice = n_workers, time_slice
        self.completed, self.names = [], []
        self.pool = concurrent.futures.ThreadPoolExecutor(n_workers)

    def start(self, task, best):
        self.name = f"optrules-search-{uuid.uuid4().hex}"
        self.function, self.arguments = task
        self.hub = _LockedHub(best)

    def want_split(self, parts):
        self.hub.want_split(parts)

    def take_donations(self):
        return self.hub.take_donations()

    def submit(self, frontier, best, limits):
        name = f"{self.name}-{uuid.uuid4().hex}"
        self.names.append(name)
        return self.pool.submit(self.function, *self.arguments, frontier, best, limits,
                                self.hub, name)

    def wait(self, handles, timeout):
        done, _ = concurrent.futures.wait(list(handles), timeout=timeout,
                                          return_when=concurrent.futures.FIRST_COMPLETED)
        return [(future, future.result()) for future in done]

    def cancel(self, handles):
        pass

    def shared_best(self):
        return self.hub.best

    def progress(self):
        return self.hub.progress()

    def finish(self):
        self.pool.shutdown(wait=True)
        for name in self.names:
            _forget(name)


@contextlib.contextmanager
def doomed_cluster():
    """(executor, progress): an executor on a local cluster of two processes and a progress
    callback that closes the whole cluster once the first task is done."""
    with dask.config.set(QUIET_WORKERS), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                         dashboard_address=":0", silence_logs=logging.CRITICAL) as doomed, \
            Client(doomed) as client:
        def close_the_cluster(nodes, describe):
            if nodes > 0 and doomed.status.name == "running":
                doomed.close()

        yield OnDask(client), close_the_cluster
