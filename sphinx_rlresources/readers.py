"""What readers get besides the tables: the landscape chart, the coverage table, the JSON file.

``rl-resource-chart`` and ``rl-resource-coverage`` reuse the table directive's option
handling (the same filter options, checked the same way, with the same warnings), and
draw nodes, never reST.  HTML builders get the chart as inline SVG; every other builder
gets the compact table the chart is drawn from, which HTML also offers under the chart.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging

from . import columns as cols
from .chart import ChartText, render_svg
from .coverage import TAGS, Coverage, coverage
from .diagnostics import Subtype
from .directive import RLResourceTable
from .export import OUTPUT_PATH, dataset_json
from .extension import ALL, get_dataset, note_use, store, warn_at
from .i18n import _
from .model import DataSet, Entry, SizeData

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.writers.html5 import HTML5Translator
    from sphinx.writers.latex import LaTeXTranslator

logger = logging.getLogger(__name__)

EMPTY_MARK = "—"
PRESENT_MARK = "✓"


class rlresources_chart(nodes.container):
    """The chart: ``svg`` for HTML, and the compact table as children for everyone."""


class rlresources_mark(nodes.inline):
    """A coverage cell's ✓ or —; ``label`` says in words what it means."""


# -- shared option handling --------------------------------------------------------------


class _ReaderDirective(RLResourceTable):
    """The table directive's option checks, for directives that draw every size."""

    required_arguments = 0
    optional_arguments = 0
    kind = "rl-resource-chart"

    def _sizes(self, dataset: DataSet) -> list[SizeData]:
        """The sizes drawn: all of them, or those ``:sizes:`` names (in size order)."""
        note_use(self.env, ALL)
        everything = list(dataset.sizes.values())
        if "sizes" not in self.options:
            chosen = everything
        else:
            wanted = set()
            for value in cols.split_list(self.options["sizes"]):
                if value.lower() in dataset.sizes:
                    wanted.add(value.lower())
                else:
                    known = ", ".join(s.label for s in everything) or "(none yet)"
                    self._option_warning(
                        f":sizes: names '{value}', which has no data file; the known sizes are: {known}"
                    )
            chosen = [s for s in everything if s.key in wanted] or everything
        for size in chosen:
            self.env.note_dependency(str(size.path))
            if not size.readable:
                warn_at(
                    Subtype.DATA_UNREADABLE,
                    f"the data for size '{size.label}' could not be read ({size.display_path}); "
                    f"{self.kind} leaves its rows out: fix the problems reported for that file",
                    self.get_location(),
                )
        return chosen

    @staticmethod
    def _entries(sizes: list[SizeData]) -> list[Entry]:
        return [e for s in sizes if s.readable for e in s.entries]


