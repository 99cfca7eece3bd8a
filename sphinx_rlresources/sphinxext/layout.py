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
from html import escape
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx import addnodes

from sphinx_rlresources.sphinxext.i18n import _
from sphinx_rlresources.sphinxext.nodes import rlresources_cell, rlresources_script_label, table_parts

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


_HTML_BREAKS = re.compile(r"(?<=[_\-/])(?=.)|(?<=\.)(?=[A-Za-z])|(?<=[A-Za-z]{5})(?=\d)")
"""Where a cell's text may break in HTML: after ``_``, ``-`` and ``/``, after a dot before a
letter (``0.4.6.|post1``), and between a run of five letters and a digit
(``sglang|0.4.6``); never inside ``Qwen2.5`` or ``8*H100``."""


_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def html_pieces(text: str) -> list[str]:
    """``text`` cut where a browser may break it (:data:`_HTML_BREAKS`; a header also at ``MaxBatch``)."""
    pieces = _HTML_BREAKS.split(text)
    if " " not in text and len(pieces) == 1:
        pieces = _CAMEL.split(text)
    return pieces


class rlresources_breakable(nodes.Text):  # docutils names node classes in lowercase
    """Cell text (a script, model or engine name) that may break at :func:`html_pieces` in HTML.

    One text leaf per name, whose HTML visitor writes ``<wbr/>`` after each ``_``: a
    table of 2,000 scripts would otherwise need some 20,000 extra nodes (a text part and
    a break per field), which cost the HTML build memory and time that a hand-written
    table does not spend.
    """


class rlresources_engine(rlresources_breakable):
    """An Infer cell (``vllm0.8.3``): it may also break between the engine and its version.

    Anywhere else a break between letters and a digit would cut ``Qwen|2``; here the
    data says where the engine's name ends, and ``vllm`` | ``0.8.3`` is how a reader
    splits it.  The Infer column then needs the width of its longest part, not of the
    whole name.
    """


_ENGINE = re.compile(r"(?<=[A-Za-z])(?=\d)")

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def visit_breakable(translator: Any, node: nodes.Node) -> None:
    text = node.astext()
    if isinstance(node, rlresources_engine):
        parts = [piece for part in _ENGINE.split(text, maxsplit=1) for piece in html_pieces(part)]
    else:
        parts = html_pieces(text)
    for index, part in enumerate(parts):
        # the translator's own Text handling keeps the escaping
        translator.visit_Text(nodes.Text(part))
        if index < len(parts) - 1:
            translator.body.append(BREAK["html"])
    raise nodes.SkipNode


def depart_breakable(translator: Any, node: nodes.Node) -> None:
    """Never called: :func:`visit_breakable` skips the node."""


def _breakable_literals(table: nodes.table, fmt: str) -> None:
    """Let a script name break after each ``_`` in LaTeX (which only breaks at ``-``).

    The inserted ``raw`` node is a constant; the name itself stays escaped text.
    """
    for literal in list(table.findall(nodes.literal)):
        text = literal.astext()
        if "_" not in text or len(literal.children) != 1 or not isinstance(literal[0], nodes.Text):
            continue
        literal.clear()
        parts = text.split("_")
        for index, part in enumerate(parts):
            literal += nodes.Text(part + ("_" if index < len(parts) - 1 else ""))
            if index < len(parts) - 1:
                literal += nodes.raw("", BREAK[fmt], format=fmt)


READER_TABLES = frozenset({"rlresources-coverage", "rlresources-chart-table", "rlresources-estimate"})


SOFT_HYPHENS = {"RECOMMENDED": ("RECOM", "MENDED")}
"""Words that may break with a hyphen in a caption or a reader's table (the coverage table's
column headers on a phone).  Never in a resource table's own cells: a narrow Tag column
read "RECOM-MENDED", and the layout script picks compact or cards before a tag must break."""


class rlresources_hyphenated(nodes.Text):
    """A word written with a soft hyphen in HTML (``RECOM&#173;MENDED``); its text stays the word.

    The search index and every other reader of the doctree see ``RECOMMENDED``.
    """


def visit_hyphenated(translator: Any, node: nodes.Node) -> None:
    for index, part in enumerate(SOFT_HYPHENS[node.astext()]):
        if index:
            translator.body.append("&#173;")  # not &shy;, which XML (EPUB) does not define
        translator.visit_Text(nodes.Text(part))
    raise nodes.SkipNode


_ANY, _HEAD, _BODY, _INFER = range(4)
"""Where a text is, for the rules of :func:`_breakable`: anywhere in a table (soft hyphens
alone: a caption, a reader's table), a header, a body cell, an Infer cell."""


