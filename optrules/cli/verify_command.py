"""``optrules verify rulelist`` and ``optrules verify rule``: run an engine, then certify it;
``optrules verify --recheck CERT DATA...``: certify a certificate's claim again on its data.

Exit status: 0 certified, 1 refuted (a check disagrees with the engine), 3 undecided (a solver
stopped without proof), 2 bad arguments or input.
"""

import sys
from fractions import Fraction

import numpy as np

from optrules.cli.json_output import json_text
from optrules.data.propositions import make_propositions
from optrules.limits import Budget
from optrules.rule_boosting.estimator import BoostingProgress
from optrules.rule_boosting.fit import ENGINES as BOOST_ENGINES
from optrules.rule_boosting.fit import fit_rule
from optrules.rule_boosting.gradient_problem import GradientProblem
from optrules.rule_boosting.losses import LOSSES, get_loss
from optrules.rule_lists.estimator import RuleListClassifier
from optrules.rule_lists.model import RuleList
from optrules.validation import (ExactFraction, Integer, Options, Subset, Thresholds,
                                 fraction_text, json_object, parse_fraction, shown,
                                 validate_params)
from optrules.verify.certify import (REQUIRE, RULE_CHECKS, RULE_LIST_CHECKS, certify_rule,
                                     certify_rule_list, load_certificate)
from optrules.verify.instances import RuleInstance, RuleListInstance

from .arguments import (add_limit_arguments, add_progress_arguments, add_rulelist_arguments,
                        load_rule_list_problem, positive_float, positive_int,
                        read_rule_list_problem, remaining_time, rule_list_dataset,
                        rule_list_estimator, verbosity)
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
    _add_solver_options(group, "any")


def _add_solver_options(group, require):
    """Per-solver time, the certificate file and the verdict policy (default ``require``;
    None: the rechecked certificate's own)."""
    group.add_argument("--solver-time-limit", type=positive_float, default=60.0,
                       metavar="SEC", help="per solver (default 60)")
    group.add_argument("--certificate", metavar="FILE", help="write the certificate as JSON")
    shown_default = require or "the certificate's own; any for versions 1-2"
    group.add_argument("--require", choices=REQUIRE, default=require,
                       help="certified when any check proves the claim and none refutes or "
                            f"bounds it, or only when all checks prove it (default: "
                            f"{shown_default})")


def add_parser(commands):
    """Add ``verify`` with its ``rulelist`` and ``rule`` subcommands and ``--recheck``."""
    verify = commands.add_parser(
        "verify", help="run an engine and certify its answer, or recheck a certificate",
        description="Run an engine and certify its answer with independent checks (verify "
                    "rulelist, verify rule), or run the checks of a saved certificate again "
                    "on the data it was made from (verify --recheck CERT DATA...: DATA is the "
                    "CSV file, or the CORELS .out and .label files, that verify read, then "
                    "the --sample-weights file if it read one; a --weight-column is read from "
                    "the CSV file again; the options it used, and how the weights were given, "
                    "are in the certificate's source). Exit status 0 certified, 1 refuted, "
                    "3 undecided, 2 bad input (data or weights that differ from the "
                    "certificate's included).",
        epilog="example: optrules verify rulelist --csv compas.csv --target "
               "recidivate-within-two-years --lam 0.01 --antecedents 12 --rows 300 "
               "--certificate cert.json; optrules verify --recheck cert.json compas.csv "
               "(a certificate of verify rulelist ... --sample-weights weights.txt is "
               "rechecked with: optrules verify --recheck cert.json data.csv weights.txt)")
    recheck = verify.add_argument_group("recheck a certificate (instead of rulelist or rule)")
    recheck.add_argument("--recheck", nargs="+", metavar=("CERT", "DATA"),
                         help="the certificate, then the data files it was made from: CSV, or "
                              "OUT LABEL, then WEIGHTS when it had --sample-weights")
    _add_solver_options(recheck, None)
    recheck.add_argument("--json", action="store_true", help="print the new certificate")
    verify.set_defaults(run=_run_recheck, parser=verify)
    kinds = verify.add_subparsers(dest="kind")
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
               "--thresholds quantile:4 --rows 200 --checks claim,dinkelbach")
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
    data.add_argument("--propositions", type=positive_int, metavar="K",
                      help="use only the first K propositions")
    data.add_argument("--search-certificate", metavar="FILE",
                      help="also write the engine's search certificate (JSON Lines; gzip if "
                           "FILE ends in .gz) for optrules check-certificate")
    search = rule.add_argument_group("search (the same limits as verify rulelist)")
    search.add_argument("--max-nodes", type=positive_int, metavar="N")
    add_limit_arguments(search, "seconds for the whole command: reading, the engine and "
                                "every solver")
    add_progress_arguments(search)
    _add_common(rule, RULE_CHECKS, ("oracle", "claim", "dinkelbach", "cardinality"))
    rule.set_defaults(run=_run_rule, parser=rule)


