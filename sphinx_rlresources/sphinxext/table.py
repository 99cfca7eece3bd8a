"""The ``rl-resource-table`` directive: draws checked rows as a docutils table.

The table is built as nodes (table/tgroup/colspec/thead/tbody), the same tree a
hand-written ``list-table`` with ``:header-rows: 1`` gives, so every theme and builder
draws it; no reST is generated and parsed back, which is also why text from the data
can never become markup.  Which rows and columns, in which order, comes from
:func:`core.query.select <sphinx_rlresources.core.query.select>`; what each cell shows
and links from :class:`core.columns.Column <sphinx_rlresources.core.columns.Column>`,
so this module only turns cells into nodes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes

from sphinx_rlresources.core import columns as cols
from sphinx_rlresources.core.diagnostics import Subtype
from sphinx_rlresources.core.model import DataSet, Entry
from sphinx_rlresources.sphinxext.base import FILTER_OPTIONS, RLResourceDirective
from sphinx_rlresources.sphinxext.deferred import defer_rows
from sphinx_rlresources.sphinxext.estimate import column_legend
from sphinx_rlresources.sphinxext.filtering import filter_flag, make_filterable
from sphinx_rlresources.sphinxext.freshness import add_markers
from sphinx_rlresources.sphinxext.i18n import HEADERS, _
from sphinx_rlresources.sphinxext.nodes import rlresources_cell
from sphinx_rlresources.sphinxext.onpage import note_size
from sphinx_rlresources.sphinxext.warnings import warn_at


class RLResourceTable(RLResourceDirective):
    """``.. rl-resource-table:: SIZE`` (or ``all``)."""

    required_arguments = 1
    optional_arguments = 0
    final_argument_whitespace = False
    has_content = False
    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {
        **FILTER_OPTIONS,
        # which columns, in which order (comma list of column names)
        "columns": directives.unchanged_required,
        # column(s) to sort by; a leading '-' sorts descending
        "sort": directives.unchanged_required,
        # the table's title (inline markup from the page author is parsed)
        "caption": directives.unchanged_required,
        # a target name for :ref: and :numref:
        "name": directives.unchanged,
        # extra CSS classes on the table
        "class": directives.class_option,
        # "auto" or one positive integer per column
        "widths": directives.unchanged_required,
        # the table's horizontal alignment
        "align": lambda value: directives.choice(value, ("left", "center", "right")),
        # reader-side filter controls in HTML (alone: on; "no": off); default rlresources_filter
        "filter": filter_flag,
        # freshness markers on the rows ("no": none, for a table that is not about running them)
        "markers": filter_flag,
    }
    directive_name = "rl-resource-table"

    def draw(self) -> list[nodes.Node]:
        dataset = self.dataset()
        chosen = self.select(dataset, self.arguments[0].strip())
        if chosen.unknown is not None:
            warn_at(Subtype.UNKNOWN_SIZE, chosen.unknown.message, self.get_location())
            return []
        note_size(self.env, chosen.label)  # an estimate below stands in for this size (none: several)
        label = chosen.label or _("any size")
        result: list[nodes.Node] = []
        self.unreadable_warning(chosen, "its rows are not drawn")
        for size in chosen.unreadable:
            para = nodes.paragraph(classes=["rlresources-unreadable"])
            para += nodes.Text(_("The data for %s could not be read; its configurations are not shown.") % size.label)
            result.append(para)
        for entry in chosen.entries:
            script = dataset.scripts.get(entry.script)
            if script is not None:
                self.env.note_dependency(str(script))
        if not chosen.entries:
            if chosen.unreadable and len(chosen.unreadable) == len(chosen.sizes):
                return result
            result.append(self.empty(label, bool(chosen.filters)))
            return result
        table = self._table(chosen.entries, chosen.columns, dataset)
        wants_filter = self.options.get("filter", self.config.rlresources_filter)
        result.append(make_filterable(table, chosen.entries) if wants_filter else table)
        defer_rows(table, self.config.language)  # keep the rows out of the read transforms
        if "estimate" in chosen.columns:
            result.append(column_legend())
        return result

    def _widths(self, count: int) -> list[int] | None:
        value = self.options.get("widths", "auto").strip()
        if value == "auto":
            return None
        parts = cols.split_list(value)
        if len(parts) != count or not all(p.isdigit() and int(p) > 0 for p in parts):
            self.option_warning(f":widths: {value!r} must be 'auto' or {count} positive whole numbers, one per column")
            return None
        return [int(p) for p in parts]

    def _table(self, entries: list[Entry], shown: list[str], dataset: DataSet) -> nodes.table:
        table = nodes.table(classes=["rlresources-table", *self.options.get("class", [])])
        widths = self._widths(len(shown))
        table["classes"].append("colwidths-auto" if widths is None else "colwidths-given")
        if "align" in self.options:
            table["align"] = self.options["align"]
        if "caption" in self.options:
            text_nodes, messages = self.state.inline_text(self.options["caption"], self.lineno)
            title = nodes.title(self.options["caption"], "", *text_nodes)
            title.source, title.line = self.get_source_info()
            table += title
            table += messages
        self.add_name(table)
        tgroup = nodes.tgroup(cols=len(shown))
        table += tgroup
        # Like list-table's ``:widths: auto``: equal widths that HTML ignores (colwidths-auto)
        # but the text and man writers need, as they read every colspec's colwidth.
        for width in widths or [max(1, 100 // len(shown))] * len(shown):
            tgroup += nodes.colspec(colwidth=width)
        thead = nodes.thead()
        tgroup += thead
        header = nodes.row()
        for key in shown:
            header += self._cell(nodes.Text(HEADERS.get(key, cols.COLUMNS[key].header)))
        thead += header
        # Data is shown as written: smart quotes would turn -- into a dash and eat the
        # backslash of \\ in HTML, which is the data's text being read as markup.
        tbody = nodes.tbody(support_smartquotes=False)
        tgroup += tbody
        labels = [HEADERS.get(key, cols.COLUMNS[key].header) for key in shown]
        columns = [cols.COLUMNS[key] for key in shown]
        context = cols.CellContext(dataset, self.config.rlresources_script_url, self.config.rlresources_script_ref)
        for entry in entries:
            row = nodes.row(classes=["rlresources-row"])
            for column, label in zip(columns, labels, strict=True):
                row += self._cell(self._content(column.cell(entry, context), column.key), label, column.key)
            if self.options.get("markers", True):
                add_markers(row, entry, shown, self.env)  # (stale), (outdated), (unverified): said once, see freshness
            tbody += row
        if not self.options.get("markers", True):
            table["rl_unmarked"] = True  # so no sentence claims to speak for every row of the page
        table.source, table.line = self.get_source_info()
        return table

    @staticmethod
    def _cell(content: nodes.Node | None, label: str | None = None, key: str = "") -> nodes.entry:
        entry = nodes.entry() if label is None else rlresources_cell(label=label, classes=[f"rl-col-{key}"])
        para = nodes.paragraph()
        if content is not None:
            if content.astext().startswith("T}"):  # tbl (man pages) would end the cell there
                para += nodes.raw("", "\\&", format="manpage")
            para += content
        entry += para
        return entry

    def _content(self, cell: cols.Cell, key: str) -> nodes.Node | None:
        """The nodes for a cell: a link, a download of the file it names, text with links, or its text."""
        if cell.runs:
            inline = nodes.inline()
            for run in cell.runs:
                inline += nodes.reference(run.text, run.text, refuri=run.url) if run.url else nodes.Text(run.text)
            return inline
        if cell.url:
            reference = nodes.reference(cell.text, cell.text, refuri=cell.url)
            if cell.title:
                reference["reftitle"] = cell.title
            return reference
        if cell.file is not None:  # no URL to point at: the build copies the file and links the copy
            doc_dir = Path(self.env.doc2path(self.env.docname)).parent
            target = os.path.relpath(cell.file, doc_dir).replace(os.sep, "/")
            ref = addnodes.download_reference(
                "", "", refdoc=self.env.docname, refdomain="", refexplicit=True, reftarget=target, reftype="download"
            )
            ref += nodes.literal(cell.text, cell.text, classes=["xref", "download"])
            return ref
        if not cell.text and key == "maxbatch":
            # 5 of the seed page's 12 rows: an empty cell read as "unlimited" or "zero"; it means neither
            said = _("not measured")
            return nodes.inline(said, said, classes=["rlresources-not-measured"])
        return nodes.Text(cell.text) if cell.text else None
