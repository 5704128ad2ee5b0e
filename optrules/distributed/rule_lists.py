"""Certifiably optimal rule lists (CORELS) with the search frontier spread over a Dask cluster
(specs/distributed.md).

A task runs the fast engine's search (Alg. 2) from a list of queued prefixes, its *frontier*,
for a bounded time slice, reading the shared incumbent between expansions and offering its own
improvements. It returns its best list, its counters and what is left of its queue. The
coordinator deals the returned frontiers out as new tasks until none is left: then every rule
list was scored or removed by a bound that holds at the final incumbent, as in one process.

Examples
--------
On a cluster, ``fit_rule_list(data, lam, n_workers=2)``; here every task runs in this process:

>>> from fractions import Fraction
>>> from optrules.data.binary_dataset import BinaryDataset
>>> from optrules.rule_lists.equivalent_points import minority_bits
>>> from optrules.rule_lists.fit import SearchConfig
>>> data = BinaryDataset.from_bits(["a", "b"], [[1, 1, 0, 0], [0, 1, 1, 0]], [1, 1, 0, 0])
>>> data = data.with_minority(minority_bits(data))
>>> result = corels(data, Fraction(1, 10), SearchConfig(), "fast", InProcess())
>>> result.objective, result.status
(Fraction(1, 10), 'optimal')
"""

import collections
import contextlib
import gc
import io
import math
import pickle
import time
import uuid
import zlib
from dataclasses import dataclass, replace

from optrules.blas import single_blas_thread
from optrules.distributed.cluster import SearchHub
from optrules.fast.corels import _INT64_SAFE, _VectorisedBranchAndBound, compressed
from optrules.rule_lists.fit import SearchConfig
from optrules.rule_lists.search_certificate import SearchCertificateWriter
from optrules.reference.corels import (_BranchAndBound, _Node, bound_figures,
                                       dominance_order, queue_summary, search_result)

__all__ = ["corels", "InProcess", "OnDask", "Prefix", "TaskLimits", "TaskResult", "run_task"]

#: Least seconds a task searches before it hands its frontier back when a worker is idle; the
#: first task (the empty prefix) searches less, so that the other workers get work soon.
TIME_SLICE = 2.0
FIRST_SLICE = 0.25
#: Least seconds between a task's exchanges with the hub (each wakes the worker's event
#: loop, which then competes with the search for the interpreter).
EXCHANGE_INTERVAL = 0.1
#: Most seconds to wait for the hub's answer where one is waited for: a hub lost with its
#: worker never answers (the search then goes on without it).
HUB_TIMEOUT = 10


@dataclass(frozen=True)
class Prefix:
    """A queued prefix as a task receives it: antecedents and their rules' predictions, the
    bounds b and b_0 (scaled), the captured weight (curiosity policy) and its queue priority
    without the insertion order."""

    antecedents: tuple
    predictions: tuple
    lower_bound: int
    minority_bound: int
    n_captured: int
    priority: tuple


@dataclass(frozen=True, eq=False)
class TaskResult:
    """What a task returns: its incumbent (:func:`best_of`), whether it improved it itself,
    the prefixes left in its queue (none when its subtrees are done), its counters, the
    worker's name, the task's wall and CPU seconds, and its certificate records (count and
    zlib-compressed JSON lines) when asked for."""

    best: tuple
    found: bool
    frontier: list
    nodes: int
    statistics: dict
    worker: str
    seconds: float
    cpu_seconds: float
    records: tuple | None = None


class _TaskRecords(SearchCertificateWriter):
    """A task's search-certificate records, kept in memory (a task may run on another
    machine) and handed back compressed; the coordinator appends them to the certificate in
    the order the tasks finish, which puts each prefix's parent before it."""

    def __init__(self, scale):              # no temporary file: see SearchRecordWriter
        self.scale, self.count = scale, 0
        self.records = io.StringIO()

    def packed(self):
        return self.count, zlib.compress(self.records.getvalue().encode("utf-8"))


def result_order(objective, antecedents):
    """The key of the result order (specs/rule-lists.md §6): the objective, then
    :func:`~optrules.reference.corels.dominance_order` of the antecedents."""
    return (objective, len(antecedents), *antecedents)


def best_of(search):
    """(result order key, (antecedents, predictions, default)) of a search's incumbent."""
    antecedents, predictions, default = search.best_rule_list
    return (result_order(search.best_objective, antecedents),
            (tuple(antecedents), tuple(predictions), default))


