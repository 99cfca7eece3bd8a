"""The project's own site: the seed page rebuilt from data/, built warning-free."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from conftest import REPO
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import docutils_namespace

SIZES = ["0.5B", "1.5B", "3B", "7B", "14B", "32B", "70B", "405B", "671B"]
ROWS = {"0.5B": 1, "1.5B": 1, "3B": 1, "7B": 2, "14B": 2, "32B": 2, "70B": 3, "405B": 0, "671B": 0}


@pytest.fixture(scope="module")
def docs_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Sphinx, str]:
    out = tmp_path_factory.mktemp("docs")
    warnings = io.StringIO()
    # docutils_namespace: the directives and roles this build registers must not stay
    # registered for the in-process builds of later tests.
    with docutils_namespace():
        app = Sphinx(
            srcdir=str(REPO / "docs"),
            confdir=str(REPO / "docs"),
            outdir=str(out / "html"),
            doctreedir=str(out / "doctrees"),
            buildername="html",
            status=None,
            warning=warnings,
            freshenv=True,
            confoverrides={"nitpicky": True},
        )
        app.build()
    return app, warnings.getvalue()


def test_docs_build_without_warnings(docs_build: tuple[Sphinx, str]) -> None:
    _app, warnings = docs_build
    assert warnings == ""


def test_seed_page_has_nine_sizes_and_twelve_rows(docs_build: tuple[Sphinx, str]) -> None:
    app, _ = docs_build
    doctree = app.env.get_doctree("hardware")
    found = {}
    for section in doctree.findall(nodes.section):
        title = section[0].astext()
        if title in SIZES:
            tables = [t for t in section.findall(nodes.table) if "rlresources-table" in t["classes"]]
            rows = sum(len(next(t.findall(nodes.tbody)).children) for t in tables)
            found[title] = rows
            if rows == 0:
                assert "No configuration has been verified for" in section.astext()
    assert found == ROWS
    assert sum(found.values()) == 12


def test_seed_page_links_point_at_files_in_the_build(docs_build: tuple[Sphinx, str]) -> None:
    app, _ = docs_build
    html = (Path(app.outdir) / "hardware.html").read_text("utf-8")
    targets = set(re.findall(r'href="(_downloads/[^"]+\.sh)"', html))
    assert len(targets) == 12
    for target in targets:
        assert (Path(app.outdir) / target).is_file()


def test_the_cli_page_shows_every_commands_help_as_the_command_prints_it(docs_build: tuple[Sphinx, str]) -> None:
    import os

    from sphinx_rlresources.cli import main as cli

    app, _ = docs_build
    blocks = {
        block.astext().split("\n", 1)[0]: block.astext().split("\n", 1)[1]
        for block in app.env.get_doctree("cli").findall(nodes.literal_block)
        if block.astext().startswith("$ rlresources") and block.astext().split("\n", 1)[0].endswith("--help")
    }
    parser = cli.build_parser()
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "82"
    try:
        wanted = {"$ rlresources --help": parser.format_help().rstrip()}
        for name, command in cli.command_parsers(parser).items():
            wanted[f"$ rlresources {name} --help"] = command.format_help().rstrip()
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before
    assert blocks == wanted


def test_a_new_command_appears_on_the_cli_page_by_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    from sphinx_rlresources.cli import main as cli

    monkeypatch.syspath_prepend(str(REPO / "docs" / "_ext"))
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))  # as docs/conf.py does
    import rlr_docs

    def with_later() -> argparse.ArgumentParser:
        parser = cli.build_parser()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                action.add_parser("later", help="a command added later", description="Later things.")
        return parser

    monkeypatch.setattr(rlr_docs, "build_parser", with_later)
    (tmp_path / "conf.py").write_text('extensions = ["rlr_docs"]\n', encoding="utf-8")
    (tmp_path / "index.rst").write_text(
        "CLI\n===\n\n.. rlr-cli-help:: lint\n\nOthers\n------\n\n.. rlr-cli-help:: *\n", encoding="utf-8"
    )
    warnings = io.StringIO()
    with docutils_namespace():
        app = Sphinx(str(tmp_path), str(tmp_path), str(tmp_path / "out"), str(tmp_path / "dt"), "text",
                     status=None, warning=warnings, freshenv=True)  # fmt: skip
        app.build()
    text = (tmp_path / "out" / "index.txt").read_text(encoding="utf-8")
    assert warnings.getvalue() == ""
    assert text.count("$ rlresources lint --help") == 1  # shown in its section, not again under the others
    assert "$ rlresources later --help" in text and "Later things." in text
    assert "$ rlresources render --help" in text


def test_the_architecture_page_draws_the_import_graph(docs_build: tuple[Sphinx, str]) -> None:
    """The arrows and the module lists are the graph tests/test_architecture.py checks, not a drawing."""
    import sys

    sys.path.insert(0, str(REPO / "docs" / "_ext"))
    import importgraph

    app, _ = docs_build
    doctree = app.env.get_doctree("architecture")
    blocks = [b.astext() for b in doctree.findall(nodes.literal_block)]
    arrows = importgraph.room_arrows(importgraph.edges())
    for room in importgraph.ROOMS:
        targets = ", ".join(to for start, to in arrows if start == room) or "(nothing else in the package)"
        assert any(re.search(rf"^{room} +-> {re.escape(targets)}$", b, re.M) for b in blocks), room
    shown = {n.astext() for n in doctree.findall(nodes.literal)}
    found = importgraph.modules()
    for module in found:
        if importgraph.room(module) != importgraph.TOP:
            assert (".".join(module.split(".")[2:]) or "__init__") in shown, module


def test_every_command_has_its_own_section_on_the_cli_page() -> None:
    """One place for each command's help: its section, generated from the parser (no hand-copied usage)."""
    from sphinx_rlresources.cli import main as cli

    page = (REPO / "docs" / "cli.rst").read_text(encoding="utf-8")
    shown = re.findall(r"^\.\. rlr-cli-help::(.*)$", page, re.M)
    names = sorted(cli.command_parsers(cli.build_parser()))
    assert sorted(name.strip() for name in shown if name.strip()) == names
    for name in names:
        section = page.split(f"``rlresources {name}``\n", 1)[1].split("\n\n", 2)[1]
        assert section == f".. rlr-cli-help:: {name}", name  # right under its title


