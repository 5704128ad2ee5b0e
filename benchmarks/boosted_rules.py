"""Benchmark: boosted rules (BOOMER) by optrules' fast engine and by mlrl-boomer, the C++ package
of Rapp, Fürnkranz, Hüllermeier, "On the efficient implementation of classification rule
learning", ADAC 2023, back to back in one run, one thread each.

Run by hand (in the optrules environment with its test extra, for scikit-learn):
    python benchmarks/boosted_rules.py [--datasets breast synthetic] [--rules 1000]
        [--sampling on off] [--search dense histogram] [--engine fast]
        [--mlrl /work/boomer-venv/bin/python]
    python benchmarks/boosted_rules.py --write-fixture [--mlrl PYTHON]
    python benchmarks/boosted_rules.py --write-small-fixtures [--mlrl PYTHON]

For every dataset and feature-sampling setting it prints the fit seconds of each tool (median
of ``--repeats`` fits in one child process each) and the ratio optrules / mlrl-boomer, then how
many of the first rules are identical. Both tools learn ``--rules`` single-label rules after the
default rule (mlrl-boomer's ``max_rules`` counts the default rule, so it gets one more) with
instance sampling, holdout, binning, pruning, post-optimisation and parallelism off; optrules
runs with ``mlrl_compatible=True``. With feature sampling on, the two draw different random
features, so only the times compare. ``--search histogram`` runs both with equal-width bins,
bin ratio 0.33 (mlrl-boomer's ``feature_binning='equal-width'``, optrules'
``binning="width:0.33"``); their binning details differ, so again only the times compare.
The machine is shared: compare ratios within one run.

mlrl-boomer lives in its own environment (never a dependency of optrules)::

    python3 -m venv /work/boomer-venv && /work/boomer-venv/bin/pip install mlrl-boomer scikit-learn

``--write-fixture`` writes ``tests/data/mlrl_boomer_breast_cancer.json``: the first rules
mlrl-boomer learns with sampling off on breast cancer and on its variants with missing values
and nominal features (``FIXTURE_RULES`` of each, with the values the variants change), which
``tests/test_boosted_rules.py`` compares with optrules' rules. ``--write-small-fixtures``
writes ``tests/data/mlrl_boomer_small_sparse.json`` and ``..._small_nominal.json``: the first
rules mlrl-boomer learns on ``SMALL_CASES`` small random problems each:
:func:`small_sparse_cases` (CSC matrices of 8-39 examples, 1-3 features of varied density,
values to 0 or 1 decimal, some missing: its sparse search, its choice of a dense matrix for a
dense enough one, its bookkeeping of counts) and :func:`small_nominal_cases` (dense, nominal
features of 2-5 integer codes, binary ones among them, beside numerical ones, some missing:
its nominal and binary searches and its bookkeeping of missing values).

Datasets: scikit-learn's breast cancer (569 x 30), and ``synthetic``: 20 000 x 50 standard
normal features, labels from a logistic model of 5 features and two interactions (seed 0).
Variants that compare the handling of data with mlrl-boomer's: ``breast-missing`` (5% of the
values missing), ``breast-nominal`` (features 0-4 as quartile codes 0-3, declared nominal to
both tools), ``sparse`` (5 000 x 40, 90% zeros, a CSC matrix to both) and ``sparse-small``
(600 x 12, values to one decimal, so with equal values; in the fixture).
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "data" / "mlrl_boomer_breast_cancer.json"
#: How many rules after the default rule the fixture holds (on the breast variants all 1000
#: agree with mlrl-boomer's; on sparse-small the 14th differs, specs §7).
FIXTURE_RULES = {"breast": 300, "breast-missing": 300, "breast-nominal": 300,
                 "sparse-small": 300}
#: How many small random problems each small fixture holds, and rules after the default rule.
SMALL_CASES, SMALL_RULES = 120, 6

#: mlrl-boomer's settings that switch off everything but the rule search itself.
MLRL_OFF = dict(instance_sampling="none", output_sampling="none", holdout="none",
                feature_binning="none", label_binning="none", rule_pruning="none",
                global_pruning="none", sequential_post_optimization="false",
                parallel_rule_refinement="false", parallel_statistic_update="false",
                parallel_prediction="false", statistic_type="64-bit", head_type="single")

MLRL_CHILD = """
import json, sys, time
import numpy as np
from mlrl.boosting.learners import BoomerClassifier
data = np.load(sys.argv[1])
settings = json.loads(sys.argv[2])
repeats = int(sys.argv[3])
if "indptr" in data:
    import scipy.sparse
    X = scipy.sparse.csc_matrix((data["values"], data["indices"], data["indptr"]),
                                shape=tuple(data["shape"]))
