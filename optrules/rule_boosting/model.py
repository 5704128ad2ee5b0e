"""Results of rule-boosting base learners (one rule) and of boosting (an ensemble)."""

import math
from dataclasses import dataclass, field
from decimal import ROUND_FLOOR, Context
from fractions import Fraction

import numpy as np

from optrules.data.propositions import Proposition
from optrules.data.table import as_features, sorted_classes
from optrules.limits import STOP_STATUSES
from optrules.rule_boosting.losses import LOSSES, get_loss
from optrules.validation import (fraction_from_text, fraction_text, json_number, json_object,
                                 shown)

__all__ = ["RuleSearchResult", "BoostedRule", "RuleEnsemble", "RULE_STATUSES"]

#: A boosted rule's search status -> the base learners (``search``) that give it: proven
#: optimal (also the intercept rule, fitted without search), proven within α, nothing proven
#: (greedy), or stopped early.
RULE_STATUSES = dict({"optimal": ("optimal", "greedy"), "approximate": ("optimal",),
                      "heuristic": ("greedy",), "node-limit": ("optimal",)},
                     **{status: ("optimal", "greedy") for status in STOP_STATUSES
                        if status not in ("node-limit", "queue-limit")})
_COUNTERS = ("evaluations", "bound_immediate", "bound_propagated", "equivalence_immediate",
             "equivalence_propagated", "depth_limited")
_BOUNDS = ("upper_bound", "bound_gap", "guarantee")


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
    def from_dict(cls, data, where="rule", search="optimal"):
        """Inverse of :meth:`to_dict` for a rule of an ensemble fitted with ``search``, every
        field checked; ValueError naming the first bad one by its path below ``where``.

        Checked: exactly the fields :meth:`to_dict` writes; conditions well-formed
        (:meth:`Proposition.from_json`) and distinct; a finite weight; an exact objective >= 0
        (``"p/q"``) and its float; a coverage >= 0; the statistics (below); and ``text``, which
        must be the rule's own line, so that a file cannot show one rule and hold another.
        """
        json_object(data, where, ("conditions", "text", "weight", "objective",
                                  "objective_float", "coverage", "statistics"))
        if not isinstance(data["conditions"], list):
            raise ValueError(f"{where}.conditions must be a list of conditions; got "
                             f"{shown(data['conditions'])}.")
        conditions = tuple(Proposition.from_json(item, f"{where}.conditions[{i}]")
                           for i, item in enumerate(data["conditions"]))
        if len(set(conditions)) != len(conditions):
            raise ValueError(f"{where}.conditions holds a condition twice.")
        weight = json_number(data["weight"], f"{where}.weight", low=-math.inf)
        objective = fraction_from_text(data["objective"], f"{where}.objective")
        if objective < 0:
            raise ValueError(f"{where}.objective {data['objective']} is negative; eq. 2.3 is "
                             "a square over a positive number.")
        as_float = _float_or_none(objective)
        if as_float is None or data["objective_float"] != as_float:
            raise ValueError(f"{where}.objective_float {shown(data['objective_float'])} is not "
                             f"the float of {where}.objective {shown(data['objective'])}.")
        rule = cls(conditions, weight, objective,
                   json_number(data["coverage"], f"{where}.coverage", integer=True),
                   _statistics(data["statistics"], f"{where}.statistics", search, objective))
        if data["text"] != str(rule):
            raise ValueError(f"{where}.text {shown(data['text'])} is not the rule that its "
                             f"conditions, weight and statistics make: {str(rule)!r}.")
        return rule


def _float_or_none(value):
    """float(value), None when it is beyond the float range."""
    try:
        return float(value)
    except OverflowError:
        return None


