"""Certifiably optimal rule lists: the public entry point (validate, dispatch, return).

``fit_rule_list`` checks every parameter once, canonicalises the data (equivalent-points
minority computed or checked), and hands the problem to an engine. The problem, objective,
bounds and tie-breaking order are stated in ``specs/rule-lists.md``.
"""

import importlib
from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np

from optrules.data import bitset
from optrules.data.binary_dataset import BinaryDataset
from optrules.distributed.cluster import CLUSTER_CONSTRAINTS, cluster_parameters
from optrules.garbage_collection import memory_given_back
from optrules.limits import Budget, interruptible, memory_cap
from optrules.progress import ProgressLine
from optrules.rule_lists.equivalent_points import check_minority, minority_bits
from optrules.rule_lists.model import describe
from optrules.rule_lists.search_certificate import SearchCertificateWriter
from optrules.rule_lists.search_trace import SearchTrace, write_unsearched_trace
from optrules.validation import (Callable, ExactFraction, FilePath, Integer, Options, Real,
                                 Subset, TextStream, fraction_text, validate_params)

__all__ = ["fit_rule_list", "unsearched_result", "SearchConfig", "ProgressLog", "ENGINES", "POLICIES",
           "SYMMETRY_MAPS", "BOUNDS", "PARAMETER_CONSTRAINTS"]

#: Engine name -> module path of its ``corels`` function (imported on first use).
ENGINES = {"reference": "optrules.reference.corels", "fast": "optrules.fast.corels"}
POLICIES = ("lower-bound", "bfs", "dfs", "curiosity", "objective")
SYMMETRY_MAPS = ("prefix", "captured", "none")
#: Bounds of Angelino et al. (2018), §3, each of which can be switched off for ablation.
BOUNDS = {
    "hierarchical": "Thm 1: prune a prefix whose lower bound reaches the best objective",
    "lookahead": "Lemma 2 / Thm 6: do not extend when lower bound + λ reaches it",
    "prefix_length": "Thm 4: an optimal list has fewer than R^c/λ rules",
    "minimum_support": "Thm 10: every rule captures more than λN samples (weight λW)",
    "accurate_support": "Thm 11: every rule classifies more than λN samples (weight λW) "
                        "correctly",
    "maximum_support": "Thm 12: every rule leaves more than λN samples (weight λW) uncaptured",
    "equivalent_points": "Thm 22: add the weight outside the largest class of uncaptured "
                         "equivalent points",
}


@dataclass(frozen=True)
class SearchConfig:
    """Validated search options handed to an engine."""

    policy: str = "lower-bound"
    symmetry_map: str = "prefix"
    bounds: frozenset = frozenset(BOUNDS)
    max_nodes: int | None = None
    max_queue: int | None = None
    budget: Budget = field(default_factory=Budget)
    progress: object = None
    certificate: object = None       # a SearchCertificateWriter, or None


class ProgressLog(ProgressLine):
    """Progress callback: a throttled line on ``stream`` (see :class:`ProgressLine`).

    Columns follow CORELS' log: nodes expanded, lower-bound evaluations, queue size,
    symmetry-map size, best objective, global lower bound, log10 of Thm 7's remaining search
    space. ``describe()`` must return those figures (see ``reference.corels``).
    """

    def __call__(self, nodes_expanded, describe):
        self.update(lambda: _progress_text(nodes_expanded, describe()))


def _progress_text(nodes_expanded, state):
    space = state["remaining_search_space"]
    workers = state.get("nodes_by_worker")      # a distributed search: each worker's nodes
    return (f"nodes {nodes_expanded:>10} evaluations {state['evaluations']:>12} queue "
            f"{state['queue_size']:>9} map {state['map_size']:>9} best "
            f"{float(state['best_objective']):.6f} lower bound "
            f"{float(state['lower_bound']):.6f} log10(remaining) "
            f"{len(str(space)) - 1 if space else '-'}" + (
                "" if not workers else " workers " + " ".join(
                    f"{name}:{count}" for name, count in workers.items())))


