"""Fitting a compressed rule ensemble end to end (Nalenz and Augustin §3-4; ``specs/cre.md``):
harvest hard rules, cluster each feature's split points, replace conditions by soft
conditions, filter the smooth rules, then fit the L1 GLM by cross-validation (``"glm"``) or
average the most frequent rules (``"average"``).

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(200, 2)); y = (X[:, 0] > 0.3).astype(float)
>>> model = fit_compressed_rules(X, y, loss="logistic", n_trees=50, random_state=0)
>>> model.terms()[1]["term"]
'x0 <= [0.291935;0.297364]'
"""

import importlib
import time

import numpy as np

from optrules.blas import single_blas_thread
from optrules.compressed_rules.averaging import most_frequent, rule_means
from optrules.compressed_rules.clustering import CRITERIA, ENGINES, cluster_split_points
from optrules.compressed_rules.design import (linear_terms, rule_scales, select_rule_columns,
                                              standardised)
from optrules.compressed_rules.glm import cross_validated_lasso
from optrules.compressed_rules.model import VARIANTS, CompressedRules, LinearTerm
from optrules.compressed_rules.rule_sources import harvested_rules
from optrules.compressed_rules.soft_rules import compress_rules
from optrules.validation import (Boolean, Callable, FilePath, Integer, Options, Real, Sequence,
                                 validate_params)

__all__ = ["fit_compressed_rules", "CRE_CONSTRAINTS", "LAMBDA_CHOICES", "LOSSES"]

LOSSES = ("logistic", "squared")
LAMBDA_CHOICES = ("1se", "min")

CRE_CONSTRAINTS = {
    "loss": [Options(LOSSES)],
    "kmax": [Integer(1)],
    "criterion": [Options(CRITERIA)],
    "eta": [Real(0, inclusive=True)],
    "linear": [Boolean()],
    "variant": [Options(VARIANTS)],
    "rules_from": [FilePath(), Sequence()],
    "folds": [Integer(2)],
    "lambda_choice": [Options(LAMBDA_CHOICES)],
    "n_rules": [Integer(1)],
    "n_trees": [Integer(1)],
    "max_depth": [Integer(1)],
    "engine": [Options(ENGINES)],
    "random_state": [Integer(0), None],
    "progress": [Callable(), None],
}


def fit_compressed_rules(X, y, *, loss, kmax=4, criterion="aic", eta=0.5, linear=False,
                         variant="glm", rules_from="boosted", folds=10, lambda_choice="1se",
                         n_rules=10, n_trees=500, max_depth=3, engine="fast", random_state=None,
                         feature_names=None, progress=None):
    """Fit a compressed rule ensemble.

    Parameters
    ----------
    X : array of shape (n, d)
        Numeric features, NaN for a missing value.
    y : array of shape (n,)
        0/1 for ``loss="logistic"``, real for ``"squared"``.
    loss : {"logistic", "squared"}
    kmax, criterion, eta, linear, variant, rules_from, folds, lambda_choice, n_rules,
    n_trees, max_depth, engine, random_state
        See :class:`~optrules.compressed_rules.estimator.CompressedRuleEnsembleClassifier`.
    feature_names : sequence of str, optional
        Default ``x0, x1, ...``; a user's rules may name them.
    progress : callable, optional
        Called with a line of text after each stage.

    Returns
    -------
    CompressedRules
    """
    params = validate_params(CRE_CONSTRAINTS, dict(
        loss=loss, kmax=kmax, criterion=criterion, eta=eta, linear=linear, variant=variant,
        rules_from=rules_from, folds=folds, lambda_choice=lambda_choice, n_rules=n_rules,
        n_trees=n_trees, max_depth=max_depth, engine=engine, random_state=random_state,
        progress=progress), "fit_compressed_rules")
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
    names = tuple(feature_names) if feature_names is not None else \
        tuple(f"x{j}" for j in range(X.shape[1]))
    if params["variant"] == "glm" and params["folds"] > len(y):
        raise ValueError(f"folds={params['folds']} needs at least {params['folds']} examples; "
                         f"X has {len(y)} sample{'s' if len(y) != 1 else ''}.")
    with single_blas_thread():     # many small products: a second thread only contends
        return _fit(X, y, names, params, progress or (lambda text: None))


