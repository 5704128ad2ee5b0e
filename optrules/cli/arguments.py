"""Argument types, option groups and data loading shared by the subcommands."""

import argparse
import contextlib
import os
import time
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

import numpy as np

from optrules.base import target_classes
from optrules.data.corels_files import load_corels
from optrules.data.table import read_csv, read_weighted_csv
from optrules.data.weights import read_weights
from optrules.rule_lists.estimator import RuleListClassifier
from optrules.rule_lists.fit import BOUNDS, ENGINES, POLICIES, SYMMETRY_MAPS
from optrules.validation import parse_fraction

__all__ = ["positive_int", "positive_float", "positive_number", "share", "memory_megabytes",
           "add_limit_arguments", "remaining_time", "add_rulelist_arguments",
           "rule_list_estimator", "load_rule_list_problem", "read_rule_list_problem",
           "read_class_csv", "RuleListProblem", "check_output_paths",
           "OUTPUT_OPTIONS", "INPUT_OPTIONS"]

#: Options naming a file the command writes; each is checked writable before any work.
OUTPUT_OPTIONS = ("save_model", "certificate", "search_certificate", "output", "out", "trace",
                  "graphml")
#: Options naming files the command reads (a list for ``--recheck``); no output may be one.
#: ``rules_from`` names a file unless it is "boosted".
INPUT_OPTIONS = ("csv", "corels_out", "corels_label", "corels_minor", "sample_weights", "model",
                 "recheck", "trace_file", "certificate_file", "rules_from")


def _number_type(convert, accept, description):
    """An argparse type: ``convert(text)`` when ``accept`` holds for it, else an error saying
    what the value must be."""
    def parse(text):
        try:
            value = convert(text)
        except ValueError:
            value = None
        if value is None or not accept(value):
            raise argparse.ArgumentTypeError(f"must be {description}, got {text!r}")
        return value
    parse.__doc__ = f"argparse type: {description}."
    return parse


positive_int = _number_type(int, lambda value: value > 0, "a positive integer")
non_negative_int = _number_type(int, lambda value: value >= 0, "an integer >= 0")
non_negative_float = _number_type(float, lambda value: 0 <= value < float("inf"),
                                  "a finite number >= 0")
positive_float = _number_type(float, lambda value: 0 < value < float("inf"),
                              "a positive number of seconds")
positive_number = _number_type(float, lambda value: 0 < value < float("inf"),
                               "a positive number")
share = _number_type(float, lambda value: 0 < value < 1, "a number in (0, 1)")


def memory_megabytes(text):
    """argparse type: a memory cap in MB (> 0), "auto" (the default cap) or "none" (no cap)."""
    if text.strip().lower() in ("auto", "none"):
        return None if text.strip().lower() == "none" else "auto"
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of MB, 'auto' or 'none', "
                                         f"got {text!r}")
    return value


def add_limit_arguments(group, time_help):
    """``--time-limit`` and ``--max-memory`` in an argument group."""
    group.add_argument("--time-limit", type=positive_float, metavar="SEC", help=time_help)
    group.add_argument("--max-memory", type=memory_megabytes, default="auto", metavar="MB",
                       help="stop the search with its best result when this process's memory "
                            "reaches MB (default auto: half of the physical or container "
                            "memory; none: no cap)")


def remaining_time(args):
    """Seconds left of ``--time-limit``, counted from the command's start (None: no limit)."""
    if args.time_limit is None:
        return None
    # Real() limits must be positive: an exhausted limit stops at the first check instead.
    return max(args.time_limit - (time.perf_counter() - args.started), 1e-9)


def add_rulelist_arguments(parser):
    """Data, mining, search and output options of ``rulelist`` and ``verify rulelist``."""
    add_rule_list_data_arguments(parser)
    search = parser.add_argument_group("search")
    search.add_argument("--lam", required=True, metavar="λ",
                        help="penalty per rule, exact: 0.01 means 1/100")
    search.add_argument("--engine", choices=sorted(ENGINES), default="fast",
                        help="search engine: fast (default) or reference (follows the paper "
                             "line by line); both give the same list")
    search.add_argument("--policy", choices=POLICIES, default="lower-bound")
    search.add_argument("--map", choices=SYMMETRY_MAPS, default="prefix", dest="symmetry_map",
                        help="symmetry map: prefix permutation, captured vector, or none")
    search.add_argument("--disable-bound", action="append", default=[], choices=sorted(BOUNDS),
                        metavar="NAME",
                        help=f"switch a bound off (repeatable): {', '.join(BOUNDS)}")
    search.add_argument("--max-nodes", type=positive_int, metavar="N")
    search.add_argument("--max-queue", type=positive_int, metavar="N",
                        help="memory limit: stop when more than N prefixes are queued")
    add_limit_arguments(search, "stop with the best list so far and its exact gap after SEC "
                                "seconds of the whole command (reading and mining included)")
    add_cluster_arguments(search)
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print one JSON object")
    output.add_argument("--save-model", metavar="FILE",
                        help="write the model as JSON (optrules predict and load_model read "
                             "it)")
    add_progress_arguments(output)


