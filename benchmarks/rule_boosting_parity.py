"""Benchmark: optimal versus greedy rule boosting on noisy parity (Boley et al. 2021, Fig. 1).

Run by hand:  python benchmarks/rule_boosting_parity.py [--n 800] [--rules 8] [--d 3]
Prints, per threshold choice and search, the seconds, nodes per rule and test accuracy.
"""

import argparse
import time

import numpy as np

from optrules.rule_boosting.fit import fit_rule_ensemble
from optrules.data.synthetic import noisy_parity


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=800)
    parser.add_argument("--d", type=int, default=3)
    parser.add_argument("--rules", type=int, default=8)
    parser.add_argument("--lam", default="2")
    parser.add_argument("--thresholds", nargs="+", default=["quantile:3", "quantile:5",
                                                             "quantile:9"])
    args = parser.parse_args()
    X, y = noisy_parity(args.n, d=args.d, seed=1)
    X_test, y_test = noisy_parity(args.n, d=args.d, seed=2)
    print(f"{'thresholds':>12} {'search':>8} {'seconds':>8} {'mean nodes/rule':>16} "
          f"{'test accuracy':>14}")
    for thresholds in args.thresholds:
        for search in ("optimal", "greedy"):
            start = time.perf_counter()
            ensemble = fit_rule_ensemble(X, y, n_rules=args.rules, lam=args.lam, search=search,
                                         thresholds=thresholds)
            seconds = time.perf_counter() - start
            nodes = np.mean([rule.statistics["nodes"] for rule in ensemble.rules])
            accuracy = np.mean(ensemble.predict(X_test) == y_test)
            print(f"{thresholds:>12} {search:>8} {seconds:>8.2f} {nodes:>16.1f} "
                  f"{accuracy:>14.4f}")


if __name__ == "__main__":
    main()
