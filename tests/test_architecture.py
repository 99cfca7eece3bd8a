"""The package's floor plan, checked: rooms whose arrows point one way.

Every import in the package is read with :mod:`ast` -- at module level, inside
functions and under ``TYPE_CHECKING`` alike, since each is a dependency a newcomer must
follow -- and the graph is checked for circles and for arrows that cross a layer the
wrong way (docs/architecture.rst draws the layers).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "sphinx_rlresources"
NAME = "sphinx_rlresources"
MAX_LINES = 600


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(path: Path) -> list[tuple[str, str, int]]:
    """(module imported, name imported or '', line) for every import in the file, resolved to absolute."""
    tree = ast.parse(path.read_text("utf-8"))
    here = module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((alias.name, "", node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            found.extend((base, alias.name, node.lineno) for alias in node.names)
    return found


def edges() -> dict[str, set[str]]:
    """Module -> the package modules it imports (``from pkg import mod`` counts as mod)."""
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    for name, path in MODULES.items():
        for module, imported, _line in imports(path):
            if not (module == NAME or module.startswith(NAME + ".")):
                continue
            target = f"{module}.{imported}" if f"{module}.{imported}" in MODULES else module
            if target != name:
                graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), as sorted lists."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "(top)"


def test_the_cycle_finder_finds_a_circle() -> None:
    """The check below cannot pass by accident: a made-up circle is found."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_layers_are_the_folders() -> None:
    assert {layer(m) for m in MODULES} == {
        "(top)",
        "safe",
        "core",
        "scripts",
        "estimator",
        "sphinxext",
        "cli",
        "__main__",
    }


def test_no_import_circle_anywhere_in_the_package() -> None:
    assert cycles(edges()) == []


@pytest.mark.parametrize(
    ("room", "forbidden"),
    [
        (
            "safe",
            (
                "sphinx",
                "docutils",
                f"{NAME}.cli",
                f"{NAME}.sphinxext",
                f"{NAME}.core",
                f"{NAME}.estimator",
                f"{NAME}.scripts",
            ),
        ),
        ("core", ("sphinx", "docutils", f"{NAME}.cli", f"{NAME}.sphinxext")),
        ("scripts", ("sphinx", "docutils", f"{NAME}.cli", f"{NAME}.sphinxext", f"{NAME}.core", f"{NAME}.estimator")),
        ("estimator", ("sphinx", "docutils", f"{NAME}.cli", f"{NAME}.sphinxext", f"{NAME}.core")),
        ("cli", ("sphinx", "docutils", f"{NAME}.sphinxext")),
        ("sphinxext", (f"{NAME}.cli",)),
    ],
)
def test_arrows_point_one_way(room: str, forbidden: tuple[str, ...]) -> None:
    wrong = [
        f"{name}:{line} imports {module}"
        for name, path in MODULES.items()
        if layer(name) == room
        for module, _imported, line in imports(path)
        if any(module == f or module.startswith(f + ".") for f in forbidden)
    ]
    assert wrong == []


def test_no_module_is_over_the_limit() -> None:
    long = {name: n for name, path in MODULES.items() if (n := len(path.read_text("utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_no_private_name_is_borrowed_from_another_module() -> None:
    borrowed = [
        f"{name}:{line} imports {imported} from {module}"
        for name, path in MODULES.items()
        for module, imported, line in imports(path)
        if module.startswith(NAME)
        and imported.startswith("_")
        and imported != "_"  # gettext's _ is exempt
        and not (imported.startswith("__") and imported.endswith("__"))  # __version__ is public
    ]
    assert borrowed == []


def defined_functions(name: str) -> set[str]:
    tree = ast.parse(MODULES[name].read_text("utf-8"))
    return {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


@pytest.mark.parametrize(
    ("function", "home"),
    [
        ("safe_url", f"{NAME}.core.urls"),
        ("script_url", f"{NAME}.core.urls"),
        ("url_template_problem", f"{NAME}.core.urls"),
        ("closest_size", f"{NAME}.core.query"),
        ("resolve_size", f"{NAME}.core.query"),
        ("choose_columns", f"{NAME}.core.query"),
        ("copy_static", f"{NAME}.sphinxext.assets"),
        ("plural", f"{NAME}.cli.common"),
    ],
)
def test_each_rule_lives_in_one_place(function: str, home: str) -> None:
    places = sorted(name for name in MODULES if function in defined_functions(name))
    assert places == [home]


FRONT_ENDS = [
    f"{NAME}.sphinxext.table",
    f"{NAME}.sphinxext.chart",
    f"{NAME}.sphinxext.coverage",
    f"{NAME}.sphinxext.freshness",
    f"{NAME}.sphinxext.export",
    f"{NAME}.cli.render",
    f"{NAME}.cli.sync",
]


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_every_front_end_asks_the_query_for_its_rows(front_end: str) -> None:
    """Directly, or through the directives' shared base, which is the one caller of select."""
    graph = edges()
    reached: set[str] = set()
    todo = [front_end]
    while todo:
        current = todo.pop()
        for other in graph[current]:
            if other not in reached and layer(other) == layer(front_end):
                reached.add(other)
                todo.append(other)
    asks = {front_end, *reached}
    assert any(f"{NAME}.core.query" in graph[m] for m in asks)
    # and none of them reads the sizes on its own
    for module in asks:
        assert ".sizes.get(" not in MODULES[module].read_text("utf-8"), module
