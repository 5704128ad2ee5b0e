"""Certifiably optimal rule lists: the public entry point (validate, dispatch, return).

``fit_rule_list`` checks every parameter once, canonicalises the data (equivalent-points
minority computed or checked), and hands the problem to an engine. The problem, objective,
bounds and tie-breaking order are stated in ``specs/rule-lists.md``.
"""

import importlib
import math
import numbers
import sys
import time
from dataclasses import dataclass

from optrules.data import bitset
from optrules.data.binary_dataset import BinaryDataset
from optrules.rule_lists.equivalent_points import check_minority, minority_bits
from optrules.validation import parse_fraction

__all__ = ["fit_rule_list", "SearchConfig", "ProgressLog", "ENGINES", "POLICIES",
           "SYMMETRY_MAPS", "BOUNDS"]

#: Engine name -> module path of its ``corels`` function (imported on first use).
ENGINES = {"reference": "optrules.reference.corels"}
POLICIES = ("lower-bound", "bfs", "dfs", "curiosity", "objective")
SYMMETRY_MAPS = ("prefix", "captured", "none")
#: Bounds of Angelino et al. (2018), §3, each of which can be switched off for ablation.
BOUNDS = {
    "hierarchical": "Thm 1: prune a prefix whose lower bound reaches the best objective",
    "lookahead": "Lemma 2 / Thm 6: do not extend when lower bound + λ reaches it",
    "prefix_length": "Thm 4: an optimal list has fewer than R^c/λ rules",
    "minimum_support": "Thm 10: every rule captures more than λN samples",
    "accurate_support": "Thm 11: every rule classifies more than λN samples correctly",
    "maximum_support": "Thm 12: every rule leaves more than λN samples uncaptured",
    "equivalent_points": "Thm 22: add the minority count of uncaptured equivalent points",
}


@dataclass(frozen=True)
class SearchConfig:
    """Validated search options handed to an engine."""

    policy: str = "lower-bound"
    symmetry_map: str = "prefix"
    bounds: frozenset = frozenset(BOUNDS)
    max_nodes: int | None = None
    max_queue: int | None = None
    time_limit: float | None = None
    progress: object = None


class ProgressLog:
    """Progress callback printing one line every ``interval`` seconds to ``stream``.

    Columns follow CORELS' log: seconds, nodes expanded, lower-bound evaluations, queue size,
    symmetry-map size, best objective, global lower bound, log10 of Thm 7's remaining search
    space. ``describe()`` must return those figures (see ``reference.corels``).
    """

    def __init__(self, interval=10.0, stream=None):
        self.interval = interval
        self.stream = stream if stream is not None else sys.stderr
        self.start = time.perf_counter()
        self.next_report = self.start + interval

    def __call__(self, nodes_expanded, describe):
        now = time.perf_counter()
        if now < self.next_report:
            return
        self.next_report = now + self.interval
        state = describe()
        space = state["remaining_search_space"]
        print(f"[{now - self.start:8.1f} s] nodes {nodes_expanded:>10} evaluations "
              f"{state['evaluations']:>12} queue "
              f"{state['queue_size']:>9} map {state['map_size']:>9} best "
              f"{float(state['best_objective']):.6f} lower bound "
              f"{float(state['lower_bound']):.6f} log10(remaining) "
              f"{len(str(space)) - 1 if space else '-'}", file=self.stream, flush=True)


def _choice(name, value, options):
    if not isinstance(value, str):
        raise TypeError(f"The {name!r} parameter of fit_rule_list must be a str among "
                        f"{list(options)}. Got {value!r} instead.")
    if value not in options:
        raise ValueError(f"The {name!r} parameter of fit_rule_list must be one of "
                         f"{list(options)}. Got {value!r} instead.")
    return value


def _limit(name, value, kind):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, kind):
        raise TypeError(f"The {name!r} parameter of fit_rule_list must be a positive number "
                        f"or None. Got {value!r} instead.")
    if not value > 0 or value == math.inf:
        raise ValueError(f"The {name!r} parameter of fit_rule_list must be positive. "
                         f"Got {value!r} instead.")
    return value


