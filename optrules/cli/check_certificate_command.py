"""``optrules check-certificate``: replay a rule-list search certificate on its data."""

import gzip
import json
import zlib
from fractions import Fraction

from optrules.cli.json_output import json_text
from optrules.rule_boosting.losses import LOSSES
from optrules.rule_lists.estimator import RuleListClassifier
from optrules.validation import parse_fraction
from optrules.verify.instances import RuleInstance, RuleListInstance
from optrules.verify.rule_search_certificate import check_rule_search_certificate
from optrules.verify.search_certificate import check_search_certificate
from optrules.verify.search_tree import search_tree

from .arguments import (add_rule_list_data_arguments, load_rule_list_problem, positive_int,
                        rule_list_dataset)
from .verify_command import first_round_problem

__all__ = ["add_parser"]


def add_parser(commands):
    parser = commands.add_parser(
        "check-certificate", help="replay a search certificate without trusting the engine",
        description="Check a search certificate written by optrules rulelist --certificate, "
                    "or by optrules verify rule --search-certificate (specs/certificates.md), "
                    "against the data it was made from, given with the same data options: "
                    "the claim is re-scored, every record's bound recomputed from the data, "
                    "and the records must cover every rule list (or conjunction). Prints "
                    "ACCEPTED, or REJECTED with the first failing line. Exit status 0 "
                    "accepted, 1 rejected, 2 bad input. --thresholds defaults to quantile:3 "
                    "for a rule list and quantile:10 for a boosting rule, as in those "
                    "commands.",
        epilog="example: optrules rulelist --csv compas.csv --target "
               "recidivate-within-two-years --lam 0.015 --certificate search.jsonl.gz; "
               "optrules check-certificate search.jsonl.gz --csv compas.csv --target "
               "recidivate-within-two-years")
    parser.add_argument("certificate_file", metavar="CERT",
                        help="the search certificate (JSON Lines, plain or gzip)")
    add_rule_list_data_arguments(parser)
    parser.set_defaults(thresholds=None)
    rule = parser.add_argument_group("a boosting rule's first round (optrules verify rule)")
    rule.add_argument("--loss", choices=list(LOSSES), default="logistic")
    rule.add_argument("--rows", type=positive_int, metavar="N", help="the first N rows")
    rule.add_argument("--propositions", type=positive_int, metavar="K",
                      help="the first K propositions")
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print the report as JSON")
    output.add_argument("--graphml", metavar="FILE",
                        help="also write the search tree as GraphML (needs networkx: pip "
                             "install 'optrules[graph]')")
    parser.set_defaults(run=run, parser=parser)


def run(args, parser):
    kind, lam = _header(args.certificate_file)
    if kind == "rule":
        if args.csv is None or args.target is None:
            parser.error("a boosting rule's certificate needs --csv FILE --target COL")
        problem = first_round_problem(args.csv, args.target, args.loss, lam,
                                      args.thresholds or "quantile:10", args.rows,
                                      args.propositions)
        report = check_rule_search_certificate(args.certificate_file,
                                               RuleInstance.from_problem(problem))
    else:
        report = check_search_certificate(args.certificate_file,
                                          *_rule_list_instance(args, parser, lam))
    if args.graphml:
        import networkx
        networkx.write_graphml(search_tree(args.certificate_file), args.graphml)
    if args.json:
        print(json_text({"accepted": report.accepted, "reason": report.reason,
                         "records": report.records, "seconds": round(report.seconds, 3)},
                        indent=None))
    else:
        verdict = "ACCEPTED" if report.accepted else "REJECTED"
        print(f"{verdict}: {report.reason} ({report.records} records, "
              f"{report.seconds:.2f} s)")
    return 0 if report.accepted else 1


def _rule_list_instance(args, parser, lam):
    """The rule-list instance of the data options (mined with the header's λ, which is the
    default minimum support, as in rulelist), and the data's classes."""
    problem = load_rule_list_problem(args, parser)
    min_support = None if args.min_support is None else parse_fraction(
        "--min-support", args.min_support, low=0, high=Fraction(1, 2),
        function="optrules check-certificate", low_inclusive=True, high_inclusive=True)
    mining = RuleListClassifier(lam, max_cardinality=args.max_cardinality,
                                min_support=min_support,
                                thresholds=args.thresholds or "quantile:3")
    dataset = rule_list_dataset(mining, problem, None, None)
    return RuleListInstance.from_dataset(dataset, lam), dataset.classes


def _header(path):
    """(kind, λ) from the certificate's header: the instance is built with them, and the
    checker then compares its digest with the header's."""
    try:
        with open(path, "rb") as handle:
            first = handle.readline()
        if first[:2] == b"\x1f\x8b":
            with gzip.open(path, "rt", encoding="utf-8") as handle:
                first = handle.readline()
    except (OSError, EOFError, UnicodeDecodeError, zlib.error) as error:  # a damaged gzip
        raise ValueError(f"{path}: unreadable ({error}).") from None
    try:
        header = json.loads(first)
        kind = header["kind"]
        high = 1 if kind == "rule-list" else float("inf")
        return kind, parse_fraction("lambda", header["lambda"], low=0, high=high,
                                    function=f"the header of {path}",
                                    low_inclusive=kind == "rule")
    except (ValueError, KeyError, TypeError, EOFError, OSError):
        raise ValueError(f"{path}: the first line is not a search certificate's header.") \
            from None
