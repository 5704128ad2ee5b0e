"""Fuzzing the readers and the command line with damaged inputs (issue 8).

Valid files (a CSV table, CORELS files, a rule-list model file, a certificate) are damaged by
Hypothesis: bytes flipped, cut, inserted or deleted, a file emptied, or, for the JSON files, a
value anywhere in the document replaced by one of another type (or NaN, a huge number, an
out-of-range fraction), removed, duplicated or joined by an unknown field, with the model
file's checksum kept (the edit is caught by it) or recomputed (every field must be checked on
its own). Directories and missing paths are given as files too.

What may come out: the reader's result, a ``UserWarning``, or a ``ValueError``/``TypeError``
whose message names the file; the CLI's exit status is one it documents and an error is one
line naming the file or option, never a traceback.
"""

import contextlib
import copy
import hashlib
import io
import json
import re
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from optrules import RuleListClassifier, load_model
from optrules.cli import main
from optrules.data.corels_files import load_corels, read_label, read_minor, read_out
from optrules.data.table import read_csv, read_csv_columns
from optrules.verify import load_certificate
from optrules.verify.certify import FIELDS

#: The profile's number of examples (conftest.py); damaged copies of files can be large.
FUZZ = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

CSV = """colour,size,count,y
red,1.5,3,yes
blue,2.25,NA,no
red,0.5,7,yes
green,3.0,1,no
blue,2.5,?,no
red,1.0,4,yes
green,0.75,2,yes
blue,1.25,5,no
red,2.75,6,no
green,1.75,0,yes
"""

#: Values of every JSON type, and the numbers and texts that broke readers before (drawn as
#: copies: an edit may change a drawn list or object in place).
JUNK_VALUES = [None, True, False, 0, 1, -1, 2.5, -0.0, 1e308, 10 ** 400, "", "x", "~=", "1/0",
               "nan", "Infinity", "-1/2", "3/2", "1e-999999999", "\ud800", "\ud83d\ude00",
               [], {}, [1, 2, 3], ["a", "==", "b"], {"x": 1}, [[]]]
JUNK = st.sampled_from(JUNK_VALUES).map(copy.deepcopy)


@pytest.fixture(scope="module")
def originals(tmp_path_factory):
    """The valid files every example starts from, as bytes: name -> content."""
    folder = tmp_path_factory.mktemp("originals")
    (folder / "t.csv").write_text(CSV)
    X, y = read_csv(folder / "t.csv", "y")
    RuleListClassifier(0.05, min_support=0).fit(X, y).to_json(folder / "model.json")
    assert main(["verify", "rulelist", "--csv", str(folder / "t.csv"), "--target", "y",
                 "--lam", "0.05", "--antecedents", "6", "--checks", "oracle", "--quiet",
                 "--certificate", str(folder / "cert.json")]) == 0
    bits = np.random.default_rng(0).random((3, 10)) < 0.5
    (folder / "d.out").write_text("".join(
        f"{{a{m}}} " + " ".join("1" if b else "0" for b in row) + "\n"
        for m, row in enumerate(bits)))
    (folder / "d.label").write_text("{y:no} 1 0 1 0 1 0 1 0 1 0\n{y:yes} 0 1 0 1 0 1 0 1 0 1\n")
    (folder / "d.minor").write_text("{group_minority} 0 0 0 1 0 0 0 0 0 0\n")
    return {path.name: path.read_bytes() for path in folder.iterdir()}


# --- damage -----------------------------------------------------------------------------------

@st.composite
def damaged_bytes(draw, original):
    """``original`` with one to three byte-level edits, or emptied."""
    data = bytearray(original)
    if draw(st.integers(0, 9)) == 0:
        return b""
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.integers(0, len(data)))
        edit = draw(st.sampled_from(["flip", "cut", "insert", "delete", "repeat"]))
        if edit == "flip" and where < len(data):
            data[where] ^= 1 << draw(st.integers(0, 7))
        elif edit == "cut":
            del data[where:]
        elif edit == "insert":
            data[where:where] = draw(st.sampled_from(
                [b"\x00", b"\xff\xfe", b",", b"\n", b"{", b"}", b'"', b"NaN", b"1e999", b" ",
                 b"\r\n", b"\xef\xbb\xbf", b"-", b"0"]) | st.binary(max_size=6))
        elif edit == "delete":
            del data[where:where + draw(st.integers(1, 20))]
        else:
            data[where:where] = data[where:where + draw(st.integers(1, 40))]
    return bytes(data)


