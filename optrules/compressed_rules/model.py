"""A fitted compressed rule ensemble: its terms, predictions, printing (Nalenz and Augustin
Table 3), per-prediction explanations (Table 4) and JSON form (``specs/cre.md`` §7).

The GLM variant scores x as

    score(x) = b + Σ_h β_h R_h(x)/length_h^η + Σ_j β_j 0.4 (x_j − mean_j)/sd_j

(the design it was fitted on, ``design.py``); the averaging variant as the mean of the rules'
R_h(x)·μ₊ + (1 − R_h(x))·μ₋ (``averaging.py``). Printed and explained, a rule's coefficient is
β_h/length_h^η, the change in score when it fully fires (R = 1), and a linear term's is
0.4·β_j/sd_j per unit of x_j, the intercept taking the means: the printed terms add up to the
score (a missing x_j counts as its training mean).
"""

import math
from typing import NamedTuple

import numpy as np

from optrules.compressed_rules.averaging import averaged_prediction
from optrules.compressed_rules.clustering import make_cluster
from optrules.compressed_rules.design import LINEAR_SCALE, standardised
from optrules.compressed_rules.soft_rules import OPERATORS, SmoothRule, SoftCondition
from optrules.validation import json_number, json_object, shown

__all__ = ["CompressedRules", "LinearTerm", "Explanation", "VARIANTS"]

VARIANTS = ("glm", "average")


class LinearTerm(NamedTuple):
    """A linear term of the GLM: ``coefficient`` on the standardised column of ``feature``,
    whose training ``mean`` and ``sd`` standardise new data."""

    feature: int
    coefficient: float
    mean: float
    sd: float

    @property
    def per_unit(self):
        """The change in score per unit of the feature."""
        return self.coefficient * LINEAR_SCALE / self.sd


class Explanation(NamedTuple):
    """How one prediction comes about: ``rows`` of (term, coefficient, value, contribution)
    for the GLM (Table 4: the contributions add up to ``score``), of (rule, μ₊, μ₋, R(x),
    its prediction) for the averaging variant (their mean is ``score``); the largest
    contributions first."""

    variant: str
    rows: tuple
    score: float
    prediction: str

    @property
    def columns(self):
        """The names of a row's fields."""
        return ("term", "coefficient", "value", "contribution") if self.variant == "glm" \
            else ("rule", "mu_plus", "mu_minus", "value", "prediction")

    def __str__(self):
        header = self.columns
        cells = [header] + [(row[0],) + tuple(_number(v + 0.0, 4) for v in row[1:])
                            for row in self.rows]
        widths = [max(len(row[k]) for row in cells) for k in range(1, len(header))]
        lines = ["  ".join(cell.rjust(width) for cell, width in zip(row[1:], widths)) +
                 "  " + row[0] for row in cells]
        return "\n".join(lines + [self.prediction])


