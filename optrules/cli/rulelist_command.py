"""``optrules rulelist``: a certifiably optimal rule list from a CSV table or CORELS files."""

import json

from .arguments import add_rulelist_arguments, load_rule_list_problem, rule_list_estimator

__all__ = ["add_parser"]


def add_parser(commands):
    parser = commands.add_parser(
        "rulelist", help="certifiably optimal rule list (CORELS)",
        description="Find the rule list minimising mistakes/N + lambda * (number of rules), "
                    "with a certificate of optimality (or the exact gap at a limit).",
        epilog="example: optrules rulelist --csv compas.csv "
               "--target recidivate-within-two-years --lam 0.015 --save-model model.json")
    add_rulelist_arguments(parser)
    parser.set_defaults(run=run, parser=parser)


def run(args, parser):
    features, y, dataset = load_rule_list_problem(args, parser)
    estimator = rule_list_estimator(args)
    if dataset is None:
        estimator.fit(features, y)
    else:
        estimator.fit_antecedents(dataset)
    # Printed first: a file that cannot be written (a full disk) must not cost the result.
    if args.json:
        print(json.dumps(dict(estimator.result_.to_dict(),
                              n_antecedents=estimator.n_antecedents_), indent=2), flush=True)
    else:
        print(estimator, flush=True)
    if args.save_model:
        estimator.to_json(args.save_model)
    return 0
