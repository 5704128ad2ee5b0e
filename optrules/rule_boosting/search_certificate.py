"""Search certificates of the optimal boosting-rule search (Algorithm 1), for
``optrules.verify.rule_search_certificate`` to replay without trusting the engine
(specs/certificates.md §5).

Records: one per expanded query (its usable propositions, its bound over them, one code per
proposition, witnesses of equivalence prunes, the usable propositions of children pruned by
their own bound) and one per queued query dropped at its pop (its usable propositions and
bound); the generic file layout is :mod:`optrules.search_records`'.

Examples
--------
>>> import tempfile, pathlib
>>> from optrules.rule_boosting.fit import fit_rule
>>> from optrules.rule_boosting.gradient_problem import GradientProblem
>>> problem = GradientProblem.from_values([[1, 1, 0, 0], [0, 1, 1, 0]], ["p0", "p1"],
...                                       [-1, -1, 1, 1], [1, 1, 1, 1], 1)
>>> path = pathlib.Path(tempfile.mkdtemp()) / "rule.jsonl"
>>> result = fit_rule(problem, engine="reference", certificate=path)
>>> path.read_text().splitlines()[1]
'{"expanded":[],"usable":"3","bound":"1/6","codes":"BB"}'
"""

from optrules.search_records import SearchRecordWriter

__all__ = ["RuleSearchCertificateWriter", "RULE_CODES"]

#: One character per proposition a of an expanded query q (specs/certificates.md §5).
RULE_CODES = {
    "not-augmentation": "-",     # not in q's augmentation list after its tail
    "core-propagated": "3",      # (3.8): a witness w < tail(q) with I(q) ∩ I(p_a) ⊆ I(p_w)
    "bound-propagated": "b",     # a's bound from q's parent is <= the claim
    "implied": "i",              # q → p_a
    "not-core": "n",             # (3.6): a witness w < a with I(q) ∩ I(p_a) ⊆ I(p_w)
    "child-bound": "B",          # the child's bound over q's usable propositions
    "own-bound": "O",            # the child's bound over its own usable propositions
    "queued": "Q",               # a record of the child follows
}


class RuleSearchCertificateWriter(SearchRecordWriter):
    """The records of a boosting-rule search; ``scale`` is 2n·S (engine bounds / scale are
    eq. 2.3 values). Propositions sets are bitmasks, written in hexadecimal."""

    def expanded(self, query, usable, bound, codes, witnesses, own):
        record = {"expanded": list(query), "usable": format(usable, "x"),
                  "bound": self.exact(bound), "codes": codes.decode("ascii")}
        if witnesses:
            record["witnesses"] = {str(a): w for a, w in witnesses.items()}
        if own:
            record["own"] = {str(a): format(mask, "x") for a, mask in own.items()}
        self.write(record)

    def dropped(self, query, usable, bound):
        self.write({"dropped": list(query), "usable": format(usable, "x"),
                    "bound": self.exact(bound)})