class CompressedRules:
    """A fitted compressed rule ensemble (see the module docstring).

    Parameters
    ----------
    loss : {"logistic", "squared"}
    variant : {"glm", "average"}
    feature_names : sequence of str
    clusters : dict
        Feature index -> its clusters (:class:`~optrules.compressed_rules.clustering.Cluster`),
        for the features the rules test.
    rules : sequence of SmoothRule
        The rule terms.
    counts : sequence of int
        How many harvested rules became each rule term.
    scales : sequence of float
        Each rule's length^η (GLM).
    coefficients : sequence of float
        Each rule's β on its scaled column (GLM).
    mu_plus, mu_minus : sequence of float
        Each rule's μ₊ and μ₋ (averaging).
    linear : sequence of LinearTerm
    intercept : float
        b (GLM); the mean target, predicted when no rule is averaged (averaging).
    fit : dict
        How the model was chosen, as JSON-ready data (λ, CV, the KKT check).
    """

    def __init__(self, *, loss, variant, feature_names, clusters, rules, counts, scales=(),
                 coefficients=(), mu_plus=(), mu_minus=(), linear=(), intercept=0.0, fit=None):
        self.loss, self.variant = loss, variant
        self.feature_names = tuple(feature_names)
        self.clusters = dict(clusters)
        self.rules, self.counts = tuple(rules), tuple(counts)
        self.scales, self.coefficients = tuple(scales), tuple(coefficients)
        self.mu_plus, self.mu_minus = tuple(mu_plus), tuple(mu_minus)
        self.linear = tuple(linear)
        self.intercept = float(intercept)
        self.fit = dict(fit or {})

    # ----- predictions -------------------------------------------------------------------------
    def rule_outputs(self, X):
        """R_h(x) of every rule term on every row of ``X`` (n, d; NaN missing)."""
        from optrules.fast.cre import smooth_rule_matrix
        return smooth_rule_matrix(X, self.rules, self.clusters)

    def scores(self, X):
        """The score of every row: the GLM's linear predictor, or the averaged prediction."""
        X = np.asarray(X, dtype=np.float64)
        outputs = self.rule_outputs(X)
        if self.variant == "average":
            if not self.rules:
                return np.full(len(X), self.intercept)
            return averaged_prediction(outputs, np.array(self.mu_plus), np.array(self.mu_minus))
        score = self.intercept + (outputs / np.array(self.scales)) @ np.array(self.coefficients)
        if self.linear:
            columns = [term.feature for term in self.linear]
            score = score + standardised(X[:, columns], np.array([t.mean for t in self.linear]),
                                         np.array([t.sd for t in self.linear])) @ \
                np.array([term.coefficient for term in self.linear])
        return score

    # ----- terms -------------------------------------------------------------------------------
    def condition_text(self, condition):
        """``name <= [low;high]`` (a soft condition over its cluster's split points), or
        ``name <= t`` when the cluster has one split point."""
        cluster = self.clusters[condition.feature][condition.cluster]
        name = self.feature_names[condition.feature]
        if cluster.low == cluster.high:
            return f"{name} {condition.operator} {_number(cluster.low)}"
        return f"{name} {condition.operator} [{_number(cluster.low)};{_number(cluster.high)}]"

    def rule_text(self, rule):
        """The rule's soft conditions joined by ``&``."""
        return " & ".join(self.condition_text(c) for c in rule.conditions)

    def shown_intercept(self):
        """The intercept of the printed model: b less the linear terms' means."""
        return self.intercept - sum(term.per_unit * term.mean for term in self.linear)

    def terms(self):
        """The model's terms as JSON-ready dicts, the intercept first, then by decreasing
        importance (|β| on the design's scale, the paper's ranking; most frequent first for
        the averaging variant)."""
        if self.variant == "average":
            return [{"kind": "rule", "term": self.rule_text(rule),
                     "conditions": self._conditions(rule), "count": count, "mu_plus": plus,
                     "mu_minus": minus}
                    for rule, count, plus, minus in zip(self.rules, self.counts, self.mu_plus,
                                                        self.mu_minus)]
        terms = [(abs(beta), {"kind": "rule", "term": self.rule_text(rule),
                              "coefficient": beta / scale, "conditions": self._conditions(rule),
                              "count": count})
                 for rule, count, scale, beta in zip(self.rules, self.counts, self.scales,
                                                     self.coefficients)]
        terms += [(abs(term.coefficient), {
            "kind": "linear", "term": f"linear: {self.feature_names[term.feature]}",
            "coefficient": term.per_unit, "feature": self.feature_names[term.feature]})
            for term in self.linear]
        ordered = [term for _, term in sorted(terms, key=lambda pair: -pair[0])]
        return [{"kind": "intercept", "term": "intercept",
                 "coefficient": self.shown_intercept()}] + ordered

    def _conditions(self, rule):
        return [{"feature": self.feature_names[c.feature], "operator": c.operator,
                 "low": self.clusters[c.feature][c.cluster].low,
                 "high": self.clusters[c.feature][c.cluster].high,
                 "split_points": [[v, w] for v, w in zip(
                     self.clusters[c.feature][c.cluster].values,
                     self.clusters[c.feature][c.cluster].weights)]}
                for c in rule.conditions]

    def __str__(self):
        if self.variant == "average":
            rows = [("count", "mu+", "mu-", "rule")] + [
                (str(term["count"]), _number(term["mu_plus"], 4), _number(term["mu_minus"], 4),
                 term["term"]) for term in self.terms()]
            how = "the mean over the rules of R(x)·mu+ + (1 − R(x))·mu−"
        else:
            rows = [("coefficient", "term")] + [(_number(term["coefficient"], 4), term["term"])
                                                 for term in self.terms()]
            how = "the sum of coefficient × term (a rule's R(x) in [0, 1])"
        widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]) - 1)]
        lines = ["  ".join(cell.rjust(width) for cell, width in zip(row, widths)) + "  " +
                 row[-1] for row in rows]
        return "\n".join(lines + [f"score = {how}"])

    # ----- explanations ------------------------------------------------------------------------
    def explain(self, x, prediction_text):
        """The :class:`Explanation` of the score of one row ``x`` (d,);
        ``prediction_text(score)`` says what the score predicts."""
        x = np.asarray(x, dtype=np.float64).reshape(1, -1)
        outputs = self.rule_outputs(x)[0]
        score = float(self.scores(x)[0])
        if self.variant == "average":
            rows = [(self.rule_text(rule), plus, minus, r, r * plus + (1.0 - r) * minus)
                    for rule, plus, minus, r in zip(self.rules, self.mu_plus, self.mu_minus,
                                                    outputs)]
            return Explanation("average", tuple(rows), score, prediction_text(score))
        rows = [("intercept", self.shown_intercept(), 1.0, self.shown_intercept())]
        rows += [(self.rule_text(rule), beta / scale, r, beta / scale * r + 0.0)   # no -0
                 for rule, beta, scale, r in zip(self.rules, self.coefficients, self.scales,
                                                 outputs)]
        for term in self.linear:
            value = x[0, term.feature]
            value = term.mean if math.isnan(value) else float(value)
            rows.append((f"linear: {self.feature_names[term.feature]}", term.per_unit, value,
                         term.per_unit * value + 0.0))
        rows.sort(key=lambda row: -abs(row[3]))
        return Explanation("glm", tuple(rows), score, prediction_text(score))

    # ----- JSON --------------------------------------------------------------------------------
    def to_dict(self):
        """Everything that predicts, as JSON-ready data (:meth:`from_dict` reads it back)."""
        names = self.feature_names
        rules = []
        for h, rule in enumerate(self.rules):
            entry = {"conditions": [{"feature": names[c.feature], "cluster": c.cluster,
                                     "operator": c.operator} for c in rule.conditions],
                     "count": self.counts[h]}
            if self.variant == "glm":
                entry.update(scale=self.scales[h], coefficient=self.coefficients[h])
            else:
                entry.update(mu_plus=self.mu_plus[h], mu_minus=self.mu_minus[h])
            rules.append(entry)
        return {"loss": self.loss, "variant": self.variant, "features": list(names),
                "clusters": {names[f]: [{"split_points": list(c.values),
                                         "weights": list(c.weights)} for c in clusters]
                             for f, clusters in sorted(self.clusters.items())},
                "intercept": self.intercept, "rules": rules,
                "linear": [{"feature": names[t.feature], "coefficient": t.coefficient,
                            "mean": t.mean, "sd": t.sd} for t in self.linear],
                "fit": self.fit}

    @classmethod
    def from_dict(cls, body, where="model"):
        """The model a :meth:`to_dict` object describes; ValueError naming the bad field."""
        json_object(body, where, ("loss", "variant", "features", "clusters", "intercept",
                                  "rules", "linear", "fit"))
        if body["loss"] not in ("logistic", "squared"):
            raise ValueError(f"{where}.loss must be 'logistic' or 'squared'; got "
                             f"{shown(body['loss'])}.")
        variant = body["variant"]
        if variant not in VARIANTS:
            raise ValueError(f"{where}.variant must be one of {list(VARIANTS)}; got "
                             f"{shown(variant)}.")
        names = body["features"]
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names) or \
                len(set(names)) != len(names):
            raise ValueError(f"{where}.features must be a list of distinct names.")
        index = {name: j for j, name in enumerate(names)}
        clusters = _clusters_from(body["clusters"], index, f"{where}.clusters")
        number = -math.inf                          # any finite number
        if not isinstance(body["rules"], list):
            raise ValueError(f"{where}.rules must be a list.")
        fields = ("scale", "coefficient") if variant == "glm" else ("mu_plus", "mu_minus")
        rules, counts, values = [], [], {field: [] for field in fields}
        for h, entry in enumerate(body["rules"]):
            place = f"{where}.rules[{h}]"
            json_object(entry, place, ("conditions", "count") + fields)
            rules.append(_rule_from(entry["conditions"], index, clusters, place))
            counts.append(json_number(entry["count"], f"{place}.count", low=1, integer=True))
            for field in fields:
                values[field].append(float(json_number(entry[field], f"{place}.{field}",
                                                       low=number)))
        if variant == "glm" and not all(scale >= 1 for scale in values["scale"]):
            raise ValueError(f"{where}.rules: every scale (length^eta) must be at least 1.")
        arguments = {"scale": "scales", "coefficient": "coefficients", "mu_plus": "mu_plus",
                     "mu_minus": "mu_minus"}
        if not isinstance(body["linear"], list) or (variant == "average" and body["linear"]):
            raise ValueError(f"{where}.linear must be a list (empty for the averaging variant).")
        linear = []
        for j, entry in enumerate(body["linear"]):
            place = f"{where}.linear[{j}]"
            json_object(entry, place, ("feature", "coefficient", "mean", "sd"))
            if entry["feature"] not in index:
                raise ValueError(f"{place}.feature {shown(entry['feature'])} is not one of "
                                 f"{where}.features.")
            coefficient, mean, sd = (float(json_number(entry[k], f"{place}.{k}", low=number))
                                     for k in ("coefficient", "mean", "sd"))
            if sd <= 0:
                raise ValueError(f"{place}.sd must be positive; got {sd!r}.")
            linear.append(LinearTerm(index[entry["feature"]], coefficient, mean, sd))
        if body["loss"] == "logistic" and not all(0 <= mu <= 1 for field in ("mu_plus",
                                                                         "mu_minus")
                                                  for mu in values.get(field, ())):
            raise ValueError(f"{where}.rules: mu_plus and mu_minus of the logistic loss are "
                             "shares of the positive class, in [0, 1].")
        _check_fit(body["fit"], variant, f"{where}.fit")
        return cls(loss=body["loss"], variant=variant, feature_names=names, clusters=clusters,
                   rules=rules, counts=counts, linear=linear,
                   intercept=json_number(body["intercept"], f"{where}.intercept", low=number),
                   fit=body["fit"], **{arguments[field]: v for field, v in values.items()})