def _report(args, engine_line, certificate):
    """Print the certificate, then save it (a file that cannot be written must not cost the
    printed verdict)."""
    if args.json:
        print(json_text(certificate.to_dict()))
    else:
        print(engine_line)
        for check in certificate.checks:
            print(f"  {check['check']:<20} {check['verdict']:<10} optimum "
                  f"{check.get('optimum') or '-':<16} status {check['status']} "
                  f"({check.get('seconds', 0):.3f} s)")
        for problem in certificate.problems:
            print(f"  problem: {problem}")
        alpha = Fraction(certificate.model.get("alpha", 1)) if \
            isinstance(certificate.model, dict) else 1
        claim = "" if alpha == 1 else f"the claim: objective >= {alpha} ({float(alpha):.4g}) " \
            "times the optimum, the guarantee of a search stopped early or of --apx; "
        print(f"verdict: {certificate.verdict} ({claim}instance sha256 "
              f"{certificate.instance_digest})")
    sys.stdout.flush()
    if args.certificate:
        certificate.save(args.certificate)
    return EXIT_STATUS[certificate.verdict]


def _run_rulelist(args, parser):
    problem = load_rule_list_problem(args, parser)
    estimator = rule_list_estimator(args)
    estimator.verbose = 0
    dataset = rule_list_dataset(estimator, problem, args.antecedents, args.rows)
    checks = _checks(args.checks, RULE_LIST_CHECKS)
    result = estimator.fit_antecedents(dataset).result_
    instance = RuleListInstance.from_dataset(dataset, result.lam)
    limited = result.status != "optimal"      # then it claims only the interval [bound, obj]
    certificate = _certify_rule_list_claim(instance, result.rule_list, dataset.classes,
                                           result.objective,
                                           result.lower_bound if limited else None, checks,
                                           args.solver_time_limit, _command_budget(args),
                                           args.require)
    certificate.source = {
        "data": "corels" if args.csv is None else "csv", "target": args.target,
        "max_cardinality": args.max_cardinality, "thresholds": args.thresholds,
        "min_support": None if estimator.min_support is None
        else fraction_text(estimator.min_support),
        "antecedents": args.antecedents, "rows": args.rows, "checks": checks,
        "weights": None if problem.sample_weight is None
        else {"file": True} if args.sample_weights is not None
        else {"column": args.weight_column}}
    weights = "" if not dataset.weighted else f", total weight {dataset.total_weight}"
    engine_line = (f"{args.engine} engine: objective {result.objective} "
                   f"({float(result.objective):.6f}), status {result.status}, "
                   f"{len(result.rule_list)} rules, {result.seconds:.3f} s "
                   f"[{dataset.n_antecedents} antecedents, {dataset.n_samples} rows, "
                   f"{dataset.n_classes} classes{weights}]")
    status = _report(args, engine_line, certificate)
    if args.save_model:
        estimator.to_json(args.save_model)
    return status


def _command_budget(args):
    """What is left of ``--time-limit``, which covers the whole command: each solver gets at
    most that (and ``--solver-time-limit``)."""
    return Budget(remaining_time(args))


