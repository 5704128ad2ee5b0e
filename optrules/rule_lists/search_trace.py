"""Traces of a rule-list search: what the branch-and-bound knew as it ran, as JSON Lines
(``specs/trace.md``), written through the search's progress hook and read back checked.

The figures are those of the CORELS log (Angelino et al. 2018, §5 and its Fig. 6: best
objective and lower bound over time, queue size, prefix lengths in the queue), exact where
the search is: objectives and bounds as ``"p/q"`` with a float beside them.

Examples
--------
>>> import io
>>> from optrules.data.binary_dataset import BinaryDataset
>>> from optrules.rule_lists import fit_rule_list
>>> data = BinaryDataset.from_bits(["a", "b"], [[1, 1, 0, 0], [0, 1, 1, 0]], [1, 1, 0, 0])
>>> stream = io.StringIO()
>>> result = fit_rule_list(data, "1/10", trace=stream)
>>> trace = parse_search_trace(stream.getvalue().splitlines(), "<trace>")
>>> trace.header["lambda"], trace.records[-1]["event"], trace.records[-1]["best_objective"]
('1/10', 'end', Fraction(1, 10))
"""

import contextlib
import json
import time
import zlib
from fractions import Fraction
from typing import NamedTuple

from optrules.limits import STOP_STATUSES
from optrules.validation import (fraction_from_text, fraction_text, json_number, json_object,
                                 shown)

__all__ = ["SearchTrace", "write_unsearched_trace", "Trace", "read_search_trace",
           "parse_search_trace", "FORMAT", "VERSION", "EVENTS", "HEADER_FIELDS", "RECORD_FIELDS"]

FORMAT, VERSION = "optrules.search-trace", 1
#: Why a record was written: the state before the first node, the throttle's interval, a new
#: incumbent, the search's end (the last record, with the result's figures).
EVENTS = ("start", "interval", "incumbent", "end")
#: Seconds waited after a record, in units of the time the record took (at least ``interval``).
_PATIENCE = 20
#: The statuses an end record may state: the result's.
_STATUSES = ("optimal", *STOP_STATUSES)
HEADER_FIELDS = ("format", "version", "kind", "lambda", "engine", "policy", "n_antecedents",
                 "n_samples", "total_weight", "interval")
RECORD_FIELDS = ("event", "elapsed", "nodes", "evaluations", "best_objective",
                 "best_objective_float", "lower_bound", "lower_bound_float", "queue_size",
                 "map_size", "prefix_lengths", "incumbent_updates", "remaining_search_space")


