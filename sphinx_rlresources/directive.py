"""The ``rl-resource-table`` directive: draws checked rows as a docutils table.

The table is built as nodes (table/tgroup/colspec/thead/tbody), the same tree a
hand-written ``list-table`` with ``:header-rows: 1`` gives, so every theme and builder
draws it; no reST is generated and parsed back, which is also why text from the data
can never become markup.
"""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective

from . import columns as cols
from .deferred import defer_rows
from .diagnostics import Subtype
from .extension import ALL, get_dataset, note_use, warn_at
from .filtering import filter_flag, make_filterable
from .freshness_ext import add_markers
from .gcpause import without_gc
from .i18n import HEADERS, _
from .model import DataSet, Entry, size_order

SAFE_SCHEMES = ("http://", "https://", "mailto:")


def safe_url(url: str | None) -> str | None:
    """Only http, https and mailto targets are ever emitted (defence in depth)."""
    # No backslash either: no URL needs one, and man pages print the target as roff.
    if url and url.startswith(SAFE_SCHEMES) and not any(c.isspace() or c == "\\" for c in url):
        return url
    return None


def closest_size(wanted: str, dataset: DataSet) -> str | None:
    """The known size nearest to ``wanted``: by parameter count, else by spelling."""
    labels = [s.label for s in dataset.sizes.values()]
    order = size_order(wanted)
    numeric = [s for s in labels if size_order(s)[0] == 0]
    if order[0] == 0 and order[1] > 0 and numeric:
        return min(numeric, key=lambda s: abs(math.log(size_order(s)[1] / order[1])))
    close = difflib.get_close_matches(wanted, labels, n=1, cutoff=0.4)
    return close[0] if close else None


