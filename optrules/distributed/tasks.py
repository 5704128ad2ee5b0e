"""The tasks of a distributed branch-and-bound search and who runs them (specs/distributed.md):
what a task is given and returns, its time slice, its link to the search's hub, the executors
(a Dask cluster, or this process) and the coordinator that deals frontiers out as tasks. The
searches themselves are in :mod:`optrules.distributed.rule_lists` and
:mod:`optrules.distributed.rule_boosting`.

A search kind supplies a task function, called as ``function(*arguments, frontier, best,
limits, hub, search_name)`` (:func:`run_search_task` is its frame), and a coordinator
(:class:`Coordinator`'s subclass) that knows its first frontier and its result.

Examples
--------
>>> hub = SearchHub(((2,), "two"))
>>> link = HubLink(hub, "a search", "task 1")
>>> link.exchange(((1,), "one"), list, wait=True)
(((1,), 'one'), [], False)
>>> _forget("a search")
"""

import collections
import contextlib
import functools
import io
import math
import pickle
import threading
import time
import uuid
import zlib
from dataclasses import dataclass

from optrules.blas import single_blas_thread
from optrules.garbage_collection import (fewer_collections, hold_fewer_collections,
                                         release_fewer_collections)
from optrules.distributed.cluster import SearchHub

__all__ = ["Coordinator", "HubLink", "InProcess", "OnDask", "SharedSearch", "TaskLimits",
           "TaskResult", "InMemoryRecords", "run_search_task", "worker_cache", "FIRST_SLICE",
           "TIME_SLICE", "DONATION_GAP", "EXCHANGE_INTERVAL", "HUB_TIMEOUT", "POLL",
           "SPLIT_POLL"]

#: Least seconds a task searches before it gives part of its queue away (or hands it back)
#: when a worker is idle; the first task (the root of the search) searches less, so that the
#: other workers get work soon (COMPAS λ = 0.0075 on two workers: the second task was dealt
#: 0.23-0.57 s after the first with 0.1 s, 0.12-0.13 s with 0.02 s).
TIME_SLICE = 2.0
FIRST_SLICE = 0.02
#: Seconds the coordinator waits for a task to end before it looks again (limits, progress);
#: shorter while it wants parts of the running tasks' queues (idle workers), which it takes
#: from the hub each time.
POLL, SPLIT_POLL = 0.1, 0.02
#: Least seconds between two parts of its queue that a task gives away while it runs.
DONATION_GAP = 0.5
#: Least seconds between a task's exchanges with the hub (each wakes the worker's event
#: loop, which then competes with the search for the interpreter).
EXCHANGE_INTERVAL = 0.1
#: Least seconds between two looks of the coordinator at what the running tasks reported to
#: the hub, for the progress figures (only when progress is shown).
PROGRESS_LOOK = 0.5
#: Most seconds to wait for the hub's answer where one is waited for: a hub lost with its
#: worker never answers (the search then goes on without it).
HUB_TIMEOUT = 10


@dataclass(frozen=True)
class TaskLimits:
    """When a task hands its queue back: after ``time_slice`` seconds if a worker is idle
    (None: never for that reason), after ``max_nodes`` expansions, or ``seconds_left`` seconds
    (the search's own limits, shared among the tasks; None: none), or when more than
    ``max_queue`` nodes wait in its queue (the search's queue limit: the coordinator then
    sees them and stops). ``records``: write its search-certificate records.
    ``split_wanted``: a worker was idle when the task was dealt (until the hub says otherwise:
    its answer reaches a task a tenth of a second or two after its first exchange).
    ``share_entries``: send its entries to the hub (no use when no other worker reads them:
    the next task on its own worker has its map)."""

    time_slice: float | None
    max_nodes: int | None = None
    seconds_left: float | None = None
    max_queue: int | None = None
    records: bool = False
    split_wanted: bool = False
    share_entries: bool = True


