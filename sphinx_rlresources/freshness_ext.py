"""Sphinx side of freshness: the ``rl-last-updated`` role and the row markers.

The dates and the staleness come from :mod:`.freshness` (no Sphinx there); this
module only turns them into nodes.  Markers are text in a cell (``(stale)``), so
every builder shows them; HTML adds a class per marker for styling, never colour
alone.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxRole

from . import freshness
from .diagnostics import WARNING_TYPE, Subtype
from .extension import ALL, get_dataset, note_use, warn_at
from .i18n import _
from .model import Entry

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment

logger = logging.getLogger(__name__)

CSS_FILE = "rlresources-freshness.css"
STATIC_DIR = Path(__file__).parent / "static"
DEFAULT_STALE_MARKER = "(stale)"


def today() -> dt.date:
    """The build's day: ``SOURCE_DATE_EPOCH`` when set (reproducible builds), else today (UTC)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch.isdigit():
        return dt.datetime.fromtimestamp(int(epoch), tz=dt.timezone.utc).date()
    return dt.datetime.now(tz=dt.timezone.utc).date()


def _marker(text: str, kind: str) -> nodes.inline:
    return nodes.inline(text, text, classes=["rlresources-marker", f"rlresources-marker-{kind}"])


def markers(entry: Entry, env: BuildEnvironment) -> list[tuple[str, str]]:
    """The (kind, text) markers a row gets under this build's configuration."""
    config = env.config
    found = []
    stale_text = config.rlresources_stale_marker
    if stale_text and entry.source in get_dataset(env).stale:
        found.append(("stale", _(DEFAULT_STALE_MARKER) if stale_text == DEFAULT_STALE_MARKER else stale_text))
    if freshness.is_older(entry.tested, config.rlresources_max_age_days, today()):
        found.append(("outdated", _("(outdated)")))
    if config.rlresources_mark_unverified and not entry.evidence:
        found.append(("unverified", _("(unverified)")))
    return found


def add_markers(row: nodes.row, entry: Entry, shown: list[str], env: BuildEnvironment) -> None:
    """Append the row's markers to its Tested cell (else its Tag cell, else its first cell)."""
    found = markers(entry, env)
    if not found or not shown:
        return
    column = "tested" if "tested" in shown else "tag" if "tag" in shown else shown[0]
    cells = [child for child in row.children if isinstance(child, nodes.entry)]
    para = cells[shown.index(column)].next_node(nodes.paragraph)
    if para is None:  # pragma: no cover - every cell the directive draws has one
        return
    for kind, text in found:
        if len(para.children):
            para += nodes.Text(" ")
        para += _marker(text, kind)
        row["classes"].append(f"rlresources-{kind}")


class LastUpdated(SphinxRole):
    """``:rl-last-updated:`all``` (or a size): the day the data was last verified or changed."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        dataset = get_dataset(self.env)
        wanted = self.text.strip()
        if wanted.lower() in ("all", "*"):
            note_use(self.env, ALL)
            sizes = list(dataset.sizes.values())
        else:
            note_use(self.env, wanted.lower())
            size = dataset.sizes.get(wanted.lower())
            if size is None:
                known = ", ".join(s.label for s in dataset.sizes.values()) or "(none)"
                warn_at(
                    Subtype.UNKNOWN_SIZE,
                    f"rl-last-updated names unknown size '{wanted}'; write 'all' or one of: {known}",
                    self.get_location(),
                )
                return [nodes.inline(_("unknown"), _("unknown"), classes=["rlresources-last-updated"])], []
            sizes = [size]
        for size in sizes:
            self.env.note_dependency(str(size.path))
        entries = [e for s in sizes if s.readable for e in s.entries]
        day, source = freshness.last_updated(entries, dataset.root, [s.path for s in sizes])
        text = day or _("unknown")
        return [nodes.inline(text, text, classes=["rlresources-last-updated", f"rlresources-from-{source}"])], []


def check_config(app: Sphinx, config: Config) -> None:
    """A bad freshness value is reported (``rlresources.config``) and replaced by its default."""
    days = config.rlresources_max_age_days
    if days is not None and (isinstance(days, bool) or days < 1):
        logger.warning(
            f"rlresources_max_age_days = {days!r} must be a positive number of days, or None; no age marker is shown",
            type=WARNING_TYPE,
            subtype=Subtype.CONFIG.value,
        )
        config.rlresources_max_age_days = None


def copy_css(app: Sphinx) -> None:
    """Put the markers' stylesheet into ``_static`` before the HTML (or EPUB) builder lists it."""
    if app.builder.format != "html":
        return
    target = Path(app.outdir) / "_static"
    target.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(STATIC_DIR / CSS_FILE, target / CSS_FILE)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the role, the stylesheet and the config check (called from the package's setup)."""
    app.add_role("rl-last-updated", LastUpdated())
    app.add_css_file(CSS_FILE)
    app.connect("config-inited", check_config)
    app.connect("builder-inited", copy_css)
    return {}
