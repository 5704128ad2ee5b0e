"""Certificates: confirm or refute an engine's optimality claim with independent checks.

A claim is (instance, model, claimed objective). Every certificate first re-scores the model
exactly from the data; then each requested check computes or tests the optimum on its own:

rule lists: ``oracle`` (exhaustive enumeration), ``pruned-oracle`` (enumeration pruned by the
hierarchical bound, :mod:`.pruned_oracle`), ``cp-sat`` and ``maxsat`` (the encodings of
:mod:`.rule_list_encodings`), each given the claimed list, re-scored, as a known list; rules:
``oracle``, ``claim`` (CP-SAT decision "is there a better conjunction?"), ``dinkelbach`` (CP-SAT
optimum from scratch) and ``cardinality`` (constant h).

Verdicts: "refuted" when the re-score differs or a check proved a different optimum (or found a
better model); otherwise, with ``require="any"`` (the default), "certified" when at least one
check proved the claimed optimum and none proved another, and with ``require="all"`` when every
check did; "undecided" else. Checks that cannot run (too large, h not constant) are "skipped".
Certificates are saved as JSON; :func:`load_certificate` reads one back and refuses a file
that is not consistent in itself (specs/verification.md §7).
"""

import functools
import json
import re
from dataclasses import dataclass, field
from fractions import Fraction

from optrules.limits import interrupt_requested, interruptible
from optrules.rule_lists.model import RuleList
from optrules.validation import (fraction_from_text, fraction_text, json_number, json_object,
                                 read_json, shown, write_text_atomically)

from .oracle import InstanceTooLarge, optimal_rule, optimal_rule_list
from .rescore import miscounted_rules, rescore_rule, rescore_rule_list
from .rule_encodings import cardinality_optimum, check_claim, dinkelbach_optimum
from .pruned_oracle import pruned_optimal_rule_list
from .rule_list_encodings import KnownList, solve_cpsat, solve_maxsat
from .stopping import Interrupted, OutOfTime, time_for_next_check

__all__ = ["Certificate", "certify_rule_list", "certify_rule", "RULE_LIST_CHECKS",
           "RULE_CHECKS", "REQUIRE", "load_certificate"]

RULE_LIST_CHECKS = ("oracle", "pruned-oracle", "maxsat", "cp-sat")
RULE_CHECKS = ("oracle", "claim", "dinkelbach", "cardinality")

FORMAT, VERSION = "optrules.certificate", 3
#: The fields of a certificate file, in the order they are written.
FIELDS = ("format", "version", "kind", "instance_sha256", "verdict", "require", "lambda",
          "n_samples", "total_weight", "claimed_objective", "rescored_objective",
          "claimed_lower_bound", "model", "problems", "checks", "source")
#: The fields of each version this optrules reads: version 2 had no ``require`` (its verdict
#: policy was :data:`LEGACY`), version 1 (two classes, no weights) no ``total_weight`` either.
VERSION_FIELDS = {1: tuple(name for name in FIELDS if name not in ("total_weight", "require")),
                  2: tuple(name for name in FIELDS if name != "require"), 3: FIELDS}
#: Verdict policies: certified when "any" check proves the claim (and none refutes or bounds
#: it), or only when "all" of them do.
REQUIRE = ("any", "all")
#: The policy of versions 1 and 2: certified when some check proved the claim and every other
#: one was skipped.
LEGACY = "legacy"
#: A check's verdict; "bounded": its optimum lies inside a limited claim's interval.
CHECK_VERDICTS = ("certified", "refuted", "undecided", "bounded", "skipped")


def _text(value):
    return None if value is None else fraction_text(value)


@dataclass
class Certificate:
    """The outcome of certifying one claim on an instance (λ, N samples, total weight W);
    ``checks`` holds one dict per check.

    ``total_weight`` is W for a rule list with sample weights, None when unweighted (W = N) and
    for a rule.

    ``claimed_lower_bound`` is set for a rule list from a search stopped at a limit, which
    claims only lower bound <= optimum <= objective. ``source`` records how the instance was
    built from data files (``optrules verify`` sets it, so that ``optrules verify --recheck``
    can build it again); None otherwise.
    """

    kind: str
    instance_digest: str
    lam: Fraction
    n_samples: int
    claimed_objective: Fraction
    rescored_objective: Fraction
    model: dict
    claimed_lower_bound: Fraction | None = None
    checks: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    source: dict | None = None
    total_weight: Fraction | None = None
    require: str = "any"

    @property
    def verdict(self):
        return _verdict(self.problems, self.checks, self.require)

    def to_dict(self):
        values = (FORMAT, VERSION, self.kind, self.instance_digest, self.verdict, self.require,
                  _text(self.lam), self.n_samples, _text(self.total_weight),
                  _text(self.claimed_objective),
                  _text(self.rescored_objective), _text(self.claimed_lower_bound), self.model,
                  self.problems, self.checks, self.source)
        return dict(zip(FIELDS, values))

    def save(self, path):
        write_text_atomically(path, json.dumps(self.to_dict(), indent=2) + "\n")