else:
    X = data["X"]
kwargs = {"nominal_feature_indices": data["nominal"].tolist()} if len(data["nominal"]) else {}
seconds = []
for _ in range(repeats):
    model = BoomerClassifier(**settings)
    start = time.perf_counter()
    model.fit(X, data["y"], **kwargs)
    seconds.append(time.perf_counter() - start)
rules = [{"conditions": sorted((int(c.feature_index), str(c.comparator), float(c.threshold))
                               for c in rule.body),
          "head": {int(p.output_index): float(p.value) for p in rule.head}}
         for rule in model.model_]
print(json.dumps({"seconds": seconds, "rules": rules}))
"""


def dataset(name):
    """(X, y, nominal feature indices) of a dataset; X is a CSC matrix for "sparse"."""
    rng = np.random.default_rng(0)
    if name.startswith("breast"):
        from sklearn.datasets import load_breast_cancer
        X, y = load_breast_cancer(return_X_y=True)
        if name == "breast-missing":          # 5% of the values missing
            X = np.where(rng.random(X.shape) < 0.05, np.nan, X)
        if name == "breast-nominal":          # features 0-4 as their quartile (0..3), nominal
            for j in range(5):
                X[:, j] = np.searchsorted(np.quantile(X[:, j], [0.25, 0.5, 0.75]), X[:, j])
            return X, y, [0, 1, 2, 3, 4]
        return X, y, []
    if name.startswith("sparse"):             # 5 000 x 40, 90% zeros, given as CSC
        import scipy.sparse
        n, f, digits = (5_000, 40, 2) if name == "sparse" else (600, 12, 1)
        X = rng.normal(size=(n, f)).round(digits) * (rng.random((n, f)) < 0.1)
        y = (X[:, :4].sum(axis=1) + rng.normal(size=n) * 0.3 > 0).astype(int)
        return scipy.sparse.csc_matrix(X), y, []
    X = rng.normal(size=(20_000, 50))
    logit = X[:, :5] @ [1.5, -1.0, 0.8, 0.5, -0.5] + 1.2 * X[:, 5] * X[:, 6] \
        - (X[:, 7] > 1) * 1.5
    y = (rng.random(20_000) < 1 / (1 + np.exp(-logit))).astype(int)
    return X, y, []


def save(path, X, y, nominal):
    """The data of a dataset as the mlrl-boomer child reads them."""
    if hasattr(X, "indptr"):
        np.savez(path, values=X.data, indices=X.indices, indptr=X.indptr, shape=X.shape, y=y,
                 nominal=np.array(nominal, dtype=np.int64))
    else:
        np.savez(path, X=X, y=y, nominal=np.array(nominal, dtype=np.int64))


def run_mlrl(python, path, n_rules, sampling, repeats, histogram=False):
    settings = dict(MLRL_OFF, max_rules=n_rules + 1,
                    feature_sampling="without-replacement" if sampling else "none",
                    feature_binning="equal-width" if histogram else "none")
    output = subprocess.run([python, "-c", MLRL_CHILD, path, json.dumps(settings),
                             str(repeats)], check=True, capture_output=True, text=True)
    return json.loads(output.stdout)


def run_optrules(X, y, n_rules, sampling, engine, repeats, histogram=False, nominal=()):
    from optrules.boosted_rules import fit_boosted_rules
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        # mlrl_compatible reproduces mlrl-boomer's dense search (on sparse data, its sparse
        # search takes other boundaries): sparse data get optrules' own sparse search
        compatible = not histogram and not hasattr(X, "indptr")
        model = fit_boosted_rules(X, y, max_rules=n_rules, feature_sampling=sampling,
                                  mlrl_compatible=compatible, engine=engine, random_state=0,
                                  binning="width:0.33" if histogram else None,
                                  nominal_features=list(nominal))
        seconds.append(time.perf_counter() - start)
    rules = [{"conditions": sorted((c.feature, c.operator, c.threshold) for c in rule.conditions),
              "head": {k: s for k, s in zip(rule.outputs, rule.scores)}}
             for rule in model.rules]
    return {"seconds": seconds, "rules": rules}


def identical_prefix(ours, theirs):
    """How many leading rules agree: same conditions, outputs, and heads to 1e-9."""
    count = 0
    for a, b in zip(ours, theirs):
        heads = {int(k): v for k, v in b["head"].items()}
        if [tuple(c) for c in a["conditions"]] != [tuple(c) for c in b["conditions"]] or \
                sorted(a["head"]) != sorted(heads) or \
                any(abs(a["head"][k] - heads[k]) > 1e-9 * max(1, abs(heads[k]))
                    for k in heads):
            break
        count += 1
    return count


MLRL_CASES_CHILD = """
import json, sys
import numpy as np, scipy.sparse
from mlrl.boosting.learners import BoomerClassifier
cases, settings = json.load(sys.stdin), json.loads(sys.argv[1])
for case in cases:
    X = np.array(case["X"], dtype=float)
    model = BoomerClassifier(**settings)
    kwargs = {"nominal_feature_indices": case["nominal"]} if case.get("nominal") else {}
    model.fit(scipy.sparse.csc_matrix(X) if case.get("sparse", True) else X,
              np.array(case["y"]), **kwargs)
    case["rules"] = [{"conditions": sorted([int(c.feature_index), str(c.comparator),
                                            float(c.threshold)] for c in rule.body),
                      "head": {int(p.output_index): float(p.value) for p in rule.head}}
                     for rule in model.model_]