#: fit_rule_list's parameters and what each may be (see :mod:`optrules.validation`).
PARAMETER_CONSTRAINTS = {
    "lam": [ExactFraction(0, 1)],
    "engine": [Options(ENGINES)],
    "policy": [Options(POLICIES)],
    "symmetry_map": [Options(SYMMETRY_MAPS)],
    "max_nodes": [Integer(1), None],
    "max_queue": [Integer(1), None],
    "time_limit": [Real(), None],
    "max_memory": [Real(), None, Options(("auto",))],
    "progress": [Callable(), None],
    "disabled_bounds": [Subset(BOUNDS)],
    "certificate": [FilePath(), None],
    "trace": [FilePath(), TextStream(), None],
    "trace_interval": [Real(0, inclusive=True)],
    **CLUSTER_CONSTRAINTS,
}


def fit_rule_list(dataset, lam, *, sample_weight=None, engine="fast",
                  policy="lower-bound", symmetry_map="prefix", disabled_bounds=(),
                  max_nodes=None, max_queue=None, time_limit=None, max_memory="auto",
                  progress=None, budget=None, certificate=None, trace=None,
                  trace_interval=0.1, n_workers=None, scheduler=None):
    """Find a certifiably optimal rule list (CORELS objective).

    Minimises R(d) = mistakes(d)/N + λ·K(d) over all rule lists d of K distinct antecedents
    of ``dataset``, each rule and the default predicting the majority class of the samples
    they capture (a tie goes to the class that comes last in ``dataset.classes``: for two
    classes the positive class ``classes[1]``). With sample weights, mistakes and majorities
    are by weight and N is the total weight (specs/rule-lists.md §11).

    Parameters
    ----------
    dataset : BinaryDataset
        Antecedents, labels (two or more classes) and optional weights. If it carries
        ``minority`` bits they are checked for soundness; otherwise they are computed when the
        equivalent-points bound is on.
    lam : Fraction, int, str or float
        λ in (0, 1). Strings (``"0.01"``, ``"1/100"``) and floats (via their shortest decimal
        repr) are converted exactly.
    sample_weight : sequence of numbers >= 0, optional
        Exact weight of each sample (integers, decimals, fractions; a float is read as its
        shortest decimal). Replaces the dataset's weights. Weight k gives exactly the optimum
        of k copies of the sample.
    engine : {"fast", "reference"}, default "fast"
        "reference" follows the paper line by line; "fast" makes the same search (same list,
        bounds and counters) on compressed samples with vectorised children.
    policy : {"lower-bound", "bfs", "dfs", "curiosity", "objective"}, default "lower-bound"
        Queue order of the search.
    symmetry_map : {"prefix", "captured", "none"}, default "prefix"
        Prefix-permutation map (Cor. 18) or captured-vector map (Thm 17).
    disabled_bounds : iterable of str, default ()
        Names from :data:`BOUNDS` to switch off (the optimum does not change).
    max_nodes : int, optional
        Stop after expanding this many prefixes; the result then has
        ``status="node-limit"``.
    max_queue : int, optional
        Stop when more than this many prefixes wait in the queue (``"queue-limit"``).
    time_limit : float, optional
        Stop after this many seconds (``"time-limit"``).
    max_memory : float, "auto" or None, default "auto"
        Stop when this process's resident memory reaches this many MB (``"memory-limit"``);
        "auto" is half of the physical (or container) memory, None is no cap.
    progress : callable, optional
        Called as ``progress(nodes_expanded, describe)``; see :class:`ProgressLog`.
    budget : optrules.limits.Budget, optional
        An enclosing budget (a whole command's deadline) that also stops the search.
    certificate : str or path, optional
        Write the search certificate here (specs/certificates.md; gzip if the name ends in
        ``.gz``), which ``optrules check-certificate`` replays without trusting the engine.
        Written only when the search finishes ("optimal").
    trace : str, path or writable text stream, optional
        Write the search's trace here (JSON Lines, ``specs/trace.md``): best objective, lower
        bound, queue size and prefix lengths over time, for ``optrules.plot.search_trace``.
        A stream is left open. The search is the same with or without it.
    trace_interval : float >= 0, default 0.1
        Least seconds between the trace's records, and at least 20 times the last record's
        cost, so that records take about 5% of the search (0: a record per expanded prefix);
        a new incumbent and the end are always recorded.
    n_workers : int >= 1, optional
        Spread the search over a local Dask cluster of this many processes (needs the extra
        ``optrules[distributed]``; specs/distributed.md). Same objective and rule list as one
        process; counters are sums over its tasks.
    scheduler : str, optional
        Spread the search over the Dask cluster whose scheduler listens at this address
        (``"tcp://host:8786"``) instead.

    Returns
    -------
    RuleListResult
        ``status="optimal"`` certifies ``objective`` is the minimum. Otherwise the status says
        what stopped the search (:data:`optrules.limits.STOP_STATUSES`; SIGINT/SIGTERM during
        the search give ``"interrupted"``, a second signal aborts) and
        ``lower_bound <= minimum <= objective``. Its rule list carries each rule's conditions
        (for mined antecedents) and training class counts.

    Raises
    ------
    TypeError, ValueError
        For invalid parameters, naming the parameter and the valid choices.

    References
    ----------
    .. [1] E. Angelino et al. "Learning certifiably optimal rule lists for categorical data."
       JMLR 18(234), 2018.

    Examples
    --------
    >>> from optrules.data.binary_dataset import BinaryDataset
    >>> bits = [[1, 1, 0, 0], [0, 1, 1, 0]]
    >>> data = BinaryDataset.from_bits(["a", "b"], bits, [1, 1, 0, 0])
    >>> result = fit_rule_list(data, "1/10")
    >>> result.objective, result.status
    (Fraction(1, 10), 'optimal')

    Three classes and sample weights:

    >>> data = BinaryDataset.from_bits(["a", "b"], bits, [2, 1, 0, 0],
    ...                                classes=("low", "mid", "high"))
    >>> result = fit_rule_list(data, "1/10", sample_weight=[1, 2, 1, 3])
    >>> print(result.rule_list)
    if {a} then mid
    else low
    >>> result.objective, result.mistakes, result.total_weight
    (Fraction(17, 70), Fraction(1, 1), Fraction(7, 1))
    """
    if not isinstance(dataset, BinaryDataset):
        raise TypeError(f"The 'dataset' parameter of fit_rule_list must be a BinaryDataset. "
                        f"Got {type(dataset).__name__} instead.")
    given = validate_params(PARAMETER_CONSTRAINTS, {
        "lam": lam, "engine": engine, "policy": policy, "symmetry_map": symmetry_map,
        "max_nodes": max_nodes, "max_queue": max_queue, "time_limit": time_limit,
        "max_memory": max_memory, "progress": progress, "disabled_bounds": disabled_bounds,
        "certificate": certificate, "trace": trace, "trace_interval": trace_interval,
        "n_workers": n_workers, "scheduler": scheduler}, "fit_rule_list")
    cluster = cluster_parameters(given["n_workers"], given["scheduler"], "fit_rule_list")
    if sample_weight is not None:
        dataset = dataset.with_weights(sample_weight)
    if budget is not None and not isinstance(budget, Budget):
        raise TypeError(f"The 'budget' parameter of fit_rule_list must be an "
                        f"optrules.limits.Budget or None. Got {type(budget).__name__} instead.")
    config = SearchConfig(policy=given["policy"], symmetry_map=given["symmetry_map"],
                          bounds=frozenset(BOUNDS) - given["disabled_bounds"],
                          max_nodes=given["max_nodes"], max_queue=given["max_queue"],
                          budget=Budget(given["time_limit"], memory_cap(given["max_memory"]),
                                        parent=budget),
                          progress=progress)
    if "equivalent_points" in config.bounds:
        dataset = _with_sound_minority(dataset)
    engine_module = importlib.import_module(ENGINES[given["engine"]])
    if given["certificate"] is not None:
        total = dataset.n_samples if dataset.weights is None else int(dataset.weights.sum())
        config = replace(config, certificate=SearchCertificateWriter(
            given["certificate"], given["lam"].denominator * total))
    trace = None
    if given["trace"] is not None:
        trace = SearchTrace(given["trace"], _trace_header(dataset, given), then=progress,
                            interval=given["trace_interval"])
        config = replace(config, progress=trace)
    try:
        with interruptible(), memory_given_back():
            if cluster is None:
                result = engine_module.corels(dataset, given["lam"], config)
            else:
                result = _distributed_corels(dataset, given["lam"], config, given["engine"],
                                             cluster)
    except BaseException:
        if config.certificate is not None:
            config.certificate.discard()
        if trace is not None:
            trace.abandon()
        raise
    if trace is not None:
        trace.finish(result.status)
    result = replace(result, rule_list=describe(result.rule_list, dataset))
    if config.certificate is not None:
        _finish_certificate(config, dataset, result, given["engine"])
    return result


