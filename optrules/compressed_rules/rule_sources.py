"""Where compressed rule ensembles take their hard rules from (``specs/cre.md`` §6): the
project's boosted trees (:func:`~optrules.compressed_rules.harvest.boosted_tree_rules`), a list
of rules the user passes, or a JSON file of such a list.

A rule is a sequence of conditions, or a mapping with a ``"conditions"`` sequence (the form of
``BoostedRulesClassifier.rules_`` and of optrules' JSON outputs); a condition is a
``(feature, operator, threshold)`` triple or a mapping with those three keys. ``feature`` is a
column name or index, ``operator`` one of ``<=``, ``>``, ``<``, ``>=`` and ``threshold`` a finite
number. ``x < t`` and ``x >= t`` are rewritten exactly as ``x <= t⁻`` and ``x > t⁻``, t⁻ the
largest float64 below t (for float64 values, x < t exactly when x <= t⁻), because soft
conditions average ``x <= t`` steps; a threshold that is no float64 (a large int, a Fraction)
becomes the largest float64 at most it, likewise exact. A rule without conditions (a default rule) is the intercept, which
the model has anyway: it is not a term.

Examples
--------
>>> user_rules([[("age", ">", 30.0), (1, "<=", 2.5)], {"conditions": []}], ["age", "bmi"])
[((0, '>', 30.0), (1, '<=', 2.5))]
"""

import math
import numbers
import os
from fractions import Fraction

import numpy as np

from optrules.compressed_rules.harvest import boosted_tree_rules
from optrules.validation import read_json, shown

__all__ = ["harvested_rules", "user_rules", "read_rules_file", "OPERATORS"]

#: Operators a user's condition may have, and the operator and threshold shift they become.
OPERATORS = {"<=": ("<=", False), ">": (">", False), "<": ("<=", True), ">=": (">", True)}


def harvested_rules(source, X, y, *, loss, feature_names, n_trees, max_depth, random_state):
    """The hard rules (tuples of (feature index, "<=" or ">", threshold)) from ``source``:
    ``"boosted"`` (``n_trees`` boosted trees of depth ``max_depth`` on ``X``, ``y``), a path to a
    JSON file (:func:`read_rules_file`) or a list of rules (:func:`user_rules`)."""
    if isinstance(source, str) and source == "boosted":
        return boosted_tree_rules(X, y, loss=loss, n_trees=n_trees, max_depth=max_depth,
                                  random_state=random_state)
    if isinstance(source, (str, os.PathLike)):
        return read_rules_file(source, feature_names)
    return user_rules(source, feature_names)


def read_rules_file(path, feature_names):
    """The rules of a JSON file: a list of rules, an object with a ``"rules"`` list (such as
    ``{"rules": model.rules_}``), or an optrules model file whose model has rules (a boosted
    rules model: its default rule has no conditions and is left out). ValueError naming the
    file and the rule otherwise."""
    body = read_json(path, "rules file")
    if isinstance(body, dict) and isinstance(body.get("model"), dict):
        body = body["model"]
    if isinstance(body, dict) and "rules" in body:
        body = body["rules"]
    if not isinstance(body, list):
        raise ValueError(f"{path}: a rules file holds a JSON list of rules or an object with a "
                         f"\"rules\" list; got {shown(body)}.")
    try:
        return user_rules(body, feature_names)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None


def user_rules(rules, feature_names):
    """The rules a user passed, checked and in the form of the harvest (see the module
    docstring); ValueError naming the rule and condition that is not a threshold condition on
    a column of ``feature_names``."""
    if isinstance(rules, (str, bytes, dict)) or not _is_sequence(rules):
        raise ValueError(f"rules must be a list of rules, 'boosted' or a file name; got "
                         f"{shown(rules)}.")
    index = {name: j for j, name in enumerate(feature_names)}
    checked = []
    for r, rule in enumerate(rules):
        conditions = rule.get("conditions") if isinstance(rule, dict) else rule
        if not _is_sequence(conditions):
            raise ValueError(f"rule {r}: a rule is a list of conditions or an object with a "
                             f"\"conditions\" list; got {shown(rule)}.")
        converted = tuple(_condition(condition, index, len(feature_names), f"rule {r}, "
                                     f"condition {c}")
                          for c, condition in enumerate(conditions))
        if converted:
            checked.append(converted)
    return checked


def _condition(condition, index, n_features, where):
    if isinstance(condition, dict):
        missing = [key for key in ("feature", "operator", "threshold") if key not in condition]
        if missing:
            raise ValueError(f"{where}: lacks {missing[0]!r}; a condition has a feature, an "
                             f"operator and a threshold.")
        condition = (condition["feature"], condition["operator"], condition["threshold"])
    if not _is_sequence(condition) or len(condition) != 3:
        raise ValueError(f"{where}: a condition is (feature, operator, threshold); got "
                         f"{shown(condition)}.")
    feature, operator, threshold = condition
    if isinstance(feature, numbers.Integral) and not isinstance(feature, (bool, np.bool_)):
        if not 0 <= feature < n_features:
            raise ValueError(f"{where}: feature index {feature} is not in 0..{n_features - 1}.")
        feature = int(feature)
    elif isinstance(feature, str) and feature in index:
        feature = index[feature]
    else:
        raise ValueError(f"{where}: feature {shown(feature)} is not a column of X (columns: "
                         f"{shown(list(index))}).")
    if operator not in OPERATORS:
        raise ValueError(f"{where}: operator {shown(operator)} is not a threshold test; "
                         f"compressed rules take {list(OPERATORS)} on numeric features.")
    if not isinstance(threshold, numbers.Real) or isinstance(threshold, (bool, np.bool_)) or \
            not math.isfinite(threshold):
        raise ValueError(f"{where}: threshold {shown(threshold)} is not a finite number.")
    written, (operator, strict) = operator, OPERATORS[operator]
    value = _float_threshold(threshold, strict)
    if value == -math.inf:                 # found by review: reported as a split point of -inf
        raise ValueError(f"{where}: no float64 value is {written} {shown(threshold)}, so the "
                         "condition never holds.")
    return feature, operator, value


def _float_threshold(threshold, strict):
    """The largest float64 at most ``threshold`` (below it, if ``strict``): for float64 x,
    x <= t exactly when x is at most that float (x < t when ``strict``), whatever number t is
    (an int beyond 2^53 or a Fraction is not a float64)."""
    exact = Fraction(int(threshold)) if isinstance(threshold, numbers.Integral) else \
        Fraction(threshold) if isinstance(threshold, numbers.Rational) else \
        Fraction(float(threshold))
    nearest = float(exact)
    if Fraction(nearest) > exact or (strict and Fraction(nearest) == exact):
        nearest = math.nextafter(nearest, -math.inf)
    return nearest


def _is_sequence(value):
    return isinstance(value, (list, tuple))
