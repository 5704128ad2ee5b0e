"""Argument types, option groups and data loading shared by the subcommands."""

import argparse
from fractions import Fraction
from pathlib import Path

import numpy as np

from optrules.data.corels_files import load_corels
from optrules.data.mining import mine_antecedents
from optrules.data.table import read_csv, read_csv_columns
from optrules.rule_lists.fit import BOUNDS, ENGINES, POLICIES, SYMMETRY_MAPS
from optrules.validation import parse_fraction

__all__ = ["positive_int", "positive_float", "add_rulelist_arguments", "load_dataset",
           "read_features_and_target", "check_output_paths"]


def positive_int(text):
    """argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def positive_float(text):
    """argparse type: a finite number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def add_rulelist_arguments(parser):
    """Data, mining, search and output options of ``rulelist`` and ``verify rulelist``."""
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
    mining.add_argument("--max-cardinality", type=positive_int, default=2, metavar="K",
                        help="items per antecedent (default 2)")
    mining.add_argument("--min-support", default="0.005", metavar="S",
                        help="keep antecedents with support in [S, 1-S] (default 0.005)")
    mining.add_argument("--max-thresholds", type=positive_int, default=9, metavar="T",
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
    search.add_argument("--max-nodes", type=positive_int, metavar="N")
    search.add_argument("--max-queue", type=positive_int, metavar="N",
                        help="memory limit: stop when more than N prefixes are queued")
    search.add_argument("--time-limit", type=positive_float, metavar="SEC")
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print one JSON object")
    output.add_argument("--save-model", metavar="FILE", help="write the rule list as JSON")
    output.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def load_dataset(args, parser):
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


def read_features_and_target(path, target, loss, rows=None):
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


def check_output_paths(args):
    """Refuse an output file whose folder does not exist before any long computation."""
    for option in ("save_model", "certificate"):
        path = getattr(args, option, None)
        if path is not None and not Path(path).resolve().parent.is_dir():
            raise ValueError(f"--{option.replace('_', '-')}: the folder of {path} does not "
                             "exist.")