def _fit(X, y, names, params, say):
    started = time.perf_counter()
    module = importlib.import_module(ENGINES[params["engine"]])
    # The squared loss works on the standardised target (as glmnet does): harvest and GLM
    # then do not depend on y's units, and the GLM's tolerances are relative to its spread.
    centre, spread = _location_and_scale(y) if params["loss"] == "squared" else (0.0, 1.0)
    target = standardised(y[:, None], centre, spread, 1.0)[:, 0]    # y - centre may overflow

    rules = harvested_rules(params["rules_from"], X, target, loss=params["loss"],
                            feature_names=names, n_trees=params["n_trees"],
                            max_depth=params["max_depth"], random_state=params["random_state"])
    say(f"{len(rules)} rules from {_source_text(params['rules_from'])}")
    clusters = _clustered_split_points(rules, params)
    smooth = compress_rules(rules, clusters)
    outputs = module.smooth_rule_matrix(X, smooth.rules, clusters)
    kept = select_rule_columns(outputs)
    say(f"{sum(len(c) for c in clusters.values())} soft conditions on {len(clusters)} "
        f"features, {len(smooth.rules)} smooth rules, {len(kept)} within the support and "
        "distinct")
    common = dict(loss=params["loss"], variant=params["variant"], feature_names=names)
    fit = {"harvested_rules": len(rules), "smooth_rules": len(smooth.rules),
           "candidate_rules": len(kept)}
    if params["variant"] == "average":
        chosen = [kept[i] for i in most_frequent([smooth.counts[h] for h in kept],
                                                 params["n_rules"])]
        mu_plus, mu_minus = rule_means(outputs[:, chosen], y)
        fit["seconds"] = time.perf_counter() - started
        return CompressedRules(**common, **_used(clusters, smooth, chosen),
                               mu_plus=mu_plus.tolist(), mu_minus=mu_minus.tolist(),
                               intercept=float(y.mean()) if len(y) else 0.0, fit=fit)

    lengths = [smooth.rules[h].length for h in kept]
    scales = rule_scales(lengths, params["eta"])
    design = outputs[:, kept] / scales
    if params["linear"]:
        terms, (means, sds) = linear_terms(X)
        design = np.hstack([design, terms])
    lasso = cross_validated_lasso(design, target, params["loss"], module,
                                  n_folds=params["folds"], rule=params["lambda_choice"],
                                  random_state=params["random_state"], progress=say)
    intercept = float(lasso.intercepts[lasso.chosen])
    beta = lasso.coefficients[lasso.chosen]
    lam = float(lasso.lambdas[lasso.chosen])
    # λ and coefficients in y's units; the CV loss and the certificate are of the problem
    # solved (on the standardised target for the squared loss)
    fit.update({"lambda": lam * spread, "lambda_choice": params["lambda_choice"],
                "folds": params["folds"], "cv_loss": float(lasso.cv_mean[lasso.chosen]),
                "cv_se": float(lasso.cv_se[lasso.chosen]), "target_mean": centre,
                "target_sd": spread},
               kkt=_certificate(design, target, intercept, beta, lam, params["loss"]))
    chosen = [h for h, b in zip(kept, beta[:len(kept)]) if b != 0.0]
    linear = [LinearTerm(j, float(b) * spread, float(means[j]), float(sds[j]))
              for j, b in enumerate(beta[len(kept):]) if b != 0.0]
    say(f"lambda_{params['lambda_choice']} = {lam * spread:.4g}: {len(chosen)} rules and "
        f"{len(linear)} linear terms; {fit['kkt']['verdict']}")
    fit["seconds"] = time.perf_counter() - started
    return CompressedRules(**common, **_used(clusters, smooth, chosen),
                           scales=[float(scales[kept.index(h)]) for h in chosen],
                           coefficients=[float(b) * spread for b in beta[:len(kept)]
                                         if b != 0.0],
                           linear=linear, intercept=centre + spread * intercept, fit=fit)


def _location_and_scale(y):
    """(mean, standard deviation) of y, the latter 1 for a constant y; computed on y divided
    by its largest magnitude, so that squares of large targets do not overflow."""
    largest = float(np.max(np.abs(y))) if len(y) else 0.0
    if largest == 0.0:
        return 0.0, 1.0
    mean = float(np.mean(y / largest)) * largest
    spread = float(np.std(y / largest)) * largest
    return mean, spread if spread > 0.0 else 1.0


def _clustered_split_points(rules, params):
    """Each tested feature's clusters of the split points of all its conditions."""
    points = {}
    for rule in rules:
        for feature, _, threshold in rule:
            points.setdefault(feature, []).append(threshold)
    return {feature: cluster_split_points(values, k_max=params["kmax"],
                                          criterion=params["criterion"],
                                          engine=params["engine"])
            for feature, values in sorted(points.items())}


def _used(clusters, smooth, chosen):
    """The model's rules, counts and the clusters of the features they test."""
    rules = [smooth.rules[h] for h in chosen]
    features = {c.feature for rule in rules for c in rule.conditions}
    return {"rules": rules, "counts": [smooth.counts[h] for h in chosen],
            "clusters": {f: clusters[f] for f in sorted(features)}}


def _certificate(design, y, intercept, beta, lam, loss):
    """verify's KKT check of the chosen fit, as JSON-ready data."""
    from optrules.verify.lasso_kkt import check_lasso_kkt
    check = check_lasso_kkt(design, y, intercept, beta, lam, loss)
    return {"ok": check.ok, "largest_violation": check.largest_violation,
            "tolerance": check.tolerance, "objective": check.objective, "verdict": str(check)}


def _source_text(source):
    if isinstance(source, str) and source == "boosted":
        return "boosted trees"
    return f"file {source}" if isinstance(source, str) or hasattr(source, "__fspath__") \
        else "the given list"