@dataclass(frozen=True, eq=False)
class TaskResult:
    """What a task returns: its incumbent (result order key, model), whether it improved it
    itself, the nodes left in its queue (as its coordinator's ``pack`` makes them; nothing
    when its subtrees are done), its counters, the worker's name, the task's wall and CPU
    seconds, its certificate records (count and zlib-compressed JSON lines) when asked
    for, and its link's name (``origin``; ``statistics["donations"]`` counts the parts of its
    queue that reached the hub under that name)."""

    best: tuple
    found: bool
    frontier: list
    nodes: int
    statistics: dict
    worker: str
    seconds: float
    cpu_seconds: float
    records: tuple | None = None
    origin: str | None = None


class InMemoryRecords:
    """A search-certificate writer (mixed in before its class) that keeps a task's records in
    memory (a task may run on another machine) and hands them back compressed; the
    coordinator appends them to the certificate in the order the tasks finish, which puts each
    node's parent before it."""

    def __init__(self, scale):              # no temporary file: see SearchRecordWriter
        self.scale, self.count = scale, 0
        self.records = io.StringIO()

    def packed(self):
        return self.count, zlib.compress(self.records.getvalue().encode("utf-8"))

    def take(self):
        """The records so far, :meth:`packed`; the next start afresh (they go with a part of
        the queue given away: the coordinator appends them before the part is dealt)."""
        records = self.packed()
        self.records, self.count = io.StringIO(), 0
        return records

    def put_back(self, records):
        """Records :meth:`take` gave, before those written since (their part came back)."""
        count, packed = records
        self.records = io.StringIO(zlib.decompress(packed).decode("utf-8") +
                                   self.records.getvalue())
        self.records.seek(0, io.SEEK_END)
        self.count += count


#: Per worker process, per search: what its tasks keep for the search's next task on the
#: worker (the hub's cursor and, for rule lists, the symmetry-map entries seen).
_WORKER_STATE = {}
#: The searches this worker forgot, newest last (at most :data:`_FORGOTTEN_KEPT`): a task
#: still starting when its search stopped (a cancelled task that Dask could not interrupt)
#: must not bring their state or their hold on the collector back.
_FORGOTTEN = collections.OrderedDict()
_FORGOTTEN_KEPT = 1000
_STATE_LOCK = threading.Lock()


def worker_cache(search_name):
    """What the tasks of the search ``search_name`` keep on this worker (a dict; a new one,
    not kept, once the search was forgotten here)."""
    fresh = {"known": {}, "cursor": 0}
    with _STATE_LOCK:
        return fresh if search_name in _FORGOTTEN else \
            _WORKER_STATE.setdefault(search_name, fresh)


def _forget(search_name):
    """Drop a finished search's cache on this worker, and its hold on the collector's
    thresholds (:func:`_collections_held`), for good."""
    with _STATE_LOCK:
        _WORKER_STATE.pop(search_name, None)
        _FORGOTTEN[search_name] = True
        if len(_FORGOTTEN) > _FORGOTTEN_KEPT:
            _FORGOTTEN.popitem(last=False)
        release_fewer_collections(("search", search_name))


def _collections_held(link):
    """The collector's thresholds for a task: held on its worker until its search is
    forgotten (:func:`~optrules.garbage_collection.hold_fewer_collections` says why), or for
    the task alone if it has no hub (no search name) or its search was forgotten here."""
    with _STATE_LOCK:
        if link is None or link.search_name in _FORGOTTEN:
            return fewer_collections()
        hold_fewer_collections(("search", link.search_name))
        return contextlib.nullcontext()


def _worker_name():
    try:
        from distributed import get_worker
        return str(get_worker().name)
    except (ImportError, ValueError):
        return "this process"