def _verdict(problems, checks, require):
    """The overall verdict (specs/verification.md §7): "refuted" if there is a problem or a
    check refutes; else "certified" if some check certified and, by ``require``: none is
    bounded ("any"), every check certified ("all"), or every other check was skipped
    (:data:`LEGACY`); "undecided" otherwise."""
    verdicts = [check["verdict"] for check in checks]
    if problems or "refuted" in verdicts:
        return "refuted"
    ignored = {"any": ("undecided", "skipped"), "all": (),
               LEGACY: ("skipped",)}[require]
    others = [verdict for verdict in verdicts if verdict not in ignored]
    if "certified" in verdicts and all(verdict == "certified" for verdict in others):
        return "certified"
    return "undecided"


def load_certificate(path):
    """Read a certificate file, checking that it is well-formed and consistent in itself.

    Checked: strict JSON (no NaN or infinite numbers); the format, version 3 (or 2 or 1) and
    exactly the fields that version writes (version 2 has no ``require``: its verdict policy is
    :data:`LEGACY`; version 1 has no ``total_weight`` either: it is unweighted); a verdict
    policy ``require`` of :data:`REQUIRE`; a known kind; a SHA-256 instance digest; λ (in (0,
    1) for a rule list, >= 0 for a rule), N >= 1 and the total weight W (null, i.e. W = N, or
    an exact fraction > 0; null for a rule); the claimed and re-scored objectives and the
    claimed lower bound as exact fractions (0 <= bound <= claim); the model (a valid rule list
    whose re-scored objective is m/W + λK for a mistake weight m in [0, W], an integer when
    unweighted; or a query of distinct proposition indices with their names and α in (0, 1]);
    every check entry well-formed, and a check that proved an optimum carries the verdict that
    optimum gives against the claim; a re-score that differs from the claim, and class counts
    of the model that do not sum to W or do not give the re-scored objective, recorded as a
    problem; and the stored verdict the one the problems and checks give
    (:attr:`Certificate.verdict`).

    What no file can show is that its checks really ran on its data: ``optrules verify
    --recheck CERT DATA...`` runs them again.

    Returns
    -------
    dict
        The certificate's JSON object.

    Raises
    ------
    ValueError
        Naming the file and the field (``checks[1].verdict``).
    """
    body = read_json(path, "certificate")
    try:
        _check_certificate(body)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    return body


