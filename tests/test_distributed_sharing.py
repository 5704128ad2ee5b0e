"""Result-order ties on tie-heavy data, and the distributed rule-list search with tasks that
share symmetry-map entries, limits and faults (from an adversarial review, 2026-11-26); the
executors are in ``distributed_executors``."""

import threading
from fractions import Fraction

from hypothesis import given, settings, strategies as st

from distributed_executors import FreshWorkers, Threads
from optrules.distributed import rule_lists as distributed
from optrules.distributed import tasks
from optrules.fast.corels import _VectorisedBranchAndBound
from optrules.rule_lists.fit import (BOUNDS, POLICIES, SYMMETRY_MAPS, SearchConfig,
                                     _finish_certificate, _with_sound_minority, fit_rule_list)
from optrules.rule_lists.search_certificate import SearchCertificateWriter
from optrules.verify.search_certificate import check_search_certificate
from optrules.verify.instances import RuleListInstance
from optrules.verify.oracle import optimal_rule_list
from optrules.verify.rescore import rescore_rule_list
from test_rule_list_search import rule_list_instances


def rules(result):
    return [(rule.antecedent, rule.prediction) for rule in result.rule_list.rules], \
        result.rule_list.default


def _check(data, lam, executor, policy, symmetry_map, disabled, engine):
    options = dict(policy=policy, symmetry_map=symmetry_map, disabled_bounds=disabled)
    one = fit_rule_list(data, lam, engine=engine, **options)
    config = SearchConfig(policy=policy, symmetry_map=symmetry_map,
                          bounds=frozenset(BOUNDS) - disabled)
    searched = _with_sound_minority(data) if "equivalent_points" not in disabled else data
    result = distributed.corels(searched, one.lam, config, engine, executor)
    optimum, _ = optimal_rule_list(RuleListInstance.from_dataset(data, one.lam))
    assert result.status == "optimal" and result.lower_bound == result.objective == optimum
    assert rescore_rule_list(RuleListInstance.from_dataset(data, one.lam), result.rule_list,
                             data.classes).objective == result.objective
    assert (result.objective, rules(result)) == (one.objective, rules(one))
    return result


CONFIGS = (st.sampled_from(POLICIES), st.sampled_from(SYMMETRY_MAPS),
           st.sets(st.sampled_from(sorted(BOUNDS)), max_size=2),
           st.sampled_from(["fast", "reference"]))


@given(rule_list_instances(), *CONFIGS)
def test_tasks_on_fresh_workers_share_entries_and_find_the_one_process_list(
        instance, policy, symmetry_map, disabled, engine):
    data, lam = instance
    _check(data, lam, FreshWorkers(time_slice=0, split=True), policy, symmetry_map, disabled,
           engine)


@settings(max_examples=40)
@given(rule_list_instances(), *CONFIGS)
def test_concurrent_tasks_find_the_one_process_list(instance, policy, symmetry_map, disabled,
                                                    engine):
    data, lam = instance
    interval = tasks.EXCHANGE_INTERVAL
    tasks.EXCHANGE_INTERVAL = 0                  # exchange after every node: entries and
    try:                                         # incumbents arrive mid-search
        _check(data, lam, Threads(time_slice=0.001), policy, symmetry_map, disabled, engine)
    finally:
        tasks.EXCHANGE_INTERVAL = interval


# ----- ties everywhere ----------------------------------------------------------------------

import numpy as np  # noqa: E402

from optrules.data.binary_dataset import BinaryDataset  # noqa: E402


