"""optrules: certifiably optimal rule lists, optimal rule boosting, and their verification.

Commands: ``optrules rulelist``, ``optrules boost``, ``optrules verify`` and ``optrules demo``.

Exit status: 0 on success (also when a limit stopped the search: the output says so and gives
the optimality gap), 2 for bad arguments or input files.
"""

import argparse
import json
import sys
from fractions import Fraction

import numpy as np
from importlib import resources
from pathlib import Path

from optrules.boosting import ENGINES as BOOST_ENGINES
from optrules.boosting import SEARCHES, fit_rule_ensemble
from optrules.corels_format import load_corels
from optrules.losses import LOSSES
from optrules.mining import mine_antecedents
from optrules.params import parse_fraction
from optrules.rule_lists import BOUNDS, ENGINES, POLICIES, SYMMETRY_MAPS, ProgressLog, fit_rule_list
from optrules.synthetic import noisy_parity
from optrules.table import read_csv, read_csv_columns

__all__ = ["main", "bundled_compas_csv"]

COMPAS_TARGET = "recidivate-within-two-years"


def bundled_compas_csv():
    """Path-like of the bundled ProPublica COMPAS training split (6489 rows)."""
    return resources.files("optrules") / "data" / "compas_train.csv"


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def _positive_float(text):
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def _add_rulelist_arguments(parser):
    source = parser.add_argument_group("data (either a CSV table or CORELS files)")
    source.add_argument("--csv", metavar="FILE", help="categorical/numeric table with a header")
    source.add_argument("--target", metavar="COL", help="label column of --csv")
    source.add_argument("--positive", metavar="VALUE",
                        help="positive class of --target (default: 1 for 0/1, else the larger)")
    source.add_argument("--corels-out", metavar="F", help="antecedent file (.out)")
    source.add_argument("--corels-label", metavar="F", help="label file (.label)")
    source.add_argument("--corels-minor", metavar="F",
                        help="equivalent-points file (.minor); computed when absent")
    mining = parser.add_argument_group("antecedent mining (with --csv)")
    mining.add_argument("--max-cardinality", type=_positive_int, default=2, metavar="K",
                        help="items per antecedent (default 2)")
    mining.add_argument("--min-support", default="0.005", metavar="S",
                        help="keep antecedents with support in [S, 1-S] (default 0.005)")
    mining.add_argument("--max-thresholds", type=_positive_int, default=9, metavar="T",
                        help="cut points per numeric column (default 9)")
    search = parser.add_argument_group("search")
    search.add_argument("--lam", required=True, metavar="λ",
                        help="penalty per rule, exact: 0.01 means 1/100")
    search.add_argument("--engine", choices=sorted(ENGINES), default="reference")
    search.add_argument("--policy", choices=POLICIES, default="lower-bound")
    search.add_argument("--map", choices=SYMMETRY_MAPS, default="prefix", dest="symmetry_map",
                        help="symmetry map: prefix permutation, captured vector, or none")
    search.add_argument("--disable-bound", action="append", default=[], choices=sorted(BOUNDS),
                        metavar="NAME",
                        help=f"switch a bound off (repeatable): {', '.join(BOUNDS)}")
    search.add_argument("--max-nodes", type=_positive_int, metavar="N")
    search.add_argument("--max-queue", type=_positive_int, metavar="N",
                        help="memory limit: stop when more than N prefixes are queued")
    search.add_argument("--time-limit", type=_positive_float, metavar="SEC")
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print one JSON object")
    output.add_argument("--save-model", metavar="FILE", help="write the rule list as JSON")
    output.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def _load_dataset(args, parser):
    """The BinaryDataset named by the data options (exactly one source)."""
    from_csv = args.csv is not None
    from_corels = args.corels_out is not None or args.corels_label is not None
    if from_csv == from_corels:
        parser.error("give either --csv FILE --target COL, or --corels-out F --corels-label F")
    if from_csv:
        if args.target is None:
            parser.error("--csv needs --target COL")
        min_support = parse_fraction("--min-support", args.min_support, low=0, high=Fraction(1, 2),
                                     function="optrules rulelist", low_inclusive=True)
        table = read_csv(args.csv, args.target, args.positive)
        return mine_antecedents(table, args.max_cardinality, min_support, args.max_thresholds)
    if args.corels_out is None or args.corels_label is None:
        parser.error("CORELS input needs both --corels-out and --corels-label")
    return load_corels(args.corels_out, args.corels_label, args.corels_minor)


