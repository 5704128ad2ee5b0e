"""``optrules rulelist``: a certifiably optimal rule list from a CSV table or CORELS files."""

import sys

from optrules.cli.json_output import json_text
from optrules.rule_lists.equivalent_points import MinorityMismatch
from optrules.validation import fraction_text

from .arguments import add_rulelist_arguments, load_rule_list_problem, rule_list_estimator

__all__ = ["add_parser"]


def add_parser(commands):
    parser = commands.add_parser(
        "rulelist", help="certifiably optimal rule list (CORELS)",
        description="Find the rule list minimising mistakes/N + lambda * (number of rules) "
                    "(with sample weights: mistaken weight / total weight + lambda * rules) for "
                    "a target of two or more classes, with a certificate of optimality (or the "
                    "exact gap at a limit).",
        epilog="example: optrules rulelist --csv compas.csv "
               "--target recidivate-within-two-years --lam 0.015 --save-model model.json")
    add_rulelist_arguments(parser)
    parser.add_argument("--certificate", dest="search_certificate", metavar="FILE",
                        help="write the search certificate (JSON Lines; gzip if FILE ends in "
                             ".gz) for optrules check-certificate")
    parser.add_argument("--trace", metavar="FILE",
                        help="write the search's trace (JSON Lines: best objective, lower "
                             "bound, queue size and prefix lengths over time) for optrules "
                             "plot search")
    parser.set_defaults(run=run, parser=parser)


def run(args, parser):
    problem = load_rule_list_problem(args, parser)
    estimator = rule_list_estimator(args)
    if problem.dataset is None:
        estimator.fit(problem.features, problem.y, sample_weight=problem.sample_weight)
    else:
        try:
            estimator.fit_antecedents(problem.dataset, sample_weight=problem.sample_weight)
        except MinorityMismatch as error:          # only a --corels-minor file has the bits
            raise ValueError(f"{args.corels_minor}: {error}") from None
    # Printed first: a file that cannot be written (a full disk) must not cost the result.
    if args.json:
        print(json_text(dict(estimator.result_.to_dict(),
                             n_antecedents=estimator.n_antecedents_)), flush=True)
    else:
        print(estimator, flush=True)
        if problem.sample_weight is not None:
            print(weights_line(estimator.result_), flush=True)
    if args.save_model:
        estimator.to_json(args.save_model)
    if args.search_certificate and estimator.status_ != "optimal":
        print(f"optrules rulelist: no certificate written to {args.search_certificate}: the "
              f"search stopped ({estimator.status_}) before covering every rule list",
              file=sys.stderr)
    return 0


def weights_line(result):
    """One line for a weighted fit: the mistaken and the total weight, exact (with a decimal
    when not an integer), and their ratio, the weighted error."""
    mistakes, total = result.mistakes, result.total_weight
    return (f"sample weights: mistaken weight {_exact(mistakes)} of total weight "
            f"{_exact(total)}, weighted error {float(mistakes / total):.6f} "
            f"({result.n_samples} samples)")


def _exact(value):
    """An exact weight as an integer, or as ``p/q = decimal``."""
    text = fraction_text(value)
    return text.removesuffix("/1") if text.endswith("/1") else f"{text} = {float(value):.6g}"
