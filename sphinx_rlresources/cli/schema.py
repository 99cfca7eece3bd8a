"""``rlresources schema``: print the packaged JSON Schema (for editors and other tools)."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from sphinx_rlresources.cli.common import EXIT_OK
from sphinx_rlresources.core.validation import schema


def run(args: argparse.Namespace, out: TextIO) -> int:
    json.dump(schema(), out, indent=2, ensure_ascii=False)
    out.write("\n")
    return EXIT_OK
