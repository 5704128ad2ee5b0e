"""One feature's split points in a compressed rule ensemble, coloured by their cluster, with
each cluster's soft condition Φ(x): the kind of Nalenz and Augustin, Fig. 2
(``specs/cre.md`` §2-3).

References
----------
.. [1] M. Nalenz, T. Augustin. "Compressed Rule Ensemble Learning." AISTATS 2022 (§4.2-4.3,
   Fig. 2).
"""

import importlib

import numpy as np

from optrules.compressed_rules.clustering import ENGINES
from optrules.compressed_rules.model import CompressedRules
from optrules.compressed_rules.soft_rules import SmoothRule, SoftCondition
from optrules.plot.figure import counted, new_figure, save
from optrules.validation import Integer, validate_params

__all__ = ["cre_split_points", "clustered_feature"]

_MODEL = "The 'model' parameter of cre_split_points"
_FEATURE = "The 'feature' parameter of cre_split_points"

#: Points of the curves Φ(x).
_GRID = 1000


def cre_split_points(model, feature, path, *, size=(6.4, 4.0), dpi=100, bins=40):
    """Plot the split points of one feature of a compressed rule ensemble and the soft
    conditions of their clusters, and save it as PNG or SVG.

    A histogram of the feature's split points (with their multiplicity: a split point used by
    many harvested rules weighs more), each cluster in its colour, and on a second axis each
    cluster's soft condition Φ(x) = (1/n_l) Σ_{t in l} I(x <= t) as a dashed line in the same
    colour (a ``>`` condition is 1 − Φ(x)).

    Parameters
    ----------
    model : CompressedRuleEnsembleClassifier, CompressedRuleEnsembleRegressor or CompressedRules
        Fitted (or loaded by :func:`optrules.load_model`).
    feature : str or int
        The feature's name or index; its split points must have been clustered (a rule of the
        harvest tested it).
    path : str or path
        The file to write; ``.png`` or ``.svg``.
    size : (float, float), default (6.4, 4.0)
        Width and height in inches.
    dpi : float, default 100
        Dots per inch (see :func:`optrules.plot.search_trace`).
    bins : int >= 1, default 40
        Histogram bins over the split points' range.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    ImportError
        When matplotlib is missing (install ``optrules[plot]``).
    ValueError
        For a feature that is not one of the model's clustered features (listing them), or
        another bad parameter.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from optrules import CompressedRuleEnsembleClassifier
    >>> from optrules.data import bundled_csv, read_csv
    >>> X, y = read_csv(bundled_csv("parity"), target="parity")
    >>> model = CompressedRuleEnsembleClassifier(2, n_trees=50, random_state=0).fit(X, y)
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "x1.png"
    >>> cre_split_points(model, "x1", path).name
    'x1.png'
    """
    bins = validate_params({"bins": [Integer(1)]}, {"bins": bins}, "cre_split_points")["bins"]
    figure = new_figure(path, size, dpi, "cre_split_points")
    rules, index = clustered_feature(model, feature)
    clusters = rules.clusters[index]
    name = rules.feature_names[index]
    low, high = clusters[0].low, clusters[-1].high
    margin = (high - low) * 0.05 or 1.0
    edges = np.linspace(low, high, bins + 1) if high > low else [low - margin, high + margin]
    histogram = figure.subplots()
    histogram.hist([cluster.values for cluster in clusters], bins=edges, stacked=True,
                   weights=[cluster.weights for cluster in clusters],
                   color=[f"C{l}" for l in range(len(clusters))],
                   label=[f"cluster {l + 1}: [{c.low:.4g}; {c.high:.4g}], "
                          f"{counted(c.size, 'point')}" for l, c in enumerate(clusters)])
    points = counted(sum(c.size for c in clusters), "split point")
    histogram.set(xlabel=name, ylabel="split points",
                  title=f"{name}: {points} in {counted(len(clusters), 'cluster')}")
    soft = histogram.twinx()
    grid = np.linspace(low - margin, high + margin, _GRID)
    for l, phi in enumerate(_soft_conditions(rules, index, grid).T):
        soft.plot(grid, phi, "--", color=f"C{l}")
    soft.set(ylabel="Φ(x), dashed", ylim=(-0.02, 1.02))
    figure.legend(loc="outside lower center", ncols=2, fontsize="small")
    return save(figure, path)


def clustered_feature(model, feature, model_name=_MODEL, feature_name=_FEATURE):
    """``(rules, index)``: the :class:`CompressedRules` of ``model`` (an estimator or the rules
    themselves) and the index of ``feature`` (a name or an index) among its clustered
    features. Errors begin with ``model_name`` or ``feature_name`` (``optrules plot cre``
    passes its file and ``--feature``)."""
    rules = getattr(model, "model_", model)
    if not isinstance(rules, CompressedRules):
        raise TypeError(f"{model_name} must be a fitted compressed rule ensemble (optrules cre "
                        f"--save-model writes one). Got {type(model).__name__} instead.")
    names = rules.feature_names
    index = names.index(feature) if isinstance(feature, str) and feature in names else \
        feature if isinstance(feature, (int, np.integer)) and not isinstance(feature, bool) \
        else None
    if index not in rules.clusters and not rules.rules:
        # an empty list of the clustered features would leave the user guessing why
        raise ValueError(f"{feature_name} cannot be {feature!r}: the model has no rule terms "
                         f"(only its intercept and linear terms), so no feature's split points "
                         f"were clustered.")
    if index not in rules.clusters:
        clustered = [names[j] for j in sorted(rules.clusters)]
        raise ValueError(f"{feature_name} must name a feature whose split points the model "
                         f"clustered: one of {clustered}. Got {feature!r} instead.")
    return rules, int(index)


def _soft_conditions(rules, index, grid):
    """Φ(x) of each cluster of feature ``index`` on the points ``grid`` (one column per
    cluster), from the engine that evaluates the model's smooth rules."""
    X = np.zeros((len(grid), len(rules.feature_names)))
    X[:, index] = grid
    conditions = [SmoothRule((SoftCondition(index, l, "<="),))
                  for l in range(len(rules.clusters[index]))]
    engine = importlib.import_module(ENGINES["fast"])
    return engine.smooth_rule_matrix(X, conditions, rules.clusters)