def _check_certificate(body):
    """ValueError naming the first field of a certificate's JSON object that is invalid or
    inconsistent with the others (see :func:`load_certificate`)."""
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        raise ValueError(f'not an optrules certificate (expected "format": "{FORMAT}").')
    version = body.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or \
            version not in VERSION_FIELDS:
        raise ValueError(f"the certificate has version {shown(version)}; this optrules reads "
                         f"versions {', '.join(map(str, list(VERSION_FIELDS)[:-1]))} and "
                         f"{list(VERSION_FIELDS)[-1]}.")
    json_object(body, "", VERSION_FIELDS[version])
    require = body["require"] if version >= 3 else LEGACY
    if require not in (REQUIRE if version >= 3 else (LEGACY,)):
        raise ValueError(f"require {shown(require)} is not one of {list(REQUIRE)}.")
    kind = body["kind"]
    if kind not in ("rule-list", "rule"):
        raise ValueError(f"kind {shown(kind)} is not 'rule-list' or 'rule'.")
    if not (isinstance(body["instance_sha256"], str) and
            re.fullmatch("[0-9a-f]{64}", body["instance_sha256"])):
        raise ValueError(f"instance_sha256 must be a SHA-256 digest (64 hexadecimal digits); "
                         f"got {shown(body['instance_sha256'])}.")
    lam = fraction_from_text(body["lambda"], "lambda")
    if not (0 < lam < 1 if kind == "rule-list" else 0 <= lam):
        raise ValueError(f"lambda {body['lambda']} is not in "
                         f"{'(0, 1)' if kind == 'rule-list' else '[0, inf)'}.")
    n_samples = json_number(body["n_samples"], "n_samples", integer=True, low=1)
    total_weight = body.get("total_weight")
    if total_weight is not None:
        total_weight = fraction_from_text(total_weight, "total_weight")
        if kind == "rule" or total_weight <= 0:
            raise ValueError(f"total_weight {body['total_weight']} must be null, or for a rule "
                             "list > 0.")
    claimed, rescored = (fraction_from_text(body[name], name)
                         for name in ("claimed_objective", "rescored_objective"))
    if min(claimed, rescored) < 0:
        raise ValueError("claimed_objective and rescored_objective must be >= 0.")
    lower_bound = None if body["claimed_lower_bound"] is None else \
        fraction_from_text(body["claimed_lower_bound"], "claimed_lower_bound")
    if lower_bound is not None and (kind == "rule" or not 0 <= lower_bound <= claimed):
        raise ValueError(f"claimed_lower_bound {body['claimed_lower_bound']} must be null, or "
                         "for a rule list in [0, claimed_objective].")
    if kind == "rule-list":
        rule_list = _check_rule_list_model(body["model"], lam, n_samples, total_weight,
                                           rescored)
        upper_bound = None
    else:
        rule_list, upper_bound = None, claimed / _check_rule_model(body["model"])
    problems, checks = body["problems"], body["checks"]
    if not isinstance(problems, list) or not all(isinstance(p, str) for p in problems):
        raise ValueError(f"problems must be a list of strings; got {shown(problems)}.")
    if rescored != claimed and not problems:
        raise ValueError(f"rescored_objective {body['rescored_objective']} differs from "
                         f"claimed_objective {body['claimed_objective']}, but problems is empty.")
    counts_problem = None if rule_list is None else _class_counts_problem(
        rule_list, lam, n_samples if total_weight is None else total_weight, rescored)
    if counts_problem and not problems:
        raise ValueError(f"{counts_problem}, but problems is empty.")
    if not isinstance(checks, list):
        raise ValueError(f"checks must be a list; got {shown(checks)}.")
    for i, check in enumerate(checks):
        _check_entry(check, f"checks[{i}]", claimed, lower_bound, upper_bound)
    if body["verdict"] != _verdict(problems, checks, require):
        raise ValueError(f"verdict {shown(body['verdict'])} is not the one the problems and "
                         f"checks give, {_verdict(problems, checks, require)!r}.")
    if body["source"] is not None and not isinstance(body["source"], dict):
        raise ValueError(f"source must be null or a JSON object; got {shown(body['source'])}.")


def _check_rule_list_model(model, lam, n_samples, total_weight, rescored):
    """The certificate's rule list, after checking that the re-scored objective is
    m/W + λK (eq. 6) for a mistake weight m in [0, W], an integer when unweighted (W = N)."""
    rule_list = RuleList.from_dict(model, "model")
    if total_weight is None:
        mistakes = (rescored - lam * len(rule_list)) * n_samples
        if mistakes.denominator != 1 or not 0 <= mistakes <= n_samples:
            raise ValueError(f"rescored_objective {fraction_text(rescored)} is not m/N + "
                             f"lambda*K for any number of mistakes m in [0, N], with N = "
                             f"{n_samples} and K = {len(rule_list)} rules.")
    elif not 0 <= (rescored - lam * len(rule_list)) * total_weight <= total_weight:
        raise ValueError(f"rescored_objective {fraction_text(rescored)} is not m/W + lambda*K "
                         f"for any mistake weight m in [0, W], with W = total_weight "
                         f"{fraction_text(total_weight)} and K = {len(rule_list)} rules.")
    return rule_list


def _class_counts_problem(rule_list, lam, total, rescored):
    """Why the model's class counts (the captured weight of each class, per rule and for the
    default) do not fit the certificate: they must sum to W and give the re-scored objective
    Σ(captured − captured of the predicted class)/W + λK. None if they fit or are absent."""
    rows = [(rule.class_counts, rule.prediction) for rule in rule_list.rules] + \
        [(rule_list.default_counts, rule_list.default)]
    if any(counts is None for counts, _ in rows):
        return None
    counted = sum(sum(counts) for counts, _ in rows)
    if counted != total:
        return (f"the model's class counts sum to {fraction_text(counted)}, not the total "
                f"weight {fraction_text(total)}")
    mistakes = sum(sum(counts) - counts[rule_list.classes.index(prediction)]
                   for counts, prediction in rows)
    objective = Fraction(mistakes) / total + lam * len(rule_list)
    if objective != rescored:
        return (f"the model's class counts give the objective {fraction_text(objective)}, not "
                f"rescored_objective {fraction_text(rescored)}")
    return None


