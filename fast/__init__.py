"""optrules.fast: vectorised engines with the same public names and results as
optrules.reference (compressed samples, array operations over all children of a node).

``optrules.rule_lists.ENGINES`` lists the available engines.
"""

from optrules.fast.corels import corels

__all__ = ["corels"]
