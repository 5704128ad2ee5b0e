"""``optrules boomer``: greedy gradient-boosted rules (BOOMER, Rapp et al. 2023)."""

import sys

import numpy as np

from optrules.cli.json_output import json_text
from optrules.boosted_rules.estimator import BoostedRulesClassifier, BoostedRulesRegressor
from optrules.boosted_rules.fit import ENGINES
from optrules.boosted_rules.heads import HEADS
from optrules.boosted_rules.losses import LOSSES
from optrules.data.table import Features, read_csv

from .arguments import (add_limit_arguments, add_progress_arguments, non_negative_float,
                        non_negative_int, remaining_time, verbosity)

__all__ = ["add_parser"]


def add_parser(commands):
    parser = commands.add_parser(
        "boomer", help="greedy gradient-boosted rules (BOOMER)",
        description="Learn a default rule and then boosted rules greedily, each grown "
                    "condition by condition with the pre-sorted search (Rapp et al. 2023).",
        epilog="example: optrules boomer --csv data.csv --target y --max-rules 100 "
               "--feature-sampling off")
    data = parser.add_argument_group("data")
    data.add_argument("--csv", metavar="FILE", required=True, help="table with a header row")
    data.add_argument("--target", metavar="COL[,COL...]", required=True,
                      help="target column (two classes for the logistic loss, numbers for the "
                           "squared loss), or several comma-separated 0/1 label columns "
                           "(multi-label) or numeric columns")
    model = parser.add_argument_group("model")
    model.add_argument("--max-rules", type=non_negative_int, default=1000, metavar="T",
                       help="rules after the default rule (default 1000)")
    model.add_argument("--loss", choices=list(LOSSES), default="logistic")
    model.add_argument("--head", choices=list(HEADS), default="single",
                       help="one output per rule (default) or all outputs")
    model.add_argument("--label-binning", type=non_negative_float, metavar="R",
                       help="with --loss example-wise-logistic: label binning with bin ratio "
                            "R in (0, 1) (mlrl-boomer uses 0.04); default none")
    model.add_argument("--shrinkage", type=float, default=0.3, help="default 0.3")
    model.add_argument("--l1", type=non_negative_float, default=0.0, help="default 0")
    model.add_argument("--l2", type=non_negative_float, default=1.0, help="default 1")
    model.add_argument("--max-conditions", type=int, metavar="K")
    model.add_argument("--min-coverage", type=int, default=1, metavar="N")
    search = parser.add_argument_group("search")
    search.add_argument("--feature-sampling", choices=("on", "off"), default="on",
                        help="search log2(F-1)+1 random features per condition (default on)")
    search.add_argument("--instance-sampling", default="none",
                        metavar="none|with:R|without:R|stratified:R",
                        help="learn each rule on a sample of R·n examples (default none)")
    search.add_argument("--holdout", default="none", metavar="none|R",
                        help="set a share R of the examples aside for the holdout loss curve "
                             "and early stopping (default none)")
    search.add_argument("--patience", type=int, default=50, metavar="K",
                        help="with --holdout: stop after K rules without a new least holdout "
                             "loss (default 50)")
    search.add_argument("--binning", default="none", metavar="none|width:R|frequency:R",
                        help="histogram-based search with R bins per distinct value "
                             "(default none: the pre-sorted search)")
    search.add_argument("--seed", type=non_negative_int, metavar="S",
                        help="random seed of the sampling and the holdout split")
    search.add_argument("--mlrl-compatible", action="store_true",
                        help="reproduce mlrl-boomer 0.12.3's numerical search, quirks included")
    search.add_argument("--n-jobs", type=int, default=1, metavar="N",
                        help="threads searching the features at once (default 1; the same "
                             "rules)")
    search.add_argument("--engine", choices=sorted(ENGINES), default="fast",
                        help="fast (default) or reference (follows the paper line by line): "
                             "the same rules")
    add_limit_arguments(search, "stop after SEC seconds of the whole command (reading "
                                "included), keeping the rules learned so far")
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print one JSON object")
    output.add_argument("--save-model", metavar="FILE", help="write the model as JSON")
    add_progress_arguments(output)
    parser.set_defaults(run=run, parser=parser)


