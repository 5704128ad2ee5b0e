"""Reproduce BOOMER (Rapp, Fürnkranz, Hüllermeier, "On the efficient implementation of
classification rule learning", ADAC 2023): predictive quality and training time of 1000 rules
with the pre-sorted and the histogram-based search, with and without feature sampling, beside
mlrl-boomer (the paper's C++ package) in the same run.

Run by hand (in the optrules environment with its test extra, for scikit-learn; about 3
minutes with ``--mlrl`` on a shared 2-core machine):
    python benchmarks/reproduce_boomer.py [--datasets breast multilabel] [--rules 1000]
        [--folds 3] [--mlrl /work/boomer-venv/bin/python]

The paper's measures (its Table 2): Hamming loss, subset 0/1 loss and example-wise F1 of the
test folds, and training seconds per fold, mean over ``--folds`` seeded cross-validation folds
(the paper: 10). Its multi-label datasets (Mulan, MEKA) are not bundled and cannot be fetched
here, so the rows are scikit-learn's breast cancer (binary: Hamming and subset 0/1 loss are
both the error rate) and ``multilabel``, scikit-learn's ``make_multilabel_classification``
(1000 examples, 10 count features, 4 labels, about 2 labels each, seed 0). Both tools learn
1000 single-label rules after the default rule with the logistic loss, shrinkage 0.3, one
thread, no instance sampling, holdout or pruning (mlrl-boomer with ``MLRL_OFF`` of
benchmarks/boosted_rules.py); "sampling on" draws a random subset of the features for each rule
(both tools' default), and "histogram" uses equal-width bins with bin ratio 0.33 (mlrl-boomer's
``feature_binning='equal-width'``, optrules' ``binning="width:0.33"``). With the pre-sorted
search and sampling off, optrules runs with ``mlrl_compatible=True`` and learns mlrl-boomer's
rules (specs/boosted-rules.md §7), so their losses must agree; otherwise the random draws or
the bins differ, and the figures compare in distribution.
"""

import argparse
import json
import subprocess
import tempfile
import time

import numpy as np

from boosted_rules import MLRL_OFF
from boosted_rules import dataset as benchmark_dataset

#: mlrl-boomer 0.12.3 crashes at random on multi-label targets (a segmentation fault or "free():
#: invalid next size" in 1 to 5 of 10 runs of a 50-rule fit, also with uint8 labels, float32
#: features or a sparse label matrix; every run of a 1000-rule fit); its fits are seeded, so a
#: crashed one is run again, up to MLRL_ATTEMPTS times, and the crashes are counted.
MLRL_ATTEMPTS = 5
MLRL_CRASHES = []

CONFIGS = [("pre-sorted", "off"), ("pre-sorted", "on"), ("histogram", "off"),
           ("histogram", "on")]

MLRL_CHILD = """
import json, os, sys, time
import numpy as np
from mlrl.boosting.learners import BoomerClassifier
data = np.load(sys.argv[1])
model = BoomerClassifier(**json.loads(sys.argv[2]))
start = time.perf_counter()
model.fit(data["X_train"], data["y_train"].astype(np.uint8))
seconds = time.perf_counter() - start
predicted = model.predict(data["X_test"])
predicted = predicted.toarray() if hasattr(predicted, "toarray") else np.asarray(predicted)
print(json.dumps({"seconds": seconds, "predicted": predicted.tolist()}), flush=True)
# mlrl-boomer 0.12.3 with a multi-label target often aborts at interpreter exit
# ("munmap_chunk(): invalid pointer") once the output is complete: leave without destructors.
os._exit(0)
"""


def dataset(name):
    """(X, Y) with Y of shape (n, labels), 0/1."""
    if name == "multilabel":
        from sklearn.datasets import make_multilabel_classification
        X, Y = make_multilabel_classification(n_samples=1000, n_features=10, n_classes=4,
                                              n_labels=2, random_state=0)
        return X.astype(float), Y
    X, y, _ = benchmark_dataset(name)
    return X, y.reshape(-1, 1)


def measures(Y, predicted):
    """Hamming loss, subset 0/1 loss and example-wise F1 (1 for an example with no true and no
    predicted label, as in the paper's evaluation)."""
    Y, predicted = np.asarray(Y, dtype=bool), np.asarray(predicted, dtype=bool)
    both = (Y & predicted).sum(axis=1)
    size = Y.sum(axis=1) + predicted.sum(axis=1)
    f1 = np.where(size == 0, 1.0, 2 * both / np.maximum(size, 1))
    return (float(np.mean(Y != predicted)), float(np.mean((Y != predicted).any(axis=1))),
            float(np.mean(f1)))