def _run_rulelist(args, parser):
    dataset = _load_dataset(args, parser)
    lam = parse_fraction("--lam", args.lam, low=0, high=1, function="optrules rulelist")
    result = fit_rule_list(dataset, lam, engine=args.engine, policy=args.policy,
                           symmetry_map=args.symmetry_map, disabled_bounds=args.disable_bound,
                           max_nodes=args.max_nodes, max_queue=args.max_queue,
                           time_limit=args.time_limit,
                           progress=None if args.quiet else ProgressLog(10.0))
    if args.save_model:
        result.rule_list.save(args.save_model)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        print(result.rule_list)
        print(result.summary())
    return 0


def _add_boost_arguments(parser):
    data = parser.add_argument_group("data")
    data.add_argument("--csv", metavar="FILE", required=True, help="table with a header row")
    data.add_argument("--target", metavar="COL", required=True, help="target column")
    data.add_argument("--positive", metavar="VALUE", help="positive class (logistic loss)")
    model = parser.add_argument_group("model")
    model.add_argument("--loss", choices=list(LOSSES), default="logistic")
    model.add_argument("--rules", type=_positive_int, default=10, metavar="K",
                       help="number of rules (default 10)")
    model.add_argument("--lam", default="2", metavar="λ",
                       help="regularisation λ >= 0 of eq. 2.2-2.3, exact (default 2)")
    model.add_argument("--intercept", action="store_true",
                       help="add a first rule with the empty query (not counted in --rules)")
    search = parser.add_argument_group("search")
    search.add_argument("--search", choices=list(SEARCHES), default="optimal")
    search.add_argument("--thresholds", default="quantile:10", metavar="all|quantile:K|width:K",
                        help="numeric cut points (default quantile:10)")
    search.add_argument("--max-depth", type=_positive_int, metavar="D")
    search.add_argument("--apx", default="1", metavar="α",
                        help="approximation factor in (0, 1] (default 1: optimal)")
    search.add_argument("--engine", choices=sorted(BOOST_ENGINES), default="reference")
    search.add_argument("--max-nodes", type=_positive_int, metavar="N", help="per rule")
    search.add_argument("--time-limit", type=_positive_float, metavar="SEC", help="per rule")
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print one JSON object")
    output.add_argument("--save-model", metavar="FILE", help="write the ensemble as JSON")
    output.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def _training_summary(ensemble, X, y):
    """Training accuracy (logistic) or mean loss, as a (name, value) pair."""
    if getattr(ensemble.loss, "classes", None) is not None:
        return "training_accuracy", float(np.mean(ensemble.predict(X) == np.asarray(y)))
    target = ensemble.loss.prepare_target(y)
    return "training_loss", float(np.mean(ensemble.loss.loss(target,
                                                             ensemble.decision_function(X))))


def _read_features_and_target(path, target, loss, rows=None):
    """Feature columns and target of a CSV file for boosting (numeric target unless logistic)."""
    columns = read_csv_columns(path)
    if target not in columns:
        raise ValueError(f"{path}: target column {target!r} not found; columns are "
                         f"{sorted(columns)}.")
    rows = slice(None) if rows is None else slice(0, rows)
    y = np.array(columns.pop(target), dtype=object)[rows]
    missing = np.flatnonzero(y == "")
    if missing.size:
        raise ValueError(f"{path}: target column {target!r} is missing in {missing.size} "
                         f"row(s) (first: data row {missing[0] + 1}).")
    if loss != "logistic":
        try:
            y = y.astype(float)
        except ValueError as error:
            raise ValueError(f"{path}: target column {target!r} must be numeric for the {loss} "
                             f"loss ({error}).") from error
    return {name: cells[rows] for name, cells in columns.items()}, y


