"""Test score against the number of boosted rules, optimal against greedy base learners: the
kind of Boley et al. 2021, Fig. 2, and the curve whose normalised area their Table 1 reports.

References
----------
.. [1] M. Boley, S. Teshuva, P. Le Bodic, G. I. Webb. "Better short than greedy:
   interpretable models through optimal rule boosting." SDM 2021 (§4, Fig. 2).
"""

from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from optrules.base import r_squared
from optrules.data.table import as_features
from optrules.plot.figure import new_figure, save
from optrules.rule_boosting.model import RuleEnsemble

__all__ = ["boosting_curve", "rule_count_scores"]


def rule_count_scores(model, X, y):
    """The test score of the first k rules of a boosted ensemble, for k = 0, 1, ..., K.

    Parameters
    ----------
    model : OptimalRuleBoostingClassifier, OptimalRuleBoostingRegressor or RuleEnsemble
        Fitted.
    X : DataFrame, ndarray or dict of columns
        Test features.
    y : array-like
        Test target.

    Returns
    -------
    (list of float, str)
        The K + 1 scores and their name: ``"ROC-AUC"`` of the ensemble's scores f(x) for the
        logistic loss (0.5 for k = 0, where every score is the same), else ``"R²"`` of its
        predictions.

    Raises
    ------
    ValueError
        When ``y`` has one class only (ROC-AUC needs both) or a length other than ``X``'s.
    """
    ensemble = getattr(model, "ensemble_", model)
    if not isinstance(ensemble, RuleEnsemble):
        raise TypeError(f"rule_count_scores takes a fitted rule-boosting estimator or a "
                        f"RuleEnsemble. Got {type(model).__name__} instead.")
    features = as_features(X)
    y = np.asarray(y)
    if len(y) != features.n_samples:
        raise ValueError(f"y has {len(y)} values but X has {features.n_samples} rows.")
    if ensemble.classes is not None:
        positive = y == ensemble.classes[1]
        if positive.all() or not positive.any():
            raise ValueError(f"ROC-AUC needs test rows of both classes "
                             f"{list(ensemble.classes)}; y has one.")
    scores = []
    for k in range(len(ensemble.rules) + 1):
        first = replace(ensemble, rules=ensemble.rules[:k])
        if ensemble.classes is None:
            scores.append(r_squared(y, first.predict(features)))
        else:
            scores.append(_roc_auc(positive, first.decision_function(features)))
    return scores, "R²" if ensemble.classes is None else "ROC-AUC"


def _roc_auc(positive, scores):
    """The area under the ROC curve: the chance that a positive row scores above a negative
    one, ties counting half (the Mann-Whitney statistic from mid-ranks)."""
    n_positive = int(positive.sum())
    n_negative = len(positive) - n_positive
    _, group, counts = np.unique(scores, return_inverse=True, return_counts=True)
    mid_ranks = np.cumsum(counts) - (counts - 1) / 2           # 1-based, ties share the mean
    rank_sum = float(mid_ranks[group.ravel()][positive].sum())
    return (rank_sum - n_positive * (n_positive + 1) / 2) / (n_positive * n_negative)


def boosting_curve(curves, path, *, X=None, y=None, size=(6.4, 4.8), dpi=100, ylabel=None,
                   title=None):
    """Plot test score against the number of rules, one line per model, and save it as PNG
    or SVG.

    Parameters
    ----------
    curves : mapping of str to model or sequence of float
        Label -> a fitted rule-boosting estimator or :class:`RuleEnsemble` (scored on ``X``,
        ``y`` by :func:`rule_count_scores`), or the scores already computed (element k: the
        score of the first k rules).
    path : str or path
        The file to write; ``.png`` or ``.svg``.
    X, y : test data, optional
        Needed when a curve is a model.
    size : (float, float), default (6.4, 4.8)
        Width and height in inches.
    dpi : float, default 100
        Dots per inch (see :func:`optrules.plot.search_trace`).
    ylabel : str, optional
        The score's name; by default "test" and the metric of the models scored (when all
        curves are scores: "test score").
    title : str, optional

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    ImportError
        When matplotlib is missing (install ``optrules[plot]``).
    TypeError, ValueError
        For a bad parameter, naming it.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from optrules import OptimalRuleBoostingClassifier
    >>> from optrules.data import bundled_csv, read_csv
    >>> X, y = read_csv(bundled_csv("parity"), target="parity")
    >>> train, test = X.take(slice(0, 150)), X.take(slice(150, None))
    >>> models = {search: OptimalRuleBoostingClassifier(3, search=search).fit(train, y[:150])
    ...           for search in ("optimal", "greedy")}
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "boosting.svg"
    >>> boosting_curve(models, path, X=test, y=y[150:]).suffix
    '.svg'
    """
    figure = new_figure(path, size, dpi, "boosting_curve")
    if not isinstance(curves, Mapping) or not curves:
        raise TypeError(f"The 'curves' parameter of boosting_curve must be a non-empty mapping "
                        f"of labels to models or scores. Got {curves!r} instead.")
    axes = figure.subplots()
    metrics = set()
    for label, curve in curves.items():
        if isinstance(curve, (list, tuple, np.ndarray)):
            scores = [float(score) for score in curve]
        elif X is None or y is None:
            raise ValueError(f"boosting_curve needs the test data X and y to score the model "
                             f"{label!r}.")
        else:
            scores, metric = rule_count_scores(curve, X, y)
            metrics.add(metric)
        axes.plot(range(len(scores)), scores, marker="o", label=str(label))
    if ylabel is None:
        ylabel = "test " + (metrics.pop() if len(metrics) == 1 else "score")
    axes.set(xlabel="number of rules", ylabel=ylabel,
             title=title or f"{ylabel} against the number of rules")
    axes.xaxis.get_major_locator().set_params(integer=True)
    axes.legend()
    return save(figure, path)
