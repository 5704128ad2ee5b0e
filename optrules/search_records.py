"""Search certificates as files: records streamed while a search runs, the header (the claim)
put in front when it ends (specs/certificates.md §1). The problem-specific records are written
by ``optrules.rule_lists.search_certificate`` and ``optrules.rule_boosting.search_certificate``.
"""

import json
import os
from fractions import Fraction
from pathlib import Path

from optrules.validation import fraction_text

__all__ = ["SearchRecordWriter", "FORMAT", "VERSION"]

FORMAT, VERSION = "optrules.search-certificate", 1

# gzip, shutil and tempfile are imported where a certificate is written: every search imports
# this module (the engines' certificate codes), and most write none.


def _open(path):
    import gzip
    return gzip.open(path, "wt", encoding="utf-8") if str(path).endswith(".gz") \
        else open(path, "w", encoding="utf-8")


class SearchRecordWriter:
    """Streams JSON records to a temporary file beside ``path``; :meth:`finish` writes the
    file: the header, the records, an end line with their count. ``scale``: exact values
    handed to :meth:`exact` are divided by it."""

    def __init__(self, path, scale):
        import tempfile
        self.path = Path(path)
        self.scale = scale
        try:
            handle, self.records_path = tempfile.mkstemp(
                prefix=".records-", dir=self.path.parent if str(self.path.parent) else ".")
        except OSError as error:     # as a trace's (found by review: it named the temp file)
            raise OSError(f"cannot write the search certificate {self.path}: "
                          f"{error.strerror or error}") from error
        os.close(handle)
        self.records = open(self.records_path, "w", encoding="utf-8")
        self.count = 0

    def write(self, record):
        self.records.write(json.dumps(record, separators=(",", ":")) + "\n")
        self.count += 1

    def append(self, text, count):
        """Append ``count`` records already written as JSON lines (``text``), as another
        search's writer wrote them (the tasks of a distributed search)."""
        self.records.write(text)
        self.count += count

    def exact(self, value):
        """``value``/scale as a "p/q" text (``value`` an int or a Fraction)."""
        return fraction_text(Fraction(value) / self.scale)

    def finish(self, header):
        """Write the file: ``header`` (a dict: the claim), the records, the end line."""
        import shutil
        self.records.close()
        with _open(self.path) as out, open(self.records_path, encoding="utf-8") as records:
            out.write(json.dumps(dict({"format": FORMAT, "version": VERSION}, **header),
                                 separators=(",", ":")) + "\n")
            shutil.copyfileobj(records, out)
            out.write(json.dumps({"end": {"records": self.count}}) + "\n")
        os.unlink(self.records_path)

    def discard(self):
        """Remove the records of a search that did not finish."""
        self.records.close()
        os.unlink(self.records_path)