def frontier_of(search):
    """The live prefixes waiting in a search's queue, as :class:`Prefix` records."""
    frontier = []
    for priority, node in search.queued_nodes():
        path = node.path()
        frontier.append(Prefix(tuple(step.antecedent for step in path),
                               tuple(step.prediction for step in path), node.lower_bound,
                               node.minority_bound, node.n_captured, priority))
    return frontier


def _subtree_search(base):
    """The search class ``base`` (the fast or the reference engine's) started from a frontier
    of prefixes and a known incumbent instead of the empty prefix and the empty list."""

    class SubtreeSearch(base):
        def __init__(self, dataset, lam, config, frontier, best, link=None):
            super().__init__(dataset, lam, config)
            self._pop()            # the empty prefix, where a search starts: the frontier instead
            self.statistics["max_queue_size"] = 0
            self.link, self.found, self.split_wanted = link, False, False
            # Symmetry-map entries of the other tasks of the search that this worker has seen
            # (key -> (b, *dominance order)), and the prefixes this task added to its map
            # since it last shared them.
            self.known = {} if link is None else link.known
            self.outbox = []
            self.last_exchange = -math.inf      # the first exchange: before the first node
            self.nodes_expanded = 0
            self._adopt(best)
            for prefix in frontier:
                self._seed(prefix)

        def _seed(self, prefix):
            """Queue ``prefix`` under a trie path like the one it had where it was queued."""
            node = self.root
            for depth, (antecedent, prediction) in enumerate(zip(prefix.antecedents,
                                                                 prefix.predictions)):
                node = _trie_child(node, antecedent, prediction)
                if depth < len(prefix.antecedents) - 1:
                    node.expanded = True      # as its original: upward pruning removes it
            if node is not self.root:
                node.lower_bound, node.minority_bound = prefix.lower_bound, prefix.minority_bound
                node.n_captured = prefix.n_captured
            self._enqueue(prefix.priority, node)
            node.queued = True
            self.queued_bounds[node.depth, node.lower_bound, node.minority_bound] += 1
            self.statistics["max_queue_size"] = max(self.statistics["max_queue_size"],
                                                    self._queue_length())

        def _adopt(self, best):
            """Take ``best`` as the incumbent if it comes first in the result order, and
            garbage-collect the trie if R^c fell."""
            order, (antecedents, predictions, default) = best
            if order < best_of(self)[0]:
                fell = order[0] < self.best_objective
                self.best_objective = order[0]
                self.best_rule_list = (list(antecedents), list(predictions), default)
                if fell:
                    self._garbage_collect(self.root)

        def _symmetry_blocker(self, child, remaining):
            """The reference engine's map, and then the other tasks' entries: a prefix that
            another task recorded for the same key, with a smaller (b, dominance order),
            removes the child as it would in one process (every list extending the child has
            one extending it that comes first in the result order). Entries stay valid after
            their prefix has left its task's queue."""
            blocker = super()._symmetry_blocker(child, remaining)
            if blocker is not None or self.config.symmetry_map == "none":
                return blocker
            known = self.known.get(child.map_key)
            if known is not None and known < _entry(child):
                del self.symmetry_map[child.map_key]
                child.map_key = None
                return _Witness(known[2])
            self.outbox.append(child)
            return None

        def receive(self, entries):
            """Symmetry-map entries of other tasks: each that comes before this task's prefix
            of the same key removes that prefix's subtree, as in one process."""
            for key, entry in entries:
                known = self.known.get(key)
                if known is not None and known <= entry:
                    continue
                self.known[key] = entry
                local = self.symmetry_map.get(key)
                if local is not None and entry < _entry(local):
                    self._drop(local, "symmetry", _Witness(entry[2]))
                    self._delete_subtree(local)

        def _update_incumbent(self, child, objective, remaining):
            super()._update_incumbent(child, objective, remaining)
            self.found = True

        def exchange(self, nodes_expanded=None, describe=None):
            """Between expansions (a progress hook), at most every
            :data:`EXCHANGE_INTERVAL` seconds: share this task's incumbent, if it found one,
            and its new map entries; adopt the shared incumbent and the other tasks'
            entries."""
            self.nodes_expanded = nodes_expanded
            now = time.perf_counter()
            if self.link is None or now - self.last_exchange < EXCHANGE_INTERVAL:
                return
            self.last_exchange = now
            self.share()

        def share(self, wait=False):
            reply = self.link.exchange(best_of(self) if self.found else None, self.outbox,
                                       wait)
            if reply is False:
                return                         # the last call is not answered yet
            self.outbox = []
            if reply is not None:
                best, news, self.split_wanted = reply
                self._adopt(best)
                for entries in news:
                    self.receive(entries)

    return SubtreeSearch


