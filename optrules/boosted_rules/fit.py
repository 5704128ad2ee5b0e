"""Boosted rules (BOOMER): the sequential assemblage of rules (public entry point).

Algorithm 1 of Rapp et al. (2023): compute the label-space statistics (gradients and Hessians
of the loss, eq. 3) of the current scores; start with a default rule whose body is empty and
whose complete head is the regularised Newton step of all examples (not shrunk); then, for
each of ``max_rules`` rules, let the engine induce a rule greedily (Algorithms 2-3), multiply
its head by ``shrinkage``, add it to the scores of the examples it covers and update their
statistics. ``specs/boosted-rules.md`` states every step.
"""

import contextlib
import importlib
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from optrules.boosted_rules.binning import BINNINGS, feature_bins
from optrules.boosted_rules.heads import HEADS, default_head, regularisation
from optrules.boosted_rules.losses import LOSSES
from optrules.boosted_rules.model import BoostedRules, Rule
from optrules.boosted_rules.sampling import INSTANCE_SAMPLING, Sampler
from optrules.boosted_rules.search import SearchConfig
from optrules.boosted_rules.training_data import (dense_column, is_sparse_matrix,
                                                  sparse_training_data, training_data)
from optrules.data.table import as_features
from optrules.garbage_collection import memory_given_back
from optrules.limits import Budget, interruptible, memory_cap
from optrules.validation import (Boolean, Callable, Indices, Integer, KindAndShare, Options,
                                 Real, validate_params)

__all__ = ["fit_boosted_rules", "ENGINES", "BOOSTED_RULES_CONSTRAINTS"]

#: Engine name -> module holding ``RuleInduction``.
ENGINES = {"reference": "optrules.reference.boomer", "fast": "optrules.fast.boomer"}

FLOAT32_MAX = float(np.finfo(np.float32).max)

#: Parameters of fit_boosted_rules (besides the data) and what each may be.
BOOSTED_RULES_CONSTRAINTS = {
    "loss": [Options(LOSSES)],
    "head": [Options(HEADS)],
    "max_rules": [Integer(0)],
    # rounded to float32, as mlrl-boomer's
    "shrinkage": [Real(0, high=FLOAT32_MAX)],
    "l1": [Real(0, inclusive=True, high=FLOAT32_MAX)],
    "l2": [Real(0, inclusive=True, high=FLOAT32_MAX)],
    "feature_sampling": [Boolean()],
    "instance_sampling": [KindAndShare(INSTANCE_SAMPLING), None],
    "holdout": [Real(0, high=1), None],
    "binning": [KindAndShare(BINNINGS), None],
    "patience": [Integer(1)],
    "min_coverage": [Integer(1)],
    "max_conditions": [Integer(1), None],
    "mlrl_compatible": [Boolean()],
    "engine": [Options(ENGINES)],
    "random_state": [Integer(0), None],
    "n_jobs": [Integer(1)],
    "time_limit": [Real(), None],
    "max_memory": [Real(), None, Options(("auto",))],
    "label_binning": [Real(0, high=1), None],
    "nominal_features": [Indices(), None],
    "progress": [Callable(), None],
}


