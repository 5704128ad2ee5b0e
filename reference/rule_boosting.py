"""Optimal and greedy base learners for gradient rule boosting, readable reference.

The optimal learner is Algorithm 1 of Boley et al. (2021): best-bound-first branch-and-bound
over core queries (§3.2, prefix preservation (3.6)) with the tight bound of Thm 3.1 (applied to
groups of samples that no query below a node can separate: ``grouped_bound``, never looser,
specs/rule-boosting.md §3), OPUS propagation of bounds and of critical indices (Thm 3.2,
(3.7)/(3.8)), an approximation factor α, and post-processing to an approximately shortest
equivalent query. The greedy learner is the
baseline of §4: add the proposition that most increases obj until none does.

Names follow the paper: a query q is a tuple of proposition indices in increasing order,
``tail`` is tail(q), an augmentation element is ``(a, b, c)`` = (augmentation index, bound,
critical index), ``best`` is obj(q*). Everything is exact: the problem holds integer-scaled g, h
and λ (:class:`optrules.gradient_problem.GradientProblem`), so the scaled objective
G^2 / D is compared by integer cross-multiplication.

References
----------
.. [1] M. Boley, S. Teshuva, P. Le Bodic, G. I. Webb. "Better short than greedy: interpretable
   models through optimal rule boosting." SIAM International Conference on Data Mining (SDM),
   2021. (Eq. 2.2-2.3, Thm 3.1, Thm 3.2, Algorithm 1, §4.)
.. [2] T. Uno, T. Asai, Y. Uchida, H. Arimura. "An efficient algorithm for enumerating closed
   patterns in transaction databases." Discovery Science, 2004. (Core queries.)
"""

import functools
import heapq
import itertools
import time
from fractions import Fraction

import numpy as np

from optrules.data import bitset
from optrules.rule_boosting.model import RuleSearchResult
from optrules.rule_boosting.search_certificate import RULE_CODES

__all__ = ["optimal_rule", "greedy_rule", "tight_bound", "grouped_bound", "queue_key",
           "result_order"]

_PRUNE_KINDS = ("bound_immediate", "bound_propagated", "equivalence_immediate",
                "equivalence_propagated", "depth_limited")


class _RankedData:
    """The samples sorted once by g/h, descending (Alg. 1 line 1), with extents over ranks."""

    def __init__(self, problem):
        order = sorted(range(problem.n_samples),
                       key=lambda i: (-Fraction(problem.g[i], problem.h[i]), i))
        rank = np.empty(problem.n_samples, dtype=np.int64)
        rank[order] = np.arange(problem.n_samples)
        self.g = [problem.g[i] for i in order]
        self.h = [problem.h[i] for i in order]
        self.lam = problem.lam
        self.order = order
        self.extents = [_to_ranks(extent, rank) for extent in problem.extents]
        # Each sample's propositions as one int (bit j: it lies in I(p_j)): the grouped bound
        # groups samples by the bits of the propositions a node's subtree can add.
        self.row_keys = [0] * problem.n_samples
        for j, extent in enumerate(self.extents):
            for r in bitset.int_members(extent):
                self.row_keys[r] |= 1 << j

    def sums(self, extent):
        members = bitset.int_members(extent)
        return sum(self.g[r] for r in members), self.lam + sum(self.h[r] for r in members)

    def objective(self, extent):
        """Scaled obj(I) = G^2 / D as a Fraction (2n·S times eq. 2.3)."""
        total_g, total_d = self.sums(extent)
        return Fraction(total_g * total_g, total_d) if total_d else Fraction(0)

    def to_samples(self, extent):
        return bitset.int_from_members([self.order[r] for r in bitset.int_members(extent)],
                                       len(self.order))


def _to_ranks(extent, rank):
    return bitset.int_from_members(rank[bitset.int_members(extent)], len(rank))