def _check_rule_model(model):
    """α of a rule certificate's model, after checking its query and condition names."""
    json_object(model, "model", ("query", "conditions", "alpha"))
    query, names = model["query"], model["conditions"]
    if not isinstance(query, list) or not all(
            isinstance(j, int) and not isinstance(j, bool) and j >= 0 for j in query) or \
            len(set(query)) != len(query):
        raise ValueError(f"model.query must be a list of distinct proposition indices "
                         f"(integers >= 0); got {shown(query)}.")
    if not isinstance(names, list) or len(names) != len(query) or \
            not all(isinstance(name, str) for name in names):
        raise ValueError(f"model.conditions must be the names of the query's {len(query)} "
                         f"propositions; got {shown(names)}.")
    alpha = fraction_from_text(model["alpha"], "model.alpha")
    if not 0 < alpha <= 1:
        raise ValueError(f"model.alpha {model['alpha']} is not in (0, 1].")
    return alpha


def _check_entry(check, where, claimed, lower_bound, upper_bound):
    """One entry of ``checks``: well-formed, and a proved optimum or counterexample carries
    the verdict :func:`_check_record` gives it against the claim."""
    json_object(check, where, ("check", "verdict", "status"),
                ("optimum", "seconds", "counterexample", "counterexample_objective"))
    for name in ("check", "status"):
        if not isinstance(check[name], str):
            raise ValueError(f"{where}.{name} must be a string; got {shown(check[name])}.")
    verdict = check["verdict"]
    if verdict not in CHECK_VERDICTS:
        raise ValueError(f"{where}.verdict {shown(verdict)} is not one of "
                         f"{list(CHECK_VERDICTS)}.")
    if "seconds" in check:
        json_number(check["seconds"], f"{where}.seconds")
    if not isinstance(check.get("counterexample", []), list) or not all(
            isinstance(j, int) and not isinstance(j, bool) and j >= 0
            for j in check.get("counterexample", [])):
        raise ValueError(f"{where}.counterexample must be a list of proposition indices; got "
                         f"{shown(check['counterexample'])}.")
    optimum, better = (None if check.get(name) is None else
                       fraction_from_text(check[name], f"{where}.{name}")
                       for name in ("optimum", "counterexample_objective"))
    if optimum is not None and verdict in ("certified", "bounded", "refuted"):
        expected = _claim_verdict(optimum, claimed, lower_bound, upper_bound)
        if verdict != expected:
            raise ValueError(f"{where}.verdict is {verdict!r}, but its optimum "
                             f"{check['optimum']} gives {expected!r} against the claim "
                             f"{fraction_text(claimed)}.")
    if better is not None and better <= (claimed if upper_bound is None else upper_bound):
        raise ValueError(f"{where}.counterexample_objective {check['counterexample_objective']} "
                         "does not beat the claim.")
    if (verdict == "bounded" and optimum is None) or \
            (verdict == "refuted" and optimum is None and better is None):
        raise ValueError(f"{where}.verdict is {verdict!r} without the optimum or "
                         "counterexample that shows it.")


def _claim_verdict(optimum, claimed, lower_bound=None, upper_bound=None):
    """What a proved optimum says of the claim: "certified", "bounded" or "refuted".

    With ``lower_bound`` (an engine stopped at a limit claims only lower_bound <= optimum <=
    claimed), an optimum inside that interval is "bounded" rather than refuted. With
    ``upper_bound`` (an α-approximate rule claims claimed <= optimum <= claimed/α), an optimum
    inside that interval certifies the claim.
    """
    if optimum == claimed:
        return "certified"
    if upper_bound is not None:
        return "certified" if claimed <= optimum <= upper_bound else "refuted"
    inside = lower_bound is not None and lower_bound <= optimum <= claimed
    return "bounded" if inside else "refuted"


