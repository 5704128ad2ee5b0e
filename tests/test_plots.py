"""Search traces (specs/trace.md) and the plots of optrules.plot and ``optrules plot``: each
plot renders to PNG and SVG at the size asked for; a trace records what the search knew, its
last record is the result, and tracing changes nothing in the search."""

import copy
import errno
import io
import json
import os
import struct
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from optrules import (CompressedRuleEnsembleClassifier, OptimalRuleBoostingClassifier,
                      OptimalRuleBoostingRegressor, RuleListClassifier)
from optrules.cli import main, plot_command
from optrules.data import bundled_csv, read_csv
from optrules.plot import boosting_curve, cre_split_points, rule_count_scores, search_trace
from optrules.plot import cre_plot, search_plot
from optrules.plot.figure import INSTALL_HINT, MatplotlibMissing
from optrules.rule_lists import fit_rule_list
from optrules.rule_lists.search_trace import (HEADER_FIELDS, RECORD_FIELDS,
                                              parse_search_trace, read_search_trace)

ENGINES = ("fast", "reference")
COMPAS_TARGET = "recidivate-within-two-years"


@pytest.fixture(scope="module")
def compas():
    return read_csv(bundled_csv("compas"), target=COMPAS_TARGET)


@pytest.fixture(scope="module")
def compas_antecedents(compas):
    """COMPAS mined at λ = 0.02: a search of 1804 nodes."""
    return RuleListClassifier(lam="0.02").antecedents(*compas)


def traced(dataset, lam, engine, **options):
    """(result, Trace) of a fit whose trace goes to a stream."""
    stream = io.StringIO()
    result = fit_rule_list(dataset, lam, engine=engine, trace=stream, **options)
    return result, parse_search_trace(stream.getvalue().splitlines(), "<stream>")


# ----- the trace ---------------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ENGINES)
def test_trace_has_the_documented_fields_and_ends_with_the_result(compas_antecedents, engine):
    result, trace = traced(compas_antecedents, "0.02", engine)
    assert trace.header.keys() == set(HEADER_FIELDS)
    assert trace.header["lambda"] == "1/50" and trace.header["engine"] == engine
    assert trace.header["n_antecedents"] == compas_antecedents.n_antecedents
    assert trace.header["n_samples"] == 6489 and trace.header["total_weight"] is None
    records = trace.records
    assert records[0]["event"] == "start" and records[0]["nodes"] == 0
    assert records[0]["prefix_lengths"] == [1] and records[0]["queue_size"] == 1
    assert {r["event"] for r in records[1:-1]} <= {"interval", "incumbent"}
    for record in records:
        assert record.keys() - {"status"} == set(RECORD_FIELDS), engine
        assert record["lower_bound"] <= record["best_objective"], engine
        assert record["best_objective_float"] == float(record["best_objective"])
        assert record["lower_bound_float"] == float(record["lower_bound"])
        assert sum(record["prefix_lengths"]) <= record["queue_size"]
    for before, after in zip(records, records[1:]):
        assert after["elapsed"] >= before["elapsed"] and after["nodes"] >= before["nodes"]
        # every list's objective is at least the bound, and R^c only falls: both converge
        assert after["lower_bound"] >= before["lower_bound"], engine
        assert after["best_objective"] <= before["best_objective"], engine
    improvements = [r for r in records if r["event"] == "incumbent"]
    assert [r["incumbent_updates"] for r in improvements] == \
        sorted({r["incumbent_updates"] for r in improvements})
    end = records[-1]
    assert end["event"] == "end" and end["status"] == result.status == "optimal"
    assert end["nodes"] == result.nodes_expanded
    assert end["best_objective"] == end["lower_bound"] == result.objective == result.lower_bound
    assert end["queue_size"] == 0 and end["prefix_lengths"] == []
    assert end["incumbent_updates"] == result.statistics["incumbent_updates"]
    assert end["remaining_search_space"] == str(result.remaining_search_space)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_stopped_search_ends_its_trace_with_the_gap(compas_antecedents, engine):
    result, trace = traced(compas_antecedents, "0.02", engine, max_nodes=20)
    end = trace.records[-1]
    assert end["status"] == result.status == "node-limit" and end["nodes"] == 20
    assert end["lower_bound"] == result.lower_bound < result.objective == end["best_objective"]
    assert end["remaining_search_space"] == str(result.remaining_search_space)
    assert end["queue_size"] > 0 and sum(end["prefix_lengths"]) > 0


