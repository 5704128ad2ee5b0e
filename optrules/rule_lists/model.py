"""Rule lists, their exact objective, and the result of a rule-list search.

Names follow Angelino et al. (2018), §3.1-3.2: a rule list d = (d_p, δ_p, q_0, K) has K rules
p_k -> q_k and a default prediction q_0; its objective is R(d) = mistakes/N + λK (eq. 6), or
with sample weights (mistaken weight)/(total weight) + λK (specs/rule-lists.md §11),
computed here exactly as a :class:`fractions.Fraction`.

A rule names its antecedent and, when the antecedent was mined from feature data, carries its
*conditions*, so the list applies to new raw rows; it also records the training samples (or
their weight) it captures per class, which give :meth:`RuleList.predict_proba`.
"""

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np

from optrules.data.binary_dataset import BinaryDataset
from optrules.data.mining import antecedent_name
from optrules.data.propositions import Proposition
from optrules.limits import STOP_STATUSES
from optrules.validation import (fraction_from_text, fraction_text, json_object, parse_fraction,
                                 shown)

__all__ = ["Rule", "RuleList", "Score", "score", "RuleListResult", "describe"]

#: JSON types a class value may have (numpy scalars are converted to these when fitting).
CLASS_TYPES = (str, int, float, bool)


@dataclass(frozen=True)
class Rule:
    """One rule ``antecedent -> prediction``.

    Attributes
    ----------
    antecedent : str
        The antecedent's name, e.g. ``sex:Male,priors:>3``.
    prediction : str, int, float or bool
        The class it predicts.
    conditions : tuple of Proposition or None
        The propositions whose conjunction the antecedent is (None for an antecedent read from
        a CORELS file, which is only a name).
    class_counts : tuple of int or Fraction, or None
        Training samples of each class (in the list's ``classes`` order) this rule captures;
        with sample weights, their weight per class (exact).
    """

    antecedent: str
    prediction: object
    conditions: tuple | None = None
    class_counts: tuple | None = None


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
    default: object
    target: str = "label"
    classes: tuple = ("0", "1")
    default_counts: tuple | None = None

    def __len__(self):
        return len(self.rules)

    def __str__(self):
        if not self.rules:
            return f"always {self.default}"
        lines = [f"{'if' if k == 0 else 'elif'} {{{rule.antecedent}}} then {rule.prediction}"
                 for k, rule in enumerate(self.rules)]
        return "\n".join(lines + [f"else {self.default}"])

    # ----- application ------------------------------------------------------------------------
    def antecedents_hold(self, data):
        """Boolean matrix (K, n): whether rule k's antecedent holds for sample n.

        ``data`` is a :class:`BinaryDataset` (antecedents looked up by name) or canonical
        :class:`Features` (the rules' conditions evaluated on the rows).

        Raises
        ------
        ValueError
            If an antecedent is not in the dataset, a rule has no conditions (an antecedent
            from a CORELS file) and the data are raw rows, or a condition's feature is missing.
        """
        if isinstance(data, BinaryDataset):
            index = {name: m for m, name in enumerate(data.antecedent_names)}
            missing = [rule.antecedent for rule in self.rules if rule.antecedent not in index]
            if missing:
                raise ValueError(f"the dataset has no antecedent named {missing[0]!r}.")
            bits = data.antecedent_bits()
            rows = [bits[index[rule.antecedent]] for rule in self.rules]
            return np.array(rows, dtype=bool).reshape(len(self.rules), data.n_samples)
        rows = []
        for rule in self.rules:
            if rule.conditions is None:
                raise ValueError(f"antecedent {rule.antecedent!r} came from a CORELS file and "
                                 "is only a name; apply this rule list to antecedent bits (a "
                                 "BinaryDataset or a .out file), not to raw rows.")
            held = np.ones(data.n_samples, dtype=bool)
            for condition in rule.conditions:
                held &= condition.evaluate(data.column(condition.feature))
            rows.append(held)
        return np.array(rows, dtype=bool).reshape(len(self.rules), data.n_samples)

    def capturing_rule(self, data):
        """Index (n,) of the rule that classifies each sample; ``len(self)`` for the default."""
        holds = self.antecedents_hold(data)
        first = np.full(holds.shape[1], len(self.rules))
        for k in range(len(self.rules) - 1, -1, -1):
            first[holds[k]] = k
        return first

    def predict(self, data):
        """Predicted classes (n,), as an array of the class values."""
        return np.asarray(self.classes)[self.predicted_class(data)]

    def predicted_class(self, data):
        """Class index (n,) the list predicts for each sample (into ``classes``)."""
        outcomes = [rule.prediction for rule in self.rules] + [self.default]
        positions = np.array([self.classes.index(p) for p in outcomes])
        return positions[self.capturing_rule(data)]

    def predict_proba(self, data):
        """Class probabilities (n, C): the training class frequencies of the capturing rule.

        No smoothing: a rule that captured 3 training samples of class 1 and 1 of class 0
        gives (0.25, 0.75); with sample weights the frequencies are by weight. A rule that
        captured no training sample (or only weight 0) gives 1/C for every class.

        Raises
        ------
        ValueError
            If the list carries no class counts (it was not fitted on training data).
        """
        counts = [rule.class_counts for rule in self.rules] + [self.default_counts]
        if any(c is None for c in counts):
            raise ValueError("this rule list has no training class counts; fit it (or "
                             "describe it with optrules.rule_lists.model.describe) first.")
        table = np.array([[float(c) for c in row] for row in counts], dtype=float)
        totals = table.sum(axis=1, keepdims=True)
        frequencies = np.divide(table, totals, out=np.full_like(table, 1 / len(self.classes)),
                                where=totals > 0)
        return frequencies[self.capturing_rule(data)]

    # ----- JSON -------------------------------------------------------------------------------
    def to_dict(self):
        """JSON-ready description; :meth:`from_dict` rebuilds an identical rule list."""
        return {"target": self.target, "classes": list(self.classes),
                "rules": [_rule_to_dict(rule) for rule in self.rules],
                "default": self.default,
                "default_counts": _counts_to_json(self.default_counts)}

    @classmethod
    def from_dict(cls, data, where="model"):
        """Inverse of :meth:`to_dict`, checking every field; ValueError naming the first bad
        one by its path below ``where`` (``model.rules[2].conditions[0].operator``).

        Checked: exactly the fields :meth:`to_dict` writes; ``classes`` two or more distinct
        strings, or two or more distinct finite numbers or booleans; every prediction one of
        the classes (of the same JSON type); each antecedent a non-empty name whose conditions
        are null (an antecedent read from a CORELS file) for every rule or a non-empty list of
        well-formed, distinct conditions (:meth:`Proposition.from_json`) for every rule; no
        antecedent used twice, by name or by conditions; class counts (one per class,
        non-negative integers or exact ``"p/q"`` weights) for every rule and the default, or
        null for all.
        """
        json_object(data, where, ("classes", "rules", "default", "default_counts", "target"))
        if not isinstance(data["target"], str):
            raise ValueError(f"{where}.target must be a string; got {shown(data['target'])}.")
        classes = _classes(data["classes"], f"{where}.classes")
        if not isinstance(data["rules"], list):
            raise ValueError(f"{where}.rules must be a list; got {shown(data['rules'])}.")
        rules = tuple(_rule_from_dict(entry, f"{where}.rules[{k}]", classes)
                      for k, entry in enumerate(data["rules"]))
        _check_antecedents(rules, where)
        default = _prediction(data["default"], f"{where}.default", classes)
        default_counts = _counts(data["default_counts"], f"{where}.default_counts",
                                 len(classes))
        if len({rule.class_counts is None for rule in rules} | {default_counts is None}) > 1:
            raise ValueError(f"{where}: class counts must be given for every rule and the "
                             "default, or for none.")
        return cls(rules, default, data["target"], classes, default_counts)


