"""Rule-list inputs of issue 9 through the ``optrules`` command: targets of C >= 2 classes (CSV
and CORELS ``.label`` files of C lines) and exact sample weights (``--sample-weights FILE``,
``--weight-column COL``), malformed inputs included, and certificates that record how their
weights were given so that ``optrules verify --recheck`` rebuilds the same instance."""

import contextlib
import io
import json
import re
import shutil
import time
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from optrules import RuleListClassifier, load_model
from optrules.cli import main
from optrules.data.binary_dataset import BinaryDataset
from optrules.data.corels_files import save_corels
from optrules.data.table import read_csv

# Three classes a < b < c; only categorical columns, so that mining does not depend on how
# often a row occurs (numeric cut points are quantiles of the rows).
HEADER = ["color", "size", "w", "y"]
ROWS = [("red", "S", "1", "a"), ("red", "L", "2", "b"), ("blue", "S", "1", "c"),
        ("blue", "L", "0", "a"), ("red", "S", "3", "a"), ("blue", "S", "1", "c"),
        ("green", "L", "1", "b"), ("green", "S", "2", "b"), ("red", "L", "1", "c"),
        ("blue", "L", "2", "c")]
WEIGHTS = [row[2] for row in ROWS]
LAM = "0.05"


def _csv(path, rows=ROWS, header=HEADER):
    path.write_text("\n".join(",".join(row) for row in [header, *rows]) + "\n",
                    encoding="utf-8")
    return path


@pytest.fixture
def data(tmp_path):
    """The CSV file (with its weight column w) and the same weights as a weights file."""
    weights = tmp_path / "w.txt"
    weights.write_text("\n".join(WEIGHTS) + "\n", encoding="utf-8")
    return _csv(tmp_path / "t.csv"), weights


