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
import pickle
import time
import typing
from dataclasses import dataclass, replace

from optrules.distributed.tasks import (Coordinator, InMemoryRecords, InProcess, OnDask,
                                        SharedSearch, run_search_task)
from optrules.fast.corels import _INT64_SAFE, _VectorisedBranchAndBound, compressed
from optrules.rule_lists.fit import SearchConfig
from optrules.rule_lists.search_certificate import SearchCertificateWriter
from optrules.reference.corels import (_BranchAndBound, _Node, bound_figures,
                                       queue_summary, search_result)

__all__ = ["corels", "InProcess", "OnDask", "Prefix", "run_task"]

class Prefix(typing.NamedTuple):
    """A queued prefix as a task receives it: antecedents and their rules' predictions, the
    bounds b and b_0 (scaled), the captured weight (curiosity policy) and its queue priority
    without the insertion order. (A tuple: it packs and unpacks as one.)"""

    antecedents: tuple
    predictions: tuple
    lower_bound: int
    minority_bound: int
    n_captured: int
    priority: tuple


class _TaskRecords(InMemoryRecords, SearchCertificateWriter):
    """A task's rule-list search-certificate records, kept in memory."""


def result_order(objective, antecedents):
    """The key of the result order (specs/rule-lists.md §6): the objective, then
    :func:`~optrules.reference.corels.dominance_order` of the antecedents."""
    return (objective, len(antecedents), *antecedents)


def best_of(search):
    """(result order key, (antecedents, predictions, default)) of a search's incumbent."""
    antecedents, predictions, default = search.best_rule_list
    return (result_order(search.best_objective, antecedents),
            (tuple(antecedents), tuple(predictions), default))


def packed(prefixes):
    """Prefixes as one pickled list of plain tuples: a tenth of the time Dask takes to pickle
    and unpickle records (100 000 prefixes: 0.25 s against 1.0 s), which it does twice for
    every prefix of a split queue (worker to coordinator to worker)."""
    return pickle.dumps(list(map(tuple, prefixes)), protocol=pickle.HIGHEST_PROTOCOL)


def unpacked(blob):
    """The :class:`Prefix` records of :func:`packed` prefixes."""
    return list(map(Prefix._make, pickle.loads(blob)))


def frontier_of(search):
    """The live prefixes waiting in a search's queue, as :class:`Prefix` records."""
    paths = {}
    return [_prefix(priority, node, paths) for priority, node in search.queued_nodes()]


def _prefix(priority, node, paths):
    """The :class:`Prefix` record of the queued trie node ``node``. ``paths`` keeps each
    parent's path (antecedents, predictions), made once: siblings share it."""
    parent = node.parent
    if parent is None:                                      # the empty prefix
        antecedents, predictions = (), ()
    else:
        path = paths.get(parent)
        if path is None:
            steps = parent.path()
            path = paths[parent] = (tuple(step.antecedent for step in steps),
                                    tuple(step.prediction for step in steps))
        antecedents, predictions = path[0] + (node.antecedent,), path[1] + (node.prediction,)
    return Prefix(antecedents, predictions, node.lower_bound, node.minority_bound,
                  node.n_captured, priority)