def _rule_to_dict(rule):
    return {"antecedent": rule.antecedent,
            "conditions": None if rule.conditions is None
            else [condition.to_json() for condition in rule.conditions],
            "prediction": rule.prediction,
            "class_counts": _counts_to_json(rule.class_counts)}


def _rule_from_dict(entry, where, classes):
    json_object(entry, where, ("antecedent", "conditions", "prediction", "class_counts"))
    antecedent = entry["antecedent"]
    if not isinstance(antecedent, str) or not antecedent:
        raise ValueError(f"{where}.antecedent must be a non-empty string; got "
                         f"{shown(antecedent)}.")
    conditions = entry["conditions"]
    if conditions is not None:
        if not isinstance(conditions, list) or not conditions:
            raise ValueError(f"{where}.conditions must be a non-empty list of conditions, or "
                             f"null for an antecedent from a CORELS file; got "
                             f"{shown(conditions)}.")
        conditions = tuple(Proposition.from_json(item, f"{where}.conditions[{i}]")
                           for i, item in enumerate(conditions))
        if len(set(conditions)) != len(conditions):
            raise ValueError(f"{where}.conditions holds a condition twice.")
        if antecedent != antecedent_name(conditions):
            # The name is what a reader sees; the conditions are what predicts: they must agree.
            raise ValueError(f"{where}.antecedent {shown(antecedent)} is not the name of its "
                             f"conditions, {shown(antecedent_name(conditions))}.")
    return Rule(antecedent, _prediction(entry["prediction"], f"{where}.prediction", classes),
                conditions, _counts(entry["class_counts"], f"{where}.class_counts",
                                    len(classes)))