def _rulelist(argv, capsys):
    """(exit status, parsed JSON) of ``optrules rulelist ... --json --quiet``."""
    status = main(["rulelist", *map(str, argv), "--lam", LAM, "--json", "--quiet"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return json.loads(captured.out)


def _fails(argv, capsys, command="rulelist"):
    """The error line of a command that must exit with status 2 (bad input or usage)."""
    try:
        status = main(list(map(str, argv)))
    except SystemExit as exit_:          # argparse usage errors
        status = exit_.code
    captured = capsys.readouterr()
    assert status == 2 and captured.out == "", (status, captured.out)
    line = captured.err.rstrip("\n").splitlines()[-1]
    prefix = f"optrules {command}: error: "
    assert line.startswith(prefix), line
    return line[len(prefix):]


# --- targets of three classes ------------------------------------------------------------------

def test_a_three_class_csv_gives_a_certified_list_over_its_classes(data, capsys):
    csv, _ = data
    result = _rulelist(["--csv", csv, "--target", "y"], capsys)
    assert result["classes"] == ["a", "b", "c"] == result["model"]["classes"]
    assert result["status"] == "optimal" and result["lower_bound"] == result["objective"]
    assert result["total_weight"] is None and isinstance(result["mistakes"], int)
    predictions = {rule["prediction"] for rule in result["rules"]} | {result["default"]}
    assert predictions <= {"a", "b", "c"} and len(predictions) == 3
    features, y = read_csv(csv, "y")
    fitted = RuleListClassifier(LAM).fit(features, y)
    assert result["objective"] == f"{fitted.objective_.numerator}/{fitted.objective_.denominator}"


def test_numeric_classes_are_ordered_numerically(tmp_path, capsys):
    csv = _csv(tmp_path / "n.csv", [(c, s, w, {"a": "10", "b": "9", "c": "-1"}[y])
                                    for c, s, w, y in ROWS])
    result = _rulelist(["--csv", csv, "--target", "y", "--weight-column", "w"], capsys)
    assert result["classes"] == [-1, 9, 10]


def test_corels_files_written_by_save_corels_give_the_same_optimum(data, tmp_path, capsys):
    csv, _ = data
    from_csv = _rulelist(["--csv", csv, "--target", "y"], capsys)
    features, y = read_csv(csv, "y")
    dataset = RuleListClassifier(LAM).antecedents(features, y)
    out, label = tmp_path / "t.out", tmp_path / "t.label"
    save_corels(dataset, out, label)
    assert len(label.read_text().splitlines()) == 3
    from_corels = _rulelist(["--corels-out", out, "--corels-label", label], capsys)
    assert from_corels["classes"] == ["a", "b", "c"] and from_corels["status"] == "optimal"
    assert from_corels["objective"] == from_csv["objective"]
    assert from_corels["rules"] == from_csv["rules"]


def test_predict_gives_one_probability_column_per_class(data, tmp_path, capsys):
    csv, _ = data
    model = tmp_path / "m.json"
    assert main(["rulelist", "--csv", str(csv), "--target", "y", "--lam", LAM, "--quiet",
                 "--save-model", str(model)]) == 0
    capsys.readouterr()
    assert main(["predict", "--model", str(model), "--csv", str(csv), "--proba"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "prediction,P(a),P(b),P(c)" and len(lines) == 1 + len(ROWS)
    assert all(abs(sum(map(float, line.split(",")[1:])) - 1) < 1e-12 for line in lines[1:])


# --- .label files of C lines -------------------------------------------------------------------

OUT = "{f:1} 1 1 0 0 1 0\n{f:2} 0 0 1 1 0 1\n"


@pytest.mark.parametrize("label, message", [
    ("{y:a} 1 0 0 0 0 0\n{y:b} 0 1 0 0 1 0\n{y:c} 0 0 1 1 0 0\n",
     "{label}: sample 6 has its label bit set on no line (1 sample with no label or several); "
     "each sample has exactly one label."),
    ("{y:a} 1 0 0 0 0 1\n{y:b} 0 1 0 0 1 0\n{y:c} 0 0 1 1 0 1\n",
     "{label}: sample 6 has its label bit set on lines 1 and 3 (1 sample with no label or "
     "several); each sample has exactly one label."),
    ("{y:a} 1 0 0 0 0 0\n{y:b} 0 1 0 0 1 0\n{z:c} 0 0 1 1 0 1\n",
     "{label}, line 3: label name {{z:c}} names the target 'z', but line 1 names 'y'; every "
     "line names a class of one target."),
    ("{y:a} 1 0 0 0 0 0\n{y:b} 0 1 0 0 1 0\n{y:a} 0 0 1 1 0 1\n",
     "{label}, line 3: the class 'a' is also on line 1; every line names another class."),
    ("{y:a} 1 1 1 1 1 1\n",
     "{label}: a label file has one line per class, at least 2 (in class order; for two "
     "classes the negative, then the positive class); found 1."),
])
def test_malformed_label_files(tmp_path, capsys, label, message):
    out, path = tmp_path / "d.out", tmp_path / "d.label"
    out.write_text(OUT, encoding="utf-8")
    path.write_text(label, encoding="utf-8")
    argv = ["rulelist", "--corels-out", out, "--corels-label", path, "--lam", LAM]
    assert _fails(argv, capsys) == message.format(label=path)


def test_a_three_line_label_file_is_read_in_line_order(tmp_path, capsys):
    out, label = tmp_path / "d.out", tmp_path / "d.label"
    out.write_text(OUT, encoding="utf-8")
    label.write_text("{y:hi} 1 1 0 0 0 0\n{y:lo} 0 0 1 1 0 0\n{y:mid} 0 0 0 0 1 1\n",
                     encoding="utf-8")
    result = _rulelist(["--corels-out", out, "--corels-label", label], capsys)
    assert result["classes"] == ["hi", "lo", "mid"] and result["status"] == "optimal"


# --- weights: the same optimum as duplicated rows ----------------------------------------------

def test_a_weights_file_counts_each_row_as_often_as_its_weight(data, tmp_path, capsys):
    csv, weights = data
    header = [HEADER[0], HEADER[1], HEADER[3]]            # the same features: color, size
    unweighted = _csv(tmp_path / "plain.csv", [(c, s, y) for c, s, _, y in ROWS], header)
    duplicated = _csv(tmp_path / "dup.csv", [(c, s, y) for c, s, w, y in ROWS
                                             for _ in range(int(w))], header)
    copies = _rulelist(["--csv", duplicated, "--target", "y"], capsys)
    weighted = _rulelist(["--csv", unweighted, "--target", "y", "--sample-weights", weights],
                         capsys)
    column = _rulelist(["--csv", csv, "--target", "y", "--weight-column", "w"], capsys)
    plain = _rulelist(["--csv", unweighted, "--target", "y"], capsys)
    assert weighted["objective"] == copies["objective"] == column["objective"]
    assert weighted["objective"] != plain["objective"]        # the weights matter here
    assert weighted["rules"] == copies["rules"] == column["rules"]
    assert weighted["default"] == copies["default"]
    assert weighted["mistakes"] == copies["mistakes"]
    assert weighted["total_weight"] == column["total_weight"] == "14/1"
    assert copies["total_weight"] is None
    assert weighted["n_samples"] == len(ROWS) and copies["n_samples"] == 14


def test_weights_with_corels_files(data, tmp_path, capsys):
    csv, weights = data
    features, y = read_csv(csv, "y")
    dataset = RuleListClassifier(LAM).antecedents(features, y)
    out, label = tmp_path / "t.out", tmp_path / "t.label"
    save_corels(dataset, out, label)
    corels = _rulelist(["--corels-out", out, "--corels-label", label, "--sample-weights",
                        weights], capsys)
    fitted = RuleListClassifier(LAM).fit_antecedents(dataset, sample_weight=WEIGHTS)
    assert Fraction(corels["objective"]) == fitted.objective_
    assert corels["total_weight"] == "14/1"


def test_fractional_weights_are_exact(data, tmp_path, capsys):
    csv, _ = data
    halves = tmp_path / "halves.txt"
    halves.write_text("1/2\n" * len(ROWS), encoding="utf-8")
    plain = _rulelist(["--csv", csv, "--target", "y"], capsys)
    halved = _rulelist(["--csv", csv, "--target", "y", "--sample-weights", halves], capsys)
    assert halved["objective"] == plain["objective"]          # one common factor changes nothing
    assert halved["total_weight"] == "5/1"
    thirds = tmp_path / "thirds.txt"
    thirds.write_text("".join(f"{k}/3\n" for k in range(1, len(ROWS) + 1)), encoding="utf-8")
    result = _rulelist(["--csv", csv, "--target", "y", "--sample-weights", thirds], capsys)
    assert result["total_weight"] == "55/3"
    mistakes = Fraction(result["mistakes"])
    assert isinstance(result["mistakes"], (int, str)) and mistakes.denominator in (1, 3)
    if mistakes.denominator == 3:
        assert result["mistakes"] == f"{mistakes.numerator}/3"
    assert Fraction(result["objective"]) == mistakes / Fraction(55, 3) + \
        Fraction(LAM) * len(result["rules"])


def test_the_text_output_of_a_weighted_fit_states_the_weights(data, tmp_path, capsys):
    csv, _ = data
    thirds = tmp_path / "thirds.txt"
    thirds.write_text("".join(f"{k}/3\n" for k in range(1, len(ROWS) + 1)), encoding="utf-8")
    model = tmp_path / "m.json"
    assert main(["rulelist", "--csv", str(csv), "--target", "y", "--lam", LAM, "--quiet",
                 "--sample-weights", str(thirds), "--save-model", str(model)]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert re.fullmatch(r"sample weights: mistaken weight (\d+|\d+/3 = [0-9.]+) of total weight "
                        r"55/3 = 18\.3333, weighted error 0\.\d{6} \(10 samples\)", last), last
    loaded = load_model(model)
    assert loaded.result_.total_weight == Fraction(55, 3)
    assert main(["rulelist", "--csv", str(csv), "--target", "y", "--lam", LAM,
                 "--quiet"]) == 0
    assert "sample weights" not in capsys.readouterr().out        # unweighted: as before


# --- malformed weights -------------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ("1\n2\n3\n", "{path}: 3 weight lines for 10 samples; give one weight per line, in sample "
                  "order."),
    ("1\n-2\n" + "1\n" * 8, "{path}, line 2: the weight '-2' is negative; weights are >= 0."),
    ("1\n1\nnan\n" + "1\n" * 7, "{path}, line 3: 'nan' is not a number; a weight is a finite "
                                "number >= 0 such as 2, 0.25 or 1/3."),
    ("1\n" * 4 + "abc\n" + "1\n" * 5, "{path}, line 5: 'abc' is not a number; a weight is a "
                                      "finite number >= 0 such as 2, 0.25 or 1/3."),
    ("1\n\n" + "1\n" * 8, "{path}, line 2: '' is not a number; a weight is a finite number >= 0 "
                          "such as 2, 0.25 or 1/3."),
    ("0\n" * 10, "{path}: all weights are zero; at least one line needs a positive weight."),
])
@pytest.mark.parametrize("source", ["csv", "corels"])
def test_malformed_weights_files(data, tmp_path, capsys, text, message, source):
    csv, _ = data
    path = tmp_path / "bad.txt"
    path.write_text(text, encoding="utf-8")
    if source == "csv":
        argv = ["--csv", csv, "--target", "y"]
    else:
        out, label = tmp_path / "t.out", tmp_path / "t.label"
        features, y = read_csv(csv, "y")
        save_corels(RuleListClassifier(LAM).antecedents(features, y), out, label)
        argv = ["--corels-out", out, "--corels-label", label]
    for command in (["rulelist"], ["verify", "rulelist"]):
        error = _fails(command + argv + ["--sample-weights", path, "--lam", LAM], capsys,
                       " ".join(command[:1]))
        assert error == message.format(path=path)


def test_a_missing_weights_file_is_named(data, tmp_path, capsys):
    csv, _ = data
    error = _fails(["rulelist", "--csv", csv, "--target", "y", "--lam", LAM,
                    "--sample-weights", tmp_path / "absent.txt"], capsys)
    assert error == f"{tmp_path / 'absent.txt'}: cannot read the weights file (No such file or " \
                    "directory)."


@pytest.mark.parametrize("cell, row, message", [
    ("", 3, "{path}, line 4: the weight column 'w' is missing (''); every row needs a weight "
            "(0 leaves the row out)."),
    ("NA", 2, "{path}, line 3: the weight column 'w' is missing ('NA'); every row needs a "
              "weight (0 leaves the row out)."),
    ("heavy", 5, "{path}, line 6: the weight column 'w' holds 'heavy', which is not a number; a "
                 "weight is a finite number >= 0 such as 2, 0.25 or 1/3."),
    ("inf", 1, "{path}, line 2: the weight column 'w' holds 'inf', which is not a number; a "
               "weight is a finite number >= 0 such as 2, 0.25 or 1/3."),
    ("1/0", 1, "{path}, line 2: the weight column 'w' holds '1/0', which is not a number; a "
               "weight is a finite number >= 0 such as 2, 0.25 or 1/3."),
    ("-0.5", 10, "{path}, line 11: the weight column 'w' holds the negative weight '-0.5'; "
                 "weights are >= 0."),
])
def test_malformed_weight_column_cells_name_the_line(tmp_path, capsys, cell, row, message):
    rows = [r if k != row - 1 else (r[0], r[1], cell, r[3]) for k, r in enumerate(ROWS)]
    path = _csv(tmp_path / "bad.csv", rows)
    for command in (["rulelist"], ["verify", "rulelist"]):
        error = _fails(command + ["--csv", path, "--target", "y", "--weight-column", "w",
                                  "--lam", LAM], capsys, command[0])
        assert error == message.format(path=path)


def test_a_weight_column_of_zeros_or_absent(tmp_path, capsys):
    path = _csv(tmp_path / "zero.csv", [(c, s, "0", y) for c, s, _, y in ROWS])
    argv = ["rulelist", "--csv", path, "--target", "y", "--lam", LAM, "--weight-column"]
    assert _fails(argv + ["w"], capsys) == (f"{path}, weight column 'w': all weights are zero; "
                                            "at least one data row needs a positive weight.")
    assert _fails(argv + ["weight"], capsys) == (f"{path}: weight column 'weight' not found; "
                                                 "columns are ['color', 'size', 'w'].")


def test_a_quoted_cell_over_two_lines_moves_the_line_named(tmp_path, capsys):
    path = tmp_path / "q.csv"
    path.write_text('color,size,w,y\n"red\nish",S,1,a\nred,L,x,b\nblue,S,1,c\n',
                    encoding="utf-8")
    error = _fails(["rulelist", "--csv", path, "--target", "y", "--weight-column", "w",
                    "--lam", LAM], capsys)
    assert error.startswith(f"{path}, line 4: the weight column 'w' holds 'x'")


@pytest.mark.parametrize("argv, message", [
    (["--weight-column", "y"], "--weight-column y is the --target column; give the column of "
                               "the weights"),
    (["--weight-column", "w", "--sample-weights", "{weights}"],
     "argument --sample-weights: not allowed with argument --weight-column"),
])
def test_weight_options_used_wrongly_with_csv(data, capsys, argv, message):
    csv, weights = data
    for command in (["rulelist"], ["verify", "rulelist"]):
        error = _fails(command + ["--csv", csv, "--target", "y", "--lam", LAM] +
                       [a.format(weights=weights) for a in argv], capsys, " ".join(command))
        assert error == message


def test_a_weight_column_without_csv_is_a_usage_error(data, tmp_path, capsys):
    out, label = tmp_path / "d.out", tmp_path / "d.label"
    out.write_text(OUT, encoding="utf-8")
    label.write_text("{y:a} 1 1 0 0 0 0\n{y:b} 0 0 1 1 1 1\n", encoding="utf-8")
    error = _fails(["rulelist", "--corels-out", out, "--corels-label", label, "--lam", LAM,
                    "--weight-column", "w"], capsys)
    assert error == ("--weight-column COL names a column of --csv; with CORELS files give "
                     "--sample-weights FILE")


def test_boost_still_needs_two_classes(data, capsys):
    csv, _ = data
    error = _fails(["boost", "--csv", csv, "--target", "y", "--rules", "1", "--quiet"], capsys,
                   "boost")
    assert error.startswith(f"{csv}: Only binary classification is supported. The target "
                            "column 'y' needs exactly 2 classes")


# --- verify rulelist with weights, and --recheck -----------------------------------------------

def _verify(argv, capsys):
    status = main(["verify", *map(str, argv)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err.rstrip("\n").splitlines()[-1:] or [""]


@pytest.fixture(scope="module")
def original_certificates(tmp_path_factory):
    """Certificates of the weighted fit, weights given as a file and as a column, and of the
    unweighted one: name -> (certificate, data files for --recheck)."""
    folder = tmp_path_factory.mktemp("certificates")
    csv, weights = _csv(folder / "t.csv"), folder / "w.txt"
    weights.write_text("\n".join(WEIGHTS) + "\n", encoding="utf-8")
    common = ["verify", "rulelist", "--csv", str(csv), "--target", "y", "--lam", LAM,
              "--antecedents", "6", "--checks", "oracle", "--quiet"]
    made = {}
    with contextlib.redirect_stdout(io.StringIO()) as out:
        for name, extra, files in [("file", ["--sample-weights", weights], [csv, weights]),
                                   ("column", ["--weight-column", "w"], [csv]),
                                   ("unweighted", [], [csv])]:
            certificate = folder / f"{name}.json"
            assert main(common + [str(a) for a in extra] + ["--certificate",
                                                            str(certificate)]) == 0, name
            made[name] = certificate, files
    assert out.getvalue().count("verdict: certified") == 3
    return made


@pytest.fixture
def weighted_certificates(original_certificates, tmp_path):
    """Copies of the certificates (which a test may edit) with their data files."""
    return {name: (Path(shutil.copy(path, tmp_path)), files)
            for name, (path, files) in original_certificates.items()}


def test_weighted_certificates_record_their_weights_and_recheck(weighted_certificates, capsys):
    sources = {name: json.loads(path.read_text())
               for name, (path, _) in weighted_certificates.items()}
    assert sources["file"]["source"]["weights"] == {"file": True}
    assert sources["column"]["source"]["weights"] == {"column": "w"}
    assert sources["unweighted"]["source"]["weights"] is None
    assert sources["file"]["total_weight"] == sources["column"]["total_weight"] == "14/1"
    assert sources["unweighted"]["total_weight"] is None
    # --weight-column drops w from the features: another instance than w as a feature
    assert sources["file"]["instance_sha256"] != sources["column"]["instance_sha256"]
    for name, (path, files) in weighted_certificates.items():
        status, out, _ = _verify(["--recheck", path, *files], capsys)
        assert status == 0 and out.splitlines()[-1].startswith("verdict: certified"), (name, out)
        assert sources[name]["instance_sha256"] in out


def test_a_recheck_with_other_weights_is_another_instance(weighted_certificates, tmp_path,
                                                          capsys):
    path, (csv, weights) = weighted_certificates["file"]
    other = tmp_path / "other.txt"
    other.write_text("\n".join(WEIGHTS[:-1] + ["3"]) + "\n", encoding="utf-8")
    status, out, [error] = _verify(["--recheck", path, csv, other], capsys)
    assert status == 2 and out == ""
    assert re.fullmatch(rf"optrules verify: error: --recheck: the data \({re.escape(str(csv))} "
                        rf"{re.escape(str(other))}\) are not those {re.escape(str(path))} was "
                        r"made from: they give the instance sha256 [0-9a-f]{64}, the "
                        r"certificate has [0-9a-f]{64}\.", error), error
    # the weights as a column: another column of the same CSV is another instance too
    column_path, [column_csv] = weighted_certificates["column"]
    edited = _csv(tmp_path / "edited.csv", [r[:2] + ("5" if k == 0 else r[2],) + r[3:]
                                            for k, r in enumerate(ROWS)])
    status, _, [error] = _verify(["--recheck", column_path, edited], capsys)
    assert status == 2 and "are not those" in error


@pytest.mark.parametrize("which, files, message", [
    ("file", lambda csv, w: [csv], "was made from csv data and a --sample-weights file, so "
                                   "give CERT CSV WEIGHTS; got 1 data file(s)."),
    ("column", lambda csv, w: [csv, w], "was made from csv data, so give CERT CSV; got 2 data "
                                        "file(s)."),
])
def test_recheck_names_the_weights_file_it_needs(weighted_certificates, data, capsys, which,
                                                 files, message):
    path, _ = weighted_certificates[which]
    status, _, [error] = _verify(["--recheck", path, *files(*data)], capsys)
    assert status == 2 and error == f"optrules verify: error: --recheck: {path} {message}"


@pytest.mark.parametrize("which, weights", [
    ("file", {"file": 1}), ("file", {"file": True, "column": "w"}), ("file", "file"),
    ("column", {"column": "y"}), ("column", {"column": ""}), ("column", {"column": 3}),
    ("file", None), ("unweighted", {"file": True}),
])
def test_recheck_checks_the_recorded_weights(weighted_certificates, capsys, which, weights):
    path, files = weighted_certificates[which]
    body = json.loads(path.read_text())
    body["source"]["weights"] = weights
    path.write_text(json.dumps(body))
    status, _, [error] = _verify(["--recheck", path, *files], capsys)
    assert status == 2 and error.startswith(f"optrules verify: error: {path}: source.weights "), \
        error


def test_a_corels_certificate_cannot_name_a_weight_column(data, tmp_path, capsys):
    csv, weights = data
    features, y = read_csv(csv, "y")
    out, label = tmp_path / "t.out", tmp_path / "t.label"
    save_corels(RuleListClassifier(LAM).antecedents(features, y), out, label)
    path = tmp_path / "c.json"
    status, _, _ = _verify(["rulelist", "--corels-out", out, "--corels-label", label,
                            "--sample-weights", weights, "--lam", LAM, "--antecedents", "6",
                            "--checks", "oracle", "--certificate", path], capsys)
    assert status == 0
    assert _verify(["--recheck", path, out, label, weights], capsys)[0] == 0
    body = json.loads(path.read_text())
    body["source"]["weights"] = {"column": "w"}
    path.write_text(json.dumps(body))
    status, _, [error] = _verify(["--recheck", path, out, label], capsys)
    assert status == 2 and "source.weights must be null" in error


def test_a_version_1_certificate_of_two_classes_rechecks_without_a_weights_field(tmp_path,
                                                                                 capsys):
    csv = _csv(tmp_path / "two.csv", [(c, s, w, "a" if y == "a" else "b")
                                      for c, s, w, y in ROWS])
    path = tmp_path / "v1.json"
    status, _, _ = _verify(["rulelist", "--csv", csv, "--target", "y", "--lam", LAM,
                            "--antecedents", "6", "--checks", "oracle", "--certificate", path,
                            "--quiet"], capsys)
    assert status == 0
    body = json.loads(path.read_text())
    del body["total_weight"], body["source"]["weights"], body["require"]
    body["version"] = 1
    path.write_text(json.dumps(body))
    status, out, _ = _verify(["--recheck", path, csv], capsys)
    assert status == 0 and "verdict: certified" in out
    body["source"]["weights"] = None                  # version 1 had no such field
    path.write_text(json.dumps(body))
    status, _, [error] = _verify(["--recheck", path, csv], capsys)
    assert status == 2 and "source has an unknown field 'weights'" in error


def test_rows_of_weight_zero_only(data, capsys):
    csv, weights = data
    zero_first = csv.with_name("zero.txt")
    zero_first.write_text("0\n0\n" + "1\n" * (len(ROWS) - 2), encoding="utf-8")
    error = _fails(["verify", "rulelist", "--csv", csv, "--target", "y", "--lam", LAM,
                    "--sample-weights", zero_first, "--rows", "2"], capsys, "verify")
    assert error == "--rows 2: the first 2 samples all weigh 0; keep more rows."


def test_an_output_file_may_not_be_the_weights_file(data, capsys):
    csv, weights = data
    before = weights.read_text()
    error = _fails(["rulelist", "--csv", csv, "--target", "y", "--lam", LAM, "--sample-weights",
                    weights, "--save-model", weights], capsys)
    assert error == (f"--save-model: {weights} is also --sample-weights; writing it would "
                     "destroy that file. Give another file name.")
    assert weights.read_text() == before


# --- found by review: weights and labels in Python -----------------------------------------

def test_float32_weights_are_read_as_their_shortest_decimal():
    from optrules.data.weights import integer_weights
    counts, unit = integer_weights(np.array([0.5, 0.1], dtype=np.float32))
    assert counts.tolist() == [5, 1] and unit == Fraction(1, 10)


@pytest.mark.parametrize("weights", [[1, "1e9999"], [1, "1e-9999"], [10 ** 16, 1]])
def test_weights_beyond_2_to_the_53_units_are_refused_quickly_and_clearly(weights):
    """Rounding them would change a weight by all of itself."""
    from optrules.data.weights import integer_weights
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"^sample_weight: the weights are too large or have "
                                         r"too many decimal places.*2\*\*53.*would change a "
                                         r"weight by 1 of itself; round them\.$"):
        integer_weights(weights)
    assert time.perf_counter() - start < 5


def test_float_weights_with_many_digits_are_rounded_with_a_warning():
    """Found by review: scikit-learn's balanced weights (and AdaBoost's) were refused, their
    16-digit decimals needing more than 2**53 units; each is now rounded to a power of 2's
    multiple, by far less than ROUNDING_TOLERANCE of itself, and the search is exact for them."""
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.utils.class_weight import compute_sample_weight
    from optrules.data.weights import ROUNDING_TOLERANCE, RoundedWeightsWarning, integer_weights
    start = time.perf_counter()
    for weights in ([1.1111111111111112, 0.9090909090909091],
                    [f"1/{n}" for n in range(1, 20001)]):
        with pytest.warns(RoundedWeightsWarning, match=r"rounded to a multiple of 2\*\*-"):
            counts, unit = integer_weights(weights)
        assert sum(counts) <= 2 ** 53
        for k, w in zip(counts.tolist(), weights):
            assert abs(k * unit - Fraction(w)) <= ROUNDING_TOLERANCE * Fraction(w) / 1000
    assert time.perf_counter() - start < 5
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(60, 4))
    y = X[:, 0] ^ (rng.random(60) < 0.2)
    weights = compute_sample_weight("balanced", y)
    with pytest.warns(RoundedWeightsWarning):
        model = RuleListClassifier(lam=0.05).fit(X, y, sample_weight=weights)
    assert model.status_ == "optimal"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RoundedWeightsWarning)
        AdaBoostClassifier(RuleListClassifier(lam=0.05), n_estimators=3).fit(X, y)


@pytest.mark.parametrize("labels, classes, message", [
    ([0, 1.0, 1], None, "sample 2 has label 1.0"),
    ([0, 1, 2 ** 70], None, "sample 3 has label 1180591620717411303424"),
    ([0, 1, 10 ** 6], None, "sample 3 has label 1000000, more than there are samples"),
    ([0, 1, 1], (float("nan"), 1.0), "classes must be two or more distinct values"),
    ([0, 1, 1], (None, 1), "classes must be two or more distinct values"),
    ([0, 1, 1], ("a", 1), "all strings or all finite numbers"),
])
def test_bad_labels_and_classes_name_the_problem(labels, classes, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        BinaryDataset.from_bits(["a"], [[1, 0, 1]], labels, classes=classes)


def test_numpy_classes_become_values_a_model_file_holds(tmp_path):
    data = BinaryDataset.from_bits(["a"], [[1, 0, 1, 0]], [1, 0, 1, 0],
                                   classes=np.unique(np.array([3, 4])))
    assert data.classes == (3, 4) and type(data.classes[0]) is int
    model = RuleListClassifier(0.1).fit_antecedents(data)
    model.to_json(tmp_path / "m.json")