def folds(n, count, seed=0):
    order = np.random.default_rng(seed).permutation(n)
    for test in np.array_split(order, count):
        yield np.setdiff1d(order, test), np.sort(test)


def fit_optrules(X, Y, X_test, n_rules, search, sampling):
    from optrules import BoostedRulesClassifier
    y = Y[:, 0] if Y.shape[1] == 1 else Y
    model = BoostedRulesClassifier(max_rules=n_rules, feature_sampling=sampling == "on",
                                   binning="width:0.33" if search == "histogram" else None,
                                   mlrl_compatible=search == "pre-sorted", random_state=0)
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    return seconds, np.asarray(model.predict(X_test)).reshape(len(X_test), -1)


def fit_mlrl(python, folder, X, Y, X_test, n_rules, search, sampling):
    path = f"{folder}/fold.npz"
    np.savez(path, X_train=X, y_train=Y if Y.shape[1] > 1 else Y[:, 0], X_test=X_test)
    settings = dict(MLRL_OFF, max_rules=n_rules + 1, random_state=1,
                    feature_sampling="without-replacement" if sampling == "on" else "none",
                    feature_binning="equal-width" if search == "histogram" else "none")
    for _ in range(MLRL_ATTEMPTS):
        child = subprocess.run([python, "-c", MLRL_CHILD, path, json.dumps(settings)],
                               capture_output=True, text=True)
        if child.returncode == 0:
            break
        MLRL_CRASHES.append(child.stderr.strip().splitlines()[-1:] or [child.returncode])
    else:
        return None
    result = json.loads(child.stdout)
    return result["seconds"], np.asarray(result["predicted"]).reshape(len(X_test), -1)


def cross_validate(fit, X, Y, args, search, sampling):
    """Mean (measures, training seconds) over the folds, or None when a fit crashed."""
    figures, seconds = [], []
    for train, test in folds(len(X), args.folds):
        done = fit(X[train], Y[train], X[test], args.rules, search, sampling)
        if done is None:
            return None
        seconds.append(done[0])
        figures.append(measures(Y[test], done[1]))
    return np.mean(figures, axis=0), float(np.mean(seconds))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["breast", "multilabel"],
                        choices=["breast", "multilabel", "synthetic"])
    parser.add_argument("--rules", type=int, default=1000)
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--mlrl", metavar="PYTHON", help="python of mlrl-boomer's environment")
    args = parser.parse_args()
    tools = ["optrules"] + (["mlrl-boomer"] if args.mlrl else [])
    start = time.perf_counter()
    print(f"{args.rules} rules, {args.folds}-fold cross-validation (seed 0), mean over folds\n")
    print("| data | search | feature sampling | tool | Hamming loss | subset 0/1 loss "
          "| example-wise F1 | train s/fold | time / mlrl-boomer |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for name in args.datasets:
            X, Y = dataset(name)
            for search, sampling in CONFIGS:
                rows = {}
                for tool in tools:
                    fit = fit_optrules if tool == "optrules" else \
                        lambda *a: fit_mlrl(args.mlrl, folder, *a)
                    rows[tool] = cross_validate(fit, X, Y, args, search, sampling)
                for tool, row in rows.items():
                    if row is None:
                        print(f"| {name} | {search} | {sampling} | {tool} | crashed "
                              f"{MLRL_ATTEMPTS} times in a row | | | | |", flush=True)
                        continue
                    figure, took = row
                    ratio = f"{took / rows['mlrl-boomer'][1]:.2f}" \
                        if rows.get("mlrl-boomer") else "–"
                    print(f"| {name} | {search} | {sampling} | {tool} | {figure[0]:.4f} "
                          f"| {figure[1]:.4f} | {figure[2]:.4f} | {took:.2f} | {ratio} |",
                          flush=True)
    if MLRL_CRASHES:
        print(f"\nmlrl-boomer crashed {len(MLRL_CRASHES)} times (last lines: "
              f"{sorted({str(line) for line in MLRL_CRASHES})}); each crashed fit was run "
              f"again, up to {MLRL_ATTEMPTS} times")
    print(f"\ntotal {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
