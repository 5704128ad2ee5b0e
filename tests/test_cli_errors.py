"""Error handling of the ``optrules rulelist`` command line (optrules.cli.main)."""

import json
import os
import re

import pytest

from optrules.cli import main

CSV = "a,b,y\nx,1,1\nx,2,1\nz,1,0\nz,2,0\nx,1,1\nz,2,1\n"
OUT = "{a:x} 1 1 0 0 1 0\n{a:z} 0 0 1 1 0 1\n"
LABEL = "{y:No} 0 0 1 1 0 0\n{y:Yes} 1 1 0 0 1 1\n"
PREFIX = "optrules rulelist: error: "


@pytest.fixture
def csv_args(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(CSV, encoding="utf-8")
    return ["rulelist", "--csv", str(path), "--target", "y", "--quiet"]


@pytest.fixture
def corels_files(tmp_path):
    out, label = tmp_path / "d.out", tmp_path / "d.label"
    out.write_text(OUT, encoding="utf-8")
    label.write_text(LABEL, encoding="utf-8")
    return out, label


def _error_line(capsys):
    """The last stderr line, which must be the error message."""
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err.rstrip("\n").splitlines()[-1]


def _exits_2(argv, capsys):
    with pytest.raises(SystemExit) as raised:
        main(argv)
    assert raised.value.code == 2
    return _error_line(capsys)


# --- --lam --------------------------------------------------------------------------------

@pytest.mark.parametrize("lam", ["0", "2", "1", "-0.01"])
def test_lam_out_of_range(csv_args, capsys, lam):
    assert main(csv_args + ["--lam", lam]) == 2
    assert _error_line(capsys) == (PREFIX + "The '--lam' parameter of optrules rulelist must be a "
                                   f"fraction in (0, 1). Got '{lam}' instead.")


def test_lam_not_a_number(csv_args, capsys):
    assert main(csv_args + ["--lam", "abc"]) == 2
    assert _error_line(capsys) == (PREFIX + "The '--lam' parameter of optrules rulelist must be a "
                                   "number like '0.01' or '1/100'. Got 'abc' instead.")


@pytest.mark.parametrize("lam", ["1/100", "0.01"])
def test_lam_as_a_ratio_or_decimal_is_accepted_exactly(csv_args, capsys, lam):
    assert main(csv_args + ["--lam", lam, "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    result = json.loads(captured.out)
    assert result["lambda"] == "1/100"
    assert result["objective"] == "53/300"  # 1 mistake in 6 plus one rule at 1/100


def test_lam_is_required(csv_args, capsys):
    line = _exits_2(csv_args, capsys)
    assert line == PREFIX + "the following arguments are required: --lam"


# --- data sources -------------------------------------------------------------------------

SOURCE_MESSAGE = PREFIX + "give either --csv FILE --target COL, or --corels-out F --corels-label F"


def test_both_csv_and_corels_out(csv_args, corels_files, capsys):
    out, label = corels_files
    argv = csv_args + ["--corels-out", str(out), "--corels-label", str(label), "--lam", "0.01"]
    assert _exits_2(argv, capsys) == SOURCE_MESSAGE


def test_neither_csv_nor_corels(capsys):
    assert _exits_2(["rulelist", "--lam", "0.01"], capsys) == SOURCE_MESSAGE


def test_csv_without_target(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text(CSV, encoding="utf-8")
    line = _exits_2(["rulelist", "--csv", str(path), "--lam", "0.01"], capsys)
    assert line == PREFIX + "--csv needs --target COL"


def test_corels_out_without_label(corels_files, capsys):
    out, _ = corels_files
    line = _exits_2(["rulelist", "--corels-out", str(out), "--lam", "0.01"], capsys)
    assert line == PREFIX + "CORELS input needs both --corels-out and --corels-label"


def test_corels_label_without_out(corels_files, capsys):
    _, label = corels_files
    line = _exits_2(["rulelist", "--corels-label", str(label), "--lam", "0.01"], capsys)
    assert line == PREFIX + "CORELS input needs both --corels-out and --corels-label"


def test_corels_files_are_accepted(corels_files, capsys):
    out, label = corels_files
    argv = ["rulelist", "--corels-out", str(out), "--corels-label", str(label),
            "--lam", "0.01", "--quiet"]
    assert main(argv) == 0
    assert "error" not in capsys.readouterr().err


def test_an_unsound_minor_file_is_named(corels_files, tmp_path, capsys):
    """Found by review: the message said ".minor file", not which."""
    out, label = corels_files
    minor = tmp_path / "d.minor"
    minor.write_text("{group_minority} 1 1 1 1 1 1\n", encoding="utf-8")
    argv = ["rulelist", "--corels-out", str(out), "--corels-label", str(label),
            "--corels-minor", str(minor), "--lam", "0.01", "--quiet"]
    assert main(argv) == 2
    assert _error_line(capsys).startswith(PREFIX + f"{minor}: the minority bits (.minor "
                                          "file) mark")


# --- mining parameters --------------------------------------------------------------------

@pytest.mark.parametrize("value, problem", [
    ("0.6", "must be a fraction in [0, 1/2]. Got '0.6' instead."),
    ("-0.1", "must be a fraction in [0, 1/2]. Got '-0.1' instead."),
    ("lots", "must be a number like '0.01' or '1/100'. Got 'lots' instead.")])
def test_bad_min_support(csv_args, capsys, value, problem):
    assert main(csv_args + ["--min-support", value, "--lam", "0.01"]) == 2
    assert _error_line(capsys) == (PREFIX + "The '--min-support' parameter of optrules rulelist "
                                   + problem)


@pytest.mark.parametrize("option", ["--max-cardinality", "--max-nodes", "--max-queue"])
def test_non_positive_integer_options(csv_args, capsys, option):
    line = _exits_2(csv_args + [option, "0", "--lam", "0.01"], capsys)
    assert line == PREFIX + f"argument {option}: must be a positive integer, got '0'"


def test_non_numeric_integer_option(csv_args, capsys):
    line = _exits_2(csv_args + ["--max-nodes", "abc", "--lam", "0.01"], capsys)
    assert line == PREFIX + "argument --max-nodes: must be a positive integer, got 'abc'"


def test_non_positive_time_limit(csv_args, capsys):
    line = _exits_2(csv_args + ["--time-limit", "0", "--lam", "0.01"], capsys)
    assert line == PREFIX + "argument --time-limit: must be a positive number of seconds, got '0'"


# --- malformed input files reach stderr ---------------------------------------------------

def test_malformed_out_file(corels_files, capsys):
    out, label = corels_files
    out.write_text("{a:x} 1 1 0 0 1 0\n{a:z} 0 0 2 1 0 1\n", encoding="utf-8")
    argv = ["rulelist", "--corels-out", str(out), "--corels-label", str(label), "--lam", "0.01"]
    assert main(argv) == 2
    assert _error_line(capsys) == (PREFIX + f"{out}, line 2: token 3 is '2'; every sample must "
                                   "be 0 or 1.")


def test_label_file_of_other_length(corels_files, capsys):
    out, label = corels_files
    label.write_text("{y:No} 0 0 1 1 0\n{y:Yes} 1 1 0 0 1\n", encoding="utf-8")
    argv = ["rulelist", "--corels-out", str(out), "--corels-label", str(label), "--lam", "0.01"]
    assert main(argv) == 2
    assert _error_line(capsys) == (PREFIX + f"{label}: label file has 5 samples but the "
                                   f"antecedent file {out} has 6.")


def test_missing_csv_file(tmp_path, capsys):
    path = tmp_path / "absent.csv"
    argv = ["rulelist", "--csv", str(path), "--target", "y", "--lam", "0.01"]
    assert main(argv) == 2
    assert re.fullmatch(re.escape(PREFIX + f"{path}: cannot read CSV file (") + ".+" + r"\)\.",
                        _error_line(capsys))


def test_csv_with_missing_target(csv_args, capsys):
    argv = [arg if arg != "y" else "label" for arg in csv_args] + ["--lam", "0.01"]
    assert main(argv) == 2
    assert _error_line(capsys).endswith(
        "target column 'label' not found; columns are ['a', 'b', 'y'].")


def test_bad_thresholds_are_named(csv_args, capsys):
    assert main(csv_args + ["--thresholds", "quantile:0", "--lam", "0.01"]) == 2
    assert _error_line(capsys) == (PREFIX + "The 'thresholds' parameter of RuleListClassifier "
                                   "must be 'all', 'quantile:K' or 'width:K' with an integer "
                                   "K in [1, 100000] ('all' cuts every gap). Got 'quantile:0' "
                                   "instead.")


def test_target_of_one_class_is_named(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("a,y\nx,1\nz,1\nx,1\n", encoding="utf-8")
    assert main(["rulelist", "--csv", str(path), "--target", "y", "--lam", "0.1"]) == 2
    assert _error_line(capsys) == (PREFIX + f"{path}: The target column 'y' needs 2 or more "
                                   "classes in y; y has only 1 class: [1].")


def test_continuous_target_is_refused(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("a,y\nx,0.5\nz,1.25\nx,2\n", encoding="utf-8")
    assert main(["rulelist", "--csv", str(path), "--target", "y", "--lam", "0.1"]) == 2
    assert _error_line(capsys).startswith(PREFIX + f"{path}: Unknown label type: continuous.")


def test_target_with_three_classes_is_a_rule_list_but_not_a_boosting_target(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("a,y\nx,1\nz,2\nx,3\n", encoding="utf-8")
    assert main(["rulelist", "--csv", str(path), "--target", "y", "--lam", "0.1",
                 "--quiet"]) == 0
    # a:x captures classes 1 and 3 once each: the tie goes to the last class, 3.
    assert capsys.readouterr().out.splitlines()[:2] == ["if {a:x} then 3", "else 2"]
    assert main(["boost", "--csv", str(path), "--target", "y", "--rules", "1",
                 "--quiet"]) == 2
    assert _error_line(capsys) == (f"optrules boost: error: {path}: Only binary "
                                   "classification is supported. The target column 'y' needs "
                                   "exactly 2 classes in y; y has 3 classes: [1, 2, 3].")


def test_boosting_and_boomer_targets_are_named_with_their_file(tmp_path, capsys):
    """Found by review: these messages named neither the file nor the column, or (every
    column a target) said that the data had 0 samples."""
    path = tmp_path / "t.csv"
    path.write_text("a,y\n1,0.5\n2,-1\n3,2\n", encoding="utf-8")
    boost = ["boost", "--csv", str(path), "--target", "y", "--rules", "1", "--quiet"]
    assert main(boost + ["--loss", "logistic"]) == 2
    assert _error_line(capsys).startswith(
        f"optrules boost: error: {path}: Unknown label type: continuous. The target column "
        "'y' needs discrete classes in y, not values such as 0.5")
    assert main(boost + ["--loss", "poisson"]) == 2
    assert _error_line(capsys) == (f"optrules boost: error: {path}: target column 'y': the "
                                   "poisson loss needs non-negative targets (counts).")
    boomer = ["boomer", "--csv", str(path), "--loss", "squared", "--quiet", "--target"]
    assert main(boomer + ["a,y"]) == 2
    assert _error_line(capsys) == (f"optrules boomer: error: {path}: --target names every "
                                   "column; none is left as a feature.")
    assert main(boomer + ["y,"]) == 2
    assert _error_line(capsys) == "optrules boomer: error: --target has an empty column " \
                                  "name: 'y,'."
    path.write_text("a,b,y\n1,0,0.5\n2,1,1\n3,0,0\n", encoding="utf-8")
    assert main(boomer[:-4] + ["--quiet", "--target", "b,y"]) == 2      # the logistic loss
    assert _error_line(capsys) == (f"optrules boomer: error: {path}: target column 'y' must "
                                   "hold 0/1 labels (several target columns are labels for "
                                   "the logistic loss); it has 0.5.")


def test_debug_shows_the_traceback_an_error_otherwise_hides(csv_args, capsys):
    args = csv_args[:2] + ["missing.csv"] + csv_args[3:] + ["--lam", "0.1"]
    assert main(args) == 2
    assert capsys.readouterr().err.count("\n") == 1              # one line
    with pytest.raises(ValueError, match="missing.csv: cannot read CSV file"):
        main(["--debug"] + args)


def test_an_internal_error_is_one_line_with_its_own_exit_status(csv_args, capsys,
                                                                  monkeypatch):
    from optrules.cli import rulelist_command

    def broken(args, parser):
        raise RuntimeError("a defect")
    monkeypatch.setattr(rulelist_command, "run", broken)
    csv_args = csv_args + ["--lam", "0.1"]
    assert main(csv_args) == 70
    err = capsys.readouterr().err
    assert err == ("optrules rulelist: internal error: RuntimeError: a defect (run 'optrules "
                   "--debug ...' for the traceback, and please report it)\n")
    with pytest.raises(RuntimeError, match="a defect"):
        main(["--debug"] + csv_args)


def _run_with_closed_stdout(tmp_path, *arguments):
    """Run optrules whose reader has left (stdout a pipe closed at once), with Python's
    usual buffered stdout; (exit status, stderr)."""
    import os
    import subprocess
    import sys
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    child = subprocess.Popen([sys.executable, "-m", "optrules", *arguments], cwd=tmp_path,
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child.stdout.close()
    return child.wait(timeout=300), child.stderr.read().decode()


@pytest.mark.parametrize("arguments", [["data", "parity"], ["data", "compas", "--json"],
                                       ["--help"], ["rulelist", "--help"]])
def test_a_reader_that_leaves_early_ends_the_command_quietly(tmp_path, arguments):
    """``optrules data parity | true``: exit 141 (as for SIGPIPE), nothing on stderr, also
    when the output is small enough to wait in the buffer until the end."""
    assert _run_with_closed_stdout(tmp_path, *arguments) == (141, "")


def test_files_are_written_when_the_reader_left_early(tmp_path):
    (tmp_path / "d.csv").write_text("a,b,y\n0,x,1\n1,x,0\n1,z,1\n0,z,0\n1,x,1\n")
    assert _run_with_closed_stdout(tmp_path, "rulelist", "--csv", "d.csv", "--target", "y",
                                   "--lam", "0.1", "--save-model", "m.json") == (141, "")
    assert json.loads((tmp_path / "m.json").read_text())["format"] == "optrules.model"


def test_an_output_that_is_an_input_is_named_by_its_option(csv_args, capsys):
    csv_file = csv_args[csv_args.index("--csv") + 1]
    assert main(csv_args + ["--lam", "0.1", "--certificate", csv_file]) == 2
    assert capsys.readouterr().err == (
        f"optrules rulelist: error: --certificate: {csv_file} is also --csv; writing it would "
        "destroy that file. Give another file name.\n")


def test_check_certificate_reads_its_certificate_and_guards_its_inputs(tmp_path, csv_args,
                                                                      capsys):
    """Found by review: CERT was checked as a file the command writes (a read-only one was
    refused), and --graphml could overwrite the certificate or the data; CRE's --save-model
    could overwrite its --rules-from file."""
    csv_file = csv_args[csv_args.index("--csv") + 1]
    certificate = tmp_path / "c.jsonl"
    assert main(csv_args + ["--lam", "0.1", "--certificate", str(certificate)]) == 0
    certificate.chmod(0o444)
    check = ["check-certificate", str(certificate), "--csv", csv_file, "--target", "y"]
    before = certificate.read_bytes(), open(csv_file, "rb").read()
    capsys.readouterr()
    if os.geteuid() != 0:                      # root may write it anyway
        assert main(check) == 0 and "ACCEPTED" in capsys.readouterr().out
    for target, option in ((certificate, "CERT"), (csv_file, "--csv")):
        assert main(check + ["--graphml", str(target)]) == 2
        assert capsys.readouterr().err.endswith(
            f"error: --graphml: {target} is also {option}; writing it would destroy that "
            "file. Give another file name.\n")
    assert (certificate.read_bytes(), open(csv_file, "rb").read()) == before
    assert main(["check-certificate", csv_file, "--csv", csv_file, "--target", "y"]) == 2
    assert "first line is not a search certificate's header" in capsys.readouterr().err
    rules = tmp_path / "rules.json"
    rules.write_text('[[["a", "<=", 0.5]]]')
    assert main(["cre", "--csv", csv_file, "--target", "y", "--rules-from", str(rules),
                 "--save-model", str(rules), "--quiet"]) == 2
    assert "--save-model: " in capsys.readouterr().err
    assert rules.read_text() == '[[["a", "<=", 0.5]]]'


def test_data_json_and_csv_cannot_share_stdout(capsys):
    assert main(["data", "parity", "--json", "--output", "-"]) == 2
    assert "--json and --output - both write to stdout" in capsys.readouterr().err


def test_a_warning_is_one_line_naming_the_command(tmp_path, capsys):
    """Found by review: Python's format showed optrules' own file, line and source line."""
    path = tmp_path / "t.csv"
    path.write_text("a,y\n" + "".join(f"{v},{v % 2}\n" for v in range(12)) + "1e400,0\n",
                    encoding="utf-8")
    assert main(["rulelist", "--csv", str(path), "--target", "y", "--lam", "0.1",
                 "--quiet"]) == 0
    assert capsys.readouterr().err.splitlines() == [
        "optrules rulelist: warning: feature 'a' is read as categorical: 1 of its 13 "
        f"non-missing cells are not numbers ('1e400'; the first at {path}, line 14). Write a "
        "missing value as an empty cell, NA or ?, or fix those cells, to read the column as "
        "numeric."]