def tight_bound(g, h, lam, members):
    """Thm 3.1: bnd(I) = max over J ⊆ I of G_J^2 / (λ + H_J), in O(|I|).

    ``members`` lists I in order of decreasing g/h; the optimum is a prefix of the samples
    with g > 0 (3.4) or a suffix of the samples with g < 0 (3.5). Returns (G^2, D) of the best
    subset as a Fraction G^2/D (0 for the empty subset).
    """
    best_num, best_den = 0, 1
    for sequence in (members, members[::-1]):     # prefixes (3.4), then suffixes (3.5)
        total_g, total_d = 0, lam
        for r in sequence:
            if (g[r] > 0) != (sequence is members) or g[r] == 0:
                break                             # only g > 0 in a prefix, g < 0 in a suffix
            total_g += g[r]
            total_d += h[r]
            if total_g * total_g * best_den > best_num * total_d:
                best_num, best_den = total_g * total_g, total_d
    return Fraction(best_num, best_den)


def grouped_bound(data, extent, usable):
    """Thm 3.1 over groups (specs/rule-boosting.md §3): the bound of ``extent`` for the
    queries that add to it only propositions in ``usable`` (a bitmask: bit j for p_j).

    Their extents within ``extent`` are unions of groups of samples that agree on every
    proposition in ``usable``. Thm 3.1 holds for any items with h > 0, so applied to the
    groups (summed g and h, in order of decreasing G/H) it bounds them too; it is never above
    the bound over single samples, nor above the bound for a larger ``usable``.
    """
    groups = {}
    for r in bitset.int_members(extent):
        key = data.row_keys[r] & usable
        total_g, total_h = groups.get(key, (0, 0))
        groups[key] = (total_g + data.g[r], total_h + data.h[r])
    # G/H descending by integer cross-multiplication (H > 0); ties keep first-sample order
    items = sorted(groups.values(), key=functools.cmp_to_key(
        lambda x, y: x[1] * y[0] - x[0] * y[1]))
    return tight_bound([g for g, _ in items], [h for _, h in items], data.lam,
                       list(range(len(items))))


def result_order(query):
    """The key of the result order among queries of equal obj (specs §10): fewer
    propositions first, then the smaller indices (lexicographic)."""
    return len(query), query


#: Bits of a bound's binary mantissa in its :func:`queue_key`, after the leading one.
KEY_BITS = 20
#: The key of a zero bound, below every other key.
ZERO_KEY = -(1 << 62)


def queue_key(value):
    """The boundary's order key of a bound ``value`` (a Fraction >= 0; specs §5).

    The binary exponent e (2**e <= value < 2**(e+1)) and the first :data:`KEY_BITS` bits of
    the mantissa after the leading one, as the integer
    e·2**(KEY_BITS+1) + ⌊value·2**(KEY_BITS−e)⌋: monotone in the value and equal for values
    within a factor 1 + 2**-KEY_BITS. Exactly equal bounds get equal keys and leave the queue
    in insertion order, and so do nearly equal ones, which the fast engine can then order
    without exact arithmetic.

    >>> queue_key(Fraction(1)) == 2 ** 20, queue_key(Fraction(3, 2)) == 2 ** 20 + 2 ** 19
    (True, True)
    """
    if value <= 0:
        return ZERO_KEY
    p, q = value.numerator, value.denominator
    e = p.bit_length() - q.bit_length()              # e or e + 1 is the exponent
    if (p << max(-e, 0)) < (q << max(e, 0)):
        e -= 1
    shift = KEY_BITS - e
    mantissa = (p << shift) // q if shift >= 0 else p // (q << -shift)
    return (e << (KEY_BITS + 1)) + mantissa


def _implies(extent, proposition_extent):
    """q → p: I(q) ⊆ I(p)."""
    return extent & ~proposition_extent == 0


def _critical_index(data, extent, child_extent, a):
    """crt(q p_a) = min{j : q p_a → p_j and q ↛ p_j} (<= a; equal to a iff (3.6) holds)."""
    for j in range(a):
        if _implies(child_extent, data.extents[j]) and not _implies(extent, data.extents[j]):
            return j
    return a


