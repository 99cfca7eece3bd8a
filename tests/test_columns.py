"""A column is one object: added in one place, it reaches every front end, and sorts.

The test adds a column to ``core.columns.COLUMNS`` (and nowhere else) and finds its
text, link and title in the table, ``rlresources render`` (reST and Markdown), the
JSON export and the chart, and its order under ``:sort:``.  The computed ``estimate``
column sorts by the data set's estimates, rows without one last in both directions.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pytest
from sphinx.cmd.build import build_main

from sphinx_rlresources.cli.main import main as rlresources
from sphinx_rlresources.core import columns as cols
from sphinx_rlresources.core.loader import load_dataset
from sphinx_rlresources.core.model import Entry
from sphinx_rlresources.core.query import select

READERS = Path(__file__).parent / "roots" / "test-readers"


def _hours(entry: Entry, _context: cols.CellContext) -> int | None:
    """A made-up computed value, missing for single-GPU rows so that "missing goes last" is exercised."""
    return None if entry.gpus == 1 else entry.gpus * 3


HOURS = cols.Column(
    "gpuhours",
    "GPU hours",
    lambda e, c: "" if _hours(e, c) is None else f"{_hours(e, c)} h",
    _hours,
    url=lambda e, _: f"https://example.org/hours/{e.gpus}",
    title=lambda e, _: f"{e.gpus} GPUs for 3 hours",
    hover=cols.Hover(50, "{} of GPU time"),
)


@pytest.fixture
def hours(monkeypatch: pytest.MonkeyPatch) -> cols.Column:
    monkeypatch.setitem(cols.COLUMNS, HOURS.key, HOURS)
    return HOURS


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(READERS / "data", root / "data")
    shutil.copytree(READERS / "examples", root / "examples")
    return root


@pytest.mark.usefixtures("hours")
def test_the_query_sorts_by_an_added_column_with_missing_values_last(repo: Path) -> None:
    dataset = load_dataset(repo / "data", repo)
    for spec, expected in [("gpuhours", [2, 8, 1]), ("-gpuhours", [8, 2, 1])]:
        chosen = select(dataset, "7b", columns="model, gpuhours", sort=spec)
        assert chosen.problems == []
        assert chosen.columns == ["model", "gpuhours"]
        assert [e.gpus for e in chosen.entries] == expected, spec


def test_estimate_sorts_by_the_estimate_with_rows_without_one_last(repo: Path) -> None:
    dataset = load_dataset(repo / "data", repo)
    no_estimate = dataset.sizes["7b"].entries[0]
    del dataset.estimates[no_estimate.source]

    def order(spec: str) -> list[float | None]:
        found = [dataset.estimates.get(e.source) for e in select(dataset, "all", sort=spec).entries]
        return [None if f is None else f.floor_gib for f in found]

    ascending, descending = order("estimate"), order("-estimate")
    assert ascending[-1] is None and descending[-1] is None
    known = [value for value in ascending if value is not None]
    assert known == sorted(known) and len(known) == len(dataset.entries) - 1
    assert descending[:-1] == sorted(known, reverse=True)
    assert known != sorted(known, reverse=True)  # the two orders differ: the data has distinct estimates


@pytest.mark.usefixtures("hours")
def test_an_added_column_reaches_the_table_the_json_and_the_chart(repo: Path, tmp_path: Path) -> None:
    (repo / "conf.py").write_text(
        'extensions = ["sphinx_rlresources"]\nrlresources_data_dir = "data"\nrlresources_root = "."\n', "utf-8"
    )
    (repo / "index.rst").write_text(
        "Sizes\n=====\n\n"
        ".. rl-resource-table:: 7b\n   :columns: model, gpuhours\n   :sort: -gpuhours\n\n"
        ".. rl-resource-table:: all\n   :columns: model, estimate\n   :sort: -estimate\n\n"
        ".. rl-resource-chart::\n",
        "utf-8",
    )
    out = tmp_path / "html"
    assert build_main(["-q", "-N", "-E", str(repo), str(out)]) == 0
    page = (out / "index.html").read_text("utf-8")

    cells = re.findall(r'<td [^>]*class="rl-col-gpuhours"[^>]*>(.*?)</td>', page, re.S)
    assert len(cells) == 3
    assert 'href="https://example.org/hours/8"' in cells[0] and 'title="8 GPUs for 3 hours"' in cells[0]
    assert ">24 h<" in cells[0] and ">6 h<" in cells[1]
    assert "<a" not in cells[2] and "h<" not in cells[2]  # no hours for one GPU: last, empty, not linked
    estimates = [
        html.unescape(c) for c in re.findall(r'<td [^>]*class="rl-col-estimate"[^>]*>.*?<p>(.*?)</p>', page, re.S)
    ]
    floors = [re.match(r"floor ([\d.]+), expected [\d.]+ GiB/GPU", re.sub("<[^>]+>", "", t)) for t in estimates]
    values = [float(m.group(1)) for m in floors if m]
    assert len(values) == 6 and values == sorted(values, reverse=True)

    assert "24 h of GPU time</title>" in page  # the chart's hover text, from the same cells

    data = json.loads((out / "_static" / "rlresources" / "data.json").read_text("utf-8"))
    by_gpus = {row["gpus"]: row for row in data["rows"] if row["size"] == "7B"}
    assert by_gpus[8]["cells"]["gpuhours"] == "24 h"
    assert "gpuhours" not in by_gpus[1]["cells"]  # an empty cell is left out
    assert by_gpus[8]["links"]["gpuhours"] == {"url": "https://example.org/hours/8", "title": "8 GPUs for 3 hours"}


@pytest.mark.usefixtures("hours")
def test_an_added_column_reaches_render(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(repo)
    base = ["render", "7b", "--data", "data", "--root", ".", "--columns", "tag, gpuhours"]
    assert rlresources([*base, "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out
    assert markdown.splitlines()[0] == "| Tag | GPU hours |"
    assert '| [24 h](https://example.org/hours/8 "8 GPUs for 3 hours") |' in markdown
    assert rlresources(base) == 0
    rst = capsys.readouterr().out
    assert "- `24 h <https://example.org/hours/8>`__" in rst
    assert "- GPU hours" in rst