def _breakable(value: str, where: int) -> nodes.Node | None:
    """The node a plain text becomes in HTML to break where a reader expects, or None to stay as it is."""
    if where == _ANY:
        return rlresources_hyphenated(value) if value in SOFT_HYPHENS else None
    if where == _HEAD:  # MaxBatch may break before "Batch"
        return rlresources_breakable(value) if _CAMEL.search(value) else None
    if where == _INFER and _ENGINE.search(value):
        return rlresources_engine(value)
    if _DATE.fullmatch(value):  # one word: never "2025-06-" and "25" on the next line
        return nodes.inline(value, value, classes=["rlresources-date"])
    if len(value) > 6 and _HTML_BREAKS.search(value):
        return rlresources_breakable(value)
    return None


def _words(node: nodes.Node, where: int, code: bool = True) -> None:
    """Mark where the plain text under ``node`` may break (``code``: code first, which becomes breakable text)."""
    if code:
        for literal in list(node.findall(nodes.literal)):
            text = literal.astext()
            literal.replace_self(nodes.inline(text, "", rlresources_breakable(text), classes=["rlresources-script"]))
    for text in list(node.findall(nodes.Text)):
        if type(text) is nodes.Text:
            replacement = _breakable(str(text), where)
            if replacement is not None:
                text.parent.replace(text, replacement)


def prepare_html_table(table: nodes.table) -> None:
    """Let every cell break where a reader expects, and show script names as text, not code.

    The names stay in the theme's body font and colour (a theme's code style would shrink
    them below the body size, and colour them with too little contrast), and wrap at
    :func:`html_pieces`, so the table can shrink to the text column in every theme.

    One walk, cell by cell, each text taking the rule of where it is (:func:`_breakable`):
    a large table holds hundreds of thousands of nodes, too many to walk once per kind
    of text.
    """
    for child in table.children:
        if not isinstance(child, nodes.tgroup):  # the caption
            _words(child, _ANY)
    for part in table_parts(table):
        for row in part.children:
            for cell in row.children:
                _prepare_cell(cell, part)


def _prepare_cell(cell: nodes.Node, part: nodes.Element) -> None:
    if not isinstance(cell, nodes.Element):  # pragma: no cover - a row holds entries
        return
    if isinstance(part, nodes.thead):
        _words(cell, _HEAD)
        return
    classes = cell["classes"] if isinstance(cell, rlresources_cell) else ()
    if "rl-col-link" in classes:
        for link in list(cell.findall(lambda n: isinstance(n, (nodes.reference, addnodes.download_reference)))):
            assert isinstance(link, nodes.Element)
            name = link.astext()
            link.clear()
            link += rlresources_script_label(name, name, short=_("script"))
    _words(cell, _INFER if "rl-col-infer" in classes else _BODY)


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
        if fmt == "html" and set(table["classes"]) & READER_TABLES:
            _words(table, _ANY, code=False)  # the chart's, coverage and estimate tables wrap like the main one
        if TABLE_CLASS not in table["classes"]:
            continue
        if fmt == "latex":
            prepare_latex_table(table)
        elif fmt == "html":
            prepare_html_table(table)
        else:
            _set_widths(table, 2, split_words=False)  # the text writer quotes code: "name"


def visit_cell_html(translator: Any, node: rlresources_cell) -> None:
    """A body cell as the translator writes it, with ``data-label``: the column's header.

    Narrow screens show each row as a card of "label: value" lines (the stylesheet's
    ``::before``), while the markup stays a table for screen readers and other builders.
    """
    translator.visit_entry(node)
    for index in range(len(translator.body) - 1, -1, -1):
        tag = translator.body[index]
        if tag.startswith("<td"):
            label = escape(node.get("label", ""), quote=True)
            translator.body[index] = f'<td data-label="{label}"' + tag[3:]
            break


def depart_cell_html(translator: Any, node: rlresources_cell) -> None:
    translator.depart_entry(node)


def visit_script_label_html(translator: Any, node: rlresources_script_label) -> None:
    """``script``, with the file name as its title and, visually hidden, for screen readers.

    The file name repeats what the row's other cells say (model, task, GPUs, device,
    backends), and is the widest thing in a row: the Link column stays narrow, and the
    name is still there for whoever hovers, reads aloud, or uses another builder.
    """
    name = escape(node.astext(), quote=True)
    short = escape(node.get("short", ""), quote=True)
    translator.body.append(
        f'<span class="rlresources-script" title="{name}">{short}</span>'
        f'<span class="rlresources-visually-hidden"> {name}</span>'
    )
    raise nodes.SkipNode


def register(app: Sphinx) -> None:
    app.connect("doctree-resolved", on_doctree_resolved)
    app.add_node(rlresources_cell, html=(visit_cell_html, depart_cell_html))
    app.add_node(rlresources_script_label, html=(visit_script_label_html, None))
    app.add_node(rlresources_breakable, html=(visit_breakable, depart_breakable))  # type: ignore[arg-type]
    app.add_node(rlresources_engine, html=(visit_breakable, depart_breakable))  # type: ignore[arg-type]
    app.add_node(rlresources_hyphenated, html=(visit_hyphenated, depart_breakable))  # type: ignore[arg-type]