def optimal_rule(problem, config):
    """Algorithm 1: a query maximising obj (eq. 2.3), with its certificate.

    Parameters
    ----------
    problem : GradientProblem
    config : optrules.rule_boosting.fit.BaseLearnerConfig
        ``alpha`` (Fraction in (0, 1]), ``max_depth`` (None or int), ``bound_pruning`` and
        ``equivalence_pruning`` switches, ``max_nodes`` and the ``budget``
        (:class:`optrules.limits.Budget`: time, memory cap, interrupts), asked once per node.

    Returns
    -------
    RuleSearchResult
        obj(q*) = max obj when ``status`` is "optimal" (α = 1); obj(q*) >= α·max obj when it
        is "approximate" (α < 1); when a limit stopped the search, ``status`` says which
        ("node-limit" or a key of :data:`optrules.limits.STOP_STATUSES`) and
        obj(q*) >= ``guarantee``·max obj.

    Notes
    -----
    A node's bound is ``grouped_bound`` over the propositions its expansion can evaluate,
    tighter than the augmentation bound its parent hands on (specs §3). The boundary pops the
    largest :func:`queue_key` of the node bound first, ties by insertion order. Among queries
    of equal obj, q* is the first in :func:`result_order` that the search visits, whatever
    its order (a bound equal to obj(q*)/α prunes only queries that come after q*), so the
    result is deterministic, also across processes (specs §10). With ``max_depth`` set,
    core-query condensation is switched off (a core query can be longer than an equivalent
    short query) while augmentations implied by the query (q → p_a) are still skipped, and the
    result is optimal over all conjunctions of at most
    ``max_depth`` propositions.
    """
    start = time.perf_counter()
    data = _RankedData(problem)
    alpha = config.alpha
    # q → p_a (the child has q's extent) is dominated by q at any depth; core-query
    # condensation (3.6)-(3.8) is not, since a core query can be longer than a short
    # equivalent query, so a depth limit switches only the latter off.
    use_implied = config.equivalence_pruning
    use_core_queries = config.equivalence_pruning and config.max_depth is None
    statistics = dict.fromkeys(("nodes", "evaluations") + _PRUNE_KINDS, 0)
    everything = (1 << problem.n_samples) - 1
    best_query, best_extent = (), everything                  # Alg. 1 line 3: q* = ⊤
    best = data.objective(everything)
    sequence = itertools.count()

    def key(bound):
        return queue_key(bound / problem.scale)

    def worth(bound, origin):
        """The bound test of line 9, with α and the result order's ties (specs §10): a bound
        computed on the extent of the query ``origin`` passes if it is above obj(q*)/α, or
        equal and ``origin`` comes before q* (only queries that contain ``origin`` lie below
        it, and none of them comes before it)."""
        if not config.bound_pruning or bound is None:
            return True
        scaled = alpha * bound
        return best < scaled or best == scaled and \
            result_order(origin) < result_order(best_query)

    def push(bound, query, extent, augmentations, usable):
        heapq.heappush(boundary, (-key(bound), next(sequence), bound, query, extent,
                                  augmentations, usable))

    def usable_below(augmentations, parent, tail):
        """The propositions that queries below a node with tail ``tail`` and list
        ``augmentations``, made at the node's parent ``parent``, may add: those the node's
        expansion can evaluate (specs §3)."""
        return sum(1 << a for a, b, c in augmentations
                   if a > tail and not (use_core_queries and tail > c) and
                   worth(b, parent + (a,)))

    trace = config.certificate          # the search certificate's writer, or None
    boundary = []
    augmentations = [(i, None, i) for i in range(len(problem.extents))]  # line 4: b = ∞
    usable = usable_below(augmentations, (), -1)
    push(grouped_bound(data, everything, usable), (), everything, augmentations,
         usable)                                                          # line 5
    stop = None                                               # the stop status, if any
    while boundary:                                           # line 6
        stop = "node-limit" if config.max_nodes is not None and \
            statistics["nodes"] >= config.max_nodes else config.budget.stop_reason()
        if stop is not None:
            break
        negative_key, _, bound, query, extent, augmentations, usable = \
            heapq.heappop(boundary)                           # line 7
        if not worth(bound, query):
            statistics["bound_immediate"] += 1
            dropped = [(query, usable, bound)]
            if -negative_key < key(best / alpha):   # every key left is as low: all fail
                statistics["bound_immediate"] += len(boundary)
                dropped += [(entry[3], entry[6], entry[2]) for entry in boundary]
                boundary.clear()
            if trace is not None:
                for dropped_query, dropped_usable, dropped_bound in dropped:
                    trace.dropped(dropped_query, dropped_usable, dropped_bound)
            continue
        tail = query[-1] if query else -1
        statistics["nodes"] += 1
        note = _Notes(trace, len(problem.extents))
        refined = []                                          # line 8: A' = ∅
        for a, b, c in augmentations:                         # line 9
            if a <= tail:
                continue                                      # not a tail augmentation
            if use_core_queries and tail > c:                 # (3.8): no core refinements
                statistics["equivalence_propagated"] += 1
                note(a, "core-propagated", witness=c)
                continue
            if not worth(b, query[:-1] + (a,)):               # obj(q*) >= α·b
                statistics["bound_propagated"] += 1
                note(a, "bound-propagated")
                continue
            if use_implied and _implies(extent, data.extents[a]):
                statistics["equivalence_immediate"] += 1      # q → p_a: same extent
                note(a, "implied")
                continue
            statistics["evaluations"] += 1
            child_extent = extent & data.extents[a]           # line 10: I_a = I ∩ I(p_a)
            value = data.objective(child_extent)
            if value > best or value == best and \
                    result_order(query + (a,)) < result_order(best_query):   # line 11
                best, best_query, best_extent = value, query + (a,), child_extent
            child_bound = grouped_bound(data, child_extent, usable)  # line 12: Thm 3.1
            if not use_core_queries:
                critical = a
            elif c < a and not _implies(extent, data.extents[c]):
                critical = c                                  # line 13, (3.7)
            else:
                critical = _critical_index(data, extent, child_extent, a)
            refined.append((a, child_bound, critical, child_extent))  # line 14
        children = [(a, b, c) for a, b, c, _ in refined]
        for a, b, c, child_extent in refined:                 # line 15
            if a != c:
                statistics["equivalence_immediate"] += 1      # not a core query (3.6)
                note(a, "not-core", witness=c)
            elif config.max_depth is not None and len(query) + 1 >= config.max_depth:
                statistics["depth_limited"] += 1
            elif not worth(b, query + (a,)):
                statistics["bound_immediate"] += 1
                note(a, "child-bound")
            else:      # line 16, with the child's own bound (specs §3)
                below = usable_below(children, query, a)
                own = grouped_bound(data, child_extent, below)
                if worth(own, query + (a,)):
                    push(own, query + (a,), child_extent, children, below)
                    note(a, "queued")
                else:
                    statistics["bound_immediate"] += 1
                    note(a, "own-bound", usable=below)
        if trace is not None:
            trace.expanded(query, usable, bound, note.codes, note.witnesses, note.own)
        if config.progress is not None:
            config.progress(statistics["nodes"], lambda: _progress_figures(
                problem, best, boundary, len(boundary)))
    # §3.2 end: a stopped search is bounded by its open boundary as well
    upper = best / alpha if stop is None else max(
        [best / alpha] + [entry[2] for entry in boundary])
    status = stop or ("optimal" if alpha == 1 else "approximate")
    shortest = shortest_equivalent_query(data, best_extent, best_query)   # line 17
    return _result(problem, data, shortest, best_extent, best, upper, status, statistics,
                   time.perf_counter() - start)


