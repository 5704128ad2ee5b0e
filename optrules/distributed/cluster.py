"""Where a distributed search runs (a local cluster of processes or a scheduler's address),
and the incumbent its tasks share.

Examples
--------
>>> cluster_parameters(None, None, "fit_rule_list") is None      # one process
True
>>> cluster_parameters(2, None, "fit_rule_list")
Cluster(n_workers=2, scheduler=None)
"""

import contextlib
from dataclasses import dataclass

from optrules.validation import Integer, SchedulerAddress

__all__ = ["Cluster", "CLIENT_SETTINGS", "CLUSTER_CONSTRAINTS", "DistributedUnavailable",
           "SearchHub", "cluster_parameters"]

_INSTALL = "pip install 'optrules[distributed]'"

#: Dask settings of the local cluster's workers: no statistical profiler, whose thread samples
#: each worker's stack 100 times a second, taking the interpreter lock from the search each
#: time; and glibc's own threshold for returning freed memory to the system, not Dask's 64 KiB
#: (with it, a search task's CPU time grew by a quarter to a half: COMPAS λ = 0.01, one task,
#: 5.7-6.8 s against 4.5-4.8 s, 4.4-4.6 s in the client). Its processes (and the scheduler in
#: this one) also wake up less: the event loop's blocked-loop check every second, not every
#: 20 ms, and the dashboard's system monitor every 5 s, not 0.5 s. An idle cluster of two
#: workers took 46 ms of CPU a second in this process and 20 ms in each worker; 19 and 7-9 ms
#: so (the search's cores do the rest). Give a remote cluster's workers the same settings
#: (specs/distributed.md).
QUIET_WORKERS = {"distributed.worker.profile.enabled": False,
                 "distributed.admin.system-monitor.gil.enabled": False,
                 "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
                 "distributed.admin.tick.interval": "1s",
                 "distributed.admin.system-monitor.interval": "5s"}


#: Dask settings of this process while a search uses the cluster: no warning about a large
#: task graph ("Sending large graph ... consider loading the data with Dask directly"). A
#: task carries its frontier and the problem, so that a restarted worker needs nothing that
#: the lost one held (specs/distributed.md §2); a part of a queue of COMPAS at λ = 0.005, or
#: the open nodes of a boosting round, pass Dask's 10 MB and the advice does not apply.
CLIENT_SETTINGS = {"distributed.admin.large-graph-warning-threshold": "1 PiB"}


class DistributedUnavailable(ImportError):
    """``n_workers`` or ``scheduler`` was given without Dask distributed installed."""


@dataclass(frozen=True)
class Cluster:
    """A local cluster of ``n_workers`` processes (one thread each), or the cluster whose
    scheduler listens at ``scheduler`` (``"tcp://host:8786"``)."""

    n_workers: int | None = None
    scheduler: str | None = None

    @contextlib.contextmanager
    def client(self):
        """A Dask client of this cluster (a local cluster is started and closed with it)."""
        import logging          # with Dask's imports: a one-process search needs none of them
        try:
            import dask
            from distributed import Client, LocalCluster
        except ImportError as error:
            raise DistributedUnavailable(
                f"a distributed search needs Dask distributed: {_INSTALL}") from error
        if self.scheduler is not None:
            try:
                client = Client(self.scheduler, timeout="30s")
            except (ValueError, OSError) as error:    # not an address; no scheduler there
                raise type(error)(f"The 'scheduler' parameter: no Dask scheduler at "
                                  f"{self.scheduler!r}: {error}") from error
            with client, dask.config.set(CLIENT_SETTINGS):
                yield client
            return
        with dask.config.set(QUIET_WORKERS | CLIENT_SETTINGS), contextlib.ExitStack() as stack:
            with _workers_ignore_ctrl_c():            # only while the processes start
                cluster = stack.enter_context(LocalCluster(
                    n_workers=self.n_workers, threads_per_worker=1, processes=True,
                    dashboard_address=":0", silence_logs=logging.ERROR))
            yield stack.enter_context(Client(cluster))


