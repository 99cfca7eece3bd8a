"""The package's floor plan, checked: rooms whose arrows point one way, and a map that says so.

Every import in the package is read with :mod:`ast` (each file parsed once, by
``importgraph.tree``) -- at module level, inside functions and under ``TYPE_CHECKING``
alike, since each is a dependency a newcomer must follow -- and the graph is checked
for circles and for arrows that cross a layer the wrong way.  The graph is read by
``docs/_ext/importgraph.py``, which also draws docs/architecture.rst's arrows and
module lists, so the page shows what this test checks.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

# docs/_ext is not a package: the page's map is drawn from the same module
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "docs" / "_ext"))
import importgraph
from importgraph import FORBIDDEN, NAME, cycles, edges, imports, layer

REPO = Path(__file__).resolve().parent.parent
MODULES = importgraph.modules()
MAX_LINES = 600


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


@pytest.mark.parametrize(("room", "forbidden"), FORBIDDEN.items())
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
    return {
        n.name
        for n in ast.walk(importgraph.tree(MODULES[name]))
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


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


# -- the map on docs/architecture.rst ------------------------------------------------------

PAGE = REPO / "docs" / "architecture.rst"


def test_every_module_is_in_a_room_the_page_lists() -> None:
    rooms = {importgraph.room(name) for name in MODULES}
    assert rooms == set(importgraph.ROOMS)
    listed = re.findall(r"^\s*\.\. rlr-room-modules:: (\S+)$", PAGE.read_text("utf-8"), re.M)
    assert sorted(listed) == sorted(importgraph.ROOMS)
    assert ".. rlr-room-arrows::" in PAGE.read_text("utf-8")
    assert ".. rlr-room-rules::" in PAGE.read_text("utf-8")


def test_every_module_says_its_role_in_its_docstring() -> None:
    """The page lists each module with its docstring's first line: none may be blank."""
    assert [name for name, path in MODULES.items() if not importgraph.summary(path)] == []


def test_the_room_arrows_name_the_modules_that_draw_them() -> None:
    graph = {
        f"{NAME}.cli.estimate": {f"{NAME}.estimator.memory", f"{NAME}.cli.common"},
        f"{NAME}.cli.new": {f"{NAME}.scripts.run"},
        f"{NAME}.cli.common": {f"{NAME}.core.loader"},
        f"{NAME}.__main__": {f"{NAME}.cli.main"},
        f"{NAME}.scripts.run": set(),
    }
    assert importgraph.room_arrows(graph) == {
        ("top", "cli"): [f"{NAME}.__main__"],
        ("cli", "core"): [f"{NAME}.cli.common"],
        ("cli", "estimator"): [f"{NAME}.cli.estimate"],
        ("cli", "scripts"): [f"{NAME}.cli.new"],
    }


def test_the_arrows_the_issue_found_missing_are_drawn() -> None:
    """Issue 20 found the hand-drawn map lacking these; drawn from the graph, they are there."""
    arrows = importgraph.room_arrows(edges())
    assert f"{NAME}.sphinxext.estimate" in arrows["sphinxext", "estimator"]
    assert f"{NAME}.cli.estimate" in arrows["cli", "estimator"]
    assert f"{NAME}.cli.new" in arrows["cli", "scripts"]
    assert ("sphinxext", "scripts") not in arrows


def _defines(path: Path, name: str) -> bool:
    for node in ast.walk(importgraph.tree(path)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
    return False


def test_every_dotted_name_in_the_prose_exists() -> None:
    """``core.query.select``, ``cli.common.load``: each name the prose gives is a module or in one."""
    rooms = "|".join(r for r in importgraph.ROOMS if r != "top")
    named = set(re.findall(rf"``((?:{rooms})\.[A-Za-z_][\w.]*)``", PAGE.read_text("utf-8")))
    assert named, "the page names no module: the pattern is wrong"
    missing = []
    for dotted in sorted(named):
        parts = f"{NAME}.{dotted}".split(".")
        for cut in range(len(parts), 1, -1):
            module = ".".join(parts[:cut])
            if module in MODULES:
                rest = parts[cut:]
                if rest and not _defines(MODULES[module], rest[0]):
                    missing.append(dotted)
                break
        else:
            missing.append(dotted)
    assert missing == []


def test_no_test_module_imports_another() -> None:
    """Shared scaffolding lives in conftest.py or tests/helpers.py; a test module holds tests only."""
    tests = REPO / "tests"
    modules = {p.stem for p in tests.glob("test_*.py")}
    borrowed = [
        f"{path.name}:{line} imports {module}"
        for path in sorted(tests.glob("*.py"))
        for module, _name, line in imports(path, REPO)
        if module.split(".")[0] in modules
    ]
    assert borrowed == []
