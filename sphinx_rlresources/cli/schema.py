"""``rlresources schema``: print the packaged JSON Schema, or write it into the repository (``--out``).

A copy inside the repository is what the ``yaml-language-server`` modeline of a data file
should point at: a path that works for anyone who clones the repository.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from sphinx_rlresources.cli.common import EXIT_OK, Lines, load_project, repository_root, write_file
from sphinx_rlresources.core.diagnostics import relpath
from sphinx_rlresources.core.validation import SCHEMA_FILE, schema


def run(args: argparse.Namespace, out: Lines) -> int:
    text = json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"
    if args.out is None:
        out.write(text)
        return EXIT_OK
    target = Path(args.out)
    if not target.name.endswith(".json") or args.out.endswith(("/", "\\")):
        target = target / SCHEMA_FILE  # a folder, created if missing

    write_file(repository_root(args, load_project()), target, text, overwrite=True)
    out.write(
        f"wrote {relpath(target)}; data files point at it with a first line such as\n"
        f"  # yaml-language-server: $schema={SCHEMA_FILE}\n"
        "(rlresources import and new write that line, relative to each data file)\n"
    )
    return EXIT_OK
