"""The optimal boosting-rule search (Algorithm 1 of Boley et al. 2021) with its boundary spread
over a Dask cluster (specs/distributed.md).

A task runs the fast engine's search (:mod:`optrules.fast.rule_boosting`) from a list of open
query nodes, its *frontier*, for a bounded time slice, reading the shared incumbent between
expansions and offering its own improvements. It returns its best query, its counters and what
is left of its boundary. The coordinator deals the returned frontiers out as new tasks until
none is left: then every query was evaluated or removed by a bound that holds at the final
incumbent, as in one process, and the result order of specs/rule-boosting.md §10 makes the
returned query the one-process query.

Examples
--------
On a cluster, ``fit_rule(problem, n_workers=2)``; here every task runs in this process:

>>> from optrules.rule_boosting.fit import BaseLearnerConfig
>>> from optrules.rule_boosting.gradient_problem import GradientProblem
>>> from optrules.distributed.tasks import InProcess
>>> problem = GradientProblem.from_values([[1, 1, 0, 0], [0, 1, 1, 0]], ["p0", "p1"],
...                                       [-1, -1, 1, 1], [1, 1, 1, 1], 1)
>>> result = optimal_rule(problem, BaseLearnerConfig(), InProcess(time_slice=0, split=True))
>>> result.conditions, result.objective, result.status
(('p0',), Fraction(1, 6), 'optimal')
"""

import pickle
import time
from dataclasses import replace

import numpy as np

from optrules.blas import single_blas_thread
from optrules.distributed.tasks import (Coordinator, InMemoryRecords, SharedSearch,
                                        run_search_task, worker_cache)
from optrules.fast.rule_boosting import _floats_are_safe, _Node, _Search
from optrules.limits import Budget
from optrules.reference.rule_boosting import optimal_rule as reference_optimal_rule
from optrules.reference.rule_boosting import result_order
from optrules.rule_boosting.search_certificate import RuleSearchCertificateWriter

__all__ = ["optimal_rule", "run_task"]


#: How many received nodes are grouped in one call (array operations cost mostly per call;
#: the arrays of a call are as wide as its widest node).
_GROUPED_AT_ONCE = 64


class _TaskRecords(InMemoryRecords, RuleSearchCertificateWriter):
    """A task's boosting-rule search-certificate records, kept in memory."""


def packed(nodes):
    """Open nodes as one pickled blob of a few arrays (siblings share their parent's list
    arrays, sent once). Dask would send every array of every node as a frame of its own:
    56 000 nodes of noisy parity d = 6 made 450 000 frames and took 10 s to pickle and
    unpickle, a few arrays 1 s."""
    lists = {}                          # id of a list's arrays -> (its place, the arrays)
    for node in nodes:
        lists.setdefault(id(node.augment), (len(lists), (node.augment, node.bounds,
                                                         node.critical)))
    stacked = lambda name: np.stack([getattr(node, name) for node in nodes]) if nodes else \
        np.zeros((0, 0))
    return pickle.dumps({
        "query": [node.query for node in nodes], "words": stacked("words"),
        "parent_words": stacked("parent_words"), "usable": stacked("usable"),
        "parent_usable": stacked("parent_usable"),
        "bound": np.array([node.bound for node in nodes]),
        "key": [node.key for node in nodes],
        "lists": [arrays for _, arrays in lists.values()],
        "list_of": [lists[id(node.augment)][0] for node in nodes],
        "exact_bound": [node.exact_bound for node in nodes],
        "exact_bounds": [node.exact_bounds for node in nodes]},
        protocol=pickle.HIGHEST_PROTOCOL)


def unpacked(blob):
    """The open nodes of :func:`packed` nodes (without their groups)."""
    fields = pickle.loads(blob)
    nodes = []
    for i, query in enumerate(fields["query"]):
        node = _Node(query, fields["words"][i], float(fields["bound"][i]), fields["key"][i],
                     *fields["lists"][fields["list_of"][i]], fields["parent_words"][i],
                     fields["usable"][i], fields["parent_usable"][i], None)
        node.exact_bound, node.exact_bounds = fields["exact_bound"][i], fields["exact_bounds"][i]
        nodes.append(node)
    return nodes


def best_of(search):
    """(result order key, (query, extent)) of a search's incumbent q*: the key is -obj(q*)
    (scaled), then :func:`~optrules.reference.rule_boosting.result_order` of q*."""
    return (-search.best, *result_order(search.best_query)), \
        (search.best_query, search.best_extent)