def _table(headers: list[str], rows: list[list[nodes.Node]], classes: list[str]) -> nodes.table:
    """A one-header-row table without spans, which every writer (man included) can draw.

    Equal column widths, as list-table's ``:widths: auto`` gives: HTML ignores them
    (``colwidths-auto``), the text and man writers need one on every column.
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
        for content in cells:
            entry = nodes.entry()
            entry += nodes.paragraph("", "", content)
            row += entry
        parent += row
    return table


# -- the chart ---------------------------------------------------------------------------


def _lowest(entries: list[Entry]) -> str:
    """``8 (H100, H800)``: the fewest GPUs among ``entries`` and the devices that do it."""
    if not entries:
        return EMPTY_MARK
    fewest = min(e.gpus for e in entries)
    devices = sorted({e.device for e in entries if e.gpus == fewest}, key=str.lower)
    return f"{fewest} ({', '.join(devices)})"


class RLResourceChart(_ReaderDirective):
    """``.. rl-resource-chart::``: the fewest GPUs per size and task, on a log scale."""

    kind = "rl-resource-chart"
    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {
        # the same row filters as rl-resource-table (comma lists, case-insensitive)
        "tags": directives.unchanged_required,
        "tasks": directives.unchanged_required,
        "devices": directives.unchanged_required,
        "trains": directives.unchanged_required,
        "infers": directives.unchanged_required,
        # the sizes along the axis (comma list); every data file by default
        "sizes": directives.unchanged_required,
        "name": directives.unchanged,
        "class": directives.class_option,
    }

    def _run(self) -> list[nodes.Node]:
        dataset = get_dataset(self.env)
        sizes = self._sizes(dataset)
        wanted = self._filters(dataset)
        entries = cols.apply_filters(self._entries(sizes), wanted)
        if not entries:
            return [self._empty(_("any size"), bool(wanted))]
        words = ChartText(
            title=_("Minimum GPUs per model size and task"),
            gpus_axis=_("GPUs (log scale)"),
            size_axis=_("Model size"),
            description=_(
                "One mark per verified configuration: blue circles are MIN, orange diamonds RECOMMENDED; "
                "the dashed line joins the fewest GPUs of each size."
            ),
            no_rows=_("no verified configuration"),
        )
        ident = f"rl-chart-{nodes.make_id(self.env.docname)}-{self.env.new_serialno('rlresources-chart')}"
        node = rlresources_chart(classes=["rlresources-chart", *self.options.get("class", [])])
        node["svg"] = render_svg([s.label for s in sizes], entries, words, ident)
        node["summary"] = _("The chart as a table")
        node += self._compact(sizes, entries)
        node.source, node.line = self.get_source_info()
        self.add_name(node)
        return [node]

    @staticmethod
    def _compact(sizes: list[SizeData], entries: list[Entry]) -> nodes.table:
        """Size, task, and the fewest GPUs for MIN and for RECOMMENDED: what the chart shows."""
        headers = [_("Size"), _("Task"), "MIN", "RECOMMENDED"]
        rows: list[list[nodes.Node]] = []
        for size in sizes:
            mine = [e for e in entries if e.size.lower() == size.key]
            tasks: dict[str, list[Entry]] = {}
            for entry in mine:
                tasks.setdefault(entry.task.lower(), []).append(entry)
            for key in sorted(tasks):
                group = tasks[key]
                rows.append(
                    [
                        nodes.Text(size.label),
                        nodes.Text(group[0].task),
                        nodes.Text(_lowest([e for e in group if e.tag == "MIN"])),
                        nodes.Text(_lowest([e for e in group if e.tag == "RECOMMENDED"])),
                    ]
                )
        return _table(headers, rows, ["rlresources-chart-table"])


def visit_chart_html(self: HTML5Translator, node: rlresources_chart) -> None:
    self.body.append(self.starttag(node, "figure", ""))
    self.body.append(node["svg"])  # built by chart.render_svg, which escapes every text from the data
    self.body.append(f'<details class="rlresources-chart-data"><summary>{escape(node.get("summary", ""))}</summary>\n')


def depart_chart_html(self: HTML5Translator, node: rlresources_chart) -> None:
    self.body.append("</details></figure>\n")


# -- coverage ----------------------------------------------------------------------------


class RLResourceCoverage(_ReaderDirective):
    """``.. rl-resource-coverage::``: per size and task, is there a MIN and a RECOMMENDED row?"""

    kind = "rl-resource-coverage"
    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {
        # the tasks shown (comma list); every task the data names by default
        "tasks": directives.unchanged_required,
        # the sizes shown (comma list); every data file by default
        "sizes": directives.unchanged_required,
        "name": directives.unchanged,
        "class": directives.class_option,
    }

    def _run(self) -> list[nodes.Node]:
        dataset = get_dataset(self.env)
        sizes = self._sizes(dataset)
        entries = self._entries(sizes)
        tasks = None
        if "tasks" in self.options:
            wanted = self._filters(dataset).get("tasks", set())
            spelled = {t.lower(): t for t in cols.vocabulary(dataset.entries, "tasks")}
            tasks = [spelled[key] for key in sorted(wanted)] or None
        found = coverage([s.label for s in sizes], entries, tasks)
        if not found.tasks:
            return [self._empty(_("any size"), False)]
        table = self._coverage_table(found, {s.key for s in sizes if not s.readable})
        self.add_name(table)
        return [table, self._wanted(found)]

    def _coverage_table(self, found: Coverage, unreadable: set[str]) -> nodes.table:
        """One row per size and task (so many tasks stay narrow), a mark per tag."""
        rows: list[list[nodes.Node]] = []
        for size in found.sizes:
            for task in found.tasks:
                cells: list[nodes.Node] = [nodes.Text(size), nodes.Text(task)]
                for tag in TAGS:
                    if size.lower() in unreadable:
                        cells.append(nodes.Text("?"))
                        continue
                    count = found.count(size, task, tag)
                    values = {"size": size, "task": task, "tag": tag}
                    if count:
                        label = _("%(size)s %(task)s: %(tag)s verified") % values
                    else:
                        label = _("%(size)s %(task)s: no %(tag)s yet") % values
                    mark = rlresources_mark(
                        "",
                        PRESENT_MARK if count else EMPTY_MARK,
                        classes=["rlresources-mark", "rlresources-present" if count else "rlresources-missing"],
                    )
                    mark["label"] = label
                    mark["word"] = _("yes") if count else _("no")
                    cells.append(mark)
                rows.append(cells)
        headers = [_("Size"), _("Task"), *TAGS]
        table = _table(headers, rows, ["rlresources-coverage", *self.options.get("class", [])])
        table.source, table.line = self.get_source_info()
        return table

    def _wanted(self, found: Coverage) -> nodes.paragraph:
        """The sentence that asks for the missing rows."""
        para = nodes.paragraph(classes=["rlresources-wanted"])
        if not found.gaps():
            para += nodes.Text(_("Every size shown has a MIN and a RECOMMENDED configuration for every task."))
            return para
        wanted = []
        for tag in TAGS:
            missing = found.missing(tag)
            if missing and len(missing) == len(found.sizes):
                wanted.append(_("a %(tag)s configuration, which no size has yet") % {"tag": tag})
            elif missing:
                wanted.append(_("a %(tag)s configuration for %(sizes)s") % {"tag": tag, "sizes": ", ".join(missing)})
        total = len(found.sizes) * len(found.tasks) * len(TAGS)
        text = _("%(gaps)d of the %(total)d size, task and tag combinations have no configuration yet") % {
            "gaps": found.gaps(),
            "total": total,
        }
        if wanted:
            text += _(", above all %(wanted)s") % {"wanted": _(" and ").join(wanted)}
        para += nodes.Text(text + ". ")
        self._contribute(para)
        return para


def visit_mark_html(self: HTML5Translator, node: rlresources_mark) -> None:
    label = escape(node.get("label", ""), quote=True)
    classes = escape(" ".join(node.get("classes", [])), quote=True)
    self.body.append(f'<span class="{classes}" role="img" aria-label="{label}" title="{label}">{node.astext()}</span>')
    raise nodes.SkipNode


def visit_mark_latex(self: LaTeXTranslator, node: rlresources_mark) -> None:
    """LaTeX's default fonts lack ✓, so the cell says yes or no in words."""
    self.body.append(self.encode(node.get("word", node.astext())))
    raise nodes.SkipNode


