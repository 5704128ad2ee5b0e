"""Results of rule-boosting base learners (one rule) and of boosting (an ensemble)."""

import math
from dataclasses import dataclass, field
from decimal import ROUND_FLOOR, Context
from fractions import Fraction

import numpy as np

from optrules.data.propositions import Proposition
from optrules.data.table import as_features
from optrules.limits import STOP_STATUSES
from optrules.rule_boosting.losses import LOSSES, get_loss
from optrules.validation import fraction_from_text, fraction_text

__all__ = ["RuleSearchResult", "BoostedRule", "RuleEnsemble"]


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
    status : {"optimal", "approximate", "heuristic"} or a stop status
        "optimal": proven optimal; "approximate": proven within the approximation factor α < 1
        (obj(q) >= α·max obj, ``guarantee`` = α); "heuristic": the greedy learner, which proves
        nothing. Otherwise the search stopped early, and the status says why: "node-limit" or a
        key of :data:`optrules.limits.STOP_STATUSES` ("time-limit", "memory-limit",
        "interrupted"); ``guarantee`` still holds (None for the greedy learner).
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
    """One rule of an ensemble: ``weight`` if every condition holds, else 0.

    Attributes
    ----------
    conditions : tuple of Proposition
        () is the empty query ⊤ (always true).
    weight : float
        w of eq. 2.2 (the exact value, rounded once to a float for prediction).
    objective : Fraction
        Exact obj(q) of eq. 2.3 for the gradients of its boosting round.
    coverage : int
        Training samples the rule covers.
    statistics : dict
        Search ``status`` (see :attr:`RuleSearchResult.status`), ``guarantee``, ``upper_bound``
        and ``bound_gap`` when proven, node counters, ``seconds``, and ``step_halvings``: how
        often the weight of eq. 2.2 was halved so that the step does not increase the training
        loss (``specs/rule-boosting.md`` §12).

    Examples
    --------
    >>> rule = BoostedRule((Proposition("a", ">", 1.5),), 1.75, Fraction(1, 3), 10,
    ...                    {"status": "time-limit", "guarantee": 0.8333})
    >>> print(rule)
    +1.7500 if a>1.5   [time-limit, obj >= 0.8333 x optimum]
    """

    conditions: tuple
    weight: float
    objective: Fraction
    coverage: int
    statistics: dict = field(default_factory=dict)

    def __str__(self):
        return f"{self._formula()}   [{self.tag()}]"

    def _formula(self):
        body = " & ".join(sorted(p.name for p in self.conditions)) or "true"
        return f"{self.weight:+.4f} if {body}"

    def tag(self):
        """The search's status and what it proves: ``optimal``, ``heuristic`` (greedy), or the
        status with the proven guarantee, rounded down (``time-limit, obj >= 0.83 x optimum``),
        and a note when the step was shortened."""
        status = self.statistics.get("status")
        parts = [str(status)]
        if status not in ("optimal", "heuristic"):
            guarantee = self.statistics.get("guarantee")
            parts.append("no guarantee" if guarantee is None else
                         f"obj >= {_rounded_down(guarantee)} x optimum")
        halvings = self.statistics.get("step_halvings", 0)
        if halvings:
            parts.append(f"step halved {halvings}x")
        return ", ".join(parts)

    def to_dict(self):
        return {"conditions": [p.to_json() for p in self.conditions],
                "text": str(self), "weight": self.weight,
                "objective": fraction_text(self.objective),
                "objective_float": float(self.objective), "coverage": self.coverage,
                "statistics": self.statistics}

    @classmethod
    def from_dict(cls, data, k):
        if not isinstance(data, dict):
            raise ValueError(f"rule {k} must be a JSON object.")
        weight = data["weight"]
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or \
                not math.isfinite(weight):
            raise ValueError(f"rule {k}: the weight must be a finite number.")
        conditions = data["conditions"]
        if not isinstance(conditions, list):
            raise ValueError(f"rule {k}: 'conditions' must be a list.")
        coverage = data["coverage"]
        if isinstance(coverage, bool) or not isinstance(coverage, int) or coverage < 0:
            raise ValueError(f"rule {k}: 'coverage' must be a non-negative integer.")
        statistics = data["statistics"]
        if not isinstance(statistics, dict):
            raise ValueError(f"rule {k}: 'statistics' must be an object.")
        return cls(tuple(Proposition.from_json(item) for item in conditions), float(weight),
                   fraction_from_text(data["objective"], f"rule {k}: 'objective'"), coverage,
                   dict(statistics))


#: Four significant digits, rounded down: a printed guarantee never claims more than is proven.
_DOWN = Context(prec=4, rounding=ROUND_FLOOR)


def _rounded_down(value):
    # from the float's shortest decimal, so that a guarantee α = 0.3 prints as 0.3, not 0.2999
    return str(_DOWN.create_decimal(repr(float(value))).normalize(_DOWN))


