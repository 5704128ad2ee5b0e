"""optrules.fast: vectorised engines with the same public names and results as
optrules.reference (compressed samples, array operations over all children of a node).

``optrules.rule_lists.ENGINES`` and ``optrules.rule_boosting.fit.ENGINES`` name the engine
modules. The package imports none of them, so a process loads only the engines it uses
(start-up time counts on small data).
"""
