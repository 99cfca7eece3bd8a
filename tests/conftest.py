"""Shared test set-up: Sphinx's own testing fixtures and path normalisation."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import sphinx
from docutils.parsers.rst import directives as _directives
from docutils.parsers.rst import roles as _roles
from sphinx.util import docutils as _sphinx_docutils

pytest_plugins = ["sphinx.testing.fixtures"]

TESTS = Path(__file__).parent
REPO = TESTS.parent

if sphinx.version_info[:2] < (7, 3):  # Sphinx 7.2's fixtures need its own path class
    from sphinx.testing.path import path as _root_path
    from sphinx.testing.util import SphinxTestApp

    # What later Sphinx versions added, so one test suite runs on 7.2 too (.ci/matrix oldest):
    # the app's output streams as attributes, and pathlib's mkdir on the srcdir path.
    SphinxTestApp.status = property(lambda self: self._status)  # type: ignore[attr-defined]
    SphinxTestApp.warning = property(lambda self: self._warning)  # type: ignore[attr-defined]

    def _mkdir(self: Any, mode: int = 0o777, parents: bool = False, exist_ok: bool = False) -> None:
        Path(self).mkdir(mode=mode, parents=parents, exist_ok=exist_ok)

    _root_path.mkdir = _mkdir  # type: ignore[attr-defined]

else:
    _root_path = Path

if sphinx.version_info[:2] < (8, 0):
    from sphinx.util.logging import WarningLogRecordTranslator

    _translate = WarningLogRecordTranslator.filter

    def _tagged(self: Any, record: Any) -> bool:
        """Print ``[type.subtype]`` after a warning as Sphinx 8 does by default, so the
        expected warning lines are the same on every version (the tags are only shown,
        never used, by the extension; ``suppress_warnings`` works on 7.2 alike)."""
        result: bool = _translate(self, record)
        log_type, subtype = getattr(record, "type", ""), getattr(record, "subtype", "")
        tag = f"[{log_type}.{subtype}]" if subtype else f"[{log_type}]"
        if log_type and not str(record.msg).endswith(tag):  # 7.3 and 7.4 with show_warning_types
            record.msg = f"{record.msg} {tag}"
        return result

    WarningLogRecordTranslator.filter = _tagged  # type: ignore[method-assign]


_PRISTINE = (dict(_directives._directives), dict(_roles._roles))  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _docutils_namespace() -> Any:
    """Start every test with no Sphinx nodes, directives or roles registered.

    An application made outside the testing fixtures (``Sphinx(...)`` or ``build_main``,
    even in a module-scoped fixture) can leave them registered, and every later test app
    then warns "node class ... is already registered" (Sphinx 7.2, and 9.2 for
    directives).
    """
    _directives._directives = dict(_PRISTINE[0])  # type: ignore[attr-defined]
    _roles._roles = dict(_PRISTINE[1])  # type: ignore[attr-defined]
    for node in list(_sphinx_docutils.additional_nodes):
        _sphinx_docutils.unregister_node(node)
        _sphinx_docutils.additional_nodes.discard(node)
    yield


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


_LABELLED_CELL = re.compile(r'<td data-label="[^"]*"(?: class="[^"]*")?>')


def unbroken(html: str) -> str:
    """HTML without the break hints the table adds (``<wbr/>``, soft hyphens) and its cells' labels.

    The hints let long names wrap in the browser; tests that look for a value as written
    read the page through this, as a reader reads it.
    """
    return _LABELLED_CELL.sub("<td>", html.replace("<wbr/>", "").replace("&#173;", ""))