def _subtree_search(base):
    """The search class ``base`` (the fast or the reference engine's) started from a frontier
    of prefixes and a known incumbent instead of the empty prefix and the empty list."""

    class SubtreeSearch(SharedSearch, base):
        def __init__(self, dataset, lam, config, frontier, best, link=None):
            super().__init__(dataset, lam, config)
            self._pop()            # the empty prefix, where a search starts: the frontier instead
            self.statistics["max_queue_size"] = 0
            self.share_through(link)
            # The map holds this task's prefixes (trie nodes) and the other tasks' entries
            # (pairs of ints, :func:`_entries`; the prefixes of the worker's earlier tasks,
            # trie nodes under other roots; and those this task gave away, marked deleted):
            # one lookup serves all. It starts as the map of
            # the worker's last task (the worker's cache, "known"), taken over as it is: made
            # into entries, 500 000 prefixes took 3 s, the time the last part of a search
            # waited for it. ``outbox``: the prefixes this task added to its map since it
            # last shared them.
            if link is not None:
                self.symmetry_map = link.state.pop("known", None) or {}
            self.outbox = []
            self.entry_bits = _entry_bits(len(self.antecedents))
            self.adopt(best)
            self._seed(frontier)

        def _seed(self, frontier):
            """Queue each prefix of ``frontier`` under a trie path like the one it had where
            it was queued (siblings share their parent's, found once)."""
            parents = {(): self.root}
            for prefix in frontier:
                antecedents, predictions = prefix.antecedents, prefix.predictions
                parent = parents.get(antecedents[:-1])
                if parent is None:
                    parent = self.root
                    for antecedent, prediction in zip(antecedents[:-1], predictions):
                        parent = _trie_child(parent, antecedent, prediction)
                        parent.expanded = True    # as its original: upward pruning removes it
                    parents[antecedents[:-1]] = parent
                if antecedents:
                    node = _trie_child(parent, antecedents[-1], predictions[-1])
                    node.lower_bound, node.minority_bound = prefix.lower_bound, \
                        prefix.minority_bound
                    node.n_captured = prefix.n_captured
                else:
                    node = self.root
                self._enqueue(prefix.priority, node)
                node.queued = True
                self.queued_bounds[node.depth, node.lower_bound, node.minority_bound] += 1
            self.statistics["max_queue_size"] = max(self.statistics["max_queue_size"],
                                                    self._queue_length())

        def best_of(self):
            return best_of(self)

        def adopt(self, best):
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
            """The reference engine's map, which also holds the other tasks' entries: one
            that comes before the child removes it as a prefix of this task would (every
            list extending the child has one extending the entry's prefix that comes first
            in the result order). Entries stay valid after their prefix has left its task's
            queue."""
            blocker = super()._symmetry_blocker(child, remaining)
            if blocker is None:
                if child.map_key is not None:
                    self.outbox.append(child)
                return None
            return _Witness(blocker, self.entry_bits) if type(blocker) is tuple else blocker

        def _comes_first(self, known, child):
            if type(known) is tuple:                  # another task's entry
                return _comes_before(known, child, self.entry_bits)
            return base._comes_first(known, child)

        def _evict(self, known, child):
            if self._own(known):                # another task's: nothing to remove here
                super()._evict(known, child)

        def _own(self, known):
            """Whether the map's value ``known`` is a prefix of this task: a trie node under
            its root (not an entry, nor a prefix of the worker's earlier task, nor one it gave
            away: those are marked deleted, and a prefix deleted otherwise leaves the map)."""
            if type(known) is tuple or known.deleted:
                return False
            while known.parent is not None:
                known = known.parent
            return known is self.root

        def receive(self, entries):
            """Symmetry-map entries of other tasks (:func:`_entries`): each that comes before
            this task's prefix of the same key removes that prefix's subtree, as in one
            process."""
            insert = self.symmetry_map.setdefault      # one hash lookup for a new key
            symmetry_map, bits = self.symmetry_map, self.entry_bits
            keys, heads, digits = entries
            for key, entry in zip(keys, zip(heads, digits)):
                known = insert(key, entry)
                if known is entry:
                    continue
                if type(known) is tuple:
                    if entry < known:
                        symmetry_map[key] = entry
                elif _comes_before(entry, known, bits):
                    if self._own(known):
                        self._drop(known, "symmetry", _Witness(entry, bits))
                        self._delete_subtree(known)              # and its key's entry
                    symmetry_map[key] = entry

        def progress_counters(self):
            return {"nodes": self.nodes_expanded,
                    "lower_bound_evaluations": self.statistics["lower_bound_evaluations"]}

        def _update_incumbent(self, child, objective, remaining):
            super()._update_incumbent(child, objective, remaining)
            self.found = True

        def outgoing(self):
            """The map entries of the prefixes added since the last exchange
            (:func:`_entries`; None if there are none or its entries are not shared)."""
            entries = _entries(self.outbox, self.entry_bits) if self.shares_entries else None
            self.outbox = []
            return entries if entries and entries[0] else None

        def finish_sharing(self):
            """The last entries, for the other tasks, and all of this task's for the next
            task on this worker (the hub does not return a worker the batches it sent, and
            its cursor has passed them): the map itself, as it is."""
            super().finish_sharing()
            self.link.state["known"] = self.symmetry_map

        def run_slice(self, limits, budget):
            return self.run(limits.max_nodes, limits.max_queue, budget, self.exchange)

        def frontier(self):
            """The prefixes left, packed. Those that a pop would drop now (a bound at the
            current incumbent, which only falls) are dropped here instead, as the pop would
            (with their certificate records): a queue cut near a search's end is mostly such
            prefixes, and each would be packed, sent and queued again for nothing."""
            left, paths = [], {}
            for priority, node in self.queued_nodes():
                reason = self._extension_pruned_by(node)
                if reason is None:
                    left.append(_prefix(priority, node, paths))
                else:
                    self._drop(node, reason)
            return packed(left)

        donates = True

        def donation(self):
            """Every second queued prefix in pop order (the other tasks get good and poor
            ones), packed with the certificate records written so far (their parents'), or
            None if none would go. Those that a pop would drop stay for the pop to drop. The
            prefixes leave this task's queue and trie, marked deleted; in its map they stay as
            another task's entries (:meth:`_own`: their subtrees are searched there). Only
            the prefixes given are read, each once (specs/distributed.md §4)."""
            given, paths = [], {}
            for priority, node in self.queued_nodes(deleted=True)[1::2]:
                if node.deleted or self._extension_pruned_by(node) is not None:
                    continue
                given.append(_prefix(priority, node, paths))
                node.deleted = True
                self._unqueue(node)
                node.parent.children.pop(node.antecedent, None)
            if not given:
                return None
            return packed(given), None if self.trace is None else self.trace.take()

        def take_back(self, donation):
            """A part of the queue whose call to the hub failed: searched here after all."""
            frontier, records = donation
            if records is not None:
                self.trace.put_back(records)
            self._seed(unpacked(frontier))

    return SubtreeSearch


