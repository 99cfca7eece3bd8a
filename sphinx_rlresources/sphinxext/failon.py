"""``rlresources_fail_on``: a non-zero exit status without ``-W``.

Large docs builds carry many unrelated warnings, so ``-W`` is often off and a check that
only warns goes unseen.  This module counts the ``rlresources.*`` warnings of a build
(in the main process, where Sphinx also replays what parallel readers logged), leaves
out what ``suppress_warnings`` silences, and at ``build-finished`` sets the status
Sphinx exits with, as its linkcheck builder does for broken links.  Every page is
still written.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from sphinx.util.logging import is_suppressed_warning

from sphinx_rlresources.core.diagnostics import WARNING_TYPE, Subtype
from sphinx_rlresources.sphinxext.warnings import LEVEL, info

if TYPE_CHECKING:
    from sphinx.application import Sphinx

_SUBTYPES = {s.value: s for s in Subtype}
COUNTED = "rlresources_counted"


class FindingCounter(logging.Handler):
    """Counts this build's ``rlresources.*`` warnings by level (``error`` or ``warning``)."""

    def __init__(self, app: Sphinx) -> None:
        super().__init__(logging.WARNING)
        self.app = app
        self.counts = {"error": 0, "warning": 0}

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, "type", None) != WARNING_TYPE or getattr(record, COUNTED, False):
            return
        # Sphinx holds a page's warnings back while it reads (pending_warnings) and then hands
        # the same records to the logger again; a record is counted the first time only.
        setattr(record, COUNTED, True)
        subtype = str(getattr(record, "subtype", "") or "")
        if is_suppressed_warning(WARNING_TYPE, subtype, self.app.config.suppress_warnings):
            return
        found = _SUBTYPES.get(subtype)
        level = getattr(record, LEVEL, None) or (found.level if found else "error")
        self.counts["warning" if level == "warning" else "error"] += 1

    def failing(self, level: str) -> int:
        """How many findings are at or above ``level``."""
        if level == "error":
            return self.counts["error"]
        if level == "warning":
            return self.counts["error"] + self.counts["warning"]
        return 0


def _counter(app: Sphinx) -> FindingCounter | None:
    found = getattr(app, "_rlresources_counter", None)
    return found if isinstance(found, FindingCounter) else None


def start_counting(app: Sphinx) -> None:
    if app.config.rlresources_fail_on == "never" or _counter(app) is not None:
        return
    counter = FindingCounter(app)
    app._rlresources_counter = counter  # type: ignore[attr-defined]
    logging.getLogger("sphinx").addHandler(counter)


def finish(app: Sphinx, exception: BaseException | None) -> None:
    counter = _counter(app)
    if counter is None:
        return
    logging.getLogger("sphinx").removeHandler(counter)
    app._rlresources_counter = None  # type: ignore[attr-defined]
    level = app.config.rlresources_fail_on
    failing = counter.failing(level)
    if exception is None and failing:
        app.statuscode = 1
        plural = "finding" if failing == 1 else "findings"
        info(
            f"rlresources: {failing} {plural} at or above '{level}' failed the build "
            f"(rlresources_fail_on = {level!r}); every page was written"
        )


def register(app: Sphinx) -> None:
    # After config-inited has checked the value; before env-before-read-docs loads the data.
    app.connect("builder-inited", start_counting)
    app.connect("build-finished", finish, priority=900)  # after the JSON file and the others