def _distributed_corels(dataset, lam, config, engine, cluster):
    """The search on ``cluster``'s workers (optrules.distributed.rule_lists)."""
    from optrules.distributed import rule_lists
    with cluster.client() as client:
        return rule_lists.corels(dataset, lam, config, engine, rule_lists.OnDask(client))


def _trace_header(dataset, given):
    """The figures of the problem a trace's header states (``specs/trace.md``)."""
    return {"lambda": fraction_text(given["lam"]), "engine": given["engine"],
            "policy": given["policy"], "n_antecedents": dataset.n_antecedents,
            "n_samples": dataset.n_samples,
            "total_weight": fraction_text(dataset.total_weight) if dataset.weighted else None}


def _finish_certificate(config, dataset, result, engine):
    """Put the claim in front of the search certificate's records, or drop them when the
    search stopped at a limit (its records would not cover the search space)."""
    from optrules.verify.instances import RuleListInstance     # verify imports this package
    if result.status != "optimal":
        config.certificate.discard()
        return
    config.certificate.finish({
        "kind": "rule-list",
        "instance_sha256": RuleListInstance.from_dataset(dataset, result.lam).digest(),
        "lambda": fraction_text(result.lam),
        "claimed_objective": fraction_text(result.objective),
        "model": result.rule_list.to_dict(), "engine": engine,
        "symmetry_map": config.symmetry_map, "bounds": sorted(config.bounds)})