def _holdout(text):
    """--holdout: None for "none", else the share (the estimator checks its range)."""
    if text == "none":
        return None
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"--holdout must be none or a number in (0, 1). Got {text!r}.") \
            from None


def read_targets(path, targets, loss):
    """(features, y) of a CSV file: ``y`` is the target column, or a 2-D array of the
    comma-separated target columns (0/1 labels for the logistic loss)."""
    names = [name.strip() for name in targets.split(",")]
    if len(names) == 1:
        features, y = read_csv(path, names[0])
        if loss == "squared":
            y = _numeric(path, names[0], y)
        return features, y
    if len(set(names)) != len(names):
        raise ValueError(f"--target names a column twice: {targets!r}.")
    if "" in names:
        raise ValueError(f"--target has an empty column name: {targets!r}.")
    features, _ = read_csv(path)
    columns = [_numeric(path, name, features.column(name)) for name in names]
    for name, column in zip(names, columns):
        if loss != "squared" and not np.isin(column, (0.0, 1.0)).all():
            value = column[~np.isin(column, (0.0, 1.0))][0]
            raise ValueError(f"{path}: target column {name!r} must hold 0/1 labels (several "
                             f"target columns are labels for the {loss} loss); it has "
                             f"{value:g}.")
    kept = [j for j, name in enumerate(features.names) if name not in names]
    if not kept:
        raise ValueError(f"{path}: --target names every column; none is left as a feature.")
    rest = Features(tuple(features.names[j] for j in kept),
                    tuple(features.columns[j] for j in kept),
                    tuple(features.numeric[j] for j in kept))
    return rest, np.column_stack(columns)


def _numeric(path, name, column):
    values = np.asarray(column, dtype=object)
    try:
        numbers = values.astype(float)
    except (TypeError, ValueError):
        numbers = None
    if numbers is None or not np.isfinite(numbers).all():
        raise ValueError(f"{path}: target column {name!r} must hold numbers in every row.")
    return numbers


def run(args, parser):
    features, y = read_targets(args.csv, args.target, args.loss)
    estimator_class = BoostedRulesRegressor if args.loss == "squared" else BoostedRulesClassifier
    estimator = estimator_class(
        args.max_rules, loss=args.loss, head=args.head, shrinkage=args.shrinkage, l1=args.l1,
        l2=args.l2, feature_sampling=args.feature_sampling == "on",
        instance_sampling=None if args.instance_sampling == "none" else args.instance_sampling,
        holdout=_holdout(args.holdout), patience=args.patience,
        binning=None if args.binning == "none" else args.binning,
        min_coverage=args.min_coverage, max_conditions=args.max_conditions,
        mlrl_compatible=args.mlrl_compatible, engine=args.engine, random_state=args.seed,
        n_jobs=args.n_jobs, label_binning=args.label_binning,
        time_limit=remaining_time(args), max_memory=args.max_memory,
        verbose=int(verbosity(args) == 2)).fit(features, y)
    model = estimator.model_
    if args.json:
        print(json_text(model.to_dict()))
    else:
        print(estimator)
        holdout = f", holdout loss {model.holdout_loss[0]:.4f} -> {model.holdout_loss[-1]:.4f}" \
            if model.holdout_loss else ""
        print(f"{len(model.rules) - 1} of {args.max_rules} rules after the default rule "
              f"({model.status}), {args.loss} loss, training loss "
              f"{model.training_loss[0]:.4f} -> {model.training_loss[-1]:.4f}{holdout}, "
              f"{model.seconds:.2f} s")
    sys.stdout.flush()       # printed first: a file that cannot be written must not cost it
    if args.save_model:
        estimator.to_json(args.save_model)
    return 0
