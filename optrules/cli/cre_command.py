"""``optrules cre``: compressed rule ensembles (Nalenz and Augustin)."""

import sys

from optrules.cli.json_output import json_text
from optrules.compressed_rules.clustering import CRITERIA, ENGINES
from optrules.compressed_rules.estimator import (CompressedRuleEnsembleClassifier,
                                                 CompressedRuleEnsembleRegressor)
from optrules.compressed_rules.fit import LAMBDA_CHOICES
from optrules.compressed_rules.model import VARIANTS

from .arguments import add_progress_arguments, non_negative_float, non_negative_int, \
    positive_int, verbosity
from .boomer_command import read_targets

__all__ = ["add_parser", "model_json"]


def add_parser(commands):
    parser = commands.add_parser(
        "cre", help="compressed rule ensembles (CRE)",
        description="Harvest rules from boosted trees (or a file), cluster each feature's "
                    "split points, replace every condition by the soft condition of its "
                    "cluster and fit an L1-regularised GLM by cross-validation, or average the "
                    "most frequent smooth rules (Nalenz and Augustin).",
        epilog="example: optrules cre --csv data.csv --target y --kmax 2 --linear --trees 100 "
               "--seed 0")
    data = parser.add_argument_group("data")
    data.add_argument("--csv", metavar="FILE", required=True,
                      help="table with a header row; numeric features (empty cells missing)")
    data.add_argument("--target", metavar="COL", required=True,
                      help="target column: two classes (logistic loss) or numbers (squared)")
    model = parser.add_argument_group("model")
    model.add_argument("--loss", choices=("logistic", "squared"), default="logistic",
                       help="logistic (a binary target, default) or squared (a numeric one)")
    model.add_argument("--kmax", type=positive_int, default=4, metavar="K",
                       help="most clusters of split points per feature (default 4)")
    model.add_argument("--criterion", choices=CRITERIA, default="aic",
                       help="how the number of clusters is chosen (default aic, as the paper; "
                            "bic as the authors' R code)")
    model.add_argument("--eta", type=non_negative_float, default=0.5,
                       help="rule columns divided by length^ETA (default 0.5)")
    model.add_argument("--linear", action="store_true",
                       help="add a standardised linear term per feature")
    model.add_argument("--variant", choices=VARIANTS, default="glm",
                       help="L1 GLM (default) or the average of the most frequent rules")
    model.add_argument("--n-rules", type=positive_int, default=10, metavar="K",
                       help="with --variant average: rules averaged (default 10)")
    model.add_argument("--rules-from", default="boosted", metavar="boosted|FILE",
                       help="boosted trees (default) or a JSON file of rules (a list of rules, "
                            "each a list of [feature, operator, threshold] or an object with "
                            "\"conditions\"; or an optrules boosted-rules model file)")
    model.add_argument("--trees", type=positive_int, default=500, metavar="T",
                       help="boosted trees to harvest (default 500)")
    model.add_argument("--max-depth", type=positive_int, default=3, metavar="D",
                       help="depth of the boosted trees (default 3)")
    model.add_argument("--folds", type=positive_int, default=10, metavar="K",
                       help="cross-validation folds (default 10)")
    model.add_argument("--lambda", dest="lambda_choice", choices=LAMBDA_CHOICES, default="1se",
                       help="lambda_1se (default) or lambda_min; the model uses the one chosen")
    model.add_argument("--seed", type=non_negative_int, metavar="S",
                       help="random seed of the tree subsampling and the folds")
    model.add_argument("--engine", choices=sorted(ENGINES), default="fast",
                       help="fast (default) or reference: the same model")
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print one JSON object")
    output.add_argument("--explain", type=positive_int, metavar="ROW", action="append",
                        help="explain the prediction of data row ROW (1 = the first row after "
                             "the header); may be repeated")
    output.add_argument("--save-model", metavar="FILE", help="write the model as JSON")
    add_progress_arguments(output)
    parser.set_defaults(run=run, parser=parser)


def run(args, parser):
    features, y = read_targets(args.csv, args.target, args.loss)
    rows = [row - 1 for row in args.explain or ()]
    for row in rows:
        if row >= features.n_samples:
            raise ValueError(f"--explain {row + 1}: {args.csv} has {features.n_samples} data "
                             "rows.")
    estimator_class = CompressedRuleEnsembleRegressor if args.loss == "squared" else \
        CompressedRuleEnsembleClassifier
    estimator = estimator_class(
        args.kmax, criterion=args.criterion, eta=args.eta, linear=args.linear,
        variant=args.variant, rules_from=args.rules_from, folds=args.folds,
        lambda_choice=args.lambda_choice, n_rules=args.n_rules, n_trees=args.trees,
        max_depth=args.max_depth, engine=args.engine, random_state=args.seed,
        verbose=int(verbosity(args) == 2)).fit(features, y)
    explanations = estimator.explain(features.take(rows)) if rows else []
    model = estimator.model_
    if args.json:
        body = model_json(estimator)
        if rows:
            body["explanations"] = [
                {"row": row + 1, "score": explanation.score,
                 "prediction": explanation.prediction,
                 "terms": [dict(zip(explanation.columns, r)) for r in explanation.rows]}
                for row, explanation in zip(rows, explanations)]
        print(json_text(body))
    else:
        print(estimator)
        if model.variant == "glm":
            print(f"{model.fit['kkt']['verdict']} (optrules.verify.lasso_kkt)")
        print(f"{model.fit['harvested_rules']} rules harvested, {model.fit['smooth_rules']} "
              f"smooth rules, {model.fit['candidate_rules']} candidates, "
              f"{model.fit['seconds']:.2f} s")
        for row, explanation in zip(rows, explanations):
            print(f"\nrow {row + 1}:\n{explanation}")
    sys.stdout.flush()       # printed first: a file that cannot be written must not cost it
    if args.save_model:
        estimator.to_json(args.save_model)
    return 0


def model_json(estimator):
    """The model part of ``--json``: loss, variant, terms (rules and linear terms with their
    coefficients), the fit record and, for a classifier, the classes."""
    model = estimator.model_
    body = {"loss": model.loss, "variant": model.variant, "terms": estimator.terms_,
            "fit": model.fit}
    if hasattr(estimator, "classes_"):
        body["classes"] = estimator.classes_.tolist()
    return body
