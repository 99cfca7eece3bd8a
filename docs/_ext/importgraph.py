"""The package's import graph, read once for the architecture test and the architecture page.

Every import is read with :mod:`ast` -- at module level, inside functions and under
``TYPE_CHECKING`` alike, since each is a dependency a newcomer must follow.
``tests/test_architecture.py`` checks this graph (no circle, no arrow the wrong way)
and ``docs/architecture.rst`` draws it (``rlr_architecture``), so the map on the page
is the graph the test passed on: a wrong map cannot be written by hand.

No Sphinx and no package import here: the test reads the source files, not the
modules, so a broken module still has its imports checked.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Mapping
from pathlib import Path

NAME = "sphinx_rlresources"
PACKAGE = Path(__file__).resolve().parent.parent.parent / NAME

TOP = "top"
"""The room of the package's own ``__init__`` (``setup()``) and ``__main__``."""

ROOMS = ("top", "cli", "sphinxext", "core", "estimator", "scripts", "safe")
"""The rooms, each a folder of the package (but ``top``), from the front ends down."""

_BELOW_CORE = (f"{NAME}.cli", f"{NAME}.sphinxext", f"{NAME}.core")
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "safe": ("sphinx", "docutils", *_BELOW_CORE, f"{NAME}.estimator", f"{NAME}.scripts"),
    "scripts": ("sphinx", "docutils", *_BELOW_CORE, f"{NAME}.estimator"),
    "estimator": ("sphinx", "docutils", *_BELOW_CORE),
    "core": ("sphinx", "docutils", f"{NAME}.cli", f"{NAME}.sphinxext"),
    "cli": ("sphinx", "docutils", f"{NAME}.sphinxext"),
    "sphinxext": (f"{NAME}.cli",),
}
"""Room -> the packages none of its modules may import (the package's own by full name)."""


def module_name(path: Path, package: Path = PACKAGE) -> str:
    """``sphinx_rlresources.core.query`` for ``.../core/query.py`` (a package is named by its folder)."""
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package, by dotted name, sorted."""
    return {module_name(p, package): p for p in sorted(package.rglob("*.py"))}


def tree(path: Path) -> ast.Module:
    """The file's syntax tree, parsed once per version of the file (the test and the page ask many times)."""
    return _parsed(path, path.stat().st_mtime_ns)


@functools.cache
def _parsed(path: Path, _version: int) -> ast.Module:
    return ast.parse(path.read_text("utf-8"))


def imports(path: Path, package: Path = PACKAGE) -> list[tuple[str, str, int]]:
    """(module imported, name imported or '', line) for every import in the file, resolved to absolute."""
    tree_ = tree(path)
    here = module_name(path, package)
    anchor_package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found: list[tuple[str, str, int]] = []
    for node in ast.walk(tree_):
        if isinstance(node, ast.Import):
            found.extend((alias.name, "", node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = anchor_package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            found.extend((base, alias.name, node.lineno) for alias in node.names)
    return found


def edges(found: Mapping[str, Path] | None = None) -> dict[str, set[str]]:
    """Module -> the package modules it imports (``from pkg import mod`` counts as mod)."""
    found = modules() if found is None else found
    graph: dict[str, set[str]] = {name: set() for name in found}
    for name, path in found.items():
        for module, imported, _line in imports(path):
            if not (module == NAME or module.startswith(NAME + ".")):
                continue
            target = f"{module}.{imported}" if f"{module}.{imported}" in found else module
            if target != name:
                graph[name].add(target)
    return graph


class _Tarjan:
    """Tarjan's strongly connected components, one :meth:`visit` per node."""

    def __init__(self, graph: Mapping[str, Iterable[str]]) -> None:
        self.graph = graph
        self.index: dict[str, int] = {}
        self.low: dict[str, int] = {}
        self.stack: list[str] = []
        self.on_stack: set[str] = set()
        self.found: list[list[str]] = []

    def visit(self, node: str) -> None:
        self.index[node] = self.low[node] = len(self.index)
        self.stack.append(node)
        self.on_stack.add(node)
        for other in self.graph.get(node, ()):
            if other not in self.index:
                self.visit(other)
                self.low[node] = min(self.low[node], self.low[other])
            elif other in self.on_stack:
                self.low[node] = min(self.low[node], self.index[other])
        if self.low[node] == self.index[node] and len(group := self.pop_group(node)) > 1:
            self.found.append(sorted(group))

    def pop_group(self, node: str) -> list[str]:
        group = []
        while True:
            member = self.stack.pop()
            self.on_stack.discard(member)
            group.append(member)
            if member == node:
                return group


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), as sorted lists."""
    tarjan = _Tarjan(graph)
    for node in sorted(graph):
        if node not in tarjan.index:
            tarjan.visit(node)
    return tarjan.found


def layer(module: str) -> str:
    """The folder a module lives in (``core``), or ``(top)`` for the package itself; ``__main__`` is its own."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "(top)"


def room(module: str) -> str:
    """The room a module belongs to on the architecture page: its folder, or ``top``."""
    found = layer(module)
    return TOP if found in ("(top)", "__main__") else found


def room_arrows(graph: Mapping[str, Iterable[str]]) -> dict[tuple[str, str], list[str]]:
    """(room, room it imports) -> the modules of the first room that import the second, sorted."""
    arrows: dict[tuple[str, str], set[str]] = {}
    for name, targets in graph.items():
        for target in targets:
            if room(target) != room(name):
                arrows.setdefault((room(name), room(target)), set()).add(name)
    return {key: sorted(arrows[key]) for key in sorted(arrows, key=lambda k: (ROOMS.index(k[0]), ROOMS.index(k[1])))}


def room_modules(found: Mapping[str, Path], wanted: str) -> list[str]:
    """The modules of one room, sorted, the room's own ``__init__`` first."""
    return sorted((name for name in found if room(name) == wanted), key=lambda n: (n.count("."), n))


def summary(path: Path) -> str:
    """The first line of a module's docstring: its one-line role ('' if it has none)."""
    doc = ast.get_docstring(tree(path))
    return doc.strip().splitlines()[0] if doc else ""
