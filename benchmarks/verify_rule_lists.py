"""Benchmark: how large a COMPAS slice ``verify`` certifies, method by method.

Run by hand:
    python benchmarks/verify_rule_lists.py [--lam 0.01] [--sizes 12x300 16x721 ...]
                                           [--time-limit 60]
For each slice (the first M antecedents of the CORELS files in ../shared/data/compas and their
first N rows) the fast engine finds the optimal list, then each check of
``optrules.verify.certify_rule_list`` runs alone on the claim with the time limit. Prints, per
slice: groups of equal rows, the engine's seconds and objective, and per method its seconds
and outcome (certified / undecided / skipped), then the total of ``verify``'s default run (all
methods in turn). The machines are shared: times drift up to 2× with load.
"""

import argparse
import time
from pathlib import Path

import numpy as np

from optrules.data.corels_files import load_corels
from optrules.rule_lists.fit import fit_rule_list
from optrules.verify import RuleListInstance, certify_rule_list
from optrules.verify.certify import RULE_LIST_CHECKS
from optrules.verify.rule_list_encodings import integer_groups

COMPAS = Path(__file__).resolve().parents[2] / "shared" / "data" / "compas"
SIZES = ["12x300", "16x721", "20x1000", "24x1500", "32x2000", "48x3000", "64x6489",
         "155x6489"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lam", default="0.01")
    parser.add_argument("--sizes", nargs="+", default=SIZES, metavar="MxN")
    parser.add_argument("--time-limit", type=float, default=60.0,
                        help="seconds per method (default 60)")
    args = parser.parse_args()
    data = load_corels(COMPAS / "compas_train.out", COMPAS / "compas_train.label")
    print(f"λ = {args.lam}, {args.time_limit:g} s per method; seconds (outcome)")
    print(f"{'M x N':>10} {'groups':>7} {'engine':>8} {'objective':>10} " +
          " ".join(f"{name:>22}" for name in RULE_LIST_CHECKS) + f" {'all':>8}")
    for size in args.sizes:
        antecedents, rows = (int(part) for part in size.split("x"))
        dataset = data.subset(antecedents=range(min(antecedents, data.n_antecedents)),
                              samples=np.arange(min(rows, data.n_samples)))
        start = time.perf_counter()
        result = fit_rule_list(dataset, args.lam, max_memory=None)
        engine = time.perf_counter() - start
        instance = RuleListInstance.from_dataset(dataset, result.lam)
        cells = []
        for name in RULE_LIST_CHECKS:
            start = time.perf_counter()
            [check] = certify_rule_list(instance, result.rule_list, dataset.classes,
                                        result.objective, [name], args.time_limit).checks
            cells.append(f"{time.perf_counter() - start:8.2f} ({check['verdict']})")
        total = sum(float(cell.split()[0]) for cell in cells)
        print(f"{size:>10} {len(integer_groups(instance)[0]):>7} {engine:8.2f} "
              f"{float(result.objective):10.6f} " + " ".join(f"{c:>22}" for c in cells) +
              f" {total:8.2f}", flush=True)


if __name__ == "__main__":
    main()