def _certify_rule_list_claim(instance, rule_list, classes, claimed, lower_bound, checks,
                             time_limit, budget=None, require="any"):
    """The certificate of a rule-list claim; an "engine" entry records that a claim with a
    ``lower_bound`` comes from an engine stopped at a limit (undecided by itself)."""
    certificate = certify_rule_list(instance, rule_list, classes, claimed, checks, time_limit,
                                    lower_bound, budget, require)
    if lower_bound is not None:
        certificate.checks.append({"check": "engine", "verdict": "undecided",
                                   "status": f"the engine stopped at a limit; lower bound "
                                             f"{lower_bound}"})
    return certificate


def _run_rule(args, parser):
    lam = parse_fraction("--lam", args.lam, low=0, high=float("inf"),
                         function="optrules verify rule", low_inclusive=True)
    alpha = parse_fraction("--apx", args.apx, low=0, high=1, function="optrules verify rule",
                           high_inclusive=True)
    checks = _checks(args.checks, RULE_CHECKS)
    problem = first_round_problem(args.csv, args.target, args.loss, lam, args.thresholds,
                                  args.rows, args.propositions)
    verbose = verbosity(args)
    progress = BoostingProgress(1, verbose) if verbose else None
    try:
        result = fit_rule(problem, engine=args.engine, apx=alpha, max_nodes=args.max_nodes,
                          time_limit=remaining_time(args), max_memory=args.max_memory,
                          certificate=args.search_certificate,
                          progress=progress and (lambda nodes, describe:
                                                 progress.search(0, nodes, describe)))
    finally:
        if progress is not None:
            progress.line.close()
    instance = RuleInstance.from_problem(problem)
    if args.search_certificate and result.status not in ("optimal", "approximate"):
        print(f"optrules verify rule: no search certificate written to "
              f"{args.search_certificate}: the search stopped ({result.status})",
              file=sys.stderr)
    if result.status not in ("optimal", "approximate"):
        # Stopped at a limit, the engine claims only its proven guarantee:
        # obj(q) >= guarantee · max obj (specs/limits.md).
        alpha = min(alpha, result.guarantee)
    certificate = certify_rule(instance, result.query, result.objective, checks,
                               args.solver_time_limit, alpha=alpha,
                               budget=_command_budget(args), require=args.require)
    certificate.source = {"data": "csv", "target": args.target, "loss": args.loss,
                          "thresholds": args.thresholds, "rows": args.rows,
                          "propositions": args.propositions, "checks": checks}
    engine_line = (f"{args.engine} engine: rule {' & '.join(result.conditions) or 'true'} "
                   f"objective {result.objective} ({float(result.objective):.6g}), status "
                   f"{result.status}, {result.seconds:.3f} s [{len(problem.names)} "
                   f"propositions, {problem.n_samples} rows]")
    return _report(args, engine_line, certificate)


def first_round_problem(csv, target, loss_name, lam, thresholds, rows, n_propositions):
    """The problem ``verify rule`` certifies: the first boosting round (gradients at f = 0)
    over the first ``n_propositions`` propositions of the CSV file's first ``rows`` rows
    (None: all)."""
    features, y = read_boosting_data(csv, target, loss_name, rows)
    loss = get_loss(loss_name)
    target = loss.prepare_target(y)
    propositions = make_propositions(features, thresholds)
    g, h = loss.gradients(target, np.zeros(target.size))
    kept = slice(0, n_propositions)
    return GradientProblem.from_values(propositions.extents[kept], propositions.names[kept], g,
                                       h, lam)


# ----- optrules verify --recheck CERT DATA... ----------------------------------------------------

