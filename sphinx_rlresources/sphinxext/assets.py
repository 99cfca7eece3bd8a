"""The extension's static files (scripts and stylesheets), copied into ``_static`` in one place.

Copied rather than added to ``html_static_path``, so the project's configuration is
left as written.  The table and marker stylesheets go on every HTML page (any page may
draw a table); the layout script on the pages that draw a resource or estimate table or a chart;
the filter script and the readers' stylesheet only on the pages that draw filters,
charts or coverage (:mod:`.filtering` adds them per page).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from docutils import nodes

from sphinx_rlresources.sphinxext.nodes import rlresources_chart

if TYPE_CHECKING:
    from sphinx.application import Sphinx

STATIC_DIR = Path(__file__).parent / "static"
TABLE_CSS = "rlresources-table.css"
FRESHNESS_CSS = "rlresources-freshness.css"
READERS_CSS = "rlresources-readers.css"
FILTER_JS = "rlresources-filter.js"
LAYOUT_JS = "rlresources-layout.js"
FILES = (TABLE_CSS, FRESHNESS_CSS, READERS_CSS, FILTER_JS, LAYOUT_JS)
SIZED_TABLES = frozenset({"rlresources-table", "rlresources-estimate"})
"""The tables whose layout (table, compact table or cards) the layout script picks."""
EVERY_PAGE_CSS = (TABLE_CSS, FRESHNESS_CSS)


def copy_static(app: Sphinx) -> None:
    """Put every static file into ``_static`` before the HTML (or EPUB) builder lists them.

    A file is written only when its bytes differ, so an incremental build leaves the
    copies (and their timestamps) alone.
    """
    if app.builder.format != "html":
        return
    target = Path(app.outdir) / "_static"
    target.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        source = (STATIC_DIR / name).read_bytes()
        if not (target / name).is_file() or (target / name).read_bytes() != source:
            (target / name).write_bytes(source)


def _sized(node: nodes.Node) -> bool:
    """A node whose layout the script picks: a resource or estimate table, or a chart."""
    if isinstance(node, rlresources_chart):
        return True
    return isinstance(node, nodes.table) and bool(SIZED_TABLES & set(node["classes"]))


def add_layout_script(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: nodes.document | None
) -> None:
    """Link the layout script from the pages that draw a table or chart it sizes, and no other."""
    if doctree is not None and any(True for _node in doctree.findall(_sized)):
        app.add_js_file(LAYOUT_JS, defer="defer")


def register(app: Sphinx) -> None:
    app.connect("builder-inited", copy_static)
    app.connect("html-page-context", add_layout_script)
    for name in EVERY_PAGE_CSS:
        app.add_css_file(name)