#: The fields of a model's ``fit`` that its printing reads, with their JSON types.
_FIT_FIELDS = {"harvested_rules": int, "smooth_rules": int, "candidate_rules": int,
               "seconds": (int, float)}
_GLM_FIT_FIELDS = {"lambda": (int, float), "lambda_choice": str, "folds": int, "kkt": dict}


def _check_fit(fit, variant, where):
    if not isinstance(fit, dict):
        raise ValueError(f"{where} must be a JSON object.")
    fields = dict(_FIT_FIELDS, **(_GLM_FIT_FIELDS if variant == "glm" else {}))
    for name, kind in fields.items():
        if not isinstance(fit.get(name), kind) or isinstance(fit.get(name), bool):
            raise ValueError(f"{where}.{name} is missing or not a {kind}; got "
                             f"{shown(fit.get(name))}.")
    if variant == "glm" and not (isinstance(fit["kkt"].get("ok"), bool) and
                                 isinstance(fit["kkt"].get("verdict"), str)):
        raise ValueError(f"{where}.kkt must hold the check's 'ok' and 'verdict'.")


def _clusters_from(body, index, where):
    if not isinstance(body, dict):
        raise ValueError(f"{where} must be a JSON object (feature name -> clusters).")
    clusters = {}
    for name, entries in body.items():
        if name not in index:
            raise ValueError(f"{where} names {shown(name)}, which is not a feature.")
        if not isinstance(entries, list) or not entries:
            raise ValueError(f"{where}.{name} must be a non-empty list of clusters.")
        feature_clusters = []
        for l, entry in enumerate(entries):
            place = f"{where}.{name}[{l}]"
            json_object(entry, place, ("split_points", "weights"))
            points, weights = entry["split_points"], entry["weights"]
            if not isinstance(points, list) or not isinstance(weights, list) or not points or \
                    len(points) != len(weights):
                raise ValueError(f"{place}: split_points and weights must be non-empty lists "
                                 "of equal length.")
            points = [float(json_number(p, f"{place}.split_points", low=-math.inf))
                      for p in points]
            weights = [json_number(w, f"{place}.weights", low=1, integer=True) for w in weights]
            if any(a >= b for a, b in zip(points, points[1:])):
                raise ValueError(f"{place}.split_points must be strictly ascending.")
            feature_clusters.append(make_cluster(points, weights))
        if any(a.high >= b.low for a, b in zip(feature_clusters, feature_clusters[1:])):
            raise ValueError(f"{where}.{name}: clusters must be ascending and disjoint.")
        clusters[index[name]] = tuple(feature_clusters)
    return clusters