def _check_record(name, verdict, optimum, claimed, status, seconds, lower_bound=None,
                  upper_bound=None, **extra):
    """One check's entry; a proved optimum turns a "certified" one into the verdict
    :func:`_claim_verdict` gives."""
    if verdict == "certified" and optimum is not None:
        verdict = _claim_verdict(optimum, claimed, lower_bound, upper_bound)
    return dict({"check": name, "verdict": verdict, "status": status,
                 "optimum": _text(optimum), "seconds": round(seconds, 4)}, **extra)


def _checked_require(require):
    if require not in REQUIRE:
        raise ValueError(f"require must be one of {list(REQUIRE)}; got {require!r}.")
    return require


def _status(solver_status, decided):
    """A solver's status, or "INTERRUPTED" when a signal stopped it before it decided."""
    return "INTERRUPTED" if not decided and interrupt_requested() else solver_status


def _not_finished(name, status):
    """The entry of a check that a signal stopped, or that a signal or the run's time budget
    kept from starting (status "INTERRUPTED" or "TIME LIMIT"): it proved nothing."""
    return {"check": name, "verdict": "undecided", "status": status}


def _stoppable(certify):
    """Run ``certify`` as a search: a first signal stops its checks (each then "undecided"),
    a second aborts (:func:`optrules.limits.interruptible`)."""
    @functools.wraps(certify)
    def run(*args, **kwargs):
        with interruptible():
            return certify(*args, **kwargs)
    return run


@_stoppable
def certify_rule_list(instance, rule_list, classes, claimed_objective,
                      checks=RULE_LIST_CHECKS, time_limit=60.0, claimed_lower_bound=None,
                      budget=None, require="any"):
    """Certify that ``rule_list`` is an optimal rule list of ``instance`` with that objective.

    For a search stopped at a limit pass its ``claimed_lower_bound``: the claim is then only
    lower bound <= optimum <= objective; a check whose optimum lies inside that interval but
    below the objective "bounds" the claim (the verdict is then at best "undecided"), and one
    outside it refutes the claim.

    Every check but the plain oracle starts from the claimed list with its re-scored objective
    U (a list the data shows exists, :class:`.rule_list_encodings.KnownList`): the pruned oracle
    as its incumbent, CP-SAT as its hint and with the question "is there a list below U?", and
    all three with at most floor(U/λ) rules.

    Parameters
    ----------
    instance : RuleListInstance
    rule_list : optrules.rule_lists.model.RuleList
    classes : sequence
        The C class values, in the order of the instance's class indices (for two classes:
        negative, positive).
    claimed_objective : Fraction
    checks : iterable of {"oracle", "pruned-oracle", "maxsat", "cp-sat"}
    time_limit : float
        Seconds for each solver.
    claimed_lower_bound : Fraction, optional
    budget : optrules.limits.Budget, optional
        The whole run's time: each solver gets at most what is left, and a check with no time
        left is "undecided" (status "TIME LIMIT") without running.
    require : {"any", "all"}
        Certified when some check proves the claim and none refutes or bounds it ("any"), or
        only when every check proves it ("all").

    Returns
    -------
    Certificate
        With ``total_weight`` = W for a weighted instance (None when unweighted). Problems: a
        re-score other than the claim, labels that are not majority labels, and class counts
        of the model (when it carries them) other than the class weights its rules capture.
    """
    claimed = Fraction(claimed_objective)
    rescored = rescore_rule_list(instance, rule_list, classes)
    certificate = Certificate("rule-list", instance.digest(), instance.lam, instance.n_samples,
                              claimed, rescored.objective, rule_list.to_dict(),
                              None if claimed_lower_bound is None
                              else Fraction(claimed_lower_bound),
                              total_weight=instance.total_weight if instance.weighted else None,
                              require=_checked_require(require))
    index = {name: m for m, name in enumerate(instance.names)}
    known = KnownList(rescored.objective,
                      tuple(index[rule.antecedent] for rule in rule_list.rules),
                      tuple(predicted for _, _, predicted in rescored.captures[:-1]),
                      rescored.captures[-1][2])
    if rescored.objective != claimed:
        certificate.problems.append(f"the model re-scores to {_text(rescored.objective)}, not "
                                    f"the claimed {_text(claimed)}")
    if rescored.non_majority_labels:
        certificate.problems.append(f"labels that are not majority labels: "
                                    f"{list(rescored.non_majority_labels)}")
    wrong_counts = miscounted_rules(rescored, rule_list)
    if wrong_counts:
        certificate.problems.append(f"class counts that are not the class weights the rule "
                                    f"captures: {wrong_counts}")
    for name in checks:
        if name == "oracle":
            try:
                time_for_next_check(time_limit, budget)
                optimum, _ = optimal_rule_list(instance)
                certificate.checks.append(_check_record("oracle", "certified", optimum, claimed,
                                                        "ENUMERATED", 0.0, claimed_lower_bound))
            except InstanceTooLarge as error:
                certificate.checks.append({"check": "oracle", "verdict": "skipped",
                                           "status": str(error)})
            except Interrupted:
                certificate.checks.append(_not_finished("oracle", "INTERRUPTED"))
            except OutOfTime:
                certificate.checks.append(_not_finished("oracle", "TIME LIMIT"))
            continue
        try:
            seconds = time_for_next_check(time_limit, budget)
            solve = {"pruned-oracle": pruned_optimal_rule_list, "cp-sat": solve_cpsat,
                     "maxsat": solve_maxsat}[name]
            answer = solve(instance, seconds, known=known)
        except InstanceTooLarge as error:
            certificate.checks.append({"check": name, "verdict": "skipped", "status": str(error)})
            continue
        except Interrupted:
            certificate.checks.append(_not_finished(name, "INTERRUPTED"))
            continue
        except OutOfTime:
            certificate.checks.append(_not_finished(name, "TIME LIMIT"))
            continue
        certificate.checks.append(_check_record(
            answer.solver, "certified" if answer.certified else "undecided", answer.objective,
            claimed, _status(answer.status, answer.certified), answer.seconds,
            claimed_lower_bound))
    return certificate


