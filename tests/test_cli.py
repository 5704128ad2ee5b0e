"""The optrules command: the JSON contract, readable output, the demo."""

import json
from fractions import Fraction

from optrules.cli import main
from optrules.rule_lists.model import RuleList

CONTRACT_KEYS = {"objective", "objective_float", "mistakes", "n_samples", "lambda", "rules",
                 "default", "status", "lower_bound", "nodes_expanded", "seconds"}


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
    assert output["rules"] == [{"antecedent": "sex:Male,juvenile-crimes:>0", "prediction": "Yes"},
                               {"antecedent": "priors:>3", "prediction": "Yes"}]
    assert output["default"] == "No" and output["mistakes"] == 2258
    assert abs(output["objective_float"] - 245267 / 648900) < 1e-12
    assert RuleList.load(model).rules[1].antecedent == "priors:>3"


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
    assert status == 0 and output["status"] == "limit"
    assert Fraction(output["lower_bound"]) < Fraction(output["objective"])
    assert output["nodes_expanded"] == 20


def test_demo_prints_the_certified_list(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "if {sex:Male,juvenile-crimes:>0} then Yes\nelif {priors:>3} then Yes\nelse No" in out
    assert "certified optimal: objective 245267/648900" in out


def test_progress_log_prints_corels_columns():
    import io
    from optrules.rule_lists.fit import ProgressLog
    stream = io.StringIO()
    log = ProgressLog(interval=0.0, stream=stream)
    log(7, lambda: {"best_objective": Fraction(1, 3), "lower_bound": Fraction(1, 4),
                    "queue_size": 5, "map_size": 6, "evaluations": 99,
                    "remaining_search_space": 12345})
    line = stream.getvalue()
    for text in ("nodes          7", "evaluations           99", "queue         5",
                 "best 0.333333", "lower bound 0.250000", "log10(remaining) 4"):
        assert text in line, line
