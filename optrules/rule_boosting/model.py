"""Results of rule-boosting base learners (one rule) and of boosting (an ensemble)."""

import json
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from optrules.rule_boosting.losses import get_loss
from optrules.validation import fraction_text
from optrules.data.propositions import Proposition, as_features

__all__ = ["RuleSearchResult", "BoostedRule", "RuleEnsemble"]

_FORMAT = "optrules.rule_ensemble"


@dataclass(frozen=True)
class RuleSearchResult:
    """What a base learner returns for one boosting round.

    Attributes
    ----------
    query : tuple of int
        Proposition indices (ascending) of the (shortened) query; () is ⊤.
    conditions : tuple of str
        Their names.
    objective : Fraction
        Exact obj(q) of eq. 2.3.
    weight : Fraction
        Exact w of eq. 2.2.
    coverage : int
        |I(q)|.
    extent : int
        I(q) as a Python-int bitset over samples.
    upper_bound : Fraction or None
        Proven upper bound on max obj (None for the greedy learner, which proves nothing).
    status : {"optimal", "limit", "heuristic"}
        "optimal": proven (within the approximation factor α); "limit": a node or time limit
        stopped the search (``guarantee`` still holds); "heuristic": the greedy learner.
    statistics : dict
        ``nodes``, ``evaluations`` and prunes by kind (``bound_immediate``,
        ``bound_propagated``, ``equivalence_immediate``, ``equivalence_propagated``).
    seconds : float
    """

    query: tuple
    conditions: tuple
    objective: Fraction
    weight: Fraction
    coverage: int
    extent: int
    upper_bound: Fraction | None
    status: str
    statistics: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def guarantee(self):
        """obj(q*) / upper bound: the multiplicative approximation guarantee (None if unknown)."""
        if self.upper_bound is None:
            return None
        return Fraction(1) if self.upper_bound == 0 else self.objective / self.upper_bound

    @property
    def bound_gap(self):
        """upper bound - obj(q*) (None if unknown)."""
        return None if self.upper_bound is None else self.upper_bound - self.objective


@dataclass(frozen=True)
class BoostedRule:
    """One rule of an ensemble: ``weight`` if every condition holds, else 0."""

    conditions: tuple   # Proposition objects
    weight: float
    objective: float
    coverage: int
    statistics: dict = field(default_factory=dict)

    def __str__(self):
        body = " & ".join(sorted(p.label for p in self.conditions)) or "true"
        return f"{self.weight:+.4f} if {body}"


@dataclass(frozen=True)
class RuleEnsemble:
    """An additive rule ensemble f(x) = Σ_k w_k q_k(x) (Boley et al. 2021, §2.2)."""

    rules: tuple
    loss: object
    lam: Fraction
    search: str
    seconds: float = 0.0

    def __str__(self):
        return "\n".join(str(rule) for rule in self.rules)

    def decision_function(self, data):
        """Scores f(x) for feature data (array, DataFrame or dict of columns)."""
        features = as_features(data)
        scores = np.zeros(features.n_samples)
        for rule in self.rules:
            held = np.ones(features.n_samples, dtype=bool)
            for proposition in rule.conditions:
                held &= proposition.evaluate(features.column(proposition.feature))
            scores += rule.weight * held
        return scores

    def predict(self, data):
        """Logistic loss: class labels (score > 0 gives the positive class); otherwise the
        loss's transform of the score (identity for squared, exp for Poisson)."""
        scores = self.decision_function(data)
        classes = getattr(self.loss, "classes", None)
        if classes is not None:
            return np.where(scores > 0, classes[1], classes[0])
        return self.loss.transform(scores)

    def predict_proba(self, data):
        """Logistic loss only: P(positive class) = σ(f(x))."""
        if getattr(self.loss, "classes", None) is None:
            raise ValueError(f"predict_proba needs the logistic loss; this ensemble uses "
                             f"{self.loss.name}.")
        return self.loss.transform(self.decision_function(data))

    def to_dict(self):
        """JSON-ready description; :meth:`from_dict` rebuilds a working ensemble from it."""
        classes = getattr(self.loss, "classes", None)
        return {"format": _FORMAT, "version": 1, "loss": self.loss.name,
                "classes": None if classes is None else [_json_value(c) for c in classes],
                "lambda": fraction_text(self.lam), "search": self.search,
                "seconds": round(self.seconds, 6),
                "rules": [{"conditions": [p.name for p in r.conditions],
                           "propositions": [{"feature": p.feature, "operator": p.operator,
                                             "value": p.value} for p in r.conditions],
                           "weight": r.weight, "objective": r.objective, "coverage": r.coverage,
                           "statistics": r.statistics} for r in self.rules]}

    @classmethod
    def from_dict(cls, data):
        """Inverse of :meth:`to_dict` (built-in losses only); ValueError on a malformed dict."""
        if not isinstance(data, dict) or data.get("format") != _FORMAT or data.get("version") != 1:
            raise ValueError(f"not an optrules rule ensemble (expected 'format': '{_FORMAT}', "
                             "'version': 1).")
        try:
            loss = get_loss(data["loss"])
            if data["classes"] is not None:
                loss.classes = tuple(data["classes"])
            rules = tuple(BoostedRule(
                tuple(Proposition(p["feature"], p["operator"],
                                  float(p["value"]) if p["operator"] in ("<=", ">")
                                  else str(p["value"])) for p in r["propositions"]),
                float(r["weight"]), float(r["objective"]), int(r["coverage"]),
                dict(r.get("statistics", {}))) for r in data["rules"])
            return cls(rules, loss, Fraction(data["lambda"]), str(data["search"]),
                       float(data.get("seconds", 0.0)))
        except (KeyError, TypeError) as error:
            raise ValueError(f"rule ensemble JSON lacks or mistypes field {error}.") from error

    def save(self, path):
        """Write the ensemble as JSON (never pickle)."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path):
        """Read an ensemble written by :meth:`save`."""
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))


def _json_value(value):
    return value.item() if isinstance(value, np.generic) else value