@pytest.mark.parametrize("engine", ENGINES)
def test_the_search_is_the_same_with_and_without_a_trace(compas_antecedents, engine):
    plain = fit_rule_list(compas_antecedents, "0.02", engine=engine)
    result, _ = traced(compas_antecedents, "0.02", engine, trace_interval=0)
    assert result.rule_list == plain.rule_list and result.objective == plain.objective
    assert result.statistics == plain.statistics, engine
    assert (result.nodes_expanded, result.lower_bound, result.status) == \
        (plain.nodes_expanded, plain.lower_bound, plain.status)


def test_both_engines_record_the_same_state_at_every_node(compas):
    """With a record per node, the traces differ only in time: the fast engine makes the
    reference engine's search decision for decision."""
    dataset = RuleListClassifier(lam="0.025").antecedents(*compas)
    fast, reference = (traced(dataset, "0.025", engine, trace_interval=0)[1]
                       for engine in ENGINES)
    assert len(fast.records) == 1 + 81 + 1              # the start, every node, the end
    untimed = [[dict(record, elapsed=None) for record in trace.records]
               for trace in (fast, reference)]
    assert untimed[0] == untimed[1]
    assert fast.header == dict(reference.header, engine="fast")


def test_the_end_record_is_what_the_certificate_claims(compas_antecedents, tmp_path):
    result = fit_rule_list(compas_antecedents, "0.02", certificate=tmp_path / "c.jsonl",
                           trace=tmp_path / "t.jsonl")
    claim = json.loads((tmp_path / "c.jsonl").read_text().splitlines()[0])
    end = read_search_trace(tmp_path / "t.jsonl").records[-1]
    assert Fraction(claim["claimed_objective"]) == end["best_objective"] == result.objective


def test_a_weighted_search_states_its_total_weight(compas_antecedents):
    weights = [2] * 100 + [1] * (compas_antecedents.n_samples - 100)
    result, trace = traced(compas_antecedents, "0.02", "fast", sample_weight=weights)
    assert trace.header["total_weight"] == f"{compas_antecedents.n_samples + 100}/1"
    assert trace.records[-1]["best_objective"] == result.objective


def test_the_estimator_and_the_cli_write_traces(compas, tmp_path, capsys):
    model = RuleListClassifier(lam="0.02", trace=tmp_path / "e.jsonl").fit(*compas)
    assert read_search_trace(tmp_path / "e.jsonl").records[-1]["best_objective"] == \
        model.objective_
    csv = tmp_path / "compas.csv"
    assert main(["data", "compas", "--output", str(csv)]) == 0
    assert main(["rulelist", "--csv", str(csv), "--target", COMPAS_TARGET, "--lam", "0.02",
                 "--quiet", "--json", "--trace", str(tmp_path / "c.jsonl")]) == 0
    objective = Fraction(json.loads(capsys.readouterr().out)["objective"])
    assert read_search_trace(tmp_path / "c.jsonl").records[-1]["best_objective"] == objective
    assert main(["rulelist", "--csv", str(csv), "--target", COMPAS_TARGET, "--lam", "0.02",
                 "--trace", str(tmp_path / "missing" / "t.jsonl")]) == 2
    assert "--trace" in capsys.readouterr().err


def test_a_stream_stays_open_and_bad_trace_parameters_are_named(compas_antecedents):
    stream = io.StringIO()
    fit_rule_list(compas_antecedents, "0.02", trace=stream)
    assert not stream.closed and stream.getvalue().count("\n") >= 3
    with pytest.raises(TypeError, match="'trace' parameter of fit_rule_list"):
        fit_rule_list(compas_antecedents, "0.02", trace=3)
    with pytest.raises(ValueError, match="'trace_interval' parameter of fit_rule_list"):
        fit_rule_list(compas_antecedents, "0.02", trace=io.StringIO(), trace_interval=-1)


def _assert_unsearched(trace, status, objective):
    """A trace of a fit stopped before its search: the header and one end record, 0 nodes."""
    assert trace.header["n_antecedents"] == 0 and len(trace.records) == 1
    end = trace.records[0]
    assert (end["event"], end["status"], end["nodes"]) == ("end", status, 0)
    assert end["lower_bound"] == 0 and end["best_objective"] == objective
    assert end["remaining_search_space"] is None and end["prefix_lengths"] == []