def _paths(document, prefix=()):
    """Every path (a tuple of keys and indices) to a value in a JSON document."""
    yield prefix
    if isinstance(document, dict):
        for key, value in document.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            yield from _paths(value, prefix + (index,))


def _at(document, path):
    for step in path:
        document = document[step]
    return document


@st.composite
def damaged_json(draw, document):
    """A copy of a JSON document with one to three values replaced by values of other types,
    removed, duplicated, swapped with another value, or joined by an unknown field."""
    document = json.loads(json.dumps(document))
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(document))
        # the model (rules, conditions, classes) is where a forgery does harm: aim there often
        focus = [path for path in paths if path[:1] == ("model",)] or paths
        path = draw(st.sampled_from(focus) if draw(st.integers(0, 2)) else
                    st.sampled_from(paths))
        edit = draw(st.sampled_from(["junk", "junk", "remove", "duplicate", "swap", "add"]))
        if not path:
            if edit == "junk":
                document = draw(JUNK)
            continue
        parent, step = _at(document, path[:-1]), path[-1]
        if edit == "junk":
            parent[step] = draw(JUNK | st.floats(allow_nan=True))
        elif edit == "remove":
            del parent[step]
        elif edit == "duplicate" and isinstance(parent, list):
            parent.insert(step, json.loads(json.dumps(parent[step])))
        elif edit == "swap":
            other = draw(st.sampled_from(paths))
            if other and path[:len(other)] != other and other[:len(path)] != path:
                value = json.loads(json.dumps(_at(document, other)))
                _at(document, other[:-1])[other[-1]] = parent[step]
                parent[step] = value
        elif edit == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(["extra", "weight", "sha256", "kind"]))] = \
                draw(JUNK)
    return document


def _with_checksum(document):
    """The model file's checksum recomputed as its module docstring defines it (what a careful
    forger does); NaN written as the literal a careless one leaves."""
    if isinstance(document, dict):
        document = {key: value for key, value in document.items() if key != "sha256"}
        text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        document["sha256"] = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return document


@st.composite
def damaged_file(draw, originals, name, checksum=False):
    """(bytes of a damaged copy of file ``name``, how it was damaged)."""
    original = originals[name]
    if name.endswith(".json") and draw(st.integers(0, 3)):
        document = draw(damaged_json(json.loads(original)))
        if checksum and draw(st.integers(0, 3)):
            document = _with_checksum(document)
        text = json.dumps(document, indent=1, ensure_ascii=draw(st.booleans()))
        return text.encode("utf-8", "surrogatepass"), "json"
    return draw(damaged_bytes(original)), "bytes"


# --- what may come out ------------------------------------------------------------------------

#: What the messages about a model file's or certificate's content name after the file: one
#: of its fields (by its path: ``model.rules[1].conditions[0].operator``), a parameter, or the
#: file as a whole.
MODEL_FIELDS = ("params", "n_features_in", "feature_names_in", "feature_numeric",
                "feature_categories", "model", "result", "parameter", "the file")
CERTIFICATE_FIELDS = FIELDS + ("the file", "the certificate", "not an optrules certificate")


