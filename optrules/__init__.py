"""optrules: interpretable rule models that are provably optimal, in pure Python.

Entry points: :func:`optrules.rule_lists.fit_rule_list` (certifiably optimal rule lists),
:func:`optrules.mining.mine_antecedents`, :func:`optrules.table.read_csv`,
:func:`optrules.corels_format.load_corels`; the ``optrules`` command (``optrules.cli``).
"""

from optrules.data.binary_dataset import BinaryDataset
from optrules.rule_lists.fit import fit_rule_list
from optrules.rule_lists.model import Rule, RuleList, RuleListResult, score

__version__ = "0.1.0"
__all__ = ["BinaryDataset", "fit_rule_list", "Rule", "RuleList", "RuleListResult", "score"]
