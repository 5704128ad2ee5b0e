"""Benchmark: optimal rule boosting by optrules' engines and by realkd 0.2.1, the package of
Boley, Teshuva, Le Bodic, Webb, "Better short than greedy: interpretable models through optimal
rule boosting", SDM 2021, on the paper's datasets and noisy parity, back to back in one run.

Run by hand (in the optrules environment with its test extra, for scikit-learn):
    python benchmarks/boosting_datasets.py [--datasets wine breast iris diabetes parity4 parity5]
        [--engine fast reference] [--rules 10] [--realkd /work/realkd-venv/bin/python]
        [--props realkd|quantile]
Each tool boosts ``--rules`` optimal rules (best-bound-first, exhaustive). Per dataset it prints
each run's wall and fit seconds, peak RSS, optrules' search nodes, evaluations, prunes by kind
and weight halvings and realkd's times as ratios of each engine's; then every rule's objective
(eq. 2.3) by each tool side by side, flagging those more than 1e-9 apart (relative). Equal
objectives can still come from tied rules, and optrules halves a weight whose step would raise
the training loss (realkd never does): either makes later rounds differ. The machine is
shared: compare ratios within one run, never absolute times across runs.

realkd lives in its own environment (sortednp 0.5.0 needs numpy < 2, optrules numpy >= 2):
    python3 -m venv /work/realkd-venv && . /work/realkd-venv/bin/activate
    pip install realkd==0.2.1 --no-deps      # its pins: bitarray==1.5.3, matplotlib
    pip install bitarray numpy pandas==2.2.3 scikit-learn sortednp sortedcontainers

Every (dataset, tool) run is a fresh child process (``--one``): realkd under ``--realkd``,
optrules under this interpreter. A first child writes the dataset (scikit-learn, or noisy parity
with n=400, seed 1) to a temporary .npz that the others read with numpy alone, so both tools get
the same bytes and neither environment needs the other's packages. os.wait4 gives a child's peak
RSS, which on Linux is at least the parent's RSS at the fork: the parent stays small. Both tools
start from bytecode: pip compiles an installed package's modules, and realkd's are; an editable
optrules run under PYTHONDONTWRITEBYTECODE=1 would instead compile its own in every child (about
40 ms), so the parent compiles them once first (:func:`compile_optrules`), as an install would.

Propositions: realkd's ``max_col_attr=2k`` makes ``x<=v`` and ``x>=v`` for the upper edges v of
k pandas.qcut bins (or every value of a column with at most k). optrules' ``quantile:(k-1)`` has
the same interior cuts, but ``x>t`` leaves out a value at t, pandas' edge may be a float just
below a data value (3.7399999999999998) and realkd also has ``x>=max``, so the optimal rules
differ. ``--props realkd`` (default) hands optrules realkd's propositions (``x>=v`` as ``x>u``, u
the largest value below v; always-true ones dropped): the same search space, so the objectives
must agree. ``--props quantile`` gives optrules ``quantile:(k-1)`` instead.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

#: name -> (loss, λ, realkd max_col_attr); n and seed of the noisy parity data.
DATASETS = {"wine": ("logistic", 2, 6), "breast": ("logistic", 2, 4),
            "iris": ("logistic", 2, 20), "diabetes": ("squared", 5, 6),
            "parity4": ("logistic", 2, 8), "parity5": ("logistic", 2, 8)}
PARITY_N, PARITY_SEED = 400, 1
#: The search statistics printed per engine (Table 2 of the paper's kinds of pruning).
PRUNE_COUNTERS = ("evaluations", "bound_immediate", "bound_propagated", "equivalence_immediate",
                  "equivalence_propagated")


def save_dataset(name, path):
    """Child: the dataset as X, y (±1 for the logistic loss) and feature names in an .npz;
    returns the shape of X."""
    if name.startswith("parity"):
        from optrules.data.synthetic import noisy_parity
        X, y = noisy_parity(PARITY_N, d=int(name[-1]), seed=PARITY_SEED)
        names = [f"x{j}" for j in range(X.shape[1])]
    else:
        from sklearn import datasets
        loader = {"wine": datasets.load_wine, "breast": datasets.load_breast_cancer,
                  "iris": datasets.load_iris, "diabetes": datasets.load_diabetes}[name]
        bunch = loader()
        X, y, names = bunch.data, bunch.target, list(bunch.feature_names)
        if DATASETS[name][0] == "logistic":    # class 1 against the rest (breast: benign)
            y = np.where(y == 1, 1, -1)
    np.savez(path, X=np.asarray(X, dtype=float), y=np.asarray(y, dtype=float),
             names=np.array(names))
    return X.shape


def realkd_propositions(X, names, max_col_attr):
    """Child under realkd: its propositions on X (Context.from_df) as [feature, op, value]."""
    import pandas as pd
    from realkd.search import Context
    context = Context.from_df(pd.DataFrame(X, columns=names), max_col_attr=max_col_attr,
                              sort_attributes=False)
    texts = [(p.key, format(p.constraint, "")) for p in context.attributes]  # "<=1.07", ">=3"
    return [[key, text[:2], float(text[2:])] for key, text in texts]


def as_optrules(X, names, items):
    """realkd's propositions as optrules ones with the same extents on X: ``x>=v`` becomes
    ``x>u``, u the largest value below v; the always-true ones are left out."""
    from optrules.data import bitset
    from optrules.data.propositions import Proposition, PropositionSet
    propositions = []
    for feature, operator, v in items:
        values = X[:, names.index(feature)]
        if operator == "<=" and v < values.max():
            propositions.append(Proposition(feature, "<=", v))
        elif operator == ">=" and v > values.min():
            propositions.append(Proposition(feature, ">", float(values[values < v].max())))
    bits = np.array([p.evaluate(X[:, names.index(p.feature)]) for p in propositions])
    return PropositionSet(tuple(propositions), bitset.pack(bits).reshape(
        len(propositions), bitset.n_words(len(X))), len(X))


def extent(held):
    """A rule's extent on the training data (a boolean vector) as hex text."""
    return np.packbits(held).tobytes().hex()


