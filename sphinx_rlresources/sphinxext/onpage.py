"""What a page being read has drawn so far, for the directives below it on the same page.

An ``rl-resource-estimate`` block names models, not sizes (DeepSeek-V3's name carries
no "671B"), so the size it stands in for is the one the page gave it: the size of the
``rl-resource-table`` of one size drawn last above it.  The chart further down then
shows each estimated size with the very counts the estimate block printed.  The state
lives in ``env.temp_data``, which Sphinx keeps for the page being read and clears
before the next one, so nothing leaks between pages or into the pickled environment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sphinx_rlresources.sphinxext.svgchart import Estimated

if TYPE_CHECKING:
    from sphinx.environment import BuildEnvironment

SIZE_KEY = "rlresources-section-size"
ESTIMATES_KEY = "rlresources-estimates"


def note_size(env: BuildEnvironment, label: str | None) -> None:
    """A table was drawn: estimates below it stand in for its size (None: it drew several)."""
    env.temp_data[SIZE_KEY] = label


def section_size(env: BuildEnvironment) -> str | None:
    """The size an estimate drawn now stands in for, or None when no one-size table is above it."""
    found = env.temp_data.get(SIZE_KEY)
    return found if isinstance(found, str) else None


def note_estimate(env: BuildEnvironment, estimate: Estimated) -> None:
    found = env.temp_data.get(ESTIMATES_KEY)
    env.temp_data[ESTIMATES_KEY] = [*(found if isinstance(found, list) else []), estimate]


def estimates(env: BuildEnvironment) -> list[Estimated]:
    """The estimates drawn so far on this page, in page order."""
    found = env.temp_data.get(ESTIMATES_KEY)
    return [e for e in found if isinstance(e, Estimated)] if isinstance(found, list) else []
