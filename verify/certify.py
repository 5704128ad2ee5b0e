"""Certificates: confirm or refute an engine's optimality claim with independent checks.

A claim is (instance, model, claimed objective). Every certificate first re-scores the model
exactly from the data; then each requested check computes or tests the optimum on its own:

rule lists: ``oracle`` (exhaustive enumeration), ``cp-sat`` and ``maxsat`` (the encodings of
:mod:`.rule_list_encodings`); rules: ``oracle``, ``claim`` (CP-SAT decision "is there a better
conjunction?"), ``dinkelbach`` (CP-SAT optimum from scratch) and ``cardinality`` (constant h).

Verdicts: "certified" when the re-score matches the claim and every check that ran proved the
same optimum; "refuted" when the re-score differs or a check proved a different optimum (or
found a better model); "undecided" when some check could not finish (time limit) or no check
certified, and none refuted. Checks that cannot run (too large, h not constant) are "skipped".
Certificates are saved as JSON.
"""

import json
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from optrules.validation import fraction_text

from .oracle import InstanceTooLarge, optimal_rule, optimal_rule_list
from .rescore import rescore_rule, rescore_rule_list
from .rule_encodings import cardinality_optimum, check_claim, dinkelbach_optimum
from .rule_list_encodings import solve_cpsat, solve_maxsat
from .stopping import Interrupted, check_interrupt

__all__ = ["Certificate", "certify_rule_list", "certify_rule", "RULE_LIST_CHECKS",
           "RULE_CHECKS", "load_certificate"]

RULE_LIST_CHECKS = ("oracle", "cp-sat", "maxsat")
RULE_CHECKS = ("oracle", "claim", "dinkelbach", "cardinality")


def _text(value):
    return None if value is None else fraction_text(value)


@dataclass
class Certificate:
    """The outcome of certifying one claim; ``checks`` holds one dict per check."""

    kind: str
    instance_digest: str
    claimed_objective: Fraction
    rescored_objective: Fraction
    model: dict
    checks: list = field(default_factory=list)
    problems: list = field(default_factory=list)

    @property
    def verdict(self):
        if self.problems or any(c["verdict"] == "refuted" for c in self.checks):
            return "refuted"
        if any(c["verdict"] in ("undecided", "bounded") for c in self.checks) or \
                not any(c["verdict"] == "certified" for c in self.checks):
            return "undecided"
        return "certified"

    def to_dict(self):
        return {"format": "optrules.certificate", "version": 1, "kind": self.kind,
                "instance_sha256": self.instance_digest, "verdict": self.verdict,
                "claimed_objective": _text(self.claimed_objective),
                "rescored_objective": _text(self.rescored_objective), "model": self.model,
                "problems": self.problems, "checks": self.checks}

    def save(self, path):
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")