def run_optrules(engine, X, y, names, loss, lam, max_col_attr, rules, propositions):
    """Child: optrules' ensemble (on realkd's ``propositions`` when given, else on its own
    quantile thresholds); rule text, weight, objective and search statistics."""
    from optrules.rule_boosting.fit import fit_rule_ensemble
    start = time.perf_counter()
    data = X if propositions is None else as_optrules(X, names, propositions)
    ensemble = fit_rule_ensemble(data, y, loss=loss, n_rules=rules, lam=lam, engine=engine,
                                 thresholds=f"quantile:{max_col_attr // 2 - 1}",
                                 feature_names=names, max_memory=None)
    seconds = time.perf_counter() - start
    out = []
    for rule in ensemble.rules:
        held = np.ones(len(X), dtype=bool)
        for proposition in rule.conditions:
            held &= proposition.evaluate(X[:, names.index(proposition.feature)])
        out.append({"rule": str(rule), "weight": rule.weight, "extent": extent(held),
                    "objective": float(rule.objective), "nodes": rule.statistics["nodes"],
                    "statistics": rule.statistics})
    return {"seconds": seconds, "rules": out}


def run_realkd(X, y, names, loss, lam, max_col_attr, rules):
    """Child: realkd's ensemble; each rule's objective by realkd's GradientBoostingObjective at
    the scores of its round (realkd does not keep it)."""
    import pandas as pd
    from realkd.rules import GradientBoostingObjective, RuleBoostingEstimator, XGBRuleEstimator
    X, y = pd.DataFrame(X, columns=names), pd.Series(y)
    start = time.perf_counter()
    learner = XGBRuleEstimator(loss=loss, reg=lam, search="exhaustive", search_params={
        "order": "bestboundfirst", "apx": 1.0, "max_depth": None, "discretization": pd.qcut,
        "max_col_attr": max_col_attr})
    ensemble = RuleBoostingEstimator(num_rules=rules, base_learner=learner).fit(X, y).rules_
    seconds = time.perf_counter() - start
    out, scores = [], np.zeros(len(y))
    for rule in ensemble.members:
        objective = GradientBoostingObjective(X, y, predictions=scores, loss=loss, reg=lam)
        out.append({"rule": str(rule).strip(), "weight": float(rule.y),
                    "extent": extent(np.asarray(rule.q(X), dtype=bool)),
                    "objective": float(objective(objective.data.loc[rule.q].index))})
        scores = scores + rule(X)
    return {"seconds": seconds, "rules": out}


def run_one(name, tool, path, rules):
    """Child process: the data file, realkd's propositions or one ensemble (one JSON line)."""
    if tool == "save":
        print(json.dumps(save_dataset(name, path)))
        return
    with np.load(path) as data:
        X, y, names = data["X"], data["y"], [str(s) for s in data["names"]]
    settings = (X, y, names, *DATASETS[name], rules)
    if tool == "propositions":
        result = realkd_propositions(X, names, DATASETS[name][2])
    elif tool == "realkd":
        result = run_realkd(*settings)
    else:
        given = path + ".propositions.json"
        result = run_optrules(tool, *settings, json.load(open(given))
                              if os.path.exists(given) else None)
    print(json.dumps(result))


def timed(python, *arguments):
    """(wall seconds, peak RSS in MB, parsed JSON output) of one child process running this
    script (os.wait4 gives the child's own resource usage); the error's last line if it failed."""
    # the parent's modules are imported where the parent uses them: a child's wall time
    # is its tool's, and their import would add some 13 ms to it
    import subprocess
    import tempfile
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen([python, __file__, *arguments], stdout=subprocess.PIPE,
                                 stderr=err, text=True)
        out = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - start
        err.seek(0)
        result = json.loads(out) if child.returncode == 0 else \
            f"failed ({child.returncode}): {(err.read().strip().splitlines() or [''])[-1]}"
        return seconds, usage.ru_maxrss // 1024, result