class HubLink:
    """A task's link to its search's :class:`~optrules.distributed.cluster.SearchHub` (an
    actor, or the object itself in one process).

    One call is in flight at a time and the search does not wait for it: its reply is taken
    at the first exchange after it arrived (the actor may live in this worker's process, whose
    event loop needs the interpreter the search holds). A hub that fails (its worker lost) is
    dropped: sharing only prunes, so the task goes on alone.
    """

    def __init__(self, hub, search_name, origin, worker="this process"):
        self.hub, self.origin, self.search_name = hub, origin, search_name
        self.worker = worker
        self.state = worker_cache(search_name)
        self.in_flight, self.sent = None, 0.0
        self.failures = 0
        # Parts of the queue given away: the one in the call in flight, how many calls that
        # carried one were answered, and those whose call failed (to be searched here).
        self.donation, self.donated, self.returned = None, 0, []

    def exchange(self, offer, entries, wait=False, donation=None, counters=None):
        """Send ``offer``, the entries ``entries()`` (facts that only prune, or None),
        the part of the queue ``donation()`` (or None; only if ``donation`` is given) and the
        counters so far (a dict, for the progress figures; or None)
        once the previous call is answered; (the shared best, the other tasks' new batches of
        entries, whether a split is wanted) of an answered call, or None. Returns False when
        nothing could be sent yet (neither callable was called). ``wait``: wait for the
        answers (at the task's end). A call unanswered for :data:`HUB_TIMEOUT` seconds means
        the hub is lost; a part of the queue whose call failed is then in ``returned``."""
        if self.hub is None:
            return None
        try:
            earlier = self._reply(wait)
            if self.in_flight is not None:
                if time.perf_counter() - self.sent > HUB_TIMEOUT:
                    raise TimeoutError("the search hub does not answer")
                return False
            batch = entries()
            # One pickled blob: Dask would serialise a list of big-int keys item by item.
            batch = pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL) if batch else None
            # After the entries: they include those of the prefixes given away.
            self.donation = None if donation is None else donation()
            self.in_flight = self.hub.exchange(self.origin, offer, batch, self.state["cursor"],
                                               self.donation,
                                               None if counters is None else
                                               (self.worker, counters))
            self.sent = time.perf_counter()
            reply = self._reply(wait)          # answered already in one process
        except Exception:             # the hub's worker is gone: search on without it
            self.hub, self.in_flight, self.failures = None, None, self.failures + 1
            if self.donation is not None:     # it may not have reached the hub: search it here
                self.returned.append(self.donation)
                self.donation = None
            return None
        if earlier is None or reply is None:
            return reply or earlier
        return reply[0], earlier[1] + reply[1], reply[2]

    def can_donate(self):
        """Whether a part of the queue can go with the next call: the hub is there and no
        earlier part is on its way."""
        return self.hub is not None and self.donation is None

    def _reply(self, wait):
        """The answer of the call in flight if it has come (or ``wait``), else None."""
        call = self.in_flight
        if call is None or not (wait or isinstance(call, tuple) or call.done()):
            return None
        self.in_flight = None
        best, news, self.state["cursor"], split = call if isinstance(call, tuple) \
            else call.result(timeout=HUB_TIMEOUT)
        if self.donation is not None:          # the hub has it
            self.donated, self.donation = self.donated + 1, None
        return best, [pickle.loads(batch) for batch in news], split


