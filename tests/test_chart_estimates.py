"""The chart's estimated marks: which size an estimate block stands in for, and nothing else."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from conftest import TESTS
from docutils import nodes
from helpers import built

from sphinx_rlresources.sphinxext.nodes import rlresources_chart

READERS = TESTS / "roots" / "test-readers"
ESTIMATE = ".. rl-resource-estimate::\n   :models: Llama-3.1-405B\n   :tasks: GRPO\n   :devices: H100, H200\n\n"
PAGES = {
    # the estimate stands in for the one-size table above it; the chart below shows its count
    "one": ".. rl-resource-table:: 405b\n\n" + ESTIMATE + ".. rl-resource-chart::\n",
    # a table of every size above it: the estimate stands in for no size
    "several": ".. rl-resource-table:: all\n\n" + ESTIMATE + ".. rl-resource-chart::\n",
    # below the chart: the chart has been drawn already
    "after": ".. rl-resource-table:: 405b\n\n.. rl-resource-chart::\n\n" + ESTIMATE,
    # another page's estimates do not leak into this one
    "other": ".. rl-resource-chart::\n",
}
MARK = re.compile(r'<g class="rl-mark rl-estimated"><title>([^<]*)</title>')


def test_an_estimate_is_charted_for_the_size_of_the_table_above_it(make_app: Any, tmp_path: Path) -> None:
    srcdir = tmp_path / "src"
    shutil.copytree(READERS, srcdir)
    for page in srcdir.glob("*.rst"):
        page.unlink()
    toctree = "\n".join(f"   {name}" for name in PAGES)
    (srcdir / "index.rst").write_text(f"Index\n=====\n\n.. toctree::\n\n{toctree}\n", encoding="utf-8")
    for name, body in PAGES.items():
        (srcdir / f"{name}.rst").write_text(f"{name.title()}\n{'=' * len(name)}\n\n{body}", encoding="utf-8")
    app = built(make_app, srcdir)
    marks = {}
    for name in PAGES:
        (chart,) = app.env.get_doctree(name).findall(rlresources_chart)
        marks[name] = MARK.findall(chart["svg"])
        assert MARK.findall(chart["svg_tall"]) == marks[name]
    assert marks["several"] == marks["after"] == marks["other"] == []
    # the count the estimate block printed, the least over its two devices
    doctree = app.env.get_doctree("one")
    (table,) = (t for t in doctree.findall(nodes.table) if "rlresources-estimate" in t["classes"])
    counts = {row.children[1].astext(): int(row.children[2].astext()) for row in next(table.findall(nodes.tbody))}
    fewest = min(counts.values())
    devices = ", ".join(d for d, n in counts.items() if n == fewest)
    assert marks["one"] == [f"405B, GRPO: {fewest} × {devices} (Llama-3.1-405B), estimated, not measured"]
    svg = (Path(app.outdir) / "other.html").read_text(encoding="utf-8")
    assert "estimated" not in svg.lower()  # no legend entry or description for estimates it does not draw
