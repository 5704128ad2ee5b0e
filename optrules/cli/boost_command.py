"""``optrules boost``: gradient boosting of optimal (or greedy) conjunctive rules."""

import sys
import math

from optrules.cli.json_output import json_text
from optrules.base import binary_classes
from optrules.data.table import read_csv
from optrules.rule_boosting.estimator import (OptimalRuleBoostingClassifier,
                                              OptimalRuleBoostingRegressor)
from optrules.rule_boosting.fit import ENGINES, SEARCHES
from optrules.rule_boosting.losses import LOSSES
from optrules.validation import parse_fraction

from .arguments import (add_cluster_arguments, add_limit_arguments, add_progress_arguments,
                        positive_float, positive_int, remaining_time, verbosity)

__all__ = ["add_parser", "read_boosting_data"]


def add_parser(commands):
    parser = commands.add_parser(
        "boost", help="gradient boosting of optimal (or greedy) rules",
        description="Boost an additive ensemble of conjunctive rules, each the exact optimum "
                    "of its round's gradient objective (Boley et al. 2021).",
        epilog="example: optrules boost --csv data.csv --target y --rules 5 --lam 2 "
               "--thresholds quantile:4 --time-limit 600")
    data = parser.add_argument_group("data")
    data.add_argument("--csv", metavar="FILE", required=True, help="table with a header row")
    data.add_argument("--target", metavar="COL", required=True,
                      help="target column (two classes for the logistic loss, numbers else)")
    model = parser.add_argument_group("model")
    model.add_argument("--loss", choices=list(LOSSES), default="logistic")
    model.add_argument("--rules", type=positive_int, default=10, metavar="K",
                       help="number of rules (default 10)")
    model.add_argument("--lam", default="2", metavar="λ",
                       help="regularisation λ >= 0 of eq. 2.2-2.3, exact (default 2)")
    model.add_argument("--intercept", action="store_true",
                       help="add a first rule with the empty query (not counted in --rules)")
    search = parser.add_argument_group("search")
    search.add_argument("--search", choices=list(SEARCHES), default="optimal")
    search.add_argument("--thresholds", default="quantile:10", metavar="all|quantile:K|width:K",
                        help="numeric cut points (default quantile:10)")
    search.add_argument("--max-depth", type=positive_int, metavar="D")
    search.add_argument("--apx", default="1", metavar="α",
                        help="approximation factor in (0, 1] (default 1: optimal)")
    search.add_argument("--engine", choices=sorted(ENGINES), default="fast",
                        help="fast (default) or reference (follows the paper line by line): "
                             "the same rules")
    search.add_argument("--max-nodes", type=positive_int, metavar="N",
                        help="stop each rule's search after N nodes with its best rule and its "
                             "proven guarantee (boosting goes on)")
    search.add_argument("--rule-time-limit", type=positive_float, metavar="SEC",
                        help="likewise after SEC seconds of each rule's search")
    add_limit_arguments(search, "stop boosting after SEC seconds of the whole command (reading "
                                "included): the rule under way keeps its best so far and its "
                                "guarantee, and no further rule is searched")
    add_cluster_arguments(search)
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print one JSON object")
    output.add_argument("--save-model", metavar="FILE", help="write the model as JSON")
    add_progress_arguments(output)
    parser.set_defaults(run=run, parser=parser)


def read_boosting_data(path, target, loss, rows=None):
    """Features and target of a CSV file; the target must be two classes for the logistic
    loss, else numbers the loss takes (each a ValueError naming the file and the column: the
    estimator would name only ``y``). ``rows`` keeps only the first rows."""
    features, y = read_csv(path, target)
    if rows is not None:
        features, y = features.take(slice(0, rows)), y[:rows]
    if loss == "logistic":
        try:
            binary_classes(y, len(y), f"The target column {target!r}")
        except ValueError as error:
            raise ValueError(f"{path}: {error}") from None
        return features, y
    try:
        y = y.astype(float)
    except ValueError as error:
        raise ValueError(f"{path}: target column {target!r} must be numeric for the {loss} "
                         f"loss ({error}).") from error
    try:
        LOSSES[loss]().prepare_target(y)
    except ValueError as error:
        raise ValueError(f"{path}: target column {target!r}: {error}") from None
    return features, y


def run(args, parser):
    lam = parse_fraction("--lam", args.lam, low=0, high=math.inf, function="optrules boost",
                         low_inclusive=True)
    apx = parse_fraction("--apx", args.apx, low=0, high=1, function="optrules boost",
                         high_inclusive=True)
    features, y = read_boosting_data(args.csv, args.target, args.loss)
    estimator_class = (OptimalRuleBoostingClassifier if args.loss == "logistic"
                       else OptimalRuleBoostingRegressor)
    estimator = estimator_class(
        args.rules, lam=lam, loss=args.loss, search=args.search,
        thresholds=args.thresholds, max_depth=args.max_depth, apx=apx,
        intercept=args.intercept, max_nodes=args.max_nodes, time_limit=remaining_time(args),
        rule_time_limit=args.rule_time_limit, max_memory=args.max_memory,
        engine=args.engine, verbose=verbosity(args), n_workers=args.n_workers,
        scheduler=args.scheduler).fit(features, y)
    ensemble = estimator.ensemble_
    if args.loss == "logistic":
        metric, value, start = "training_accuracy", estimator.score(features, y), ""
    else:
        target = ensemble.loss.prepare_target(y)
        metric = "training_loss"
        value = ensemble.loss.mean_loss(target, ensemble.decision_function(features))
        start = f" (base score alone {ensemble.loss.mean_loss(target, ensemble.base_score):.4f})"
    if args.json:
        print(json_text(dict(ensemble.to_dict(), **{metric: value})))
    else:
        print(estimator)
        asked = args.rules + args.intercept
        print(f"{len(ensemble.rules)} of {asked} rules, boosting {ensemble.status}, "
              f"{args.loss} loss, lambda {args.lam}, {args.search} base learner, "
              f"{metric.replace('_', ' ')} {value:.4f}{start}, {ensemble.seconds:.2f} s")
    sys.stdout.flush()       # printed first: a file that cannot be written must not cost it
    if args.save_model:
        estimator.to_json(args.save_model)
    return 0