def unsearched_result(labels, lam, status, *, classes, target, sample_weight=None,
                      seconds=0.0, trace=None, engine="fast", policy="lower-bound"):
    """What a run stopped before its search began (while mining) returns: the default rule
    alone, with its exact objective and the only bound proven, 0. ``labels`` are class
    indices; ``seconds`` is the time the run took. With ``trace`` (a path or text stream),
    the trace of this stop is written there (:func:`write_unsearched_trace`), its header
    naming the ``engine`` and ``policy`` the run asked for.

    Examples
    --------
    >>> result = unsearched_result([1, 1, 0], "1/10", "time-limit", classes=(0, 1), target="y")
    >>> result.objective, result.lower_bound, result.status
    (Fraction(1, 3), Fraction(0, 1), 'time-limit')
    """
    labels = np.asarray(labels)
    no_antecedents = BinaryDataset.from_bits([], np.zeros((0, labels.size), dtype=bool), labels,
                                             target=target, classes=classes,
                                             sample_weight=sample_weight)
    result = fit_rule_list(no_antecedents, lam, max_memory=None)
    if trace is not None:
        header = _trace_header(no_antecedents, {"lam": result.lam, "engine": engine,
                                                "policy": policy})
        write_unsearched_trace(trace, header, status, result.objective)
    return replace(result, status=status, lower_bound=Fraction(0), remaining_search_space=None,
                   seconds=seconds)


def _with_sound_minority(dataset):
    if dataset.minority is None:
        return dataset.with_minority(minority_bits(dataset))
    check_minority(dataset, bitset.unpack(dataset.minority, dataset.n_samples))
    return dataset
