"""Shared test set-up: Sphinx's own testing fixtures, path normalisation and the browser tests' Chromium."""

from __future__ import annotations

import importlib.util
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chromium
import pytest
import sphinx
from chromium import CHROMIUM, DRIVER
from docutils.parsers.rst import directives as _directives
from docutils.parsers.rst import roles as _roles
from hypothesis import HealthCheck, settings
from sphinx.util import docutils as _sphinx_docutils

pytest_plugins = ["sphinx.testing.fixtures"]

TESTS = Path(__file__).parent
REPO = TESTS.parent

# One Hypothesis profile for every property test: the same examples on every run, so a
# failure is reproducible ("ci"); RLRESOURCES_FUZZ=long (make fuzz) searches afresh,
# RLRESOURCES_FUZZ_EXAMPLES per property (a test that sets its own max_examples keeps it).
settings.register_profile(
    "ci",
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "long",
    settings.get_profile("ci"),
    max_examples=int(os.environ.get("RLRESOURCES_FUZZ_EXAMPLES", "5000")),
    derandomize=False,
)
settings.load_profile(os.environ.get("RLRESOURCES_FUZZ", "ci"))

if sphinx.version_info[:2] < (7, 3):  # Sphinx 7.2's fixtures need its own path class
    from sphinx.testing.path import path as root_path
    from sphinx.testing.util import SphinxTestApp

    # What later Sphinx versions added, so one test suite runs on 7.2 too (.ci/matrix oldest):
    # the app's output streams as attributes, and pathlib's mkdir on the srcdir path.
    SphinxTestApp.status = property(lambda self: self._status)  # type: ignore[attr-defined]
    SphinxTestApp.warning = property(lambda self: self._warning)  # type: ignore[attr-defined]

    def _mkdir(self: Any, mode: int = 0o777, parents: bool = False, exist_ok: bool = False) -> None:
        Path(self).mkdir(mode=mode, parents=parents, exist_ok=exist_ok)

    root_path.mkdir = _mkdir  # type: ignore[attr-defined]

else:
    root_path = Path

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
    return root_path(str(TESTS / "roots"))


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


# -- the browser tests' Chromium ------------------------------------------------------------


BROWSER_SKIP = "the browser test needs "


def _install_command() -> str:
    """The one command that installs what the browser tests lack on this machine."""
    packages = [name for name, found in (("chromium", CHROMIUM), ("chromium-driver", DRIVER)) if not found]
    commands = [f"apt-get install {' '.join(packages)}"] if packages else []
    if importlib.util.find_spec("selenium") is None:
        commands.append(".venv/bin/python -m pip install -e '.[test]'")
    return " && ".join(commands)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Say at the very end, below pytest's counts, where a fresh machine's ``make test`` is read, what it did not test.

    pytest's own summary counts the skips among the passes; a reader who sees "passed"
    would not know the page was never looked at in a browser.  (``pytest_terminal_summary``
    would print above the short summary and the counts, out of sight.)
    """
    terminalreporter = config.pluginmanager.get_plugin("terminalreporter")
    if terminalreporter is None:
        return
    skipped = [
        report
        for report in terminalreporter.stats.get("skipped", [])
        if isinstance(report.longrepr, tuple) and BROWSER_SKIP in str(report.longrepr[2])
    ]
    if not skipped:
        return
    lost = "Chromium missing" if not CHROMIUM or not DRIVER else "selenium missing"
    terminalreporter.write_sep("!", f"{len(skipped)} browser/theme tests skipped: {lost}", yellow=True, bold=True)
    terminalreporter.write_line(f"install with: {_install_command()}", yellow=True, bold=True)


def need_browser() -> None:
    """Skip with the reason where no browser is installed; in CI, fail instead."""
    missing = []
    if importlib.util.find_spec("selenium") is None:
        missing.append("the selenium package (pip install -e '.[test]')")
    if not CHROMIUM:
        missing.append("Chromium (apt-get install chromium)")
    if not DRIVER:
        missing.append("its driver (apt-get install chromium-driver)")
    if missing:
        reason = BROWSER_SKIP + " and ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; .ci/run installs them in CI")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Headless Chromium driven by Selenium, one per test module (tests/test_browser.py, tests/test_themes.py)."""
    need_browser()
    profile = tmp_path_factory.mktemp("chromium-profile")
    opts = chromium.options(profile)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = chromium.start(profile, opts)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