def _reads_cleanly(read, path, fields=None):
    """Call ``read``: it returns, warns with a UserWarning, or raises ValueError/TypeError whose
    message names ``path``, and then, for a JSON file whose content is invalid (``fields``
    given), one of ``fields``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            read()
        except (ValueError, TypeError) as error:
            message = str(error)
            assert str(path) in message, message
            problem = message.partition(" is invalid: ")[2] or message.partition(f"{path}: ")[2]
            assert fields is None or _names_one_of(problem, fields) or \
                problem.startswith(("not a", "cannot read")), message
    assert all(issubclass(w.category, UserWarning) for w in caught), \
        [str(w.message) for w in caught]


def _names_one_of(message, fields):
    return any(re.search(rf"(?<![\w.]){re.escape(field)}(?![\w])", message) for field in fields)


def _write(folder, name, content):
    path = folder / name
    path.write_bytes(content)
    return path


@contextlib.contextmanager
def _folder(originals):
    """A scratch folder holding every original file."""
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        for file, content in originals.items():
            (folder / file).write_bytes(content)
        yield folder


# --- readers ----------------------------------------------------------------------------------

@FUZZ
@given(data=st.data())
def test_read_csv_on_damaged_files(originals, data):
    content, _ = data.draw(damaged_file(originals, "t.csv"))
    with _folder(originals) as folder:
        path = _write(folder, "t.csv", content)
        _reads_cleanly(lambda: read_csv(path, "y"), path)
        _reads_cleanly(lambda: read_csv(path), path)
        _reads_cleanly(lambda: read_csv_columns(path), path)


@FUZZ
@given(data=st.data(), which=st.sampled_from(["d.out", "d.label", "d.minor"]))
def test_corels_readers_on_damaged_files(originals, data, which):
    content, _ = data.draw(damaged_file(originals, which))
    with _folder(originals) as folder:
        path = _write(folder, which, content)
        reader = {"d.out": read_out, "d.label": read_label, "d.minor": read_minor}[which]
        _reads_cleanly(lambda: reader(path), path)
        _reads_cleanly(lambda: load_corels(folder / "d.out", folder / "d.label",
                                           folder / "d.minor"), path)


@FUZZ
@given(data=st.data(), which=st.sampled_from(["model.json", "cert.json"]))
def test_load_model_and_load_certificate_on_damaged_files(originals, data, which):
    """Model files both with the checksum kept (an edit fails it) and recomputed (every field
    must be checked on its own)."""
    read, fields = {"model.json": (load_model, MODEL_FIELDS),
                    "cert.json": (load_certificate, CERTIFICATE_FIELDS)}[which]
    content, _ = data.draw(damaged_file(originals, which, checksum=which == "model.json"))
    with _folder(originals) as folder:
        path = _write(folder, which, content)
        _reads_cleanly(lambda: read(path), path, fields)


@pytest.mark.parametrize("read", [lambda p: read_csv(p, "y"), read_csv_columns, read_out,
                                  read_label, read_minor, load_model, load_certificate])
def test_readers_refuse_directories_and_missing_paths_by_name(tmp_path, read):
    for path in (tmp_path, tmp_path / "missing.txt"):
        with pytest.raises(ValueError) as raised:
            read(path)
        assert str(path) in str(raised.value)
        assert "[Errno" not in str(raised.value)


# --- the command line -------------------------------------------------------------------------

def _run(argv):
    """(exit status, stdout, stderr) of ``optrules`` run in-process; argparse's usage errors
    (SystemExit 2) count as status 2."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        try:
            status = main([str(a) for a in argv])
        except SystemExit as exit_:
            status = exit_.code
    return status, out.getvalue(), err.getvalue()


def _exits_cleanly(argv, allowed, names):
    """The command exits with an allowed status; an error is one line that names one of
    ``names`` (files) or an option, never a traceback."""
    status, out, err = _run(argv)
    assert status in allowed, (status, out, err)
    assert "Traceback" not in err and "Traceback" not in out
    if status == 2:
        errors = [line for line in err.splitlines() if "error:" in line]
        assert len(errors) == 1, err
        assert any(str(name) in errors[0] for name in names) or " --" in errors[0] or \
            errors[0].startswith("optrules verify: error: choose"), err
    return status


FILE_ARGUMENTS = st.sampled_from(["damaged", "damaged", "damaged", "directory", "missing"])


def _argument_file(folder, name, content, kind):
    if kind == "directory":
        path = folder / f"{name}.d"
        path.mkdir()
        return path
    if kind == "missing":
        return folder / f"missing-{name}"
    return _write(folder, name, content)


@FUZZ
@given(data=st.data(), kind=FILE_ARGUMENTS)
def test_cli_rulelist_on_damaged_csv(originals, data, kind):
    content, _ = data.draw(damaged_file(originals, "t.csv"))
    with _folder(originals) as folder:
        csv = _argument_file(folder, "bad.csv", content, kind)
        _exits_cleanly(["rulelist", "--csv", csv, "--target", "y", "--lam", "0.05",
                        "--min-support", "0", "--quiet", "--json"], {0, 2}, [csv])


