"""Every docstring example in the installed package runs and prints what it shows."""

import doctest
import importlib
import pkgutil

import pytest

PACKAGES = ("optrules", "optrules.data", "optrules.rule_lists", "optrules.rule_boosting",
            "optrules.cli", "optrules.reference", "optrules.fast", "optrules.verify")
MODULES = sorted(set(PACKAGES) | {
    info.name for package in PACKAGES
    for info in pkgutil.iter_modules(importlib.import_module(package).__path__, package + ".")})


def test_the_package_has_modules_to_check():
    assert {"optrules.rule_lists.fit", "optrules.reference.corels", "optrules.verify.oracle"} \
        <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0, f"{name}: {failures} docstring example(s) failed"
