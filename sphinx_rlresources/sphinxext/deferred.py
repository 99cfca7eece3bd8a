"""Keep a drawn table's body rows out of the read-phase transforms.

Most of a page's build time goes to the transforms that docutils and Sphinx run over
every freshly parsed doctree (smart quotes, references, footnotes, i18n, substitutions,
numbering, ...), each walking the whole tree.  A resource table's body rows are
thousands of nodes that none of them changes: plain text, ``reference`` nodes that
already carry their URI, and ``download_reference`` nodes.  So the directive parks the
rows in a :class:`rlresources_rows` holder that the tree walks do not enter, and
:func:`restore_rows`, the first ``doctree-read`` listener, puts them back.  Every
``doctree-read`` listener (Sphinx's collectors, which register the script downloads,
and any other extension's) and everything after it (the pickled doctree, the
post-transforms, the writers) sees the very tree the directive built.

A table is left as it is when a transform *could* change its rows: when a cell holds
text that smart quotes would rewrite (quotes, ``--``, ``...``) and the body does not
opt out of them (the directive's does: data is shown as written), when the document
is translated (the i18n transform may replace cell text), or when a row holds a node
other than the plain ones above.  ``benchmarks/bench_deferred.py`` measures what it
buys (docs/performance.rst).

The contract this relies on, from docutils and Sphinx rather than from any API that
promises it (``tests/test_speedups.py`` compares every written file with and without
the parking, so a change in either breaks a test, not a page):

* docutils' tree walks (``Node.findall``, which every transform and visitor uses) go
  through ``children`` only, so rows kept in an attribute of :class:`rlresources_rows`
  are invisible to them; ``copy``/``deepcopy`` are overridden to carry the rows;
* no read-phase transform needs to see a plain row (the list in :data:`_PLAIN` and
  :data:`_SMART` says which rows qualify);
* Sphinx emits ``doctree-read`` once per read page, after the transforms and before
  the doctree is pickled, and :func:`restore_rows` is connected with priority 1, so it
  runs before every other listener.

Why not Sphinx's idiom for late content, a placeholder node the table replaces at
``doctree-resolved`` (as ``sphinx.ext.todo`` fills its lists)?  A table drawn that late
is missing from everything that reads the doctree when the page is read: Sphinx's
collectors would not register the Link column's ``download_reference`` nodes (the
script copies would not be written), the standard domain and the toctree collector
would not see a table's ``:name:`` target (``:ref:`` and ``:numref:`` to it would fail),
and :func:`~sphinx_rlresources.sphinxext.freshness.say_markers_once` would find no row.
Parking hides only the rows, and only until the first ``doctree-read`` listener.

``RLRESOURCES_NO_DEFERRED_ROWS=1`` in the environment turns it off: every table is
drawn in place, for measuring it or for ruling it out when a page looks wrong.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx import addnodes

from sphinx_rlresources.sphinxext.nodes import table_parts

if TYPE_CHECKING:
    from sphinx.application import Sphinx

#: Node classes a parked row may hold: no read-phase transform changes them.
_PLAIN = (
    nodes.row,
    nodes.entry,
    nodes.paragraph,
    nodes.Text,
    nodes.reference,
    nodes.literal,
    nodes.inline,
    addnodes.download_reference,
)
#: Text that smart quotes would rewrite.
_SMART = ('"', "'", "--", "...", "`")


class rlresources_rows(nodes.Element):  # docutils names node classes in lowercase
    """Holds body rows outside the tree until :func:`restore_rows` puts them back.

    The rows live in :attr:`rows`, not in ``children``, which is what keeps the tree
    walks out of them.  A plain element of its own class: no transform removes or
    rewrites it (a comment would be dropped under ``strip_comments``), and a writer
    that ever met one would fail loudly instead of losing the rows.
    """

    rows: list[nodes.Node]

    def copy(self) -> rlresources_rows:
        obj = super().copy()
        obj.rows = list(getattr(self, "rows", []))
        return obj

    def deepcopy(self) -> rlresources_rows:
        obj = super().deepcopy()
        obj.rows = [row.deepcopy() for row in getattr(self, "rows", [])]
        return obj


def _plain(body: nodes.Element) -> bool:
    quotes = body.get("support_smartquotes") is not False
    for row in body.children:
        for node in row.findall(include_self=True):
            if not isinstance(node, _PLAIN):
                return False
            if quotes and isinstance(node, nodes.Text) and any(mark in node for mark in _SMART):
                return False
    return True


SWITCH = "RLRESOURCES_NO_DEFERRED_ROWS"
"""The environment variable that turns the parking off (any value but empty or ``0``)."""


def defer_rows(table: nodes.Element, language: str | None) -> bool:
    """Park the table's body rows in holders; False (table untouched) when unsafe or switched off."""
    if os.environ.get(SWITCH, "") not in ("", "0") or language not in (None, "", "en"):
        return False
    bodies = [part for part in table_parts(table) if isinstance(part, nodes.tbody)]
    if not bodies or not all(body.children and _plain(body) for body in bodies):
        return False
    for body in bodies:
        holder = rlresources_rows()
        holder.rows = list(body.children)
        for row in holder.rows:
            row.parent = None
        body.children = []
        body += holder
    return True


def restore_rows(app: Sphinx, doctree: nodes.document) -> None:
    """Put every parked row back where it was (the first ``doctree-read`` listener)."""
    for holder in list(doctree.findall(rlresources_rows)):
        holder.replace_self(holder.rows)


def register(app: Sphinx) -> None:
    app.add_node(rlresources_rows)
    app.connect("doctree-read", restore_rows, priority=1)
