"""``python -m optrules``: the ``optrules`` command."""

import sys

from optrules.cli import main

sys.exit(main())
