"""The optrules command: the JSON contract, readable output, the demo."""

import json
from fractions import Fraction

import pytest

from optrules import RuleListClassifier, load_model
from optrules.cli import main

CONTRACT_KEYS = {"objective", "objective_float", "mistakes", "n_samples", "lambda", "rules",
                 "default", "status", "lower_bound", "nodes_expanded", "seconds", "classes",
                 "total_weight"}


def test_rulelist_json_contract(compas_dir, capsys, tmp_path):
    model = tmp_path / "model.json"
    status = main(["rulelist", "--corels-out", str(compas_dir / "compas_train.out"),
                   "--corels-label", str(compas_dir / "compas_train.label"),
                   "--corels-minor", str(compas_dir / "compas_train.minor"),
                   "--lam", "0.015", "--json", "--quiet", "--save-model", str(model)])
    assert status == 0
    output = json.loads(capsys.readouterr().out)
    assert CONTRACT_KEYS <= output.keys()
    assert output["objective"] == "245267/648900" and output["lambda"] == "3/200"
    assert output["status"] == "optimal" and output["lower_bound"] == output["objective"]
    assert output["rules"] == [{"antecedent": "priors:>3", "prediction": "Yes"},
                               {"antecedent": "sex:Male,juvenile-crimes:>0", "prediction": "Yes"}]
    assert output["default"] == "No" and output["mistakes"] == 2258
    assert output["classes"] == ["No", "Yes"] and output["total_weight"] is None
    assert abs(output["objective_float"] - 245267 / 648900) < 1e-12
    loaded = load_model(model)
    assert isinstance(loaded, RuleListClassifier) and loaded.objective_ == Fraction(245267, 648900)
    assert loaded.rule_list_.rules[0].antecedent == "priors:>3"
    assert loaded.rule_list_.rules[0].conditions is None     # CORELS antecedents are names


def test_rulelist_from_csv_prints_list_and_summary(compas_dir, capsys):
    status = main(["rulelist", "--csv", str(compas_dir / "compas_train.csv"),
                   "--target", "recidivate-within-two-years", "--lam", "0.02", "--quiet"])
    out = capsys.readouterr().out.splitlines()
    assert status == 0
    assert out[0].startswith("if {") and out[-2].startswith("else ")
    assert out[-1].startswith("certified optimal: objective ")


def test_rulelist_limit_reports_gap(compas_dir, capsys):
    status = main(["rulelist", "--csv", str(compas_dir / "compas_train.csv"),
                   "--target", "recidivate-within-two-years", "--lam", "0.005",
                   "--max-nodes", "20", "--json", "--quiet"])
    output = json.loads(capsys.readouterr().out)
    assert status == 0 and output["status"] == "node-limit"
    assert Fraction(output["lower_bound"]) < Fraction(output["objective"])
    assert output["nodes_expanded"] == 20


def test_rulelist_progress_prints_the_search_figures_at_once(compas_dir, capsys):
    status = main(["rulelist", "--csv", str(compas_dir / "compas_train.csv"),
                   "--target", "recidivate-within-two-years", "--lam", "0.02", "--progress"])
    captured = capsys.readouterr()
    assert status == 0 and captured.out.splitlines()[-1].startswith("certified optimal")
    line = captured.err.splitlines()[0]     # not a terminal: one line per second, first at once
    for figure in ("s] nodes ", " queue ", " map ", " best ", " lower bound ",
                   " log10(remaining) "):
        assert figure in line
    with pytest.raises(SystemExit) as stop:          # a usage error
        main(["rulelist", "--csv", "x.csv", "--target", "y", "--lam", "0.1", "--progress",
              "--quiet"])
    assert stop.value.code == 2 and "not allowed with" in capsys.readouterr().err