@contextlib.contextmanager
def _workers_ignore_ctrl_c():
    """Start the local cluster's processes with SIGINT ignored (inherited), so that a Ctrl-C
    in the terminal, which reaches the whole process group, stops the search through this
    process (its budget) instead of killing the workers and the hub mid-task."""
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def cluster_parameters(n_workers, scheduler, owner):
    """The :class:`Cluster` that validated ``n_workers``/``scheduler`` ask for, or None for
    one process; ValueError naming ``owner`` if both are given."""
    if n_workers is not None and scheduler is not None:
        raise ValueError(f"{owner}: give 'n_workers' (a local cluster) or 'scheduler' (an "
                         "existing cluster), not both.")
    if n_workers is None and scheduler is None:
        return None
    return Cluster(n_workers, scheduler)


#: The parameters of a distributed search, as :mod:`optrules.validation` constraints.
CLUSTER_CONSTRAINTS = {"n_workers": [Integer(1), None], "scheduler": [SchedulerAddress(), None]}


class SearchHub:
    """What the tasks of one search share, held by a Dask actor: the best model offered so far,
    a log of batches of symmetry-map entries (or any facts that only prune), each task
    reading the batches of the others that it has not seen, how many parts of their queues
    the coordinator wants the running tasks to give away (idle workers), and the parts given
    that the coordinator has not taken yet.

    The best is a pair (result order key, model); an offer replaces it only if its key is
    smaller, so a late, worse offer never replaces a better one. A task is told that a split
    is wanted while the parts wanted outnumber the parts given and not taken.

    Examples
    --------
    >>> hub = SearchHub(((5,), "five"))
    >>> hub.exchange("a", ((3,), "three"), [("k", 1)], 0)
    (((3,), 'three'), [], 1, False)
    >>> hub.want_split(1)
    >>> hub.exchange("b", None, [], 0, donation=b"half of b's queue")
    (((3,), 'three'), [[('k', 1)]], 1, False)
    >>> hub.take_donations()
    ([('b', b"half of b's queue")], 0)
    >>> hub.exchange("b", None, [], None, report=("worker 1", {"nodes": 250}))[0]
    ((3,), 'three')
    >>> hub.progress()
    (((3,), 'three'), {'b': ('worker 1', {'nodes': 250})})
    """

    def __init__(self, best):
        self.best = best
        self.batches = []                          # (origin, batch)
        self.parts_wanted = 0
        self.donations = []                        # (origin, donation) not taken yet
        self.reports = {}                          # origin -> (worker, counters)

    def want_split(self, parts):
        """Ask the running tasks for ``parts`` parts of their queues (0: stop asking; a bool
        counts as 0 or 1)."""
        self.parts_wanted = parts

    def exchange(self, origin, offer, batch, cursor, donation=None, report=None):
        """Offer ``offer`` (or None), the batch of entries ``batch``, part of a queue
        ``donation`` (or None) and the progress ``report`` (worker, counters; or None)
        from ``origin``; returns the best, the other origins' batches after ``cursor`` (none
        if it is None), the new cursor and whether a split is wanted."""
        if offer is not None and offer[0] < self.best[0]:
            self.best = offer
        if report is not None:
            self.reports[origin] = report
        if batch:
            self.batches.append((origin, batch))
        if donation is not None:
            self.donations.append((origin, donation))
        news = [] if cursor is None else \
            [entries for source, entries in self.batches[cursor:] if source != origin]
        return self.best, news, len(self.batches), self._split_wanted()

    def take_donations(self):
        """The coordinator: the parts given since it last asked, (origin, donation) in the
        order they came, and the parts still wanted (those taken count as dealt)."""
        donations, self.donations = self.donations, []
        self.parts_wanted = max(0, self.parts_wanted - len(donations))
        return donations, self.parts_wanted

    def progress(self):
        """The coordinator, for its progress figures: the best and each origin's last
        report."""
        return self.best, dict(self.reports)

    def _split_wanted(self):
        return self.parts_wanted > len(self.donations)
