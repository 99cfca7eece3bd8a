"""``rl-resource-coverage``: per size and task, is there a MIN and a RECOMMENDED row?

The counting is :func:`core.coverage.coverage <sphinx_rlresources.core.coverage.coverage>`;
this module draws it as a table of marks and the sentence that asks for what is missing.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import TYPE_CHECKING, Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives

from sphinx_rlresources.core import columns as cols
from sphinx_rlresources.core.coverage import TAGS, Coverage, coverage
from sphinx_rlresources.sphinxext.base import EMPTY_MARK, RLResourceDirective, simple_table
from sphinx_rlresources.sphinxext.i18n import _
from sphinx_rlresources.sphinxext.nodes import rlresources_mark

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.writers.html5 import HTML5Translator
    from sphinx.writers.latex import LaTeXTranslator

PRESENT_MARK = "✓"


class RLResourceCoverage(RLResourceDirective):
    """``.. rl-resource-coverage::``: a mark per size, task and tag."""

    required_arguments = 0
    optional_arguments = 0
    kind = "rl-resource-coverage"
    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {
        # the tasks shown (comma list); every task the data names by default
        "tasks": directives.unchanged_required,
        # the sizes shown (comma list); every data file by default
        "sizes": directives.unchanged_required,
        "name": directives.unchanged,
        "class": directives.class_option,
    }

    def draw(self) -> list[nodes.Node]:
        dataset = self.dataset()
        chosen = self.select(dataset, None)
        self.unreadable_warning(chosen, f"{self.kind} leaves its rows out")
        tasks = None
        if "tasks" in chosen.filters:
            spelled = {t.lower(): t for t in cols.vocabulary(dataset.entries, "tasks")}
            tasks = [spelled[key] for key in sorted(chosen.filters["tasks"])] or None
        found = coverage([s.label for s in chosen.sizes], chosen.entries, tasks)
        if not found.tasks:
            return [self.empty(_("any size"), False)]
        table = self._coverage_table(found, {s.key for s in chosen.unreadable})
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
        table = simple_table(headers, rows, ["rlresources-coverage", *self.options.get("class", [])])
        table.source, table.line = self.get_source_info()
        return table

    def _wanted(self, found: Coverage) -> nodes.paragraph:
        """The sentences that count the gaps and ask for the rows most wanted."""
        para = nodes.paragraph(classes=["rlresources-wanted"])
        if not found.gaps():
            para += nodes.Text(_("Every size shown has a MIN and a RECOMMENDED configuration for every task."))
            return para
        wanted = []
        for tag in TAGS:
            missing = found.missing(tag)
            if missing and len(missing) == len(found.sizes):
                wanted.append(_("a %(tag)s configuration for any size (none has one yet)") % {"tag": tag})
            elif missing:
                wanted.append(_("a %(tag)s configuration for %(sizes)s") % {"tag": tag, "sizes": _listed(missing)})
        total = len(found.sizes) * len(found.tasks) * len(TAGS)
        text = _("%(gaps)d of the %(total)d combinations of size, task and tag have no configuration yet.") % {
            "gaps": found.gaps(),
            "total": total,
        }
        if wanted:
            text += " " + _("Most wanted: %(wanted)s.") % {"wanted": _listed(wanted, _(", and "))}
        para += nodes.Text(text + " ")
        self.contribute(para)
        return para


def _listed(words: list[str], last: str | None = None) -> str:
    """``405B and 671B``; ``0.5B, 405B and 671B``: a list as a sentence says it."""
    if len(words) < 2:
        return "".join(words)
    return ", ".join(words[:-1]) + (last if last is not None else _(" and ")) + words[-1]


def visit_mark_html(self: HTML5Translator, node: rlresources_mark) -> None:
    label = escape(node.get("label", ""), quote=True)
    classes = escape(" ".join(node.get("classes", [])), quote=True)
    self.body.append(f'<span class="{classes}" role="img" aria-label="{label}" title="{label}">{node.astext()}</span>')
    raise nodes.SkipNode


def visit_mark_latex(self: LaTeXTranslator, node: rlresources_mark) -> None:
    """LaTeX's default fonts lack ✓, so the cell says yes or no in words."""
    self.body.append(self.encode(node.get("word", node.astext())))
    raise nodes.SkipNode


def register(app: Sphinx) -> None:
    app.add_node(rlresources_mark, html=(visit_mark_html, None), latex=(visit_mark_latex, None))
    app.add_directive("rl-resource-coverage", RLResourceCoverage)
