"""Benchmark: the distributed rule-list search (specs/distributed.md) on COMPAS, with 1 and 2
local Dask workers and in one process, back to back in one run; then a simulated cluster of k
workers from per-task timings; then the distributed optimal boosting-rule search (§9) on the
first round of noisy parity problems, likewise.

(Not ``distributed.py``: run as a script, this folder comes first on ``sys.path``, and the
file would stand in for the Dask package of that name.)

Run by hand (the optrules environment with the extra ``distributed``):
    python benchmarks/distributed_search.py [--lam 0.0075 0.005] [--workers 1 2]
        [--simulate 1 2 4 8] [--simulate-lam 0.0075] [--parity 5:500:7 6:400:7] [--ceiling]
        [--repeat R]

Measured part: per λ, the fast engine in one process, then a local cluster of each size in
``--workers`` (cluster start-up included in "wall s", excluded in "search s"): wall seconds, the
speed-up of the search over one worker, prefixes expanded in all and per worker, and tasks. The
machine is shared: compare within one run. Needs a quiet machine: every worker wants a core.
Single runs drift by 10-40% on a shared machine: ``--repeat R`` runs them R times in turn and
prints the median seconds and speed-ups (over one worker and over one process).
``--ceiling`` adds, per λ and cluster size k > 1, the speed-up of k one-process searches run
side by side (k times one alone over the slowest of k at once): what the machine itself allows
k workers that never communicate (on the 2-core machine of specs/distributed.md, about 1.75).

Boosting part (``--parity D:N:K``): noisy parity of dimension D with N samples
(``optrules.data.synthetic.noisy_parity``, seed 0), propositions at K quantile cut points
(``thresholds="quantile:K"``), the logistic loss's first round (g = -y/2, h = 1/4, λ = 2):
one process, then each cluster size, with the same columns (nodes: query nodes expanded).

Simulated part (``--simulate``): the coordinator deals the frontier to k virtual workers, but
runs every task in this process, one after another. The first task hands its queue back after
FIRST_SLICE (0.02 s: the other workers are idle), the k parts then run to their ends: a static
partition, without the rebalancing of a real cluster (which needs tasks side by side in time). Each
task's CPU seconds make a virtual schedule: a task starts when the coordinator dealt it, on the
first free worker. A task sees all that earlier tasks shared and nothing of later ones (a rough
model of sharing). The table gives the prefixes expanded (the work the split adds), the
virtual makespan (the slowest part: load imbalance shows here) and its speed-up over one
virtual worker.
"""

import argparse
import collections
import heapq
import os
import statistics
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

COMPAS = Path(__file__).resolve().parents[2] / "shared" / "data" / "compas"
FILES = [COMPAS / f"compas_train.{kind}" for kind in ("out", "label", "minor")]


def compas():
    from optrules.data.corels_files import load_corels
    from optrules.rule_lists.fit import _with_sound_minority
    return _with_sound_minority(load_corels(*FILES))


def measured(data, lam, workers):
    """Rows of the measured table: one process, then each cluster size."""
    from optrules.distributed import rule_lists as distributed
    from optrules.distributed.cluster import Cluster
    from optrules.fast.corels import corels
    from optrules.rule_lists.fit import SearchConfig
    start = time.perf_counter()
    result = corels(data, lam, SearchConfig())
    yield "one process", time.perf_counter() - start, None, result, None
    for n in workers:
        start = time.perf_counter()
        with Cluster(n).client() as client:
            executor = distributed.OnDask(client)
            searched = time.perf_counter()
            result = distributed.corels(data, lam, SearchConfig(), "fast", executor)
            search_seconds = time.perf_counter() - searched
        yield f"{n} worker{'s' * (n > 1)}", time.perf_counter() - start, search_seconds, \
            result, executor.completed