def test_demo_prints_the_certified_list(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "if {priors:>3} then 1\nelif {sex:Male,juvenile-crimes:>0} then 1\nelse 0" in out
    assert "certified optimal: objective 245267/648900" in out
    assert "Greedy boosted rules (BOOMER) on COMPAS" in out and "{} => (y = " in out
    assert "CompressedRuleEnsembleClassifier: L1 GLM" in out
    assert "... KKT conditions hold" in out


def test_progress_log_prints_corels_columns():
    import io
    from optrules.rule_lists.fit import ProgressLog
    stream = io.StringIO()
    log = ProgressLog(stream, log_interval=0.0)
    log(7, lambda: {"best_objective": Fraction(1, 3), "lower_bound": Fraction(1, 4),
                    "queue_size": 5, "map_size": 6, "evaluations": 99,
                    "remaining_search_space": 12345})
    line = stream.getvalue()
    for text in ("nodes          7", "evaluations           99", "queue         5",
                 "best 0.333333", "lower bound 0.250000", "log10(remaining) 4"):
        assert text in line, line


def test_progress_line_rewrites_one_terminal_line_and_erases_it():
    import io
    from optrules.progress import ProgressLine

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    line = ProgressLine(Terminal(), delay=0.0, interval=0.0)
    line.update(lambda: "first")
    line.update(lambda: "second")
    line.close()
    written = line.stream.getvalue()
    assert written.count("\r") == 3 and "\n" not in written and written.endswith("\r\x1b[K")
    quiet = ProgressLine(Terminal())          # the default 2 s delay: a quick search shows nothing
    quiet.update(lambda: "never")
    quiet.close()
    assert quiet.stream.getvalue() == ""


def test_data_writes_the_bundled_csv(tmp_path, compas_dir):
    path = tmp_path / "compas.csv"
    assert main(["data", "compas", "--output", str(path)]) == 0
    assert path.read_bytes() == (compas_dir / "compas_train.csv").read_bytes()


def _predictions(text):
    lines = text.splitlines()
    return lines[0].split(","), [line.split(",") for line in lines[1:]]


def test_predict_applies_a_saved_rule_list_to_a_csv(tmp_path, capsys, compas_dir):
    model = tmp_path / "model.json"
    csv = compas_dir / "compas_train.csv"
    assert main(["rulelist", "--csv", str(csv), "--target", "recidivate-within-two-years",
                 "--lam", "0.015", "--quiet", "--save-model", str(model)]) == 0
    capsys.readouterr()
    assert main(["predict", "--model", str(model), "--csv", str(csv), "--proba"]) == 0
    header, rows = _predictions(capsys.readouterr().out)
    assert header == ["prediction", "P(0)", "P(1)"] and len(rows) == 6489
    expected = load_model(model).predict(_compas_features(csv))
    assert [row[0] for row in rows] == [str(p) for p in expected]
    assert all(abs(float(p0) + float(p1) - 1) < 1e-12 for _, p0, p1 in rows)


def _compas_features(csv):
    from optrules.data.table import read_csv
    features, _ = read_csv(csv, "recidivate-within-two-years")
    return features


def test_predict_names_missing_columns(tmp_path, capsys, compas_dir):
    model = tmp_path / "model.json"
    assert main(["rulelist", "--csv", str(compas_dir / "compas_train.csv"), "--target",
                 "recidivate-within-two-years", "--lam", "0.05", "--quiet", "--save-model",
                 str(model)]) == 0
    rows = tmp_path / "rows.csv"
    rows.write_text("sex,age\nMale,18-20\n")
    assert main(["predict", "--model", str(model), "--csv", str(rows)]) == 2
    assert "the model needs the column(s) ['juvenile-felonies'," in capsys.readouterr().err


def test_predict_names_the_line_of_a_bad_cell_and_keeps_every_row(tmp_path, capsys):
    """Found by review: a cell that does not fit the model's column kind was named by its
    0-based row ("row 2" for line 4), and in a file of one column a blank line between rows
    (a missing cell? CSV writers write "") was skipped, so the predictions no longer lined
    up: it is refused, naming the line; trailing blank lines are skipped."""
    data, model = tmp_path / "d.csv", tmp_path / "m.json"
    data.write_text("x,y\n1,1\n2,1\n3,0\n4,0\n1,1\n4,0\n")
    assert main(["rulelist", "--csv", str(data), "--target", "y", "--lam", "0.01", "--quiet",
                 "--save-model", str(model)]) == 0
    rows = tmp_path / "rows.csv"
    rows.write_text("x\n1\n3\nthree\n")
    assert main(["predict", "--model", str(model), "--csv", str(rows)]) == 2
    assert capsys.readouterr().err.endswith(
        f"feature 'x' is numeric in the model, but the data has the value 'three' ({rows}, "
        "line 4).\n")
    rows.write_text("\nx\n1\n\n4\n")
    assert main(["predict", "--model", str(model), "--csv", str(rows)]) == 2
    assert capsys.readouterr().err.endswith(
        f"{rows}, line 4: a blank line in a file of one column; write a missing cell as \"\" "
        "(two double quotes), or remove the line.\n")
    rows.write_text('\nx\n1\n""\n4\n\n\n')
    assert main(["predict", "--model", str(model), "--csv", str(rows)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1 + 3      # header, then 3 rows
    rows.write_text("x,z\n1,a\n\n4,b\n\n")       # two columns: blank lines are skipped
    assert main(["predict", "--model", str(model), "--csv", str(rows)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1 + 2


def test_predict_with_corels_antecedents(tmp_path, capsys, compas_dir):
    model, output = tmp_path / "model.json", tmp_path / "predictions.csv"
    assert main(["rulelist", "--corels-out", str(compas_dir / "compas_train.out"),
                 "--corels-label", str(compas_dir / "compas_train.label"), "--lam", "0.015",
                 "--quiet", "--save-model", str(model)]) == 0
    assert main(["predict", "--model", str(model), "--corels-out",
                 str(compas_dir / "compas_train.out"), "--output", str(output)]) == 0
    header, rows = _predictions(output.read_text())
    assert header == ["prediction"] and {row[0] for row in rows} == {"No", "Yes"}
    labels = (compas_dir / "compas_train.label").read_text().splitlines()[1].split()[1:]
    accuracy = sum((row[0] == "Yes") == (bit == "1") for row, bit in zip(rows, labels)) / 6489
    assert accuracy == 1 - 2258 / 6489          # the certified list's 2258 mistakes