@FUZZ
@given(data=st.data(), kind=FILE_ARGUMENTS, damaged=st.sampled_from(["model.json", "t.csv"]))
def test_cli_predict_on_damaged_model_or_csv(originals, data, kind, damaged):
    content, _ = data.draw(damaged_file(originals, damaged, checksum=True))
    with _folder(originals) as folder:
        path = _argument_file(folder, f"bad-{damaged}", content, kind)
        model = path if damaged == "model.json" else folder / "model.json"
        csv = path if damaged == "t.csv" else folder / "t.csv"
        _exits_cleanly(["predict", "--model", model, "--csv", csv, "--proba"], {0, 2}, [path])


@FUZZ
@given(data=st.data(), kind=FILE_ARGUMENTS, damaged=st.sampled_from(["cert.json", "t.csv"]))
def test_cli_recheck_on_damaged_certificate_or_data(originals, data, kind, damaged):
    content, _ = data.draw(damaged_file(originals, damaged))
    with _folder(originals) as folder:
        path = _argument_file(folder, f"bad-{damaged}", content, kind)
        certificate = path if damaged == "cert.json" else folder / "cert.json"
        csv = path if damaged == "t.csv" else folder / "t.csv"
        _exits_cleanly(["verify", "--recheck", certificate, csv, "--solver-time-limit", "5"],
                       {0, 1, 3, 2}, [path])


def test_cli_recheck_of_the_original_certificate_certifies(originals, tmp_path):
    """The fuzzed certificate is a good one to start from."""
    for name, content in originals.items():
        (tmp_path / name).write_bytes(content)
    status, out, err = _run(["verify", "--recheck", tmp_path / "cert.json", tmp_path / "t.csv"])
    assert status == 0 and "verdict: certified" in out, err


@pytest.mark.parametrize("target, message", [
    ("yes\nyes\nyes", "needs 2 or more classes in y; y has only 1 class: ['yes']"),
    ("0.5\n1\n0", "Unknown label type: continuous"),
])
def test_cli_names_the_file_and_column_of_a_target_without_two_classes(tmp_path, target,
                                                                       message):
    """Found by the fuzzer: the estimator's message named only ``y``."""
    csv = tmp_path / "t.csv"
    csv.write_text("a,y\n" + "".join(f"x,{cell}\n" for cell in target.split("\n")))
    for argv in (["rulelist", "--csv", csv, "--target", "y", "--lam", "0.1"],
                 ["verify", "rulelist", "--csv", csv, "--target", "y", "--lam", "0.1"]):
        status, _, err = _run(argv)
        assert status == 2 and err.startswith(f"optrules {argv[0]}: error: {csv}: "), err
        assert message in err and ("Unknown" in message or "The target column 'y'" in err)


@pytest.mark.parametrize("argv", [
    ["rulelist", "--csv", "{csv}", "--target", "y", "--lam", "1e-999999999"],
    ["rulelist", "--csv", "{csv}", "--target", "y", "--lam", "0.05", "--min-support",
     "1e99999"],
])
def test_cli_refuses_astronomical_exponents_at_once(originals, tmp_path, argv):
    """Fraction("1e-999999999") would build a billion-digit integer for minutes."""
    (tmp_path / "t.csv").write_bytes(originals["t.csv"])
    status, _, err = _run([a.format(csv=tmp_path / "t.csv") for a in argv])
    assert status == 2 and "must be a number like '0.01' or '1/100'" in err


@pytest.mark.parametrize("command", ["rulelist", "boost"])
def test_cli_refuses_a_lambda_of_more_than_a_thousand_digits(originals, tmp_path, command):
    """Found by review: --lam 1e-5000 was accepted and the fit failed after its search (an
    objective of 5 000 digits is more than Python turns into text); 1e-999 still fits."""
    (tmp_path / "t.csv").write_bytes(originals["t.csv"])
    argv = [command, "--csv", str(tmp_path / "t.csv"), "--target", "y", "--quiet"]
    status, _, err = _run(argv + ["--lam", "1e-5000"])
    assert status == 2 and "'--lam' parameter" in err and "at most 1000 digits" in err, err
    status, out, err = _run(argv + ["--lam", "1e-999", "--save-model",
                                    str(tmp_path / "model.json")])
    assert status == 0 and (tmp_path / "model.json").exists(), err
