"""``optrules check-certificate``: replay a rule-list search certificate on its data."""

import gzip
import json

from optrules.data.corels_files import load_corels
from optrules.data.weights import read_weights
from optrules.verify.instances import RuleListInstance
from optrules.verify.search_certificate import check_search_certificate
from optrules.verify.search_tree import search_tree

__all__ = ["add_parser"]


def add_parser(commands):
    parser = commands.add_parser(
        "check-certificate", help="replay a search certificate without trusting the engine",
        description="Check a search certificate written by optrules rulelist --certificate "
                    "(specs/certificates.md) against the CORELS files it was made from: the "
                    "claimed list is re-scored, every record's bound recomputed from the data, "
                    "and the records must cover every rule list. Prints ACCEPTED, or REJECTED "
                    "with the first failing line. Exit status 0 accepted, 1 rejected, 2 bad "
                    "input.",
        epilog="example: optrules rulelist --corels-out compas.out --corels-label "
               "compas.label --lam 0.01 --certificate search.jsonl.gz; optrules "
               "check-certificate search.jsonl.gz compas.out compas.label")
    parser.add_argument("certificate", metavar="CERT",
                        help="the search certificate (JSON Lines, plain or gzip)")
    parser.add_argument("data", nargs="+", metavar="DATA",
                        help="the CORELS .out and .label files, then the --sample-weights "
                             "file if the search had one")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--graphml", metavar="FILE",
                        help="also write the search tree as GraphML (needs networkx: pip "
                             "install 'optrules[graph]')")
    parser.set_defaults(run=run, parser=parser)


def run(args, parser):
    if len(args.data) not in (2, 3):
        raise ValueError(f"give CERT OUT LABEL [WEIGHTS]; got {len(args.data)} data file(s).")
    dataset = load_corels(*args.data[:2])
    if len(args.data) == 3:
        dataset = dataset.with_weights(read_weights(args.data[2], dataset.n_samples))
    with open(args.certificate, "rb") as handle:      # a clear error for a missing file
        first = handle.readline()
    lam = _header_lambda(args.certificate, first)
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


def _header_lambda(path, first):
    """λ from the certificate's header (the instance is built with it; the checker then
    compares the instance's digest with the header's)."""
    if first[:2] == b"\x1f\x8b":
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            first = handle.readline()
    try:
        return json.loads(first)["lambda"]
    except (ValueError, KeyError, TypeError):
        raise ValueError(f"{path}: the first line is not a search certificate's header.") \
            from None
