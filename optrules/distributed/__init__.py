"""Branch-and-bound across processes and machines, on Dask distributed (specs/distributed.md).

The search frontier is cut into subtrees that run as Dask tasks on the fast engine, each for a
bounded time slice, sharing the incumbent through the scheduler. The optimum and, among equally
good models, the model returned are those of a one-process run. Needs the optional extra
``optrules[distributed]`` (``dask`` and ``distributed``).

Examples
--------
>>> from optrules.distributed import Cluster
>>> Cluster(n_workers=2)
Cluster(n_workers=2, scheduler=None)
"""

from optrules.distributed.cluster import Cluster, DistributedUnavailable, cluster_parameters

__all__ = ["Cluster", "DistributedUnavailable", "cluster_parameters"]
