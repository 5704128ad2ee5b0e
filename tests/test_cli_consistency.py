"""One consistent command line: every subcommand has --json, an example that runs, --progress
where it searches and --seed where it draws at random (issue 15)."""

import argparse
import csv
import json
import math
import re
import shlex

import pytest

from optrules import load_model
from optrules.cli import _parser, main
from optrules.data import DATASETS, bundled_csv

#: Subcommands that run a search (a progress line on long runs) or draw at random.
SEARCHES = {("rulelist",), ("boost",), ("boomer",), ("cre",), ("verify", "rulelist"),
            ("verify", "rule"), ("plot", "boosting")}
RANDOM = {("boomer",), ("cre",), ("plot", "boosting")}


def subcommands(parser=None, path=()):
    """(path, parser) of every subcommand, nested ones (verify rulelist) included."""
    parser = parser or _parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield path + (name,), sub
                yield from subcommands(sub, path + (name,))


def options(parser):
    return {option for action in parser._actions for option in action.option_strings}


def example_commands(parser):
    """The command lines of a subcommand's ``example:`` epilog, in order (parenthetical
    remarks dropped, commands separated by ';')."""
    text = re.sub(r"\s*\([^)]*\)", "", parser.epilog.removeprefix("example: "))
    return [command.strip() for command in text.split(";")]


def dispatches_only(parser):
    """Whether ``parser`` (optrules plot) only chooses a subcommand: it has no option of its
    own to take --json, and its example is one of its subcommands'."""
    return options(parser) == {"-h", "--help"} and any(
        isinstance(action, argparse._SubParsersAction) for action in parser._actions)


COMMANDS = dict(subcommands())


def test_the_table_of_subcommands_is_complete():
    assert SEARCHES | RANDOM <= set(COMMANDS)
    assert {("demo",), ("data",), ("predict",), ("check-certificate",), ("plot", "search"),
            ("plot", "cre")} <= set(COMMANDS)
    assert [path for path, parser in COMMANDS.items() if dispatches_only(parser)] == [("plot",)]


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
def test_every_subcommand_has_json_and_a_runnable_example_epilog(path):
    parser = COMMANDS[path]
    assert "--json" in options(parser) or dispatches_only(parser), \
        f"optrules {' '.join(path)} has no --json"
    assert parser.epilog and parser.epilog.startswith("example: optrules "), path
    for command in example_commands(parser):
        assert command.startswith("optrules "), (path, command)
        _parser().parse_args(shlex.split(command)[1:])       # parses (SystemExit otherwise)


@pytest.mark.parametrize("path", sorted(SEARCHES), ids=" ".join)
def test_every_search_has_progress_and_quiet(path):
    assert {"--progress", "--quiet"} <= options(COMMANDS[path])


@pytest.mark.parametrize("path", sorted(RANDOM), ids=" ".join)
def test_every_random_command_has_a_seed(path):
    assert "--seed" in options(COMMANDS[path])


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """The files the examples name: compas.csv, data.csv (the parity table, target y) and
    new_rows.csv (COMPAS rows)."""
    folder = tmp_path_factory.mktemp("examples")
    compas = bundled_csv("compas").read_text()
    (folder / "compas.csv").write_text(compas)
    (folder / "new_rows.csv").write_text("\n".join(compas.splitlines()[:21]) + "\n")
    rows = list(csv.reader(bundled_csv("parity").read_text().splitlines()))
    target = rows[0].index(DATASETS["parity"]["target"])
    rows[0][target] = "y"
    with open(folder / "data.csv", "w", newline="") as handle:
        csv.writer(handle).writerows(rows)
    return folder


@pytest.mark.slow
def test_every_help_example_runs(folder, monkeypatch, capsys):
    """Each example, in the parser's order (rulelist writes the model.json predict reads), in
    one folder; every command exits 0."""
    monkeypatch.chdir(folder)
    ran = 0
    for path, parser in COMMANDS.items():
        for command in [] if dispatches_only(parser) else example_commands(parser):
            status = main(shlex.split(command)[1:] + ["--quiet"] * _takes_quiet(command))
            assert status == 0, f"{command}\n{capsys.readouterr().err}"
            ran += 1
    assert ran >= len(COMMANDS) - 1


def _takes_quiet(command):
    """Whether to add --quiet (no progress line in the test log)."""
    words = tuple(shlex.split(command)[1:3])
    return words[:1] in SEARCHES or words in SEARCHES


