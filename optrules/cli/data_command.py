"""``optrules data``: write a bundled dataset as CSV, to try the other commands on."""

import sys

from optrules.data import DATASETS, bundled_csv

__all__ = ["add_parser"]


def add_parser(commands):
    parser = commands.add_parser(
        "data", help="write a bundled dataset as CSV",
        description="Write a dataset bundled with optrules as a CSV file. " + " ".join(
            f"{name}: {entry['description']}." for name, entry in DATASETS.items()),
        epilog="example: optrules data compas --output compas.csv")
    parser.add_argument("name", choices=sorted(DATASETS))
    parser.add_argument("--output", metavar="FILE", help="write here, not to stdout (-)")
    parser.set_defaults(run=run, parser=parser)


def run(args, parser):
    text = bundled_csv(args.name).read_text(encoding="utf-8")
    if args.output and args.output != "-":          # "-" is stdout
        with open(args.output, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0
