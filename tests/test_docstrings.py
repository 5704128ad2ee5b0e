"""Every docstring example in the installed package runs and prints what it shows."""

import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

PACKAGES = ("optrules", "optrules.data", "optrules.rule_lists", "optrules.rule_boosting",
            "optrules.boosted_rules", "optrules.compressed_rules", "optrules.plot",
            "optrules.distributed", "optrules.cli",
            "optrules.reference", "optrules.fast", "optrules.verify")
MODULES = sorted(set(PACKAGES) | {
    info.name for package in PACKAGES
    for info in pkgutil.iter_modules(importlib.import_module(package).__path__, package + ".")})


def test_every_installed_package_is_checked():
    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    listed = re.search(r"^packages = \[(.*?)\]", pyproject, re.S | re.M).group(1)
    assert set(re.findall(r'"([a-z_.]+)"', listed)) == set(PACKAGES)


def test_the_package_has_modules_to_check():
    assert {"optrules.rule_lists.fit", "optrules.reference.corels", "optrules.verify.oracle"} \
        <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0, f"{name}: {failures} docstring example(s) failed"
