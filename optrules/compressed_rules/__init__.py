"""Compressed rule ensembles (CRE, Nalenz and Augustin): harvested rules whose conditions are
replaced by soft conditions of clustered split points, in an L1-regularised GLM or averaged.
See ``specs/cre.md``. :class:`CompressedRuleEnsembleClassifier` and
:class:`CompressedRuleEnsembleRegressor` are the estimators, :func:`fit_compressed_rules` the
pipeline on arrays and :func:`cluster_split_points` its split-point clustering (§2).
"""

from .clustering import CRITERIA, ENGINES, Cluster, cluster_split_points
from .estimator import CompressedRuleEnsembleClassifier, CompressedRuleEnsembleRegressor
from .fit import fit_compressed_rules
from .model import CompressedRules, Explanation

__all__ = ["CompressedRuleEnsembleClassifier", "CompressedRuleEnsembleRegressor",
           "fit_compressed_rules", "CompressedRules", "Explanation", "cluster_split_points",
           "Cluster", "CRITERIA", "ENGINES"]
