"""Sphinx side of freshness: the ``rl-last-updated`` role and the row markers.

The dates and the staleness come from :mod:`.freshness` (no Sphinx there); this
module only turns them into nodes.  Markers are text in a cell (``(stale)``), so
every builder shows them; HTML adds a class per marker for styling, never colour
alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docutils import nodes
from sphinx.util.docutils import SphinxRole

from sphinx_rlresources.core import freshness
from sphinx_rlresources.core.diagnostics import Subtype
from sphinx_rlresources.core.model import Entry
from sphinx_rlresources.sphinxext.base import guarded, select_on_page
from sphinx_rlresources.sphinxext.i18n import _
from sphinx_rlresources.sphinxext.nodes import body_rows
from sphinx_rlresources.sphinxext.store import get_dataset
from sphinx_rlresources.sphinxext.warnings import warn_at

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

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


def _age(days: int) -> str:
    if days % 365 == 0:
        years = days // 365
        return _("a year") if years == 1 else _("%d years") % years
    return _("%d days") % days


def _date(day: str) -> nodes.inline:
    """A day as one unbreakable word (never "2025-06-" at a line's end and "25" on the next)."""
    return nodes.inline(day, day, classes=["rlresources-date"])


def add_markers(row: nodes.row, entry: Entry, shown: list[str], env: BuildEnvironment) -> None:
    """Append the row's markers to its Tested cell (else its Tag cell, else its first cell).

    The row remembers its markers (``rl_markers``) and its tested day (``rl_tested``):
    once the page is read, :func:`say_markers_once` replaces the markers every row of
    the page (or of a table) shares by one sentence.
    """
    found = markers(entry, env)
    row["rl_markers"] = dict(found)
    row["rl_tested"] = entry.tested or ""
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


def _shared(rows: list[nodes.row]) -> dict[str, str]:
    """The markers (kind -> text) every one of ``rows`` has; none for a single row.

    A marker on every row tells the reader nothing about any one of them; a lone row
    keeps its marker, where it is seen with the row.
    """
    if len(rows) < 2:
        return {}
    first: dict[str, str] = dict(rows[0]["rl_markers"])
    for row in rows[1:]:
        first = {kind: text for kind, text in first.items() if row["rl_markers"].get(kind) == text}
    return first


def _unmark(rows: list[nodes.row], kinds: dict[str, str]) -> None:
    """Take the markers of ``kinds`` off ``rows``: a sentence says them instead."""
    for row in rows:
        for kind in kinds:
            for marker in list(row.findall(nodes.inline)):
                if f"rlresources-marker-{kind}" not in marker["classes"]:
                    continue
                parent = marker.parent
                index = parent.index(marker)
                del parent[index]
                if index and isinstance(parent[index - 1], nodes.Text) and str(parent[index - 1]) == " ":
                    # by position: remove() would take the first equal " ", the one before
                    # the row's other marker, and the cell would read "MIN(stale) "
                    del parent[index - 1]
            if f"rlresources-{kind}" in row["classes"]:
                row["classes"].remove(f"rlresources-{kind}")
        row["rl_markers"] = {kind: text for kind, text in row["rl_markers"].items() if kind not in kinds}


def _note(rows: list[nodes.row], shared: dict[str, str], age_days: int | None, page: bool) -> nodes.paragraph:
    """The sentence said once for ``rows`` that all share ``shared``: each marker, and why.

    ``page``: the rows are every row the page draws, and the sentence says so.
    """
    para = nodes.paragraph(classes=["rlresources-shared-markers"])
    for index, (kind, text) in enumerate(shared.items()):
        if index:
            para += nodes.Text(" ")
        para += _marker(text, kind)
        para += nodes.Text(" ")
        if kind == "outdated":
            days = sorted({str(row["rl_tested"]) for row in rows if row["rl_tested"]})
            age = _age(age_days or 0)
            if len(days) == 1:
                words = (
                    _("Every configuration on this page was last tested on %(day)s, more than %(age)s ago.")
                    if page
                    else _("All rows were last tested on %(day)s, more than %(age)s ago.")
                )
            else:
                words = (
                    _("Every configuration on this page was last tested more than %(age)s ago (the newest on %(day)s).")
                    if page
                    else _("All rows were last tested more than %(age)s ago (the newest on %(day)s).")
                )
            before, _day, after = (words % {"day": "\0", "age": age}).partition("\0")
            para += nodes.Text(before)
            para += _date(days[-1])
            para += nodes.Text(after)
        elif kind == "stale":
            para += nodes.Text(
                _("The script of every configuration on this page changed after it was tested.")
                if page
                else _("The script of every row changed after the row was tested.")
            )
        else:
            para += nodes.Text(
                _("No configuration on this page links the evidence of its run.")
                if page
                else _("No row links the evidence of its run.")
            )
    return para


def _place(table: nodes.table) -> nodes.Element:
    """What a sentence about ``table`` goes above: the table, or the filter block around it."""
    parent = table.parent
    return parent if isinstance(parent, nodes.container) and "rlresources-filter" in parent["classes"] else table


def _opening(place: nodes.Element) -> nodes.Element:
    """Where a sentence about the whole page goes: before the sections that lead to ``place``.

    The seed page's first table sits in its "0.5B" section, but the sentence is about
    every size: it goes before that section, at the end of the page's opening text.
    Only a first subsection can have text put before it, so the climb stops at one that
    follows another.
    """
    while isinstance(place.parent, nodes.section) and isinstance(place.parent.parent, nodes.section):
        section = place.parent
        earlier = section.parent.children[: section.parent.index(section)]
        if any(isinstance(node, nodes.section) for node in earlier):
            break
        place = section
    return place


def say_markers_once(app: Sphinx, doctree: nodes.document) -> None:
    """Say a marker every drawn row shares once per page, instead of on every row or above every table.

    A marker every row of the page has (the seed page's rows were all tested on one day)
    becomes one sentence above the page's first table; a marker every row of one table
    has, one sentence above that table; any other marker stays on its row.  Runs when a
    page has been read (after the parked rows are back), so it sees every table of the page.
    """
    tables = []
    unmarked = False  # a table drawn with ":markers: no" has rows no sentence may speak for
    for table in doctree.findall(nodes.table):
        if "rlresources-table" in table["classes"]:
            unmarked = unmarked or bool(table.get("rl_unmarked"))
            rows = [row for row in body_rows(table) if "rl_markers" in row]
            if rows:
                tables.append((table, rows))
    if not tables:
        return
    age = app.config.rlresources_max_age_days
    every = [row for _table, rows in tables for row in rows]
    page = {} if unmarked else _shared(every)
    if page:
        _unmark(every, page)
        first = _opening(_place(tables[0][0]))
        first.parent.insert(first.parent.index(first), _note(every, page, age, page=True))
    for table, rows in tables:
        shared = _shared(rows)
        if shared:
            _unmark(rows, shared)
            place = _place(table)
            place.parent.insert(place.parent.index(place), _note(rows, shared, age, page=False))


class LastUpdated(SphinxRole):
    """``:rl-last-updated:`all``` (or a size): the day the data was last verified or changed."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        """Guarded as the directives are: a bug warns and leaves the role out, the build goes on."""
        nothing: tuple[list[nodes.Node], list[nodes.system_message]] = ([], [])
        return guarded("rl-last-updated", self.get_location(), self._draw, nothing)

    def _draw(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        dataset = get_dataset(self.env)
        chosen = select_on_page(self.env, dataset, self.text.strip())
        if chosen.unknown is not None:
            known = ", ".join(chosen.unknown.known) or "(none)"
            warn_at(
                Subtype.UNKNOWN_SIZE,
                f"rl-last-updated names unknown size '{chosen.unknown.wanted}'; write 'all' or one of: {known}",
                self.get_location(),
            )
            return [nodes.inline(_("unknown"), _("unknown"), classes=["rlresources-last-updated"])], []
        day, source = freshness.last_updated(chosen.entries, dataset.root, [s.path for s in chosen.sizes])
        text = day or _("unknown")
        return [nodes.inline(text, text, classes=["rlresources-last-updated", f"rlresources-from-{source}"])], []


def register(app: Sphinx) -> None:
    app.add_role("rl-last-updated", LastUpdated())
    app.connect("doctree-read", say_markers_once, priority=10)  # after deferred.restore_rows