def _statistics(value, where, search, objective):
    """A rule's statistics, checked: the status known and one that ``search`` gives; counters
    non-negative integers; upper bound, gap and guarantee all three or none (none for the
    greedy learner and the intercept rule), consistent with the status and ``objective``."""
    json_object(value, where, ("nodes", "status", "seconds", "step_halvings"),
                optional=_COUNTERS + _BOUNDS)
    status = value["status"]
    if not isinstance(status, str) or search not in RULE_STATUSES.get(status, ()):
        raise ValueError(f"{where}.status is {shown(status)}; a rule of the {search} search "
                         f"has one of {[s for s, by in RULE_STATUSES.items() if search in by]}.")
    for name in ("nodes", "step_halvings") + _COUNTERS:
        if name in value:
            json_number(value[name], f"{where}.{name}", integer=True)
    json_number(value["seconds"], f"{where}.seconds")
    present = [name for name in _BOUNDS if name in value]
    if present and len(present) < len(_BOUNDS):
        raise ValueError(f"{where} has {', '.join(present)} but not all of "
                         f"{', '.join(_BOUNDS)}.")
    if not present:
        if status in ("approximate", "node-limit"):
            raise ValueError(f"{where} lacks the upper bound its status {status!r} comes with.")
        return dict(value)
    if search == "greedy":
        raise ValueError(f"{where} has an upper bound, which the greedy search never proves.")
    upper, gap, guarantee = (json_number(value[name], f"{where}.{name}")
                             for name in _BOUNDS)
    proven_optimal = guarantee == 1 and gap == 0
    if upper < float(objective) or not 0 <= guarantee <= 1 or \
            (upper == 0 and not proven_optimal) or (status == "optimal" and not proven_optimal):
        raise ValueError(f"{where}: upper_bound {upper}, bound_gap {gap} and guarantee "
                         f"{guarantee} do not fit the objective {float(objective)} and the "
                         f"status {status!r}.")
    return dict(value)


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
    def from_dict(cls, data, where="ensemble"):
        """Inverse of :meth:`to_dict`, every field checked; ValueError naming the first bad
        one by its path below ``where`` (``model.rules[2].conditions[0].operator``).

        Checked: exactly the fields :meth:`to_dict` writes; a known loss; ``classes`` two
        distinct classes of one kind (:func:`~optrules.data.table.sorted_classes`) for the
        logistic loss and null otherwise; λ an exact fraction >= 0; a known search; the base
        score finite, and 0 unless the loss is Poisson (§12 of ``specs/rule-boosting.md``); the
        ensemble status "complete" or a stop status; every rule (:meth:`BoostedRule.from_dict`).
        A query may occur in several rules: boosting can choose it again in a later round.

        Examples
        --------
        >>> RuleEnsemble.from_dict({"loss": "squared", "classes": None, "lambda": "1/0",
        ...     "search": "optimal", "seconds": 0.1, "base_score": 0.0, "status": "complete",
        ...     "rules": []}, "model")
        Traceback (most recent call last):
        ...
        ValueError: model.lambda must be an exact number like "1/3"; got '1/0'.
        """
        from optrules.rule_boosting.fit import SEARCHES      # fit imports this module
        json_object(data, where, ("loss", "classes", "lambda", "search", "seconds",
                                  "base_score", "status", "rules"))
        loss = data["loss"]
        if not isinstance(loss, str) or loss not in LOSSES:
            raise ValueError(f"{where}.loss is {shown(loss)}; the losses are {list(LOSSES)}.")
        classes = _classes(data["classes"], f"{where}.classes", loss)
        lam = fraction_from_text(data["lambda"], f"{where}.lambda")
        if lam < 0:
            raise ValueError(f"{where}.lambda {data['lambda']} is negative; λ >= 0.")
        search = data["search"]
        if not isinstance(search, str) or search not in SEARCHES:
            raise ValueError(f"{where}.search is {shown(search)}; the searches are "
                             f"{list(SEARCHES)}.")
        base_score = json_number(data["base_score"], f"{where}.base_score", low=-math.inf)
        if base_score != 0 and loss != "poisson":
            raise ValueError(f"{where}.base_score is {base_score}, but boosting with the {loss} "
                             "loss starts from 0.")
        status = data["status"]
        if not isinstance(status, str) or status not in ("complete", *STOP_STATUSES):
            raise ValueError(f"{where}.status is {shown(status)}; it is 'complete' or one of "
                             f"{list(STOP_STATUSES)}.")
        if not isinstance(data["rules"], list):
            raise ValueError(f"{where}.rules must be a list; got {shown(data['rules'])}.")
        rules = tuple(BoostedRule.from_dict(rule, f"{where}.rules[{k}]", search)
                      for k, rule in enumerate(data["rules"]))
        return cls(rules, get_loss(loss), lam, search, classes,
                   json_number(data["seconds"], f"{where}.seconds"), base_score, status)


def _classes(value, where, loss):
    """The (negative, positive) classes of the logistic loss, None for the others."""
    if loss != "logistic":
        if value is not None:
            raise ValueError(f"{where} must be null for the {loss} loss; got {shown(value)}.")
        return None
    if not isinstance(value, list) or len(value) != 2 or \
            len(sorted_classes(value, where)) != 2:
        raise ValueError(f"{where} must be the two distinct classes [negative, positive] of "
                         f"the logistic loss; got {shown(value)}.")
    return tuple(value)
