"""optrules: optimal rule lists, optimal and greedy boosted rules, compressed rule ensembles.

Commands: ``optrules rulelist``, ``optrules boost``, ``optrules boomer``, ``optrules cre``,
``optrules predict``, ``optrules verify``, ``optrules check-certificate``, ``optrules plot``,
``optrules data`` and ``optrules demo``; one module per subcommand (``<name>_command.py``),
each with ``add_parser(commands)``. An error prints one line (``optrules --debug COMMAND ...``
prints the traceback instead).

Exit status: 0 on success (also when a node, time or memory limit stopped the search: the
output says so and gives the optimality gap), 2 for bad arguments or input files, 130 after a
Ctrl-C (SIGINT) and 143 after a SIGTERM: the first such signal during a search stops it at its
next node, and the best result so far is printed and its files written as usual; a second
signal, or one while no search runs (reading data, writing files), aborts at once (also 130/143,
nothing more written), 141 when the reader of the output left early (a broken pipe,
``optrules data compas | head``: the command still writes its files, then ends quietly, as
for SIGPIPE), 70 for an internal error (a defect of optrules; please report it).
``optrules verify`` adds 1 (refuted) and 3 (undecided); ``optrules check-certificate`` adds 1
(rejected); ``optrules plot boosting`` adds 1 (a fit stopped by the memory cap before its last
rule: nothing drawn).
"""

import argparse
import os
import signal
import sys
import time
import warnings

from optrules.limits import StoppedSearchWarning, interruptible, received_signal

from . import (boomer_command, boost_command, check_certificate_command, cre_command,
               data_command, demo_command, plot_command, predict_command, rulelist_command,
               verify_command)
from .arguments import check_output_paths

__all__ = ["main"]

_COMMANDS = (rulelist_command, boost_command, boomer_command, cre_command, predict_command,
             verify_command, check_certificate_command, plot_command, data_command,
             demo_command)


def _parser():
    parser = argparse.ArgumentParser(prog="optrules", description=__doc__.splitlines()[0],
                                     epilog="Run 'optrules COMMAND --help' for its options.")
    parser.add_argument("--debug", action="store_true",
                        help="on an error, print the whole traceback, not one line")
    commands = parser.add_subparsers(dest="command", required=True)
    for command in _COMMANDS:
        command.add_parser(commands)
    return parser


class _Stdout:
    """``sys.stdout`` while a command runs. When the reader of the output leaves early (a
    broken pipe: ``optrules ... | head``), the rest of the output is dropped and the command
    goes on, so that its files (--save-model, --certificate) are still written; ``broken``
    then says so."""

    def __init__(self, stream):
        self.stream = stream
        self.broken = False

    def write(self, text):
        if not self.broken:
            try:
                return self.stream.write(text)
            except BrokenPipeError:
                self._drop()
        return len(text)

    def flush(self):
        if not self.broken:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self._drop()

    def _drop(self):
        self.broken = True
        try:    # what stays in the stream's buffer goes to /dev/null at exit, not to an error
            descriptor = self.stream.fileno()
        except (OSError, ValueError, AttributeError):
            return  # not a file (a test's capture): nothing is flushed at exit
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, descriptor)
        os.close(null)

    def __getattr__(self, name):
        return getattr(self.stream, name)


def main(argv=None):
    """Entry point of the ``optrules`` command; returns the exit status."""
    stdout = sys.stdout = _Stdout(sys.stdout)
    try:
        try:
            status = _run(argv)
        finally:
            stdout.flush()              # here, not at exit: a broken pipe is seen and dropped
    except SystemExit:                  # --help and usage errors, from argparse
        if stdout.broken:
            raise SystemExit(128 + signal.SIGPIPE) from None
        raise
    finally:
        sys.stdout = stdout.stream
    return 128 + signal.SIGPIPE if stdout.broken else status


def _warning_line(command):
    """A ``warnings.showwarning`` that writes one line, as errors are written: not Python's
    file and line of the call and its source line, which mean nothing to a command's user."""
    def show(message, category, filename, lineno, file=None, line=None):
        print(f"optrules {command}: warning: {message}", file=sys.stderr)
    return show


def _run(argv):
    started = time.perf_counter()
    parser = _parser()
    args = parser.parse_args(argv)
    args.started = started              # --time-limit counts from here (reading data included)
    try:
        with interruptible(searching=False), warnings.catch_warnings():
            # The output states every stop status and gap; a warning would say it twice.
            warnings.simplefilter("ignore", StoppedSearchWarning)
            warnings.showwarning = _warning_line(args.command)
            check_output_paths(args)
            status = args.run(args, args.parser)
    except KeyboardInterrupt:           # the second signal: abort at once
        received = received_signal()
        print(f"optrules {args.command}: aborted", file=sys.stderr)
        return 128 + (received or signal.SIGINT)
    except (ValueError, TypeError, OSError) as error:
        if args.debug:
            raise
        print(f"optrules {args.command}: error: {error}", file=sys.stderr)
        return 2
    except Exception as error:          # a defect of optrules: say so in one line
        if args.debug:
            raise
        print(f"optrules {args.command}: internal error: {type(error).__name__}: {error} "
              "(run 'optrules --debug ...' for the traceback, and please report it)",
              file=sys.stderr)
        return 70                       # EX_SOFTWARE of sysexits.h
    received = received_signal()
    return status if received is None else 128 + received


if __name__ == "__main__":
    sys.exit(main())
