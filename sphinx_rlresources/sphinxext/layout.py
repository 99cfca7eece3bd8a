"""Per-builder table layout: PDF tables that split across pages, text tables that fit.

Sphinx typesets a LaTeX table of up to 30 rows with ``tabulary``, which cannot break
across pages, and a longer one with ``longtable`` whose ``l`` columns never wrap, so a
nine-column table runs off the right margin.  A resource table is often a page long
once its cells wrap, so for LaTeX every table the directive drew becomes a
``longtable`` and, unless the page author gave ``:widths:``, gets column widths
proportional to its longest cell (within bounds), which Sphinx turns into wrapping
``\\X`` columns.  The text writer reads the same widths as characters, so plain-text
tables fit their content instead of wrapping every cell at an equal width.  HTML
keeps the ``colwidths-auto`` table and lets the browser size it; there, as in LaTeX,
a script name (one long word) may break after each ``_``, and the stylesheet
``static/rlresources-table.css`` scrolls what still does not fit inside the table.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from docutils import nodes

if TYPE_CHECKING:
    from sphinx.application import Sphinx

TABLE_CLASS = "rlresources-table"
MIN_WIDTH = 5
"""A column is never narrower than a short word in capitals such as "MIN"."""
MAX_WIDTH = 28
"""The widest column, in characters: a long script name wraps instead of squeezing the rest."""
PADDING = 5
"""Room for the cell padding LaTeX adds on both sides, in characters."""


_BREAKS = re.compile(r"[\s_/-]+")


def cell_width(text: str, split_words: bool = True) -> int:
    """How wide a cell wants to be: its text up to the cap, but never below its longest word.

    For LaTeX a word is what it cannot break (``vllm0.8.3``, ``RECOMMENDED``; a script
    name breaks after ``_``), capped like the text; a column narrower than that would
    overflow into its neighbour.  The text writer would cut a word at the column edge,
    so there (``split_words=False``) a word is everything between spaces, uncapped.
    """
    text = text.strip()
    parts = _BREAKS.split(text) if split_words else text.split()
    word = max((len(part) for part in parts), default=0)
    if split_words:
        word = min(word, MAX_WIDTH)
    return max(MIN_WIDTH, word, min(len(text), MAX_WIDTH))


def column_widths(table: nodes.table, padding: int = 0, split_words: bool = True) -> list[int]:
    """The widest cell of each column (header included), by :func:`cell_width`."""
    widths: list[int] = []
    for row in table.findall(nodes.row):
        for index, entry in enumerate(row.children):
            length = cell_width(entry.astext(), split_words) + padding
            if index >= len(widths):
                widths.append(length)
            else:
                widths[index] = max(widths[index], length)
    return widths


def _set_widths(table: nodes.table, padding: int, split_words: bool = True) -> bool:
    """Give an auto-width table content-based widths; False when the author chose them."""
    classes = table["classes"]
    if "colwidths-auto" not in classes:
        return False  # the page author gave :widths: - keep them
    colspecs = list(table.findall(nodes.colspec))
    widths = column_widths(table, padding, split_words)
    if len(colspecs) != len(widths):
        return False
    for colspec, width in zip(colspecs, widths, strict=True):
        colspec["colwidth"] = width
    return True


BREAK = {"latex": r"\allowbreak{}", "html": "<wbr/>"}
"""What marks a break opportunity in each output format."""


class rlresources_breakable(nodes.Text):  # docutils names node classes in lowercase
    """A script name that may break after each ``_`` in HTML; plain text to any other writer.

    One text leaf per name, whose HTML visitor writes ``<wbr/>`` after each ``_``: a
    table of 2,000 scripts would otherwise need some 20,000 extra nodes (a text part and
    a break per field), which cost the HTML build memory and time that a hand-written
    table does not spend.
    """


def visit_breakable(translator: Any, node: nodes.Node) -> None:
    parts = node.astext().split("_")
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        # the translator's own Text handling keeps the escaping and <span class="pre">
        translator.visit_Text(nodes.Text(part if last else part + "_"))
        if not last:
            translator.body.append(BREAK["html"])
    raise nodes.SkipNode


def depart_breakable(translator: Any, node: nodes.Node) -> None:
    """Never called: :func:`visit_breakable` skips the node."""


def _breakable_literals(table: nodes.table, fmt: str) -> None:
    """Let a script name break after each ``_`` (LaTeX only breaks at ``-``, browsers not at all).

    The inserted ``raw`` node is a constant; the name itself stays escaped text.
    """
    for literal in list(table.findall(nodes.literal)):
        text = literal.astext()
        if "_" not in text or len(literal.children) != 1 or not isinstance(literal[0], nodes.Text):
            continue
        literal.clear()
        if fmt == "html":
            literal += rlresources_breakable(text)
            continue
        parts = text.split("_")
        for index, part in enumerate(parts):
            literal += nodes.Text(part + ("_" if index < len(parts) - 1 else ""))
            if index < len(parts) - 1:
                literal += nodes.raw("", BREAK[fmt], format=fmt)


def prepare_latex_table(table: nodes.table) -> None:
    """Make one directive table a page-splitting ``longtable`` with wrapping columns."""
    if "longtable" not in table["classes"]:
        table["classes"].append("longtable")
    if _set_widths(table, PADDING):
        table["classes"].remove("colwidths-auto")
        table["classes"].append("colwidths-given")
    _breakable_literals(table, "latex")
    # nine columns do not fit a page at the body's size: typeset the table one size smaller
    parent = table.parent
    if parent is not None:
        index = parent.index(table)
        parent.insert(index + 1, nodes.raw("", "\\endgroup\n", format="latex"))
        parent.insert(index, nodes.raw("", "\\begingroup\\small\n", format="latex"))


def on_doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    fmt = app.builder.format
    if fmt not in ("latex", "text", "html"):
        return
    for table in list(doctree.findall(nodes.table)):
        if TABLE_CLASS not in table["classes"]:
            continue
        if fmt == "latex":
            prepare_latex_table(table)
        elif fmt == "html":
            _breakable_literals(table, "html")
        else:
            _set_widths(table, 2, split_words=False)  # the text writer quotes code: "name"


def register(app: Sphinx) -> None:
    app.connect("doctree-resolved", on_doctree_resolved)
    app.add_node(rlresources_breakable, html=(visit_breakable, depart_breakable))  # type: ignore[arg-type]
