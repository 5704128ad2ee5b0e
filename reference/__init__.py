"""optrules.reference: readable engines that follow each paper line by line.

Each module docstring cites its paper; engines receive validated, canonical inputs from the
public entry points in ``optrules`` (for rule lists, :func:`optrules.rule_lists.fit_rule_list`).
"""

from optrules.reference.corels import corels

__all__ = ["corels"]
