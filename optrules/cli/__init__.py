"""optrules: certifiably optimal rule lists, optimal rule boosting, and their verification.

Commands: ``optrules rulelist``, ``optrules boost``, ``optrules predict``, ``optrules verify``,
``optrules data`` and ``optrules demo``; one module per subcommand (``<name>_command.py``),
each with ``add_parser(commands)``.

Exit status: 0 on success (also when a limit stopped the search: the output says so and gives
the optimality gap), 2 for bad arguments or input files.
"""

import argparse
import sys

from . import (boost_command, data_command, demo_command, predict_command, rulelist_command,
               verify_command)
from .arguments import check_output_paths

__all__ = ["main"]

_COMMANDS = (rulelist_command, boost_command, predict_command, verify_command, data_command,
             demo_command)


def _parser():
    parser = argparse.ArgumentParser(prog="optrules", description=__doc__.splitlines()[0],
                                     epilog="Run 'optrules COMMAND --help' for its options.")
    commands = parser.add_subparsers(dest="command", required=True)
    for command in _COMMANDS:
        command.add_parser(commands)
    return parser


def main(argv=None):
    """Entry point of the ``optrules`` command; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        check_output_paths(args)
        return args.run(args, args.parser)
    except (ValueError, TypeError, OSError) as error:
        print(f"optrules {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