def fit_boosted_rules(X, y, *, loss="logistic", head="single", max_rules=1000, shrinkage=0.3,
                      l1=0.0, l2=1.0, feature_sampling=True, instance_sampling=None,
                      holdout=None, patience=50, binning=None, min_coverage=1,
                      max_conditions=None, mlrl_compatible=False, engine="fast",
                      random_state=None, n_jobs=1, time_limit=None, max_memory="auto", budget=None,
                      output_names=None, label_binning=None, nominal_features=None,
                      progress=None):
    """Learn a default rule and ``max_rules`` boosted rules greedily (BOOMER).

    Parameters
    ----------
    X : ndarray (n, d), scipy.sparse matrix, DataFrame, dict of columns or Features
        Numerical features are read as float32 (as mlrl-boomer does); categorical ones are
        nominal (``==`` / ``!=``); missing values (NaN, None) satisfy no condition. A sparse
        matrix (any scipy.sparse format, read as CSC; a stored NaN is missing) is searched
        without visiting its zeros (Rapp et al. 2023, §3.2) and gives the model its dense
        form gives.
    y : array-like of shape (n,) or (n, n_outputs)
        0/1 labels (logistic loss; several columns for multi-label data) or real targets
        (squared loss).
    loss : {"logistic", "squared", "example-wise-logistic"}, default "logistic"
        Label-wise logistic, squared error, or the example-wise logistic loss of multi-label
        data (non-decomposable: complete heads solve a linear system; ``head="complete"``).
    head : {"single", "complete"}, default "single"
        A rule predicts for the one output of largest |score| (chosen with its first
        condition), or for every output.
    max_rules : int >= 0, default 1000
        Rules after the default rule (mlrl-boomer's ``max_rules`` counts the default rule:
        its 1001 is this 1000).
    shrinkage : float >= 0, default 0.3
        Factor of every induced rule's head (float32, as in mlrl-boomer); the default rule's
        head is not shrunk.
    l1, l2 : float >= 0, default 0 and 1
        L1 and L2 regularisation weights of the heads (float32).
    feature_sampling : bool, default True
        Search ⌊log2(F - 1) + 1⌋ random features per refinement, instead of all F.
    instance_sampling : {"with:R", "without:R", "stratified:R"} or None, default None
        Learn each rule on a sample of round(R·n) training examples (0 < R <= 1): drawn with
        replacement (an example drawn k times weighs k), without replacement, or without
        replacement within each set of examples with the same labels (classification). The
        head is then recomputed on every training example the rule covers.
    holdout : float in (0, 1) or None, default None
        Set this share of the examples aside (stratified by labels for classification): they
        never count in the search, and their mean loss after each rule is the model's
        ``holdout_loss`` curve.
    patience : int >= 1, default 50
        With a holdout set, stop once the last ``patience`` rules have not lowered the holdout
        loss below its least value so far, and keep the rules up to that least value (status
        "early-stopping").
    binning : {"width:R", "frequency:R"} or None, default None
        The histogram-based search (Rapp et al. 2023, §4): each numerical feature's values are
        put once into max(2, ⌈R · distinct values⌉) equal-width or equal-frequency bins, and
        only the thresholds between neighbouring bins are tried. Not with
        ``mlrl_compatible``.
    min_coverage : int >= 1, default 1
    max_conditions : int or None, default None
    mlrl_compatible : bool, default False
        Follow mlrl-boomer 0.12.3's search, including the boundary it skips, its bookkeeping of
        sums and counts, its order of equal values, of nominal values and of missing values
        (its C++ library's std::sort, std::unordered_map and std::unordered_set), and its
        search of sparse matrices, which it densifies unless that takes more memory
        (specs/boosted-rules.md §4.2-4.4, §4.7-4.8).
        Nominal values must then be int32 integers.
    engine : {"fast", "reference"}, default "fast"
    random_state : int or None, default None
        Seed of the feature sampling.
    n_jobs : int >= 1, default 1
        Threads searching the features of a refinement at once (the rules do not change).
    time_limit : float or None, default None
        Seconds for the whole fit; when they run out, or at a first Ctrl-C (SIGINT) or
        SIGTERM, or when the process's resident memory reaches ``max_memory`` MB ("auto": half
        of the physical or container memory), boosting stops after the rule under way and
        the model keeps the rules so far, with status "time-limit", "interrupted" or
        "memory-limit".
    max_memory : float, "auto" or None, default "auto"
    budget : optrules.limits.Budget, optional
        An outer budget the fit also stops at (the CLI's whole-command time limit).
    output_names : optional
        Names of the outputs (default ``y0, y1, ...``).
    label_binning : float in (0, 1) or None, default None
        With the example-wise loss: gradient-based label binning (Rapp et al. 2021) with this
        bin ratio (mlrl-boomer's default is 0.04): the outputs of each head share the scores of
        at most ⌈ratio·K⌉ + 1 bins of similar output-wise scores, so each system has that
        size instead of K. The default rule's head is exact.
    nominal_features : sequence of int, optional
        Indices of numeric columns to treat as nominal (``x == v`` / ``x != v`` with v one of
        their values), as mlrl-boomer's ``nominal_attribute_indices``.
    progress : callable, optional
        Called as ``progress(t, rule_text)`` after each rule.

    Returns
    -------
    BoostedRules

    Examples
    --------
    >>> model = fit_boosted_rules([[1.0], [2.0], [3.0], [4.0]], [0, 0, 1, 1], max_rules=1,
    ...                           feature_sampling=False)
    >>> print(model)
    {} => (y0 = 0)
    {x0 > 2.5} => (y0 = 0.2)
    """
    given = validate_params(BOOSTED_RULES_CONSTRAINTS, {
        "loss": loss, "head": head, "max_rules": max_rules, "shrinkage": shrinkage, "l1": l1,
        "l2": l2, "feature_sampling": feature_sampling, "instance_sampling": instance_sampling,
        "holdout": holdout, "patience": patience, "binning": binning,
        "min_coverage": min_coverage,
        "max_conditions": max_conditions, "mlrl_compatible": mlrl_compatible,
        "engine": engine, "random_state": random_state, "n_jobs": n_jobs,
        "time_limit": time_limit,
        "max_memory": max_memory, "label_binning": label_binning,
        "nominal_features": nominal_features,
        "progress": progress}, "fit_boosted_rules")
    if given["loss"] == "example-wise-logistic" and given["head"] != "complete":
        raise ValueError("fit_boosted_rules: the example-wise logistic loss takes complete "
                         "heads (head='complete'); its single-output heads are not offered.")
    if given["label_binning"] is not None and given["loss"] != "example-wise-logistic":
        raise ValueError("fit_boosted_rules: label_binning bins the outputs of the "
                         "example-wise logistic loss; it has no effect on a decomposable loss.")
    if given["loss"] == "example-wise-logistic" and given["mlrl_compatible"]:
        raise ValueError("fit_boosted_rules: mlrl_compatible reproduces mlrl-boomer's search "
                         "for decomposable losses; the example-wise logistic loss is not one.")
    if given["binning"] is not None and given["mlrl_compatible"]:
        raise ValueError("fit_boosted_rules: mlrl_compatible reproduces mlrl-boomer's "
                         "pre-sorted search; it cannot be combined with binning.")
    data = _training_data(X, given["nominal_features"] or ())
    if data.n_examples == 0:
        raise ValueError("fit_boosted_rules: X has no rows; at least one example is needed.")
    mlrl_sparse = data.sparse and given["mlrl_compatible"] and _mlrl_keeps_sparse(X)
    if data.sparse and given["mlrl_compatible"]:    # mlrl-boomer's search, on dense columns
        data = data.densified()
    if given["mlrl_compatible"]:
        _check_int32_codes(data)
    targets = _targets(y, data.n_examples, given["loss"])
    names = tuple(output_names) if output_names is not None else \
        tuple(f"y{k}" for k in range(targets.shape[1]))
    if len(names) != targets.shape[1]:
        raise ValueError(f"output_names must name the {targets.shape[1]} outputs of y. Got "
                         f"{len(names)} names instead.")
    with interruptible(), memory_given_back():
        total = Budget(given["time_limit"], memory_cap(given["max_memory"]), parent=budget)
        return _assemble(data, targets, names, given, total, mlrl_sparse)


