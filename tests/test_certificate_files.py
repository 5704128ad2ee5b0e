"""Certificate files: load_certificate refuses a file that is not consistent in itself, and
``optrules verify --recheck CERT DATA...`` runs a certificate's checks again on its data."""

import contextlib
import io
import json
import re
import shutil
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from optrules import rule_lists
from optrules.cli import main
from optrules.data.binary_dataset import BinaryDataset
from optrules.data.corels_files import save_corels, write_label
from optrules.verify import RuleListInstance, certify_rule_list, load_certificate

CSV_ROWS = 30


def corels_case(tmp_path):
    rng = np.random.default_rng(11)
    bits = rng.random((5, 40)) < 0.4
    labels = bits[0] | (rng.random(40) < 0.15)
    data = BinaryDataset.from_bits([f"a{m}" for m in range(5)], bits, labels,
                                   classes=("neg", "pos"))
    out, label = tmp_path / "d.out", tmp_path / "d.label"
    save_corels(data, out, label)
    return data, out, label


def csv_file(tmp_path):
    rng = np.random.default_rng(2)
    rows = ["a,b,c,y"] + [f"{rng.integers(0, 5)},{rng.integers(0, 3)},{'uv'[rng.integers(2)]},"
                          f"{rng.integers(2)}" for _ in range(CSV_ROWS)]
    path = tmp_path / "t.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def verify(argv, capsys):
    """(exit status, stdout, last stderr line) of ``optrules verify ...``."""
    status = main(["verify"] + [str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, (captured.err.strip().splitlines() or [""])[-1]


@pytest.fixture(scope="module")
def originals(tmp_path_factory):
    """Certificates written by ``optrules verify`` once: name -> (path, data files, exit
    status)."""
    folder = tmp_path_factory.mktemp("certificates")
    _, out, label = corels_case(folder)
    csv = csv_file(folder)
    corels = ["--corels-out", out, "--corels-label", label, "--lam", "0.02", "--quiet"]
    runs = {
        "certified": (["rulelist"] + corels + ["--checks", "oracle,cp-sat"], [out, label], 0),
        "refuted": (["rulelist"] + corels + ["--checks", "oracle", "--engine", "broken"],
                    [out, label], 1),
        # --require all: the engine's own entry (stopped at a limit) keeps it undecided
        "limited": (["rulelist"] + corels + ["--checks", "oracle", "--max-nodes", "1",
                                             "--require", "all"], [out, label], 3),
        "csv": (["rulelist", "--csv", csv, "--target", "y", "--lam", "0.05", "--rows", "25",
                 "--antecedents", "8", "--thresholds", "quantile:2", "--checks", "oracle",
                 "--quiet"], [csv], 0),
        "rule": (["rule", "--csv", csv, "--target", "y", "--lam", "1", "--thresholds", "all",
                  "--checks", "oracle,claim"], [csv], 0),
    }
    made = {}
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(io.StringIO()):
        patch.setitem(rule_lists.ENGINES, "broken", "broken_engines")
        for name, (argv, data, expected) in runs.items():
            path = folder / f"{name}.json"
            assert main(["verify"] + [str(a) for a in argv + ["--certificate", path]]) == \
                expected, name
            made[name] = (path, data, expected)
    return made


@pytest.fixture
def certificates(originals, tmp_path):
    """Copies of the certificates and their data files, which a test may edit."""
    def copy(path):
        return Path(shutil.copy(path, tmp_path))
    return {name: (copy(path), [copy(file) for file in data], expected)
            for name, (path, data, expected) in originals.items()}


def test_certificates_record_lambda_n_and_their_source(certificates):
    path, _, _ = certificates["certified"]
    body = load_certificate(path)
    assert (body["lambda"], body["n_samples"], body["claimed_lower_bound"]) == ("1/50", 40, None)
    assert (body["version"], body["total_weight"]) == (3, None)      # unweighted
    assert body["source"] == {"data": "corels", "target": None, "max_cardinality": 2,
                              "thresholds": "quantile:3", "min_support": None,
                              "antecedents": None, "rows": None, "checks": ["oracle", "cp-sat"],
                              "weights": None}
    limited = load_certificate(certificates["limited"][0])
    assert limited["verdict"] == "undecided" and limited["claimed_lower_bound"] is not None
    assert load_certificate(certificates["refuted"][0])["verdict"] == "refuted"
    assert load_certificate(certificates["rule"][0])["model"]["alpha"] == "1/1"


# --- load_certificate: forgeries -----------------------------------------------------------------

def _forged(path, edit):
    body = json.loads(path.read_text())
    edit(body)
    path.write_text(json.dumps(body))
    return path


def _refused(path, message):
    with pytest.raises(ValueError) as raised:
        load_certificate(path)
    assert str(raised.value).startswith(f"{path}: "), raised.value
    assert message in str(raised.value), raised.value


def _check(body, name):
    return next(c for c in body["checks"] if c["check"] == name)


FORGERIES = [
    ("refuted", lambda b: b.update(verdict="certified"),
     "verdict 'certified' is not the one the problems and checks give, 'refuted'"),
    ("refuted", lambda b: _check(b, "oracle").update(verdict="certified") or
     b.update(verdict="certified"),
     "checks[0].verdict is 'certified', but its optimum"),
    ("refuted", lambda b: b["checks"].clear() or b.update(verdict="certified"),
     "verdict 'certified' is not the one"),
    ("limited", lambda b: b.update(verdict="certified"), "verdict 'certified' is not the one"),
    ("certified", lambda b: _check(b, "oracle").update(optimum="1/3"),
     "checks[0].verdict is 'certified', but its optimum 1/3 gives 'refuted'"),
    ("certified", lambda b: _check(b, "oracle").update(optimum="1/0"),
     "checks[0].optimum must be an exact number"),
    ("certified", lambda b: _check(b, "oracle").update(verdict="bounded"),
     "checks[0].verdict is 'bounded', but its optimum"),
    ("certified", lambda b: _check(b, "oracle").update(verdict="maybe"),
     "checks[0].verdict 'maybe' is not one of"),
    ("certified", lambda b: _check(b, "oracle").update(verdict="refuted", optimum=None),
     "checks[0].verdict is 'refuted' without the optimum or counterexample"),
    ("certified", lambda b: _check(b, "oracle").pop("status"),
     "checks[0] lacks the field 'status'"),
    ("certified", lambda b: _check(b, "oracle").update(seconds=-1),
     "checks[0].seconds must be a finite number >= 0"),
    ("certified", lambda b: _check(b, "oracle").update(note="x"),
     "checks[0] has an unknown field 'note'"),
    ("certified", lambda b: b["checks"].append("oracle"), "checks[2] must be a JSON object"),
    ("certified", lambda b: b.update(checks={}), "checks must be a list"),
    ("certified", lambda b: b.update(claimed_objective="1/100"),
     "rescored_objective 17/100 differs from claimed_objective 1/100, but problems is empty"),
    ("certified", lambda b: b.update(claimed_objective="1/100", rescored_objective="1/100"),
     "rescored_objective 1/100 is not m/N + lambda*K"),
    ("certified", lambda b: b.update(claimed_objective=None),
     "claimed_objective must be an exact number"),
    ("certified", lambda b: b.update(claimed_objective="-1/2", rescored_objective="-1/2"),
     "claimed_objective and rescored_objective must be >= 0"),
    ("certified", lambda b: b.update(claimed_lower_bound="1/2"),
     "claimed_lower_bound 1/2 must be null, or for a rule list in [0, claimed_objective]"),
    ("certified", lambda b: b.update({"lambda": "1/0"}), "lambda must be an exact number like"),
    ("certified", lambda b: b.update({"lambda": "3/2"}), "lambda 3/2 is not in (0, 1)"),
    ("certified", lambda b: b.pop("lambda"), "the file lacks the field 'lambda'"),
    ("certified", lambda b: b.update(n_samples=0), "n_samples must be an integer >= 1"),
    ("certified", lambda b: b.pop("n_samples"), "the file lacks the field 'n_samples'"),
    ("certified", lambda b: b.pop("version"), "the certificate has version None"),
    ("certified", lambda b: b.update(version=True), "the certificate has version True"),
    ("certified", lambda b: b.update(version=4),
     "the certificate has version 4; this optrules reads versions 1, 2 and 3"),
    ("certified", lambda b: b.update(format="optrules.model"), "not an optrules certificate"),
    ("certified", lambda b: b.update(kind="rule-set"), "kind 'rule-set' is not"),
    ("certified", lambda b: b.update(instance_sha256="abc"), "instance_sha256 must be a SHA-256"),
    ("certified", lambda b: b.update(extra=1), "the file has an unknown field 'extra'"),
    ("certified", lambda b: b.update(problems="none"), "problems must be a list of strings"),
    ("certified", lambda b: b.update(source=[]), "source must be null or a JSON object"),
    ("certified", lambda b: b["model"]["rules"][0]["antecedent"].__class__ and
     b["model"]["rules"].append(dict(b["model"]["rules"][0])),
     "model.rules[1] repeats the antecedent of model.rules[0]"),
    ("csv", lambda b: b["model"]["rules"][0]["conditions"][0].__setitem__(1, "~="),
     "model.rules[0].conditions[0].operator is '~='"),
    ("certified", lambda b: b["model"].update(classes=["neg"]), "model.classes must be two"),
    ("rule", lambda b: b["model"].update(query=[0, 0], conditions=["a", "a"]),
     "model.query must be a list of distinct proposition indices"),
    ("rule", lambda b: b["model"].update(conditions=[]),
     "model.conditions must be the names of the query's"),
    ("rule", lambda b: b["model"].update(alpha="0/1"), "model.alpha 0/1 is not in (0, 1]"),
    ("rule", lambda b: b.update(claimed_lower_bound="0/1"), "claimed_lower_bound 0/1 must be"),
    ("rule", lambda b: _check(b, "cp-sat claim check").update(
        verdict="refuted", counterexample=[0], counterexample_objective="0/1"),
     "counterexample_objective 0/1 does not beat the claim"),
    ("rule", lambda b: _check(b, "cp-sat claim check").update(counterexample="0"),
     "counterexample must be a list of proposition indices"),
]


@pytest.mark.parametrize("which, edit, message", FORGERIES)
def test_inconsistent_certificates_are_refused(certificates, which, edit, message):
    _refused(_forged(certificates[which][0], edit), message)


def test_the_unedited_certificates_load(certificates):
    """The forgeries fail because of their edits: each certificate, rewritten as is, loads."""
    for path, _, _ in certificates.values():
        assert load_certificate(_forged(path, lambda body: None))["format"]


@pytest.mark.parametrize("text, message", [
    ("", "not a complete JSON document (Expecting value at line 1, column 1)"),
    ('{"format": "optrules.certificate", "version": 1, "n_samples": NaN}',
     "the certificate holds NaN, which is not a JSON number"),
    ('{"format": "optrules.certificate", "version": 1, "n_samples": 1e400}',
     "the certificate holds the number 1e400, beyond the range of floats"),
    ("[1, 2]", 'not an optrules certificate (expected "format": "optrules.certificate")'),
    ('{"format": "optrules.certificate", "version": 1}', "the file lacks the field 'kind'"),
])
def test_damaged_certificate_files_are_refused(tmp_path, text, message):
    path = tmp_path / "cert.json"
    path.write_text(text)
    _refused(path, message)
    _refused(tmp_path, "cannot read the certificate (Is a directory)")
    _refused(tmp_path / "absent.json", "cannot read the certificate (No such file or directory)")


def test_a_certificate_made_in_python_loads_but_has_no_source(tmp_path):
    data, _, _ = corels_case(tmp_path)
    lam = Fraction(1, 50)
    result = rule_lists.fit_rule_list(data, lam)
    certificate = certify_rule_list(RuleListInstance.from_dataset(data, lam), result.rule_list,
                                    data.classes, result.objective, checks=["oracle"])
    certificate.save(tmp_path / "api.json")
    assert load_certificate(tmp_path / "api.json")["source"] is None


# --- optrules verify --recheck ------------------------------------------------------------------

@pytest.mark.parametrize("which", ["certified", "refuted", "limited", "csv", "rule"])
def test_recheck_reaches_the_same_verdict_on_the_same_data(certificates, capsys, tmp_path,
                                                           which):
    path, data, expected = certificates[which]
    again = tmp_path / "again.json"
    status, out, _ = verify(["--recheck", path, *data, "--certificate", again], capsys)
    stored = load_certificate(path)
    assert status == expected
    assert out.startswith(f"recheck of {path}: {stored['kind']} claim, objective "
                          f"{stored['claimed_objective']} (")
    assert f"verdict: {stored['verdict']} (instance sha256 {stored['instance_sha256']})" in out
    rechecked = load_certificate(again)
    assert {k: v for k, v in rechecked.items() if k != "checks"} == \
        {k: v for k, v in stored.items() if k != "checks"}
    assert [(c["check"], c["verdict"]) for c in rechecked["checks"]] == \
        [(c["check"], c["verdict"]) for c in stored["checks"]]


def test_recheck_prints_the_new_certificate_as_json_and_it_can_be_rechecked(
        certificates, capsys, tmp_path):
    path, data, _ = certificates["certified"]
    again = tmp_path / "again.json"
    status, out, _ = verify(["--recheck", path, *data, "--json", "--certificate", again],
                            capsys)
    assert status == 0 and json.loads(out) == load_certificate(again)
    assert verify(["--recheck", again, *data], capsys)[0] == 0


def test_recheck_refutes_a_consistent_forgery(certificates, capsys):
    """A refuted certificate edited to look certified everywhere (verdict, check verdict and
    optimum) loads, but the recheck refutes it."""
    path, data, _ = certificates["refuted"]

    def edit(body):
        body["checks"][0].update(verdict="certified", optimum=body["claimed_objective"])
        body["verdict"] = "certified"
    assert load_certificate(_forged(path, edit))["verdict"] == "certified"
    status, out, _ = verify(["--recheck", path, *data], capsys)
    assert status == 1 and "verdict: refuted" in out


def test_recheck_refuses_other_data(certificates, capsys, tmp_path):
    path, (out, label), _ = certificates["certified"]
    (tmp_path / "fresh").mkdir()
    data, _, _ = corels_case(tmp_path / "fresh")
    flipped = tmp_path / "flipped.label"
    labels = data.labels.copy()
    labels[3] = 1 - labels[3]
    write_label(flipped, data.target, data.classes, labels)
    status, stdout, error = verify(["--recheck", path, out, flipped], capsys)
    assert status == 2 and stdout == ""
    assert re.fullmatch(rf"optrules verify: error: --recheck: the data \({re.escape(str(out))} "
                        rf"{re.escape(str(flipped))}\) are not those {re.escape(str(path))} "
                        r"was made from: they give the instance sha256 [0-9a-f]{64}, the "
                        r"certificate has [0-9a-f]{64}\.", error), error


def test_recheck_refuses_a_csv_with_other_rows(certificates, capsys, tmp_path):
    path, (csv,), _ = certificates["csv"]
    lines = csv.read_text().splitlines()
    other = tmp_path / "other.csv"
    other.write_text("\n".join(lines[:1] + lines[2:] + lines[1:2]) + "\n")   # row order
    status, _, error = verify(["--recheck", path, other], capsys)
    assert status == 2 and "are not those" in error


@pytest.mark.parametrize("which, data, message", [
    ("certified", lambda d: d[:1], "was made from corels data, so give CERT OUT LABEL; got 1"),
    ("csv", lambda d: d * 2, "was made from csv data, so give CERT CSV; got 2"),
    ("csv", lambda d: [], "was made from csv data, so give CERT CSV; got 0"),
])
def test_recheck_names_the_data_files_it_needs(certificates, capsys, which, data, message):
    path, files, _ = certificates[which]
    status, _, error = verify(["--recheck", path, *data(files)], capsys)
    assert status == 2 and error == f"optrules verify: error: --recheck: {path} {message} " \
                                     "data file(s)."


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.update(thresholds="quantile:0"), "The 'thresholds' parameter of the "
                                                  "certificate's source must be"),
    (lambda s: s.update(rows=0), "The 'rows' parameter of the certificate's source must be"),
    (lambda s: s.update(checks=["oracle", "guess"]), "names unknown items ['guess']"),
    (lambda s: s.update(target=3), "source.target must be the target column of the CSV file"),
    (lambda s: s.pop("rows"), "source lacks the field 'rows'"),
    (lambda s: s.update(data="parquet"), "The 'data' parameter of the certificate's source"),
])
def test_recheck_checks_the_recorded_source(certificates, capsys, edit, message):
    path, data, _ = certificates["csv"]
    _forged(path, lambda body: edit(body["source"]))
    status, _, error = verify(["--recheck", path, *data], capsys)
    assert status == 2 and error.startswith(f"optrules verify: error: {path}: ")
    assert message in error


def test_recheck_needs_a_certificate_written_by_verify(tmp_path, capsys):
    data, out, label = corels_case(tmp_path)
    lam = Fraction(1, 50)
    result = rule_lists.fit_rule_list(data, lam)
    certify_rule_list(RuleListInstance.from_dataset(data, lam), result.rule_list, data.classes,
                      result.objective, checks=["oracle"]).save(tmp_path / "api.json")
    status, _, error = verify(["--recheck", tmp_path / "api.json", out, label], capsys)
    assert status == 2 and "does not record its data source" in error


def test_verify_without_a_subcommand_or_recheck_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as raised:
        main(["verify"])
    assert raised.value.code == 2
    assert "choose rulelist or rule, or recheck a certificate with --recheck CERT DATA" in \
        capsys.readouterr().err


def test_verify_help_shows_the_recheck_example(capsys):
    with pytest.raises(SystemExit):
        main(["verify", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--recheck CERT [DATA ...]" in text
    assert "optrules verify --recheck cert.json compas.csv" in text
