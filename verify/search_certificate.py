"""Checker of rule-list search certificates: replay an engine's search record by record,
trusting nothing but the data (specs/certificates.md).

A search certificate claims: the model re-scores to R*, and no rule list has R < R*. The checker
re-scores the model, then proves the second half by covering the search space with the records:
the empty prefix is expanded (or dropped); every child of an expanded prefix is expanded,
pruned (its code names a bound this module recomputes from the data), or queued and later
expanded or dropped (with a bound recomputed here); a prefix that was not evaluated is inside
a dropped one. Each
pruning is one of these arguments, for lists L with R(L) < R* (b: a prefix's own mistakes/W +
λK; b_0: the weight of its uncaptured equivalent-point minorities/W; R: its list's objective):

* ``h`` b + b_0 >= R*: every list starting with the prefix has R >= b + b_0 (Thm 1, 22).
* ``l`` b + b_0 + λ >= R* and R >= R*: the prefix's list is no better, longer ones pay λ more.
* ``k`` λ(K + 1) >= R* and R >= R*: a longer list pays more than R* for its rules (Thm 4).
* ``s``/``a``/``m`` the last rule captures weight <= λW, classifies <= λW correctly, or
  leaves <= λW uncaptured (Thms 10-12): deleting that rule (or every rule after it) gives a
  shorter list at least as good.
* ``y`` a witness prefix w leaves the same samples uncaptured, with (b(w), |w|, w) before
  (b, |p|, p): w followed by any rules is at least as good, and strictly before in that order.

Each argument maps a list with R < R* to another with R < R* that is smaller in the order
(R, length, antecedents), which is well founded; the coverage then leaves no such list.
Arithmetic is exact: integer units of 1/(q·W') (``integer_groups``), float64 products of 0/1
values and integers with sums below 2**53.
"""

from fractions import Fraction

import numpy as np

from optrules.rule_lists.model import RuleList
from optrules.validation import fraction_from_text

from .certificate_replay import CheckReport, Rejected, Replay, replay_file
from .oracle import InstanceTooLarge
from .rescore import miscounted_rules, rescore_rule_list
from .rule_list_encodings import integer_groups

__all__ = ["CheckReport", "check_search_certificate"]

HEADER_FIELDS = ("format", "version", "kind", "instance_sha256", "lambda", "claimed_objective",
                 "model", "engine", "symmetry_map", "bounds")
PRUNING_CODES = "hlksamy"
#: Expanded records checked together (their children's figures are one matrix product).
_BATCH = 512
#: The row of each child code in the table of conditions of ``_Replay._check_batch``.
_CODE_ROWS = np.zeros(256, dtype=np.intp)
_CODE_ROWS[np.frombuffer((PRUNING_CODES + "Q-?").encode(), np.uint8)] = np.arange(10)


def check_search_certificate(path, instance, classes):
    """Replay the search certificate at ``path`` on ``instance`` (a RuleListInstance) whose
    class indices stand for the values ``classes`` (the data's, in index order: the model must
    name the same classes, so that its predictions mean what its re-score counted).

    Returns
    -------
    CheckReport
        ``accepted`` only if the file is complete, its claim re-scores exactly, and every
        record holds on the data; else the first failing line and why.

    Examples
    --------
    >>> import numpy as np, tempfile, pathlib
    >>> from optrules.data.binary_dataset import BinaryDataset
    >>> from optrules.rule_lists import fit_rule_list
    >>> from optrules.verify import RuleListInstance
    >>> data = BinaryDataset.from_bits(["a", "b"], np.array([[1, 1, 0, 0], [0, 1, 1, 0]], bool),
    ...                                [1, 1, 0, 0])
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "search.jsonl"
    >>> _ = fit_rule_list(data, "1/10", certificate=path)
    >>> instance = RuleListInstance.from_dataset(data, "1/10")
    >>> check_search_certificate(path, instance, data.classes).accepted
    True
    """
    return replay_file(path, _Replay(instance, classes))


