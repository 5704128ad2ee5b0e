"""``optrules data``: write a bundled dataset as CSV, to try the other commands on."""

import sys
from importlib import resources

__all__ = ["add_parser", "bundled_csv", "DATASETS"]

#: Bundled dataset name -> (file in optrules.data, target column, description).
DATASETS = {"compas": ("compas_train.csv", "recidivate-within-two-years",
                       "ProPublica COMPAS training split as CORELS uses it: 6489 rows, 7 "
                       "categorical features, binary target recidivate-within-two-years")}


def bundled_csv(name):
    """Path-like of a bundled dataset's CSV file (a key of :data:`DATASETS`)."""
    return resources.files("optrules.data") / DATASETS[name][0]


def add_parser(commands):
    parser = commands.add_parser(
        "data", help="write a bundled dataset as CSV",
        description="Write a dataset bundled with optrules as a CSV file. " + " ".join(
            f"{name}: {description}." for name, (_, _, description) in DATASETS.items()),
        epilog="example: optrules data compas --output compas.csv")
    parser.add_argument("name", choices=sorted(DATASETS))
    parser.add_argument("--output", metavar="FILE", help="write here, not to stdout")
    parser.set_defaults(run=run, parser=parser)


def run(args, parser):
    text = bundled_csv(args.name).read_text(encoding="utf-8")
    if args.output:
        with open(args.output, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0
