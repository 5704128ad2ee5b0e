"""``optrules verify rulelist`` and ``optrules verify rule``: run an engine, then certify it.

Exit status: 0 certified, 1 refuted (a check disagrees with the engine), 3 undecided (a solver
stopped without proof), 2 bad arguments or input.
"""

import json

import numpy as np

from optrules.data.propositions import make_propositions
from optrules.rule_boosting.fit import ENGINES as BOOST_ENGINES
from optrules.rule_boosting.fit import fit_rule
from optrules.rule_boosting.gradient_problem import GradientProblem
from optrules.rule_boosting.losses import LOSSES, get_loss
from optrules.validation import parse_fraction
from optrules.verify.certify import RULE_CHECKS, RULE_LIST_CHECKS, certify_rule, certify_rule_list
from optrules.verify.instances import RuleInstance, RuleListInstance

from .arguments import (add_rulelist_arguments, load_rule_list_problem, positive_float,
                        positive_int, rule_list_estimator)
from .boost_command import read_boosting_data

__all__ = ["add_parser"]

EXIT_STATUS = {"certified": 0, "refuted": 1, "undecided": 3}


def _checks(text, valid):
    chosen = [c.strip() for c in text.split(",") if c.strip()]
    unknown = [c for c in chosen if c not in valid]
    if unknown or not chosen:
        raise ValueError(f"--checks must be a comma-separated list from {list(valid)}; "
                         f"got {text!r}.")
    return chosen


def _add_common(parser, valid_checks, default_checks):
    group = parser.add_argument_group("certification")
    group.add_argument("--rows", type=positive_int, metavar="N",
                       help="use only the first N rows")
    group.add_argument("--checks", default=",".join(default_checks), metavar="LIST",
                       help=f"comma-separated checks from {', '.join(valid_checks)} "
                            f"(default {','.join(default_checks)})")
    group.add_argument("--solver-time-limit", type=positive_float, default=60.0,
                       metavar="SEC", help="per solver (default 60)")
    group.add_argument("--certificate", metavar="FILE", help="write the certificate as JSON")


def add_parser(commands):
    """Add ``verify`` with its ``rulelist`` and ``rule`` subcommands to the CLI."""
    verify = commands.add_parser(
        "verify", help="run an engine and certify its answer",
        epilog="example: optrules verify rulelist --csv compas.csv --target "
               "recidivate-within-two-years --lam 0.01 --antecedents 12 --rows 300")
    kinds = verify.add_subparsers(dest="kind", required=True)
    rulelist = kinds.add_parser(
        "rulelist", help="certify an optimal rule list",
        epilog="example: optrules verify rulelist --csv compas.csv --target "
               "recidivate-within-two-years --lam 0.01 --antecedents 12 --rows 300 "
               "--certificate cert.json")
    add_rulelist_arguments(rulelist)
    rulelist.add_argument("--antecedents", type=positive_int, metavar="K",
                          help="use only the first K antecedents")
    _add_common(rulelist, RULE_LIST_CHECKS, RULE_LIST_CHECKS)
    rulelist.set_defaults(run=_run_rulelist, parser=rulelist)
    rule = kinds.add_parser(
        "rule", help="certify the optimal first boosting rule",
        epilog="example: optrules verify rule --csv data.csv --target y --lam 2 "
               "--thresholds quantile:4")
    data = rule.add_argument_group("data")
    data.add_argument("--csv", metavar="FILE", required=True)
    data.add_argument("--target", metavar="COL", required=True)
    data.add_argument("--loss", choices=list(LOSSES), default="logistic")
    data.add_argument("--lam", default="2", metavar="λ")
    data.add_argument("--thresholds", default="quantile:10", metavar="all|quantile:K|width:K")
    data.add_argument("--engine", choices=sorted(BOOST_ENGINES), default="reference")
    data.add_argument("--apx", default="1", metavar="α",
                      help="run the engine with approximation factor α and certify its claim "
                           "obj >= α·max (default 1: optimal)")
    data.add_argument("--json", action="store_true")
    _add_common(rule, RULE_CHECKS, ("oracle", "claim", "dinkelbach", "cardinality"))
    rule.set_defaults(run=_run_rule, parser=rule)