class _Replay(Replay):
    """The checker's state while it reads a certificate (see the module docstring)."""

    kind, header_fields = "rule-list", HEADER_FIELDS

    def __init__(self, instance, classes):
        super().__init__(instance)
        self.classes = list(classes)
        groups, total = integer_groups(instance)
        self.mistake, self.rule = instance.lam.denominator, instance.lam.numerator * total
        self.unit = self.mistake * total                 # objectives in units of 1/(qW')
        if total >= 1 << 53 or self.unit * (instance.n_antecedents + 2) >= 1 << 62:
            raise InstanceTooLarge("the search-certificate checker's exact range ends at a "
                                   "total weight of 2**53 and objectives of 2**62 units.")
        self.n_antecedents = instance.n_antecedents
        self.holds = np.array([vector for vector, _ in groups], dtype=bool).reshape(
            len(groups), self.n_antecedents).T                                  # (M, U)
        self.weights = np.array([w for _, w in groups], dtype=np.float64)       # (U, C)
        self.n_classes = self.weights.shape[1]
        minority = self.weights.sum(axis=1) - self.weights.max(axis=1, initial=0)
        # per group: class weights if antecedent m holds (U, M·C), then its minority (U, M)
        self.captured_weights = (self.holds.T[:, :, None] * self.weights[:, None, :]).reshape(
            len(groups), -1)
        self.minority = minority
        self.captured_minority = self.holds.T * minority[:, None]
        self.expanded_count = 0
        self.pending = set()       # queued or not-evaluated prefixes without a fate yet
        self.expanded, self.dropped, self.witnesses = set(), set(), set()
        # expanded records and symmetry witnesses whose numbers are checked in a batch
        self.batch, self.witness_pairs = [], []
        # (uncaptured groups, b) of the expanded prefixes: every prefix a record names is one
        # rule away from one of them
        self.known = {(): (np.ones(self.holds.shape[1], dtype=bool), 0)}

    # ----- figures of prefixes, from the data ------------------------------------------------
    def _mistakes(self, per_class):
        per_class = np.rint(per_class).astype(np.int64)
        return per_class.sum(axis=-1) - per_class.max(axis=-1, initial=0)

    def figures(self, prefix):
        """(uncaptured groups, b) of a prefix, b in units."""
        known = self.known.get(prefix)
        if known is not None:
            return known
        uncaptured, bound = self.figures(prefix[:-1])
        captured = uncaptured & self.holds[prefix[-1]]
        mistakes = int(self._mistakes(self.weights[captured].sum(axis=0)))
        return uncaptured & ~captured, bound + self.mistake * mistakes + self.rule

    def _rest(self, uncaptured):
        """(b_0, the default's mistakes) of the uncaptured groups, in units."""
        return (self.mistake * int(round(self.minority[uncaptured].sum())),
                self.mistake * int(self._mistakes(self.weights[uncaptured].sum(axis=0))))

    def _units(self, text, where):
        try:
            value = fraction_from_text(text, where) * self.unit
        except (TypeError, ValueError) as error:
            raise Rejected(str(error)) from None
        if value.denominator != 1 or not 0 <= value < 1 << 62:
            raise Rejected(f"{where} {text} is not an objective of this instance")
        return int(value)

    def _prefix(self, value, where):
        if not isinstance(value, list) or not all(
                isinstance(m, int) and not isinstance(m, bool) and 0 <= m < self.n_antecedents
                for m in value) or len(set(value)) != len(value):
            raise Rejected(f"{where} is not a list of distinct antecedent indices")
        return tuple(value)

    # ----- records ---------------------------------------------------------------------------
    def take_record(self, record, number):
        if set(record) in ({"expanded", "bound", "children"},
                           {"expanded", "bound", "children", "witnesses"}):
            return self._take_expanded(record, number)
        if set(record) in ({"dropped", "reason", "bound"},
                           {"dropped", "reason", "bound", "witness"}):
            return self._take_dropped(record, number)
        raise Rejected(f"unknown record with fields {sorted(record)}")

    def take_header(self, header):
        self.claim = self._units(header["claimed_objective"], "claimed_objective")
        self.claim_text = header["claimed_objective"]
        try:
            model = RuleList.from_dict(header["model"], "model")
            rescored = rescore_rule_list(self.instance, model, self.classes)
        except (TypeError, ValueError) as error:
            raise Rejected(f"the model does not fit the data: {error}") from None
        if list(model.classes) != self.classes:
            raise Rejected(f"the model's classes {list(model.classes)} are not the data's "
                           f"{self.classes}")
        if rescored.objective * self.unit != self.claim:
            raise Rejected(f"the model re-scores to {rescored.objective}, not the claimed "
                           f"{header['claimed_objective']}")
        wrong_counts = miscounted_rules(rescored, model)
        if wrong_counts:
            raise Rejected(f"the model's class counts of rule {wrong_counts[0]} are not the "
                           "class weights it captures on the data")

    def summary(self):
        return (f"{self.expanded_count} expanded prefixes, "
                f"{self.records - self.expanded_count} dropped; every list has R >= "
                f"{self.claim_text}")

    def _stated(self, record, bound):
        if self._units(record["bound"], "bound") != bound:
            raise Rejected(f"the stated bound {record['bound']} is not the prefix's "
                            f"b = {Fraction(bound, self.unit)}")

    def _take_expanded(self, record, number):
        """The structure of an expanded record now; its numbers in the next batch."""
        prefix = self._prefix(record["expanded"], "expanded")
        if prefix in self.expanded:
            raise Rejected(f"prefix {list(prefix)} is expanded twice")
        if prefix and prefix not in self.pending:
            raise Rejected(f"prefix {list(prefix)} was not queued by its parent")
        self.pending.discard(prefix)
        self.expanded.add(prefix)
        self.expanded_count += 1
        codes = record["children"]
        if not isinstance(codes, str) or len(codes) != self.n_antecedents or \
                not set(codes) <= set(PRUNING_CODES + "-Q?"):
            raise Rejected("children is not one code per antecedent")
        codes = np.frombuffer(codes.encode(), "S1")
        if np.flatnonzero(codes == b"-").tolist() != sorted(prefix):
            raise Rejected("the children marked '-' are not the prefix's antecedents")
        witnesses = record.get("witnesses", {})
        symmetric = np.flatnonzero(codes == b"y").tolist()
        if not isinstance(witnesses, dict) or sorted(witnesses) != sorted(map(str, symmetric)):
            raise Rejected("witnesses are not one per child coded 'y'")
        for s in symmetric:
            child = prefix + (s,)
            self.witness_pairs.append((number, child, self._witness(witnesses[str(s)], child)))
        for s in np.flatnonzero((codes == b"Q") | (codes == b"?")).tolist():
            self.pending.add(prefix + (s,))
        uncaptured, bound = self.known[prefix] = self.figures(prefix)
        self.batch.append((number, prefix, uncaptured, bound,
                           self._units(record["bound"], "bound"), codes))
        if len(self.batch) >= _BATCH:
            self.flush()

    def _witness(self, witness, prefix):
        witness = self._prefix(witness, f"the witness of {list(prefix)}")
        if not witness:
            raise Rejected(f"the empty prefix cannot be the witness of {list(prefix)}")
        self.witnesses.add(witness)
        return witness

    def flush(self):
        """The numbers of the batch of expanded records and witnesses: the first failing
        line (``Rejected`` with its ``line``), if any."""
        failures = []                                   # (line, message)
        if self.batch:
            failures += self._check_batch()
        if self.witness_pairs:
            failures += self._check_witnesses()
        self.batch, self.witness_pairs = [], []
        if failures:
            line, message = min(failures)
            raise Rejected(message, line)

    def _check_batch(self):
        numbers, prefixes, uncaptured, bounds, stated, codes = zip(*self.batch)
        mistake, rule, claim = self.mistake, self.rule, self.claim
        bounds, stated = np.array(bounds, dtype=np.int64), np.array(stated, dtype=np.int64)
        lengths = np.array([len(prefix) for prefix in prefixes])[:, None]
        left = np.array(uncaptured, dtype=np.float64)                          # (B, U)
        failures = [(numbers[i], f"the stated bound is not the prefix's b = "
                                 f"{Fraction(int(bounds[i]), self.unit)}")
                    for i in np.flatnonzero(stated != bounds)[:1]]
        totals = left @ self.weights                                           # (B, C)
        failures += [(numbers[i], f"the list of prefix {list(prefixes[i])} beats the claim")
                     for i in np.flatnonzero(bounds + mistake * self._mistakes(totals) <
                                             claim)[:1]]
        captured = (left @ self.captured_weights).reshape(len(left), self.n_antecedents,
                                                          self.n_classes)
        n_captured = np.rint(captured.sum(axis=2)).astype(np.int64)
        rule_mistakes = self._mistakes(captured)
        rest = totals[:, None, :] - captured
        n_rest = np.rint(rest.sum(axis=2)).astype(np.int64)
        child_bound = bounds[:, None] + mistake * rule_mistakes + rule
        child_minority = mistake * np.rint((left @ self.minority)[:, None] -
                                           left @ self.captured_minority).astype(np.int64)
        objective = child_bound + mistake * self._mistakes(rest)
        always = np.ones(child_bound.shape, dtype=bool)
        valid = np.array([                 # one table per code, in the order of _CODE_ROWS
            child_bound + child_minority >= claim,                                  # h
            (child_bound + child_minority + rule >= claim) & (objective >= claim),  # l
            (rule * (lengths + 2) >= claim) & (objective >= claim),                  # k
            mistake * n_captured <= rule,                                            # s
            mistake * (n_captured - rule_mistakes) <= rule,                          # a
            mistake * n_rest <= rule,                                                # m
            always,                                   # y: the witness is checked apart
            objective >= claim,                       # Q: its own list, evaluated
            always, always])                          # -, ?: checked elsewhere
        rows = _CODE_ROWS[np.array(codes).view(np.uint8)]
        record, child = np.nonzero(~np.take_along_axis(valid, rows[None], axis=0)[0])
        if len(record):
            i, s = record[0], child[0]
            failures.append((numbers[i], f"child {int(s)} of {list(prefixes[i])} fails its "
                                         f"code {codes[i][s].decode()!r}"))
        return failures

    def _check_witnesses(self):
        """Each witness w of a prefix p: the same uncaptured groups, and (b(w), |w|, w)
        before (b(p), |p|, p)."""
        numbers, prefixes, witnesses = zip(*self.witness_pairs)
        uncaptured, bounds = self._figures_of(prefixes)
        witness_uncaptured, witness_bounds = self._figures_of(witnesses)
        same = (uncaptured == witness_uncaptured).all(axis=1)
        before = (witness_bounds < bounds) | ((witness_bounds == bounds) & np.array(
            [(len(w), w) < (len(p), p) for p, w in zip(prefixes, witnesses)]))
        for i in np.flatnonzero(~(same & before))[:1].tolist():
            prefix, witness = list(prefixes[i]), list(witnesses[i])
            return [(numbers[i], f"witness {witness} of {prefix} captures other samples"
                     if not same[i] else f"witness {witness} of {prefix} does not come "
                                         "before it in the order (b, length, antecedents)")]
        return []

    def _figures_of(self, prefixes):
        """(uncaptured groups (K, U), b (K,)) of non-empty prefixes: one rule after a known
        prefix, all at once; the others one by one."""
        uncaptured = np.empty((len(prefixes), self.holds.shape[1]), dtype=bool)
        bounds = np.empty(len(prefixes), dtype=np.int64)
        stepped = [i for i, prefix in enumerate(prefixes) if prefix[:-1] in self.known]
        for i in sorted(set(range(len(prefixes))) - set(stepped)):
            uncaptured[i], bounds[i] = self.figures(prefixes[i])
        if stepped:
            parents = np.array([self.known[prefixes[i][:-1]][0] for i in stepped])
            last = self.holds[[prefixes[i][-1] for i in stepped]]
            captured = (parents & last).astype(np.float64) @ self.weights
            uncaptured[stepped] = parents & ~last
            bounds[stepped] = np.array([self.known[prefixes[i][:-1]][1] for i in stepped]) + \
                self.mistake * self._mistakes(captured) + self.rule
        return uncaptured, bounds

    def _take_dropped(self, record, number):
        prefix = self._prefix(record["dropped"], "dropped")
        uncaptured, bound = self.figures(prefix)
        self._stated(record, bound)
        minority, default = self._rest(uncaptured)
        objective = bound + default
        reason, claim = record["reason"], self.claim
        if reason == "y" and not prefix:
            raise Rejected("the empty prefix has no equivalent prefix before it")
        valid = {"h": bound + minority >= claim,
                 "l": bound + minority + self.rule >= claim and objective >= claim,
                 "k": self.rule * (len(prefix) + 1) >= claim and objective >= claim,
                 "y": True}.get(reason)
        if valid is None:
            raise Rejected(f"unknown reason {reason!r} for dropping {list(prefix)}")
        if reason == "y":
            if "witness" not in record:
                raise Rejected(f"no witness for dropping {list(prefix)} by symmetry")
            self.witness_pairs.append((number, prefix, self._witness(record["witness"],
                                                                     prefix)))
        elif not valid:
            raise Rejected(f"prefix {list(prefix)} fails its reason {reason!r}")
        self.dropped.add(prefix)

    def finish_records(self):
        if () not in self.expanded and () not in self.dropped:
            raise Rejected("the empty prefix is never expanded or dropped")
        generated = self.expanded | self.pending | self.dropped
        for witness in self.witnesses:
            if witness not in generated:
                raise Rejected(f"witness {list(witness)} is not a prefix of the search")
        for prefix in self.pending:
            if not any(prefix[:k] in self.dropped for k in range(len(prefix) + 1)):
                raise Rejected(f"prefix {list(prefix)} was queued but never expanded or "
                                "dropped")
