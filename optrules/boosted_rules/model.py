"""Boosted rule models: conditions, rules with heads, the model, and their JSON form.

A model is a default rule (empty body) followed by induced rules. A rule's head adds a score
to some outputs of every example its body covers; an example's score for an output is the sum
over the rules that cover it (Rapp et al. 2023, eq. 1-2). Conditions compare float32 values
(``specs/boosted-rules.md`` §1): ``<=`` and ``>`` on numerical features, ``==`` and ``!=`` on
nominal ones; a missing value satisfies none.
"""

import math
from dataclasses import dataclass

import numpy as np

from optrules.limits import STOP_STATUSES
from optrules.validation import json_number, json_object

__all__ = ["Condition", "Rule", "BoostedRules", "OPERATORS", "STATUSES", "threshold_text"]

OPERATORS = ("<=", ">", "==", "!=")
#: Why boosting ended: every rule learned, no condition improving an empty head, or a stop.
STATUSES = ("complete", "no-improvement", "early-stopping") + tuple(STOP_STATUSES)


def threshold_text(threshold):
    """The shortest decimal that reads back as the same float32."""
    return str(np.float32(threshold))


@dataclass(frozen=True)
class Condition:
    """``feature operator threshold``: ``threshold`` is a float32 value, or the index of a
    category for ``==`` / ``!=``."""

    feature: int
    operator: str
    threshold: float

    def covers(self, values):
        """Mask of the rows of a float32 column that satisfy the condition (NaN: none); of a
        :class:`~optrules.boosted_rules.training_data.SparseColumn`, the value 0 tested
        once for all the examples not stored."""
        if hasattr(values, "rows"):
            covered = np.full(values.n_examples, bool(self.covers(np.zeros(1, np.float32))[0]))
            covered[values.rows] = self.covers(values.values)
            return covered
        threshold = np.float32(self.threshold)
        if self.operator == "<=":
            return values <= threshold
        if self.operator == ">":
            return values > threshold
        if self.operator == "==":
            return values == threshold
        return (values != threshold) & ~np.isnan(values)


@dataclass(frozen=True)
class Rule:
    """A body (tuple of :class:`Condition`) and a head: ``outputs`` (indices) and ``scores``."""

    conditions: tuple
    outputs: tuple
    scores: tuple

    def covers(self, values):
        """Mask of the rows of ``values`` (one float32 column per feature) the body covers."""
        covered = np.ones(len(values[0]) if values else 0, dtype=bool)
        for condition in self.conditions:
            covered &= condition.covers(values[condition.feature])
        return covered