def _run_boost(args, parser):
    columns, y = _read_features_and_target(args.csv, args.target, args.loss)
    progress = None if args.quiet else (
        lambda t, rule: print(f"rule {t + 1}: {rule}", file=sys.stderr, flush=True))
    ensemble = fit_rule_ensemble(columns, y, loss=args.loss, n_rules=args.rules, lam=args.lam,
                                 search=args.search, thresholds=args.thresholds,
                                 max_depth=args.max_depth, apx=args.apx, engine=args.engine,
                                 intercept=args.intercept, positive=args.positive,
                                 max_nodes=args.max_nodes, time_limit=args.time_limit,
                                 progress=progress)
    if args.save_model:
        ensemble.save(args.save_model)
    metric, value = _training_summary(ensemble, columns, y)
    if args.json:
        print(json.dumps(dict(ensemble.to_dict(), **{metric: value}), indent=2))
    else:
        print(ensemble)
        print(f"{len(ensemble.rules)} rules, {args.loss} loss, lambda {args.lam}, "
              f"{args.search} search, {metric.replace('_', ' ')} {value:.4f}, "
              f"{ensemble.seconds:.2f} s")
    return 0


def _run_demo(args, parser):
    lam = "0.015"
    print(f"Certifiably optimal rule list on the bundled ProPublica COMPAS training split "
          f"(6489 rows), antecedents of up to 2 items with support >= 0.005, lambda = {lam}:\n")
    with resources.as_file(bundled_compas_csv()) as path:
        table = read_csv(path, COMPAS_TARGET)
    dataset = mine_antecedents(table, max_cardinality=2)
    print(f"{dataset.n_antecedents} antecedents mined.")
    result = fit_rule_list(dataset, lam)
    print(result.rule_list)
    print(result.summary())
    print("\nOptimal versus greedy rule boosting on noisy parity (d = 3, n = 800, logistic loss, "
          "lambda = 2, 5 rules each):")
    X, y = noisy_parity(800, d=3, seed=1)
    for search in ("optimal", "greedy"):
        ensemble = fit_rule_ensemble(X, y, n_rules=5, lam=2, search=search,
                                     thresholds="quantile:5")
        accuracy = float(np.mean(ensemble.predict(X) == y))
        print(f"\n{search} rules (training accuracy {accuracy:.4f}, {ensemble.seconds:.2f} s):")
        print(ensemble)
    return 0


def _parser():
    parser = argparse.ArgumentParser(prog="optrules", description=__doc__.splitlines()[0],
                                     epilog="Run 'optrules COMMAND --help' for its options.")
    commands = parser.add_subparsers(dest="command", required=True)
    rulelist = commands.add_parser("rulelist", help="certifiably optimal rule list (CORELS)")
    _add_rulelist_arguments(rulelist)
    rulelist.set_defaults(run=_run_rulelist, parser=rulelist)
    boost = commands.add_parser("boost", help="gradient boosting of optimal (or greedy) rules")
    _add_boost_arguments(boost)
    boost.set_defaults(run=_run_boost, parser=boost)
    from optrules.verify.cli import add_verify_parser  # verify builds on this module
    add_verify_parser(commands)
    demo = commands.add_parser("demo", help="run the main job on bundled data")
    demo.set_defaults(run=_run_demo, parser=demo)
    return parser


def main(argv=None):
    """Entry point of the ``optrules`` command; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        _check_output_paths(args)
        return args.run(args, args.parser)
    except (ValueError, TypeError, OSError) as error:
        print(f"optrules {args.command}: error: {error}", file=sys.stderr)
        return 2


def _check_output_paths(args):
    """Refuse an output file whose folder does not exist before any long computation."""
    for option in ("save_model", "certificate"):
        path = getattr(args, option, None)
        if path is not None and not Path(path).resolve().parent.is_dir():
            raise ValueError(f"--{option.replace('_', '-')}: the folder of {path} does not "
                             "exist.")


if __name__ == "__main__":
    sys.exit(main())
