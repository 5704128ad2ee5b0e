"""``optrules data``: write a bundled dataset as CSV, to try the other commands on."""

import csv
import sys

from optrules.cli.json_output import json_text
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
    parser.add_argument("--json", action="store_true",
                        help="print a JSON description of the dataset (name, rows, columns, "
                             "target, file written) instead of the CSV; the CSV is then "
                             "written only with --output")
    parser.set_defaults(run=run, parser=parser)


def run(args, parser):
    to_file = bool(args.output and args.output != "-")          # "-" is stdout
    if args.json and args.output == "-":
        raise ValueError("--json and --output - both write to stdout; give --output a file "
                         "name, or leave out one of them.")
    text = bundled_csv(args.name).read_text(encoding="utf-8")
    if to_file:
        with open(args.output, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    if args.json:
        header, *rows = csv.reader(text.splitlines())
        entry = DATASETS[args.name]
        print(json_text({"name": args.name, "rows": len(rows), "columns": header,
                         "target": entry["target"], "description": entry["description"],
                         "output": args.output if to_file else None}))
    elif not to_file:
        sys.stdout.write(text)
    return 0
