"""Checker of boosting-rule search certificates (Algorithm 1 of Boley et al. 2021): replay the
search's records on the data, trusting nothing else (specs/certificates.md §5).

The claim: the model's query q* re-scores to obj*, and no conjunction T has obj(T) > U =
obj*/α. Notation: I(T) the extent; a query's list L (its parent's evaluated propositions; all
at the root) and its usable set V ⊆ L after its tail (stated); bnd(E; V) Thm 3.1 over the
samples of E grouped by their membership in V (it bounds obj(E') for every E' that is E
intersected with propositions of V). Each record is checked exactly:

* expanded q: V ⊆ L after tail(q); the stated bound is bnd(I(q); V); obj(q) <= U; one code per
  proposition, "-" exactly off L after tail(q); the evaluated codes (n, B, O, Q) lie in V, and:
  ``3`` witness w < tail(q), w ∉ q, q ↛ p_w, I(q) ∩ I(p_a) ⊆ I(p_w); ``b`` bnd(I(parent) ∩
  I(p_a); V(parent)) <= U; ``i`` I(q) ⊆ I(p_a); and for the child c = q + a: obj(c) <= U, and
  ``n`` witness w < a, w ∉ q, q ↛ p_w, I(c) ⊆ I(p_w); ``B`` bnd(I(c); V) <= U; ``O`` its
  stated V_c ⊆ the evaluated after a, bnd(I(c); V_c) <= U, every other evaluated x after a
  excluded (below); ``Q`` a record of c follows.
* dropped c: the stated bound bnd(I(c); V_c) <= U, V_c ⊆ L after tail, obj(c) <= U, every
  x of L after tail(c) outside V_c excluded: bnd(I(parent) ∩ I(p_x); V(parent)) <= U, or a
  witness w < tail(c), w ∉ parent, parent ↛ p_w, I(parent) ∩ I(p_x) ⊆ I(p_w).

Why this proves the claim: take the lexicographically first conjunction T (as a sorted tuple)
with obj(T) > U and walk it down from the root; at a query q, drop from T the propositions
coded ``i`` (the extent stays). A ``3``, ``n`` or excluded-by-witness element gives T ∪ {w},
with the same extent and before T (w ∉ T: T's elements below it are q's or were dropped as
``i``, so implied by q, while w ∉ q and q ↛ p_w); a ``b``, ``B``, ``O``, excluded-by-bound
element or a dropped query bounds T (the rest of T lies in the set the bound groups by: lists
and usable sets nest, and the evaluated propositions lie in V); otherwise T's smallest
remaining element is ``Q``: go down; an exhausted T is a checked query. Every case contradicts
obj(T) > U.
"""

import math
from fractions import Fraction

import numpy as np

from optrules.validation import fraction_from_text

from .certificate_replay import Rejected, Replay, replay_file

__all__ = ["check_rule_search_certificate"]

HEADER_FIELDS = ("format", "version", "kind", "instance_sha256", "lambda", "claimed_objective",
                 "alpha", "model", "engine")
CODES = set("-3binBOQ")
#: Bounds remembered at most (then forgotten all at once): bounded memory.
_REMEMBERED = 1 << 16


def check_rule_search_certificate(path, instance):
    """Replay the boosting-rule search certificate at ``path`` on ``instance`` (a
    :class:`~optrules.verify.instances.RuleInstance`).

    Returns
    -------
    CheckReport
        ``accepted`` only if the file is complete, its claim re-scores exactly, and every
        record holds on the data; else the first failing line and why.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from optrules.rule_boosting.fit import fit_rule
    >>> from optrules.rule_boosting.gradient_problem import GradientProblem
    >>> from optrules.verify import RuleInstance
    >>> problem = GradientProblem.from_values([[1, 1, 0, 0], [0, 1, 1, 0]], ["p0", "p1"],
    ...                                       [-1, -1, 1, 1], [1, 1, 1, 1], 1)
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "rule.jsonl"
    >>> _ = fit_rule(problem, certificate=path)
    >>> check_rule_search_certificate(path, RuleInstance.from_problem(problem)).accepted
    True
    """
    return replay_file(path, _RuleReplay(instance))


