"""The package layout and its import rules, checked on the source (CONTRIBUTING, "Where things
go"): data -> one package per method -> engines -> verification."""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Source folder -> the installed package it becomes (pyproject.toml's package-dir).
FOLDERS = {"optrules": "optrules", "reference": "optrules.reference", "fast": "optrules.fast",
           "verify": "optrules.verify"}
METHOD_PACKAGES = ("optrules.rule_lists", "optrules.rule_boosting", "optrules.boosted_rules")
ENGINE_PACKAGES = ("optrules.reference", "optrules.fast")


def modules():
    """Installed module name -> source path, for every module of the package."""
    found = {}
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package] + parts)] = path
    return found


def imported(module, path):
    """Every module a source file imports (``from a import b`` counts as a and a.b)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def violations(rule, sources, forbidden):
    found = []
    for module, path in modules().items():
        if module.startswith(sources):
            bad = sorted(name for name in imported(module, path)
                         if any(name == f or name.startswith(f + ".") for f in forbidden))
            found += [f"{module} imports {name}" for name in bad]
    return found


def test_the_import_checker_sees_imports():
    """The checker itself: it must see an import we know exists, relative ones included."""
    table = modules()
    assert "optrules.rule_lists.model" in imported("optrules.reference.corels",
                                                   table["optrules.reference.corels"])
    assert "optrules.cli.arguments" in imported("optrules.cli.rulelist_command",
                                                table["optrules.cli.rulelist_command"])
    assert violations("demo", ("optrules.cli",), ("optrules.rule_lists",))


def test_verify_never_imports_the_engines():
    assert violations("verify", ("optrules.verify",), ENGINE_PACKAGES) == []


def test_verify_uses_no_entry_point_estimator_or_cli():
    forbidden = ("optrules.cli", "optrules.base", "optrules.model_files") + tuple(
        f"{package}.{name}" for package in METHOD_PACKAGES for name in ("fit", "estimator"))
    assert violations("verify", ("optrules.verify",), forbidden) == []


def test_the_reference_engines_never_import_the_fast_ones():
    assert violations("reference", ("optrules.reference",), ("optrules.fast",)) == []


def test_no_engine_imports_the_cli_an_estimator_or_an_entry_point():
    forbidden = ("optrules.cli", "optrules.base", "optrules.model_files") + tuple(
        f"{package}.{name}" for package in METHOD_PACKAGES for name in ("fit", "estimator"))
    assert violations("engines", ENGINE_PACKAGES, forbidden) == []


def test_method_packages_reach_engines_only_through_their_dispatch_tables():
    sources = ("optrules.data", "optrules.rule_lists", "optrules.rule_boosting",
               "optrules.cli", "optrules.base", "optrules.model_files", "optrules.validation")
    assert violations("dispatch", sources, ENGINE_PACKAGES) == []
    for package in METHOD_PACKAGES:
        text = modules()[f"{package}.fit"].read_text(encoding="utf-8")
        assert re.search(r'^ENGINES = \{"reference": "optrules\.reference\.\w+"', text, re.M), \
            package


def test_the_data_package_depends_on_no_method():
    forbidden = METHOD_PACKAGES + ENGINE_PACKAGES + ("optrules.cli", "optrules.verify")
    assert violations("data", ("optrules.data",), forbidden) == []


def test_only_the_cli_imports_the_plots():
    """Plots read what the methods make; nothing but the command line depends on them (or on
    matplotlib, an optional extra)."""
    found = [f"{module} imports {name}" for module, path in modules().items()
             if not module.startswith(("optrules.plot", "optrules.cli"))
             for name in imported(module, path)
             if name.split(".")[0] == "matplotlib" or name.startswith("optrules.plot")]
    assert found == []
    assert violations("plot", ("optrules.cli",), ("optrules.plot",))     # the check sees them


def _key(name):
    return re.sub(r"s$", "", name.replace("_", "").lower())


def test_no_two_module_names_differ_only_by_an_underscore_or_a_plural():
    names = {}
    for module in modules():
        last = module.rpartition(".")[2]
        names.setdefault(_key(last), set()).add(last)
    clashes = {key: sorted(group) for key, group in names.items() if len(group) > 1}
    assert clashes == {}


def test_the_name_check_catches_the_old_clashes():
    assert _key("rulelist") == _key("rule_lists") and _key("boosting") != _key("boosting_result")


@pytest.mark.parametrize("module", [m for m in modules() if m.startswith("optrules.verify")])
def test_verify_checks_are_explicit_not_asserts(module):
    """Internal consistency checks in verify must survive ``python -O``."""
    tree = ast.parse(modules()[module].read_text(encoding="utf-8"))
    assert not [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Assert)]


def test_fitting_and_saving_never_import_scikit_learn(tmp_path):
    """Estimators follow scikit-learn's conventions without importing it at run time."""
    import subprocess
    import sys
    code = ("import sys, optrules\n"
            "m = optrules.RuleListClassifier(0.1).fit([[0], [1], [0], [1]], [0, 1, 0, 1])\n"
            "optrules.OptimalRuleBoostingRegressor(1).fit([[0], [1]], [0.0, 1.0])\n"
            f"m.to_json({str(tmp_path / 'm.json')!r}); optrules.load_model("
            f"{str(tmp_path / 'm.json')!r}).predict([[1]])\n"
            "print(sorted(k for k in sys.modules if k.split('.')[0] == 'sklearn'))\n")
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout
    assert output.strip() == "[]"


def test_boosting_loads_no_rule_list_engine():
    """Start-up time counts on small data: a process that only boosts rules (fast engine)
    imports neither rule-list engine nor the rule-list method package."""
    import subprocess
    import sys
    code = ("import sys\n"
            "from optrules.rule_boosting.fit import fit_rule_ensemble\n"
            "fit_rule_ensemble([[0], [1], [0], [1]], [0.0, 1.0, 0.0, 1.0], lam=1,\n"
            "                  engine='fast', n_rules=1)\n"
            "print(sorted(k for k in sys.modules if 'corels' in k or 'rule_lists' in k))\n")
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout
    assert output.strip() == "[]"
