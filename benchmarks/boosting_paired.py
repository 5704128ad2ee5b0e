"""Benchmark: the fast boosting engine of the working tree against that of a git revision, fit
for fit in one process, alternating; CPU seconds and the median of the per-pair ratios.

A change to ``fast/rule_boosting.py`` that saves a few percent is lost in the drift of a shared
machine between runs (10-40%; specs/rule-boosting.md §16). Fits of the two versions that
alternate in one process see the same drift, so the ratio of each pair (the revision's CPU
seconds over the working tree's, above 1: the working tree is faster) moves far less: the
working tree against itself gave medians of 0.98, 0.98 and 0.95 over 8 pairs on breast
cancer, iris and wine (2026-11-27), so a difference under about 5% needs more pairs.
Both versions must make the same search: the script checks that every rule and its node count
agree.

Run by hand (the optrules environment with its test extra, for scikit-learn):
    python benchmarks/boosting_paired.py [--base HEAD] [--datasets breast iris] [--pairs 8]
        [--rules 10] [--propositions FILE.json ...]

Only ``fast/rule_boosting.py`` is taken from ``--base`` (the rest of optrules is the working
tree's). The datasets and settings are those of ``boosting_datasets.py``, with optrules'
quantile propositions; ``--propositions`` gives realkd's instead, one file a dataset, as
``boosting_datasets.py --one NAME propositions`` writes them (under realkd's Python).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from boosting_datasets import DATASETS, run_optrules, save_dataset

BASE_MODULE = "base_rule_boosting"


def load_base(revision, folder):
    """``fast/rule_boosting.py`` at ``revision`` as the module :data:`BASE_MODULE`."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    source = subprocess.run(["git", "-C", root, "show", f"{revision}:fast/rule_boosting.py"],
                            check=True, capture_output=True, text=True).stdout
    with open(os.path.join(folder, BASE_MODULE + ".py"), "w") as file:
        file.write(source)
    sys.path.insert(0, folder)


def fit(engine, settings, propositions):
    """CPU seconds of one ensemble by ``engine`` (an entry of the engines table) and what
    identifies its search: each rule's text and nodes."""
    start = time.process_time()
    result = run_optrules(engine, *settings, propositions)
    seconds = time.process_time() - start
    return seconds, [(rule["rule"], rule["nodes"]) for rule in result["rules"]]


def compare(name, settings, propositions, pairs):
    """Print the CPU seconds of both versions (minimum and median) and the median of the
    per-pair ratios, base over working tree, after one untimed fit of each; the order
    alternates from pair to pair."""
    seconds = {"base": [], "fast": []}
    searches = {tuple(fit(engine, settings, propositions)[1])      # warm: imports, caches
                for engine in ("base", "fast")}
    for pair in range(pairs):
        for engine in ("base", "fast") if pair % 2 == 0 else ("fast", "base"):
            taken, search = fit(engine, settings, propositions)
            seconds[engine].append(taken)
            searches.add(tuple(search))
    if len(searches) > 1:
        raise SystemExit(f"{name}: the two versions made different searches")
    ratios = [base / fast for base, fast in zip(seconds["base"], seconds["fast"])]
    print(f"{name:>10} {min(seconds['base']):>9.3f} {statistics.median(seconds['base']):>9.3f} "
          f"{min(seconds['fast']):>9.3f} {statistics.median(seconds['fast']):>9.3f} "
          f"{statistics.median(ratios):>7.3f}  " + " ".join(f"{r:.2f}" for r in ratios),
          flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="HEAD", help="git revision to compare with")
    parser.add_argument("--datasets", nargs="+", default=["breast", "iris"], choices=DATASETS)
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("--rules", type=int, default=10)
    parser.add_argument("--propositions", nargs="+", metavar="FILE",
                        help="realkd's propositions, one JSON file per dataset, in order")
    args = parser.parse_args()
    if args.propositions and len(args.propositions) != len(args.datasets):
        parser.error("--propositions needs one file per dataset")
    from optrules.rule_boosting.fit import ENGINES
    with tempfile.TemporaryDirectory() as folder:
        load_base(args.base, folder)
        ENGINES["base"] = BASE_MODULE
        print(f"fast/rule_boosting.py at {args.base} (base) against the working tree (fast): "
              f"CPU seconds of {args.rules} rules, {args.pairs} pairs")
        print(f"{'data':>10} {'base min':>9} {'base med':>9} {'fast min':>9} {'fast med':>9} "
              f"{'ratio':>7}  per pair (base / fast)")
        for k, name in enumerate(args.datasets):
            path = os.path.join(folder, f"{name}.npz")
            save_dataset(name, path)
            with np.load(path) as data:
                X, y, names = data["X"], data["y"], [str(s) for s in data["names"]]
            propositions = None
            if args.propositions:
                with open(args.propositions[k]) as file:
                    propositions = json.load(file)
            compare(name, (X, y, names, *DATASETS[name], args.rules), propositions, args.pairs)


if __name__ == "__main__":
    main()
