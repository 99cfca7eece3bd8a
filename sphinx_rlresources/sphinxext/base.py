"""What the directives and the role share: the run() guard, the page's selection, option problems, the empty sentence.

Each directive (and the ``rl-last-updated`` role) passes its argument and options to
:func:`core.query.select <sphinx_rlresources.core.query.select>` through
:func:`select_on_page`, which records which sizes the page draws (so an added data file
re-reads it) and which data files it depends on; :func:`guarded` turns a bug in any of
them into one ``rlresources.internal`` warning instead of a traceback that stops the
build.  This base also reports what the query found wrong at the directive and words
the sentence drawn when nothing matches.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective

from sphinx_rlresources.core.diagnostics import Subtype
from sphinx_rlresources.core.model import DataSet
from sphinx_rlresources.core.query import Selection, select
from sphinx_rlresources.core.urls import WEB_SCHEMES
from sphinx_rlresources.safe.sizes import size_key
from sphinx_rlresources.sphinxext.i18n import _
from sphinx_rlresources.sphinxext.nodes import rlresources_cell
from sphinx_rlresources.sphinxext.store import ALL, get_dataset, note_use
from sphinx_rlresources.sphinxext.warnings import warn_at

if TYPE_CHECKING:
    from sphinx.environment import BuildEnvironment

T = TypeVar("T")

EMPTY_MARK = "—"
"""What a chart or coverage cell shows where no row exists."""

FILTER_OPTIONS: dict[str, Callable[[str], Any]] = {
    # comma lists that keep only the matching rows (case-insensitive)
    "tags": directives.unchanged_required,
    "tasks": directives.unchanged_required,
    "devices": directives.unchanged_required,
    "trains": directives.unchanged_required,
    "infers": directives.unchanged_required,
}


def guarded(name: str, location: Any, draw: Callable[[], T], fallback: T) -> T:
    """``draw()``, or ``fallback`` and an ``rlresources.internal`` warning at ``location`` if it raises.

    A bug in one directive or role must not stop the other pages of the build: the
    reader is asked to report it, and the page is drawn without that element.
    """
    try:
        return draw()
    except Exception as err:  # noqa: BLE001 - a bug must not stop the other pages
        warn_at(
            Subtype.INTERNAL, f"{name} could not be drawn ({type(err).__name__}: {err}); please report this", location
        )
        return fallback


def select_on_page(env: BuildEnvironment, dataset: DataSet, size: str | None, **query: Any) -> Selection:
    """:func:`~sphinx_rlresources.core.query.select`, with the page noted as drawing its sizes.

    The page records the size keys it draws (an unknown size's too: its data file may
    appear later, and the page must then be read again) and depends on the data file
    of each size drawn, so editing one re-reads exactly these pages.  ``query`` holds
    :func:`select`'s keyword options (sizes, columns, sort, filters).
    """
    chosen = select(dataset, size, **query)
    if chosen.unknown is not None:
        note_use(env, size_key(chosen.unknown.wanted))
        return chosen
    note_use(env, ALL if chosen.every_size else chosen.sizes[0].key)
    for size_data in chosen.sizes:
        env.note_dependency(str(size_data.path))
    return chosen


class RLResourceDirective(SphinxDirective):
    """A directive that draws rows of the data set; subclasses implement :meth:`draw`."""

    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {}
    directive_name = "rl-resource-table"
    """The directive's registered name, for messages (docutils' ``self.name`` is the name it was invoked by)."""

    def run(self) -> list[nodes.Node]:
        return guarded(self.directive_name, self.get_location(), self.draw, [])

    def draw(self) -> list[nodes.Node]:
        raise NotImplementedError

    # -- asking the core ----------------------------------------------------------------

    def select(self, dataset: DataSet, size: str | None) -> Selection:
        """The query for this directive's argument and options, its problems reported here."""
        chosen = select_on_page(
            self.env,
            dataset,
            size,
            sizes=self.options.get("sizes"),
            columns=self.options.get("columns"),
            sort=self.options.get("sort"),
            filters={k: v for k, v in self.options.items() if k in FILTER_OPTIONS},
        )
        if chosen.unknown is None:
            for problem in chosen.problems:
                self.option_warning(problem.for_directive())
        return chosen

    def dataset(self) -> DataSet:
        return get_dataset(self.env)

    def option_warning(self, message: str) -> None:
        warn_at(Subtype.OPTION, message, self.get_location())

    def unreadable_warning(self, chosen: Selection, consequence: str) -> None:
        for size in chosen.unreadable:
            warn_at(
                Subtype.DATA_UNREADABLE,
                f"the data for size '{size.label}' could not be read ({size.display_path}); "
                f"{consequence}: fix the problems reported for that file",
                self.get_location(),
            )

    # -- the sentences ------------------------------------------------------------------

    def empty(self, label: str, filtered: bool) -> nodes.paragraph:
        """The sentence drawn instead of a table that would have no rows."""
        para = nodes.paragraph(classes=["rlresources-empty"])
        if filtered:
            para += nodes.Text(_("No verified configuration for %s matches this selection.") % label)
            return para
        para += nodes.Text(_("No configuration has been verified for %s yet.") % label + " ")
        self.contribute(para)
        return para

    def contribute(self, para: nodes.paragraph) -> None:
        """End ``para`` with the link to :confval:`rlresources_contributing`, when set."""
        target = self.config.rlresources_contributing
        text = _("Contribute one")
        if target and target.startswith(WEB_SCHEMES):
            para += nodes.reference(text, text, refuri=target)
            para += nodes.Text(".")
        elif target:
            ref = addnodes.pending_xref(
                "", refdomain="std", reftype="doc", reftarget=target, refexplicit=True, refwarn=True
            )
            ref += nodes.inline(text, text)
            para += ref
            para += nodes.Text(".")
        else:
            para += nodes.Text(_("Contributions are welcome."))


def simple_table(
    headers: list[str], rows: list[list[nodes.Node]], classes: list[str], labelled: bool = False
) -> nodes.table:
    """A one-header-row table without spans, which every writer (man included) can draw.

    Equal column widths, as list-table's ``:widths: auto`` gives: HTML ignores them
    (``colwidths-auto``), the text and man writers need one on every column.
    ``labelled`` body cells carry their column's header, so that on a narrow screen each
    row can become a card of "label: value" lines, as the resource table's do.
    """
    table = nodes.table(classes=["colwidths-auto", *classes])
    tgroup = nodes.tgroup(cols=len(headers))
    table += tgroup
    for _column in headers:
        tgroup += nodes.colspec(colwidth=max(1, 100 // len(headers)))
    thead = nodes.thead()
    tbody = nodes.tbody()
    tgroup += thead
    tgroup += tbody
    header: list[nodes.Node] = [nodes.Text(text) for text in headers]
    for parent, cells in [(thead, header), *((tbody, cells) for cells in rows)]:
        row = nodes.row()
        for label, content in zip(headers, cells, strict=True):
            entry = rlresources_cell(label=label) if labelled and parent is tbody else nodes.entry()
            # a block (a details container) is the cell's own; text and inline nodes make its paragraph
            entry += content if isinstance(content, nodes.Body) else nodes.paragraph("", "", content)
            row += entry
        parent += row
    return table
