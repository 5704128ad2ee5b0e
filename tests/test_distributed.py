"""Distributed rule-list search (specs/distributed.md): the same optimum and the same rule list
as one process, with tasks cut after every prefix (or giving half their queues away after
every prefix) in this process, and on a local Dask cluster of two processes, also when a worker
is killed mid-run or the cluster dies."""

import contextlib
import json
import os
import signal
import threading
import warnings
from dataclasses import replace
from fractions import Fraction
from unittest import mock

import pytest
from distributed import Client
from hypothesis import given, settings, strategies as st

from distributed_executors import Threads, doomed_cluster
from optrules.data.binary_dataset import BinaryDataset
from optrules.data.corels_files import load_corels
from optrules.distributed import rule_lists as distributed
from optrules.distributed.cluster import SearchHub
from optrules.distributed.tasks import SharedSearch
from optrules.rule_lists.fit import (BOUNDS, POLICIES, SYMMETRY_MAPS, SearchConfig,
                                     _finish_certificate, _with_sound_minority, fit_rule_list)
from optrules.rule_lists.search_certificate import SearchCertificateWriter
from optrules.verify.search_certificate import check_search_certificate
from optrules.verify.instances import RuleListInstance
from optrules.verify.oracle import optimal_rule_list
from optrules.verify.rescore import rescore_rule_list
from test_rule_list_search import rule_list_instances


def rules(result):
    """A result's list as (antecedent, prediction) pairs and the default."""
    return [(rule.antecedent, rule.prediction) for rule in result.rule_list.rules], \
        result.rule_list.default


def rescored(data, result):
    return rescore_rule_list(RuleListInstance.from_dataset(data, result.lam), result.rule_list,
                             data.classes).objective


def cut_not_donate(donates):
    """Tasks asked for a split hand their whole queue back and end, as a search that cannot
    give part of it away does (``donates`` False), or give half of it away (True)."""
    return contextlib.nullcontext() if donates else \
        mock.patch.object(SharedSearch, "can_donate", lambda self: False)


@pytest.mark.parametrize("donates", [False, True])
@given(rule_list_instances(), st.sampled_from(POLICIES), st.sampled_from(SYMMETRY_MAPS),
       st.sets(st.sampled_from(sorted(BOUNDS)), max_size=2), st.sampled_from(["fast",
                                                                              "reference"]))
def test_tasks_split_after_every_prefix_find_the_one_process_list(
        donates, instance, policy, symmetry_map, disabled, engine):
    """Each task expands one prefix and hands its queue back, or gives half of its queue
    away after every prefix and searches on: every prefix given is seeded into a new task,
    with the incumbent and symmetry entries of the others."""
    data, lam = instance
    options = dict(policy=policy, symmetry_map=symmetry_map, disabled_bounds=disabled)
    one = fit_rule_list(data, lam, engine=engine, **options)
    config = SearchConfig(policy=policy, symmetry_map=symmetry_map,
                          bounds=frozenset(BOUNDS) - disabled)
    data = _with_sound_minority(data) if "equivalent_points" not in disabled else data
    executor = distributed.InProcess(time_slice=0, split=True)
    with cut_not_donate(donates):
        result = distributed.corels(data, one.lam, config, engine, executor)
    assert result.status == "optimal" and result.lower_bound == result.objective
    assert (result.objective, rules(result)) == (one.objective, rules(one))
    assert rescored(data, result) == result.objective
    assert result.statistics["tasks"] == len(executor.completed)
    if donates:           # every task but the first was given parts (one worker: all at once)
        assert len(executor.completed) <= 1 + result.statistics["donations"]
    else:
        assert all(nodes <= 1 for *_, nodes in executor.completed)
        assert len(executor.completed) >= result.nodes_expanded
        assert result.statistics["donations"] == 0


