"""optrules: interpretable rule models that are provably optimal, in pure Python.

Estimators (scikit-learn conventions): :class:`RuleListClassifier` (certifiably optimal rule
lists, Angelino et al. 2018), :class:`OptimalRuleBoostingClassifier` and
:class:`OptimalRuleBoostingRegressor` (optimal rule boosting, Boley et al. 2021),
:class:`BoostedRulesClassifier` and :class:`BoostedRulesRegressor` (greedy boosted rules, BOOMER,
Rapp et al. 2023), :class:`CompressedRuleEnsembleClassifier` and
:class:`CompressedRuleEnsembleRegressor` (compressed rule ensembles, Nalenz and Augustin 2022);
models are saved with ``to_json(path)`` and read back with :func:`load_model`. A fit stopped by
a time, node or memory limit or by Ctrl-C keeps its best model and warns
(:class:`StoppedSearchWarning`).

Functions on prepared data: :func:`optrules.rule_lists.fit_rule_list` (on a
:class:`~optrules.data.binary_dataset.BinaryDataset`) and
:func:`optrules.rule_boosting.fit_rule_ensemble`,
:func:`optrules.boosted_rules.fit_boosted_rules`,
:func:`optrules.compressed_rules.fit_compressed_rules`. Independent certification is in
:mod:`optrules.verify`; the ``optrules`` command in :mod:`optrules.cli`.

Layout (the pipeline): :mod:`optrules.data` → one package per method
(:mod:`optrules.rule_lists`, :mod:`optrules.rule_boosting`, :mod:`optrules.boosted_rules`,
:mod:`optrules.compressed_rules`) → engines
(:mod:`optrules.reference`, :mod:`optrules.fast`) → :mod:`optrules.verify`.
"""

__version__ = "0.1.0"

import importlib

#: Each public name -> the module defining it. They are imported on first use (PEP 562), so a
#: program that needs one method does not pay for the others' imports (scipy, for one).
_EXPORTS = {"NotFittedError": "optrules.base",
            "BoostedRulesClassifier": "optrules.boosted_rules.estimator",
            "BoostedRulesRegressor": "optrules.boosted_rules.estimator",
            "fit_boosted_rules": "optrules.boosted_rules.fit",
            "CompressedRuleEnsembleClassifier": "optrules.compressed_rules.estimator",
            "CompressedRuleEnsembleRegressor": "optrules.compressed_rules.estimator",
            "fit_compressed_rules": "optrules.compressed_rules.fit",
            "BinaryDataset": "optrules.data.binary_dataset",
            "RoundedWeightsWarning": "optrules.data.weights",
            "StoppedSearchWarning": "optrules.limits",
            "load_model": "optrules.model_files",
            "OptimalRuleBoostingClassifier": "optrules.rule_boosting.estimator",
            "OptimalRuleBoostingRegressor": "optrules.rule_boosting.estimator",
            "fit_rule_ensemble": "optrules.rule_boosting.fit",
            "RuleListClassifier": "optrules.rule_lists.estimator",
            "fit_rule_list": "optrules.rule_lists.fit"}

__all__ = list(_EXPORTS)


def __getattr__(name):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