def test_the_seed_chart_shows_the_estimate_blocks_counts_as_estimates(docs_build: tuple[Sphinx, str]) -> None:
    """405B and 671B, measured by nobody, get a hollow dashed mark per task at the count the
    size's estimate block prints (the least over its devices), and words that say "estimated"."""
    from sphinx_rlresources.sphinxext.nodes import rlresources_chart

    app, _ = docs_build
    doctree = app.env.get_doctree("hardware")
    printed: dict[tuple[str, str], int] = {}
    for section in doctree.findall(nodes.section):
        title = section[0].astext()
        for table in section.findall(nodes.table):
            if title in SIZES and "rlresources-estimate" in table["classes"]:
                for row in next(table.findall(nodes.tbody)).children:
                    task, _device, fewest = (cell.astext() for cell in row.children[:3])
                    key = (title, task)
                    printed[key] = min(int(fewest), printed.get(key, int(fewest)))
    assert set(printed) == {(s, t) for s in ("405B", "671B") for t in ("GRPO", "GRPO-LoRA")}
    (chart,) = doctree.findall(rlresources_chart)
    for svg in (chart["svg"], chart["svg_tall"]):
        marks = re.findall(r'<g class="rl-mark rl-estimated"><title>([^<]*)</title>', svg)
        found = {(m.split(", ")[0], m.split(", ")[1].split(":")[0]): int(m.split(": ")[1].split(" ")[0]) for m in marks}
        assert found == printed
        assert all(m.endswith("estimated, not measured") for m in marks)
        assert 'stroke-dasharray="2.5 2"/><text' in svg  # the legend's hollow dashed mark, with its words
        assert "Hollow dashed circles are estimates, not measurements" in svg  # the description says so too
    table = next(chart.findall(nodes.table))
    header = [cell.astext() for cell in next(table.findall(nodes.thead)).findall(nodes.entry)]
    assert header[-1] == "Estimated"
    rows = [[c.astext() for c in row.children] for row in next(table.findall(nodes.tbody)).children]
    estimated = {(r[0], r[1]): r for r in rows if r[4] != "—"}
    assert {k: int(r[4].split(" ")[0]) for k, r in estimated.items()} == printed
    assert all(r[2] == r[3] == "—" for r in estimated.values())  # nothing measured there: MIN stays empty