def test_tasks_give_half_their_queues_away_and_search_on(compas):
    """COMPAS at λ = 0.04 with every task giving half its queue away after every prefix:
    many parts given, tasks expanding several prefixes, and the one-process list."""
    data, lam = compas, Fraction(1, 25)
    one = fit_rule_list(data, lam)
    executor = distributed.InProcess(time_slice=0, split=True)
    result = distributed.corels(_with_sound_minority(data), lam, SearchConfig(), "fast",
                                executor)
    assert (result.status, result.objective, rules(result)) == \
        ("optimal", one.objective, rules(one))
    assert result.statistics["donations"] >= 10
    assert max(nodes for *_, nodes in executor.completed) >= 2


class _Unreachable(SearchHub):
    """A hub whose calls that carry part of a queue fail (its worker lost on the way)."""

    def exchange(self, origin, offer, batch, cursor, donation=None, report=None):
        if donation is not None:
            raise ConnectionError("the hub's worker is gone")
        return super().exchange(origin, offer, batch, cursor, report=report)


class _HubFailsOnDonations(distributed.InProcess):
    def start(self, task, best):
        super().start(task, best)
        self.hub = _Unreachable(best)
        self.hub.want_split(float("inf"))


class _LosesDonations(distributed.InProcess):
    """The hub takes the parts given, and is then lost before the coordinator gets them."""

    def take_donations(self):
        self.hub.take_donations()
        return [], 0


@pytest.mark.parametrize("certificate", [False, True])
def test_a_part_whose_call_fails_is_searched_by_its_task(compas, tmp_path, certificate):
    """A task whose call giving part of its queue away fails searches that part itself,
    with its records back in place: the one-process list, and an accepted certificate."""
    data, lam = _with_sound_minority(compas), Fraction(1, 25)
    path = tmp_path / "search.jsonl.gz"
    config = SearchConfig(certificate=SearchCertificateWriter(
        path, lam.denominator * data.n_samples) if certificate else None)
    result = distributed.corels(data, lam, config, "fast", _HubFailsOnDonations(time_slice=0))
    one = fit_rule_list(data, lam)
    assert (result.status, result.objective, rules(result)) == \
        ("optimal", one.objective, rules(one))
    assert result.statistics["hub_failures"] > 0 and result.statistics["donations"] == 0
    if certificate:
        _finish_certificate(config, data, result, "fast")
        report = check_search_certificate(path, RuleListInstance.from_dataset(data, lam),
                                          data.classes)
        assert report.accepted, report


def test_parts_lost_with_the_hub_are_never_called_searched(compas):
    """Parts of queues that reached the hub but never the coordinator (the hub lost): the
    search stops as cluster-lost with an exact gap, never "optimal"."""
    data, lam = _with_sound_minority(compas), Fraction(1, 25)
    optimum = fit_rule_list(data, lam).objective
    result = distributed.corels(data, lam, SearchConfig(), "fast",
                                _LosesDonations(time_slice=0, split=True))
    assert result.status == "cluster-lost"
    assert result.lower_bound <= optimum <= result.objective == rescored(data, result)
    assert result.lower_bound < result.objective


@given(rule_list_instances(), st.integers(1, 12), st.sampled_from(["one", "three"]))
def test_a_node_limit_keeps_the_exact_gap(instance, max_nodes, workers):
    """Tasks on one worker, or three at once: they never expand more than max_nodes in all
    (each gets its share of the nodes left)."""
    data, lam = instance
    optimum, _ = optimal_rule_list(RuleListInstance.from_dataset(data, lam))
    config = SearchConfig(max_nodes=max_nodes)
    executor = distributed.InProcess(time_slice=0, split=True) if workers == "one" else \
        Threads(n_workers=3, time_slice=0)
    result = distributed.corels(_with_sound_minority(data), lam, config, "fast", executor)
    assert result.lower_bound <= optimum <= result.objective == rescored(data, result)
    assert (result.status == "optimal") == (result.objective == result.lower_bound) or \
        result.status == "node-limit"
    assert result.nodes_expanded <= max_nodes
    if result.status == "node-limit":
        assert result.nodes_expanded == max_nodes


