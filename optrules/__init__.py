"""optrules: interpretable rule models that are provably optimal, in pure Python.

Estimators (scikit-learn conventions): :class:`RuleListClassifier` (certifiably optimal rule
lists, Angelino et al. 2018), :class:`OptimalRuleBoostingClassifier` and
:class:`OptimalRuleBoostingRegressor` (optimal rule boosting, Boley et al. 2021),
:class:`BoostedRulesClassifier` and :class:`BoostedRulesRegressor` (greedy boosted rules, BOOMER,
Rapp et al. 2023), :class:`CompressedRuleEnsembleClassifier` and
:class:`CompressedRuleEnsembleRegressor` (compressed rule ensembles, Nalenz and Augustin 2022);
models are
saved with ``to_json(path)`` and read back with :func:`load_model`. A fit stopped by a time,
node or memory limit or by Ctrl-C keeps its best model and warns (:class:`StoppedSearchWarning`).

Functions on prepared data: :func:`optrules.rule_lists.fit_rule_list` (on a
:class:`~optrules.data.binary_dataset.BinaryDataset`) and
:func:`optrules.rule_boosting.fit_rule_ensemble`, :func:`optrules.boosted_rules.fit_boosted_rules`,
:func:`optrules.compressed_rules.fit_compressed_rules`. Independent certification is in
:mod:`optrules.verify`; the ``optrules`` command in :mod:`optrules.cli`.

Layout (the pipeline): :mod:`optrules.data` → one package per method
(:mod:`optrules.rule_lists`, :mod:`optrules.rule_boosting`, :mod:`optrules.boosted_rules`,
:mod:`optrules.compressed_rules`) → engines
(:mod:`optrules.reference`, :mod:`optrules.fast`) → :mod:`optrules.verify`.
"""

__version__ = "0.1.0"

from optrules.base import NotFittedError
from optrules.boosted_rules.estimator import BoostedRulesClassifier, BoostedRulesRegressor
from optrules.boosted_rules.fit import fit_boosted_rules
from optrules.compressed_rules.estimator import (CompressedRuleEnsembleClassifier,
                                                 CompressedRuleEnsembleRegressor)
from optrules.compressed_rules.fit import fit_compressed_rules
from optrules.data.binary_dataset import BinaryDataset
from optrules.limits import StoppedSearchWarning
from optrules.model_files import load_model
from optrules.rule_boosting.estimator import (OptimalRuleBoostingClassifier,
                                              OptimalRuleBoostingRegressor)
from optrules.rule_boosting.fit import fit_rule_ensemble
from optrules.rule_lists.estimator import RuleListClassifier
from optrules.rule_lists.fit import fit_rule_list

__all__ = ["RuleListClassifier", "OptimalRuleBoostingClassifier",
           "OptimalRuleBoostingRegressor", "load_model", "NotFittedError", "fit_rule_list",
           "fit_rule_ensemble", "BinaryDataset", "StoppedSearchWarning",
           "BoostedRulesClassifier", "BoostedRulesRegressor", "fit_boosted_rules",
           "CompressedRuleEnsembleClassifier", "CompressedRuleEnsembleRegressor",
           "fit_compressed_rules"]