def _mlrl_keeps_sparse(X):
    """Whether mlrl-boomer (``feature_format="auto"``) searches sparse ``X`` as a sparse
    matrix: when its CSC form (a 4-byte value and row index per stored entry, a 4-byte
    pointer per column) takes less memory than the dense float32 matrix; else it densifies."""
    n_examples, n_features = X.shape
    return 8 * X.nnz + 4 * n_features < 4 * n_examples * n_features


def _training_data(X, nominal):
    """The :class:`TrainingData` of dense or sparse ``X`` with the numeric columns
    ``nominal`` (indices) nominal; ValueError for an index that is not such a column."""
    if is_sparse_matrix(X) and len(X.shape) != 2:
        raise ValueError(f"Found sparse X of shape {X.shape}: it must be 2-D (examples x "
                         "features).")
    features = None if is_sparse_matrix(X) else as_features(X)
    n_features = X.shape[1] if features is None else features.n_features
    for j in nominal:
        if j >= n_features:
            raise ValueError(f"nominal_features must hold column indices in [0, {n_features}). "
                             f"Got {j} instead.")
        if features is not None and not features.numeric[j]:
            raise ValueError(f"nominal_features: column {j} ({features.names[j]!r}) is "
                             "categorical, hence nominal already.")
    return training_data(features, nominal) if features is not None else \
        sparse_training_data(X, nominal)


