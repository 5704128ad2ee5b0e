"""What the search-certificate checkers share: reading the file (plain or gzip, strict JSON,
line by line), its framing (the header first, the records counted, the end line last) and the
report. ``search_certificate`` (rule lists) and ``rule_search_certificate`` (boosting rules)
check the claim and the records (specs/certificates.md)."""

import gzip
import json
import time
import zlib
from dataclasses import dataclass

from optrules.validation import fraction_from_text

from .stopping import check_interrupt

__all__ = ["CheckReport", "Rejected", "Replay", "replay_file", "FORMAT", "VERSION"]

FORMAT, VERSION = "optrules.search-certificate", 1


@dataclass(frozen=True)
class CheckReport:
    """``accepted``; ``reason``: why not (naming the line), or a summary; ``records`` read."""

    accepted: bool
    reason: str
    records: int
    seconds: float


class Rejected(Exception):
    """Why the certificate is rejected, and on which line (None: the line being read)."""

    def __init__(self, message, line=None):
        super().__init__(message)
        self.line = line


def lines(path):
    """The file's lines, gunzipped when it starts with gzip's magic bytes."""
    with open(path, "rb") as probe:
        zipped = probe.read(2) == b"\x1f\x8b"
    with (gzip.open(path, "rt", encoding="utf-8") if zipped
          else open(path, encoding="utf-8")) as handle:
        yield from handle


def _no_constant(name):
    raise ValueError(f"{name} is not a number in strict JSON")


class Replay:
    """A checker's state. Subclasses name their header's ``kind`` and ``header_fields`` and
    implement ``take_header`` (the claim), ``take_record``, ``finish_records`` and
    ``summary``; ``flush`` checks records held back for a batch."""

    kind, header_fields = None, ()

    def __init__(self, instance):
        self.instance = instance
        self.header = None
        self.records = 0
        self.ended = False

    def take(self, record, number):
        if self.ended:
            raise Rejected("a line after the end line")
        if self.header is None:
            self._check_frame(record)
            self.take_header(record)
            self.header = record
            return
        if not isinstance(record, dict):
            raise Rejected("not a record")
        if "end" in record:
            if record != {"end": {"records": self.records}} or \
                    type(record["end"]["records"]) is not int:
                raise Rejected(f"the end line does not count the {self.records} records")
            self.ended = True
            return
        self.records += 1
        self.take_record(record, number)

    def _check_frame(self, header):
        if not isinstance(header, dict) or header.get("format") != FORMAT or \
                type(header.get("version")) is not int or header["version"] != VERSION or \
                set(header) != set(self.header_fields):
            raise Rejected(f"not a version-{VERSION} {FORMAT} header of the expected fields")
        if header["kind"] != self.kind:
            raise Rejected(f"kind {header['kind']!r}: this checker replays {self.kind} "
                           "searches")
        if header["instance_sha256"] != self.instance.digest():
            raise Rejected("the instance digest is not the data's: other data or λ")
        if fraction_from_text(header["lambda"], "lambda") != self.instance.lam:
            raise Rejected("lambda is not the instance's")

    def flush(self):
        """Check the records held back for a batch (none by default)."""

    def finish(self):
        if self.header is None:
            raise Rejected("no header")
        if not self.ended:
            raise Rejected("the file ends before its end line (truncated)")
        self.finish_records()


def replay_file(path, replay):
    """Feed the certificate at ``path`` to ``replay`` (a :class:`Replay`) line by line; the
    report names the first failing line."""
    start = time.perf_counter()
    number = 0
    try:
        for number, line in enumerate(lines(path), 1):
            check_interrupt()
            try:
                try:
                    record = json.loads(line, parse_constant=_no_constant)
                except (ValueError, RecursionError) as error:
                    raise Rejected(f"not JSON ({type(error).__name__}: {error})") from None
                try:
                    replay.take(record, number)
                except (TypeError, ValueError, KeyError, AttributeError) as error:
                    raise Rejected(f"malformed record ({error})") from None
            except Rejected:
                replay.flush()          # a record before this one may fail first
                raise
        replay.flush()
        replay.finish()
    except Rejected as error:
        return CheckReport(False, f"line {error.line or number}: {error}", replay.records,
                           time.perf_counter() - start)
    except (OSError, EOFError, UnicodeDecodeError, zlib.error) as error:
        return CheckReport(False, f"line {number + 1}: unreadable ({error})", replay.records,
                           time.perf_counter() - start)
    return CheckReport(True, replay.summary(), replay.records, time.perf_counter() - start)