class SharedSearch:
    """What a search running as a task adds (mixed in before the engine's search class): it
    exchanges with the hub between expansions, offering its incumbent if it improved it and
    its entries, adopting the shared incumbent and the other tasks' entries.

    The search class supplies ``best_of()`` (its incumbent as the hub's pair), ``adopt(best)``,
    and, if it shares entries, ``outgoing()`` (the entries to send, emptied once sent; None
    if none) and ``receive(entries)``. A search that can give part of its queue away while it
    runs sets ``donates`` and supplies ``donation()`` (the part taken out of its queue, as its
    coordinator's ``pack`` makes it, and its certificate records so far or None; None if too
    little is queued) and ``take_back(donation)`` (a part whose call failed)."""

    donates = False

    def share_through(self, link):
        self.link, self.found, self.split_wanted = link, False, False
        self.shares_entries = True
        self.last_exchange = -math.inf         # the first exchange: before the first node
        self.nodes_expanded = 0

    def outgoing(self):
        return None

    def receive(self, entries):
        pass

    def can_donate(self):
        """Whether it can give part of its queue away now, through its hub."""
        return self.donates and self.link is not None and self.link.hub is not None

    def donate(self):
        """Give part of the queue to the hub with the next call, if one can go now (no call
        in flight); whether it was tried (the queue may have been too short to split)."""
        if not self.link.can_donate():
            return False
        self.last_exchange = time.perf_counter()
        return self.share(donate=True) is not False

    def exchange(self, nodes_expanded=None, describe=None):
        """Between expansions (a progress hook), at most every :data:`EXCHANGE_INTERVAL`
        seconds: :meth:`share`."""
        self.nodes_expanded = nodes_expanded
        now = time.perf_counter()
        if self.link is None or now - self.last_exchange < EXCHANGE_INTERVAL:
            return
        self.last_exchange = now
        self.share()

    def progress_counters(self):
        """The counters sent with each exchange for the coordinator's progress figures:
        ``nodes`` expanded (a search kind may add its own)."""
        return {"nodes": self.nodes_expanded}

    def finish_sharing(self):
        """At the task's end: the last entries, for the other tasks."""
        self.share(wait=True)

    def share(self, wait=False, donate=False):
        reply = self.link.exchange(self.best_of() if self.found else None, self.outgoing,
                                   wait, self.donation if donate else None,
                                   self.progress_counters())
        if reply is not None and reply is not False:
            best, news, self.split_wanted = reply
            self.adopt(best)
            for entries in news:
                self.receive(entries)
        while self.link.returned:
            self.take_back(self.link.returned.pop())
        return reply


class _Slice:
    """A task's budget (:class:`TaskLimits`): while the coordinator wants a split (some worker
    is idle) and once the task has expanded a node, it gives part of its queue away and
    searches on, at most every :data:`DONATION_GAP` seconds (or its time slice, if shorter:
    the first one too, so that a task dealt near a search's end gives soon to the worker that
    ends first), or, if it cannot (a search kind that does not, or a lost hub), it stops
    after its time slice; and it stops when the search's time is up."""

    def __init__(self, search, limits):
        self.search, now = search, time.perf_counter()
        self.time_slice = limits.time_slice
        self.end = None if limits.time_slice is None else now + limits.time_slice
        self.next_part = None if limits.time_slice is None else \
            now + min(limits.time_slice, DONATION_GAP)
        self.deadline = None if limits.seconds_left is None else now + limits.seconds_left

    def stop_reason(self):
        now = time.perf_counter()
        if self.deadline is not None and now >= self.deadline:
            return "time-limit"
        if self.end is not None and self.search.split_wanted and self.search.nodes_expanded:
            if not self.search.can_donate():
                return "time-limit" if now >= self.end else None
            if now >= self.next_part and self.search.donate():
                self.next_part = now + min(self.time_slice, DONATION_GAP)
        return None


def run_search_task(make_search, limits, hub, search_name, records=None):
    """The frame of one task: ``make_search(link)`` builds the search (a
    :class:`SharedSearch`), which runs as ``search.run_slice(limits, budget)`` within
    ``limits`` (:class:`TaskLimits`; ``budget`` stops it at its slice) and returns (nodes
    expanded, None or its stop status); then ``search.frontier()`` gives the nodes left when
    it stopped. It
    shares through ``hub`` when given (a :class:`~optrules.distributed.cluster.SearchHub`, or
    its actor's worker address and key; the search's name keys the worker's cache).
    ``records``: the search's :class:`InMemoryRecords`, or None."""
    start, start_cpu = time.perf_counter(), time.thread_time()
    worker = _worker_name()
    if isinstance(hub, tuple):                  # an actor's (worker address, key)
        from distributed.actor import Actor
        hub = _OnEventLoop(Actor(SearchHub, *hub))
    link = None if hub is None else HubLink(hub, search_name, uuid.uuid4().hex, worker)
    with single_blas_thread(), _collections_held(link):
        search = make_search(link)
        search.split_wanted, search.shares_entries = limits.split_wanted, limits.share_entries
        nodes, stop = search.run_slice(limits, _Slice(search, limits))
        if link is not None:
            search.finish_sharing()
        left = [] if stop is None else search.frontier()
    statistics = search.final_statistics()
    if link is not None:
        statistics["hub_failures"] = link.failures
        statistics["donations"] = link.donated
    return TaskResult(search.best_of(), search.found, left, nodes, statistics, worker,
                      time.perf_counter() - start, time.thread_time() - start_cpu,
                      None if records is None else records.packed(),
                      None if link is None else link.origin)