@pytest.mark.parametrize("command", [
    ["predict", "--model", "model.json", "--csv", "new_rows.csv", "--proba"],
    ["data", "parity"],
    ["demo"],
])
def test_commands_print_one_json_object(folder, monkeypatch, capsys, command):
    monkeypatch.chdir(folder)
    if command[0] == "predict":
        assert main(["rulelist", "--csv", "compas.csv", "--target",
                     DATASETS["compas"]["target"], "--lam", "0.015", "--quiet",
                     "--save-model", "model.json"]) == 0
        capsys.readouterr()
    assert main(command + ["--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    if command[0] == "predict":
        assert body["rows"] == 20 and len(body["predictions"]) == 20
        assert body["classes"] == [0, 1] and all(abs(sum(p) - 1) < 1e-12
                                                 for p in body["probabilities"])
    elif command[0] == "data":
        assert body["rows"] == 600 and body["target"] == "parity" and body["output"] is None
    else:
        assert set(body) == {"rule_list", "rule_boosting", "boosted_rules", "compressed_rules"}
        assert body["rule_list"]["objective"] == "245267/648900"
        assert body["rule_list"]["status"] == "optimal"
        assert body["compressed_rules"]["fit"]["kkt"]["verdict"].startswith("KKT conditions")


def test_json_output_writes_null_for_values_that_are_not_finite(tmp_path, capsys):
    """JSON has no inf: a regression that overflows is null (the CSV keeps inf). Found by
    review: boost --json printed "training_loss": Infinity (a Poisson target near 1e307,
    whose loss exceeds the float range), which JSON readers refuse."""
    from optrules.cli.json_output import json_text
    assert json.loads(json_text([1.0, float("inf"), (float("nan"), 2), {"a": -math.inf}])) \
        == [1.0, None, [None, 2], {"a": None}]
    data = tmp_path / "p.csv"
    data.write_text("x,y\n1,1e307\n2,1e307\n3,1e300\n4,1\n")
    assert main(["boost", "--csv", str(data), "--target", "y", "--loss", "poisson", "--rules",
                 "2", "--quiet", "--json"]) == 0
    body = json.loads(capsys.readouterr().out, parse_constant=lambda name: pytest.fail(name))
    assert body["training_loss"] is None and len(body["rules"]) == 2


@pytest.mark.parametrize("command", [
    ["boomer", "--csv", "data.csv", "--target", "y", "--max-rules", "5", "--json"],
    ["cre", "--csv", "data.csv", "--target", "y", "--kmax", "2", "--trees", "20", "--folds",
     "3", "--json"],
])
def test_the_seed_decides_the_output(folder, monkeypatch, capsys, command):
    """The same --seed gives the same model (times aside); another seed another one."""
    monkeypatch.chdir(folder)
    outputs = []
    for seed in ("3", "3", "4"):
        assert main(command + ["--seed", seed, "--quiet"]) == 0
        outputs.append(_without_times(json.loads(capsys.readouterr().out)))
    assert outputs[0] == outputs[1] != outputs[2]


def _without_times(value):
    """A JSON value without its "seconds" members, which vary from run to run."""
    if isinstance(value, dict):
        return {key: _without_times(item) for key, item in value.items() if key != "seconds"}
    if isinstance(value, list):
        return [_without_times(item) for item in value]
    return value


def test_predict_names_each_output_of_a_multi_label_model(folder, monkeypatch, capsys):
    monkeypatch.chdir(folder)
    rows = ["a,b,l1,l2"] + [f"{i % 3},{i % 5},{i % 2},{(i // 2) % 2}" for i in range(24)]
    (folder / "multi.csv").write_text("\n".join(rows) + "\n")
    assert main(["boomer", "--csv", "multi.csv", "--target", "l1,l2", "--max-rules", "3",
                 "--quiet", "--save-model", "multi.json"]) == 0
    capsys.readouterr()
    assert main(["predict", "--model", "multi.json", "--csv", "multi.csv", "--proba"]) == 0
    lines = capsys.readouterr().out.splitlines()
    outputs = load_model(folder / "multi.json").model_.output_names
    assert lines[0].split(",") == [f"prediction({name})" for name in outputs] + \
        [f"P({name}=1)" for name in outputs]
    assert len(outputs) == 2 and all(len(line.split(",")) == 4 for line in lines[1:])
    assert main(["predict", "--model", "multi.json", "--csv", "multi.csv", "--proba",
                 "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["outputs"] == list(outputs) and "classes" not in body
    assert len(body["predictions"][0]) == len(body["probabilities"][0]) == 2
