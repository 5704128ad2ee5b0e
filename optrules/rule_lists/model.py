"""Rule lists, their exact objective, and the result of a rule-list search.

Names follow Angelino et al. (2018), §3.1-3.2: a rule list d = (d_p, δ_p, q_0, K) has K rules
p_k -> q_k and a default prediction q_0; its objective is R(d) = mistakes/N + λK (eq. 6),
computed here exactly as a :class:`fractions.Fraction`.
"""

import json
import math
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from optrules.validation import fraction_text, parse_fraction

__all__ = ["Rule", "RuleList", "Score", "score", "RuleListResult"]

_FORMAT = "optrules.rulelist"


@dataclass(frozen=True)
class Rule:
    """One rule ``antecedent -> prediction`` (antecedents are named like ``sex:Male,priors:>3``)."""

    antecedent: str
    prediction: str


@dataclass(frozen=True)
class RuleList:
    """An ordered list of rules followed by a default prediction.

    A sample is classified by the first rule whose antecedent holds for it, else by the default.

    Examples
    --------
    >>> rl = RuleList((Rule("priors:>3", "Yes"),), "No", "recidivate", ("No", "Yes"))
    >>> print(rl)
    if {priors:>3} then Yes
    else No
    """

    rules: tuple
    default: str
    target: str = "label"
    class_names: tuple = ("0", "1")

    def __len__(self):
        return len(self.rules)

    def __str__(self):
        if not self.rules:
            return f"always {self.default}"
        lines = [f"{'if' if k == 0 else 'elif'} {{{rule.antecedent}}} then {rule.prediction}"
                 for k, rule in enumerate(self.rules)]
        return "\n".join(lines + [f"else {self.default}"])

    def _antecedent_rows(self, dataset):
        index = {name: m for m, name in enumerate(dataset.antecedent_names)}
        missing = [rule.antecedent for rule in self.rules if rule.antecedent not in index]
        if missing:
            raise ValueError(f"the dataset has no antecedent named {missing[0]!r}.")
        bits = dataset.antecedent_bits()
        return [bits[index[rule.antecedent]] for rule in self.rules]

    def predict_positive(self, dataset):
        """Boolean vector (N,): True where the list predicts ``class_names[1]``."""
        positive = self.class_names[1]
        prediction = np.full(dataset.n_samples, self.default == positive)
        undecided = np.ones(dataset.n_samples, dtype=bool)
        for rule, holds in zip(self.rules, self._antecedent_rows(dataset)):
            captured = undecided & holds
            prediction[captured] = rule.prediction == positive
            undecided &= ~holds
        return prediction

    def predict(self, dataset):
        """Predicted class names for every sample of a :class:`BinaryDataset`, shape (N,)."""
        return np.where(self.predict_positive(dataset), self.class_names[1], self.class_names[0])

    def to_dict(self):
        return {"format": _FORMAT, "version": 1, "target": self.target,
                "class_names": list(self.class_names),
                "rules": [{"antecedent": r.antecedent, "prediction": r.prediction}
                          for r in self.rules],
                "default": self.default}

    @classmethod
    def from_dict(cls, data):
        """Inverse of :meth:`to_dict`; raises ValueError naming the first bad field."""
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            raise ValueError(f"not an optrules rule list: expected 'format': '{_FORMAT}'.")
        if data.get("version") != 1:
            raise ValueError(f"unsupported rule list version {data.get('version')!r}; this "
                             "optrules reads version 1.")
        try:
            if not isinstance(data["class_names"], list):
                raise TypeError("'class_names'")
            class_names = tuple(data["class_names"])
            rules = tuple(Rule(str(r["antecedent"]), str(r["prediction"])) for r in data["rules"])
            default = str(data["default"])
            target = str(data["target"])
        except (KeyError, TypeError) as error:
            raise ValueError(f"rule list JSON lacks or mistypes field {error}.") from error
        if len(class_names) != 2 or class_names[0] == class_names[1]:
            raise ValueError(f"'class_names' must be two distinct names; got {list(class_names)}.")
        for prediction in [r.prediction for r in rules] + [default]:
            if prediction not in class_names:
                raise ValueError(f"prediction {prediction!r} is not one of {list(class_names)}.")
        return cls(rules, default, target, class_names)

    def to_json(self):
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_json(cls, text):
        return cls.from_dict(json.loads(text))

    def save(self, path):
        """Write the rule list as JSON."""
        Path(path).write_text(self.to_json() + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path):
        """Read a rule list written by :meth:`save`."""
        return cls.from_json(Path(path).read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Score:
    """Exact evaluation of a rule list on a dataset."""

    mistakes: int
    n_samples: int
    length: int
    lam: Fraction

    @property
    def objective(self):
        """R(d) = mistakes/N + λK, exact (Angelino et al. 2018, eq. 6)."""
        return Fraction(self.mistakes, self.n_samples) + self.lam * self.length


def score(rule_list, dataset, lam):
    """Re-score a rule list exactly: integer mistakes, Fraction objective."""
    wrong = rule_list.predict_positive(dataset) != dataset.label_bits()
    lam = parse_fraction("lam", lam, low=0, high=1, function="score")
    return Score(int(wrong.sum()), dataset.n_samples, len(rule_list), lam)


@dataclass(frozen=True)
class RuleListResult:
    """What a rule-list search returns.

    Attributes
    ----------
    rule_list : RuleList
        The best rule list found (certified optimal when ``status == "optimal"``).
    objective : Fraction
        Its exact objective R(d).
    mistakes : int
    n_samples : int
    lam : Fraction
    status : {"optimal", "limit"}
        "optimal": the search space was exhausted, so ``objective`` is the minimum.
        "limit": a node or time limit stopped the search; ``lower_bound`` still holds.
    lower_bound : Fraction
        Every rule list has objective >= lower_bound; equals ``objective`` when optimal.
    nodes_expanded : int
    seconds : float
    remaining_search_space : int
        Thm 7's upper bound on prefix evaluations still needed (0 when optimal).
    statistics : dict
        Engine counters (evaluations, prunes by bound, cache and queue sizes).
    """

    rule_list: RuleList
    objective: Fraction
    mistakes: int
    n_samples: int
    lam: Fraction
    status: str
    lower_bound: Fraction
    nodes_expanded: int
    seconds: float
    remaining_search_space: int = 0
    statistics: dict = field(default_factory=dict)

    @property
    def gap(self):
        """objective - lower_bound (0 when certified optimal)."""
        return self.objective - self.lower_bound

    def to_dict(self):
        """The CLI's JSON object (exact fractions as ``"p/q"`` strings)."""
        space = self.remaining_search_space
        return {
            "objective": fraction_text(self.objective),
            "objective_float": float(self.objective),
            "mistakes": self.mistakes,
            "n_samples": self.n_samples,
            "lambda": fraction_text(self.lam),
            "rules": [{"antecedent": r.antecedent, "prediction": r.prediction}
                      for r in self.rule_list.rules],
            "default": self.rule_list.default,
            "status": self.status,
            "lower_bound": fraction_text(self.lower_bound),
            "gap": fraction_text(self.gap),
            "nodes_expanded": self.nodes_expanded,
            "seconds": round(self.seconds, 6),
            "remaining_search_space": str(space),
            "log10_remaining_search_space": math.log10(space) if space else None,
            "statistics": self.statistics,
            "model": self.rule_list.to_dict(),
        }

    def summary(self):
        """One line: status, objective, mistakes, bound and effort."""
        certificate = ("certified optimal" if self.status == "optimal"
                       else f"stopped at a limit, gap {float(self.gap):.6f}")
        return (f"{certificate}: objective {fraction_text(self.objective)} "
                f"({float(self.objective):.6f}), {self.mistakes}/{self.n_samples} mistakes, "
                f"{len(self.rule_list)} rules, lambda {fraction_text(self.lam)}, lower bound "
                f"{float(self.lower_bound):.6f}, {self.nodes_expanded} nodes, "
                f"{self.seconds:.2f} s")