def test_the_frameworks_page_prints_every_settings_table(docs_build: tuple[Sphinx, str]) -> None:
    """Each adapter's table is drawn from the table the adapter reads: every setting, key and source is there."""
    from sphinx_rlresources.scripts.frameworks import SETTINGS_TABLES

    app, _ = docs_build
    doctree = app.env.get_doctree("frameworks")
    tables = list(doctree.findall(nodes.table))
    assert len(tables) == len(SETTINGS_TABLES)
    for table, drawn in zip(SETTINGS_TABLES.values(), tables, strict=True):
        text = drawn.astext().replace("<wbr>", "")  # the break hints of long names
        for name, setting in table.settings.items():
            assert name in text
            for key in (*setting.keys, *setting.old, setting.source):
                assert key in text, (table.framework, name, key)


def test_the_suggestions_are_drawn_beside_each_set_they_name(docs_build: tuple[Sphinx, str]) -> None:
    """The reference draws ``--suggest`` beside the tuning set and the fourth and fifth held-out sets, at the build."""
    import sys

    sys.path.insert(0, str(REPO / "benchmarks"))
    from suggest_validation import compared, summary

    app, _ = docs_build
    reference = " ".join(app.env.get_doctree("estimator-reference").astext().split())
    for name in ("memory_points.csv", "heldout_runs4.csv", "heldout_runs5.csv"):
        assert summary(compared(REPO / "benchmarks" / name)) in reference, name


def test_the_held_out_figures_are_drawn_from_their_set(docs_build: tuple[Sphinx, str]) -> None:
    """docs/estimator.rst quotes the held-out set's counts (benchmarks/heldout_runs5.csv), estimated at
    the build, not typed; the reference draws every run of the five held-out sets."""
    import sys

    sys.path.insert(0, str(REPO / "benchmarks"))
    from estimator_validation import checked, distribution

    rows = checked(REPO / "benchmarks" / "heldout_runs5.csv")
    spread = distribution(rows)
    ran = [c for c in rows if c.point.outcome == "ran"]
    app, _ = docs_build
    guide = " ".join(app.env.get_doctree("estimator").astext().split())
    said = f"{len(rows)} runs; of the {len(ran)} that ran, "
    assert said in guide
    assert f"median {spread['median']:.2f}, quartiles {spread['q1']:.2f} and {spread['q3']:.2f}" in guide
    reference = app.env.get_doctree("estimator-reference").astext()
    for name in (
        "heldout_runs.csv",
        "heldout_runs2.csv",
        "heldout_runs3.csv",
        "heldout_runs4.csv",
        "heldout_runs5.csv",
    ):
        assert all(c.point.id in reference for c in checked(REPO / "benchmarks" / name)), name
    for name in ("memory_points.csv", "measured_gpu.csv"):  # the guide's other figures are drawn too
        points = checked(REPO / "benchmarks" / name)
        that_ran = sum(c.point.outcome == "ran" for c in points)
        assert f"{len(points)} runs; of the {that_ran} that ran, " in guide