def add_cluster_arguments(group):
    """``--workers N`` / ``--scheduler ADDRESS``: a distributed search (Dask)."""
    where = group.add_mutually_exclusive_group()
    where.add_argument("--workers", type=positive_int, metavar="N", dest="n_workers",
                       help="spread the search over a local Dask cluster of N processes (needs "
                            "optrules[distributed]); the same answer as one process")
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="spread the search over the Dask cluster whose scheduler listens "
                            "at ADDRESS (tcp://host:8786)")


def add_rule_list_data_arguments(parser):
    """The data, weights and mining options of the rule-list commands (``rulelist``,
    ``verify rulelist``, ``check-certificate``)."""
    source = parser.add_argument_group("data (either a CSV table or CORELS files)")
    source.add_argument("--csv", metavar="FILE", help="categorical/numeric table with a header")
    source.add_argument("--target", metavar="COL",
                        help="class column of --csv, two or more classes, ordered numbers "
                             "numerically and text lexicographically; a tie for the largest "
                             "count goes to the last class (of two: the larger, positive one)")
    source.add_argument("--corels-out", metavar="F", help="antecedent file (.out)")
    source.add_argument("--corels-label", metavar="F",
                        help="label file (.label): one line per class, in class order (of two: "
                             "negative, then positive)")
    source.add_argument("--corels-minor", metavar="F",
                        help="equivalent-points file (.minor); computed when absent")
    weights = source.add_mutually_exclusive_group()
    weights.add_argument("--sample-weights", metavar="FILE",
                         help="one weight >= 0 per line, in sample order, read exactly (2, "
                              "0.25, 1/3); the objective is then mistaken weight / total "
                              "weight + lambda * rules, and weight k counts a sample k times")
    weights.add_argument("--weight-column", metavar="COL",
                         help="likewise, each row's weight from this column of --csv (which "
                              "is then not a feature)")
    mining = parser.add_argument_group("antecedent mining (with --csv)")
    mining.add_argument("--max-cardinality", type=positive_int, default=2, metavar="K",
                        help="items per antecedent (default 2)")
    mining.add_argument("--min-support", metavar="S",
                        help="keep antecedents with support in [S, 1-S], by weight when "
                             "weighted (default: lambda, which loses no optimal list)")
    mining.add_argument("--thresholds", default="quantile:3", metavar="quantile:K|width:K|all",
                        help="cut points of numeric columns (default quantile:3)")


def rule_list_estimator(args):
    """The RuleListClassifier the rule-list options describe (exact numbers are checked here,
    so that errors name the options)."""
    command = f"optrules {args.command}" + (f" {args.kind}" if hasattr(args, "kind") else "")
    lam = parse_fraction("--lam", args.lam, low=0, high=1, function=command)
    min_support = None if args.min_support is None else parse_fraction(
        "--min-support", args.min_support, low=0, high=Fraction(1, 2), function=command,
        low_inclusive=True, high_inclusive=True)
    return RuleListClassifier(
        lam, max_cardinality=args.max_cardinality, min_support=min_support,
        thresholds=args.thresholds, policy=args.policy, symmetry_map=args.symmetry_map,
        max_nodes=args.max_nodes, max_queue=args.max_queue, time_limit=remaining_time(args),
        max_memory=args.max_memory, disabled_bounds=tuple(args.disable_bound), engine=args.engine,
        verbose=verbosity(args), certificate=getattr(args, "search_certificate", None),
        trace=getattr(args, "trace", None), n_workers=args.n_workers, scheduler=args.scheduler)


def add_progress_arguments(group):
    """``--progress`` / ``--quiet``: the progress line on stderr, always or never (by default
    it appears on a terminal after 2 s, and every 10 s in a log)."""
    switch = group.add_mutually_exclusive_group()
    switch.add_argument("--progress", action="store_true",
                        help="progress line on stderr from the start, every second when "
                             "stderr is not a terminal (elapsed time and the search's "
                             "figures: nodes, best objective and bound, queue)")
    switch.add_argument("--quiet", action="store_true", help="no progress line on stderr")


def verbosity(args):
    """The estimators' ``verbose`` level the progress options ask for."""
    return 0 if args.quiet else 2 if args.progress else 1


class RuleListProblem(NamedTuple):
    """The data a rule-list command reads: feature columns, target and weights of a CSV file
    (``dataset`` None), or the ``dataset`` of CORELS files (``features`` and ``y`` None);
    ``sample_weight`` is None when unweighted."""

    features: object
    y: object
    sample_weight: list | None
    dataset: object


def load_rule_list_problem(args, parser):
    """The data options (a CSV file, or CORELS files, and maybe weights) as a
    :class:`RuleListProblem`; a wrong combination of options is a usage error."""
    from_csv = args.csv is not None
    from_corels = args.corels_out is not None or args.corels_label is not None
    if from_csv == from_corels:
        parser.error("give either --csv FILE --target COL, or --corels-out F --corels-label F")
    if args.weight_column is not None and not from_csv:
        parser.error("--weight-column COL names a column of --csv; with CORELS files give "
                     "--sample-weights FILE")
    if from_csv:
        if args.target is None:
            parser.error("--csv needs --target COL")
        if args.weight_column == args.target:
            parser.error(f"--weight-column {args.weight_column} is the --target column; give "
                         "the column of the weights")
    elif args.corels_out is None or args.corels_label is None:
        parser.error("CORELS input needs both --corels-out and --corels-label")
    return read_rule_list_problem(
        csv=args.csv, target=args.target, weight_column=args.weight_column,
        corels=() if from_csv else (args.corels_out, args.corels_label, args.corels_minor),
        sample_weights=args.sample_weights)