def test_a_fit_stopped_before_its_search_replaces_an_older_trace(compas, compas_antecedents,
                                                                tmp_path, capsys):
    """A time limit hit while mining: the trace describes this fit (0 nodes, bound 0), never
    the older search left in the file."""
    stale = tmp_path / "stale.jsonl"
    fit_rule_list(compas_antecedents, "0.02", trace=stale)
    with pytest.warns(UserWarning, match="time limit"):
        model = RuleListClassifier(lam="0.005", time_limit=1e-9, trace=stale).fit(*compas)
    assert model.status_ == "time-limit"
    _assert_unsearched(read_search_trace(stale), "time-limit", model.objective_)
    csv = tmp_path / "compas.csv"
    assert main(["data", "compas", "--output", str(csv)]) == 0
    fit_rule_list(compas_antecedents, "0.02", trace=stale)
    capsys.readouterr()
    assert main(["rulelist", "--csv", str(csv), "--target", COMPAS_TARGET, "--lam", "0.005",
                 "--time-limit", "0.000001", "--quiet", "--json", "--trace", str(stale)]) == 0
    report = json.loads(capsys.readouterr().out)
    _assert_unsearched(read_search_trace(stale), report["status"],
                       Fraction(report["objective"]))
    assert main(["plot", "search", str(stale), "--out", str(tmp_path / "s.png")]) == 0


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="/dev/full is Linux's")
def test_a_trace_that_cannot_be_written_is_named(compas_antecedents, compas, tmp_path,
                                                 capsys):
    with pytest.raises(OSError, match="^cannot write the search trace /dev/full: No space "
                                      "left on device$") as raised:
        fit_rule_list(compas_antecedents, "0.02", trace="/dev/full")
    assert raised.value.__cause__.errno == errno.ENOSPC
    csv = tmp_path / "compas.csv"
    assert main(["data", "compas", "--output", str(csv)]) == 0
    capsys.readouterr()
    assert main(["rulelist", "--csv", str(csv), "--target", COMPAS_TARGET, "--lam", "0.02",
                 "--quiet", "--trace", "/dev/full"]) == 2
    assert capsys.readouterr().err == "optrules rulelist: error: cannot write the search " \
                                      "trace /dev/full: No space left on device\n"


class _FailingStream(io.StringIO):
    """A text stream whose third write fails, and every flush after it: closing the trace
    again must not replace the first error by its own."""

    name = "failing.jsonl"

    def __init__(self):
        super().__init__()
        self.writes = 0

    def write(self, text):
        self.writes += 1
        if self.writes >= 3:
            raise OSError(errno.EIO, "Input/output error")
        return super().write(text)

    def flush(self):
        if self.writes >= 3:
            raise OSError(errno.EIO, "the flush after the failure")


def test_a_write_failing_mid_search_is_raised_once_naming_the_trace(compas_antecedents):
    stream = _FailingStream()
    with pytest.raises(OSError, match="^cannot write the search trace failing.jsonl: "
                                      "Input/output error$") as raised:
        fit_rule_list(compas_antecedents, "0.02", trace=stream, trace_interval=0)
    assert raised.value.__cause__.strerror == "Input/output error"
    assert stream.getvalue().count("\n") == 2          # the header and the first record


# ----- reading traces ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def good_lines(compas_antecedents):
    stream = io.StringIO()
    fit_rule_list(compas_antecedents, "0.02", trace=stream, max_nodes=30, trace_interval=0)
    return stream.getvalue().splitlines()


def _edited(lines, number, **changes):
    """The lines with record ``number`` (1-based line) changed."""
    record = json.loads(lines[number - 1])
    record.update(changes)
    return lines[:number - 1] + [json.dumps(record)] + lines[number:]