def _check_int32_codes(data):
    """ValueError unless every nominal value is an int32 integer: mlrl-boomer truncates
    nominal values to int32, which ``mlrl_compatible`` does not reproduce."""
    for j in range(data.n_features):
        values = data.values[j]
        if data.nominal[j]:
            values = values[~np.isnan(values)]
            bad = values[(values != np.trunc(values)) | (values < -2 ** 31) | (values >= 2 ** 31)]
            if len(bad):
                raise ValueError(f"mlrl_compatible: nominal feature {j} ({data.names[j]!r}) "
                                 "must hold int32 integers (mlrl-boomer truncates others). "
                                 f"Got {float(bad[0])!r} instead.")


def _targets(y, n_examples, loss):
    targets = np.asarray(y, dtype=np.float64)
    if targets.ndim == 1:
        targets = targets[:, None]
    if targets.ndim != 2 or len(targets) != n_examples or targets.shape[1] == 0:
        raise ValueError(f"y must have {n_examples} rows (one per example) and one column per "
                         f"output. Got shape {np.shape(y)} instead.")
    if not np.isfinite(targets).all():
        raise ValueError("y must hold finite numbers.")
    if loss != "squared" and not np.isin(targets, (0.0, 1.0)).all():
        raise ValueError(f"y must hold 0/1 labels for the {loss} loss.")
    return targets


def _assemble(data, targets, output_names, given, budget, mlrl_sparse=False):
    """Algorithm 1: the default rule, then ``max_rules`` induced rules, while ``budget``
    allows and the holdout loss keeps improving."""
    start = time.perf_counter()
    l1, l2 = regularisation(given["l1"], given["l2"])
    config = SearchConfig(given["head"], l1, l2, given["min_coverage"], given["max_conditions"],
                          given["mlrl_compatible"], given["n_jobs"],
                          LOSSES[given["loss"]].packed_hessian, given["label_binning"],
                          mlrl_sparse)
    with ThreadPoolExecutor(given["n_jobs"]) if given["n_jobs"] > 1 else \
            contextlib.nullcontext() as pool:
        engine = importlib.import_module(ENGINES[given["engine"]])
        induction = engine.RuleInduction(data, config, pool, _bins(data, given["binning"]))
        return _boost(induction, data, targets, output_names, given, config, budget, start)


def _bins(data, binning):
    """Each numerical feature's :class:`FeatureBins` (None for nominal ones), or None."""
    if binning is None:
        return None
    method, ratio = KindAndShare.split(binning)
    return tuple(None if nominal else feature_bins(dense_column(values), method, ratio)
                 for values, nominal in zip(data.values, data.nominal))