class _Notes:
    """The search certificate's codes (``RULE_CODES``) of one expansion's propositions, with
    the witnesses of equivalence prunes and the usable propositions of own-bound prunes; a
    no-op without a certificate."""

    def __init__(self, trace, n_propositions):
        self.active = trace is not None
        if self.active:
            self.codes = bytearray(RULE_CODES["not-augmentation"] * n_propositions, "ascii")
            self.witnesses, self.own = {}, {}

    def __call__(self, a, reason, witness=None, usable=None):
        if self.active:
            self.codes[a] = ord(RULE_CODES[reason])
            if witness is not None:
                self.witnesses[a] = witness
            if usable is not None:
                self.own[a] = usable


def _progress_figures(problem, best, boundary, size):
    """What a progress line shows: obj(q*), the largest open bound (eq. 2.3 units, as floats)
    and the boundary's size."""
    unit = 2 * problem.n_samples * problem.scale
    bound = max([best] + [entry[2] for entry in boundary[:1]])
    return {"objective": float(best / unit), "upper_bound": float(bound / unit),
            "boundary": size}


def shortest_equivalent_query(data, extent, query):
    """Greedy approximately shortest query with the same extent (§3.2; line 17).

    Among propositions implied by the extent, repeatedly add the one excluding the most samples
    not in the extent (ties: lowest index) until the extents agree. Returns the cover's indices
    ascending, or ``query`` itself if the cover is longer.
    """
    current, chosen = (1 << len(data.g)) - 1, []
    candidates = [j for j, p in enumerate(data.extents) if _implies(extent, p)]
    while current != extent:
        j = max(candidates, key=lambda k: ((current & ~data.extents[k]).bit_count(), -k))
        chosen.append(j)
        current &= data.extents[j]
    return tuple(sorted(chosen)) if len(chosen) <= len(query) else tuple(query)