def _entry(node):
    """A trie node's symmetry-map entry: (b, *dominance order), the order of the map's ties."""
    return (node.lower_bound, *dominance_order(node.prefix()))


def _entries(nodes):
    """(key, entry) of the prefixes still in the map, their prefixes read once per parent."""
    prefixes, entries = {}, []
    for node in nodes:
        if node.map_key is None or node.deleted:
            continue
        parent = prefixes.get(node.parent)
        if parent is None:
            parent = prefixes[node.parent] = tuple(node.parent.prefix())
        prefix = parent + (node.antecedent,)
        entries.append((node.map_key, (node.lower_bound, len(prefix), prefix)))
    return entries


@dataclass(frozen=True)
class _Witness:
    """Another task's prefix that removes a child (it names itself as a trie node does)."""

    antecedents: tuple

    def prefix(self):
        return list(self.antecedents)


def _trie_child(parent, antecedent, prediction):
    """``parent``'s trie child for ``antecedent``, made with zero bounds when new (garbage
    collection then looks through it to the queued prefixes below)."""
    if not parent.children:
        parent.children = {}
    if antecedent not in parent.children:
        parent.children[antecedent] = _Node(antecedent, parent, 0, 0, prediction, 0)
    return parent.children[antecedent]


_SUBTREE_SEARCHES = {base: _subtree_search(base)
                     for base in (_VectorisedBranchAndBound, _BranchAndBound)}


def _engine(dataset, lam, engine):
    """The search class of ``engine`` ("fast" or "reference"); the reference one also where
    the fast one's int64 could overflow (as :func:`optrules.fast.corels.corels` chooses).
    ``dataset`` is compressed."""
    safe = 4 * lam.denominator * int(dataset.weights.sum()) < _INT64_SAFE
    return _VectorisedBranchAndBound if engine == "fast" and safe else _BranchAndBound


#: Per worker process, per search: the symmetry-map entries seen and the hub's cursor, kept
#: for the search's next task on the worker (so it does not fetch them again).
_WORKER_STATE = {}


class _HubLink:
    """A task's link to its search's :class:`~optrules.distributed.cluster.SearchHub` (an
    actor, or the object itself in one process).

    One call is in flight at a time and the search does not wait for it: its reply is taken
    at the first exchange after it arrived (the actor may live in this worker's process, whose
    event loop needs the interpreter the search holds). A hub that fails (its worker lost) is
    dropped: sharing only prunes, so the task goes on alone.
    """

    def __init__(self, hub, search_name, origin):
        self.hub, self.origin = hub, origin
        self.state = _WORKER_STATE.setdefault(search_name, {"known": {}, "cursor": 0})
        self.known = self.state["known"]
        self.in_flight, self.sent = None, 0.0
        self.failures = 0

    def exchange(self, offer, nodes, wait=False):
        """Send ``offer`` and the map entries of the trie nodes ``nodes`` once the previous
        call is answered; (the shared best, the other tasks' new batches of entries, whether
        a split is wanted) of an answered call, or None. Returns False when nothing could be
        sent yet (the caller keeps ``nodes``). ``wait``: wait for the answers (at the task's
        end). A call unanswered for :data:`HUB_TIMEOUT` seconds means the hub is lost."""
        if self.hub is None:
            return None
        try:
            earlier = self._reply(wait)
            if self.in_flight is not None:
                if time.perf_counter() - self.sent > HUB_TIMEOUT:
                    raise TimeoutError("the search hub does not answer")
                return False
            entries = _entries(nodes)
            # One pickled blob: Dask would serialise a list of big-int keys item by item.
            batch = pickle.dumps(entries, protocol=pickle.HIGHEST_PROTOCOL) if entries else None
            self.in_flight = self.hub.exchange(self.origin, offer, batch, self.state["cursor"])
            self.sent = time.perf_counter()
            reply = self._reply(wait)          # answered already in one process
        except Exception:             # the hub's worker is gone: search on without it
            self.hub, self.in_flight, self.failures = None, None, self.failures + 1
            return None
        if earlier is None or reply is None:
            return reply or earlier
        return reply[0], earlier[1] + reply[1], reply[2]

    def remember(self, entries):
        """Keep this task's own map entries (key, entry) for the next tasks of the search on
        this worker: the hub does not return a worker the batches it sent, and its cursor has
        passed them."""
        for key, entry in entries:
            known = self.known.get(key)
            if known is None or entry < known:
                self.known[key] = entry

    def _reply(self, wait):
        """The answer of the call in flight if it has come (or ``wait``), else None."""
        call = self.in_flight
        if call is None or not (wait or isinstance(call, tuple) or call.done()):
            return None
        self.in_flight = None
        best, news, self.state["cursor"], split = call if isinstance(call, tuple) \
            else call.result(timeout=HUB_TIMEOUT)
        return best, [pickle.loads(batch) for batch in news], split


