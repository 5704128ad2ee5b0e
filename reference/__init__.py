"""optrules.reference: readable engines that follow each paper line by line.

Each module docstring cites its paper; engines receive validated, canonical inputs from the
public entry points in ``optrules`` (for rule lists, :func:`optrules.rule_lists.fit_rule_list`).
The package imports none of its engine modules, so a process loads only the engines it uses
(start-up time counts on small data).
"""
