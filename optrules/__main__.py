"""``python -m optrules``: the ``optrules`` command."""

import sys

from optrules.cli import main

if __name__ == "__main__":
    sys.exit(main())