class Simulated:
    """The in-process executor with k virtual workers and a virtual clock (module docstring)."""

    failures = ()
    shares_entries = False            # all tasks read the hub through one worker state

    def __init__(self, n_workers, time_slice):
        from optrules.distributed.rule_lists import InProcess
        self.inner = InProcess(time_slice)
        self.n_workers, self.time_slice = n_workers, time_slice
        self.completed = self.inner.completed
        self.free = [0.0] * n_workers            # when each virtual worker is free
        self.dealt_at = 0.0                      # the virtual time of the coordinator
        self.ends = {}

    def start(self, *args):
        self.inner.start(*args)

    def want_split(self, parts):
        pass

    def take_donations(self):
        return self.inner.take_donations()

    def progress(self):
        return self.inner.progress()

    def submit(self, frontier, best, limits):
        if self.completed:                  # the k parts: they run to their ends
            result = self.inner.submit(frontier, best, limits)
        else:        # the first task, without the hub: it hands its whole queue back
            inner = self.inner
            result = inner.function(*inner.arguments, frontier, best, limits, None, inner.name)
        begin = max(self.dealt_at, heapq.heappop(self.free))
        self.ends[id(result)] = begin + result.cpu_seconds
        heapq.heappush(self.free, self.ends[id(result)])
        return result

    def wait(self, handles, timeout):
        """The task that ends first in virtual time; the coordinator deals after it."""
        first = min(handles, key=lambda handle: self.ends[id(handle)])
        self.dealt_at = max(self.dealt_at, self.ends[id(first)])
        return [(first, first)]

    def cancel(self, handles):
        pass

    def shared_best(self):
        return self.inner.shared_best()

    def finish(self):
        self.inner.finish()

    def makespan(self):
        return max(self.free)


def simulated(data, lam, sizes):
    from optrules.distributed import rule_lists as distributed
    from optrules.distributed.tasks import FIRST_SLICE
    from optrules.rule_lists.fit import SearchConfig
    for k in sizes:
        executor = Simulated(k, FIRST_SLICE)
        result = distributed.corels(data, lam, SearchConfig(), "fast", executor)
        yield k, result, executor


def parity_problem(spec):
    """The first boosting round of noisy parity ``D:N:K`` (module docstring)."""
    import numpy as np
    from optrules.data.propositions import make_propositions
    from optrules.data.synthetic import noisy_parity
    from optrules.rule_boosting.gradient_problem import GradientProblem
    d, n, cuts = (int(part) for part in spec.split(":"))
    X, y = noisy_parity(n, d=d, seed=0)
    propositions = make_propositions(X, f"quantile:{cuts}")
    return GradientProblem.from_values(propositions.extents, propositions.names, -y / 2,
                                       np.full(n, 0.25), 2)


def measured_boosting(problem, workers):
    """Rows of the boosting table: one process, then each cluster size (with each worker's
    expanded nodes, from the last progress figures)."""
    from optrules.distributed import rule_boosting, tasks
    from optrules.distributed.cluster import Cluster
    from optrules.fast.rule_boosting import optimal_rule
    from optrules.rule_boosting.fit import BaseLearnerConfig
    start = time.perf_counter()
    result = optimal_rule(problem, BaseLearnerConfig())
    yield "one process", time.perf_counter() - start, None, result, None, ""
    for n in workers:
        start = time.perf_counter()
        figures = {}
        config = BaseLearnerConfig(progress=lambda nodes, describe: figures.update(describe()))
        with Cluster(n).client() as client:
            executor = tasks.OnDask(client)
            searched = time.perf_counter()
            result = rule_boosting.optimal_rule(problem, config, executor)
            search_seconds = time.perf_counter() - searched
        yield f"{n} worker{'s' * (n > 1)}", time.perf_counter() - start, search_seconds, \
            result, executor.completed, figures.get("nodes_by_worker", "")


def one_search(lam_text):
    """Child (``--one-search``): the fast engine's search in one process; prints its
    seconds."""
    from optrules.fast.corels import corels
    from optrules.rule_lists.fit import SearchConfig
    data = compas()
    start = time.perf_counter()
    corels(data, Fraction(lam_text), SearchConfig())
    print(time.perf_counter() - start)


def machine_ceiling(lam_text, k):
    """The speed-up k independent one-process searches get side by side (each alone, k times,
    over the slowest of k run at once): what the machine's shared caches and memory allow k
    workers, with no communication at all."""
    def seconds(copies):
        children = [subprocess.Popen([sys.executable, __file__, "--one-search", lam_text],
                                     stdout=subprocess.PIPE, text=True) for _ in range(copies)]
        return [float(child.communicate()[0]) for child in children]
    alone = seconds(1)[0]
    return k * alone / max(seconds(k))


