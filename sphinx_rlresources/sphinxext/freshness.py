"""Sphinx side of freshness: the ``rl-last-updated`` role and the row markers.

The dates and the staleness come from :mod:`.freshness` (no Sphinx there); this
module only turns them into nodes.  Markers are text in a cell (``(stale)``), so
every builder shows them; HTML adds a class per marker for styling, never colour
alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxRole

from sphinx_rlresources.core import freshness
from sphinx_rlresources.core.diagnostics import Subtype
from sphinx_rlresources.core.model import Entry, size_key
from sphinx_rlresources.core.query import select
from sphinx_rlresources.sphinxext.i18n import _
from sphinx_rlresources.sphinxext.store import ALL, get_dataset, note_use
from sphinx_rlresources.sphinxext.warnings import warn_at

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

logger = logging.getLogger(__name__)

DEFAULT_STALE_MARKER = "(stale)"


def _marker(text: str, kind: str) -> nodes.inline:
    return nodes.inline(text, text, classes=["rlresources-marker", f"rlresources-marker-{kind}"])


def markers(entry: Entry, env: BuildEnvironment) -> list[tuple[str, str]]:
    """The (kind, text) markers a row gets under this build's configuration."""
    config = env.config
    found = []
    stale_text = config.rlresources_stale_marker
    if stale_text and entry.source in get_dataset(env).stale:
        found.append(("stale", _(DEFAULT_STALE_MARKER) if stale_text == DEFAULT_STALE_MARKER else stale_text))
    if freshness.is_older(entry.tested, config.rlresources_max_age_days, freshness.today()):
        found.append(("outdated", _("(outdated)")))
    if config.rlresources_mark_unverified and not entry.evidence:
        found.append(("unverified", _("(unverified)")))
    return found


def shared_markers(entries: list[Entry], env: BuildEnvironment) -> dict[str, str]:
    """The markers every row of a table has (kind -> text): said once above it, not on each row.

    A marker on every row tells the reader nothing about any one of them; a table of one
    row keeps its marker on the row.
    """
    if len(entries) < 2:
        return {}
    first = dict(markers(entries[0], env))
    for entry in entries[1:]:
        mine = dict(markers(entry, env))
        first = {kind: text for kind, text in first.items() if mine.get(kind) == text}
        if not first:
            break
    return first


def _age(days: int) -> str:
    if days % 365 == 0:
        years = days // 365
        return _("a year") if years == 1 else _("%d years") % years
    return _("%d days") % days


def shared_note(entries: list[Entry], shared: dict[str, str], env: BuildEnvironment) -> nodes.paragraph:
    """The sentence said once above a table whose rows all share ``shared``: each marker, and why."""
    para = nodes.paragraph(classes=["rlresources-shared-markers"])
    sentences = []
    for kind, text in shared.items():
        if kind == "outdated":
            days = {e.tested for e in entries if e.tested}
            age = _age(env.config.rlresources_max_age_days)
            if len(days) == 1:
                why = _("All rows were last tested on %(day)s, more than %(age)s ago.") % {
                    "day": days.pop(),
                    "age": age,
                }
            else:
                why = _("All rows were last tested more than %(age)s ago (the newest on %(day)s).") % {
                    "age": age,
                    "day": max(days),
                }
        elif kind == "stale":
            why = _("The script of every row changed after the row was tested.")
        else:
            why = _("No row links the evidence of its run.")
        sentences.append((kind, text, why))
    for index, (kind, text, why) in enumerate(sentences):
        if index:
            para += nodes.Text(" ")
        para += _marker(text, kind)
        para += nodes.Text(" " + why)
    return para


def add_markers(
    row: nodes.row, entry: Entry, shown: list[str], env: BuildEnvironment, said: dict[str, str] | None = None
) -> None:
    """Append the row's markers to its Tested cell (else its Tag cell, else its first cell).

    Markers in ``said`` (shared by every row, and said once above the table) are left out.
    """
    found = [(kind, text) for kind, text in markers(entry, env) if not said or kind not in said]
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
        chosen = select(dataset, self.text.strip())
        if chosen.unknown is not None:
            note_use(self.env, size_key(chosen.unknown.wanted))
            known = ", ".join(chosen.unknown.known) or "(none)"
            warn_at(
                Subtype.UNKNOWN_SIZE,
                f"rl-last-updated names unknown size '{chosen.unknown.wanted}'; write 'all' or one of: {known}",
                self.get_location(),
            )
            return [nodes.inline(_("unknown"), _("unknown"), classes=["rlresources-last-updated"])], []
        note_use(self.env, ALL if chosen.every_size else chosen.sizes[0].key)
        for size in chosen.sizes:
            self.env.note_dependency(str(size.path))
        day, source = freshness.last_updated(chosen.entries, dataset.root, [s.path for s in chosen.sizes])
        text = day or _("unknown")
        return [nodes.inline(text, text, classes=["rlresources-last-updated", f"rlresources-from-{source}"])], []


def register(app: Sphinx) -> None:
    app.add_role("rl-last-updated", LastUpdated())
