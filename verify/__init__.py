"""optrules.verify: independent certification of optimality claims.

Exact brute-force oracles (:mod:`.oracle`), CP-SAT and MaxSAT encodings of optimal rule lists
with C >= 2 classes and exact sample weights (:mod:`.rule_list_encodings`), CP-SAT
certification of optimal boosting rules (:mod:`.rule_encodings`), exact re-scoring
(:mod:`.rescore`) and certificates (:mod:`.certify`). Nothing here imports the engines'
search code (``optrules.reference``, ``optrules.fast``); only the shared data types are used.
See ``specs/verification.md``.
"""

from .certify import Certificate, certify_rule, certify_rule_list, load_certificate
from .instances import RuleInstance, RuleListInstance
from .oracle import InstanceTooLarge, optimal_rule, optimal_rule_list
from .rescore import rescore_rule, rescore_rule_list

__all__ = ["Certificate", "certify_rule", "certify_rule_list", "load_certificate",
           "RuleInstance", "RuleListInstance", "InstanceTooLarge", "optimal_rule",
           "optimal_rule_list", "rescore_rule", "rescore_rule_list"]
