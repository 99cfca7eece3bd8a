"""Filters, chart, coverage and the JSON file: doctrees, every builder, escaping, determinism."""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from conftest import TESTS, warning_lines
from docutils import nodes
from helpers import built
from sphinx import addnodes

from sphinx_rlresources.core import coverage
from sphinx_rlresources.core.loader import LoadOptions, load_dataset
from sphinx_rlresources.core.model import Contributor, Entry, SourceRef
from sphinx_rlresources.sphinxext import export
from sphinx_rlresources.sphinxext import svgchart as chart
from sphinx_rlresources.sphinxext.filtering import filter_flag, rlresources_filter, rlresources_row
from sphinx_rlresources.sphinxext.nodes import rlresources_chart, rlresources_mark

READERS = TESTS / "roots" / "test-readers"


class Tags(HTMLParser):
    """Every start tag of a page, as (name, attributes)."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def start_tags(path: Path) -> list[tuple[str, dict[str, str | None]]]:
    parser = Tags()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.tags


def row_data(path: Path) -> list[dict[str, str | None]]:
    return [
        {k[len("data-rl-") :]: v for k, v in attrs.items() if k.startswith("data-rl-")}
        for tag, attrs in start_tags(path)
        if tag == "tr" and "data-rl-gpus" in attrs
    ]


def assets(path: Path) -> set[str]:
    found = set()
    for tag, attrs in start_tags(path):
        ref = attrs.get("src") if tag == "script" else attrs.get("href") if tag == "link" else None
        if ref and ("rlresources-filter" in ref or "rlresources-readers" in ref):
            found.add(ref.split("/")[-1].split("?")[0])
    return found


def body_rows(table: nodes.table) -> list[list[str]]:
    tbody = next(table.findall(nodes.tbody))
    return [[entry.astext() for entry in row.findall(nodes.entry)] for row in tbody.children]


def entry(**values: Any) -> Entry:
    base: dict[str, Any] = {
        "size": "7B", "tag": "MIN", "model": "Qwen2-7B", "task": "GRPO", "gpus": 2, "device": "H800",
        "max_batch": None, "train": "fsdp", "infer": "vllm", "infer_version": "0.8.2",
        "script": "examples/tuning/7b/qwen2-7b_grpo_2_h800_fsdp_vllm.sh",
        "contributor": Contributor("Xiangyongan"), "source": SourceRef("data/7b.yaml", 4, 5),
    }  # fmt: skip
    base.update(values)
    return Entry(**base)


ALL_ROWS = [
    {"size": "7B", "tag": "MIN", "task": "GRPO", "gpus": "2", "device": "H800", "train": "fsdp", "infer": "vllm"},
    {"size": "7B", "tag": "MIN", "task": "GRPO-LoRA", "gpus": "1", "device": "H100", "train": "fsdp", "infer": "vllm"},
    {"size": "7B", "tag": "RECOMMENDED", "task": "GRPO", "gpus": "8", "device": "H100", "train": "fsdp",
     "infer": "sglang"},
    {"size": "70B", "tag": "MIN", "task": "GRPO", "gpus": "32", "device": "H20", "train": "fsdp", "infer": "vllm"},
    {"size": "70B", "tag": "MIN", "task": "GRPO", "gpus": "32", "device": "H800", "train": "fsdp", "infer": "vllm"},
    {"size": "70B", "tag": "MIN", "task": "GRPO-LoRA", "gpus": "8", "device": "H100", "train": "fsdp",
     "infer": "vllm"},
]  # fmt: skip


# -- filters -------------------------------------------------------------------------------


@pytest.mark.sphinx("html", testroot="readers")
def test_filter_rows_carry_their_values_and_assets_go_only_where_used(app: Any) -> None:
    app.build()
    assert warning_lines(app) == []
    out = Path(app.outdir)
    # Without JavaScript every row is there and none is hidden.
    rows_seen = row_data(out / "filter.html")
    assert [{k: v for k, v in row.items() if k != "size-order"} for row in rows_seen] == ALL_ROWS
    # the size's place by parameter count, which the script sorts the Size choices by
    assert [row["size-order"] for row in rows_seen] == ["0:7e+09"] * 3 + ["0:7e+10"] * 3
    assert not any("hidden" in attrs for tag, attrs in start_tags(out / "filter.html") if tag == "tr")
    wrapper = [attrs for tag, attrs in start_tags(out / "filter.html") if "data-rl-strings" in attrs]
    assert len(wrapper) == 1
    assert wrapper[0]["class"] == "rlresources-filter"
    strings = json.loads(wrapper[0]["data-rl-strings"] or "")
    assert strings["status"] == "{shown} of {total} configurations match."
    assert strings["gpus"] == "Max. GPUs"
    # The script and stylesheet are shipped, and linked from the pages that need them only.
    assert (out / "_static" / "rlresources-filter.js").is_file()
    assert (out / "_static" / "rlresources-readers.css").is_file()
    assert assets(out / "filter.html") == {"rlresources-filter.js", "rlresources-readers.css"}
    assert assets(out / "chart.html") == {"rlresources-readers.css"}
    assert assets(out / "coverage.html") == {"rlresources-readers.css"}
    assert assets(out / "plain.html") == set()
    assert assets(out / "nofilter.html") == set()
    assert row_data(out / "plain.html") == []
    # The doctree: the table, untouched but for its rows, inside the filter node.
    doctree = app.env.get_doctree("filter")
    (wrapper_node,) = doctree.findall(rlresources_filter)
    (table,) = wrapper_node.findall(nodes.table)
    assert "rlresources-table" in table["classes"]
    rows = list(next(table.findall(nodes.tbody)).children)
    assert all(type(row) is rlresources_row for row in rows)
    assert [row["rl_data"]["gpus"] for row in rows] == ["2", "1", "8", "32", "32", "8"]
    assert not list(app.env.get_doctree("plain").findall(rlresources_filter))
    assert not list(app.env.get_doctree("nofilter").findall(rlresources_filter))


@pytest.mark.sphinx("html", testroot="readers", confoverrides={"rlresources_filter": True})
def test_config_default_turns_filters_on_and_the_option_turns_them_off(app: Any) -> None:
    app.build()
    assert warning_lines(app) == []
    out = Path(app.outdir)
    assert [r["size"] for r in row_data(out / "plain.html")] == ["7B", "7B", "7B"]
    assert assets(out / "plain.html") == {"rlresources-filter.js", "rlresources-readers.css"}
    assert row_data(out / "nofilter.html") == []  # :filter: no


def test_filter_flag_values() -> None:
    assert filter_flag(None) is True
    assert filter_flag("") is True
    assert filter_flag(" Yes ") is True
    assert filter_flag("no") is False
    assert filter_flag("off") is False
    with pytest.raises(ValueError, match=r'"maybe" is not one of: \(empty\), yes, no'):
        filter_flag("maybe")


@pytest.mark.sphinx("html", testroot="readers-bad")
def test_bad_options_are_reported_at_the_directive(app: Any) -> None:
    app.build()
    lines = warning_lines(app)
    assert lines[:2] == [
        '<srcdir>/index.rst:4: ERROR: Error in "rl-resource-table" directive:',
        "invalid option value: (option: \"filter\"; value: 'maybe')",
    ]
    assert [line for line in lines if "rlresources." in line] == [
        "<srcdir>/index.rst:7: WARNING: :sizes: names '9b', which has no data file; the known sizes are: 7B "
        "[rlresources.option]",
        "<srcdir>/index.rst:7: WARNING: :tasks: names 'PPO', which no row has; the valid values are: GRPO, "
        "GRPO-LoRA [rlresources.option]",
        "<srcdir>/index.rst:11: WARNING: :tasks: names 'DAPO', which no row has; the valid values are: GRPO, "
        "GRPO-LoRA [rlresources.option]",
    ]
    doctree = app.env.get_doctree("index")
    # the chart keeps what is valid: size 7B, but task PPO matches nothing
    empty = [p.astext() for p in doctree.findall(nodes.paragraph) if "rlresources-empty" in p["classes"]]
    assert empty == ["No verified configuration for any size matches this selection."]
    # the coverage keeps the valid task
    (table,) = [t for t in doctree.findall(nodes.table) if "rlresources-coverage" in t["classes"]]
    assert body_rows(table) == [["7B", "GRPO", "✓", "✓"]]


# -- chart ---------------------------------------------------------------------------------


@pytest.mark.sphinx("html", testroot="readers")
def test_chart_is_inline_svg_with_one_mark_per_row(app: Any) -> None:
    app.build()
    html = (Path(app.outdir) / "chart.html").read_text(encoding="utf-8")
    tags = start_tags(Path(app.outdir) / "chart.html")
    figure = [attrs for tag, attrs in tags if tag == "figure"]
    assert figure == [{"class": "rlresources-chart", "id": "landscape"}]
    marks = [attrs["class"] for tag, attrs in tags if tag == "g" and "rl-mark" in (attrs.get("class") or "")]
    # in size order, then by GPUs: 7B GRPO 2 (MIN) and 8 (RECOMMENDED), 70B GRPO 32 twice; then GRPO-LoRA;
    # once in the wide chart and once in the tall one that narrow screens show instead
    one_chart = ["rl-mark rl-min", "rl-mark rl-recommended", "rl-mark rl-min", "rl-mark rl-min"] + [
        "rl-mark rl-min"
    ] * 2
    assert marks == one_chart * 2
    panels = [attrs["data-task"] for tag, attrs in tags if tag == "g" and "data-task" in attrs]
    assert panels == ["GRPO", "GRPO-LoRA"] * 2
    assert [
        attrs["class"] for tag, attrs in tags if tag == "div" and "rlresources-chart-plot" in (attrs.get("class") or "")
    ] == [
        "rlresources-chart-plot rlresources-chart-wide",
        "rlresources-chart-plot rlresources-chart-tall",
    ]
    title = "<title>70B · MIN · Qwen2-70B · GRPO · 32*H20 · fsdp · vllm0.8.2 · qwen2-70b_grpo_32_h20_fsdp_vllm.sh"
    assert title in html
    assert "<title>7B · RECOMMENDED · Qwen2.5-7B · GRPO · 8*H100 · fsdp · sglang0.4.6 · max batch 256" in html
    # the size axis keeps 405B, which has no row, so the gap shows
    assert ">405B</text>" in html
    # the compact table is offered under the chart
    doctree = app.env.get_doctree("chart")
    (node,) = doctree.findall(rlresources_chart)
    (table,) = node.findall(nodes.table)
    assert body_rows(table) == [
        ["7B", "GRPO", "2 (H800)", "8 (H100)"],
        ["7B", "GRPO-LoRA", "1 (H100)", "—"],
        ["70B", "GRPO", "32 (H20, H800)", "—"],
        ["70B", "GRPO-LoRA", "8 (H100)", "—"],
    ]
    assert "<summary>The chart as a table</summary>" in html
    # a page without estimate blocks draws the very bytes it drew before estimates were charted
    svgs = [hashlib.sha256(svg.encode()).hexdigest() for svg in re.findall(r"<svg xmlns.*?</svg>", html, re.S)]
    assert svgs == [
        "8a844c802ba42d79534a9ff367fbffc32de1e8290af6e7fc29e96197bff909ca",
        "18bc6db1c24fe7873b171f4cb4969786883ac24753768ef51e2a233a5efbe752",
    ]


def test_chart_axis_is_logarithmic_and_overlapping_marks_spread() -> None:
    rows = [entry(gpus=1), entry(gpus=4, device="H100"), entry(gpus=4, device="H20"), entry(gpus=32, size="70B")]
    svg = chart.render_svg(["7B", "70B"], rows)
    assert chart.doublings(rows) == 5
    assert chart.doublings([entry(gpus=1)]) == 3  # at least up to 8
    bottom = chart.TOP + chart.PANEL_GAP + 5 * chart.STEP
    x7 = chart.LEFT + chart.SLOT / 2
    assert f'cx="{x7:g}" cy="{bottom}"' in svg  # 1 GPU on the base line
    y4 = bottom - 2 * chart.STEP
    half = chart.SPREAD / 2
    assert f'cx="{x7 - half:g}" cy="{y4}"' in svg  # two rows at 4 GPUs, side by side
    assert f'cx="{x7 + half:g}" cy="{y4}"' in svg
    assert f'cx="{x7 + chart.SLOT:g}" cy="{bottom - 5 * chart.STEP}"' in svg  # 32 = 2**5
    assert [f">{2**p}</text>" in svg for p in range(6)] == [True] * 6
    assert ">64</text>" not in svg
    # the dashed line joins the fewest GPUs of each size
    assert f'points="{x7:g},{bottom} {x7 + chart.SLOT:g},{bottom - 5 * chart.STEP}"' in svg


def test_the_tall_chart_lists_sizes_down_the_side_and_gpus_across() -> None:
    rows = [entry(gpus=1), entry(gpus=4, device="H100"), entry(gpus=4, device="H20"), entry(gpus=32, size="70B")]
    svg = chart.render_tall_svg(["7B", "70B", "405B"], rows)
    width = int(re.search(r'width="(\d+)"', svg).group(1))
    assert width <= chart.TALL_WIDTH  # a phone's column holds it at full size
    left = 22 + math.ceil(chart.CHAR * 4) + 8
    step = max(chart.TALL_STEP[0], min(chart.TALL_STEP[1], (chart.TALL_WIDTH - left - chart.RIGHT) // 5))
    plot_top = chart.TOP + chart.PANEL_GAP + chart.TICKS
    row = [plot_top + chart.ROW * index + chart.ROW / 2 for index in range(3)]
    # every size has its own line, 405B too (no row: the gap shows)
    assert re.findall(r'class="rl-size"[^>]*>([^<]+)</text>', svg) == ["7B", "70B", "405B"]
    assert f'cx="{left:g}" cy="{row[0]:g}"' in svg  # 1 GPU on the first line
    half = chart.SPREAD / 2
    assert f'cx="{left + 2 * step:g}" cy="{row[0] - half:g}"' in svg  # two rows at 4 GPUs, one under the other
    assert f'cx="{left + 2 * step:g}" cy="{row[0] + half:g}"' in svg
    assert f'cx="{left + 5 * step:g}" cy="{row[1]:g}"' in svg  # 32 = 2**5
    assert f'points="{left:g},{row[0]:g} {left + 5 * step:g},{row[1]:g}"' in svg


@pytest.mark.parametrize("draw", [chart.render_svg, chart.render_tall_svg])
def test_chart_escapes_every_text_from_the_data(draw: Any) -> None:
    hostile = entry(model='Q"><script>alert(1)</script>&', size='7B"<x>')
    svg = draw(['7B"<x>'], [hostile])
    assert "<script>" not in svg
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&amp;" in svg
    assert "7B&quot;&lt;x&gt;" in svg
    assert chart.clean("a\x00b\x1fc\td") == "abc\td"


@pytest.mark.parametrize("draw", [chart.render_svg, chart.render_tall_svg])
def test_chart_is_deterministic(draw: Any) -> None:
    dataset = load_dataset(READERS / "data", READERS, LoadOptions())
    sizes = [s.label for s in dataset.sizes.values()]
    first = draw(sizes, dataset.entries)
    assert first == draw(sizes, list(dataset.entries))
    assert first.startswith('<svg xmlns="http://www.w3.org/2000/svg"') and first.endswith("</svg>")


# -- coverage ------------------------------------------------------------------------------


@pytest.mark.sphinx("html", testroot="readers", confoverrides={"rlresources_contributing": "plain"})
def test_coverage_table_and_the_sentence_that_asks_for_rows(app: Any) -> None:
    app.build()
    assert warning_lines(app) == []
    doctree = app.env.get_doctree("coverage")
    (table,) = doctree.findall(nodes.table)
    head = [e.astext() for e in next(table.findall(nodes.thead)).findall(nodes.entry)]
    assert head == ["Size", "Task", "MIN", "RECOMMENDED"]
    assert body_rows(table) == [
        ["7B", "GRPO", "✓", "✓"],
        ["7B", "GRPO-LoRA", "✓", "—"],
        ["70B", "GRPO", "✓", "—"],
        ["70B", "GRPO-LoRA", "✓", "—"],
        ["405B", "GRPO", "—", "—"],
        ["405B", "GRPO-LoRA", "—", "—"],
    ]
    labels = [m["label"] for m in doctree.findall(rlresources_mark)]
    assert labels[:2] == ["7B GRPO: MIN verified", "7B GRPO: RECOMMENDED verified"]
    assert labels[3] == "7B GRPO-LoRA: no RECOMMENDED yet"
    (para,) = [p for p in doctree.findall(nodes.paragraph) if "rlresources-wanted" in p["classes"]]
    assert para.astext() == (
        "7 of the 12 combinations of size, task and tag have no configuration yet. Most wanted: a MIN "
        "configuration for 405B, and a RECOMMENDED configuration for 70B and 405B. Contribute one."
    )
    html = (Path(app.outdir) / "coverage.html").read_text(encoding="utf-8")
    assert (
        '<span class="rlresources-mark rlresources-missing" role="img" aria-label="405B GRPO: no MIN yet" '
        'title="405B GRPO: no MIN yet">—</span>'
    ) in html
    assert 'href="plain.html"' in html  # the contributing link
    empty = app.env.get_doctree("empty")
    (para,) = [p for p in empty.findall(nodes.paragraph) if "rlresources-wanted" in p["classes"]]
    assert para.astext().startswith(
        "2 of the 4 combinations of size, task and tag have no configuration yet. Most wanted: a RECOMMENDED "
        "configuration for any size (none has one yet)."
    )
    (xref,) = para.findall(addnodes.pending_xref)  # the sentence asks for rows with a link to the docs page
    assert (xref["reftype"], xref["reftarget"], xref.astext()) == ("doc", "plain", "Contribute one")
    assert 'href="plain.html"' in (Path(app.outdir) / "empty.html").read_text(encoding="utf-8")  # and it resolves


def test_coverage_counts() -> None:
    rows = [entry(), entry(task="grpo", tag="RECOMMENDED"), entry(size="70B", task="PPO")]
    found = coverage.coverage(["7B", "70B", "405B"], rows)
    assert found.tasks == ("GRPO", "PPO")
    assert found.count("7b", "GRPO", "MIN") == 1
    assert found.count("7B", "GRPO", "RECOMMENDED") == 1
    assert found.missing("MIN") == ["405B"]
    assert found.missing("RECOMMENDED") == ["70B", "405B"]
    assert found.gaps() == 12 - 3
    assert coverage.coverage(["7B"], rows, ["PPO"]).gaps() == 2


# -- every builder -------------------------------------------------------------------------


@pytest.mark.parametrize("builder", ["text", "latex", "man", "texinfo", "epub", "singlehtml", "dirhtml"])
def test_other_builders_draw_tables_and_ignore_the_controls(make_app: Any, tmp_path: Path, builder: str) -> None:
    srcdir = tmp_path / "src"
    shutil.copytree(READERS, srcdir)
    app = built(make_app, srcdir, builder, confoverrides={"project": "Readers", "copyright": "2026", "version": "1"})
    assert warning_lines(app) == []
    out = Path(app.outdir)
    if builder == "text":
        filtered = (out / "filter.txt").read_text(encoding="utf-8")
        assert filtered.count("32*H800") == 1 and filtered.count("8*H100") == 2
        assert "Max. GPUs" not in filtered and "rl-" not in filtered
        charted = (out / "chart.txt").read_text(encoding="utf-8")
        assert "32 (H20, H800)" in charted and "<svg" not in charted
        assert "✓" in (out / "coverage.txt").read_text(encoding="utf-8")
    if builder == "latex":
        (tex,) = out.glob("*.tex")
        text = tex.read_text(encoding="utf-8")
        assert "✓" not in text and "<svg" not in text and "rlresources-filter" not in text
        assert "32 (H20, H800)" in text
        assert "yes" in text and "qwen2.5\\sphinxhyphen{}72b" in text.replace("{-}", "\\sphinxhyphen{}")
    if builder in ("epub", "singlehtml", "dirhtml"):
        pages = "\n".join(p.read_text(encoding="utf-8") for p in out.rglob("*.*html"))
        assert 'data-rl-gpus="32"' in pages and "<svg" in pages
        assert (out / "_static" / "rlresources-filter.js").is_file()
    json_file = out / export.OUTPUT_PATH
    assert json_file.is_file() == (builder in ("singlehtml", "dirhtml"))


# -- the JSON file -------------------------------------------------------------------------


@pytest.mark.sphinx(
    "html", testroot="readers", confoverrides={"rlresources_script_url": "https://example.org/{ref}/{path}"}
)
def test_json_file_holds_every_validated_row(app: Any) -> None:
    app.build()
    data = json.loads((Path(app.outdir) / "_static" / "rlresources" / "data.json").read_text(encoding="utf-8"))
    assert data["schema_version"] == 1
    assert data["generator"] == "sphinx-rlresources"
    assert data["sizes"] == [
        {"size": "7B", "source": "data/7b.yaml", "readable": True, "rows": 3},
        {"size": "70B", "source": "data/70b.yaml", "readable": True, "rows": 3},
        {"size": "405B", "source": "data/405b.yaml", "readable": True, "rows": 0},
    ]
    assert len(data["rows"]) == 6
    assert data["rows"][1] == {
        "size": "7B", "tag": "MIN", "model": "Qwen2.5-7B", "task": "GRPO-LoRA", "gpus": 1, "device": "H100",
        "max_batch": 16, "train": "fsdp", "infer": "vllm", "infer_version": "0.8.3",
        "script": "examples/tuning/7b/qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh", "script_ref": None,
        "script_url": "https://example.org/main/examples/tuning/7b/qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh",
        "contributor": {"name": "SimonHuang", "github": None, "url": None, "email": None},
        "model_id": None, "tested": None, "evidence": None, "notes": None,
        "seq_len": None, "global_batch": None, "parallelism": None, "throughput": None, "step_time": None,
        "peak_memory": None, "description": None,
        "source": {"path": "data/7b.yaml", "line": 15},
        # every column's cell as the table shows it, and the linked ones' targets
        "cells": {
            "size": "7B", "tag": "MIN", "model": "Qwen2.5-7B", "task": "GRPO-LoRA", "resource": "1*H100",
            "maxbatch": "16", "train": "fsdp", "infer": "vllm0.8.3", "link": "qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh",
            "contributor": "SimonHuang",  # empty cells are left out
            "estimate": "floor 43, expected 70 GiB/GPU (trainer 35, engine 40)",
        },
        "links": {
            "link": {
                "url": "https://example.org/main/examples/tuning/7b/qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh",
                "title": None,
            },
        },
        "runs": {},
    }  # fmt: skip
    assert [(r["size"], r["gpus"], r["device"]) for r in data["rows"]] == [
        (r["size"], int(str(r["gpus"])), r["device"]) for r in ALL_ROWS
    ]


def test_json_leaves_out_unreadable_sizes(tmp_path: Path) -> None:
    shutil.copytree(READERS / "data", tmp_path / "data")
    (tmp_path / "data" / "70b.yaml").write_text("size: 70B\nentries: [{tag: MIN}]\n", encoding="utf-8")
    dataset = load_dataset(tmp_path / "data", READERS, LoadOptions())
    data = export.dataset_object(dataset)
    assert [(s["size"], s["readable"], s["rows"]) for s in data["sizes"]] == [
        ("7B", True, 3), ("70B", False, 0), ("405B", True, 0)
    ]  # fmt: skip
    assert {r["size"] for r in data["rows"]} == {"7B"}
    assert data["sizes"][1]["source"] == "70b.yaml"  # outside the root: the name only


def test_two_builds_are_byte_identical(tmp_path: Path) -> None:
    """Separate processes with different hash seeds, so set and dict order cannot leak in."""
    outputs = []
    for seed in ("1", "2"):
        out = tmp_path / f"out{seed}"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        command = [sys.executable, "-m", "sphinx", "-q", "-E", "-b", "html", "-d", str(tmp_path / f"d{seed}")]
        subprocess.run(
            [*command, str(READERS), str(out)],
            check=True,
            env=env,
        )
        outputs.append(out)
    for name in ("filter.html", "chart.html", "coverage.html", export.OUTPUT_PATH):
        assert (outputs[0] / name).read_bytes() == (outputs[1] / name).read_bytes(), name


def test_unreadable_size_is_reported_and_left_out(make_app: Any, tmp_path: Path) -> None:
    srcdir = tmp_path / "src"
    shutil.copytree(READERS, srcdir)
    (srcdir / "data" / "70b.yaml").write_text("size: 70B\nentries: [{tag: MIN}]\n", encoding="utf-8")
    for page in srcdir.glob("*.rst"):
        page.unlink()
    (srcdir / "index.rst").write_text(
        "Index\n=====\n\n.. rl-resource-chart::\n\n.. rl-resource-coverage::\n", encoding="utf-8"
    )
    app = built(make_app, srcdir)
    unreadable = [line for line in warning_lines(app) if "data_unreadable" in line]
    assert unreadable == [
        "<srcdir>/index.rst:4: WARNING: the data for size '70B' could not be read (<srcdir>/data/70b.yaml); "
        "rl-resource-chart leaves its rows out: fix the problems reported for that file [rlresources.data_unreadable]",
        "<srcdir>/index.rst:6: WARNING: the data for size '70B' could not be read (<srcdir>/data/70b.yaml); "
        "rl-resource-coverage leaves its rows out: fix the problems reported for that file "
        "[rlresources.data_unreadable]",
    ]
    doctree = app.env.get_doctree("index")
    (chart_node,) = doctree.findall(rlresources_chart)
    assert "70B ·" not in chart_node["svg"] and "7B · MIN" in chart_node["svg"]
    coverage_table = next(t for t in doctree.findall(nodes.table) if "rlresources-coverage" in t["classes"])
    assert ["70B", "GRPO", "?", "?"] in body_rows(coverage_table)


def test_row_attributes_are_escaped() -> None:
    from sphinx_rlresources.sphinxext.filtering import _attributes

    assert _attributes({"device": 'H"><script>', "gpus": "8"}) == (
        ' data-rl-device="H&quot;&gt;&lt;script&gt;" data-rl-gpus="8"'
    )


def test_many_marks_at_one_point_stay_within_their_size() -> None:
    rows = [entry(device=f"D{i}") for i in range(40)]
    svg = chart.render_svg(["7B", "70B"], rows)
    xs = [float(x) for x in re.findall(r'<circle cx="([\d.]+)"', svg)[1:]]  # the first is the legend's
    assert len(xs) == 40
    assert min(xs) >= chart.LEFT + 8 - 0.05 and max(xs) <= chart.LEFT + chart.SLOT - 8 + 0.05