@dataclass(frozen=True, eq=False)
class BoostedRules:
    """A fitted boosted rule model.

    Attributes
    ----------
    rules : tuple of Rule
        The default rule first.
    loss : str
    feature_names : tuple of str
    categories : tuple
        Sorted categories of each categorical feature, None for numeric ones.
    output_names : tuple of str
    training_loss, holdout_loss : tuple of float
        Mean loss of the training and of the holdout examples after the default rule and after
        each induced rule (``holdout_loss`` empty without a holdout set).
    seconds : float
        Wall time of the fit.
    nominal : tuple of bool
        Which features are nominal (``==`` / ``!=``): the categorical ones and the numeric ones
        declared nominal, whose values are their codes. Empty: the categorical ones.
    status : str
        Why boosting ended (:data:`STATUSES`): "complete" (all rules), "no-improvement" (no
        condition improved on an empty head), "early-stopping" (the holdout loss stopped
        improving; the rules up to its least value are kept), or a stop ("time-limit",
        "memory-limit",
        "interrupted") that kept the rules so far.
    """

    rules: tuple
    loss: str
    feature_names: tuple
    categories: tuple
    output_names: tuple
    training_loss: tuple = ()
    holdout_loss: tuple = ()
    seconds: float = 0.0
    status: str = "complete"
    nominal: tuple = ()

    def is_nominal(self, feature):
        return self.nominal[feature] if self.nominal else \
            self.categories[feature] is not None

    def scores(self, values, n_rules=None):
        """Scores (n_examples, n_outputs) of float32 columns ``values``, summed over the default
        rule and the first ``n_rules`` induced rules (all when None)."""
        n_examples = len(values[0]) if values else 0
        scores = np.zeros((n_examples, len(self.output_names)))
        stop = len(self.rules) if n_rules is None else 1 + n_rules
        for rule in self.rules[:stop]:
            covered = rule.covers(values)
            scores[np.ix_(covered, rule.outputs)] += rule.scores
        return scores

    # ----- text ---------------------------------------------------------------------------------
    def condition_text(self, condition):
        categories = self.categories[condition.feature]
        value = threshold_text(condition.threshold) if categories is None \
            else categories[int(condition.threshold)]
        return f"{self.feature_names[condition.feature]} {condition.operator} {value}"

    def rule_text(self, rule):
        """``{feature1 <= 1.53 & feature2 > 7.935} => (label = -0.31)``."""
        body = " & ".join(self.condition_text(c) for c in rule.conditions)
        head = ", ".join(f"{self.output_names[k]} = {v:.4g}" for k, v in zip(rule.outputs,
                                                                            rule.scores))
        return f"{{{body}}} => ({head})"

    def __str__(self):
        return "\n".join(self.rule_text(rule) for rule in self.rules)

    # ----- JSON ---------------------------------------------------------------------------------
    def to_dict(self):
        return {
            "loss": self.loss,
            "features": [{"name": name, "categories": None if c is None else list(c),
                          "nominal": self.is_nominal(j)}
                         for j, (name, c) in enumerate(zip(self.feature_names,
                                                           self.categories))],
            "outputs": list(self.output_names),
            "rules": [{"conditions": [self._condition_dict(c) for c in rule.conditions],
                       "head": {self.output_names[k]: float(v)
                                for k, v in zip(rule.outputs, rule.scores)}}
                      for rule in self.rules],
            "training_loss": list(self.training_loss),
            "holdout_loss": list(self.holdout_loss),
            "seconds": self.seconds,
            "status": self.status,
        }

    def _condition_dict(self, condition):
        categories = self.categories[condition.feature]
        threshold = float(threshold_text(condition.threshold)) if categories is None \
            else categories[int(condition.threshold)]
        return {"feature": self.feature_names[condition.feature], "operator": condition.operator,
                "threshold": threshold}

    @classmethod
    def from_dict(cls, body, where="model"):
        """The model a :meth:`to_dict` object describes; ValueError naming the bad field."""
        json_object(body, where, ("loss", "features", "outputs", "rules", "training_loss",
                                  "holdout_loss", "seconds", "status"))
        names, categories, nominal = [], [], []
        for k, feature in enumerate(_json_list(body["features"], f"{where}.features")):
            at = f"{where}.features[{k}]"
            json_object(feature, at, ("name", "categories"), optional=("nominal",))
            names.append(_json_text(feature["name"], f"{at}.name"))
            known = feature["categories"]
            categories.append(None if known is None else tuple(
                _json_text(c, f"{at}.categories") for c in _json_list(known, f"{at}.categories")))
            nominal.append(feature.get("nominal", known is not None))
            if nominal[-1] not in (True, False) or (known is not None and not nominal[-1]):
                raise ValueError(f"{at}.nominal must be true or false, and true for a feature "
                                 f"with categories. Got {feature['nominal']!r} instead.")
        outputs = tuple(_json_text(o, f"{where}.outputs")
                        for o in _json_list(body["outputs"], f"{where}.outputs"))
        rules = tuple(_rule_from_dict(rule, f"{where}.rules[{k}]", names, categories, nominal,
                                      outputs)
                      for k, rule in enumerate(_json_list(body["rules"], f"{where}.rules")))
        if not rules or rules[0].conditions:
            raise ValueError(f"{where}.rules must start with the default rule (no conditions).")
        curves = [tuple(json_number(v, f"{where}.{name}", low=-math.inf)
                        for v in _json_list(body[name], f"{where}.{name}"))
                  for name in ("training_loss", "holdout_loss")]
        status = _json_text(body["status"], f"{where}.status")
        if status not in STATUSES:
            raise ValueError(f"{where}.status must be one of {list(STATUSES)}. Got {status!r} "
                             "instead.")
        return cls(rules, _json_text(body["loss"], f"{where}.loss"), tuple(names),
                   tuple(categories), outputs, *curves,
                   seconds=json_number(body["seconds"], f"{where}.seconds"), status=status,
                   nominal=tuple(nominal))


def _rule_from_dict(rule, where, names, categories, nominal, outputs):
    json_object(rule, where, ("conditions", "head"))
    conditions = []
    for k, condition in enumerate(_json_list(rule["conditions"], f"{where}.conditions")):
        at = f"{where}.conditions[{k}]"
        json_object(condition, at, ("feature", "operator", "threshold"))
        if condition["feature"] not in names:
            raise ValueError(f"{at}.feature {condition['feature']!r} is not a feature of the "
                             f"model; features are {names}.")
        feature = names.index(condition["feature"])
        operator = condition["operator"]
        known = categories[feature]
        allowed = OPERATORS[2:] if nominal[feature] else OPERATORS[:2]
        if operator not in allowed:
            raise ValueError(f"{at}.operator must be one of {list(allowed)} for feature "
                             f"{names[feature]!r}. Got {operator!r} instead.")
        if known is None:
            value = json_number(condition["threshold"], f"{at}.threshold", low=-math.inf)
            with np.errstate(over="ignore"):
                threshold = float(np.float32(value))
            if math.isinf(threshold):                  # found by review: it was read as inf
                raise ValueError(f"{at}.threshold {value:g} is beyond float32's range, in "
                                 "which rules compare values.")
        elif condition["threshold"] in known:
            threshold = float(known.index(condition["threshold"]))
        else:
            raise ValueError(f"{at}.threshold {condition['threshold']!r} is not a category of "
                             f"feature {names[feature]!r}; categories are {list(known)}.")
        conditions.append(Condition(feature, operator, threshold))
    head = rule["head"]
    if not isinstance(head, dict) or not head or any(name not in outputs for name in head):
        raise ValueError(f"{where}.head must map some of the outputs {list(outputs)} to scores. "
                         f"Got {head!r} instead.")
    ordered = [name for name in outputs if name in head]
    scores = tuple(json_number(head[name], f"{where}.head.{name}", low=-math.inf)
                   for name in ordered)
    return Rule(tuple(conditions), tuple(outputs.index(name) for name in ordered), scores)


def _json_list(value, where):
    if not isinstance(value, list):
        raise ValueError(f"{where} must be a list. Got {type(value).__name__} instead.")
    return value


def _json_text(value, where):
    if not isinstance(value, str):
        raise ValueError(f"{where} must be text. Got {value!r} instead.")
    return value
