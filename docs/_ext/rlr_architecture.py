"""The architecture page's map, drawn from the import graph the architecture test checks.

``.. rlr-room-arrows::`` draws which room imports which (and through which modules),
``.. rlr-room-rules::`` what each room may not import, and ``.. rlr-room-modules::
ROOM`` lists a room's modules, each with the first line of its docstring.  All read
:mod:`importgraph`, as ``tests/test_architecture.py`` does, so the page shows the
graph the test passed on: a new module or a new arrow appears on the page by itself,
and a wrong one cannot be drawn.
"""

from __future__ import annotations

import re
from typing import Any

import importgraph
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

_MARKUP = re.compile(r"``(?P<literal>.+?)``|:[a-z:]+:`(?P<role>[^`]+)`")


def inline(text: str) -> list[nodes.Node]:
    """A docstring line as nodes: its ``literals`` and :role:`targets` as code, the rest as text.

    A role is not resolved (a module's docstring may name ``~..run.Run`` relative to
    itself); it is shown as the name it would display.
    """
    found: list[nodes.Node] = []
    at = 0
    for match in _MARKUP.finditer(text):
        found.append(nodes.Text(text[at : match.start()]))
        if match.group("literal") is not None:
            code = match.group("literal")
        else:
            role = match.group("role")
            shown = re.fullmatch(r"(?P<title>.+?)\s*<[^>]+>", role)
            code = shown.group("title") if shown else role.lstrip("~").rpartition(".")[2] if "~" in role else role
        found.append(nodes.literal(code, code))
        at = match.end()
    found.append(nodes.Text(text[at:]))
    return [node for node in found if node.astext()]


def short(module: str) -> str:
    """A module's name inside its room (``frameworks.verl``); a room's own ``__init__`` is ``__init__``."""
    parts = module.split(".")[2:]
    if importgraph.room(module) == importgraph.TOP:
        return "__main__" if module.endswith("__main__") else "__init__"
    return ".".join(parts) or "__init__"


class RoomArrows(SphinxDirective):
    """``.. rlr-room-arrows::``: each room and the rooms it imports, then each arrow's modules."""

    def run(self) -> list[nodes.Node]:
        found = importgraph.modules()
        for path in found.values():
            self.env.note_dependency(str(path))
        graph = importgraph.edges(found)
        arrows = importgraph.room_arrows(graph)
        width = max(len(r) for r in importgraph.ROOMS)
        lines = []
        for room in importgraph.ROOMS:
            targets = [to for (start, to) in arrows if start == room]
            lines.append(f"{room:<{width}}  -> {', '.join(targets) or '(nothing else in the package)'}")
        text = "\n".join(lines)
        diagram = nodes.literal_block(text, text, language="text")

        table = nodes.table(classes=["colwidths-given", "rlr-docs-table"])
        tgroup = nodes.tgroup(cols=2)
        table += tgroup
        tgroup += nodes.colspec(colwidth=25)
        tgroup += nodes.colspec(colwidth=75)
        head = nodes.thead()
        tgroup += head
        head += self._row([nodes.Text("Arrow")], [nodes.Text("The modules that draw it")])
        body = nodes.tbody()
        tgroup += body
        for (start, to), through in arrows.items():
            names: list[nodes.Node] = []
            for index, module in enumerate(through):
                if index:
                    names.append(nodes.Text(", "))
                names.append(nodes.literal(short(module), short(module)))
            body += self._row([nodes.literal(f"{start} -> {to}", f"{start} -> {to}")], names)
        return [diagram, table]

    @staticmethod
    def _row(*cells: list[nodes.Node]) -> nodes.row:
        row = nodes.row()
        for content in cells:
            row += nodes.entry("", nodes.paragraph("", "", *content))
        return row


class RoomRules(SphinxDirective):
    """``.. rlr-room-rules::``: what each room may not import, as the architecture test checks it."""

    def run(self) -> list[nodes.Node]:
        listing = nodes.bullet_list()
        for room, forbidden in importgraph.FORBIDDEN.items():
            para = nodes.paragraph()
            para += nodes.literal(room, room)
            para += nodes.Text(" never imports ")
            for index, name in enumerate(forbidden):
                if index:
                    para += nodes.Text(", " if index < len(forbidden) - 1 else " or ")
                shown = name.removeprefix(importgraph.NAME + ".")
                para += nodes.literal(shown, shown)
            listing += nodes.list_item("", para)
        return [listing]


class RoomModules(SphinxDirective):
    """``.. rlr-room-modules:: ROOM``: the room's modules, each with its docstring's first line."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        wanted = self.arguments[0]
        if wanted not in importgraph.ROOMS:
            message = f"rlr-room-modules: no room '{wanted}'; the rooms are {', '.join(importgraph.ROOMS)}"
            return [self.state.document.reporter.error(message, line=self.lineno)]
        found = importgraph.modules()
        listing = nodes.bullet_list()
        for module in importgraph.room_modules(found, wanted):
            self.env.note_dependency(str(found[module]))
            para = nodes.paragraph()
            para += nodes.literal(short(module), short(module))
            role = importgraph.summary(found[module])
            if role:
                para += nodes.Text(": ")
                para.extend(inline(role))
            listing += nodes.list_item("", para)
        return [listing]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("rlr-room-arrows", RoomArrows)
    app.add_directive("rlr-room-modules", RoomModules)
    app.add_directive("rlr-room-rules", RoomRules)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