#: How ``verify rulelist`` and ``verify rule`` built their instance (a certificate's
#: ``source``), checked before it is used again; ``target`` is checked on its own.
_SOURCE_CONSTRAINTS = {
    "rule-list": {"data": [Options(("csv", "corels"))], "max_cardinality": [Integer(1)],
                  "thresholds": [Thresholds()],
                  "min_support": [ExactFraction(0, Fraction(1, 2), low_inclusive=True,
                                                high_inclusive=True), None],
                  "antecedents": [Integer(1), None], "rows": [Integer(1), None],
                  "checks": [Subset(RULE_LIST_CHECKS)]},
    "rule": {"data": [Options(("csv",))], "loss": [Options(LOSSES)],
             "thresholds": [Thresholds()], "rows": [Integer(1), None],
             "propositions": [Integer(1), None], "checks": [Subset(RULE_CHECKS)]}}

#: The data files ``--recheck`` takes after the certificate, by the source's data kind; a
#: rule list's source ``weights`` {"file": true} adds the weights file after them.
_DATA_FILES = {"csv": ("CSV",), "corels": ("OUT", "LABEL")}
#: A rule list's source records how its sample weights were given (version 2 certificates):
#: null (unweighted), {"file": true} (a --sample-weights file, the last data file of
#: --recheck) or {"column": COL} (the --weight-column of the CSV file).
_WEIGHTS_FIELD = "weights"


def _run_recheck(args, parser):
    """``verify --recheck CERT DATA...``: rebuild the certificate's instance from the data
    with the options it records, refuse data that give another instance, and certify the
    stored model and claim on it again with the stored checks."""
    if args.recheck is None:
        parser.error("choose rulelist or rule, or recheck a certificate with --recheck CERT "
                     "DATA...")
    path, *data = args.recheck
    stored = load_certificate(path)
    if stored["source"] is None:
        raise ValueError(f"{path}: the certificate does not record its data source (it was "
                         "not written by optrules verify), so it cannot be rechecked.")
    source = _checked_source(path, stored, stored["source"])
    weights_file = source.get(_WEIGHTS_FIELD) == {"file": True}
    files = _DATA_FILES[source["data"]] + (("WEIGHTS",) if weights_file else ())
    if len(data) != len(files):
        made_from = f"{source['data']} data" + (" and a --sample-weights file" if weights_file
                                                 else "")
        raise ValueError(f"--recheck: {path} was made from {made_from}, so give "
                         f"CERT {' '.join(files)}; got {len(data)} data file(s).")
    lam = Fraction(stored["lambda"])
    if args.require is None:
        args.require = stored.get("require", "any")
    if stored["kind"] == "rule-list":
        certificate = _recheck_rule_list(path, stored, source, data, lam, args)
    else:
        certificate = _recheck_rule(path, stored, source, data, lam, args)
    certificate.source = stored["source"]
    claim_line = (f"recheck of {path}: {stored['kind']} claim, objective "
                  f"{stored['claimed_objective']} "
                  f"({float(Fraction(stored['claimed_objective'])):.6f}), stored verdict "
                  f"{stored['verdict']} [{certificate.n_samples} rows]")
    return _report(args, claim_line, certificate)


def _checked_source(path, stored, source):
    """The certificate's source with canonical values; ValueError naming the file and field.

    A rule list's source has ``weights`` from certificate version 2 on (version 1 was
    unweighted), and it must agree with the certificate's ``total_weight``."""
    kind = stored["kind"]
    special = ("target",)
    if kind == "rule-list" and stored["version"] >= 2:
        special += (_WEIGHTS_FIELD,)
    try:
        json_object(source, "source", special + tuple(_SOURCE_CONSTRAINTS[kind]))
        checked = validate_params(_SOURCE_CONSTRAINTS[kind], {
            name: value for name, value in source.items() if name not in special},
            "the certificate's source")
    except (TypeError, ValueError) as error:
        raise ValueError(f"{path}: {error}") from None
    target = source["target"]
    if not (isinstance(target, str) or (target is None and checked["data"] == "corels")):
        raise ValueError(f"{path}: source.target must be the target column of the CSV file; "
                         f"got {shown(target)}.")
    valid = RULE_LIST_CHECKS if kind == "rule-list" else RULE_CHECKS
    checked["checks"] = [name for name in valid if name in checked["checks"]]
    if _WEIGHTS_FIELD in special:
        checked[_WEIGHTS_FIELD] = _checked_weights(path, source[_WEIGHTS_FIELD],
                                                   checked["data"], target,
                                                   stored["total_weight"])
    return dict(checked, target=target)