def _classes(value, where):
    """Two or more distinct class values of one kind: strings, or finite numbers and
    booleans."""
    if not isinstance(value, list) or len(value) < 2 or \
            not all(isinstance(c, CLASS_TYPES) for c in value) or \
            any(isinstance(c, float) and not math.isfinite(c) for c in value) or \
            len({isinstance(c, str) for c in value}) != 1 or \
            any(a == b for i, a in enumerate(value) for b in value[:i]):
        raise ValueError(f"{where} must be two or more distinct strings or numbers; got "
                         f"{shown(value)}.")
    return tuple(value)


def _prediction(value, where, classes):
    """``value`` if it is one of ``classes``, with its JSON type (``true`` is not ``1``)."""
    if not any(value == c and type(value) is type(c) for c in classes):
        raise ValueError(f"{where} {shown(value)} is not one of the classes {list(classes)}.")
    return value


def _check_antecedents(rules, where):
    """Conditions given for every rule or for none; no antecedent twice (a repeated one
    captures nothing, and no engine writes it), by name or by its set of conditions."""
    if len({rule.conditions is None for rule in rules}) > 1:
        raise ValueError(f"{where}.rules: conditions must be given for every rule (mined "
                         "antecedents) or be null for every rule (CORELS antecedents).")
    first = {}
    for k, rule in enumerate(rules):
        keys = [rule.antecedent] if rule.conditions is None else \
            [rule.antecedent, frozenset(rule.conditions)]
        for key in keys:
            if key in first:
                raise ValueError(f"{where}.rules[{k}] repeats the antecedent of "
                                 f"{where}.rules[{first[key]}] ({rule.antecedent!r}); a rule "
                                 "list uses each antecedent once.")
            first[key] = k


def exact_json(value):
    """An exact count or weight as JSON: an integer as a number, anything else as ``"p/q"``."""
    return int(value) if Fraction(value).denominator == 1 else fraction_text(value)


def _counts_to_json(counts):
    return None if counts is None else [exact_json(c) for c in counts]