class SearchTrace:
    """The progress callback ``progress(nodes_expanded, describe)`` of a rule-list engine that
    writes the trace to ``destination`` (a path, or a text stream left open).

    It writes ``header`` at once, then a record of the state the search ``describe`` s: at
    the first call, whenever the incumbent improved, and when ``interval`` seconds have passed
    since the last record (0: at every node); :meth:`finish` writes the last record. Between
    records a call costs one look at the counters (``describe(counters_only=True)``); a record
    costs a pass over the distinct queued bounds, so with ``interval`` > 0 the next one waits
    at least 20 times as long as the last took.
    ``then`` (a progress callback, optional) is called as well.

    An OSError while opening, writing or closing becomes one OSError naming the trace
    (``cannot write the search trace NAME: reason``), the original chained.
    """

    def __init__(self, destination, header, *, interval=0.1, then=None):
        self.owned = not hasattr(destination, "write")
        self.name = destination if self.owned else getattr(destination, "name", "(a stream)")
        with self._reported():
            self.stream = _open(destination, "wt") if self.owned else destination
        self.interval, self.then = interval, then
        self.start = self.next_record = time.perf_counter()
        self.incumbent_updates = 0
        self.last_call = None
        try:
            self._write(dict({"format": FORMAT, "version": VERSION, "kind": "rule-list"},
                             **header, interval=interval))
        except BaseException:
            self.abandon()              # no caller holds this trace to close it
            raise

    def __call__(self, nodes_expanded, describe):
        if self.then is not None:
            self.then(nodes_expanded, describe)
        if self.last_call is None:
            event = "start"
        elif describe(counters_only=True)["incumbent_updates"] != self.incumbent_updates:
            event = "incumbent"
        elif time.perf_counter() >= self.next_record:
            event = "interval"
        else:
            event = None
        self.last_call = nodes_expanded, describe
        if event is not None:
            self._record(event, nodes_expanded, describe)

    def _record(self, event, nodes_expanded, describe, **extra):
        now = time.perf_counter()
        figures = describe()
        self.incumbent_updates = figures["incumbent_updates"]
        # A record's pass over the queue grows with it: waiting 20 times its cost keeps
        # records to about 5% of the search time (unless every node is asked for).
        cost = time.perf_counter() - now
        self.next_record = now + (max(self.interval, _PATIENCE * cost) if self.interval else 0)
        self._write(dict({
            "event": event, "elapsed": round(now - self.start, 6), "nodes": nodes_expanded,
            "evaluations": figures["evaluations"],
            "best_objective": fraction_text(figures["best_objective"]),
            "best_objective_float": float(figures["best_objective"]),
            "lower_bound": fraction_text(figures["lower_bound"]),
            "lower_bound_float": float(figures["lower_bound"]),
            "queue_size": figures["queue_size"], "map_size": figures["map_size"],
            "prefix_lengths": figures["prefix_lengths"],
            "incumbent_updates": figures["incumbent_updates"],
            "remaining_search_space": _optional_text(figures["remaining_search_space"])},
            **extra))

    def _write(self, record):
        with self._reported():
            self.stream.write(json.dumps(record, separators=(",", ":")) + "\n")

    @contextlib.contextmanager
    def _reported(self):
        """Re-raise an OSError as one naming the trace: errno 28 alone does not say which of a
        command's files filled the disk."""
        try:
            yield
        except OSError as error:
            reason = error.strerror or str(error)
            raise OSError(f"cannot write the search trace {self.name}: {reason}") from error

    def finish(self, status):
        """Write the last record (the state the search ended in, the stop ``status``) and
        close the file if this trace opened it. The engine's first call made ``last_call``."""
        try:
            self._record("end", *self.last_call, status=status)
        except BaseException:
            self.abandon()
            raise
        self.close()

    def close(self):
        """Close the file if this trace opened it (a stream is only flushed)."""
        with self._reported():
            if self.owned:
                self.stream.close()
            else:
                self.stream.flush()

    def abandon(self):
        """Close after an error, which stays the one raised: closing flushes the text still
        buffered, and a disk that refused it once would refuse it again and hide that error
        (what was written stays, without its end record)."""
        with contextlib.suppress(OSError):
            self.close()


def write_unsearched_trace(destination, header, status, objective):
    """Write the trace of a fit stopped before its search began (while mining antecedents):
    ``header``, then only an end record of 0 nodes with the stop ``status``, the default
    rule's ``objective`` and the only bound proven, 0; the search space left is unknown
    (null). A trace file left by an earlier fit is so replaced, never left to describe this
    one."""
    figures = {"evaluations": 0, "best_objective": objective, "lower_bound": Fraction(0),
               "queue_size": 0, "map_size": 0, "prefix_lengths": [], "incumbent_updates": 0,
               "remaining_search_space": None}
    trace = SearchTrace(destination, header)
    trace.last_call = 0, lambda counters_only=False: figures
    trace.finish(status)


def _optional_text(number):
    return None if number is None else str(number)


class Trace(NamedTuple):
    """A trace file read back: its ``header`` and its ``records`` (dicts as written; the
    exact fields as Fractions under ``best_objective`` and ``lower_bound``)."""

    header: dict
    records: list


def read_search_trace(path):
    """The :class:`Trace` in the file ``path``, every line checked (``specs/trace.md``).

    Raises
    ------
    ValueError
        Naming the file and the line: unreadable, not a trace, a field missing or of the wrong
        type, times or node counts that go back, a lower bound above the best objective, or
        no end record (a search that did not finish writing it).
    """
    try:
        with _open(path, "rt") as handle:
            lines = handle.read().splitlines()
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or \
            ("not UTF-8 text" if isinstance(error, UnicodeDecodeError) else
             f"a damaged gzip file: {error}")
        raise ValueError(f"{path}: cannot read the search trace ({reason}).") from None
    return parse_search_trace(lines, path)


def _open(path, mode):
    """A trace file as text: gzip-compressed when its name ends in ".gz" (as a certificate's
    is; found by review: it was written as plain text under that name)."""
    if str(path).endswith(".gz"):
        import gzip
        return gzip.open(path, mode, encoding="utf-8")
    return open(path, mode, encoding="utf-8")