class InProcess:
    """Runs each task at once in this process, in submission order: tests, and per-task
    timings for a simulated cluster. With ``split``, every task gives away part of its queue
    (or hands it back) every ``time_slice`` seconds, as when a worker is idle; the parts are
    dealt out after it ends. Otherwise each runs to its end.
    ``completed`` lists (worker, seconds, CPU seconds, nodes) of every task, as for
    :class:`OnDask`."""

    n_workers = 1
    failures = ()
    #: Entries sent to the hub are never read: the tasks share one worker state, whose hub
    #: cursor has passed the batches of the earlier tasks (and whose cache has them).
    shares_entries = False

    def __init__(self, time_slice=TIME_SLICE, split=False):
        self.time_slice, self.split = time_slice, split
        self.completed = []

    def start(self, task, best):
        """A search whose tasks call ``function(*arguments, ...)`` (``task``)."""
        self.name = f"optrules-search-{uuid.uuid4().hex}"
        self.function, self.arguments = task
        self.hub = SearchHub(best)
        self.hub.want_split(math.inf if self.split else 0)

    def want_split(self, parts):
        pass

    def take_donations(self):
        return self.hub.take_donations()

    def submit(self, frontier, best, limits):
        return self.function(*self.arguments, frontier, best, limits, self.hub, self.name)

    def wait(self, handles, timeout):
        return [(handle, handle) for handle in handles]

    def cancel(self, handles):
        pass

    def shared_best(self):
        return self.hub.best

    def progress(self):
        return self.hub.progress()

    def finish(self):
        _forget(self.name)


class _OnEventLoop:
    """A :class:`~optrules.distributed.cluster.SearchHub` actor whose methods run on its
    worker's event loop, not in the worker's actor thread (Dask's ``separate_thread=False``):
    they are a few list operations, and each hop to that thread and back is two more waits
    for the interpreter lock, which the search on the hub's worker holds."""

    def __init__(self, actor):
        self.actor = actor

    def __getattr__(self, method):
        return functools.partial(getattr(self.actor, method), separate_thread=False)


