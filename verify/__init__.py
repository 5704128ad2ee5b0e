"""optrules.verify: independent certification of optimality claims (exact brute force,
CP-SAT / MIP and MaxSAT encodings, certificate checkers). It shares no search code with the
engines.

No checker has landed here yet.
"""

__all__ = []