@dataclass(frozen=True)
class TaskLimits:
    """When a task hands its queue back: after ``time_slice`` seconds if a worker is idle
    (None: never for that reason), after ``max_nodes`` expansions, or ``seconds_left`` seconds
    (the search's own limits, shared among the tasks; None: none), or when more than
    ``max_queue`` prefixes wait in its queue (the search's queue limit: the coordinator then
    sees them and stops). ``records``: write its search-certificate records."""

    time_slice: float | None
    max_nodes: int | None = None
    seconds_left: float | None = None
    max_queue: int | None = None
    records: bool = False


def run_task(dataset, lam, config, engine, frontier, best, limits, hub=None,
             search_name=None):
    """One task: search from ``frontier`` at incumbent ``best`` within ``limits``
    (:class:`TaskLimits`) with ``engine``'s search, sharing through ``hub`` when given (a
    :class:`~optrules.distributed.cluster.SearchHub`, or its actor's worker address and key;
    the search's name keys the worker's cache). ``dataset`` is compressed
    (:func:`optrules.fast.corels.compressed`)."""
    start, start_cpu = time.perf_counter(), time.thread_time()
    worker = _worker_name()
    if isinstance(hub, tuple):                  # an actor's (worker address, key)
        from distributed.actor import Actor
        hub = Actor(SearchHub, *hub)
    # The hub returns each task the other tasks' entries; the worker's cache (``known``)
    # keeps those and its earlier tasks' own.
    link = None if hub is None else _HubLink(hub, search_name, uuid.uuid4().hex)
    records = None
    if limits.records:
        records = _TaskRecords(lam.denominator * int(dataset.weights.sum()))
        config = replace(config, certificate=records)
    with single_blas_thread(), _fewer_collections():
        search = _SUBTREE_SEARCHES[_engine(dataset, lam, engine)](dataset, lam, config,
                                                                  frontier, best, link)
        nodes, stop = search.run(limits.max_nodes, limits.max_queue,
                                 _Slice(search, limits), search.exchange)
        if link is not None:
            search.share(wait=True)            # the last entries, for the other tasks
            # ... and for the next tasks on this worker: the hub's cursor has passed them.
            link.remember(_entries(search.symmetry_map.values()))
        left = [] if stop is None else frontier_of(search)
    statistics = search.final_statistics()
    if link is not None:
        statistics["hub_failures"] = link.failures
    return TaskResult(best_of(search), search.found, left, nodes, statistics, worker,
                      time.perf_counter() - start, time.thread_time() - start_cpu,
                      None if records is None else records.packed())


class _Slice:
    """A task's budget (:class:`TaskLimits`): it stops once it has searched its time slice and
    expanded a prefix, if the coordinator wants a split (some worker is idle), and when the
    search's time is up."""

    def __init__(self, search, limits):
        self.search, now = search, time.perf_counter()
        self.end = None if limits.time_slice is None else now + limits.time_slice
        self.deadline = None if limits.seconds_left is None else now + limits.seconds_left

    def stop_reason(self):
        now = time.perf_counter()
        if self.deadline is not None and now >= self.deadline:
            return "time-limit"
        if self.end is not None and self.search.split_wanted and \
                self.search.nodes_expanded and now >= self.end:
            return "time-limit"
        return None


@contextlib.contextmanager
def _fewer_collections():
    """Python's cyclic garbage collector, run less often during a task: its full passes walk
    the trie and the worker's map entries, hundreds of thousands of objects."""
    thresholds = gc.get_threshold()
    gc.set_threshold(100_000, 50, 100)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


def _forget(search_name):
    """Drop a finished search's cache on this worker."""
    _WORKER_STATE.pop(search_name, None)


def _worker_name():
    try:
        from distributed import get_worker
        return str(get_worker().name)
    except (ImportError, ValueError):
        return "this process"