print(json.dumps(cases))
"""


def small_sparse_cases(n_cases, seed=2026):
    """``n_cases`` small random binary problems: dict of X (rows of floats, None missing) and
    y.
    Every X has a stored value (mlrl-boomer 0.12.3 fails on a CSC matrix without one)."""
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < n_cases:
        n, f = int(rng.integers(8, 40)), int(rng.integers(1, 4))
        X = np.zeros((n, f))
        for j in range(f):
            stored = rng.random(n) < rng.uniform(0.1, 0.9)
            X[stored, j] = np.round(rng.uniform(-2, 3, stored.sum()), int(rng.integers(0, 2)))
            if rng.random() < 0.3:
                X[rng.random(n) < 0.15, j] = np.nan
        y = (rng.random(n) < 1 / (1 + np.exp(-np.nan_to_num(X[:, 0])))).astype(int)
        y[0] = 1 - y[0] if y.min() == y.max() else y[0]
        if (X != 0).any():
            cases.append({"X": [[None if np.isnan(v) else v for v in row] for row in X.tolist()],
                          "y": y.tolist()})
    return cases


def small_nominal_cases(n_cases, seed=2027):
    """``n_cases`` small random binary problems with nominal features, dense: dict of X (rows,
    None missing), y and the nominal feature indices."""
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(n_cases):
        n, f = int(rng.integers(8, 40)), int(rng.integers(1, 4))
        X, nominal = np.zeros((n, f)), []
        for j in range(f):
            if rng.random() < 0.7:
                low = int(rng.integers(-2, 2))
                X[:, j] = rng.integers(low, low + int(rng.integers(2, 6)), size=n)
                nominal.append(j)
            else:
                X[:, j] = np.round(rng.uniform(-2, 3, n), 1)
            if rng.random() < 0.4:
                X[rng.random(n) < rng.uniform(0.05, 0.25), j] = np.nan
        y = (rng.random(n) < 1 / (1 + np.exp(-np.nan_to_num(X[:, 0]) + 1))).astype(int)
        y[0] = 1 - y[0] if y.min() == y.max() else y[0]
        cases.append({"X": [[None if np.isnan(v) else v for v in row] for row in X.tolist()],
                      "y": y.tolist(), "nominal": nominal, "sparse": False})
    return cases


#: The small fixtures: file, generator, and how the generator's X is given to both tools.
SMALL_FIXTURES = {
    "sparse": (ROOT / "tests" / "data" / "mlrl_boomer_small_sparse.json", small_sparse_cases,
               "scipy.sparse.csc_matrix(X) (null: NaN, missing)"),
    "nominal": (ROOT / "tests" / "data" / "mlrl_boomer_small_nominal.json",
                small_nominal_cases, "X (null: NaN, missing) with nominal_feature_indices"),
}


def write_small_fixtures(python):
    settings = dict(MLRL_OFF, max_rules=SMALL_RULES + 1, feature_sampling="none")
    for name, (path, generate, given) in SMALL_FIXTURES.items():
        cases = json.dumps(generate(SMALL_CASES))
        output = subprocess.run([python, "-c", MLRL_CASES_CHILD, json.dumps(settings)],
                                input=cases, check=True, capture_output=True, text=True)
        fixture = {"source": "mlrl-boomer 0.12.3, BoomerClassifier(max_rules="
                             f"{SMALL_RULES + 1}, head_type='single', statistic_type="
                             "'64-bit', every sampling, binning, pruning, post-optimisation and "
                             f"parallelism off) on {given} and y of benchmarks/boosted_rules.py's "
                             f"{generate.__name__}; conditions sorted",
                   "cases": json.loads(output.stdout)}
        path.write_text(json.dumps(fixture, separators=(",", ":")) + "\n")
        print(f"wrote {path} ({SMALL_CASES} cases)")


def write_fixture(python):
    from sklearn.datasets import load_breast_cancer
    original = load_breast_cancer(return_X_y=True)[0]
    datasets = {}
    for name, n_rules in FIXTURE_RULES.items():
        X, y, nominal = dataset(name)
        with tempfile.TemporaryDirectory() as folder:
            path = f"{folder}/data.npz"
            save(path, X, y, nominal)
            result = run_mlrl(python, path, n_rules, False, 1)
        if hasattr(X, "indptr"):              # the matrix itself (CSC)
            datasets[name] = {"csc": {"data": X.data.tolist(), "indices": X.indices.tolist(),
                                      "indptr": X.indptr.tolist(), "shape": list(X.shape)},
                              "y": y.tolist(), "nominal": nominal, "rules": result["rules"]}
            continue
        changed = ~((X == original) | np.isnan(X))
        datasets[name] = {
            "nominal": nominal,
            "missing": np.argwhere(np.isnan(X)).tolist(),
            "columns": {str(j): X[:, j].tolist() for j in np.flatnonzero(changed.any(axis=0))},
            "rules": result["rules"]}
    fixture = {"source": "mlrl-boomer 0.12.3, BoomerClassifier(max_rules=n + 1, "
                         "head_type='single', statistic_type='64-bit', every sampling, binning, "
                         "pruning, post-optimisation and parallelism off) on "
                         "sklearn.datasets.load_breast_cancer() with the given examples' values "
                         "missing and the given columns replaced (declared nominal to "
                         "mlrl-boomer as nominal_feature_indices), or on the given CSC matrix "
                         "and labels; conditions sorted",
               "datasets": datasets}
    FIXTURE.write_text(json.dumps(fixture, separators=(",", ":")) + "\n")
    counts = ", ".join(f"{name}: {len(d['rules'])} rules" for name, d in datasets.items())
    print(f"wrote {FIXTURE} ({counts})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["breast", "synthetic"],
                        choices=["breast", "synthetic", "breast-missing", "breast-nominal",
                                 "sparse", "sparse-small"])
    parser.add_argument("--rules", type=int, default=1000)
    parser.add_argument("--sampling", nargs="+", default=["on", "off"], choices=["on", "off"])
    parser.add_argument("--search", nargs="+", default=["dense", "histogram"],
                        choices=["dense", "histogram"])
    parser.add_argument("--engine", default="fast", choices=["fast", "reference"])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--mlrl", metavar="PYTHON", help="python of mlrl-boomer's environment")
    parser.add_argument("--write-fixture", action="store_true")
    parser.add_argument("--write-small-fixtures", action="store_true")
    args = parser.parse_args()
    if args.write_fixture:
        write_fixture(args.mlrl or sys.executable)
        return
    if args.write_small_fixtures:
        write_small_fixtures(args.mlrl or sys.executable)
        return
    print(f"{'data':10} {'search':9} {'sampling':8} {'rules':>6} {'optrules s':>10} "
          f"{'mlrl s':>8} {'ratio':>6} {'same first rules':>16}")
    for name in args.datasets:
        X, y, nominal = dataset(name)
        with tempfile.TemporaryDirectory() as folder:
            path = f"{folder}/{name}.npz"
            save(path, X, y, nominal)
            for search in args.search:
                histogram = search == "histogram"
                for sampling in args.sampling:
                    on = sampling == "on"
                    ours = run_optrules(X, y, args.rules, on, args.engine, args.repeats,
                                        histogram, nominal)
                    ours_s = float(np.median(ours["seconds"]))
                    line = f"{name:10} {search:9} {sampling:8} {args.rules:>6} {ours_s:>10.2f}"
                    if args.mlrl:
                        theirs = run_mlrl(args.mlrl, path, args.rules, on, args.repeats,
                                          histogram)
                        theirs_s = float(np.median(theirs["seconds"]))
                        same = "-" if on or histogram or name == "sparse" else \
                            str(identical_prefix(ours["rules"], theirs["rules"]))
                        line += f" {theirs_s:>8.2f} {ours_s / theirs_s:>6.2f} {same:>16}"
                    print(line, flush=True)


if __name__ == "__main__":
    main()
