"""Shared test set-up: Sphinx's own testing fixtures and path normalisation."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import sphinx

pytest_plugins = ["sphinx.testing.fixtures"]

TESTS = Path(__file__).parent
REPO = TESTS.parent

if sphinx.version_info[:2] < (7, 3):  # Sphinx 7.2's fixtures need its own path class
    from sphinx.testing.path import path as _root_path
else:
    _root_path = Path


@pytest.fixture(scope="session")
def rootdir() -> Any:
    return _root_path(str(TESTS / "roots"))


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def warning_lines(app: Any) -> list[str]:
    """The build's warnings, one a line, with the source folder shown as ``<srcdir>``."""
    text = _ANSI.sub("", app.warning.getvalue())
    srcdir = str(app.srcdir)
    lines = []
    for line in text.splitlines():
        line = line.replace(srcdir + "/", "<srcdir>/").replace(srcdir, "<srcdir>")
        if line.strip():
            lines.append(line)
    return lines
