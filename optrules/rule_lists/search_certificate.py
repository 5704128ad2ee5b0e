"""Search certificates of the rule-list engines: the search written down so that a small checker
(``optrules.verify.search_certificate``) can replay it without trusting the engine.

The format is specs/certificates.md's: JSON Lines (gzip when the file name ends in ``.gz``), a
header with the instance, λ, the claimed optimum and model, then one record per expanded
prefix (a code per child: why it needs no record of its own, or that it was queued) and one
per queued prefix dropped later (with its reason and bound), then an end line with the
record count. The search writes records to a temporary file beside the target, streaming;
:meth:`SearchCertificateWriter.finish` puts the header in front once the claim is known.

Examples
--------
>>> import numpy as np, tempfile, pathlib
>>> from optrules.data.binary_dataset import BinaryDataset
>>> from optrules.rule_lists import fit_rule_list
>>> data = BinaryDataset.from_bits(["a", "b"], np.array([[1, 1, 0, 0], [0, 1, 1, 0]], bool),
...                                [1, 1, 0, 0])
>>> path = pathlib.Path(tempfile.mkdtemp()) / "search.jsonl"
>>> result = fit_rule_list(data, "1/10", certificate=path)
>>> [line[:40] for line in path.read_text().splitlines()][1]
'{"expanded":[],"bound":"0/1","children":'
"""

from optrules.search_records import SearchRecordWriter

__all__ = ["SearchCertificateWriter", "CODES"]

#: One character per child of an expanded prefix (specs/certificates.md §2).
CODES = {
    "in-prefix": "-",
    "queued": "Q",                  # a record of its own follows: expanded or dropped
    "lower_bound": "h",             # Thm 1 with equivalent points: b + b_0 >= R*
    "lookahead": "l",               # Lemma 2: b + b_0 + λ >= R*, and R(child) >= R*
    "prefix_length": "k",           # Thm 4: λ(K + 1) >= R*, and R(child) >= R*
    "minimum_support": "s",         # Thm 10: the rule captures weight <= λW
    "accurate_support": "a",        # Thm 11: it classifies weight <= λW correctly
    "maximum_support": "m",         # Thm 12: it leaves weight <= λW uncaptured
    "symmetry": "y",                # Thm 17 / Cor. 18: an equivalent prefix before it
    "not_evaluated": "?",           # the expansion stopped: the prefix was dropped itself
}


class SearchCertificateWriter(SearchRecordWriter):
    """The records of a rule-list search (see the module docstring). ``scale`` is the
    engine's integer unit of objectives, q·W (λ = p/q, W the integer total weight)."""

    def expanded(self, prefix, lower_bound, codes, witnesses):
        """Prefix ``prefix`` (antecedent indices) was expanded: its b(d_p) in engine units,
        one code per antecedent, and the witness prefix of each child pruned by symmetry."""
        record = {"expanded": prefix, "bound": self.exact(lower_bound),
                  "children": codes.decode("ascii")}
        if witnesses:
            record["witnesses"] = {str(s): witness for s, witness in witnesses.items()}
        self.write(record)

    def dropped(self, prefix, reason, lower_bound, witness=None):
        """A queued (or expanded) prefix left the search for ``reason`` (a key of
        :data:`CODES`: lower_bound, lookahead, prefix_length or symmetry with ``witness``)."""
        record = {"dropped": prefix, "reason": CODES[reason],
                  "bound": self.exact(lower_bound)}
        if witness is not None:
            record["witness"] = witness
        self.write(record)