@dataclass(frozen=True)
class RuleEnsemble:
    """An additive rule ensemble f(x) = f_0 + Σ_k w_k q_k(x) (Boley et al. 2021, §2.2).

    ``classes`` is ``(negative, positive)`` for the logistic loss (a positive score predicts
    the positive class) and None otherwise. ``base_score`` is the constant f_0 boosting started
    from (0, or log of the mean count for the Poisson loss). ``status`` is "complete" when every
    round ran, else the stop status (:data:`optrules.limits.STOP_STATUSES`) that ended
    boosting early: the total time limit, the memory cap or a signal; the rules found until then
    are kept, the last one with its own search status.
    """

    rules: tuple
    loss: object            # a Loss (optrules.rule_boosting.losses)
    lam: Fraction
    search: str
    classes: tuple | None = None
    seconds: float = 0.0
    base_score: float = 0.0
    status: str = "complete"

    def __str__(self):
        """One line per rule with its search status, tags aligned; the base score first when
        it is not 0, a last line when boosting stopped early."""
        width = max((len(rule._formula()) for rule in self.rules), default=0)
        lines = [f"{rule._formula():<{width}}   [{rule.tag()}]" for rule in self.rules]
        if self.base_score:
            lines.insert(0, f"{self.base_score:+.4f} base score (f_0, the best constant for the "
                            f"{self.loss.name} loss)")
        if not self.rules:
            lines.append("(no rules)")
        if self.status != "complete":
            lines.append(f"boosting stopped after {len(self.rules)} rule(s): "
                         f"{STOP_STATUSES[self.status]} (status {self.status})")
        return "\n".join(lines)

    def decision_function(self, data):
        """Scores f(x) for feature data (Features, array, DataFrame or dict of columns)."""
        features = as_features(data)
        scores = np.full(features.n_samples, self.base_score)
        for rule in self.rules:
            held = np.ones(features.n_samples, dtype=bool)
            for proposition in rule.conditions:
                held &= proposition.evaluate(features.column(proposition.feature))
            scores += rule.weight * held
        return scores

    def predict(self, data):
        """Logistic loss: class labels (a score > 0 gives the positive class); otherwise the
        loss's transform of the score (identity for squared, exp for Poisson)."""
        scores = self.decision_function(data)
        if self.classes is not None:
            return np.where(scores > 0, self.classes[1], self.classes[0])
        return self.loss.transform(scores)

    def predict_proba(self, data):
        """Logistic loss only: P(positive class) = σ(f(x)), shape (n,)."""
        if self.classes is None:
            raise ValueError(f"predict_proba needs the logistic loss; this ensemble uses "
                             f"{self.loss.name}.")
        return self.loss.transform(self.decision_function(data))

    def to_dict(self):
        """JSON-ready description; :meth:`from_dict` rebuilds an identical ensemble."""
        return {"loss": self.loss.name,
                "classes": None if self.classes is None else list(self.classes),
                "lambda": fraction_text(self.lam), "search": self.search,
                "seconds": round(self.seconds, 6), "base_score": self.base_score,
                "status": self.status, "rules": [rule.to_dict() for rule in self.rules]}

    @classmethod
    def from_dict(cls, data):
        """Inverse of :meth:`to_dict`; ValueError naming the first bad field."""
        if not isinstance(data, dict):
            raise ValueError("a rule ensemble must be a JSON object.")
        try:
            if data["loss"] not in LOSSES:
                raise ValueError(f"unknown loss {data['loss']!r}; expected one of "
                                 f"{list(LOSSES)}.")
            classes = data["classes"]
            if classes is not None and (not isinstance(classes, list) or len(classes) != 2
                                        or classes[0] == classes[1]):
                raise ValueError(f"'classes' must be two distinct values or null; got "
                                 f"{classes!r}.")
            if (classes is None) == (data["loss"] == "logistic"):
                raise ValueError("'classes' must be given exactly for the logistic loss.")
            rules = data["rules"]
            if not isinstance(rules, list):
                raise ValueError("'rules' must be a list.")
            base_score = data["base_score"]
            if isinstance(base_score, bool) or not isinstance(base_score, (int, float)) or \
                    not math.isfinite(base_score):
                raise ValueError("'base_score' must be a finite number.")
            if data["status"] not in ("complete", *STOP_STATUSES):
                raise ValueError(f"unknown ensemble status {data['status']!r}.")
            return cls(tuple(BoostedRule.from_dict(rule, k) for k, rule in enumerate(rules)),
                       get_loss(data["loss"]), fraction_from_text(data["lambda"], "'lambda'"),
                       str(data["search"]),
                       None if classes is None else tuple(classes), float(data["seconds"]),
                       float(base_score), data["status"])
        except KeyError as error:
            raise ValueError(f"the rule ensemble lacks the field {error}.") from None
        except TypeError as error:
            raise ValueError(f"the rule ensemble has a mistyped field ({error}).") from None