class _SubtreeSearch(SharedSearch, _Search):
    """The fast engine's search started from a frontier of open nodes and a known incumbent
    instead of the root and ⊤."""

    def __init__(self, problem, config, frontier, best, link=None, prepared=None):
        super().__init__(problem, config, prepared)
        self.share_through(link)
        self.adopt(best)
        for low in range(0, len(frontier), _GROUPED_AT_ONCE):
            self.group(*frontier[low:low + _GROUPED_AT_ONCE])
        for node in frontier:
            self._push(node)

    def best_of(self):
        return best_of(self)

    def adopt(self, best):
        """Take ``best`` as q* if it comes first (a larger obj, or equal and first in the
        result order); an evaluation made ahead at the old q* is then kept only where it
        still holds (specs/rule-boosting.md §16)."""
        order, (query, extent) = best
        if order < best_of(self)[0]:
            self._set_best(-order[0])
            self.best_query, self.best_extent = query, extent

    def _improve(self, query, words, objective):
        super()._improve(query, words, objective)
        self.found = True

    def run_slice(self, limits, budget):
        stop = self.search(limits.max_nodes, budget, self.exchange)
        return self.statistics["nodes"], stop

    def final_statistics(self):
        return dict(self.statistics)

    def frontier(self):
        """The open nodes, :func:`packed` (their groups and evaluations are made again where
        they go)."""
        return packed([entry[2] for entry in self.heap])


def run_task(problem, config, frontier, best, limits, hub=None, search_name=None):
    """One task (:func:`~optrules.distributed.tasks.run_search_task`): search from the
    :func:`packed` open nodes ``frontier`` at incumbent ``best`` within ``limits``; the nodes
    left are returned packed."""
    records = None
    if limits.records:
        records = _TaskRecords(2 * problem.n_samples * problem.scale)
        config = replace(config, certificate=records)

    def search(link):
        # the problem ranked and in floats, made once a worker (a cluster's tasks are many)
        cache = worker_cache(search_name)
        if "prepared" not in cache:
            cache["prepared"] = _Search.prepare(problem)
        return _SubtreeSearch(problem, config, unpacked(frontier), best, link,
                              cache["prepared"])

    with np.errstate(divide="ignore", invalid="ignore"):
        return run_search_task(search, limits, hub, search_name, records)


class _Coordinator(Coordinator):
    """The boosting-rule search's coordinator: the root is the first frontier; the result is
    read off a local search (the problem's data) given the merged incumbent and counters."""

    pack, unpack = staticmethod(packed), staticmethod(unpacked)
    REPORTED_COUNTERS = ("nodes",)

    def __init__(self, problem, config, executor):
        self.search = _Search(problem, config)
        # The tasks get the search's own options: its limits, progress and budget stay here.
        options = replace(config, max_nodes=None, budget=Budget(), progress=None,
                          certificate=None)
        self.start(executor, (run_task, (problem, options)), best_of(self.search),
                   [self.search.root()], config.certificate)

    def result(self, stop, start):
        search = self.search
        search.best_query, search.best_extent = self.best[1]
        search._set_best(-self.best[0][0])
        # the summed counters of one search (a model file holds those only; the workers'
        # counts are in the progress figures)
        search.statistics = {name: self.statistics[name] for name in search.statistics}
        return search.result(stop, start, self.open_nodes())

    def describe(self):
        """Progress figures (obj(q*), the largest open bound, the boundary in tasks and
        waiting), with each worker's expanded nodes."""
        n_samples, scale = self.search.problem.n_samples, self.search.problem.scale
        bounds = [node.bound for node in self.open_nodes()]       # floats, over S
        objective = float(-self.best[0][0] / (2 * n_samples * scale))
        return {"objective": objective,
                "upper_bound": max([objective] + [bound / (2 * n_samples) for bound in bounds]),
                "boundary": len(bounds),
                "nodes_by_worker": self.workers_nodes()}


def optimal_rule(problem, config, executor):
    """Algorithm 1 with the fast engine's search spread over tasks that ``executor`` runs
    (:class:`~optrules.distributed.tasks.OnDask`, or
    :class:`~optrules.distributed.tasks.InProcess`): the same query, objective and status as
    one process (α = 1: the first optimal query in the result order), with counters summed
    over the tasks. Outside the fast engine's float range, the reference engine runs here."""
    if not _floats_are_safe(problem, config.alpha):
        return reference_optimal_rule(problem, config)
    start = time.perf_counter()
    with single_blas_thread(), np.errstate(divide="ignore", invalid="ignore"):
        coordinator = _Coordinator(problem, config, executor)
        try:
            _, stop = coordinator.run(config.max_nodes, None, config.budget, config.progress)
            return coordinator.result(stop, start)
        finally:
            executor.finish()