def test_the_hub_keeps_the_best_offer_and_returns_the_others_batches():
    hub = SearchHub(((10,), "ten"))
    assert hub.exchange("a", ((12,), "twelve"), b"x", 0) == (((10,), "ten"), [], 1, False)
    hub.want_split(True)
    assert hub.exchange("b", ((7,), "seven"), b"y", 0) == (((7,), "seven"), [b"x"], 2, True)
    assert hub.exchange("a", None, None, 1) == (((7,), "seven"), [b"y"], 2, True)
    assert hub.exchange("coordinator", None, None, None) == (((7,), "seven"), [], 2, True)


def test_the_hub_wants_parts_until_enough_are_given():
    hub = SearchHub(((10,), "ten"))
    hub.want_split(2)
    assert hub.exchange("a", None, None, 0, donation="a's half")[3]     # one more wanted
    assert not hub.exchange("b", None, None, 0, donation="b's half")[3]
    assert not hub.exchange("c", None, None, 0)[3]
    assert hub.take_donations() == ([("a", "a's half"), ("b", "b's half")], 0)
    assert not hub.exchange("c", None, None, 0)[3]
    hub.want_split(1)
    assert hub.exchange("c", None, None, 0)[3]


@pytest.mark.parametrize("n_workers, scheduler, error, text", [
    (0, None, ValueError, "'n_workers' parameter of fit_rule_list must be a positive integer"),
    (True, None, TypeError, "'n_workers' parameter of fit_rule_list must be"),
    (1.5, None, TypeError, "'n_workers'"),
    (None, " ", ValueError, "'scheduler' parameter of fit_rule_list must be a scheduler addr"),
    (None, 8786, TypeError, "'scheduler'"),
    (2, "tcp://localhost:8786", ValueError, "not both")])
def test_cluster_parameters_are_checked(n_workers, scheduler, error, text):
    data, lam = tiny()
    with pytest.raises(error, match=text):
        fit_rule_list(data, lam, n_workers=n_workers, scheduler=scheduler)


def test_the_estimators_error_names_it():
    from optrules.rule_lists.estimator import RuleListClassifier
    with pytest.raises(ValueError, match="^RuleListClassifier: give 'n_workers'"):
        RuleListClassifier(n_workers=2, scheduler="tcp://localhost:8786").fit(
            [[0, 1], [1, 0]], [0, 1])


def tiny():
    return BinaryDataset.from_bits(["a", "b"], [[1, 1, 0, 0], [0, 1, 1, 0]], [1, 1, 0, 0]), \
        "1/10"


@settings(max_examples=30)
@pytest.mark.parametrize("donates", [False, True])
@given(rule_list_instances(), st.sampled_from(SYMMETRY_MAPS))
def test_the_merged_certificate_of_tasks_split_after_every_prefix_is_accepted(
        tmp_path_factory, donates, instance, symmetry_map):
    """Each task's records, appended as the tasks finish (and a giving task's records so
    far before its part), make one certificate that the checker accepts unchanged
    (witnesses from other tasks included)."""
    data, lam = instance
    data = _with_sound_minority(data)
    path = tmp_path_factory.mktemp("certificate") / "search.jsonl.gz"
    total = data.n_samples if data.weights is None else int(data.weights.sum())
    config = SearchConfig(symmetry_map=symmetry_map,
                          certificate=SearchCertificateWriter(path, lam.denominator * total))
    with cut_not_donate(donates):
        result = distributed.corels(data, lam, config, "fast",
                                    distributed.InProcess(time_slice=0, split=True))
    _finish_certificate(config, data, result, "fast")
    report = check_search_certificate(path, RuleListInstance.from_dataset(data, lam),
                                      data.classes)
    assert report.accepted, report