def load_certificate(path):
    """Read a certificate JSON file; ValueError if it is not one."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if data.get("format") != "optrules.certificate" or data.get("version") != 1:
        raise ValueError(f"{path}: not an optrules certificate (format/version).")
    return data


def _check_record(name, verdict, optimum, claimed, status, seconds, lower_bound=None,
                  upper_bound=None, **extra):
    """One check's entry; a proved optimum different from the claim refutes it.

    With ``lower_bound`` (an engine stopped at a limit claims only lower_bound <= optimum <=
    claimed), an optimum inside that interval is "bounded" rather than refuted. With
    ``upper_bound`` (an α-approximate rule claims claimed <= optimum <= claimed/α), an optimum
    inside that interval certifies the claim.
    """
    if verdict == "certified" and optimum is not None and optimum != claimed:
        if upper_bound is not None:
            verdict = "certified" if claimed <= optimum <= upper_bound else "refuted"
        else:
            inside = lower_bound is not None and lower_bound <= optimum <= claimed
            verdict = "bounded" if inside else "refuted"
    return dict({"check": name, "verdict": verdict, "status": status,
                 "optimum": _text(optimum), "seconds": round(seconds, 4)}, **extra)


def _interrupted(name):
    """The entry of a check that a signal stopped (or kept from starting): it proved nothing."""
    return {"check": name, "verdict": "undecided", "status": "INTERRUPTED"}


def certify_rule_list(instance, rule_list, classes, claimed_objective,
                      checks=RULE_LIST_CHECKS, time_limit=60.0, claimed_lower_bound=None):
    """Certify that ``rule_list`` is an optimal rule list of ``instance`` with that objective.

    For a search stopped at a limit pass its ``claimed_lower_bound``: the claim is then only
    lower bound <= optimum <= objective, the verdict at best "undecided", and a check refutes it
    when the optimum falls outside that interval.

    Parameters
    ----------
    instance : RuleListInstance
    rule_list : optrules.rule_lists.model.RuleList
    classes : (negative, positive) class values
    claimed_objective : Fraction
    checks : iterable of {"oracle", "cp-sat", "maxsat"}
    time_limit : float
        Seconds for each solver.
    """
    claimed = Fraction(claimed_objective)
    rescored = rescore_rule_list(instance, rule_list, classes)
    certificate = Certificate("rule-list", instance.digest(), claimed, rescored.objective,
                              rule_list.to_dict())
    if rescored.objective != claimed:
        certificate.problems.append(f"the model re-scores to {_text(rescored.objective)}, not "
                                    f"the claimed {_text(claimed)}")
    if rescored.non_majority_labels:
        certificate.problems.append(f"labels that are not majority labels: "
                                    f"{list(rescored.non_majority_labels)}")
    for name in checks:
        if name == "oracle":
            try:
                check_interrupt()
                optimum, _ = optimal_rule_list(instance)
                certificate.checks.append(_check_record("oracle", "certified", optimum, claimed,
                                                        "ENUMERATED", 0.0, claimed_lower_bound))
            except InstanceTooLarge as error:
                certificate.checks.append({"check": "oracle", "verdict": "skipped",
                                           "status": str(error)})
            except Interrupted:
                certificate.checks.append(_interrupted("oracle"))
            continue
        try:
            check_interrupt()
            answer = (solve_cpsat if name == "cp-sat" else solve_maxsat)(instance, time_limit)
        except InstanceTooLarge as error:
            certificate.checks.append({"check": name, "verdict": "skipped", "status": str(error)})
            continue
        except Interrupted:
            certificate.checks.append(_interrupted(name))
            continue
        certificate.checks.append(_check_record(
            answer.solver, "certified" if answer.certified else "undecided", answer.objective,
            claimed, answer.status, answer.seconds, claimed_lower_bound))
    return certificate


def certify_rule(instance, query, claimed_objective, checks=RULE_CHECKS, time_limit=60.0,
                 alpha=1):
    """Certify that conjunction ``query`` maximises eq. 2.3 on ``instance`` with that value.

    With ``alpha`` < 1 the claim is the approximation guarantee of Algorithm 1:
    obj(query) >= alpha · max obj, i.e. no conjunction has obj > claimed / alpha.
    ``cardinality`` runs only for constant h and ``oracle`` only for small instances; skipped
    checks are recorded as such.
    """
    claimed = Fraction(claimed_objective)
    alpha = Fraction(alpha)
    if not 0 < alpha <= 1:
        raise ValueError(f"alpha must be in (0, 1]; got {alpha}.")
    ceiling = claimed / alpha             # the claim: every conjunction has obj <= ceiling
    rescored = rescore_rule(instance, query)
    model = {"query": list(query), "conditions": [instance.names[j] for j in query],
             "alpha": _text(alpha)}
    certificate = Certificate("rule", instance.digest(), claimed, rescored, model)
    if rescored != claimed:
        certificate.problems.append(f"the query re-scores to {_text(rescored)}, not the "
                                    f"claimed {_text(claimed)}")
    for name in checks:
        try:
            check_interrupt()
            if name == "oracle":
                optimum, _ = optimal_rule(instance)
                record = _check_record("oracle", "certified", optimum, claimed, "ENUMERATED", 0.0,
                                       upper_bound=ceiling)
            elif name == "cardinality" and len(set(instance.h)) != 1:
                record = {"check": name, "verdict": "skipped", "status": "h is not constant"}
            else:
                method = {"claim": None, "dinkelbach": dinkelbach_optimum,
                          "cardinality": cardinality_optimum}[name]
                check = check_claim(instance, ceiling, time_limit) if method is None \
                    else method(instance, time_limit)
                extra = {}
                if check.counterexample is not None:
                    extra = {"counterexample": list(check.counterexample),
                             "counterexample_objective": _text(check.counterexample_objective)}
                record = _check_record(check.method, check.verdict, check.optimum, claimed,
                                       check.solver_status, check.seconds,
                                       upper_bound=ceiling, **extra)
        except InstanceTooLarge as error:
            record = {"check": name, "verdict": "skipped", "status": str(error)}
        except Interrupted:
            record = _interrupted(name)
        certificate.checks.append(record)
    return certificate
