"""``optrules boost``: gradient boosting of optimal (or greedy) conjunctive rules."""

import json
import sys

import numpy as np

from optrules.rule_boosting.fit import ENGINES, SEARCHES, fit_rule_ensemble
from optrules.rule_boosting.losses import LOSSES

from .arguments import positive_float, positive_int, read_features_and_target

__all__ = ["add_parser"]


def add_parser(commands):
    parser = commands.add_parser("boost", help="gradient boosting of optimal (or greedy) rules")
    _add_arguments(parser)
    parser.set_defaults(run=run, parser=parser)


def _add_arguments(parser):
    data = parser.add_argument_group("data")
    data.add_argument("--csv", metavar="FILE", required=True, help="table with a header row")
    data.add_argument("--target", metavar="COL", required=True, help="target column")
    data.add_argument("--positive", metavar="VALUE", help="positive class (logistic loss)")
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
    search.add_argument("--engine", choices=sorted(ENGINES), default="reference")
    search.add_argument("--max-nodes", type=positive_int, metavar="N", help="per rule")
    search.add_argument("--time-limit", type=positive_float, metavar="SEC", help="per rule")
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


def run(args, parser):
    columns, y = read_features_and_target(args.csv, args.target, args.loss)
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
