"""A throttled progress line for long searches.

On a terminal, one line rewritten in place (at most twice a second, and only once the search has
run a couple of seconds, so quick fits print nothing); elsewhere (a log file, a pipe), a new line
every ``log_interval`` seconds. Every engine reports through it, so the CLI's ``--quiet`` and the
estimators' ``verbose`` switch one thing.

Examples
--------
>>> import io
>>> line = ProgressLine(io.StringIO(), delay=0, log_interval=0)
>>> line.update(lambda: "nodes 10")
>>> line.stream.getvalue()
'[     0.0 s] nodes 10\\n'
"""

import sys
import time

__all__ = ["ProgressLine"]


class ProgressLine:
    """A status line on ``stream`` (default stderr), throttled.

    Parameters
    ----------
    stream : file, optional
    delay : float, default 2.0
        Seconds before the first line appears on a terminal.
    interval : float, default 0.5
        Seconds between rewrites on a terminal.
    log_interval : float, default 10.0
        Seconds between lines when ``stream`` is not a terminal.
    log_delay : float, optional
        Seconds before the first line when ``stream`` is not a terminal (default
        ``log_interval``).
    """

    def __init__(self, stream=None, *, delay=2.0, interval=0.5, log_interval=10.0,
                 log_delay=None):
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.terminal = bool(isatty and isatty())
        self.interval = interval if self.terminal else log_interval
        self.start = time.perf_counter()
        if not self.terminal:
            delay = log_interval if log_delay is None else log_delay
        self.next_report = self.start + delay
        self.shown = False

    @classmethod
    def for_verbosity(cls, verbose, stream=None):
        """The line for an estimator's ``verbose`` level: 1, the default throttle; 2 or more,
        from the start, every half second on a terminal and every second otherwise."""
        if verbose >= 2:
            return cls(stream, delay=0, log_interval=1.0, log_delay=0)
        return cls(stream)

    def update(self, text):
        """Show ``text()`` if the throttle allows; ``text`` is only called then."""
        now = time.perf_counter()
        if now < self.next_report:
            return
        self.next_report = now + self.interval
        line = f"[{now - self.start:8.1f} s] {text()}"
        if self.terminal:
            # \r and "erase to end of line": the line is rewritten in place.
            self.stream.write(f"\r{line}\x1b[K")
            self.shown = True
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def close(self):
        """Erase the terminal line, so the result prints on a clean line."""
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False
