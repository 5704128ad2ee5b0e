"""Compressed rule ensembles (CRE, Nalenz and Augustin): harvested rules whose conditions are
replaced by soft conditions of clustered split points, in an L1-regularised GLM. See
``specs/cre.md``; :func:`cluster_split_points` is its split-point clustering (§2).
"""

from .clustering import CRITERIA, ENGINES, Cluster, cluster_split_points

__all__ = ["cluster_split_points", "Cluster", "CRITERIA", "ENGINES"]
