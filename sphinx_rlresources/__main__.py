"""``python -m sphinx_rlresources lint ...``: the same command as ``rlresources``."""

from __future__ import annotations

import sys

from sphinx_rlresources.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