def _rule_from(conditions, index, clusters, where):
    if not isinstance(conditions, list) or not conditions:
        raise ValueError(f"{where}.conditions must be a non-empty list.")
    checked = set()
    for c, entry in enumerate(conditions):
        place = f"{where}.conditions[{c}]"
        json_object(entry, place, ("feature", "cluster", "operator"))
        feature = index.get(entry["feature"]) if isinstance(entry["feature"], str) else None
        if feature is None or feature not in clusters:
            raise ValueError(f"{place}.feature {shown(entry['feature'])} is not a clustered "
                             "feature.")
        cluster = json_number(entry["cluster"], f"{place}.cluster", integer=True)
        if cluster >= len(clusters[feature]):
            raise ValueError(f"{place}.cluster {cluster} is not a cluster of "
                             f"{entry['feature']!r} (it has {len(clusters[feature])}).")
        if entry["operator"] not in OPERATORS:
            raise ValueError(f"{place}.operator must be one of {list(OPERATORS)}; got "
                             f"{shown(entry['operator'])}.")
        checked.add(SoftCondition(feature, cluster, entry["operator"]))
    if len(checked) != len(conditions):
        raise ValueError(f"{where}.conditions repeat a condition.")
    return SmoothRule(tuple(sorted(checked)))


def _number(value, digits=6):
    """A number for people: ``digits`` significant digits, no exponent for everyday sizes."""
    return f"{value:.{digits}g}"
