"""``optrules check-certificate``: replay a rule-list search certificate on its data."""

import gzip
import json
from fractions import Fraction

from optrules.rule_lists.estimator import RuleListClassifier
from optrules.validation import parse_fraction
from optrules.verify.instances import RuleListInstance
from optrules.verify.search_certificate import check_search_certificate
from optrules.verify.search_tree import search_tree

from .arguments import add_rule_list_data_arguments, load_rule_list_problem, rule_list_dataset

__all__ = ["add_parser"]


def add_parser(commands):
    parser = commands.add_parser(
        "check-certificate", help="replay a search certificate without trusting the engine",
        description="Check a search certificate written by optrules rulelist --certificate "
                    "(specs/certificates.md) against the data it was made from, given with the "
                    "same data and mining options: the claimed list is re-scored, every "
                    "record's bound recomputed from the data, and the records must cover every "
                    "rule list. Prints ACCEPTED, or REJECTED with the first failing line. Exit "
                    "status 0 accepted, 1 rejected, 2 bad input.",
        epilog="example: optrules rulelist --csv compas.csv --target "
               "recidivate-within-two-years --lam 0.015 --certificate search.jsonl.gz; "
               "optrules check-certificate search.jsonl.gz --csv compas.csv --target "
               "recidivate-within-two-years")
    parser.add_argument("certificate", metavar="CERT",
                        help="the search certificate (JSON Lines, plain or gzip)")
    add_rule_list_data_arguments(parser)
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print the report as JSON")
    output.add_argument("--graphml", metavar="FILE",
                        help="also write the search tree as GraphML (needs networkx: pip "
                             "install 'optrules[graph]')")
    parser.set_defaults(run=run, parser=parser)


def run(args, parser):
    problem = load_rule_list_problem(args, parser)
    lam = _header_lambda(args.certificate)
    # Mining depends on λ only through the default minimum support (λ), as in rulelist.
    min_support = None if args.min_support is None else parse_fraction(
        "--min-support", args.min_support, low=0, high=Fraction(1, 2),
        function="optrules check-certificate", low_inclusive=True, high_inclusive=True)
    mining = RuleListClassifier(lam, max_cardinality=args.max_cardinality,
                                min_support=min_support, thresholds=args.thresholds)
    dataset = rule_list_dataset(mining, problem, None, None)
    report = check_search_certificate(args.certificate,
                                      RuleListInstance.from_dataset(dataset, lam))
    if args.graphml:
        import networkx
        networkx.write_graphml(search_tree(args.certificate), args.graphml)
    if args.json:
        print(json.dumps({"accepted": report.accepted, "reason": report.reason,
                          "records": report.records, "seconds": round(report.seconds, 3)}))
    else:
        verdict = "ACCEPTED" if report.accepted else "REJECTED"
        print(f"{verdict}: {report.reason} ({report.records} records, "
              f"{report.seconds:.2f} s)")
    return 0 if report.accepted else 1


def _header_lambda(path):
    """λ from the certificate's header (the data are mined and the instance built with it;
    the checker then compares the instance's digest with the header's)."""
    with open(path, "rb") as handle:
        first = handle.readline()
    if first[:2] == b"\x1f\x8b":
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            first = handle.readline()
    try:
        return parse_fraction("lambda", json.loads(first)["lambda"], low=0, high=1,
                              function=f"the header of {path}")
    except (ValueError, KeyError, TypeError, EOFError, OSError):
        raise ValueError(f"{path}: the first line is not a search certificate's header.") \
            from None
