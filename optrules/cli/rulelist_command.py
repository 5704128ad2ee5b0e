"""``optrules rulelist``: a certifiably optimal rule list from a CSV table or CORELS files."""

import json

from optrules.rule_lists.fit import ProgressLog, fit_rule_list
from optrules.validation import parse_fraction

from .arguments import add_rulelist_arguments, load_dataset

__all__ = ["add_parser"]


def add_parser(commands):
    parser = commands.add_parser("rulelist", help="certifiably optimal rule list (CORELS)")
    add_rulelist_arguments(parser)
    parser.set_defaults(run=run, parser=parser)


def run(args, parser):
    dataset = load_dataset(args, parser)
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