BAD_TRACES = {
    "empty": (lambda lines: [], "empty"),
    "not JSON": (lambda lines: lines[:2] + ["{not json"] + lines[3:], "line 3: not a line of"),
    "not a trace": (lambda lines: ['{"format": "optrules.model"}'] + lines[1:],
                    "line 1: not a search trace"),
    "newer version": (lambda lines: _edited(lines, 1, version=2), "line 1: version 2"),
    "missing field": (lambda lines: [lines[0], lines[1].replace('"queue_size"', '"queue"')]
                      + lines[2:], "line 2: a record lacks the field 'queue_size'"),
    "inexact objective": (lambda lines: _edited(lines, 3, best_objective="0.4"),
                          "line 3: best_objective must be an exact number"),
    "bound above objective": (lambda lines: _edited(lines, 4, lower_bound="1/1"),
                              "line 4: lower_bound 1/1 is not in"),
    "time goes back": (lambda lines: _edited(lines, 4, elapsed=1e6), "line 5: elapsed .* is "
                       "below the previous record's 1000000.0"),
    "nodes go back": (lambda lines: _edited(lines, 5, nodes=0), "line 5: nodes 0 is below"),
    "objective rises": (lambda lines: _edited(lines, 5, best_objective="1/1"),
                        "line 5: lower_bound .* is not in|line 5: best_objective 1/1 rose"),
    "unknown event": (lambda lines: _edited(lines, 3, event="pause"), "line 3: event must be"),
    "status too early": (lambda lines: _edited(lines, 3, status="optimal"),
                         "line 3: the end record, and only it, has a status"),
    "negative count": (lambda lines: _edited(lines, 3, prefix_lengths=[1, -2]),
                       r"line 3: prefix_lengths\[1\] must be an integer >= 0"),
    "no end": (lambda lines: lines[:-1], "has no end record"),
    "unknown status": (lambda lines: _edited(lines, len(lines), status="done"),
                       "status must be one of"),
    "non-ASCII digits": (lambda lines: _edited(lines, 3, remaining_search_space="12²"),
                         "line 3: remaining_search_space must be an integer as text"),
    "null space mid-search": (lambda lines: _edited(lines, 3, remaining_search_space=None),
                              "line 3: remaining_search_space must be an integer as text"),
    "float beside the objective": (
        lambda lines: _edited(lines, 3, best_objective_float=0.5),
        "line 3: best_objective_float 0.5 is not the float of best_objective"),
    "float beside the bound": (lambda lines: _edited(lines, 3, lower_bound_float=0.125),
                               "line 3: lower_bound_float 0.125 is not the float of lower_bound"),
    "after the end": (lambda lines: lines + [lines[-2]], "a record after the end record"),
    "NaN": (lambda lines: [lines[0], lines[1].replace('"elapsed":', '"elapsed":NaN,"x":')]
            + lines[2:], "line 2: NaN is not a number in strict JSON"),
}


@pytest.mark.parametrize("damage", BAD_TRACES)
def test_a_damaged_trace_is_refused_naming_the_file_and_line(good_lines, damage, tmp_path):
    edit, message = BAD_TRACES[damage]
    assert read_search_trace(_write(tmp_path / "good.jsonl", good_lines)).records
    path = _write(tmp_path / "bad.jsonl", edit(good_lines))
    with pytest.raises(ValueError, match=f"bad.jsonl.*{message}"):
        read_search_trace(path)


def test_an_unreadable_trace_is_named(tmp_path):
    with pytest.raises(ValueError, match="nothing.jsonl: cannot read the search trace"):
        read_search_trace(tmp_path / "nothing.jsonl")
    (tmp_path / "binary.jsonl").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ValueError, match="binary.jsonl: cannot read.*not UTF-8"):
        read_search_trace(tmp_path / "binary.jsonl")
    (tmp_path / "plain.jsonl.gz").write_text("{}\n")
    with pytest.raises(ValueError, match="plain.jsonl.gz: cannot read.*a damaged gzip file"):
        read_search_trace(tmp_path / "plain.jsonl.gz")
    import gzip
    damaged = bytearray(gzip.compress(("".join(f'{{"n": {k}}}\n' for k in range(500)))
                                      .encode()))
    damaged[200:260] = bytes(60)                       # zlib.error, not an OSError
    (tmp_path / "damaged.jsonl.gz").write_bytes(bytes(damaged))
    with pytest.raises(ValueError, match="damaged.jsonl.gz: cannot read.*a damaged gzip file"):
        read_search_trace(tmp_path / "damaged.jsonl.gz")


def test_a_trace_named_gz_is_compressed(compas_antecedents, tmp_path):
    """Found by review: it was written as plain text under that name."""
    path = tmp_path / "t.jsonl.gz"
    result = fit_rule_list(compas_antecedents, "0.02", trace=path)
    assert path.read_bytes()[:2] == b"\x1f\x8b"                 # gzip's magic number
    assert read_search_trace(path).records[-1]["best_objective"] == result.objective


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines))
    return path