def _checked_weights(path, weights, data, target, total_weight):
    """A rule-list source's ``weights`` field, if it is one of its three forms and agrees with
    the certificate's ``total_weight`` (null exactly when unweighted)."""
    from_file = isinstance(weights, dict) and list(weights) == ["file"] and \
        weights["file"] is True
    from_column = isinstance(weights, dict) and list(weights) == ["column"] and \
        isinstance(weights["column"], str) and weights["column"] not in ("", target) and \
        data == "csv"
    if not (weights is None or from_file or from_column):
        raise ValueError(f'{path}: source.weights must be null, {{"file": true}} or, for CSV '
                         'data, {"column": the weight column (not the target)}; got '
                         f"{shown(weights)}.")
    if (weights is None) != (total_weight is None):
        raise ValueError(f"{path}: source.weights is {shown(weights)} but total_weight is "
                         f"{shown(total_weight)}; weighted certificates have both, unweighted "
                         "ones neither.")
    return weights


def _same_instance(path, stored, instance, data):
    if instance.digest() != stored["instance_sha256"]:
        raise ValueError(f"--recheck: the data ({' '.join(data)}) are not those {path} was "
                         f"made from: they give the instance sha256 {instance.digest()}, the "
                         f"certificate has {stored['instance_sha256']}.")


def _recheck_rule_list(path, stored, source, data, lam, args):
    weights = source.get(_WEIGHTS_FIELD)
    from_csv = source["data"] == "csv"
    problem = read_rule_list_problem(
        csv=data[0] if from_csv else None, target=source["target"],
        weight_column=weights["column"] if weights and "column" in weights else None,
        corels=() if from_csv else data[:2],
        sample_weights=data[-1] if weights and "file" in weights else None)
    mining = RuleListClassifier(lam, max_cardinality=source["max_cardinality"],
                                min_support=source["min_support"],
                                thresholds=source["thresholds"])
    dataset = rule_list_dataset(mining, problem, source["antecedents"], source["rows"])
    instance = RuleListInstance.from_dataset(dataset, lam)
    _same_instance(path, stored, instance, data)
    rule_list = RuleList.from_dict(stored["model"])
    if rule_list.classes != dataset.classes:
        raise ValueError(f"--recheck: the classes of {' '.join(data)}, "
                         f"{list(dataset.classes)}, are not the model's, "
                         f"{list(rule_list.classes)} ({path}).")
    lower_bound = stored["claimed_lower_bound"]
    try:
        return _certify_rule_list_claim(
            instance, rule_list, dataset.classes, Fraction(stored["claimed_objective"]),
            None if lower_bound is None else Fraction(lower_bound), source["checks"],
            args.solver_time_limit, require=args.require)
    except ValueError as error:              # the model names an antecedent the data lack
        raise ValueError(f"{path}: the certificate's model does not fit its data: "
                         f"{error}") from None


def _recheck_rule(path, stored, source, data, lam, args):
    problem = first_round_problem(data[0], source["target"], source["loss"], lam,
                            source["thresholds"], source["rows"], source["propositions"])
    instance = RuleInstance.from_problem(problem)
    _same_instance(path, stored, instance, data)
    query, names = stored["model"]["query"], stored["model"]["conditions"]
    if any(j >= len(instance.names) for j in query) or \
            names != [instance.names[j] for j in query]:
        raise ValueError(f"{path}: model.query {shown(query)} and model.conditions do not name "
                         f"propositions of the data ({len(instance.names)} propositions).")
    return certify_rule(instance, tuple(query), Fraction(stored["claimed_objective"]),
                        source["checks"], args.solver_time_limit,
                        alpha=Fraction(stored["model"]["alpha"]), require=args.require)
