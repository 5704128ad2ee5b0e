"""The rule-list search over time, from its trace (``specs/trace.md``): best objective and
lower bound (the kind of Angelino et al. 2018, Fig. 6), queue size, and the lengths of the
queued prefixes at a few moments.

References
----------
.. [1] E. Angelino, N. Larus-Stone, D. Alabi, M. Seltzer, C. Rudin. "Learning certifiably
   optimal rule lists for categorical data." JMLR 18(234), 2018 (§5, Fig. 6).
"""

import os

from optrules.plot.figure import counted, new_figure, save
from optrules.rule_lists.search_trace import Trace, read_search_trace
from optrules.validation import Integer, validate_params

__all__ = ["search_trace"]


def search_trace(trace, path, *, size=(8.0, 7.0), dpi=100, snapshots=4):
    """Plot a rule-list search's progress from its trace and save it as PNG or SVG.

    Three panels: the best objective R^c and the global lower bound against time (they meet
    when the search certifies optimality), the queue size against time, and the histogram of
    queued prefix lengths at ``snapshots`` moments spread over the search (the queue is empty
    at the end of a finished search).

    Parameters
    ----------
    trace : str, path or Trace
        A trace file (``optrules rulelist --trace FILE``, ``fit_rule_list(trace=...)``), or
        one read by :func:`optrules.rule_lists.search_trace.read_search_trace`.
    path : str or path
        The file to write; ``.png`` or ``.svg``.
    size : (float, float), default (8.0, 7.0)
        Width and height in inches.
    dpi : float, default 100
        Dots per inch: a PNG has ``int(width * dpi)`` by ``int(height * dpi)`` pixels; an SVG
        is ``72 * width`` by ``72 * height`` pt.
    snapshots : int >= 1, default 4
        Most moments whose prefix-length histogram is drawn, evenly spread in time over the
        records whose queue is not empty.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    ImportError
        When matplotlib is missing (install ``optrules[plot]``).
    ValueError
        For a bad trace file (naming the file and the line) or a bad parameter.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from optrules import RuleListClassifier
    >>> from optrules.data import bundled_csv, read_csv
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> X, y = read_csv(bundled_csv("compas"), target="recidivate-within-two-years")
    >>> model = RuleListClassifier(lam=0.02, trace=folder / "trace.jsonl").fit(X, y)
    >>> search_trace(folder / "trace.jsonl", folder / "search.png").name
    'search.png'
    """
    snapshots = validate_params({"snapshots": [Integer(1)]}, {"snapshots": snapshots},
                                "search_trace")["snapshots"]
    figure = new_figure(path, size, dpi, "search_trace")
    if isinstance(trace, (str, os.PathLike)):
        trace = read_search_trace(trace)
    elif not isinstance(trace, Trace):
        raise TypeError(f"The 'trace' parameter of search_trace must be a file name or a "
                        f"Trace. Got {type(trace).__name__} instead.")
    header, records, end = trace.header, trace.records, trace.records[-1]
    seconds = [record["elapsed"] for record in records]
    objective_axes, queue_axes, lengths_axes = figure.subplots(3, 1)
    # Markers on every record: a trace of one record (a fit stopped before its search) is a
    # single point, which a line alone would not show.
    marked = {"where": "post", "marker": ".", "markersize": 4}
    objective_axes.step(seconds, [r["best_objective_float"] for r in records], **marked,
                        label="best objective $R^c$")
    objective_axes.step(seconds, [r["lower_bound_float"] for r in records], **marked,
                        label="lower bound")
    found = [r for r in records if r["event"] == "incumbent"]
    objective_axes.plot([r["elapsed"] for r in found], [r["best_objective_float"] for r in found],
                        "o", color="C0", markersize=4, label="new best list")
    objective_axes.set(xlabel="seconds", ylabel="objective", title=(
        f"rule-list search, λ = {header['lambda']}, {header['engine']} engine: {end['status']} "
        f"after {counted(end['nodes'], 'node')}, {end['elapsed']:.3g} s"))
    objective_axes.legend(loc="upper right")
    queue_axes.step(seconds, [r["queue_size"] for r in records], **marked, color="C2")
    queue_axes.set(xlabel="seconds", ylabel="queue size")
    _prefix_lengths(lengths_axes, records, snapshots)
    return save(figure, path)


def _prefix_lengths(axes, records, snapshots):
    """Grouped bars: queued prefixes by length at up to ``snapshots`` records, evenly spread in
    time over those whose queue holds a prefix."""
    queued = [r for r in records if any(r["prefix_lengths"])]
    axes.set(xlabel="prefix length (rules)", ylabel="queued prefixes")
    if not queued:
        axes.text(0.5, 0.5, "the queue was never recorded non-empty", ha="center",
                  transform=axes.transAxes)
        return
    start, stop = queued[0]["elapsed"], queued[-1]["elapsed"]
    chosen = []
    for k in range(snapshots):
        moment = start + (stop - start) * k / max(snapshots - 1, 1)
        record = min(queued, key=lambda r: abs(r["elapsed"] - moment))
        if record not in chosen:
            chosen.append(record)
    width = 0.8 / len(chosen)
    for k, record in enumerate(chosen):
        counts = record["prefix_lengths"]
        axes.bar([length - 0.4 + width * (k + 0.5) for length in range(len(counts))], counts,
                 width, label=f"{record['elapsed']:.3g} s, {counted(record['nodes'], 'node')}")
    longest = max(len(r["prefix_lengths"]) for r in chosen)
    axes.set_xticks(range(longest))
    axes.legend(loc="upper right")
