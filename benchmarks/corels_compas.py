"""Benchmark: CORELS on COMPAS (the CORELS files in ../shared/data/compas), optrules engines
and, when given, a locally built C++ CORELS binary, back to back in one run.

Run by hand:
    python benchmarks/corels_compas.py [--lam 0.015 0.01 0.005] [--engine fast reference]
                                       [--map prefix captured] [--cpp PATH/TO/corels]
Each run is a fresh process, so its wall time and peak memory (max RSS of the child) are its
own. Prints wall seconds, peak RSS, expansions, child evaluations, peak queue and map size, and,
with --cpp, each optrules run's wall time and peak memory as ratios of the C++ run's at the same
λ (C++ in its fastest configuration: -c 2 -p 2, lower-bound queue with the captured-vector map),
run just before it. The machines are shared, so compare ratios within one run, never absolute
times across runs. λ = 0.005 takes minutes (C++ about 6, the fast engine about 1.5). Both run on
one core: the C++ program is single-threaded, and the fast engine sets OpenBLAS to one thread
while it searches (optrules.blas: a second thread gains nothing on its small products and loses
much when the other core is busy); the optrules children also get OPENBLAS_NUM_THREADS=1 and
friends, which covers the other BLAS libraries.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

COMPAS = Path(__file__).resolve().parents[2] / "shared" / "data" / "compas"
FILES = [COMPAS / f"compas_train.{kind}" for kind in ("out", "label", "minor")]


def run_one(lam, symmetry_map, engine):
    """Child process: one search, its figures as one JSON line."""
    from optrules.data.corels_files import load_corels
    from optrules.rule_lists.fit import fit_rule_list
    result = fit_rule_list(load_corels(*FILES), lam, engine=engine, symmetry_map=symmetry_map,
                           max_memory=None)
    stats = result.statistics
    print(json.dumps({"status": result.status, "objective": str(result.objective),
                      "nodes": result.nodes_expanded,
                      "evaluations": stats["lower_bound_evaluations"],
                      "max_queue": stats["max_queue_size"],
                      "map_size": stats["symmetry_map_size"]}))


ONE_THREAD = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                      "MKL_NUM_THREADS")}


def timed(command, cwd=None, env=None):
    """(wall seconds, peak RSS in MB, stdout) of one child process (os.wait4 gives the child's
    own resource usage)."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, cwd=cwd, env=env)
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"{command[0]} failed with exit code {child.returncode}")
    return seconds, usage.ru_maxrss // 1024, out


def run_cpp(binary, lam):
    """The C++ implementation at ``lam`` (-c 2 -p 2): wall seconds, peak MB, objective text."""
    # It writes its log to ../logs relative to where it runs: run it in its own folder.
    seconds, peak, out = timed([str(binary.resolve()), "-r", lam, "-c", "2", "-p", "2", "-n",
                                "100000000", *map(str, FILES)], cwd=binary.resolve().parent)
    found = re.search(r"final min_objective: ([0-9.]+)", out) or \
        re.search(r"min_objective: ([0-9.]+)", out)
    return seconds, peak, found.group(1) if found else "?"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lam", nargs="+", default=["0.015", "0.01", "0.005"])
    parser.add_argument("--map", nargs="+", default=["prefix"], choices=["prefix", "captured",
                                                                          "none"])
    parser.add_argument("--engine", nargs="+", default=["fast"], choices=["fast", "reference"])
    parser.add_argument("--cpp", type=Path, help="a C++ CORELS binary (make NGMP=1 corels)")
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        run_one(*args.one)
        return
    print(f"{'lambda':>7} {'engine':>9} {'map':>9} {'status':>8} {'objective':>14} "
          f"{'seconds':>8} {'RSS MB':>7} {'nodes':>8} {'evaluations':>12} {'max queue':>10} "
          f"{'map size':>9} {'time / C++':>10} {'RSS / C++':>9}")
    for lam in args.lam:
        cpp_seconds = cpp_peak = None
        if args.cpp:
            cpp_seconds, cpp_peak, objective = run_cpp(args.cpp, lam)
            print(f"{lam:>7} {'C++':>9} {'captured':>9} {'':>8} {objective:>14} "
                  f"{cpp_seconds:>8.2f} {cpp_peak:>7}", flush=True)
        for engine in args.engine:
            for symmetry_map in args.map:
                seconds, peak, line = timed([sys.executable, __file__, "--one", lam,
                                             symmetry_map, engine],
                                            env=dict(os.environ, **ONE_THREAD))
                r = json.loads(line)
                ratios = f"{seconds / cpp_seconds:>10.2f} {peak / cpp_peak:>9.2f}" \
                    if cpp_seconds else ""
                print(f"{lam:>7} {engine:>9} {symmetry_map:>9} {r['status']:>8} "
                      f"{r['objective']:>14} {seconds:>8.2f} {peak:>7} {r['nodes']:>8} "
                      f"{r['evaluations']:>12} {r['max_queue']:>10} {r['map_size']:>9} "
                      f"{ratios}", flush=True)


if __name__ == "__main__":
    main()
