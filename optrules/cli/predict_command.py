"""``optrules predict``: apply a saved model to new rows (a CSV file or CORELS antecedents)."""

import csv
import sys

import numpy as np

from optrules.cli.json_output import json_text
from optrules.data.binary_dataset import BinaryDataset
from optrules.data.corels_files import read_out
from optrules.data.table import csv_features, read_csv_columns
from optrules.model_files import load_model
from optrules.rule_lists.estimator import RuleListClassifier

__all__ = ["add_parser"]


def add_parser(commands):
    parser = commands.add_parser(
        "predict", help="apply a saved model to new rows",
        description="Print one prediction per row of the input (CSV: header 'prediction', "
                    "then one column per class probability with --proba; for a multi-label "
                    "model one prediction and one probability column per output; with --json "
                    "one object: predictions, and classes and probabilities with --proba).",
        epilog="example: optrules predict --model model.json --csv new_rows.csv")
    parser.add_argument("--model", metavar="FILE", required=True,
                        help="a model file written by --save-model or to_json()")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--csv", metavar="FILE",
                        help="rows with the model's feature columns (by name; other columns "
                             "such as the target are ignored)")
    source.add_argument("--corels-out", metavar="F",
                        help="CORELS antecedent file, for rule lists learned on CORELS files")
    parser.add_argument("--proba", action="store_true",
                        help="also print class probabilities (classifiers)")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object, not CSV (a value that is not finite, "
                             "such as an overflowing regression, is null)")
    parser.add_argument("--output", metavar="FILE",
                        help="write the CSV (or JSON) here, not to stdout (-)")
    parser.set_defaults(run=run, parser=parser)


def run(args, parser):
    model = load_model(args.model)
    source = args.csv or args.corels_out
    rows = _rows_from_csv(model, args.csv) if args.csv else _rows_from_corels(model,
                                                                             args.corels_out)
    try:
        predictions = model.predict(rows)
    except ValueError as error:
        raise ValueError(f"{source}: {error}") from None
    body = {"model": type(model).__name__, "rows": len(predictions),
            "predictions": predictions.tolist()}
    if predictions.ndim == 2:           # multi-label or multi-output: a column per output
        body["outputs"] = list(model.model_.output_names)
    if args.proba:
        if not hasattr(model, "predict_proba"):
            raise ValueError(f"--proba needs a classifier; {args.model} holds a "
                             f"{type(model).__name__}.")
        if predictions.ndim == 1:       # (multi-label: a column P(output = 1) per output)
            body["classes"] = model.classes_.tolist()
        body["probabilities"] = np.asarray(model.predict_proba(rows), dtype=float).tolist()
    if args.output and args.output != "-":          # "-" is stdout
        with open(args.output, "w", newline="", encoding="utf-8") as handle:
            _write(handle, body, args.json)
    else:
        _write(sys.stdout, body, args.json)
    return 0


def _write(handle, body, as_json):
    if as_json:
        handle.write(json_text(body) + "\n")
        return
    outputs = body.get("outputs")
    header = ["prediction"] if outputs is None else [f"prediction({name})" for name in outputs]
    if "probabilities" in body:
        header += [f"P({c})" for c in body["classes"]] if outputs is None else \
            [f"P({name}=1)" for name in outputs]
    rows = [p if outputs is not None else [p] for p in body["predictions"]]
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(row + probabilities for row, probabilities in
                     zip(rows, body.get("probabilities", [[]] * body["rows"])))


def _rows_from_csv(model, path):
    """The model's feature columns of a CSV file, by name (or by position for a model fitted
    on unnamed columns), read with the model's column kinds: a cell that does not fit is named
    by its line of the file."""
    columns, lines = read_csv_columns(path, lines=True)
    names = getattr(model, "feature_names_in_", None)
    kinds = getattr(model, "_feature_kinds", None)        # how the model reads each column
    if names is None:
        if len(columns) != model.n_features_in_:
            raise ValueError(f"{path}: the model was fitted on {model.n_features_in_} unnamed "
                             f"columns, but the file has {len(columns)}.")
        features = csv_features(path, columns, lines, kinds)
        return np.column_stack(features.columns).astype(object)
    missing = [name for name in names if name not in columns]
    if missing:
        raise ValueError(f"{path}: the model needs the column(s) {missing}, which the file "
                         f"lacks; it has {sorted(columns)}.")
    return csv_features(path, {name: columns[name] for name in names}, lines, kinds)


def _rows_from_corels(model, path):
    if not isinstance(model, RuleListClassifier):
        raise ValueError("--corels-out applies to rule lists only; this model is a "
                         f"{type(model).__name__}.")
    names, bits = read_out(path)
    return BinaryDataset.from_bits(names, bits, np.zeros(bits.shape[1], dtype=bool),
                                   classes=tuple(model.classes_.tolist()))