def read_rule_list_problem(*, csv=None, target=None, weight_column=None, corels=(),
                           sample_weights=None):
    """The :class:`RuleListProblem` of a CSV file ``csv`` with its ``target`` column (and
    ``weight_column``), or else of the CORELS files ``corels`` (out, label[, minor]); with
    the weights of the file ``sample_weights``, one per sample."""
    if csv is not None:
        features, y, sample_weight = read_class_csv(csv, target, weight_column)
        dataset = None
    else:
        features = y = sample_weight = None
        dataset = load_corels(*corels)
    if sample_weights is not None:
        n_samples = len(y) if dataset is None else dataset.n_samples
        sample_weight = read_weights(sample_weights, n_samples)
    return RuleListProblem(features, y, sample_weight, dataset)


def read_class_csv(path, target, weight_column=None):
    """``(features, y, sample_weight)`` of a CSV file for a rule list: a target of two or more
    classes (one class, or continuous values, is a ValueError naming the file and the column;
    the estimator would name only ``y``) and, with ``weight_column``, the exact weights of that
    column (else None)."""
    if weight_column is None:
        (features, y), sample_weight = read_csv(path, target), None
    else:
        features, y, sample_weight = read_weighted_csv(path, target, weight_column)
    try:
        target_classes(y, len(y), f"The target column {target!r}")
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    return features, y, sample_weight


def check_output_paths(args):
    """Refuse, before any long computation, an output file that cannot be written (a folder, a
    missing folder, no permission, a read-only or virtual file system) or that is also an
    input or another output of the command, which writing would destroy. The error names the
    option."""
    inputs = {}
    for option in INPUT_OPTIONS:
        paths = getattr(args, option, None)
        if option == "rules_from" and paths == "boosted":
            continue
        for path in [paths] if isinstance(paths, str) else paths or ():
            inputs.setdefault(os.path.realpath(path), _option_name(args, option))
    for option in OUTPUT_OPTIONS:
        path = getattr(args, option, None)
        if path is None or (option == "output" and path == "-"):    # "-" is stdout
            continue
        name = _option_name(args, option)
        if not path.strip():
            raise ValueError(f"{name}: give a file name.")
        target = os.path.realpath(path)
        if target in inputs:
            raise ValueError(f"{name}: {path} is also {inputs[target]}; writing it would "
                             "destroy that file. Give another file name.")
        _check_writable(name, Path(target))
        inputs[target] = name


def _option_name(args, dest):
    """How the user gave the attribute ``dest``: its option (``--out`` for ``output`` in
    optrules plot, ``--certificate`` for ``search_certificate`` in optrules rulelist), or the
    metavar of a positional argument."""
    parser = getattr(args, "parser", None)
    for action in parser._actions if parser is not None else ():
        if action.dest == dest:
            return action.option_strings[-1] if action.option_strings else \
                str(action.metavar or dest.upper())
    return f"--{dest.replace('_', '-')}"


def _check_writable(option, path):
    """``path`` is the resolved output path (a symlink's target)."""
    if path.is_dir():
        raise ValueError(f"{option}: {path} is a folder; give a file name.")
    if not path.parent.is_dir():
        raise ValueError(f"{option}: the folder of {path} does not exist.")
    existed = path.exists()
    try:
        # Opening for appending is the one portable test (permissions, read-only mounts,
        # /proc); it changes nothing in an existing file.
        with open(path, "a"):
            pass
    except OSError as error:
        raise ValueError(f"{option}: cannot write {path} ({error.strerror}).") from None
    if not existed:
        with contextlib.suppress(OSError):
            path.unlink()


def rule_list_dataset(estimator, problem, antecedents, rows):
    """The dataset a rule-list command works on: the CORELS dataset of ``problem``, or the
    antecedents ``estimator`` mines from its features and target, with its sample weights;
    then only the first ``antecedents`` and ``rows`` (None: all)."""
    if problem.dataset is None:
        dataset = estimator.antecedents(problem.features, problem.y,
                                        sample_weight=problem.sample_weight)
    else:
        dataset = problem.dataset if problem.sample_weight is None \
            else problem.dataset.with_weights(problem.sample_weight)
    if rows is not None and dataset.weighted and not dataset.weights[:rows].any():
        raise ValueError(f"--rows {rows}: the first {min(rows, dataset.n_samples)} samples all "
                         "weigh 0; keep more rows.")
    if antecedents is not None or rows is not None:
        dataset = dataset.subset(
            antecedents=None if antecedents is None
            else range(min(antecedents, dataset.n_antecedents)),
            samples=None if rows is None else np.arange(min(rows, dataset.n_samples)))
    return dataset