def fit_rule_list(dataset, lam, *, engine="reference", policy="lower-bound",
                  symmetry_map="prefix", disabled_bounds=(), max_nodes=None, max_queue=None,
                  time_limit=None, progress=None):
    """Find a certifiably optimal rule list (CORELS objective).

    Minimises R(d) = mistakes(d)/N + λ·K(d) over all rule lists d of K distinct antecedents
    of ``dataset``, each rule and the default predicting the majority label of the samples
    they capture (a tie predicts the positive class).

    Parameters
    ----------
    dataset : BinaryDataset
        Antecedents and labels. If it carries ``minority`` bits they are checked for
        soundness; otherwise they are computed when the equivalent-points bound is on.
    lam : Fraction, int, str or float
        λ in (0, 1). Strings (``"0.01"``, ``"1/100"``) and floats (via their shortest decimal
        repr) are converted exactly.
    engine : {"reference"}, default "reference"
    policy : {"lower-bound", "bfs", "dfs", "curiosity", "objective"}, default "lower-bound"
        Queue order of the search.
    symmetry_map : {"prefix", "captured", "none"}, default "prefix"
        Prefix-permutation map (Cor. 18) or captured-vector map (Thm 17).
    disabled_bounds : iterable of str, default ()
        Names from :data:`BOUNDS` to switch off (the optimum does not change).
    max_nodes : int, optional
        Stop after expanding this many prefixes; the result then has ``status="limit"``.
    max_queue : int, optional
        Stop when more than this many prefixes wait in the queue (the memory limit: each
        queued prefix holds a trie node and a symmetry-map entry), likewise.
    time_limit : float, optional
        Stop after this many seconds, likewise.
    progress : callable, optional
        Called as ``progress(nodes_expanded, describe)``; see :class:`ProgressLog`.

    Returns
    -------
    RuleListResult
        ``status="optimal"`` certifies ``objective`` is the minimum; with ``"limit"``,
        ``lower_bound <= minimum <= objective``.

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
    >>> data = BinaryDataset.from_bits(["a", "b"], [[1, 1, 0, 0], [0, 1, 1, 0]], [1, 1, 0, 0])
    >>> result = fit_rule_list(data, "1/10")
    >>> result.objective, result.status
    (Fraction(1, 10), 'optimal')
    """
    if not isinstance(dataset, BinaryDataset):
        raise TypeError(f"The 'dataset' parameter of fit_rule_list must be a BinaryDataset. "
                        f"Got {type(dataset).__name__} instead.")
    lam_ = parse_fraction("lam", lam, low=0, high=1, function="fit_rule_list")
    engine_module = ENGINES[_choice("engine", engine, ENGINES)]
    disabled = set(disabled_bounds) if not isinstance(disabled_bounds, str) else {disabled_bounds}
    unknown = disabled - set(BOUNDS)
    if unknown:
        raise ValueError(f"The 'disabled_bounds' parameter of fit_rule_list names unknown "
                         f"bounds {sorted(unknown)}; valid names are {list(BOUNDS)}.")
    config = SearchConfig(policy=_choice("policy", policy, POLICIES),
                          symmetry_map=_choice("symmetry_map", symmetry_map, SYMMETRY_MAPS),
                          bounds=frozenset(BOUNDS) - disabled,
                          max_nodes=_limit("max_nodes", max_nodes, numbers.Integral),
                          max_queue=_limit("max_queue", max_queue, numbers.Integral),
                          time_limit=_limit("time_limit", time_limit, numbers.Real),
                          progress=progress)
    if "equivalent_points" in config.bounds:
        dataset = _with_sound_minority(dataset)
    return importlib.import_module(engine_module).corels(dataset, lam_, config)


def _with_sound_minority(dataset):
    if dataset.minority is None:
        return dataset.with_minority(minority_bits(dataset))
    check_minority(dataset, bitset.unpack(dataset.minority, dataset.n_samples))
    return dataset
