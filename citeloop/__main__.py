"""``python -m citeloop``: the ``citeloop`` command (see :mod:`citeloop.cli`)."""

import sys

from citeloop.cli import main

sys.exit(main())
