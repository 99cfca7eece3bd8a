"""Reader-side filters on ``rl-resource-table`` (HTML only).

The table is drawn exactly as without filters; :func:`make_filterable` wraps it in a
:class:`rlresources_filter` node and swaps each body row for an :class:`rlresources_row`
that carries the row's values.  HTML builders write those values as ``data-rl-*``
attributes and add a small script that builds the controls, so a reader without
JavaScript still sees the whole table.  Both node classes subclass the docutils node
they stand for, so any builder without its own visitor (LaTeX, text, man, Texinfo, or
a third-party one) draws them as the plain container and row it would have drawn.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from docutils import nodes

from sphinx_rlresources.core.model import Entry
from sphinx_rlresources.safe.sizes import size_order
from sphinx_rlresources.sphinxext.assets import FILTER_JS, READERS_CSS
from sphinx_rlresources.sphinxext.i18n import _
from sphinx_rlresources.sphinxext.nodes import (
    add_wrapper_node,
    body_rows,
    rlresources_chart,
    rlresources_filter,
    rlresources_mark,
    rlresources_row,
)

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.writers.html5 import HTML5Translator


#: The row values the script filters on: attribute suffix -> how to read it from a row.
def _size_rank(label: str) -> str:
    """``0:7e+09``: the size's place by parameter count (:func:`size_order`), for the script."""
    known, count, _label = size_order(label)
    return f"{known}:{count:.6g}"


ROW_DATA: dict[str, Callable[[Entry], str]] = {
    "size": lambda e: e.size,
    "size-order": lambda e: _size_rank(e.size),  # the script sorts the Size choices by it
    "tag": lambda e: e.tag,
    "task": lambda e: e.task,
    "gpus": lambda e: str(e.gpus),
    "device": lambda e: e.device,
    "train": lambda e: e.train,
    "infer": lambda e: e.infer,
}


def filter_flag(argument: str | None) -> bool:
    """``:filter:`` alone turns filters on; ``:filter: no`` turns off a ``rlresources_filter`` default."""
    value = (argument or "").strip().lower()
    if value in ("", "yes", "true", "on"):
        return True
    if value in ("no", "false", "off"):
        return False
    msg = f'"{argument}" is not one of: (empty), yes, no'
    raise ValueError(msg)


def control_strings() -> dict[str, str]:
    """The words the script shows, translated at build time (the script has no catalog)."""
    return {
        "legend": _("Filter the configurations"),
        "gpus": _("Max. GPUs"),
        "any": _("Any"),
        "size": _("Size"),
        "tag": _("Tag"),
        "task": _("Task"),
        "device": _("Device"),
        "train": _("Train"),
        "infer": _("Infer"),
        "reset": _("Show all"),
        # {shown} and {total} are replaced by the script.
        "status": _("{shown} of {total} configurations match."),
        "none": _("No configuration matches: allow more GPUs or choose another device."),
    }


def make_filterable(table: nodes.table, entries: Sequence[Entry]) -> nodes.Element:
    """Wrap ``table`` for filtering; its body rows must be ``entries``, in order."""
    rows = body_rows(table)
    if len(rows) != len(entries):  # pragma: no cover - the table is drawn from exactly these rows
        return table
    for row, entry in zip(rows, entries, strict=True):
        replacement = rlresources_row(row.rawsource, *row.children, **row.attributes)
        replacement["rl_data"] = {key: read(entry) for key, read in ROW_DATA.items()}
        row.replace_self(replacement)
    wrapper = rlresources_filter(classes=["rlresources-filter"])
    wrapper["strings"] = control_strings()
    wrapper += table
    return wrapper


def _attributes(values: dict[str, str]) -> str:
    return "".join(f' data-rl-{key}="{escape(value, quote=True)}"' for key, value in sorted(values.items()))


def visit_filter_html(self: HTML5Translator, node: rlresources_filter) -> None:
    strings = escape(json.dumps(node.get("strings", {}), sort_keys=True, ensure_ascii=False), quote=True)
    tag = self.starttag(node, "div", "")  # ids and classes, as for any container
    self.body.append(f'<div data-rl-strings="{strings}"' + tag[4:])


def depart_filter_html(self: HTML5Translator, node: rlresources_filter) -> None:
    self.body.append("</div>\n")


def visit_row_html(self: HTML5Translator, node: rlresources_row) -> None:
    """Draw the row as the translator always does, then add the ``data-rl-*`` attributes."""
    self.visit_row(node)
    tag = self.body[-1]
    if tag.startswith("<tr"):
        self.body[-1] = "<tr" + _attributes(node.get("rl_data", {})) + tag[3:]


def depart_row_html(self: HTML5Translator, node: rlresources_row) -> None:
    self.depart_row(node)


def on_html_page_context(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: nodes.document | None
) -> None:
    """Add the script and the stylesheet to the pages that draw filters, charts or coverage."""
    if doctree is None:
        return
    filtered = styled = False  # one walk of a page that may hold 10,000 rows, to its first filter
    for node in doctree.findall(lambda n: isinstance(n, (rlresources_filter, rlresources_chart, rlresources_mark))):
        styled = True
        if isinstance(node, rlresources_filter):
            filtered = True
            break
    if filtered:
        app.add_js_file(FILTER_JS, defer="defer")
    if styled:
        app.add_css_file(READERS_CSS)


def register(app: Sphinx) -> None:
    add_wrapper_node(app, rlresources_filter, (visit_filter_html, depart_filter_html))
    app.add_node(rlresources_row, html=(visit_row_html, depart_row_html))
    app.connect("html-page-context", on_html_page_context)