def median_summary(lam_text, seconds):
    """The median search seconds of each run kind over the repeats, and the median
    speed-ups over one worker and over one process."""
    medians = {name: statistics.median(times) for name, times in seconds.items()}
    parts = [f"{name} {median:.1f} s" for name, median in medians.items()]
    for name, median in medians.items():
        if name.endswith("workers"):
            over = [f"over {base} {medians[base] / median:.2f}x"
                    for base in ("1 worker", "one process") if base in medians]
            parts.append(f"{name}: {', '.join(over)}")
    return f"{lam_text:>7}       median: " + "; ".join(parts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lam", nargs="*", default=["0.0075", "0.005"])
    parser.add_argument("--workers", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--simulate", nargs="*", type=int, default=[1, 2, 4, 8])
    parser.add_argument("--simulate-lam", default="0.0075")
    parser.add_argument("--parity", nargs="*", default=["5:500:7", "6:400:7"])
    parser.add_argument("--ceiling", action="store_true",
                        help="also run independent one-process searches side by side")
    parser.add_argument("--repeat", type=int, default=1,
                        help="run the rule-list searches this many times, alternating, and "
                             "print the median speed-ups")
    parser.add_argument("--one-search", help=argparse.SUPPRESS)

    args = parser.parse_args()
    if args.one_search:
        return one_search(args.one_search)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    data = compas()
    print(f"{'lambda':>7} {'run':>12} {'status':>8} {'objective':>14} {'wall s':>8} "
          f"{'search s':>9} {'speed-up':>8} {'nodes':>9} {'tasks':>5}  nodes per worker")
    for text in args.lam:
        lam, seconds = Fraction(text), collections.defaultdict(list)
        for _ in range(args.repeat):
            one_worker = None
            for name, wall, search, result, tasks in measured(data, lam, args.workers):
                if name == "1 worker":
                    one_worker = search
                seconds[name].append(search or wall)
                speed_up = f"{one_worker / search:>8.2f}" if search and one_worker else \
                    f"{'':>8}"
                per_worker = result.statistics.get("nodes_by_worker", "")
                print(f"{text:>7} {name:>12} {result.status:>8} {str(result.objective):>14} "
                      f"{wall:>8.1f} {search or wall:>9.1f} {speed_up} "
                      f"{result.nodes_expanded:>9} {len(tasks) if tasks else '':>5}  "
                      f"{per_worker}", flush=True)
        if args.repeat > 1:
            print(median_summary(text, seconds), flush=True)
        if args.ceiling:
            for k in args.workers[1:]:
                print(f"{text:>7} {f'ceiling x{k}':>12}   (k one-process searches side by "
                      f"side: {machine_ceiling(text, k):.2f})", flush=True)
    if args.simulate:
        print(f"\nsimulated cluster, lambda {args.simulate_lam}: a static partition after the "
              "first task (CPU seconds of each task, run in this process)")
        print(f"{'workers':>7} {'nodes':>9} {'tasks':>6} {'CPU s':>8} {'makespan s':>10} "
              f"{'speed-up':>8} {'objective':>14}")
        base = None
        for k, result, executor in simulated(data, Fraction(args.simulate_lam), args.simulate):
            makespan = executor.makespan()
            base = base or makespan
            cpu = sum(task[2] for task in executor.completed)
            print(f"{k:>7} {result.nodes_expanded:>9} {len(executor.completed):>6} "
                  f"{cpu:>8.1f} {makespan:>10.1f} {base / makespan:>8.2f} "
                  f"{str(result.objective):>14}", flush=True)
    if args.parity:
        print(f"\noptimal boosting rule, noisy parity's first round\n{'D:N:K':>9} {'run':>12} "
              f"{'status':>8} {'objective':>10} {'wall s':>8} {'search s':>9} {'speed-up':>8} "
              f"{'nodes':>9} {'tasks':>5}  nodes per worker")
    for spec in args.parity:
        one_worker = None
        for name, wall, search, result, tasks, per_worker in measured_boosting(
                parity_problem(spec), args.workers):
            if name == "1 worker":
                one_worker = search
            speed_up = f"{one_worker / search:>8.2f}" if search and one_worker else f"{'':>8}"
            print(f"{spec:>9} {name:>12} {result.status:>8} {float(result.objective):>10.6f} "
                  f"{wall:>8.1f} {search or wall:>9.1f} {speed_up} "
                  f"{result.statistics['nodes']:>9} {len(tasks) if tasks else '':>5}  "
                  f"{per_worker}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