class OnDask:
    """Runs the tasks on a Dask client's cluster, sharing the incumbent (and entries) through
    a :class:`~optrules.distributed.cluster.SearchHub` actor. A task lost with its worker is
    run again (Dask retries it); an error of the cluster itself ends the search with the
    status ``"cluster-lost"``."""

    def __init__(self, client, time_slice=TIME_SLICE, retries=3):
        from distributed.client import (ClosedClientError, FutureCancelledError,
                                        FuturesCancelledError)
        from distributed.comm import CommClosedError
        from distributed.scheduler import KilledWorker
        self.client, self.time_slice, self.retries = client, time_slice, retries
        self.n_workers = max(1, len(client.scheduler_info()["workers"]))
        self.completed = []
        # The errors that mean the cluster, not the search, failed.
        self.failures = (KilledWorker, FutureCancelledError, FuturesCancelledError,
                         ClosedClientError, CommClosedError, OSError)

    @property
    def shares_entries(self):
        """Whether tasks send their entries: only other workers read them."""
        return self.n_workers > 1

    def start(self, task, best):
        """A search whose tasks call ``function(*arguments, ...)`` (``task``) on the workers."""
        self.name = f"optrules-search-{uuid.uuid4().hex}"
        # The actor lives while its future does. Tasks get its address, not the actor: as an
        # argument it would be a dependency, and a task would be cancelled with its worker.
        self.hub_future = self.client.submit(SearchHub, best, actor=True, pure=False)
        self.hub = None                          # until a worker holds it (:meth:`ready`)
        self.progress_call = None
        # The problem goes with each task (one a worker at a time), not scattered: a
        # restarted worker then needs nothing that the lost one held.
        self.function, self.arguments = task

    def ready(self, budget):
        """Wait for a worker to hold the hub (a cluster may have none yet); the budget's
        stop status if it stops first, else None."""
        while True:
            try:
                self.hub = _OnEventLoop(self.hub_future.result(timeout=0.1))
                return None
            except TimeoutError:
                stop = budget.stop_reason()
                if stop is not None:
                    return stop

    def want_split(self, parts):
        with contextlib.suppress(Exception):     # a lost hub: the tasks run to their ends
            self.hub.want_split(parts).result(timeout=HUB_TIMEOUT)

    def take_donations(self):
        """The hub's :meth:`~optrules.distributed.cluster.SearchHub.take_donations`; none
        from a lost hub (the coordinator then finds the parts it lost)."""
        with contextlib.suppress(Exception):
            return self.hub.take_donations().result(timeout=HUB_TIMEOUT)
        return [], 0

    def submit(self, frontier, best, limits):
        actor = self.hub.actor
        return self.client.submit(self.function, *self.arguments, frontier, best, limits,
                                  (actor._address, actor.key), self.name, pure=False,
                                  retries=self.retries)

    def wait(self, handles, timeout):
        from distributed import wait
        try:
            done, _ = wait(list(handles), timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:                  # none done yet
            return []
        return [(future, future.result()) for future in done]

    def cancel(self, handles):
        self.client.cancel(list(handles))

    def shared_best(self):
        """The hub's best (None if the hub was lost with its worker)."""
        with contextlib.suppress(Exception):
            return self.hub.exchange("coordinator", None, [], None).result(
                timeout=HUB_TIMEOUT)[0]
        return None

    def progress(self):
        """The hub's :meth:`~optrules.distributed.cluster.SearchHub.progress` as of the last
        call answered, or None (none answered yet, or the hub lost). One call is in flight at
        a time, and the coordinator does not wait for it."""
        call, answer = self.progress_call, None
        if call is not None and call.done():
            self.progress_call = None
            with contextlib.suppress(Exception):
                answer = call.result()
        if self.progress_call is None:
            with contextlib.suppress(Exception):
                self.progress_call = self.hub.progress()
        return answer

    def finish(self):
        with contextlib.suppress(Exception):      # best effort: the cluster may be gone
            self.client.run(_forget, self.name)
            self.client.cancel(self.hub_future)


class Coordinator:
    """Deals frontiers out as tasks and merges their results: the incumbent ``best`` (result
    order key, model), the nodes not dealt out yet (``frontier``: records with a
    ``priority``, smallest first), the summed counters (:data:`PEAKS`: the largest of a task)
    and each worker's expanded nodes. A subclass starts the search (:meth:`start`) and reads
    the result off these."""

    #: Counters that are a task's peak, not a count.
    PEAKS = ()
    #: The counters, besides ``nodes``, that tasks report with their exchanges
    #: (``progress_counters``) and that the result counts.
    REPORTED_COUNTERS = ()

    @staticmethod
    def pack(nodes):
        """Nodes as a task receives and returns them (a search kind may send something
        cheaper to serialise than the records)."""
        return nodes

    @staticmethod
    def unpack(packed):
        return packed

    def start(self, executor, task, best, frontier, certificate):
        self.executor, self.best, self.frontier = executor, best, frontier
        self.certificate = certificate
        self.running = {}                      # task -> the frontier it was given
        self.allowances = {}                   # task -> the nodes it may expand (max_nodes)
        self.statistics = collections.Counter()
        self.nodes_by_worker = collections.Counter()
        self.split_wanted = None
        self.donations_taken = collections.Counter()       # origin -> parts taken
        # What running tasks last reported to the hub (origin -> worker, counters), for the
        # progress figures; a finished task's result counts instead.
        self.reports, self.finished_origins, self.next_look = {}, set(), 0.0
        executor.start(task, best)

    def run(self, max_nodes, max_queue, budget, progress):
        """Deal out tasks until every subtree is done or a limit stops the search: (nodes
        expanded, None or the stop status). The nodes and counters include the last reports
        of tasks that will not finish (cancelled by a stop, or attempts lost with their
        worker that Dask ran again), as the last progress figures do (a trace's end record
        is the result's)."""
        nodes, stop = self._run(max_nodes, max_queue, budget, progress)
        for worker, counters in self.reports.values():
            nodes += counters["nodes"]
            self.nodes_by_worker[worker] += counters["nodes"]
            for name in self.REPORTED_COUNTERS:
                self.statistics[name] += counters.get(name, 0)
        self.reports = {}
        if progress is not None:
            progress(nodes, self.describe)
        return nodes, stop

    def _run(self, max_nodes, max_queue, budget, progress):
        nodes = 0
        if progress is not None:
            progress(nodes, self.describe)
        try:                       # the executor's shared state (a cluster may have no worker)
            stop = self.executor.ready(budget) if hasattr(self.executor, "ready") else None
        except self.executor.failures:
            stop = "cluster-lost"
        if stop is not None:
            return nodes, self._stop(stop)
        while self.frontier or self.running:
            try:
                # The limits first: a task dealt out now would only be cancelled.
                stop = "node-limit" if max_nodes is not None and nodes >= max_nodes else \
                    "queue-limit" if max_queue is not None and \
                    self._queue_length() > max_queue else budget.stop_reason()
                if stop is not None:
                    return nodes, self._stop(stop)
                self._deal(nodes, max_nodes, max_queue, budget)
                # Idle workers: the running tasks are asked for parts of their queues.
                wanted = 0 if self.frontier else self.executor.n_workers - len(self.running)
                if wanted != self.split_wanted:
                    self.executor.want_split(wanted)
                    self.split_wanted = wanted
                done = self.executor.wait(self.running,
                                          timeout=SPLIT_POLL if self.split_wanted else POLL)
                if done or self.split_wanted:    # a task's parts come before its result
                    self._take_donations()
            except self.executor.failures:
                return nodes, self._stop("cluster-lost")
            for task, result in done:
                part = self.running.pop(task)
                self.allowances.pop(task, None)
                nodes += result.nodes
                self._merge(result)
                given = result.statistics.get("donations", 0)
                if given > self.donations_taken.pop(result.origin, 0):
                    # A part it gave away was lost with the hub: its subtrees are not
                    # searched, and the task's own part bounds them (their ancestors).
                    self.frontier.extend(part)
                    return nodes, self._stop("cluster-lost")
            if progress is not None:         # throttled by the callback itself
                self._look_at_running_tasks()
                progress(nodes + sum(self._running_nodes().values()), self.describe)
        return nodes, None

    def _deal(self, nodes, max_nodes, max_queue, budget):
        """Split the frontier into one task per idle worker, dealing its nodes round-robin
        in priority order (each task gets good and poor ones). No task waits for a worker:
        it would start from an old frontier whose better parts the running tasks have passed
        meanwhile (rule lists, COMPAS λ = 0.01 on 2 workers: 134 k prefixes expanded with two
        tasks a worker, 107 k with one; one process 103 k)."""
        wanted = self.executor.n_workers - len(self.running)
        parts = min(wanted, len(self.frontier))
        if max_nodes is not None:          # the nodes neither expanded nor allowed to a task
            left = max_nodes - nodes - sum(self.allowances.values())
            parts = min(parts, left)
        if parts <= 0:
            return
        self.frontier.sort(key=lambda node: node.priority)
        time_slice = self.executor.time_slice
        if nodes == 0 and not self.running and time_slice is not None:     # the first task
            time_slice = min(time_slice, FIRST_SLICE)
        idle = len(self.running) + parts < self.executor.n_workers      # once these are dealt
        # The search's limits, shared: the nodes left, split among the parts (so that the
        # tasks never expand more than max_nodes in all), and the seconds left; a task whose
        # own queue passes the queue limit hands it back (then the coordinator stops).
        for k in range(parts):
            part = self.frontier[k::parts]
            allowance = None if max_nodes is None else left // parts + (k < left % parts)
            limits = TaskLimits(time_slice, allowance, budget.remaining_time(), max_queue,
                                self.certificate is not None, idle,
                                self.executor.shares_entries)
            task = self.executor.submit(self.pack(part), self.best, limits)
            self.running[task] = part
            if allowance is not None:
                self.allowances[task] = allowance
        self.frontier = []

    def _look_at_running_tasks(self):
        """For the progress figures, at most every :data:`PROGRESS_LOOK` seconds: the nodes
        the running tasks reported to the hub (with each exchange), and its best (a list some
        task scored: also the incumbent of the tasks dealt next). A task gives part of its
        queue away instead of ending, so the tasks of a search may all run to its end."""
        now = time.perf_counter()
        if now < self.next_look:
            return
        self.next_look = now + PROGRESS_LOOK
        answer = self.executor.progress()
        if answer is not None:
            best, reports = answer
            self.reports = {origin: report for origin, report in reports.items()
                            if origin not in self.finished_origins}
            if best[0] < self.best[0]:
                self.best = best

    def _running_nodes(self):
        """The nodes expanded by the running tasks (as last reported), by worker."""
        counts = collections.Counter()
        for worker, counters in self.reports.values():
            counts[worker] += counters["nodes"]
        return counts

    def counted(self, name):
        """The counter ``name`` of the finished tasks and (as last reported) the running
        ones, for the progress figures."""
        return self.statistics[name] + sum(counters.get(name, 0)
                                           for _, counters in self.reports.values())

    def workers_nodes(self):
        """Each worker's expanded nodes for the progress figures: finished tasks' and
        running ones' (a task lost with its worker keeps its last report)."""
        return dict(sorted((self.nodes_by_worker + self._running_nodes()).items()))

    def _merge(self, result):
        self.finished_origins.add(result.origin)
        self.reports.pop(result.origin, None)
        if result.best[0] < self.best[0]:
            self.best = result.best
        for name, count in result.statistics.items():
            if name in self.PEAKS:
                self.statistics[name] = max(self.statistics[name], count)
            else:
                self.statistics[name] += count
        if result.frontier:
            self.frontier.extend(self.unpack(result.frontier))
        self._append_records(result.records)
        self.nodes_by_worker[result.worker] += result.nodes
        self.executor.completed.append((result.worker, result.seconds, result.cpu_seconds,
                                        result.nodes))

    def _take_donations(self):
        """The parts of their queues that running tasks gave away, with the records their
        tasks wrote before (the parts' parents): the records go to the certificate now,
        the parts to the frontier."""
        donations, self.split_wanted = self.executor.take_donations()
        for origin, (frontier, records) in donations:
            self.donations_taken[origin] += 1
            self._append_records(records)
            self.frontier.extend(self.unpack(frontier))

    def _append_records(self, records):
        if records is not None:
            count, packed = records
            self.certificate.append(zlib.decompress(packed).decode("utf-8"), count)

    def _stop(self, status):
        """Stop the running tasks; their frontiers count as not searched. A better model
        that one of them shared is kept."""
        try:
            self.executor.cancel(self.running)
            shared = self.executor.shared_best()
        except self.executor.failures:
            shared = None
        if shared is not None and shared[0] < self.best[0]:
            self.best = shared
        for part in self.running.values():
            self.frontier.extend(part)
        self.running, self.allowances = {}, {}
        return status

    def open_nodes(self):
        """The nodes not searched: waiting, and given to running tasks."""
        return self.frontier + [node for part in self.running.values() for node in part]

    def _queue_length(self):
        return len(self.frontier) + sum(len(part) for part in self.running.values())

    def final_statistics(self):
        statistics = dict(self.statistics)
        statistics["nodes_by_worker"] = dict(sorted(self.nodes_by_worker.items()))
        statistics["tasks"] = len(self.executor.completed)
        return statistics
