"""``optrules plot search|boosting|cre``: the plots of :mod:`optrules.plot` as PNG or SVG
files (the optional extra ``plot``: matplotlib)."""

import inspect
import sys
from pathlib import Path

import numpy as np

from optrules.cli.json_output import json_text
from optrules.limits import STOP_STATUSES
from optrules.model_files import load_model
from optrules.plot import boosting_curve, cre_split_points, rule_count_scores, search_trace
from optrules.plot.cre_plot import clustered_feature
from optrules.plot.figure import (MatplotlibMissing, file_format, pixel_size,
                                  require_matplotlib, size_problem)
from optrules.rule_boosting.estimator import (OptimalRuleBoostingClassifier,
                                              OptimalRuleBoostingRegressor)
from optrules.rule_boosting.losses import LOSSES
from optrules.rule_lists.search_trace import read_search_trace
from optrules.validation import parse_fraction

from .arguments import (add_progress_arguments, non_negative_int, positive_int,
                        positive_number, share, verbosity)
from .boost_command import read_boosting_data

__all__ = ["add_parser"]


def add_parser(commands):
    """Add ``plot`` with its ``search``, ``boosting`` and ``cre`` subcommands."""
    plot = commands.add_parser(
        "plot", help="plot a search trace, a boosting curve or a CRE feature (PNG or SVG)",
        description="Draw a plot as a PNG or SVG file (the format from the --out suffix); "
                    "needs matplotlib (pip install 'optrules[plot]').",
        epilog="example: optrules plot search trace.jsonl --out search.png (see optrules plot "
               "search|boosting|cre --help)")
    kinds = plot.add_subparsers(dest="kind", required=True)
    search = kinds.add_parser(
        "search", help="a rule-list search over time, from optrules rulelist --trace",
        description="Best objective and lower bound over time, queue size over time, and the "
                    "lengths of the queued prefixes at a few moments of a rule-list search.",
        epilog="example: optrules rulelist --csv compas.csv --target "
               "recidivate-within-two-years --lam 0.01 --trace trace.jsonl; optrules plot "
               "search trace.jsonl --out search.png")
    search.add_argument("trace_file", metavar="TRACE",
                        help="the trace (JSON Lines) of optrules rulelist --trace")
    _add_output_arguments(search, search_trace)
    search.set_defaults(draw=_draw_search)
    boosting = kinds.add_parser(
        "boosting", help="test score against the number of rules, optimal against greedy",
        description="Boost rules with the optimal and with the greedy base learner on a "
                    "seeded train/test split and plot the test score (ROC-AUC for the "
                    "logistic loss, else R²) of the first k rules against k. A fit stopped "
                    "before its last rule (a signal, the memory cap) draws nothing (exit 1, "
                    "or 130/143 after a signal).",
        epilog="example: optrules plot boosting --csv data.csv --target y --rules 4 "
               "--thresholds quantile:4 --seed 0 --out boosting.svg")
    data = boosting.add_argument_group("data and model")
    data.add_argument("--csv", metavar="FILE", required=True, help="table with a header row")
    data.add_argument("--target", metavar="COL", required=True,
                      help="target column (two classes for the logistic loss, numbers else)")
    data.add_argument("--loss", choices=list(LOSSES), default="logistic")
    data.add_argument("--rules", type=positive_int, default=10, metavar="K",
                      help="rules per ensemble (default 10)")
    data.add_argument("--lam", default="2", metavar="λ",
                      help="λ of the optimal base learner, exact (default 2)")
    data.add_argument("--greedy-lam", default="0.001", metavar="λ",
                      help="λ of the greedy base learner (default 0.001, as Boley et al.)")
    data.add_argument("--thresholds", default="quantile:10", metavar="all|quantile:K|width:K",
                      help="numeric cut points (default quantile:10)")
    data.add_argument("--test-size", type=share, default=0.2, metavar="P",
                      help="share of the rows held out for testing, in (0, 1) (default 0.2)")
    data.add_argument("--seed", type=non_negative_int, default=0, metavar="S",
                      help="seed of the train/test split (default 0)")
    _add_output_arguments(boosting, boosting_curve)
    add_progress_arguments(boosting.add_argument_group("progress of the fits"))
    boosting.set_defaults(draw=_draw_boosting)
    cre = kinds.add_parser(
        "cre", help="a feature's split points by cluster and their soft conditions",
        description="The split points of one feature in a compressed rule ensemble, coloured "
                    "by cluster, with each cluster's soft condition Phi(x).",
        epilog="example: optrules cre --csv data.csv --target y --trees 100 --seed 0 "
               "--save-model cre.json; optrules plot cre cre.json --feature x1 --out x1.png")
    cre.add_argument("model", metavar="MODEL", help="a model file of optrules cre --save-model")
    cre.add_argument("--feature", required=True, metavar="NAME",
                     help="the feature whose split points to draw")
    _add_output_arguments(cre, cre_split_points)
    cre.set_defaults(draw=_draw_cre)
    for parser in (search, boosting, cre):
        parser.set_defaults(run=run, parser=parser)