def parse_search_trace(lines, name):
    """The :class:`Trace` of a trace file's ``lines``; errors name the file ``name``."""
    if not lines:
        raise ValueError(f"{name}: empty; a search trace starts with its header line.")
    records = []
    for number, line in enumerate(lines, start=1):
        try:
            value = json.loads(line, parse_constant=_no_constant)
            if number == 1:
                header = _header(value)
            else:
                records.append(_record(value, records[-1] if records else None))
        except ValueError as error:
            text = f"not a line of JSON ({error.msg})" if isinstance(
                error, json.JSONDecodeError) else str(error)
            raise ValueError(f"{name}, line {number}: {text}") from None
    if not records or records[-1]["event"] != "end":
        raise ValueError(f"{name}, line {len(lines)}: the trace has no end record (the search "
                         "that wrote it did not finish).")
    return Trace(header, records)


def _no_constant(name):
    raise ValueError(f"{name} is not a number in strict JSON")


def _header(value):
    if not isinstance(value, dict) or value.get("format") != FORMAT:
        raise ValueError(f"not a search trace (the header's format must be {FORMAT!r}).")
    json_object(value, "the header", HEADER_FIELDS)
    if value["version"] != VERSION or value["kind"] != "rule-list":
        raise ValueError(f"version {shown(value['version'])} of kind {shown(value['kind'])} is "
                         f"not one this optrules reads (version {VERSION}, rule-list).")
    fraction_from_text(value["lambda"], "lambda")
    for field in ("engine", "policy"):
        if not isinstance(value[field], str):
            raise ValueError(f"{field} must be text; got {shown(value[field])}.")
    json_number(value["n_antecedents"], "n_antecedents", integer=True)
    json_number(value["n_samples"], "n_samples", low=1, integer=True)
    if value["total_weight"] is not None:
        fraction_from_text(value["total_weight"], "total_weight")
    json_number(value["interval"], "interval")
    return value


def _record(value, previous):
    json_object(value, "a record", RECORD_FIELDS, optional=("status",))
    if value["event"] not in EVENTS:
        raise ValueError(f"event must be one of {list(EVENTS)}; got {shown(value['event'])}.")
    if previous is not None and previous["event"] == "end":
        raise ValueError("a record after the end record.")
    if ("status" in value) != (value["event"] == "end"):
        raise ValueError("the end record, and only it, has a status.")
    for field in ("elapsed", "best_objective_float", "lower_bound_float"):
        json_number(value[field], field)
    for field in ("nodes", "evaluations", "queue_size", "map_size", "incumbent_updates"):
        json_number(value[field], field, integer=True)
    if not isinstance(value["prefix_lengths"], list):
        raise ValueError(f"prefix_lengths must be a list of counts; got "
                         f"{shown(value['prefix_lengths'])}.")
    for length, count in enumerate(value["prefix_lengths"]):
        json_number(count, f"prefix_lengths[{length}]", integer=True)
    if "status" in value and value["status"] not in _STATUSES:
        raise ValueError(f"status must be one of {list(_STATUSES)}; got "
                         f"{shown(value['status'])}.")
    remaining = value["remaining_search_space"]
    # null only where no search ran: a trace that is its end record alone, at 0 nodes
    unsearched = remaining is None and previous is None and value["event"] == "end" and \
        value["nodes"] == 0
    # str.isdigit() also takes "²" and other non-ASCII digits, which int() refuses
    if not (unsearched or isinstance(remaining, str) and remaining.isascii() and
            remaining.isdigit()):
        raise ValueError(f"remaining_search_space must be an integer as text (null only in "
                         f"the lone end record of a fit stopped before its search); got "
                         f"{shown(remaining)}.")
    best = fraction_from_text(value["best_objective"], "best_objective")
    lower_bound = fraction_from_text(value["lower_bound"], "lower_bound")
    if not 0 <= lower_bound <= best:
        raise ValueError(f"lower_bound {value['lower_bound']} is not in [0, best_objective "
                         f"{value['best_objective']}].")
    if previous is not None:
        for field in ("elapsed", "nodes", "evaluations", "incumbent_updates"):
            if value[field] < previous[field]:
                raise ValueError(f"{field} {value[field]} is below the previous record's "
                                 f"{previous[field]}.")
        if best > previous["best_objective"]:
            raise ValueError(f"best_objective {value['best_objective']} rose above the "
                             f"previous record's.")
    # the writer writes float(p/q) beside each exact field, and plots draw the floats
    for field, exact in (("best_objective", best), ("lower_bound", lower_bound)):
        if value[f"{field}_float"] != float(exact):
            raise ValueError(f"{field}_float {value[f'{field}_float']!r} is not the float of "
                             f"{field} {value[field]} ({float(exact)!r}).")
    return dict(value, best_objective=best, lower_bound=lower_bound)