@st.composite
def tie_instances(draw):
    """Few samples, antecedents drawn from a handful of columns (duplicates, complements,
    empty and full columns), zero weights, up to 4 classes, λ a multiple of 1/N: many
    optimal lists tie."""
    n_samples = draw(st.integers(1, 10))
    n_antecedents = draw(st.integers(1, 7))
    pool = [np.zeros(n_samples, bool), np.ones(n_samples, bool)] + [
        np.array(draw(st.lists(st.booleans(), min_size=n_samples, max_size=n_samples)))
        for _ in range(draw(st.integers(1, 3)))]
    pool += [~column for column in pool[2:]]
    bits = np.array([pool[draw(st.integers(0, len(pool) - 1))]
                     for _ in range(n_antecedents)])
    n_classes = draw(st.sampled_from([2, 2, 3, 4]))
    labels = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n_samples,
                                    max_size=n_samples)))
    weights = None
    if draw(st.booleans()):
        weights = draw(st.lists(st.integers(0, 3), min_size=n_samples, max_size=n_samples))
        if not any(weights):
            weights[0] = 1
    total = n_samples if weights is None else sum(weights)
    lam = Fraction(draw(st.integers(1, max(1, total // 2))), draw(st.sampled_from([1, 2, 3]))
                   * total)
    if lam >= 1:
        lam = Fraction(1, 2)
    classes = ("neg", "pos") if n_classes == 2 else tuple(f"c{c}" for c in range(n_classes))
    return BinaryDataset.from_bits([f"a{m}" for m in range(n_antecedents)], bits, labels,
                                   classes=classes, sample_weight=weights), lam


def _indices(result, data):
    return tuple(data.antecedent_names.index(rule.antecedent)
                 for rule in result.rule_list.rules)


@given(tie_instances(), *CONFIGS[:3])
def test_ties_first_list_every_engine_and_switch(instance, policy, symmetry_map, disabled):
    data, lam = instance
    optimum, first = optimal_rule_list(RuleListInstance.from_dataset(data, lam))
    results = [fit_rule_list(data, lam, engine=engine, policy=policy, symmetry_map=symmetry_map,
                             disabled_bounds=disabled) for engine in ("fast", "reference")]
    for result in results:
        assert (result.status, result.objective, _indices(result, data)) == \
            ("optimal", optimum, first)
    fast, reference = results
    assert fast.statistics == reference.statistics
    assert fast.nodes_expanded == reference.nodes_expanded


@given(tie_instances(), *CONFIGS[:3], st.none() | st.integers(1, 6),
       st.none() | st.integers(1, 8))
def test_ties_fast_engine_counters_under_limits(instance, policy, symmetry_map, disabled,
                                                max_nodes, max_queue):
    data, lam = instance
    options = dict(policy=policy, symmetry_map=symmetry_map, disabled_bounds=disabled,
                   max_nodes=max_nodes, max_queue=max_queue)
    fast, reference = (fit_rule_list(data, lam, engine=engine, **options)
                       for engine in ("fast", "reference"))
    assert (_indices(fast, data), fast.objective, fast.lower_bound, fast.status,
            fast.nodes_expanded, fast.remaining_search_space, fast.statistics) == \
        (_indices(reference, data), reference.objective, reference.lower_bound,
         reference.status, reference.nodes_expanded, reference.remaining_search_space,
         reference.statistics)


@given(tie_instances(), *CONFIGS)
def test_ties_distributed_first_list(instance, policy, symmetry_map, disabled, engine):
    data, lam = instance
    result = _check(data, lam, FreshWorkers(time_slice=0, split=True), policy, symmetry_map,
                    disabled, engine)
    assert _indices(result, data) == optimal_rule_list(
        RuleListInstance.from_dataset(data, result.lam))[1]


# ----- limits and parameters of a distributed search ----------------------------------------

def _medium():
    rng = np.random.default_rng(3)
    return BinaryDataset.from_bits([f"a{m}" for m in range(14)], rng.random((14, 200)) < 0.4,
                                   rng.random(200) < 0.45), Fraction(1, 100)


def test_max_queue_stops_a_task_that_is_not_split():
    """One worker (no idle worker, so no split): the task's own queue must honour max_queue,
    as in one process (there: "queue-limit" after 5 nodes, 59 queued)."""
    data, lam = _medium()
    one = fit_rule_list(data, lam, max_queue=50)
    assert one.status == "queue-limit"
    result = distributed.corels(_with_sound_minority(data), lam, SearchConfig(max_queue=50),
                                "fast", distributed.InProcess())
    assert result.status == "queue-limit"
    assert result.statistics["max_queue_size"] <= 50 + data.n_antecedents   # one expansion
    optimum = fit_rule_list(data, lam).objective
    assert result.lower_bound <= optimum <= result.objective


def test_a_bad_scheduler_address_names_the_parameter():
    data, lam = tiny()
    try:
        fit_rule_list(data, lam, scheduler="not an address")
    except ValueError as error:
        assert "scheduler" in str(error), str(error)
    else:
        raise AssertionError("no error")


def tiny():
    return BinaryDataset.from_bits(["a", "b"], [[1, 1, 0, 0], [0, 1, 1, 0]], [1, 1, 0, 0]), \
        "1/10"


def test_a_time_limit_holds_on_a_cluster_without_workers():
    """A scheduler with no worker (yet): the search must still stop at its time limit (it
    waits forever for the hub actor in OnDask.start)."""
    import logging
    from distributed import LocalCluster
    data, lam = tiny()
    outcome = []
    with LocalCluster(n_workers=0, processes=False, dashboard_address=":0",
                      silence_logs=logging.CRITICAL) as cluster:
        thread = threading.Thread(target=lambda: outcome.append(fit_rule_list(
            data, lam, scheduler=cluster.scheduler_address, time_limit=1)), daemon=True)
        thread.start()
        thread.join(20)
        hung = thread.is_alive()
    assert not hung, "fit_rule_list(scheduler=..., time_limit=1) still running after 20 s"
    assert outcome and outcome[0].status == "time-limit"


def test_a_workers_next_task_knows_its_earlier_tasks_entries(monkeypatch, tmp_path):
    """InProcess is one worker: every task after the first should prune with the map entries
    of the earlier ones (the hub's cursor passes a worker's own batches, so only the worker's
    cache can keep them); the one-process list is unchanged, and the certificate, whose
    witnesses these entries name, is accepted."""
    data, lam = _medium()
    data = _with_sound_minority(data)
    witnesses = []
    search = distributed._SUBTREE_SEARCHES[_VectorisedBranchAndBound]
    original = search._symmetry_blocker

    def symmetry_blocker(self, child, remaining):     # witnesses that are not this task's
        blocker = original(self, child, remaining)
        if blocker is not None and (type(blocker) is distributed._Witness or
                                    not self._own(blocker)):
            witnesses.append(blocker)
        return blocker

    monkeypatch.setattr(search, "_symmetry_blocker", symmetry_blocker)
    path = tmp_path / "search.jsonl.gz"
    config = SearchConfig(certificate=SearchCertificateWriter(path, lam.denominator * data.n_samples))
    result = distributed.corels(data, lam, config, "fast",
                                distributed.InProcess(time_slice=0, split=True))
    one = fit_rule_list(data, lam)
    assert (result.objective, rules(result)) == (one.objective, rules(one))
    assert witnesses
    _finish_certificate(config, data, result, "fast")
    report = check_search_certificate(path, RuleListInstance.from_dataset(data, lam),
                                      data.classes)
    assert report.accepted, report


def test_a_task_removes_only_its_own_prefixes(monkeypatch):
    """A task's map starts as the map of the worker's last task, with that task's prefixes
    in it: a child or a received entry that comes first replaces such a prefix in the map but
    never removes it (it is not in this task's trie or queue)."""
    data, lam = _medium()
    search = distributed._SUBTREE_SEARCHES[_VectorisedBranchAndBound]
    deleted, seen, original_delete, original_own = [], [], search._delete_subtree, search._own

    def root_of(node):
        while node.parent is not None:
            node = node.parent
        return node

    def delete_subtree(self, node):
        deleted.append(root_of(node) is self.root)
        original_delete(self, node)

    def own(self, known):
        if type(known) is not tuple:
            seen.append(root_of(known) is self.root)
        return original_own(self, known)

    monkeypatch.setattr(search, "_delete_subtree", delete_subtree)
    monkeypatch.setattr(search, "_own", own)
    monkeypatch.setattr(search, "donates", False)    # many tasks, each after the last
    result = distributed.corels(_with_sound_minority(data), lam, SearchConfig(), "fast",
                                distributed.InProcess(time_slice=0, split=True))
    one = fit_rule_list(data, lam)
    assert (result.objective, rules(result)) == (one.objective, rules(one))
    assert not all(seen)              # prefixes of earlier tasks met a child or an entry
    assert all(deleted)


def test_a_task_never_removes_the_prefixes_it_gave_away(monkeypatch):
    """Prefixes given away (every second queued one, at every chance: InProcess splits after
    every prefix) stay in their task's map, marked deleted, as another task's entries: a child
    or a received entry that comes first replaces them there but never removes them again
    (their subtrees are searched where they went)."""
    data, lam = _medium()
    search = distributed._SUBTREE_SEARCHES[_VectorisedBranchAndBound]
    given, removed, met = [], [], []
    original_donation, original_delete, original_own = search.donation, \
        search._delete_subtree, search._own

    def donation(self):
        part = original_donation(self)
        given.extend(node for node in self.symmetry_map.values()
                     if type(node) is not tuple and node.deleted)
        return part

    def delete_subtree(self, node):
        removed.append(node.deleted)
        original_delete(self, node)

    def own(self, known):
        met.append(type(known) is not tuple and known.deleted)
        return original_own(self, known)

    monkeypatch.setattr(search, "donation", donation)
    monkeypatch.setattr(search, "_delete_subtree", delete_subtree)
    monkeypatch.setattr(search, "_own", own)
    result = distributed.corels(_with_sound_minority(data), lam, SearchConfig(), "fast",
                                distributed.InProcess(time_slice=0, split=True))
    one = fit_rule_list(data, lam)
    assert (result.objective, rules(result)) == (one.objective, rules(one))
    assert given and any(met)         # given prefixes met a child or an entry of their key
    assert not any(removed)


def test_entries_go_to_the_hub_only_where_another_worker_reads_them():
    """One worker (InProcess): the tasks send no entries (the worker's cache has them);
    tasks as on fresh workers send theirs."""
    data, lam = _medium()
    for executor, sent in ((distributed.InProcess(time_slice=0, split=True), False),
                           (FreshWorkers(time_slice=0, split=True), True)):
        distributed.corels(_with_sound_minority(data), lam, SearchConfig(), "fast", executor)
        assert bool(executor.hub.batches) == sent


@given(rule_list_instances(), *CONFIGS, st.none() | st.integers(1, 12),
       st.none() | st.integers(1, 20))
def test_limits_keep_an_exact_gap_with_shared_entries(instance, policy, symmetry_map,
                                                      disabled, engine, max_nodes, max_queue):
    data, lam = instance
    config = SearchConfig(policy=policy, symmetry_map=symmetry_map,
                          bounds=frozenset(BOUNDS) - disabled, max_nodes=max_nodes,
                          max_queue=max_queue)
    searched = _with_sound_minority(data) if "equivalent_points" not in disabled else data
    result = distributed.corels(searched, Fraction(lam), config, engine,
                                FreshWorkers(time_slice=0, split=True))
    instance = RuleListInstance.from_dataset(data, result.lam)
    optimum, first = optimal_rule_list(instance)
    assert result.lower_bound <= optimum <= result.objective == rescore_rule_list(
        instance, result.rule_list, data.classes).objective
    if result.status == "optimal":
        assert result.objective == result.lower_bound == optimum
        assert _indices(result, data) == first
    else:
        assert result.status in ("node-limit", "queue-limit")
        assert result.remaining_search_space > 0 or result.lower_bound == result.objective


_CTRL_C_SCRIPT = """
import os, signal, sys, time
from optrules.data.corels_files import load_corels
from optrules.rule_lists.fit import fit_rule_list
if __name__ == "__main__":
    d = sys.argv[1]
    data = load_corels(d + "/compas_train.out", d + "/compas_train.label",
                       d + "/compas_train.minor")
    sent = []
    def ctrl_c(nodes, describe):
        if not sent and nodes > 0:
            sent.append(time.perf_counter())
            os.killpg(os.getpgid(0), signal.SIGINT)        # as a terminal's Ctrl-C
    result = fit_rule_list(data, "0.01", n_workers=2, progress=ctrl_c)
    print(result.status, result.lower_bound <= result.objective,
          time.perf_counter() - sent[0])
"""


def test_ctrl_c_in_the_terminal_stops_a_local_cluster_search_at_once(tmp_path, compas_dir):
    """A terminal's Ctrl-C reaches the workers too (one process group): they died with
    KeyboardInterrupt tracebacks, and the stop waited HUB_TIMEOUT (10 s) for the lost hub."""
    import subprocess
    import sys
    script = tmp_path / "ctrl_c.py"
    script.write_text(_CTRL_C_SCRIPT)
    run = subprocess.run([sys.executable, str(script), str(compas_dir)], capture_output=True,
                         text=True, timeout=300, start_new_session=True)
    status, valid, seconds = run.stdout.split()
    assert (status, valid) == ("interrupted", "True")
    assert float(seconds) < 5, seconds
    assert "KeyboardInterrupt" not in run.stderr


def test_a_cut_task_drops_what_a_pop_would_drop_before_handing_its_queue_back(monkeypatch):
    """Tasks cut after every prefix: the prefixes of a cut queue that a bound at the current
    incumbent rejects are dropped by the task (as its pop would), never handed on; the answer
    is the one-process list."""
    data, lam = _medium()
    search = distributed._SUBTREE_SEARCHES[_VectorisedBranchAndBound]
    handed_on, dropped = [], []
    original_frontier, original_drop = search.frontier, search._drop

    def frontier(self):
        packed = original_frontier(self)
        handed_on.extend((self, prefix) for prefix in distributed.unpacked(packed))
        return packed

    def drop(self, node, reason, witness=None):
        dropped.append(reason)
        original_drop(self, node, reason, witness)

    monkeypatch.setattr(search, "frontier", frontier)
    monkeypatch.setattr(search, "_drop", drop)
    monkeypatch.setattr(search, "donates", False)          # hand the whole queue back
    result = distributed.corels(_with_sound_minority(data), lam, SearchConfig(), "fast",
                                distributed.InProcess(time_slice=0, split=True))
    one = fit_rule_list(data, lam)
    assert (result.objective, rules(result)) == (one.objective, rules(one))
    assert handed_on and {"lookahead", "lower_bound"} & set(dropped)
    for task, prefix in handed_on:         # none that its task's bounds reject at its end
        bound = prefix.lower_bound + prefix.minority_bound
        assert not task._no_list_first(bound + task.rule_penalty, lambda: list(
            prefix.antecedents), len(prefix.antecedents) + 1)
        assert bound < task.best_objective


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 300).flatmap(lambda n: st.tuples(
    st.just(n), *[st.tuples(st.integers(0, 2 ** 70), st.lists(
        st.integers(0, n - 1), min_size=1, max_size=min(n, 8), unique=True))] * 2)))
def test_a_sent_entry_orders_and_names_its_prefix_as_the_prefix_does(instance):
    """Another task's entry (two ints) compares with another entry as (b, *dominance order)
    does, the order of the map's ties (prefixes of any lengths: the captured map's keys hold
    several), and decodes to its prefix (the witness of the prune)."""
    from optrules.reference.corels import _Node, dominance_order
    n, *prefixes = instance
    bits = distributed._entry_bits(n)
    entries = []
    for bound, antecedents in prefixes:
        node = _Node(None, None, 0, 0, 0, 0)
        for antecedent in antecedents:
            node = _Node(antecedent, node, bound, 0, 0, 0)
        [key], [head], [digits] = distributed._entries([_Mapped(node)], bits)
        entry = head, digits
        assert key == "key" and distributed._decoded(entry, bits) == tuple(antecedents)
        entries.append((entry, (bound, *dominance_order(antecedents)), node))
    (first, first_order, _), (second, second_order, node) = entries
    assert distributed._comes_before(first, node, bits) == (first_order < second_order)
    assert (first < second, first == second) == (first_order < second_order,
                                                 first_order == second_order)


class _Mapped:
    """A trie node with a map key, as :func:`distributed._entries` reads it."""

    def __init__(self, node):
        self.node, self.map_key, self.deleted = node, "key", False

    def __getattr__(self, name):
        return getattr(self.node, name)


def test_a_worker_keeps_the_collector_thresholds_of_a_search_until_its_end(monkeypatch):
    """The collector's thresholds come back when the search ends (the worker forgets it),
    not at each task's end: restoring them there made the next young collection walk all that
    the task left (0.49 s at the end of a part of COMPAS λ = 0.005, while the other worker
    waited for it)."""
    import gc
    from optrules.garbage_collection import SEARCH_THRESHOLDS
    data, lam = _medium()
    data = _with_sound_minority(data)
    executor, seen = distributed.InProcess(time_slice=0, split=True), []
    forget = executor.finish
    monkeypatch.setattr(executor, "finish", lambda: (seen.append(gc.get_threshold()), forget()))
    before = gc.get_threshold()
    assert before != SEARCH_THRESHOLDS
    result = distributed.corels(data, lam, SearchConfig(), "fast", executor)
    assert len(executor.completed) > 1 and result.status == "optimal"
    assert seen == [SEARCH_THRESHOLDS] and gc.get_threshold() == before


def test_a_task_that_starts_after_its_search_was_forgotten_leaves_nothing_behind():
    """A task that Dask could not cancel may start after the coordinator had the workers
    forget its search (a stop): it neither keeps its map for a next task nor holds the
    collector's thresholds (found by review: they stayed raised for the worker's life)."""
    import gc
    from optrules.distributed.cluster import SearchHub
    from optrules.fast.corels import compressed
    from optrules.garbage_collection import SEARCH_THRESHOLDS
    data, lam = _medium()
    dataset = compressed(_with_sound_minority(data))
    start = _VectorisedBranchAndBound(dataset, lam, SearchConfig())
    best, name = distributed.best_of(start), "a search stopped before this task began"
    before = gc.get_threshold()
    assert before != SEARCH_THRESHOLDS
    tasks._forget(name)
    result = distributed.run_task(dataset, lam, SearchConfig(), "fast",
                                  distributed.packed(distributed.frontier_of(start)), best,
                                  tasks.TaskLimits(None), SearchHub(best), name)
    assert result.nodes > 0 and result.frontier == []
    assert gc.get_threshold() == before and name not in tasks._WORKER_STATE