def _counts(value, where, n_classes):
    """Class counts read back: one per class, each a non-negative integer or ``"p/q"``."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != n_classes:
        raise ValueError(f"{where}: class counts must be a list of {n_classes} numbers, one per "
                         f"class; got {shown(value)}.")
    counts = []
    for i, count in enumerate(value):
        if isinstance(count, str):
            count = fraction_from_text(count, f"{where}[{i}]")
        elif isinstance(count, bool) or not isinstance(count, int):
            count = -1
        if count < 0:
            raise ValueError(f"{where}[{i}] must be a non-negative integer or an exact weight "
                             f"like \"3/2\"; got {shown(value[i])}.")
        counts.append(count)
    return tuple(counts)


def describe(rule_list, dataset):
    """The rule list with each rule's conditions and training class counts from ``dataset``.

    Conditions come from the dataset's mined antecedents (None for CORELS-file antecedents);
    counts from replaying the list on the dataset's samples (exact class weights when the
    dataset is weighted).
    """
    index = {name: m for m, name in enumerate(dataset.antecedent_names)}
    conditions = dataset.antecedent_conditions
    capture = rule_list.capturing_rule(dataset)
    weights = dataset.unit_weights()
    unit = 1 if dataset.weights is None else dataset.weight_unit

    def counts(k):
        captured = capture == k
        return tuple(unit * int(weights[captured & (dataset.labels == c)].sum())
                     for c in range(dataset.n_classes))

    rules = tuple(replace(rule, class_counts=counts(k),
                          conditions=None if conditions is None
                          else conditions[index[rule.antecedent]])
                  for k, rule in enumerate(rule_list.rules))
    return replace(rule_list, rules=rules, default_counts=counts(len(rules)))


@dataclass(frozen=True)
class Score:
    """Exact evaluation of a rule list on a dataset: ``mistakes`` is the number (or, weighted,
    the exact weight) of misclassified samples out of ``total`` (N, or the total weight)."""

    mistakes: int | Fraction
    total: int | Fraction
    length: int
    lam: Fraction

    @property
    def objective(self):
        """R(d) = mistakes/N + λK, exact (Angelino et al. 2018, eq. 6; weighted: §11)."""
        return Fraction(self.mistakes) / self.total + self.lam * self.length


def score(rule_list, dataset, lam):
    """Re-score a rule list exactly: mistakes (weighted if the dataset is), Fraction objective."""
    wrong = rule_list.predicted_class(dataset) != dataset.labels
    lam = parse_fraction("lam", lam, low=0, high=1, function="score")
    if dataset.weights is None:
        return Score(int(wrong.sum()), dataset.n_samples, len(rule_list), lam)
    return Score(dataset.weight_unit * int(dataset.weights[wrong].sum()), dataset.total_weight,
                 len(rule_list), lam)


@dataclass(frozen=True)
class RuleListResult:
    """What a rule-list search returns.

    Attributes
    ----------
    rule_list : RuleList
        The best rule list found (certified optimal when ``status == "optimal"``).
    objective : Fraction
        Its exact objective R(d).
    mistakes : int or Fraction
        Misclassified training samples (an int), or their exact weight when weighted.
    n_samples : int
    lam : Fraction
    status : {"optimal"} or a key of :data:`optrules.limits.STOP_STATUSES`
        "optimal": the search space was exhausted, so ``objective`` is the minimum.
        Otherwise what stopped the search ("node-limit", "queue-limit", "time-limit",
        "memory-limit", "interrupted"); ``lower_bound`` still holds.
    lower_bound : Fraction
        Every rule list has objective >= lower_bound; equals ``objective`` when optimal.
    nodes_expanded : int
    seconds : float
    remaining_search_space : int or None
        Thm 7's upper bound on prefix evaluations still needed (0 when optimal; None when
        the run stopped before the search began, while mining).
    statistics : dict
        Engine counters (evaluations, prunes by bound, cache and queue sizes).
    total_weight : Fraction or None
        Total sample weight when the samples are weighted (None: unweighted, each weighs 1).
    """

    rule_list: RuleList
    objective: Fraction
    mistakes: int | Fraction
    n_samples: int
    lam: Fraction
    status: str
    lower_bound: Fraction
    nodes_expanded: int
    seconds: float
    remaining_search_space: int | None = 0
    statistics: dict = field(default_factory=dict)
    total_weight: Fraction | None = None

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
            "mistakes": exact_json(self.mistakes),
            "n_samples": self.n_samples,
            "total_weight": None if self.total_weight is None
            else fraction_text(self.total_weight),
            "classes": list(self.rule_list.classes),
            "lambda": fraction_text(self.lam),
            "rules": [{"antecedent": r.antecedent, "prediction": r.prediction}
                      for r in self.rule_list.rules],
            "default": self.rule_list.default,
            "status": self.status,
            "lower_bound": fraction_text(self.lower_bound),
            "gap": fraction_text(self.gap),
            "nodes_expanded": self.nodes_expanded,
            "seconds": round(self.seconds, 6),
            "remaining_search_space": None if space is None else str(space),
            "log10_remaining_search_space": math.log10(space) if space else None,
            "statistics": self.statistics,
            "model": self.rule_list.to_dict(),
        }

    def summary(self):
        """One line: status, objective, mistakes, bound and effort."""
        certificate = ("certified optimal" if self.status == "optimal" else
                       f"not certified ({STOP_STATUSES[self.status]}), gap "
                       f"{float(self.gap):.6f}")
        mistakes = f"{self.mistakes}/{self.n_samples} mistakes" if self.total_weight is None \
            else f"mistaken weight {self.mistakes} of {self.total_weight}"
        return (f"{certificate}: objective {fraction_text(self.objective)} "
                f"({float(self.objective):.6f}), {mistakes}, "
                f"{len(self.rule_list)} rules, lambda {fraction_text(self.lam)}, lower bound "
                f"{float(self.lower_bound):.6f}, {self.nodes_expanded} nodes, "
                f"{self.seconds:.2f} s")