# ----- on a local cluster of two worker processes (the ``cluster`` fixture) ------------------

@pytest.fixture(scope="module")
def compas(compas_dir):
    return load_corels(compas_dir / "compas_train.out", compas_dir / "compas_train.label",
                       compas_dir / "compas_train.minor")


@settings(max_examples=8)
@given(rule_list_instances())
def test_on_two_workers_the_optimum_and_list_are_the_one_process_ones(cluster, instance):
    data, lam = instance
    one = fit_rule_list(data, lam)
    result = fit_rule_list(data, lam, scheduler=cluster.scheduler_address)
    assert result.status == "optimal"
    assert (result.objective, rules(result)) == (one.objective, rules(one))
    assert rescored(data, result) == result.objective


def test_the_hub_answers_on_its_workers_event_loop(cluster):
    """The hub's methods run on its worker's event loop: no worker starts Dask's actor
    thread (a hop to it and back made the search on that worker wait for the interpreter
    lock twice more per call)."""
    data, lam = tiny()
    assert fit_rule_list(data, lam, scheduler=cluster.scheduler_address).status == "optimal"
    with Client(cluster) as client:
        threads = client.run(lambda: [thread.name for thread in threading.enumerate()])
    assert threads and not [name for names in threads.values() for name in names
                            if "Actor" in name]


@pytest.mark.slow
def test_compas_on_two_workers(cluster, compas, tmp_path):
    """COMPAS λ = 0.015: the published optimum and the one-process list, and a certificate
    merged from the tasks' records that the checker accepts."""
    one = fit_rule_list(compas, "0.015")
    path = tmp_path / "search.jsonl.gz"
    result = fit_rule_list(compas, "0.015", scheduler=cluster.scheduler_address,
                           certificate=path)
    assert result.status == "optimal" and str(result.objective) == "245267/648900"
    assert rules(result) == rules(one)
    assert sum(result.statistics["nodes_by_worker"].values()) == result.nodes_expanded
    report = check_search_certificate(path, RuleListInstance.from_dataset(compas, "0.015"),
                                      compas.classes)
    assert report.accepted, report


def test_n_workers_starts_a_local_cluster():
    data, lam = tiny()
    result = fit_rule_list(data, lam, n_workers=2)
    assert result.status == "optimal" and str(result.objective) == "1/10"
    assert result.statistics["tasks"] >= 1