class InProcess:
    """Runs each task at once in this process, in submission order: tests, and per-task
    timings for a simulated cluster. With ``split``, every task hands back its frontier after
    ``time_slice`` seconds (as when a worker is idle); otherwise each runs to its end.
    ``completed`` lists (worker, seconds, CPU seconds, nodes) of every task, as for
    :class:`OnDask`."""

    n_workers = 1
    failures = ()

    def __init__(self, time_slice=TIME_SLICE, split=False):
        self.time_slice, self.split = time_slice, split
        self.completed = []

    def start(self, dataset, lam, config, engine, best):
        self.name = f"optrules-search-{uuid.uuid4().hex}"
        self.task = (dataset, lam, config, engine)
        self.hub = SearchHub(best)
        self.hub.want_split(self.split)

    def want_split(self, wanted):
        pass

    def submit(self, frontier, best, limits):
        return run_task(*self.task, frontier, best, limits, self.hub, self.name)

    def wait(self, handles, timeout):
        return [(handle, handle) for handle in handles]

    def cancel(self, handles):
        pass

    def shared_best(self):
        return self.hub.best

    def finish(self):
        _forget(self.name)


class OnDask:
    """Runs the tasks on a Dask client's cluster, sharing the incumbent and symmetry-map
    entries through a :class:`~optrules.distributed.cluster.SearchHub` actor. A task lost
    with its worker is run again (Dask retries it); an error of the cluster itself ends the
    search with the status ``"cluster-lost"``."""

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

    def start(self, dataset, lam, config, engine, best):
        self.name = f"optrules-search-{uuid.uuid4().hex}"
        # The actor lives while its future does. Tasks get its address, not the actor: as an
        # argument it would be a dependency, and a task would be cancelled with its worker.
        self.hub_future = self.client.submit(SearchHub, best, actor=True, pure=False)
        self.hub = None                          # until a worker holds it (:meth:`ready`)
        # The compressed data goes with each task (one a worker at a time), not scattered:
        # a restarted worker then needs nothing that the lost one held.
        self.task = (dataset, lam, config, engine)

    def ready(self, budget):
        """Wait for a worker to hold the hub (a cluster may have none yet); the budget's
        stop status if it stops first, else None."""
        while True:
            try:
                self.hub = self.hub_future.result(timeout=0.1)
                return None
            except TimeoutError:
                stop = budget.stop_reason()
                if stop is not None:
                    return stop

    def want_split(self, wanted):
        with contextlib.suppress(Exception):     # a lost hub: the tasks run to their ends
            self.hub.want_split(wanted).result(timeout=HUB_TIMEOUT)

    def submit(self, frontier, best, limits):
        return self.client.submit(run_task, *self.task, frontier, best, limits,
                                  (self.hub._address, self.hub.key), self.name, pure=False,
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

    def finish(self):
        with contextlib.suppress(Exception):      # best effort: the cluster may be gone
            self.client.run(_forget, self.name)
            self.client.cancel(self.hub_future)


class _Coordinator:
    """Deals frontiers out as tasks and merges their results. It has the attributes of a
    search that :func:`~optrules.reference.corels.search_result` reads."""

    def __init__(self, dataset, lam, config, engine, executor):
        self.executor = executor
        start = _engine(dataset, lam, engine)(dataset, lam, config)  # the empty list, prefix
        self.total_weight, self.rule_penalty = start.total_weight, start.rule_penalty
        self.mistake, self.n_antecedents = start.mistake, len(start.antecedents)
        self.best = best_of(start)
        self.frontier = frontier_of(start)     # prefixes not dealt out yet
        self.running = {}                      # task -> the frontier it was given
        self.statistics = collections.Counter()
        self.nodes_by_worker = collections.Counter()
        self.split_wanted = None
        self.certificate = config.certificate
        # The tasks get the search's own options: its limits, progress and budget stay here.
        executor.start(dataset, lam, SearchConfig(config.policy, config.symmetry_map,
                                                  config.bounds), engine, self.best)

    @property
    def best_objective(self):
        return self.best[0][0]

    @property
    def best_rule_list(self):
        antecedents, predictions, default = self.best[1]
        return list(antecedents), list(predictions), default

    def run(self, max_nodes, max_queue, budget, progress):
        """Deal out tasks until every subtree is done or a limit stops the search: (nodes
        expanded, None or the stop status), as ``_BranchAndBound.run``."""
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
                idle = not self.frontier and len(self.running) < self.executor.n_workers
                if idle != self.split_wanted:            # running tasks: hand back frontiers
                    self.executor.want_split(idle)
                    self.split_wanted = idle
                done = self.executor.wait(self.running, timeout=0.1)
            except self.executor.failures:
                return nodes, self._stop("cluster-lost")
            for task, result in done:
                del self.running[task]
                nodes += result.nodes
                self._merge(result)
            if progress is not None:         # throttled by the callback itself
                progress(nodes, self.describe)
        return nodes, None

    def _deal(self, nodes, max_nodes, max_queue, budget):
        """Split the frontier into one task per idle worker, dealing its prefixes round-robin
        in priority order (each task gets good and poor ones). No task waits for a worker:
        it would start from an old frontier whose better permutations the running tasks have
        passed meanwhile (COMPAS λ = 0.01 on 2 workers: 134 k prefixes expanded with two
        tasks a worker, 107 k with one; one process 103 k)."""
        wanted = self.executor.n_workers - len(self.running)
        if not self.frontier or wanted <= 0:
            return
        self.frontier.sort(key=lambda prefix: prefix.priority)
        parts = min(wanted, len(self.frontier))
        time_slice = self.executor.time_slice
        if nodes == 0 and not self.running and time_slice is not None:     # the first task
            time_slice = min(time_slice, FIRST_SLICE)
        # The search's limits, shared: a part's nodes left, and the seconds left; a task
        # whose own queue passes the queue limit hands it back (then the coordinator stops).
        limits = TaskLimits(time_slice, None if max_nodes is None else
                            max(1, -(-(max_nodes - nodes) // parts)), budget.remaining_time(),
                            max_queue, self.certificate is not None)
        for k in range(parts):
            part = self.frontier[k::parts]
            self.running[self.executor.submit(part, self.best, limits)] = part
        self.frontier = []

    def _merge(self, result):
        if result.best[0] < self.best[0]:
            self.best = result.best
        for name, count in result.statistics.items():
            if name == "max_queue_size" or name == "symmetry_map_size":
                self.statistics[name] = max(self.statistics[name], count)
            else:
                self.statistics[name] += count
        self.frontier.extend(result.frontier)
        if result.records is not None:
            count, packed = result.records
            self.certificate.append(zlib.decompress(packed).decode("utf-8"), count)
        self.nodes_by_worker[result.worker] += result.nodes
        self.executor.completed.append((result.worker, result.seconds, result.cpu_seconds,
                                        result.nodes))

    def _stop(self, status):
        """Stop the running tasks; their frontiers count as not searched. A better list
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
        self.running = {}
        return status

    def _queue_length(self):
        return len(self.frontier) + sum(len(part) for part in self.running.values())

    def _queued_bounds(self):
        counts = collections.Counter()
        for prefix in self.frontier + [p for part in self.running.values() for p in part]:
            counts[len(prefix.antecedents), prefix.lower_bound, prefix.minority_bound] += 1
        return counts

    def queue_summary(self):
        """(global lower bound, remaining search space) over the prefixes not searched."""
        return queue_summary(self._queued_bounds(), self.best_objective, self.rule_penalty,
                             self.n_antecedents)

    def final_statistics(self):
        statistics = dict(self.statistics)
        statistics["nodes_by_worker"] = dict(sorted(self.nodes_by_worker.items()))
        statistics["tasks"] = len(self.executor.completed)
        return statistics

    def describe(self, counters_only=False):
        """Progress figures, as ``_BranchAndBound.describe`` (queue: prefixes in tasks and
        waiting), with each worker's expanded prefixes."""
        figures = {"evaluations": self.statistics["lower_bound_evaluations"],
                   "incumbent_updates": self.statistics["incumbent_updates"],
                   "queue_size": self._queue_length(),
                   "map_size": self.statistics["symmetry_map_size"],
                   "nodes_by_worker": dict(sorted(self.nodes_by_worker.items()))}
        if counters_only:
            return figures
        figures.update(bound_figures(self, self._queued_bounds()))
        return figures


def corels(dataset, lam, config, engine, executor):
    """Find a certifiably optimal rule list with ``engine``'s search spread over tasks that
    ``executor`` runs (:class:`OnDask`, or :class:`InProcess`): the same objective and list
    as one process (the first optimal list in the result order), with counters summed over
    the tasks (their peaks: the largest of a task)."""
    start = time.perf_counter()
    coordinator = _Coordinator(compressed(dataset), lam, config, engine, executor)
    try:
        return search_result(coordinator, dataset, lam, config, start)
    finally:
        executor.finish()