def _add_output_arguments(parser, function):
    """``--out``, the size options (defaults: ``function``'s) and ``--json``."""
    width, height = inspect.signature(function).parameters["size"].default
    output = parser.add_argument_group("output")
    output.add_argument("--out", metavar="FILE", required=True,
                        help="the file to write: .png or .svg")
    output.add_argument("--width", type=positive_number, default=width, metavar="IN",
                        help=f"width in inches (default {width})")
    output.add_argument("--height", type=positive_number, default=height, metavar="IN",
                        help=f"height in inches (default {height})")
    output.add_argument("--dpi", type=positive_number, default=100.0, metavar="DPI",
                        help="dots per inch (default 100): a PNG has width x dpi by height x "
                             "dpi pixels")
    output.add_argument("--json", action="store_true",
                        help="print one JSON object (the file, its format and size, and what "
                             "was plotted)")


class _Unfinished(Exception):
    """A fit stopped before its last rule: its curve would end early, so nothing is drawn."""


def run(args, parser):
    # the file's format and size are checked before any fit, which may take minutes
    kind = file_format(args.out, "--out")
    size = (args.width, args.height)
    problem = size_problem(size, args.dpi)
    if problem:
        raise ValueError(f"--width {args.width:g} --height {args.height:g} --dpi {args.dpi:g} "
                         f"{problem}")
    try:
        require_matplotlib()            # before any fit: a missing extra fails at once
        details = args.draw(args)
    except MatplotlibMissing as error:
        print(f"optrules plot: error: {error}", file=sys.stderr)
        return 2
    except _Unfinished as error:
        print(f"optrules plot {args.kind}: {error}", file=sys.stderr)
        return 1
    width_px, height_px = pixel_size(size, args.dpi)
    if args.json:
        print(json_text(dict({"plot": args.kind, "file": args.out, "format": kind,
                              "width_px": width_px, "height_px": height_px,
                              "width_in": args.width, "height_in": args.height,
                              "dpi": args.dpi}, **details)))
    elif kind == "svg":                 # SVG sizes are in points, 72 an inch, whatever the dpi
        print(f"wrote {args.out} (SVG, {args.width * 72:g} x {args.height * 72:g} pt)")
    else:
        print(f"wrote {args.out} (PNG, {width_px} x {height_px} px at {args.dpi:g} dpi)")
    return 0


def _draw_search(args):
    trace = read_search_trace(args.trace_file)
    search_trace(trace, args.out, size=(args.width, args.height), dpi=args.dpi)
    end = trace.records[-1]
    return {"status": end["status"], "nodes": end["nodes"], "records": len(trace.records)}


def _draw_boosting(args):
    lams = {"optimal": parse_fraction("--lam", args.lam, low=0, high=float("inf"),
                                      function="optrules plot boosting", low_inclusive=True),
            "greedy": parse_fraction("--greedy-lam", args.greedy_lam, low=0, high=float("inf"),
                                     function="optrules plot boosting", low_inclusive=True)}
    features, y = read_boosting_data(args.csv, args.target, args.loss)
    n_test = round(args.test_size * len(y))
    if not 0 < n_test < len(y):
        raise ValueError(f"--test-size {args.test_size:g} of the {len(y)} rows of {args.csv} "
                         "leaves no test or no training row.")
    order = np.random.default_rng(args.seed).permutation(len(y))
    test, train = np.sort(order[:n_test]), np.sort(order[n_test:])
    if args.loss == "logistic" and len(np.unique(y[test])) < 2:
        # ROC-AUC needs both classes: say so before the fits, not after them
        raise ValueError(f"--test-size {args.test_size:g} --seed {args.seed}: the {n_test} "
                         f"test rows of {args.csv} are all of one class; ROC-AUC needs both.")
    estimator_class = OptimalRuleBoostingClassifier if args.loss == "logistic" else \
        OptimalRuleBoostingRegressor
    curves = {}
    for search, lam in lams.items():
        model = estimator_class(args.rules, lam=lam, loss=args.loss, search=search,
                                thresholds=args.thresholds, verbose=verbosity(args)).fit(
            features.take(train), y[train])
        status = model.ensemble_.status
        if status != "complete":        # a signal or the memory cap: no truncated curve
            raise _Unfinished(f"{search} boosting stopped after {len(model.ensemble_.rules)} "
                              f"of {args.rules} rules ({STOP_STATUSES.get(status, status)}); "
                              f"nothing drawn.")
        curves[search], metric = rule_count_scores(model, features.take(test), y[test])
    boosting_curve(curves, args.out, size=(args.width, args.height), dpi=args.dpi,
                   ylabel=f"test {metric}",
                   title=f"{Path(args.csv).name}: optimal and greedy rule boosting, seed "
                         f"{args.seed}")
    return {"metric": metric, "n_train": len(train), "n_test": len(test), "curves": curves}


def _draw_cre(args):
    rules, index = clustered_feature(load_model(args.model), args.feature, args.model,
                                     "--feature")
    cre_split_points(rules, index, args.out, size=(args.width, args.height), dpi=args.dpi)
    return {"feature": args.feature, "clusters": len(rules.clusters[index])}