def test_progress_counts_the_nodes_of_running_tasks(cluster, compas):
    """A task gives parts of its queue away instead of ending, so both tasks of a search on
    two workers may run to its end: the progress figures count the nodes that running tasks
    report to the hub, per worker, not only those of finished tasks (found: `--progress`
    showed 0 nodes and no workers for a whole search)."""
    seen, evaluations = [], []

    def progress(nodes, describe):
        figures = describe()
        seen.append((nodes, figures["nodes_by_worker"]))
        evaluations.append(figures["evaluations"])

    result = fit_rule_list(compas, "0.01", scheduler=cluster.scheduler_address,
                           progress=progress)
    assert result.status == "optimal"
    during = [(nodes, workers) for nodes, workers in seen if 0 < nodes < result.nodes_expanded]
    assert len({nodes for nodes, _ in during}) >= 3          # growing while tasks run
    assert all(sum(workers.values()) == nodes for nodes, workers in during)
    assert any(len(workers) == 2 for _, workers in during)
    assert seen[-1] == (result.nodes_expanded, result.statistics["nodes_by_worker"])
    assert 0 < evaluations[len(seen) // 2] < evaluations[-1]     # likewise the evaluations
    assert evaluations[-1] == result.statistics["lower_bound_evaluations"]


def _trace_end(path):
    return json.loads(path.read_text().splitlines()[-1])


class _FirstAttemptLost(distributed.InProcess):
    """The first task's first attempt is lost with its worker after 300 nodes (its last
    report stays at the hub), and Dask runs the task again."""

    lost = False

    def submit(self, frontier, best, limits):
        if not self.lost:
            self.lost = True
            self.function(*self.arguments, frontier, best, replace(limits, max_nodes=300),
                          self.hub, self.name)
        return super().submit(frontier, best, limits)


def test_the_work_of_a_lost_attempt_counts_in_the_result_as_in_the_progress(compas, tmp_path):
    """The last progress figures (and a trace's end record) count a lost attempt's last
    report; so does the result (found by review: the trace's end said 300 nodes more)."""
    path = tmp_path / "trace.jsonl"

    def lost_once(dataset, lam, config, engine, cluster):
        return distributed.corels(dataset, lam, config, engine,
                                  _FirstAttemptLost(time_slice=None))

    with mock.patch("optrules.rule_lists.fit._distributed_corels", lost_once):
        result = fit_rule_list(compas, "0.01", n_workers=2, trace=path)
    one = fit_rule_list(compas, "0.01")
    assert (result.status, result.objective, rules(result)) == \
        ("optimal", one.objective, rules(one))
    end = _trace_end(path)
    assert (end["nodes"], end["evaluations"]) == \
        (result.nodes_expanded, result.statistics["lower_bound_evaluations"])
    assert sum(result.statistics["nodes_by_worker"].values()) == result.nodes_expanded
    assert result.statistics["tasks"] == 1          # only the retry finished


def test_the_work_of_tasks_a_stop_cancels_counts_in_the_result(cluster, compas, tmp_path):
    """A time limit cancels the running tasks: their last reports count in the result, as in
    the trace's end record (found by review: the result said 0 nodes, the trace 5 354)."""
    path = tmp_path / "trace.jsonl"
    result = fit_rule_list(compas, "0.005", scheduler=cluster.scheduler_address,
                           time_limit=1.5, trace=path)
    assert result.status == "time-limit" and result.nodes_expanded > 0
    end = _trace_end(path)
    assert (end["nodes"], end["evaluations"]) == \
        (result.nodes_expanded, result.statistics["lower_bound_evaluations"])
    assert sum(result.statistics["nodes_by_worker"].values()) == result.nodes_expanded


@pytest.mark.parametrize("local", [True, False])
def test_a_task_with_a_large_frontier_gives_no_dask_warning(cluster, local):
    """A task carries its frontier (a part of a queue of COMPAS at λ = 0.005 passes 10 MB):
    Dask's warning about a large graph, with its advice to load the data with Dask, is not
    for the user of a search (it showed in the benchmark's boosting search on 2 workers)."""
    from optrules.distributed.cluster import Cluster
    where = Cluster(1) if local else Cluster(scheduler=cluster.scheduler_address)
    with where.client() as client, warnings.catch_warnings():
        warnings.simplefilter("error")
        assert client.submit(len, b"x" * 11_000_000, pure=False).result() == 11_000_000


@pytest.mark.slow
def test_a_worker_killed_mid_run_does_not_change_the_answer(cluster, compas):
    """COMPAS λ = 0.01 (about 100 000 prefixes): once the first tasks run on both workers,
    one worker process is killed; Dask runs its task again and the answer is unchanged."""
    one = fit_rule_list(compas, "0.01")
    with Client(cluster) as client:
        killed = []

        def kill_one_worker(nodes_expanded, describe):
            if not killed and nodes_expanded > 0:           # after the first task
                pids = client.run(os.getpid)
                address, pid = sorted(pids.items())[0]
                os.kill(pid, signal.SIGKILL)
                killed.append(address)

        result = fit_rule_list(compas, "0.01", scheduler=cluster.scheduler_address,
                               progress=kill_one_worker)
    assert killed
    assert result.status == "optimal"
    assert (result.objective, rules(result)) == (one.objective, rules(one))
    assert len(result.statistics["nodes_by_worker"]) == 2       # both worked


def test_a_cluster_that_dies_returns_the_best_list_with_its_exact_gap(compas):
    """The whole cluster closes after the first task: status "cluster-lost", never optimal,
    and the gap covers every prefix the lost tasks had (COMPAS λ = 0.01)."""
    with doomed_cluster() as (executor, close_the_cluster):
        config = SearchConfig(progress=close_the_cluster)
        result = distributed.corels(_with_sound_minority(compas), Fraction(1, 100), config,
                                    "fast", executor)
    assert result.status == "cluster-lost"
    assert result.lower_bound < result.objective
    assert result.lower_bound <= Fraction(119389, 324450) <= result.objective == \
        rescored(compas, result)


def test_the_command_line_and_the_estimator_search_on_the_cluster(cluster, compas_dir, capsys):
    from optrules import RuleListClassifier
    from optrules.cli import main
    files = ["--corels-out", str(compas_dir / "compas_train.out"), "--corels-label",
             str(compas_dir / "compas_train.label")]
    outputs = []
    for where in ([], ["--scheduler", cluster.scheduler_address]):
        assert main(["rulelist", *files, "--lam", "0.015", "--json", "--quiet", *where]) == 0
        outputs.append(json.loads(capsys.readouterr().out))
    assert [(out["objective"], out["rules"], out["status"]) for out in outputs[1:]] == \
        [(outputs[0]["objective"], outputs[0]["rules"], "optimal")]
    assert "nodes_by_worker" in outputs[1]["statistics"]
    X = {"sex": ["M", "M", "F", "F", "M", "F"], "priors": [5, 0, 4, 0, 7, 1]}
    y = [1, 0, 0, 0, 1, 0]
    one, two = (RuleListClassifier(lam=0.05, min_support=0, scheduler=address).fit(X, y)
                for address in (None, cluster.scheduler_address))
    assert str(two.rule_list_) == str(one.rule_list_) and two.objective_ == one.objective_
    assert two.get_params()["scheduler"] == cluster.scheduler_address


@pytest.mark.slow
def test_limits_stop_the_tasks_too(cluster, compas):
    """A node or time limit is shared among the running tasks, so the search stops near it,
    with the exact gap (COMPAS λ = 0.01 takes about 100 000 prefixes)."""
    optimum = Fraction(119389, 324450)
    by_nodes = fit_rule_list(compas, "0.01", scheduler=cluster.scheduler_address,
                             max_nodes=3000)
    assert by_nodes.status == "node-limit" and by_nodes.nodes_expanded == 3000
    by_time = fit_rule_list(compas, "0.01", scheduler=cluster.scheduler_address,
                            time_limit=1.5)
    assert by_time.status == "time-limit" and by_time.seconds < 4
    for result in (by_nodes, by_time):
        assert result.lower_bound <= optimum <= result.objective == rescored(compas, result)


class _Giver:
    """What :class:`tasks._Slice` reads of a search: a split is wanted, a node expanded."""

    split_wanted, nodes_expanded = True, 1

    def __init__(self, can_give):
        self.can_give, self.given = can_give, 0

    def can_donate(self):
        return self.can_give

    def donate(self):
        self.given += 1
        return True


def test_a_task_gives_parts_after_the_donation_gap_and_stops_only_if_it_cannot(monkeypatch):
    """A task dealt near a search's end (a long time slice) gives a part once it has searched
    DONATION_GAP, not its whole slice; one that cannot give stops after its slice only."""
    from optrules.distributed import tasks
    monkeypatch.setattr(tasks, "DONATION_GAP", 0.0)
    limits = tasks.TaskLimits(time_slice=3600.0)
    giver, keeper = _Giver(True), _Giver(False)
    assert tasks._Slice(giver, limits).stop_reason() is None and giver.given == 1
    assert tasks._Slice(keeper, limits).stop_reason() is None and keeper.given == 0
    assert tasks._Slice(keeper, tasks.TaskLimits(time_slice=0.0)).stop_reason() == "time-limit"