# -- the JSON file -----------------------------------------------------------------------


def write_json(app: Sphinx, exception: BaseException | None) -> None:
    """Write the validated rows for HTML sites (EPUB's manifest is closed by now, so not there)."""
    if exception is not None or app.builder.format != "html" or app.builder.name.startswith("epub"):
        return
    dataset = store(app.env).dataset
    if dataset is None:  # pragma: no cover - env-before-read-docs always runs first
        return
    path = Path(app.outdir) / OUTPUT_PATH
    text = dataset_json(dataset, app.config.rlresources_script_url, app.config.rlresources_script_ref)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    except OSError as err:
        logger.warning(
            f"cannot write {path} ({err.strerror or err}); the JSON copy of the data is missing from the site",
            type="rlresources",
            subtype=Subtype.FILE.value,
        )


def _pass(self: Any, node: nodes.Node) -> None:
    """Non-HTML builders draw the compact table inside the chart node."""


def register(app: Sphinx) -> None:
    passthrough = (_pass, _pass)
    app.add_node(
        rlresources_chart,
        html=(visit_chart_html, depart_chart_html),
        latex=passthrough,
        text=passthrough,
        man=passthrough,
        texinfo=passthrough,
    )
    app.add_node(rlresources_mark, html=(visit_mark_html, None), latex=(visit_mark_latex, None))
    app.connect("build-finished", write_json)