@_stoppable
def certify_rule(instance, query, claimed_objective, checks=RULE_CHECKS, time_limit=60.0,
                 alpha=1, budget=None, require="any"):
    """Certify that conjunction ``query`` maximises eq. 2.3 on ``instance`` with that value.

    With ``alpha`` < 1 the claim is the approximation guarantee of Algorithm 1:
    obj(query) >= alpha · max obj, i.e. no conjunction has obj > claimed / alpha.
    ``cardinality`` runs only for constant h and ``oracle`` only for small instances; skipped
    checks are recorded as such. ``time_limit``, ``budget`` and ``require`` as for
    :func:`certify_rule_list`.
    """
    claimed = Fraction(claimed_objective)
    alpha = Fraction(alpha)
    if not 0 < alpha <= 1:
        raise ValueError(f"alpha must be in (0, 1]; got {alpha}.")
    ceiling = claimed / alpha             # the claim: every conjunction has obj <= ceiling
    rescored = rescore_rule(instance, query)
    model = {"query": list(query), "conditions": [instance.names[j] for j in query],
             "alpha": _text(alpha)}
    certificate = Certificate("rule", instance.digest(), instance.lam, instance.n_samples,
                              claimed, rescored, model, require=_checked_require(require))
    if rescored != claimed:
        certificate.problems.append(f"the query re-scores to {_text(rescored)}, not the "
                                    f"claimed {_text(claimed)}")
    for name in checks:
        try:
            seconds = time_for_next_check(time_limit, budget)
            if name == "oracle":
                optimum, _ = optimal_rule(instance)
                record = _check_record("oracle", "certified", optimum, claimed, "ENUMERATED", 0.0,
                                       upper_bound=ceiling)
            elif name == "cardinality" and len(set(instance.h)) != 1:
                record = {"check": name, "verdict": "skipped", "status": "h is not constant"}
            else:
                method = {"claim": None, "dinkelbach": dinkelbach_optimum,
                          "cardinality": cardinality_optimum}[name]
                check = check_claim(instance, ceiling, seconds) if method is None \
                    else method(instance, seconds)
                extra = {}
                if check.counterexample is not None:
                    extra = {"counterexample": list(check.counterexample),
                             "counterexample_objective": _text(check.counterexample_objective)}
                record = _check_record(check.method, check.verdict, check.optimum, claimed,
                                       _status(check.solver_status,
                                               check.verdict != "undecided"), check.seconds,
                                       upper_bound=ceiling, **extra)
        except InstanceTooLarge as error:
            record = {"check": name, "verdict": "skipped", "status": str(error)}
        except Interrupted:
            record = _not_finished(name, "INTERRUPTED")
        except OutOfTime:
            record = _not_finished(name, "TIME LIMIT")
        certificate.checks.append(record)
    return certificate