def greedy_rule(problem, config):
    """§4 baseline: from ⊤, add the proposition that most increases obj; stop when none does.

    Ties go to the lowest proposition index; the result is then shortened like Algorithm 1's.
    It proves nothing: its status is "heuristic" and it has no upper bound. ``max_depth`` is
    honoured and the ``budget`` is asked before each round (a stop keeps the query so far, with
    the stop status); ``alpha`` and ``max_nodes`` do not apply.
    """
    return greedy_search(problem, config, lambda data: _greedy_step)


def _greedy_step(data, query, extent, value):
    """One round of §4: (obj, a) of the proposition a ∉ q of largest obj(q ∪ {p_a}) above
    ``value``, the lowest index on a tie; (``value``, None) if none is above it."""
    step = None
    for a, proposition in enumerate(data.extents):
        if a in query:
            continue
        candidate = data.objective(extent & proposition)
        if candidate > value:
            value, step = candidate, a
    return value, step


def greedy_search(problem, config, step_for):
    """The loop of :func:`greedy_rule`, each round's choice made by ``step_for(data)``, a
    function like :func:`_greedy_step` (``data`` is the problem's :class:`_RankedData`); an
    engine supplies its own way of making that same choice."""
    start = time.perf_counter()
    data = _RankedData(problem)
    greedy_step = step_for(data)
    query, extent = (), (1 << problem.n_samples) - 1
    value = data.objective(extent)
    statistics = dict.fromkeys(("nodes", "evaluations") + _PRUNE_KINDS, 0)
    stop = None
    while config.max_depth is None or len(query) < config.max_depth:
        stop = config.budget.stop_reason()
        if stop is not None:
            break
        statistics["nodes"] += 1
        statistics["evaluations"] += len(data.extents) - len(query)
        value, step = greedy_step(data, query, extent, value)
        if step is None:
            break
        query, extent = tuple(sorted(query + (step,))), extent & data.extents[step]
    shortest = shortest_equivalent_query(data, extent, query)
    return _result(problem, data, shortest, extent, value, None, stop or "heuristic",
                   statistics, time.perf_counter() - start)


def _result(problem, data, query, extent, scaled_objective, scaled_upper, status, statistics,
            seconds):
    """Convert scaled values to eq. 2.3's units and package the result."""
    unit = 2 * problem.n_samples * problem.scale
    sample_extent = data.to_samples(extent)
    objective = scaled_objective / unit
    upper = None if scaled_upper is None else scaled_upper / unit
    return RuleSearchResult(
        query=query, conditions=tuple(problem.names[j] for j in query), objective=objective,
        weight=problem.weight(sample_extent), coverage=sample_extent.bit_count(),
        extent=sample_extent, upper_bound=upper, status=status,
        statistics=statistics, seconds=seconds)