def run_dataset(name, folder, tools, args):
    """Parent: one dataset's runs, a table of times and one of objectives."""
    loss, lam, max_col_attr = DATASETS[name]
    path = os.path.join(folder, f"{name}.npz")
    *_, shape = timed(sys.executable, "--one", name, "save", path)
    if isinstance(shape, str):
        raise SystemExit(f"loading {name}: {shape}")
    if args.props == "realkd":
        *_, propositions = timed(args.realkd, "--one", name, "propositions", path)
        if isinstance(propositions, str):
            raise SystemExit(f"realkd's propositions for {name}: {propositions}")
        with open(path + ".propositions.json", "w") as file:
            json.dump(propositions, file)
    print(f"\n{name} ({shape[0]} x {shape[1]}): {loss} loss, lambda={lam}, max_col_attr="
          f"{max_col_attr} (quantile:{max_col_attr // 2 - 1}), {args.rules} rules, "
          f"propositions: {args.props}")
    print(f"{'tool':>10} {'wall s':>8} {'fit s':>8} {'peak MB':>8} {'nodes':>9} {'halved':>6} "
          f"{'realkd/this wall':>16} {'fit':>6}")
    results = {}
    for tool in tools:
        seconds, peak, r = timed(args.realkd if tool == "realkd" else sys.executable, "--one",
                                 name, tool, path, "--rules", str(args.rules))
        if isinstance(r, str):
            print(f"{tool:>10} {r}")
            continue
        results[tool] = dict(r, wall=seconds)
        nodes, halved = ("", "") if tool == "realkd" else (
            sum(rule["nodes"] for rule in r["rules"]),
            sum(rule["statistics"]["step_halvings"] for rule in r["rules"]))
        base = results.get("realkd")
        ratios = f"{base['wall'] / seconds:>16.2f} {base['seconds'] / r['seconds']:>6.2f}" \
            if base and tool != "realkd" else ""
        print(f"{tool:>10} {seconds:>8.2f} {r['seconds']:>8.2f} {peak:>8} {nodes:>9} "
              f"{halved:>6} {ratios}", flush=True)
        if tool != "realkd":      # the search's work and prunes by kind, summed over the rules
            print(f"{'':>10} " + ", ".join(
                f"{kind} {sum(rule['statistics'].get(kind, 0) for rule in r['rules'])}"
                for kind in PRUNE_COUNTERS))
    print_objectives(results)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    parser.add_argument("--engine", nargs="+", default=["fast"],
                        help="optrules engines to run (default: fast, the default engine)")
    parser.add_argument("--rules", type=int, default=10)
    parser.add_argument("--realkd", default="/work/realkd-venv/bin/python",
                        help="python with realkd 0.2.1 ('' to leave realkd out)")
    parser.add_argument("--props", default="realkd", choices=["realkd", "quantile"])
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        run_one(*args.one, args.rules)
        return
    if args.props == "realkd" and not args.realkd:
        parser.error("--props realkd needs realkd (--realkd)")
    tools = (["realkd"] if args.realkd else []) + args.engine
    compile_optrules()
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        for name in args.datasets:
            run_dataset(name, folder, tools, args)


def compile_optrules():
    """Write the bytecode of optrules' modules (its package folders), as installing it does;
    in a child process, so that the parent does not import optrules."""
    import subprocess
    subprocess.run([sys.executable, "-c", (
        "import compileall, importlib.util\n"
        "for package in ('optrules', 'optrules.fast', 'optrules.reference'):\n"
        "    for folder in importlib.util.find_spec(package).submodule_search_locations:\n"
        "        compileall.compile_dir(folder, quiet=1)")], check=True)


def print_objectives(results):
    """Every rule's objective by each tool side by side; mismatches, and equal objectives of
    rules with different extents (ties), flagged with the rules."""
    tools = list(results)
    print(f"{'rule':>4} " + " ".join(f"{t + ' objective':>22}" for t in tools))
    for t in range(max((len(r["rules"]) for r in results.values()), default=0)):
        rows = [results[tool]["rules"][t] if t < len(results[tool]["rules"]) else None
                for tool in tools]
        values = [row["objective"] for row in rows if row]
        agree = len(values) == len(rows) and \
            max(values) - min(values) <= 1e-9 * max(abs(v) for v in values)
        tie = agree and len({row["extent"] for row in rows}) > 1
        flag = "   tie: other rules" if tie else "" if agree else "   MISMATCH"
        print(f"{t + 1:>4} " + " ".join(f"{row['objective']:>22.15g}" if row else f"{'-':>22}"
                                        for row in rows) + flag)
        if flag:
            for tool, row in zip(tools, rows):
                print(f"{'':>8}{tool}: {row['rule'] if row else '-'}")


if __name__ == "__main__":
    main()
