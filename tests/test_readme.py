"""Every README snippet runs: the Python examples as doctests, the ``optrules`` command lines
through the CLI's entry point, in order, in a scratch folder."""

import doctest
import re
import shlex
from pathlib import Path

import pytest

from optrules.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.S)


def blocks(language):
    return [code for lang, code in BLOCK.findall(README.read_text(encoding="utf-8"))
            if lang == language]


def test_the_readme_has_snippets_of_both_kinds():
    assert len(blocks("python")) >= 2 and any("optrules rulelist" in b for b in blocks("sh"))


def test_python_snippets_run_and_print_what_they_show(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    parser, globs = doctest.DocTestParser(), {}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for number, code in enumerate(blocks("python")):
        assert ">>> " in code, f"README python block {number} is not a doctest"
        runner.run(parser.get_doctest(code, globs, f"README block {number}", str(README), 0))
    assert runner.failures == 0 and runner.tries > 10


@pytest.mark.slow
def test_command_lines_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    commands = [line for code in blocks("sh") for line in code.splitlines()
                if line.startswith("optrules ") and line != "optrules demo"]
    assert len(commands) >= 5
    for line in commands:
        status = main(shlex.split(line, comments=True)[1:])
        assert status == 0, f"{line}\n{capsys.readouterr().err}"
    assert (tmp_path / "predictions.csv").read_text().startswith("prediction,P(0),P(1)\n")
