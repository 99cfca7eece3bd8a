"""The extension's own doctree nodes, apart from the code that makes and draws them.

Each subclasses the docutils node it stands for, so a builder without a visitor of its
own (a third-party one) draws it as that plain node.  Keeping them here lets the
filtering, chart and coverage modules recognise each other's nodes without importing
each other; :func:`table_parts` and :func:`body_rows` find a table's parts and rows the
same way for all of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docutils import nodes

if TYPE_CHECKING:
    from sphinx.application import Sphinx


class rlresources_filter(nodes.container):
    """A filterable table; ``strings`` holds the controls' translated words."""


class rlresources_row(nodes.row):
    """A table row with the values the filters read, in ``rl_data``."""


class rlresources_chart(nodes.container):
    """The chart: ``svg`` for HTML, and the compact table as children for everyone."""


class rlresources_mark(nodes.inline):
    """A coverage cell's ✓ or —; ``label`` says in words what it means."""


class rlresources_cell(nodes.entry):
    """A body cell of the resource table; ``label`` is its column's header (HTML writes it as ``data-label``)."""


class rlresources_details(nodes.container):
    """What a reader opens for more (HTML's ``<details>``, ``summary`` its label); other builders show it all."""


class rlresources_script_label(nodes.inline):
    """A Link cell's text in HTML: a short label, the script's file name in the title and for screen readers."""


def table_parts(table: nodes.Element) -> list[nodes.Element]:
    """A table's ``thead`` and ``tbody``, in order, taken where docutils puts them (under its
    ``tgroup``): a walk of the whole table would visit every node of every cell."""
    return [
        part
        for group in table.children
        if isinstance(group, nodes.tgroup)
        for part in group.children
        if isinstance(part, (nodes.thead, nodes.tbody))
    ]


def body_rows(table: nodes.Element) -> list[nodes.row]:
    """A table's body rows, in order (see :func:`table_parts`)."""
    return [
        row
        for part in table_parts(table)
        if isinstance(part, nodes.tbody)
        for row in part.children
        if isinstance(row, nodes.row)
    ]


def _pass(self: Any, node: nodes.Node) -> None:
    """Draw nothing for the node itself; its children are drawn as usual."""


def add_wrapper_node(app: Sphinx, node: type[nodes.Element], html: tuple[Any, Any]) -> None:
    """Register a node that HTML draws with ``html`` and every other builder draws as its children.

    The chart and the filter block are HTML's business alone; LaTeX, text, man and
    Texinfo show what they wrap (the chart's table, the filtered table).
    """
    passthrough = (_pass, _pass)
    app.add_node(node, html=html, latex=passthrough, text=passthrough, man=passthrough, texinfo=passthrough)
