"""optrules.fast: vectorised engines with the same public names and results as
optrules.reference (packed-bitset popcounts, incremental computation).

No engine has landed here yet; ``optrules.rule_lists.ENGINES`` lists the available ones.
"""

__all__ = []
