"""The one way the Sphinx layer reports a problem: a typed ``rlresources.<subtype>`` warning.

Like every Sphinx warning it can be silenced per subtype with ``suppress_warnings``
and turned into an error with ``-W``; the subtypes are the members of
:class:`~sphinx_rlresources.core.diagnostics.Subtype`, the list the docs print.
"""

from __future__ import annotations

from typing import Any

from sphinx.util import logging

from sphinx_rlresources.core.diagnostics import WARNING_TYPE, Diagnostic, Subtype
from sphinx_rlresources.safe.text import one_line

logger = logging.getLogger("sphinx_rlresources")
LEVEL = "rlresources_level"
"""The record attribute that carries a finding's own level (``warning`` or ``error``) to ``fail_on``."""


def warn(diagnostic: Diagnostic) -> None:
    """Log one data-file finding at its file, line and column."""
    # Sphinx reads a location without ':' as a document name (and appends .rst), so a
    # finding about the whole file is placed at its first line.
    location = diagnostic.location if diagnostic.line > 0 else f"{diagnostic.location}:1"
    logger.warning(
        diagnostic.message,
        type=WARNING_TYPE,
        subtype=diagnostic.subtype.value,
        location=location,
        extra={LEVEL: diagnostic.severity},  # a finding milder than its kind (an override given twice)
    )


def warn_at(subtype: Subtype, message: str, location: Any = None) -> None:
    """Log a problem of a page (an option, an unknown size) at the directive or role."""
    logger.warning(one_line(message), type=WARNING_TYPE, subtype=subtype.value, location=location)


def warn_config(message: str) -> None:
    """Log an unusable ``rlresources_*`` value (``rlresources.config``)."""
    logger.warning(one_line(message), type=WARNING_TYPE, subtype=Subtype.CONFIG.value)


def warn_file(message: str) -> None:
    """Log a file the build could not write (``rlresources.file``)."""
    logger.warning(one_line(message), type=WARNING_TYPE, subtype=Subtype.FILE.value)


def info(message: str) -> None:
    """A note that is not a finding (a check that could not run, and why)."""
    logger.info(one_line(message))