def _report(args, engine_line, certificate):
    if args.certificate:
        certificate.save(args.certificate)
    if args.json:
        print(json.dumps(certificate.to_dict(), indent=2))
    else:
        print(engine_line)
        for check in certificate.checks:
            print(f"  {check['check']:<20} {check['verdict']:<10} optimum "
                  f"{check.get('optimum') or '-':<16} status {check['status']} "
                  f"({check.get('seconds', 0):.3f} s)")
        for problem in certificate.problems:
            print(f"  problem: {problem}")
        print(f"verdict: {certificate.verdict} (instance sha256 {certificate.instance_digest})")
    return EXIT_STATUS[certificate.verdict]


def _run_rulelist(args, parser):
    features, y, dataset = load_rule_list_problem(args, parser)
    estimator = rule_list_estimator(args)
    estimator.verbose = 0
    if dataset is None:
        dataset = estimator.antecedents(features, y)
    if args.antecedents is not None or args.rows is not None:
        dataset = dataset.subset(
            antecedents=None if args.antecedents is None
            else range(min(args.antecedents, dataset.n_antecedents)),
            samples=None if args.rows is None else np.arange(min(args.rows, dataset.n_samples)))
    checks = _checks(args.checks, RULE_LIST_CHECKS)
    result = estimator.fit_antecedents(dataset).result_
    instance = RuleListInstance.from_dataset(dataset, result.lam)
    limited = result.status != "optimal"      # then it claims only the interval [bound, obj]
    certificate = certify_rule_list(instance, result.rule_list, dataset.classes,
                                    result.objective, checks, args.solver_time_limit,
                                    result.lower_bound if limited else None)
    engine_line = (f"{args.engine} engine: objective {result.objective} "
                   f"({float(result.objective):.6f}), status {result.status}, "
                   f"{len(result.rule_list)} rules, {result.seconds:.3f} s "
                   f"[{dataset.n_antecedents} antecedents, {dataset.n_samples} rows]")
    if limited:
        certificate.checks.append({"check": "engine", "verdict": "undecided",
                                   "status": f"the engine stopped at a limit; lower bound "
                                             f"{result.lower_bound}"})
    if args.save_model:
        estimator.to_json(args.save_model)
    return _report(args, engine_line, certificate)


def _run_rule(args, parser):
    features, y = read_boosting_data(args.csv, args.target, args.loss, args.rows)
    loss = get_loss(args.loss)
    target = loss.prepare_target(y)
    lam = parse_fraction("--lam", args.lam, low=0, high=float("inf"),
                         function="optrules verify rule", low_inclusive=True)
    propositions = make_propositions(features, args.thresholds)
    g, h = loss.gradients(target, np.zeros(target.size))   # the first boosting round
    problem = GradientProblem.from_values(propositions.extents, propositions.names, g, h, lam)
    result = fit_rule(problem, engine=args.engine, apx=args.apx)
    instance = RuleInstance.from_problem(problem)
    alpha = parse_fraction("--apx", args.apx, low=0, high=1, function="optrules verify rule",
                           high_inclusive=True)
    certificate = certify_rule(instance, result.query, result.objective,
                               _checks(args.checks, RULE_CHECKS), args.solver_time_limit,
                               alpha=alpha)
    engine_line = (f"{args.engine} engine: rule {' & '.join(result.conditions) or 'true'} "
                   f"objective {result.objective} ({float(result.objective):.6g}), status "
                   f"{result.status}, {result.seconds:.3f} s [{len(propositions)} "
                   f"propositions, {target.size} rows]")
    return _report(args, engine_line, certificate)