def _boost(induction, data, targets, output_names, given, config, budget, start):
    """The loop of Algorithm 1 with a ready :class:`RuleInduction`."""
    loss = LOSSES[given["loss"]]
    l1, l2 = config.l1, config.l2
    shrinkage = float(np.float32(given["shrinkage"]))
    sampler = Sampler(targets, data.n_features, given["loss"] != "squared",
                      given["feature_sampling"],
                      None if given["instance_sampling"] is None
                      else KindAndShare.split(given["instance_sampling"]), given["holdout"],
                      given["random_state"])
    training, holdout = sampler.training, np.flatnonzero(sampler.holdout)
    scores = np.zeros_like(targets)
    gradients, hessians = loss.statistics(targets, scores)
    # the default rule: the complete head of the training examples, not shrunk
    default = default_head(*_sums(gradients, hessians, training), l1, l2, loss.packed_hessian)
    rules = [Rule((), tuple(range(targets.shape[1])), tuple(float(s) for s in default))]
    scores += default
    gradients, hessians = loss.statistics(targets, scores)
    curves = _Curves(loss, targets, training, holdout)
    curves.record(scores)
    # a model of no rules, which writes each new rule as the finished model will
    text = BoostedRules((), loss.name, data.names, data.categories, output_names, (), (), 0.0,
                        "complete", data.nominal)
    status = "complete"
    for t in range(given["max_rules"]):
        stop = budget.stop_reason()
        if stop is not None:
            status = stop
            break
        found = induction.find_rule(gradients, hessians, sampler.weights(), sampler.features)
        if found is None:
            status = "no-improvement"
            break
        rows = np.flatnonzero(found.covered)
        head = found.scores
        if given["instance_sampling"] is not None:
            # the head of a rule found on a sample: recomputed on every training example the
            # rule covers (mlrl-boomer's recalculate_predictions)
            head = _recalculated_head(found, gradients, hessians, rows[~sampler.holdout[rows]],
                                      config)
        head = head * shrinkage
        scores[np.ix_(rows, found.outputs)] += head
        gradients[rows], hessians[rows] = loss.statistics(targets[rows], scores[rows])
        rule = Rule(found.conditions, tuple(int(k) for k in found.outputs),
                    tuple(float(s) for s in head))
        rules.append(rule)
        curves.record(scores, rows)
        if given["progress"] is not None:
            given["progress"](t, text.rule_text(rule))
        if len(holdout) and curves.stalled(given["patience"]):
            status = "early-stopping"
            break
    if status == "early-stopping":           # keep the rules up to the least holdout loss
        rules = rules[:curves.best + 1]
        curves.truncate(curves.best + 1)
    return BoostedRules(tuple(rules), loss.name, data.names, data.categories, output_names,
                        tuple(curves.training), tuple(curves.holdout),
                        time.perf_counter() - start, status, data.nominal)


def _sums(gradients, hessians, rows):
    """Σ g and Σ h over ``rows``, added in example order (0 for no rows)."""
    if not len(rows):
        return np.zeros(gradients.shape[1]), np.zeros(hessians.shape[1])
    return np.cumsum(gradients[rows], axis=0)[-1], np.cumsum(hessians[rows], axis=0)[-1]


def _recalculated_head(found, gradients, hessians, rows, config):
    """The scores of ``found``'s head outputs for the statistics of ``rows``, unweighted."""
    if config.packed_hessian:                    # complete heads: every output
        sum_g, sum_h = _sums(gradients, hessians, rows)
        return config.complete_heads(sum_g[:, None], sum_h[:, None])[0][:, 0]
    sum_g, sum_h = _sums(gradients[:, found.outputs], hessians[:, found.outputs], rows)
    return default_head(sum_g, sum_h, config.l1, config.l2, False)


class _Curves:
    """Mean training and holdout loss after the default rule and after each rule, and the
    early-stopping rule: stop once the last ``patience`` rules have not lowered the holdout
    loss below its least value so far."""

    def __init__(self, loss, targets, training, holdout):
        self.loss, self.targets = loss, targets
        self.training_rows, self.holdout_rows = training, holdout
        self.training, self.holdout = [], []
        self.best = 0
        self.values = None                  # each example's loss (a row: its outputs' losses)

    def record(self, scores, changed=None):
        """Append the mean losses at ``scores``; only the examples ``changed`` (all when None)
        have new scores since the last call."""
        if changed is None:
            self.values = self.loss.values(self.targets, scores)
        else:
            self.values[changed] = self.loss.values(self.targets[changed], scores[changed])
        for rows, curve in ((self.training_rows, self.training),
                            (self.holdout_rows, self.holdout)):
            if len(rows):
                curve.append(float(self.values[rows].mean()))
        if self.holdout and self.holdout[-1] < self.holdout[self.best]:
            self.best = len(self.holdout) - 1

    def stalled(self, patience):
        return len(self.holdout) - 1 - self.best >= patience

    def truncate(self, length):
        del self.training[length:], self.holdout[length:]
