"""Benchmark: reference CORELS on COMPAS (the CORELS files in ../shared/data/compas).

Run by hand:  python benchmarks/corels_compas.py [--lams 0.015 0.01] [--maps prefix captured]
Each configuration runs in a fresh process so peak memory (max RSS) is per run.
Prints seconds, nodes expanded, lower-bound evaluations, peak queue, map size and max RSS.
"""

import argparse
import json
import resource
import subprocess
import sys
from pathlib import Path

COMPAS = Path(__file__).resolve().parents[2] / "shared" / "data" / "compas"


def run_one(lam, symmetry_map, engine):
    from optrules.data.corels_files import load_corels
    from optrules.rule_lists.fit import fit_rule_list
    data = load_corels(COMPAS / "compas_train.out", COMPAS / "compas_train.label",
                       COMPAS / "compas_train.minor")
    result = fit_rule_list(data, lam, engine=engine, symmetry_map=symmetry_map)
    stats = result.statistics
    print(json.dumps({"lam": lam, "map": symmetry_map, "engine": engine,
                      "status": result.status, "objective": str(result.objective),
                      "seconds": round(result.seconds, 2), "nodes": result.nodes_expanded,
                      "evaluations": stats["lower_bound_evaluations"],
                      "max_queue": stats["max_queue_size"], "map_size": stats["symmetry_map_size"],
                      "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lams", nargs="+", default=["0.015", "0.01"])
    parser.add_argument("--maps", nargs="+", default=["prefix", "captured"])
    parser.add_argument("--engine", default="reference")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        run_one(args.one[0], args.one[1], args.engine)
        return
    print(f"{'lambda':>7} {'map':>9} {'status':>8} {'objective':>14} {'seconds':>8} "
          f"{'nodes':>8} {'evaluations':>12} {'max queue':>10} {'map size':>9} {'RSS MB':>7}")
    for lam in args.lams:
        for symmetry_map in args.maps:
            line = subprocess.run([sys.executable, __file__, "--one", lam, symmetry_map,
                                   "--engine", args.engine], capture_output=True, text=True,
                                  check=True).stdout
            r = json.loads(line)
            print(f"{lam:>7} {symmetry_map:>9} {r['status']:>8} {r['objective']:>14} "
                  f"{r['seconds']:>8} {r['nodes']:>8} {r['evaluations']:>12} "
                  f"{r['max_queue']:>10} {r['map_size']:>9} {r['max_rss_mb']:>7}")


if __name__ == "__main__":
    main()