# ----- the plots ---------------------------------------------------------------------------------
def assert_rendered(path, size, dpi):
    """The file exists, is not empty and has the size asked for: a PNG ``int(side * dpi)``
    pixels a side (its IHDR header), an SVG ``72 * side`` pt."""
    data = path.read_bytes()
    assert len(data) > 1000, path
    if path.suffix.lower() == ".png":
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
        assert struct.unpack(">II", data[16:24]) == (int(size[0] * dpi), int(size[1] * dpi))
    else:
        head = data[:2000].decode("utf-8")
        assert f'width="{size[0] * 72:g}pt" height="{size[1] * 72:g}pt"' in head, head


@pytest.fixture(scope="module")
def trace_file(compas_antecedents, tmp_path_factory):
    path = tmp_path_factory.mktemp("trace") / "trace.jsonl"
    fit_rule_list(compas_antecedents, "0.02", trace=path, trace_interval=0.001)
    return path


@pytest.fixture(scope="module")
def boosting_data():
    """A small two-class problem: (train X, train y, test X, test y)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(160, 3))
    y = np.where((X[:, 0] > 0.5) & (X[:, 1] < 0.6) ^ (rng.uniform(size=160) < 0.1), "yes", "no")
    return X[:120], y[:120], X[120:], y[120:]


@pytest.fixture(scope="module")
def boosting_models(boosting_data):
    X, y = boosting_data[:2]
    return {search: OptimalRuleBoostingClassifier(3, search=search, thresholds="quantile:4",
                                                  lam=2 if search == "optimal" else 0.001)
            .fit(X, y) for search in ("optimal", "greedy")}


@pytest.fixture(scope="module")
def cre_model():
    X, y = read_csv(bundled_csv("parity"), target="parity")
    return CompressedRuleEnsembleClassifier(3, n_trees=10, folds=3, random_state=0).fit(
        X.take(slice(0, 200)), y[:200])


@pytest.mark.parametrize("suffix, size, dpi", [(".png", (8, 7), 100), (".svg", (8, 7), 100),
                                               (".png", (5.5, 4.25), 80)])
def test_search_trace_renders(trace_file, tmp_path, suffix, size, dpi):
    path = search_trace(trace_file, tmp_path / f"search{suffix}", size=size, dpi=dpi)
    assert path == tmp_path / f"search{suffix}"
    assert_rendered(path, size, dpi)


@pytest.mark.parametrize("suffix, dpi", [(".png", 100), (".svg", 100), (".PNG", 72)])
def test_boosting_curve_renders_models_and_scores(boosting_models, boosting_data, tmp_path,
                                                  suffix, dpi):
    X_test, y_test = boosting_data[2:]
    path = boosting_curve(boosting_models, tmp_path / f"curve{suffix}", X=X_test, y=y_test,
                          size=(6, 4), dpi=dpi)
    assert_rendered(path, (6, 4), dpi)
    scores = boosting_curve({"a": [0.5, 0.7], "b": np.array([0.5, 0.6])},
                            tmp_path / f"scores{suffix}", size=(6, 4), dpi=dpi)
    assert_rendered(scores, (6, 4), dpi)


def test_rule_count_scores_are_roc_auc_and_r_squared(boosting_models, boosting_data):
    X_test, y_test = boosting_data[2:]
    model = boosting_models["optimal"]
    scores, metric = rule_count_scores(model, X_test, y_test)
    assert metric == "ROC-AUC" and len(scores) == 4 and scores[0] == 0.5
    # the last: the whole ensemble's AUC, counted pair by pair
    f, positive = model.decision_function(X_test), y_test == "yes"
    pairs = [(a > b) + 0.5 * (a == b) for a in f[positive] for b in f[~positive]]
    assert scores[-1] == pytest.approx(np.mean(pairs), abs=1e-12)
    X, y = boosting_data[0], boosting_data[0][:, 0] * 3 + boosting_data[0][:, 1]
    regressor = OptimalRuleBoostingRegressor(2, thresholds="quantile:4").fit(X, y)
    scores, metric = rule_count_scores(regressor.ensemble_, X, y)
    assert metric == "R²" and scores[-1] == pytest.approx(regressor.score(X, y), abs=1e-12)
    with pytest.raises(ValueError, match="both classes"):
        rule_count_scores(model, X_test[:3], ["no"] * 3)
    with pytest.raises(TypeError, match="rule-boosting estimator"):
        rule_count_scores(object(), X_test, y_test)


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_cre_split_points_renders(cre_model, tmp_path, suffix):
    path = cre_split_points(cre_model, "x1", tmp_path / f"x1{suffix}", size=(7, 4.5), dpi=90)
    assert_rendered(path, (7, 4.5), 90)
    assert_rendered(cre_split_points(cre_model.model_, 1, tmp_path / f"x2{suffix}"), (6.4, 4),
                    100)


def test_bad_plot_parameters_are_named(trace_file, cre_model, tmp_path):
    with pytest.raises(ValueError, match="'path' parameter of search_trace must end in .png"):
        search_trace(trace_file, tmp_path / "search.pdf")
    with pytest.raises(ValueError, match="'size' parameter of search_trace"):
        search_trace(trace_file, tmp_path / "search.png", size=(0, 3))
    with pytest.raises(ValueError, match="'size' and 'dpi' parameters of search_trace"):
        search_trace(trace_file, tmp_path / "search.png", size=(800, 3), dpi=100)
    with pytest.raises(ValueError, match="'feature' parameter of cre_split_points.*'x1'"):
        cre_split_points(cre_model, "age", tmp_path / "age.png")
    with pytest.raises(TypeError, match="'model' parameter of cre_split_points"):
        cre_split_points("model.json", "x1", tmp_path / "age.png")
    with pytest.raises(ValueError, match="needs the test data X and y"):
        boosting_curve({"a": OptimalRuleBoostingClassifier()}, tmp_path / "b.png")
    with pytest.raises(TypeError, match="'curves' parameter of boosting_curve"):
        boosting_curve({}, tmp_path / "b.png")


def test_sizes_are_refused_beyond_the_pixel_limits_and_small_figures_do_not_warn(
        trace_file, tmp_path, recwarn):
    with pytest.raises(ValueError, match=r"'size' and 'dpi' parameters of search_trace .*"
                                         r"give 60000 x 60000 pixels.*2\*\*26"):
        search_trace(trace_file, tmp_path / "huge.png", size=(200, 200), dpi=300)
    with pytest.raises(ValueError, match="give 0 x 700 pixels; each side must be from 1"):
        search_trace(trace_file, tmp_path / "empty.png", size=(0.001, 7))
    assert not list(tmp_path.iterdir())
    assert_rendered(search_trace(trace_file, tmp_path / "small.svg", size=(0.6, 0.5)),
                    (0.6, 0.5), 100)
    search_trace(trace_file, tmp_path / "small.png", size=(0.3, 0.2), dpi=10)
    assert not recwarn.list


def _drawn(module, monkeypatch):
    """The figures ``module`` saves, kept to be inspected."""
    figures = []
    monkeypatch.setattr(module, "save", lambda figure, path: figures.append(figure))
    return figures


def test_a_trace_of_one_record_shows_its_point_and_counts_agree(compas_antecedents, compas,
                                                                tmp_path, monkeypatch):
    figures = _drawn(search_plot, monkeypatch)
    with pytest.warns(UserWarning):
        RuleListClassifier(lam="0.005", time_limit=1e-9, trace=tmp_path / "t.jsonl").fit(*compas)
    search_trace(tmp_path / "t.jsonl", tmp_path / "t.png")
    objective, queue = figures[0].axes[:2]
    for line in objective.get_lines()[:2] + queue.get_lines():
        assert len(line.get_xdata()) == 1 and line.get_marker() not in ("None", "", None)
    assert "time-limit after 0 nodes" in objective.get_title()
    fit_rule_list(compas_antecedents, "0.02", trace=tmp_path / "one.jsonl", max_nodes=1)
    search_trace(tmp_path / "one.jsonl", tmp_path / "one.png")
    assert "node-limit after 1 node," in figures[1].axes[0].get_title()


def test_the_cre_plot_counts_the_features_split_points(cre_model, tmp_path, monkeypatch):
    figures = _drawn(cre_plot, monkeypatch)
    cre_split_points(cre_model, "x1", tmp_path / "x1.png")
    clusters = cre_model.model_.clusters[cre_model.model_.feature_names.index("x1")]
    points = sum(cluster.size for cluster in clusters)
    assert figures[0].axes[0].get_title() == f"x1: {points} split points in " \
                                             f"{len(clusters)} clusters"
    no_rules = copy.copy(cre_model.model_)
    no_rules.rules, no_rules.clusters = (), {}
    with pytest.raises(ValueError, match="'feature' parameter of cre_split_points cannot be "
                                         "'x1': the model has no rule terms"):
        cre_split_points(no_rules, "x1", tmp_path / "x1.png")


def _without_matplotlib(monkeypatch):
    for name in [name for name in sys.modules if name.split(".")[0] == "matplotlib"] + \
            ["matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg"]:
        monkeypatch.setitem(sys.modules, name, None)        # an import of it now fails


def test_without_matplotlib_every_plot_says_how_to_install_it(trace_file, cre_model, tmp_path,
                                                              monkeypatch, capsys):
    _without_matplotlib(monkeypatch)
    for draw in (lambda: search_trace(trace_file, tmp_path / "s.png"),
                 lambda: boosting_curve({"a": [0.5]}, tmp_path / "b.png"),
                 lambda: cre_split_points(cre_model, "x1", tmp_path / "c.png")):
        with pytest.raises(MatplotlibMissing, match=r"install optrules\[plot\]"):
            draw()
    assert issubclass(MatplotlibMissing, ImportError)
    assert main(["plot", "search", str(trace_file), "--out", str(tmp_path / "s.png")]) == 2
    assert capsys.readouterr().err.strip() == f"optrules plot: error: {INSTALL_HINT}"
    assert not (tmp_path / "s.png").exists()


def test_importing_the_plots_does_not_import_matplotlib():
    code = "import sys, optrules.plot, optrules.cli; print('matplotlib' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"


# ----- optrules plot -----------------------------------------------------------------------------
def test_plot_search_command(trace_file, tmp_path, capsys):
    out = tmp_path / "search.png"
    assert main(["plot", "search", str(trace_file), "--out", str(out), "--json",
                 "--width", "6", "--height", "5", "--dpi", "80"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report == {"plot": "search", "file": str(out), "format": "png", "width_px": 480,
                      "height_px": 400, "width_in": 6.0, "height_in": 5.0, "dpi": 80.0,
                      "status": "optimal", "nodes": 1804,
                      "records": len(read_search_trace(trace_file).records)}
    assert_rendered(out, (6, 5), 80)
    assert main(["plot", "search", str(trace_file), "--out", str(tmp_path / "s.svg")]) == 0
    # an SVG's size is in points (72 an inch), not pixels
    assert capsys.readouterr().out.strip() == f"wrote {tmp_path / 's.svg'} (SVG, 576 x 504 pt)"
    assert_rendered(tmp_path / "s.svg", (8, 7), 100)


def _boosting_csv(path, boosting_data, labels=None):
    X, y = np.concatenate(boosting_data[::2]), np.concatenate(boosting_data[1::2])
    path.write_text("a,b,c,y\n" + "".join(f"{a},{b},{c},{label}\n" for (a, b, c), label
                                          in zip(X, y if labels is None else labels)))
    return path


def test_plot_boosting_command(boosting_data, tmp_path, capsys):
    csv, out = _boosting_csv(tmp_path / "data.csv", boosting_data), tmp_path / "boosting.svg"
    assert main(["plot", "boosting", "--csv", str(csv), "--target", "y", "--rules", "2",
                 "--thresholds", "quantile:4", "--test-size", "0.25", "--seed", "3",
                 "--out", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["metric"] == "ROC-AUC" and (report["n_train"], report["n_test"]) == (120, 40)
    assert report["curves"].keys() == {"optimal", "greedy"}
    assert all(len(c) == 3 and c[0] == 0.5 for c in report["curves"].values())
    assert_rendered(out, (6.4, 4.8), 100)
    assert main(["plot", "boosting", "--csv", str(csv), "--target", "y", "--test-size",
                 "0.001", "--out", str(out)]) == 2
    assert "--test-size 0.001" in capsys.readouterr().err


def test_plot_boosting_draws_nothing_after_a_stopped_fit(boosting_data, tmp_path, monkeypatch,
                                                         capsys):
    """A signal (or the memory cap) stops the optimal fit after one rule: no truncated curve
    is drawn and the greedy fit does not start."""
    fits = []

    class Interrupted(OptimalRuleBoostingClassifier):
        def fit(self, X, y):
            fits.append(self.search)
            super().fit(X, y)
            self.ensemble_ = replace(self.ensemble_, rules=self.ensemble_.rules[:1],
                                     status="interrupted")
            return self

    monkeypatch.setattr(plot_command, "OptimalRuleBoostingClassifier", Interrupted)
    csv, out = _boosting_csv(tmp_path / "data.csv", boosting_data), tmp_path / "b.png"
    assert main(["plot", "boosting", "--csv", str(csv), "--target", "y", "--rules", "2",
                 "--thresholds", "quantile:4", "--quiet", "--out", str(out)]) == 1
    assert fits == ["optimal"] and not out.exists()
    assert capsys.readouterr().err == "optrules plot boosting: optimal boosting stopped after " \
        "1 of 2 rules (interrupted by a signal); nothing drawn.\n"


def test_plot_boosting_checks_the_test_classes_before_fitting(boosting_data, tmp_path,
                                                              monkeypatch, capsys):
    def no_fit(self, X, y):
        raise AssertionError("a fit started")

    monkeypatch.setattr(OptimalRuleBoostingClassifier, "fit", no_fit)
    n_test = 16                         # --test-size 0.1 of the 160 rows
    test = set(np.random.default_rng(5).permutation(160)[:n_test])
    labels = ["no" if row in test else ("yes", "no")[row % 2] for row in range(160)]
    csv = _boosting_csv(tmp_path / "data.csv", boosting_data, labels)
    assert main(["plot", "boosting", "--csv", str(csv), "--target", "y", "--test-size", "0.1",
                 "--seed", "5", "--out", str(tmp_path / "b.png")]) == 2
    assert "--test-size 0.1 --seed 5: the 16 test rows of" in capsys.readouterr().err


def test_plot_cre_command(cre_model, tmp_path, capsys):
    model_file = tmp_path / "cre.json"
    cre_model.to_json(model_file)
    out = tmp_path / "x3.png"
    assert main(["plot", "cre", str(model_file), "--feature", "x3", "--out", str(out),
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["feature"] == "x3" and report["clusters"] == 3
    assert_rendered(out, (6.4, 4.0), 100)
    assert main(["plot", "cre", str(model_file), "--feature", "age", "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert "--feature must name a feature" in error and "cre_split_points" not in error


@pytest.mark.parametrize("arguments, message", [
    (["search", "TRACE", "--out", "search.pdf"], "--out must end in .png or .svg (the format "
                                                 "is read from it). Got 'search.pdf' instead."),
    (["search", "TRACE", "--out", "missing/s.png"], "--out: the folder of"),
    (["search", "missing.jsonl", "--out", "s.png"], "missing.jsonl: cannot read the search"),
    (["search", "data.csv", "--out", "s.png"], "data.csv, line 1: not a line of JSON"),
    (["cre", "TRACE", "--feature", "x", "--out", "c.png"], "trace.jsonl: not a complete JSON"),
    (["cre", "TRACE", "--feature", "x", "--out", "TRACE"], "--out: "),
    (["search", "TRACE", "--out", "s.png", "--width", "200", "--height", "200", "--dpi", "300"],
     "--width 200 --height 200 --dpi 300 give 60000 x 60000 pixels"),
    (["search", "TRACE", "--out", "s.png", "--width", "0.001"],
     "--width 0.001 --height 7 --dpi 100 give 0 x 700 pixels"),
])
def test_plot_errors_are_one_line_naming_the_file(trace_file, tmp_path, monkeypatch, capsys,
                                                  arguments, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data.csv").write_text("a,b\n1,2\n")
    assert main(["plot"] + [str(trace_file) if a == "TRACE" else a for a in arguments]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and error.startswith("optrules plot: error: ")
    assert message in error
    assert not (tmp_path / "s.png").exists()


@pytest.mark.parametrize("command", [["plot"], ["plot", "search"], ["plot", "boosting"],
                                     ["plot", "cre"]])
def test_every_plot_command_help_has_an_example(command, capsys):
    with pytest.raises(SystemExit) as raised:
        main(command + ["--help"])
    assert raised.value.code == 0
    assert "example: optrules " in capsys.readouterr().out.replace("\n", " ")