class RLResourceTable(SphinxDirective):
    """``.. rl-resource-table:: SIZE`` (or ``all``)."""

    required_arguments = 1
    optional_arguments = 0
    final_argument_whitespace = False
    has_content = False
    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {
        # comma lists that keep only the matching rows (case-insensitive)
        "tags": directives.unchanged_required,
        "tasks": directives.unchanged_required,
        "devices": directives.unchanged_required,
        "trains": directives.unchanged_required,
        "infers": directives.unchanged_required,
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
    }

    kind = "rl-resource-table"
    """The directive's name, for messages (the chart and coverage directives reuse this class)."""

    def run(self) -> list[nodes.Node]:
        try:
            return self._run()
        except Exception as err:  # noqa: BLE001 - a bug must not stop the other pages
            warn_at(
                Subtype.INTERNAL,
                f"{self.kind} could not be drawn ({type(err).__name__}: {err}); please report this",
                self.get_location(),
            )
            return []

    # -- options --------------------------------------------------------------------

    def _option_warning(self, message: str) -> None:
        warn_at(Subtype.OPTION, message, self.get_location())

    def _columns(self, default: tuple[str, ...]) -> list[str]:
        if "columns" not in self.options:
            return list(default)
        chosen = []
        for name in cols.split_list(self.options["columns"]):
            key = cols.column_key(name)
            if key is None:
                self._option_warning(f":columns: names no column '{name}'; the columns are: {', '.join(cols.COLUMNS)}")
            elif key not in chosen:
                chosen.append(key)
        return chosen or list(default)

    def _sort(self, shown: list[str]) -> list[tuple[str, bool]]:
        keys = []
        for name in cols.split_list(self.options.get("sort", "")):
            descending = name.startswith("-")
            key = cols.column_key(name.lstrip("-+"))
            if key is None:
                self._option_warning(
                    f":sort: names no column '{name}'; the columns are: {', '.join(cols.COLUMNS)} "
                    "(prefix one with '-' to sort descending)"
                )
                continue
            keys.append((key, descending))
        return keys

    def _filters(self, dataset: DataSet) -> dict[str, set[str]]:
        wanted: dict[str, set[str]] = {}
        everything = dataset.entries
        for option in cols.FILTERS:
            if option not in self.options:
                continue
            valid = cols.vocabulary(everything, option)
            lowered = {v.lower(): v for v in valid}
            values = set()
            for value in cols.split_list(self.options[option]):
                if value.lower() in lowered:
                    values.add(value.lower())
                else:
                    self._option_warning(
                        f":{option}: names '{value}', which no row has; the valid values are: "
                        f"{', '.join(valid) if valid else '(none yet)'}"
                    )
            wanted[option] = values
        return wanted

    def _widths(self, count: int) -> list[int] | None:
        value = self.options.get("widths", "auto").strip()
        if value == "auto":
            return None
        parts = cols.split_list(value)
        if len(parts) != count or not all(p.isdigit() and int(p) > 0 for p in parts):
            self._option_warning(f":widths: {value!r} must be 'auto' or {count} positive whole numbers, one per column")
            return None
        return [int(p) for p in parts]

    # -- drawing --------------------------------------------------------------------

    @without_gc  # thousands of kept nodes: see gcpause
    def _run(self) -> list[nodes.Node]:
        dataset = get_dataset(self.env)
        wanted = self.arguments[0].strip()
        if wanted.lower() == "all":
            note_use(self.env, ALL)
            sizes = list(dataset.sizes.values())
            default: tuple[str, ...] = ("size", *cols.DEFAULT_COLUMNS)
            label = _("any size")
        else:
            size = dataset.sizes.get(wanted.lower())
            note_use(self.env, wanted.lower())
            if size is None:
                known = ", ".join(s.label for s in dataset.sizes.values()) or "(none: the data folder has no files)"
                close = closest_size(wanted, dataset)
                suggestion = f"; did you mean '{close}'?" if close else ""
                warn_at(
                    Subtype.UNKNOWN_SIZE,
                    f"unknown size '{wanted}'{suggestion} The known sizes are: {known} "
                    "(a size is known when the data folder has its file)",
                    self.get_location(),
                )
                return []
            sizes = [size]
            default = cols.DEFAULT_COLUMNS
            label = size.label
        for size in sizes:
            self.env.note_dependency(str(size.path))
        shown = self._columns(default)
        sort = self._sort(shown)
        wanted_values = self._filters(dataset)
        result: list[nodes.Node] = []
        unreadable = [s for s in sizes if not s.readable]
        for size in unreadable:
            warn_at(
                Subtype.DATA_UNREADABLE,
                f"the data for size '{size.label}' could not be read ({size.display_path}); "
                "its rows are not drawn: fix the problems reported for that file",
                self.get_location(),
            )
            para = nodes.paragraph(classes=["rlresources-unreadable"])
            para += nodes.Text(_("The data for %s could not be read; its configurations are not shown.") % size.label)
            result.append(para)
        entries = [e for s in sizes if s.readable for e in s.entries]
        for entry in entries:
            script = dataset.scripts.get(entry.script)
            if script is not None:
                self.env.note_dependency(str(script))
        entries = cols.sort_entries(cols.apply_filters(entries, wanted_values), sort)
        if not entries:
            if unreadable and len(unreadable) == len(sizes):
                return result
            result.append(self._empty(label, bool(wanted_values)))
            return result
        table = self._table(entries, shown, dataset)
        wants_filter = self.options.get("filter", self.config.rlresources_filter)
        result.append(make_filterable(table, entries) if wants_filter else table)
        defer_rows(table, self.config.language)  # keep the rows out of the read transforms
        return result

    def _empty(self, label: str, filtered: bool) -> nodes.paragraph:
        para = nodes.paragraph(classes=["rlresources-empty"])
        if filtered:
            para += nodes.Text(_("No verified configuration for %s matches this selection.") % label)
            return para
        para += nodes.Text(_("No configuration has been verified for %s yet.") % label + " ")
        self._contribute(para)
        return para

    def _contribute(self, para: nodes.paragraph) -> None:
        """End ``para`` with the link to :confval:`rlresources_contributing`, when set."""
        target = self.config.rlresources_contributing
        text = _("Contribute one")
        if target and target.startswith(("http://", "https://")):
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
        for entry in entries:
            row = nodes.row(classes=["rlresources-row"])
            for key in shown:
                row += self._cell(self._content(entry, key, dataset))
            add_markers(row, entry, shown, self.env)  # (stale), (outdated), (unverified)
            tbody += row
        table.source, table.line = self.get_source_info()
        return table

    @staticmethod
    def _cell(content: nodes.Node | None) -> nodes.entry:
        entry = nodes.entry()
        para = nodes.paragraph()
        if content is not None:
            if content.astext().startswith("T}"):  # tbl (man pages) would end the cell there
                para += nodes.raw("", "\\&", format="manpage")
            para += content
        entry += para
        return entry

    def _content(self, entry: Entry, key: str, dataset: DataSet) -> nodes.Node | None:
        text = cols.COLUMNS[key].text(entry)
        if key == "link":
            return self._link(entry, dataset)
        if key == "contributor":
            target = safe_url(entry.contributor.link)
            if target:
                return nodes.reference(text, text, refuri=target)
        if key == "evidence":
            target = safe_url(entry.evidence)
            if target:
                return nodes.reference(text, text, refuri=target)
        return nodes.Text(text) if text else None

    def _link(self, entry: Entry, dataset: DataSet) -> nodes.Node:
        name = entry.script_name
        script = dataset.scripts.get(entry.script)
        template = self.config.rlresources_script_url
        if template:
            relative = Path(entry.script).as_posix()
            url = safe_url(template.format(ref=self.config.rlresources_script_ref, path=relative))
            if url:
                return nodes.reference(name, name, refuri=url)
        if script is None:
            return nodes.Text(name)  # reported by the checks; nothing outside the root is linked
        doc_dir = Path(self.env.doc2path(self.env.docname)).parent
        target = os.path.relpath(script, doc_dir).replace(os.sep, "/")
        ref = addnodes.download_reference(
            "", "", refdoc=self.env.docname, refdomain="", refexplicit=True, reftarget=target, reftype="download"
        )
        ref += nodes.literal(name, name, classes=["xref", "download"])
        return ref
