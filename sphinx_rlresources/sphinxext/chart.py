"""``rl-resource-chart``: the fewest GPUs per size and task, as inline SVG and as a table.

HTML builders get the chart (drawn by :mod:`.svgchart`) with the compact table it is
drawn from under it; every other builder gets the compact table alone.  Rows come from
:func:`core.query.select <sphinx_rlresources.core.query.select>`, with the same filter
options, checks and warnings as ``rl-resource-table``.

A size nobody measured but an ``rl-resource-estimate`` block above the chart on the same
page estimated (:mod:`.onpage` says which size each block stands in for) gets a hollow,
dashed mark at the fewest GPUs that block printed, named an estimate in the legend, the
description and the mark's hover text; a page without estimate blocks draws as before.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import TYPE_CHECKING, Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives

from sphinx_rlresources.core.columns import COLUMNS, CellContext
from sphinx_rlresources.core.model import Entry, SizeData
from sphinx_rlresources.sphinxext.base import EMPTY_MARK, FILTER_OPTIONS, RLResourceDirective, simple_table
from sphinx_rlresources.sphinxext.i18n import _
from sphinx_rlresources.sphinxext.nodes import add_wrapper_node, rlresources_chart
from sphinx_rlresources.sphinxext.onpage import estimates
from sphinx_rlresources.sphinxext.svgchart import ChartText, Estimated, render_svg, render_tall_svg

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.writers.html5 import HTML5Translator


def lowest(entries: list[Entry]) -> str:
    """``8 (H100, H800)``: the fewest GPUs among ``entries`` and the devices that do it."""
    if not entries:
        return EMPTY_MARK
    fewest = min(e.gpus for e in entries)
    devices = sorted({e.device for e in entries if e.gpus == fewest}, key=str.lower)
    return f"{fewest} ({', '.join(devices)})"


def fewest_estimated(found: list[Estimated]) -> str:
    """``16 (H200)``: the fewest GPUs the page's estimates allow, and the devices, as the mark shows."""
    if not found:
        return EMPTY_MARK
    fewest = min(e.gpus for e in found)
    return f"{fewest} ({', '.join(dict.fromkeys(e.device for e in found if e.gpus == fewest))})"


class RLResourceChart(RLResourceDirective):
    """``.. rl-resource-chart::``: the fewest GPUs per model size and task, on a log scale."""

    required_arguments = 0
    optional_arguments = 0
    directive_name = "rl-resource-chart"
    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {
        **FILTER_OPTIONS,
        # the sizes along the axis (comma list); every data file by default
        "sizes": directives.unchanged_required,
        "name": directives.unchanged,
        "class": directives.class_option,
    }

    def draw(self) -> list[nodes.Node]:
        dataset = self.dataset()
        chosen = self.select(dataset, None)
        self.unreadable_warning(chosen, f"{self.directive_name} leaves its rows out")
        if not chosen.entries:
            return [self.empty(_("any size"), bool(chosen.filters))]
        words = ChartText(
            title=_("Minimum GPUs per model size and task"),
            gpus_axis=_("GPUs (log scale)"),
            size_axis=_("Model size"),
            description=_(
                "One mark per verified configuration: blue circles are MIN, orange diamonds RECOMMENDED; "
                "the dashed line joins the fewest GPUs of each size."
            ),
            no_rows=_("no verified configuration"),
            estimated=_("estimated, not measured"),
            estimated_description=_(
                "Hollow dashed circles are estimates, not measurements: the fewest GPUs the estimator allows "
                "for a size nobody has measured."
            ),
        )
        ident = f"rl-chart-{nodes.make_id(self.env.docname)}-{self.env.new_serialno('rlresources-chart')}"
        node = rlresources_chart(classes=["rlresources-chart", *self.options.get("class", [])])
        context = CellContext(dataset, self.config.rlresources_script_url, self.config.rlresources_script_ref)
        labels = [s.label for s in chosen.sizes]
        found = estimates(self.env)
        node["svg"] = render_svg(labels, chosen.entries, words, ident, context, found)
        node["svg_tall"] = render_tall_svg(labels, chosen.entries, words, f"{ident}-tall", context, found)
        node["summary"] = _("The chart as a table")
        node += self._compact(chosen.sizes, chosen.entries, context, found)
        node.source, node.line = self.get_source_info()
        self.add_name(node)
        return [node]

    @staticmethod
    def _compact(
        sizes: list[SizeData], entries: list[Entry], context: CellContext, found: list[Estimated]
    ) -> nodes.table:
        """Size, task, and the fewest GPUs for MIN and for RECOMMENDED: what the chart shows.

        With estimates on the page, an "Estimated" column gives the fewest GPUs its marks show.
        """
        task = COLUMNS["task"]
        headers = [_("Size"), _("Task"), "MIN", "RECOMMENDED"] + ([_("Estimated")] if found else [])
        rows: list[list[nodes.Node]] = []
        for size in sizes:
            tasks: dict[str, list[Entry]] = {}
            names: dict[str, str] = {}
            for entry in (e for e in entries if e.size.lower() == size.key):
                tasks.setdefault(entry.task.lower(), []).append(entry)
                names.setdefault(entry.task.lower(), task.cell(entry, context).text)
            guessed = [e for e in found if e.size.lower() == size.key]
            for estimate in guessed:
                names.setdefault(estimate.task.lower(), estimate.task)
            for key in sorted(names):
                group = tasks.get(key, [])
                cells = [
                    size.label,
                    names[key],
                    lowest([e for e in group if e.tag == "MIN"]),
                    lowest([e for e in group if e.tag == "RECOMMENDED"]),
                ]
                if found:
                    cells.append(fewest_estimated([e for e in guessed if e.task.lower() == key]))
                rows.append([nodes.Text(cell) for cell in cells])
        return simple_table(headers, rows, ["rlresources-chart-table"])


def visit_chart_html(self: HTML5Translator, node: rlresources_chart) -> None:
    """The wide chart, and the tall one that narrow screens show instead (one is ever displayed).

    The wide plot scrolls sideways, as a last resort, only where neither the stylesheet
    (a narrow screen) nor the layout script (a column narrower than the chart at 3/4 of
    its size) switched to the tall one; focusable, so keyboard readers can scroll it too.
    """
    self.body.append(self.starttag(node, "figure", ""))
    self.body.append('<div class="rlresources-chart-plot rlresources-chart-wide" tabindex="0">')
    self.body.append(node["svg"])  # built by svgchart.render_svg, which escapes every text from the data
    self.body.append("</div>")
    if node.get("svg_tall"):
        self.body.append('<div class="rlresources-chart-plot rlresources-chart-tall">')
        self.body.append(node["svg_tall"])  # render_tall_svg escapes as render_svg does
        self.body.append("</div>")
    self.body.append(f'<details class="rlresources-chart-data"><summary>{escape(node.get("summary", ""))}</summary>\n')


def depart_chart_html(self: HTML5Translator, node: rlresources_chart) -> None:
    self.body.append("</details></figure>\n")


def register(app: Sphinx) -> None:
    add_wrapper_node(app, rlresources_chart, (visit_chart_html, depart_chart_html))
    app.add_directive("rl-resource-chart", RLResourceChart)