def _by_ratio(groups, descending):
    """(G, H) pairs (H > 0) sorted by G/H exactly: by the correctly rounded quotient (monotone in
    the exact one; ±inf beyond the float range), then runs of equal quotients by the exact
    fraction."""
    keyed = sorted(((_quotient(g, h), g, h) for g, h in groups), reverse=descending)
    ordered, start = [], 0
    for end in range(1, len(keyed) + 1):
        if end == len(keyed) or keyed[end][0] != keyed[start][0]:
            run = keyed[start:end]
            if len(run) > 1:
                run.sort(key=lambda t: Fraction(t[1], t[2]), reverse=descending)
            ordered += [(g, h) for _, g, h in run]
            start = end
    return ordered


def _quotient(g, h):
    """g/h (h > 0) correctly rounded, or ±inf where no float holds it."""
    try:
        return g / h
    except OverflowError:
        return math.inf if g > 0 else -math.inf


def _members(extent):
    """The set bits of a Python-int bitset, ascending."""
    bits = bin(extent)[:1:-1]
    return [i for i, bit in enumerate(bits) if bit == "1"]


class _RuleReplay(Replay):
    """The checker's state (see the module docstring). Extents and proposition sets are
    Python-int bitmasks; g, h, λ are scaled by one common denominator to integers."""

    kind, header_fields = "rule", HEADER_FIELDS

    def __init__(self, instance):
        super().__init__(instance)
        # Python integers (numpy's gcd overflows on float values' denominators, up to 2**1074)
        scale = math.lcm(*(value.denominator for value in
                           list(instance.g) + list(instance.h) + [instance.lam]))
        self.g = [int(v * scale) for v in instance.g]
        self.h = [int(v * scale) for v in instance.h]
        self.lam = int(instance.lam * scale)
        self.n = instance.n_samples
        self.unit = 2 * self.n * scale       # eq. 2.3 = (G²/D) / unit
        self.d = len(instance.extents)
        self.extents = [sum(1 << i for i in np.flatnonzero(row).tolist())
                        for row in instance.extents]
        self.keys = [sum(1 << j for j in range(self.d) if self.extents[j] >> i & 1)
                     for i in range(self.n)]
        self.everything = (1 << self.n) - 1
        self.expanded_count = 0
        self.bounds = {}             # (extent, usable) -> bound
        self.pending = {}            # queued query -> its list (a mask)
        self.done = set()            # queries with their record
        self.expanded = {}           # query -> (extent, usable, evaluated)

    # ----- exact figures ---------------------------------------------------------------------
    def extent(self, query):
        extent = self.everything
        for j in query:
            extent &= self.extents[j]
        return extent

    def objective(self, extent):
        """obj(E) as a Fraction in eq. 2.3 units."""
        members = _members(extent)
        total_g = sum(self.g[i] for i in members)
        total_d = self.lam + sum(self.h[i] for i in members)
        return Fraction(total_g * total_g, total_d * self.unit) if total_d else Fraction(0)

    def bound(self, extent, usable):
        """Thm 3.1 over the samples of ``extent`` grouped by membership in ``usable``: the
        best prefix of the groups with G > 0, by G/H descending, or of those with G < 0, by
        G/H ascending (eq. 2.3 units). Remembered: a query's children's bounds come back as
        its grandchildren's propagated bounds."""
        key = (extent, usable)
        if key not in self.bounds:
            if len(self.bounds) >= _REMEMBERED:
                self.bounds.clear()
            self.bounds[key] = self._bound(extent, usable)
        return self.bounds[key]

    def _bound(self, extent, usable):
        groups = {}
        for i in _members(extent):
            key = self.keys[i] & usable
            total_g, total_h = groups.get(key, (0, 0))
            groups[key] = (total_g + self.g[i], total_h + self.h[i])
        best_num, best_den = 0, 1
        for sign in (1, -1):
            side = _by_ratio([(g, h) for g, h in groups.values() if g * sign > 0], sign > 0)
            total_g, total_d = 0, self.lam
            for g, h in side:
                total_g, total_d = total_g + g, total_d + h
                if total_g * total_g * best_den > best_num * total_d:
                    best_num, best_den = total_g * total_g, total_d
        return Fraction(best_num, best_den * self.unit)

    def _mask(self, text, where):
        if not isinstance(text, str) or not text or any(c not in "0123456789abcdef"
                                                         for c in text):
            raise Rejected(f"{where} is not a hexadecimal set of propositions")
        mask = int(text, 16)
        if mask >> self.d:
            raise Rejected(f"{where} names propositions beyond the {self.d} there are")
        return mask

    def _query(self, value, where):
        if not isinstance(value, list) or not all(
                isinstance(j, int) and not isinstance(j, bool) and 0 <= j < self.d
                for j in value) or value != sorted(set(value)):
            raise Rejected(f"{where} is not an increasing list of proposition indices")
        return tuple(value)

    def _after(self, tail):
        return ((1 << self.d) - 1) & ~((1 << (tail + 1)) - 1)

    def _bounded(self, value, what):
        if value > self.ceiling:
            raise Rejected(f"{what} is {value}, above the claim's {self.ceiling}")

    # ----- records ---------------------------------------------------------------------------
    def take_record(self, record, number):
        if set(record) <= {"expanded", "usable", "bound", "codes", "witnesses", "own"} and \
                {"expanded", "usable", "bound", "codes"} <= set(record):
            return self._take_expanded(record)
        if set(record) == {"dropped", "usable", "bound"}:
            return self._take_dropped(record)
        raise Rejected(f"unknown record with fields {sorted(record)}")

    def take_header(self, header):
        claimed = fraction_from_text(header["claimed_objective"], "claimed_objective")
        alpha = fraction_from_text(header["alpha"], "alpha")
        if not 0 < alpha <= 1:
            raise Rejected("alpha is not in (0, 1]")
        model = header["model"]
        query = self._query(model.get("query") if isinstance(model, dict) else None,
                            "model.query")
        if self.objective(self.extent(query)) != claimed:
            raise Rejected(f"the model re-scores to {self.objective(self.extent(query))}, "
                            f"not the claimed {header['claimed_objective']}")
        self.ceiling = claimed / alpha

    def summary(self):
        return (f"{self.expanded_count} expanded queries, "
                f"{self.records - self.expanded_count} dropped; every conjunction has obj <= "
                f"{self.ceiling}")

    def _stated(self, record, value):
        try:
            stated = fraction_from_text(record["bound"], "bound")
        except (TypeError, ValueError) as error:
            raise Rejected(str(error)) from None
        if stated != value:
            raise Rejected(f"the stated bound {record['bound']} is not the recomputed {value}")

    def _list(self, query):
        """The list of a query that a record may name: the root's (every proposition), or
        that of a queued child."""
        if query in self.done:
            raise Rejected(f"query {list(query)} has a second record")
        if query:
            if query not in self.pending:
                raise Rejected(f"query {list(query)} was not queued by its parent")
            return self.pending.pop(query)
        return (1 << self.d) - 1

    def _take_expanded(self, record):
        query = self._query(record["expanded"], "expanded")
        listed = self._list(query)
        self.done.add(query)
        self.expanded_count += 1
        tail = query[-1] if query else -1
        live = listed & self._after(tail)
        usable = self._mask(record["usable"], "usable")
        if usable & ~live:
            raise Rejected("usable names propositions outside the query's list")
        extent = self.extent(query)
        self._stated(record, self.bound(extent, usable))
        self._bounded(self.objective(extent), f"obj of {list(query)}")
        codes = record["codes"]
        if not isinstance(codes, str) or len(codes) != self.d or not set(codes) <= CODES:
            raise Rejected("codes is not one code per proposition")
        if any((code == "-") == bool(live >> a & 1) for a, code in enumerate(codes)):
            raise Rejected("the propositions coded '-' are not those off the query's list")
        evaluated = sum(1 << a for a, code in enumerate(codes) if code in "nBOQ")
        if evaluated & ~usable:
            raise Rejected("an evaluated proposition is not usable")
        witnesses, own = record.get("witnesses", {}), record.get("own", {})
        if not isinstance(witnesses, dict) or sorted(witnesses) != sorted(
                str(a) for a, code in enumerate(codes) if code in "3n"):
            raise Rejected("witnesses are not one per proposition coded '3' or 'n'")
        if not isinstance(own, dict) or sorted(own) != sorted(
                str(a) for a, code in enumerate(codes) if code == "O"):
            raise Rejected("own is not one usable set per proposition coded 'O'")
        parent = self.expanded.get(query[:-1]) if query else None
        for a, code in enumerate(codes):
            if code == "-":
                continue
            where = f"proposition {a} of {list(query)}"
            inside = extent & self.extents[a]
            if code == "3":
                self._witness(witnesses[str(a)], query, extent, tail, inside, where)
            elif code == "b":
                if parent is None:
                    raise Rejected(f"{where}: the root has no propagated bounds")
                self._bounded(self.bound(parent[0] & self.extents[a], parent[1]),
                              f"the propagated bound of {where}")
            elif code == "i":
                if extent & ~self.extents[a]:
                    raise Rejected(f"{where} is not implied by the query")
            else:
                self._bounded(self.objective(inside), f"obj of the child {where}")
                if code == "n":
                    self._witness(witnesses[str(a)], query, extent, a, inside, where)
                elif code == "B":
                    self._bounded(self.bound(inside, usable), f"the bound of the child {where}")
                elif code == "O":
                    below = self._mask(own[str(a)], f"own of {where}")
                    after = evaluated & self._after(a)
                    if below & ~after:
                        raise Rejected(f"own of {where} names unevaluated propositions")
                    self._bounded(self.bound(inside, below), f"the own bound of {where}")
                    self._excluded(after & ~below, query, extent, usable, a, where)
                else:
                    self.pending[query + (a,)] = evaluated
        self.expanded[query] = (extent, usable, evaluated)

    def _witness(self, witness, query, extent, limit, inside, where):
        """w < ``limit``, w ∉ ``query``, ``extent`` = I(q) ⊄ I(p_w) and ``inside`` ⊆ I(p_w)."""
        if not isinstance(witness, int) or isinstance(witness, bool) or \
                not 0 <= witness < limit or witness in query or \
                not extent & ~self.extents[witness] or inside & ~self.extents[witness]:
            raise Rejected(f"{where}: witness {witness!r} does not hold")

    def _excluded(self, excluded, query, extent, usable, limit, where):
        """Each proposition x of ``excluded`` (a mask), a sibling of the query's child at
        ``limit``, is bounded from the query, bnd(I(q) ∩ I(p_x); V(q)) <= U, or has a witness
        w < ``limit``, w ∉ q, with I(q) ∩ I(p_x) ⊆ I(p_w)."""
        for x in (j for j in range(self.d) if excluded >> j & 1):
            inside = extent & self.extents[x]
            if self.bound(inside, usable) <= self.ceiling:
                continue
            if not any(w not in query and extent & ~self.extents[w] and
                       not inside & ~self.extents[w] for w in range(limit)):
                raise Rejected(f"{where}: proposition {x} is left out of the usable set "
                                "without a bound or a witness")

    def _take_dropped(self, record):
        query = self._query(record["dropped"], "dropped")
        listed = self._list(query)
        self.done.add(query)
        tail = query[-1] if query else -1
        usable = self._mask(record["usable"], "usable")
        live = listed & self._after(tail)
        if usable & ~live:
            raise Rejected("usable names propositions outside the query's list")
        extent = self.extent(query)
        bound = self.bound(extent, usable)
        self._stated(record, bound)
        self._bounded(bound, f"the bound of the dropped query {list(query)}")
        self._bounded(self.objective(extent), f"obj of {list(query)}")
        if live & ~usable:
            if not query:
                raise Rejected("the root leaves propositions out of its usable set")
            parent = query[:-1]
            parent_extent, parent_usable, _ = self.expanded[parent]
            self._excluded(live & ~usable, parent, parent_extent, parent_usable, tail,
                           f"the dropped query {list(query)}")

    def finish_records(self):
        if () not in self.done:
            raise Rejected("the empty query is never expanded or dropped")
        if self.pending:
            query = min(self.pending)
            raise Rejected(f"query {list(query)} was queued but never expanded or dropped")