def _entry_bits(n_antecedents):
    """The bits of an antecedent index, and of a prefix length, in an entry
    (:func:`_entries`)."""
    return n_antecedents.bit_length()


def _entries(nodes, bits):
    """The prefixes still in the map as other tasks hold them, in three lists: their keys,
    and their entries' two ints, heads and digits (flat lists of ints pickle and unpickle in
    a tenth of the time of (b, length, prefix) tuples); each parent's digits are made once.

    An entry (head, digits) has the order of (b, *dominance order), the order of the map's
    ties: the head is b and the prefix length (in its low ``bits`` bits), the digits the
    antecedent indices (``bits`` bits each, the first one highest). Equal heads have equal
    lengths, so their digits, of one width, compare as the prefixes do."""
    parents, keys, heads, digits = {}, [], [], []
    for node in nodes:
        if node.map_key is None or node.deleted:
            continue
        parent = parents.get(node.parent)
        if parent is None:
            parent = parents[node.parent] = _digits(node.parent.prefix(), bits)
        keys.append(node.map_key)
        heads.append(_head(node, bits))
        digits.append(parent << bits | node.antecedent)
    return keys, heads, digits


def _head(node, bits):
    return node.lower_bound << bits | node.depth


def _digits(prefix, bits):
    digits = 0
    for antecedent in prefix:
        digits = digits << bits | antecedent
    return digits


def _comes_before(entry, node, bits):
    """Whether another task's ``entry`` comes before the trie node ``node``'s (the node's
    digits are made only if the heads tie)."""
    head = _head(node, bits)
    return entry[0] < head or entry[0] == head and entry[1] < _digits(node.prefix(), bits)


def _decoded(entry, bits):
    """The antecedents of an entry (:func:`_entries`)."""
    head, digits = entry
    mask = (1 << bits) - 1
    length = head & mask
    return tuple(digits >> bits * (length - 1 - k) & mask for k in range(length))


@dataclass(frozen=True)
class _Witness:
    """Another task's prefix, its entry (:func:`_entries`) with ``bits``, that removes a
    child: it names itself as a trie node does, when a certificate asks."""

    entry: tuple
    bits: int

    def prefix(self):
        return list(_decoded(self.entry, self.bits))


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


def run_task(dataset, lam, config, engine, frontier, best, limits, hub=None,
             search_name=None):
    """One task (:func:`~optrules.distributed.tasks.run_search_task`): search from the
    :func:`packed` prefixes ``frontier`` at incumbent ``best`` within ``limits`` with
    ``engine``'s search; the prefixes left are returned packed. ``dataset`` is compressed
    (:func:`optrules.fast.corels.compressed`)."""
    records = None
    if limits.records:
        records = _TaskRecords(lam.denominator * int(dataset.weights.sum()))
        config = replace(config, certificate=records)

    def search(link):
        return _SUBTREE_SEARCHES[_engine(dataset, lam, engine)](
            dataset, lam, config, unpacked(frontier), best, link)

    return run_search_task(search, limits, hub, search_name, records)


class _Coordinator(Coordinator):
    """The rule-list search's coordinator. It has the attributes of a search that
    :func:`~optrules.reference.corels.search_result` reads."""

    PEAKS = ("max_queue_size", "symmetry_map_size")
    REPORTED_COUNTERS = ("lower_bound_evaluations",)
    pack, unpack = staticmethod(packed), staticmethod(unpacked)

    def __init__(self, dataset, lam, config, engine, executor):
        start = _engine(dataset, lam, engine)(dataset, lam, config)  # the empty list, prefix
        self.total_weight, self.rule_penalty = start.total_weight, start.rule_penalty
        self.mistake, self.n_antecedents = start.mistake, len(start.antecedents)
        # The tasks get the search's own options: its limits, progress and budget stay here.
        options = SearchConfig(config.policy, config.symmetry_map, config.bounds)
        self.start(executor, (run_task, (dataset, lam, options, engine)), best_of(start),
                   frontier_of(start), config.certificate)

    @property
    def best_objective(self):
        return self.best[0][0]

    @property
    def best_rule_list(self):
        antecedents, predictions, default = self.best[1]
        return list(antecedents), list(predictions), default

    def _queued_bounds(self):
        counts = collections.Counter()
        for prefix in self.open_nodes():
            counts[len(prefix.antecedents), prefix.lower_bound, prefix.minority_bound] += 1
        return counts

    def queue_summary(self):
        """(global lower bound, remaining search space) over the prefixes not searched."""
        return queue_summary(self._queued_bounds(), self.best_objective, self.rule_penalty,
                             self.n_antecedents)

    def describe(self, counters_only=False):
        """Progress figures, as ``_BranchAndBound.describe`` (queue: prefixes in tasks and
        waiting), with each worker's expanded prefixes."""
        figures = {"evaluations": self.counted("lower_bound_evaluations"),
                   "incumbent_updates": self.statistics["incumbent_updates"],
                   "queue_size": self._queue_length(),
                   "map_size": self.statistics["symmetry_map_size"],
                   "nodes_by_worker": self.workers_nodes()}
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
