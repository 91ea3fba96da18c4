"""`python -m softlin.cli`: the `softlin` command."""

import sys

from . import main

sys.exit(main())
