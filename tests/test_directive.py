"""The rl-resource-table directive: structure, every option, links, and its warnings."""

from __future__ import annotations

import re
from typing import Any

import pytest
from conftest import unbroken, warning_lines
from docutils import nodes
from sphinx import addnodes


def tables(app: Any, docname: str) -> list[nodes.table]:
    return list(app.env.get_doctree(docname).findall(nodes.table))


def header(table: nodes.table) -> list[str]:
    return [entry.astext() for entry in next(table.findall(nodes.thead)).findall(nodes.entry)]


def body(table: nodes.table) -> list[list[str]]:
    tbody = next(table.findall(nodes.tbody))
    return [[entry.astext() for entry in row.findall(nodes.entry)] for row in tbody.children]


def section(app: Any, docname: str, title: str) -> nodes.section:
    for sec in app.env.get_doctree(docname).findall(nodes.section):
        if sec[0].astext() == title:
            return sec
    raise AssertionError(title)


@pytest.mark.sphinx("html", testroot="basic")
def test_table_is_a_list_table_doctree(app: Any) -> None:
    app.build()
    assert warning_lines(app) == []
    table = tables(app, "index")[0]
    # table/tgroup/colspec*/thead/tbody: what a list-table with :header-rows: 1 gives
    tgroup = table[0]
    assert isinstance(tgroup, nodes.tgroup)
    assert tgroup["cols"] == 9
    assert [type(child).__name__ for child in tgroup.children] == ["colspec"] * 9 + ["thead", "tbody"]
    assert "colwidths-auto" in table["classes"]
    assert header(table) == [
        "Tag", "Model", "Task", "Resource", "MaxBatch", "Train", "Infer", "Link", "Contributor"
    ]  # fmt: skip
    assert body(table) == [
        ["MIN", "Qwen2-70B", "GRPO", "32*H20", "not measured", "fsdp", "vllm0.8.2",
         "qwen2-70b_grpo_32_h20_fsdp_vllm.sh", "Xiangyongan"],
        ["MIN", "Qwen2-70B", "GRPO", "32*H800", "not measured", "fsdp", "vllm0.8.3",
         "qwen2-70b_grpo_32_h800_fsdp_vllm.sh", "Xiangyongan"],
        ["MIN", "Qwen2.5-72B", "GRPO-LoRA", "8*H100", "176", "fsdp", "vllm0.8.3",
         "qwen2.5-72b_grpo-lora_8_h100_fsdp_vllm.sh", "SimonHuang"],
    ]  # fmt: skip
    # every cell holds one paragraph, as list-table cells do
    for entry in table.findall(nodes.entry):
        assert len(entry.children) == 1
        assert isinstance(entry[0], nodes.paragraph)


@pytest.mark.sphinx("html", testroot="basic")
def test_empty_size_draws_a_sentence_not_a_table(app: Any) -> None:
    app.build()
    sec = section(app, "index", "405B")
    assert not list(sec.findall(nodes.table))
    assert sec[1].astext() == "No configuration has been verified for 405B yet. Contributions are welcome."
    assert "rlresources-empty" in sec[1]["classes"]


@pytest.mark.sphinx("html", testroot="basic")
def test_all_has_a_size_column_in_ascending_size_order(app: Any) -> None:
    app.build()
    table = next(iter(section(app, "index", "All").findall(nodes.table)))
    assert header(table)[0] == "Size"
    rows = body(table)
    assert len(rows) == 12
    # :sort: -resource puts the largest GPU counts first (then the device, descending too)
    assert [r[4] for r in rows[:3]] == ["32*H800", "32*H20", "8*H20"]
    assert [r[0] for r in rows[:3]] == ["70B", "70B", "32B"]


@pytest.mark.sphinx("html", testroot="basic")
def test_links_are_downloads_of_the_checked_script_without_a_template(app: Any) -> None:
    app.build()
    refs = list(app.env.get_doctree("index").findall(addnodes.download_reference))
    assert len(refs) == 3 + 12
    assert refs[0]["reftarget"] == "examples/tuning/70b/qwen2-70b_grpo_32_h20_fsdp_vllm.sh"
    html = unbroken((app.outdir / "index.html").read_text("utf-8"))
    assert "_downloads/" in html
    copied = sorted(p.name for p in (app.outdir / "_downloads").rglob("*.sh"))
    assert len(copied) == 12
    assert "qwen2.5-72b_grpo-lora_8_h100_fsdp_vllm.sh" in copied


@pytest.mark.sphinx(
    "html",
    testroot="basic",
    srcdir="basic-url-template",
    confoverrides={
        "rlresources_script_url": "https://github.com/org/repo/blob/{ref}/{path}",
        "rlresources_script_ref": "v1.2",
    },
)
def test_links_follow_the_url_template(app: Any) -> None:
    app.build()
    assert warning_lines(app) == []
    refs = [r for r in app.env.get_doctree("index").findall(nodes.reference) if r.get("refuri")]
    assert refs[0]["refuri"] == (
        "https://github.com/org/repo/blob/v1.2/examples/tuning/70b/qwen2-70b_grpo_32_h20_fsdp_vllm.sh"
    )
    assert refs[0].astext() == "qwen2-70b_grpo_32_h20_fsdp_vllm.sh"
    assert not (app.outdir / "_downloads").exists()


@pytest.mark.sphinx(
    "html",
    testroot="basic",
    srcdir="basic-bad-template",
    confoverrides={"rlresources_script_url": "javascript:x/{path}"},
)
def test_a_bad_url_template_is_refused_at_config_time(app: Any) -> None:
    app.build()
    assert warning_lines(app) == [
        "WARNING: rlresources_script_url = 'javascript:x/{path}' must start with https:// or http://; "
        "scripts are copied into the build instead [rlresources.config]"
    ]
    assert not [r for r in app.env.get_doctree("index").findall(nodes.reference) if "javascript" in r.get("refuri", "")]


@pytest.mark.sphinx("html", testroot="options")
def test_filter_options(app: Any) -> None:
    app.build()
    assert warning_lines(app) == []

    def rows(title: str) -> list[list[str]]:
        found = list(section(app, "filters", title).findall(nodes.table))
        return body(found[0]) if found else []

    assert [r[0] for r in rows("tags")] == ["RECOMMENDED"]
    assert [r[2] for r in rows("tasks")] == ["PPO"]
    assert [(r[0], r[4]) for r in rows("devices")] == [("7B", "1*H100"), ("70B", "8*H100")]
    assert [r[5] for r in rows("trains")] == ["megatron"]
    assert len(rows("infers")) == 3
    nothing = section(app, "filters", "nothing")
    assert not list(nothing.findall(nodes.table))
    assert nothing[1].astext() == "No verified configuration for 70B matches this selection."


@pytest.mark.sphinx("html", testroot="options")
def test_layout_options(app: Any) -> None:
    app.build()
    assert warning_lines(app) == []
    doctree = app.env.get_doctree("layout")
    first, everything = tables(app, "layout")
    assert header(first) == ["Model", "Resource", "MaxBatch", "Tested", "Evidence", "Model ID", "Notes"]
    # :sort: -resource: 8 GPUs, then 4, then 1
    assert [r[1] for r in body(first)] == ["8*H800", "4*A100", "1*H100"]
    assert body(first)[1][3:] == [
        "2025-06-25", "https://logs.example.org/run/1", "Qwen/Qwen2.5-7B-Instruct", "full fine-tuning"
    ]  # fmt: skip
    assert first[0].astext() == "Configurations for 7B models"  # caption with inline markup
    assert isinstance(first[0][1], nodes.emphasis)
    assert "the-7b-table" in first["names"]
    assert {"rlresources-table", "compact", "wide", "colwidths-given"} <= set(first["classes"])
    assert first["align"] == "center"
    assert [c["colwidth"] for c in first.findall(nodes.colspec)] == [3, 1, 1, 1, 2, 2, 2]
    # :ref: and :numref: resolve to the named table
    html = unbroken((app.outdir / "layout.html").read_text("utf-8"))
    assert 'href="#the-7b-table"' in html
    assert "Table 1" in html
    evidence = [r for r in first.findall(nodes.reference) if r.get("refuri", "").startswith("https://logs")]
    assert len(evidence) == 1
    # :sort: -size, resource: biggest size first, then fewest GPUs
    assert [(r[0], r[4]) for r in body(everything)] == [
        ("70B", "8*H100"), ("7B", "1*H100"), ("7B", "4*A100"), ("7B", "8*H800")
    ]  # fmt: skip
    assert doctree.astext().count("No configuration has been verified for 405B yet.") == 1


@pytest.mark.sphinx("html", testroot="options")
def test_contributors_are_linked_only_to_safe_targets(app: Any) -> None:
    app.build()
    table = next(iter(section(app, "filters", "infers").findall(nodes.table)))
    links = {r.astext(): r["refuri"] for r in table.findall(nodes.reference) if r.get("refuri")}
    assert links == {
        "Alice": "https://github.com/alice-gh",
        "Bob": "https://bob.example.org/",
        "Carol": "mailto:carol@example.org",
    }


@pytest.mark.sphinx("html", testroot="checks")
def test_every_check_warns_at_the_data_line(app: Any) -> None:
    app.build()
    data = "<srcdir>/data/7b.yaml"
    rule = "[model]_[task]_[gpunums]_[device]_[train]_[infer].sh"
    columns = (
        "size, tag, model, task, resource, maxbatch, train, infer, link, contributor, model_id, tested, evidence, "
        "notes, estimate, seq_len, global_batch, parallelism, throughput, step_time, peak_memory, logs, description"
    )
    assert warning_lines(app) == [
        f"{data}:21:12: WARNING: script name 'qwen2-7b_grpo_2_h800_fsdp_vlm.sh' says infer 'vlm' but the row says "
        "infer 'vllm'; fix the row, or rename the script to 'qwen2-7b_grpo_2_h800_fsdp_vllm.sh' [rlresources.naming]",
        f"{data}:23:13: WARNING: script 'examples/tuning/7b/qwen2-7b_grpo_2_h800_fsdp_vlm.sh' does not exist under "
        "the repository root; did you mean 'examples/tuning/7b/qwen2-7b_grpo_2_h800_fsdp_vllm.sh'? "
        "[rlresources.script_missing]",
        f"{data}:34:13: WARNING: 'qwen2_7b_grpo_4_h800_fsdp_vllm.sh' has 7 fields separated by '_', but the rule "
        f"{rule} has 6 (use '-' inside a field, never '_'); name it by the rule {rule}, e.g. "
        "'qwen2-7b_grpo_4_h800_fsdp_vllm.sh' [rlresources.naming]",
        f"{data}:39:11: WARNING: script name 'qwen2.5-7b_ppo_2_h800_fsdp_vllm.sh' says gpunums '2' but the row says "
        "gpus '4'; the script runs gpus '4' as the row says: rename the script to 'qwen2.5-7b_ppo_4_h800_fsdp_vllm.sh' "
        "[rlresources.naming]",
        f"{data}:56:13: WARNING: script '/etc/qwen2.5-7b_grpo_1_h100_fsdp_vllm.sh' is an absolute path; give it "
        "relative to the repository root, e.g. examples/tuning/70b/NAME.sh [rlresources.script_path]",
        f"{data}:67:13: WARNING: script 'examples/../outside.sh' uses '..'; give the path from the repository root "
        "without '..' [rlresources.script_path]",
        f"{data}:78:13: WARNING: script 'examples/tuning/7b/qwen2.5-7b_grpo_1_h100_fsdp_vllm.sh' is already linked by "
        f"the row at {data}:3; each row needs its own script (remove one row, or give it the script it was "
        "measured with) [rlresources.duplicate_row]",
        "<srcdir>/index.rst:6: WARNING: unknown size '72b'; did you mean '7B'? The known sizes are: 7B (a size is "
        "known when the data folder has its file) [rlresources.unknown_size]",
        "<srcdir>/index.rst:8: WARNING: :columns: names no column 'gpu'; did you mean 'gpus'? The columns are: "
        f"{columns} [rlresources.option]",
        f"<srcdir>/index.rst:8: WARNING: :sort: names no column 'speed'; the columns are: {columns} (prefix one "
        "with '-' to sort descending) [rlresources.option]",
        "<srcdir>/index.rst:8: WARNING: :tags: names 'BEST', which no row has; the valid values are: MIN, "
        "RECOMMENDED [rlresources.option]",
        "<srcdir>/index.rst:8: WARNING: :devices: names 'A100', which no row has; the valid values are: H100, "
        "H800 [rlresources.option]",
    ]
    # nothing outside the root was linked or copied
    html = unbroken((app.outdir / "index.html").read_text("utf-8"))
    assert "outside.sh" in html  # shown as text
    assert not any(p.name == "outside.sh" for p in (app.outdir / "_downloads").rglob("*"))


@pytest.mark.sphinx("html", testroot="checks", confoverrides={"suppress_warnings": ["rlresources.naming"]})
def test_suppress_warnings_silences_one_kind(app: Any) -> None:
    app.build()
    lines = warning_lines(app)
    assert not [line for line in lines if "rlresources.naming" in line]
    assert len(lines) == 9
    assert [line for line in lines if "rlresources.script_missing" in line]


@pytest.mark.sphinx("html", testroot="checks", confoverrides={"suppress_warnings": ["rlresources"]})
def test_suppress_warnings_silences_the_whole_type(app: Any) -> None:
    app.build()
    assert warning_lines(app) == []


@pytest.mark.sphinx("html", testroot="basic", srcdir="basic-reported-once")
def test_the_data_is_reported_once_not_once_per_page(app: Any) -> None:
    (app.srcdir / "data" / "7b.yaml").write_text(
        (app.srcdir / "data" / "7b.yaml").read_text("utf-8").replace("device: H800", "device: H80"), "utf-8"
    )
    (app.srcdir / "second.rst").write_text(
        ":orphan:\n\nSecond\n======\n\n.. rl-resource-table:: 7b\n\n.. rl-resource-table:: all\n", "utf-8"
    )
    app.build()
    lines = warning_lines(app)
    assert len([line for line in lines if "says device 'h800'" in line]) == 1


@pytest.mark.sphinx("html", testroot="basic", srcdir="basic-internal-error")
def test_a_bug_in_drawing_is_a_warning_and_the_page_still_builds(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from sphinx_rlresources.sphinxext.table import RLResourceTable

    def boom(self: RLResourceTable) -> list[nodes.Node]:
        raise ValueError("boom")

    monkeypatch.setattr(RLResourceTable, "draw", boom)
    app.build()
    assert warning_lines(app) == [
        f"<srcdir>/index.rst:{line}: WARNING: rl-resource-table could not be drawn (ValueError: boom); "
        "please report this [rlresources.internal]"
        for line in (7, 12, 17)
    ]
    assert (app.outdir / "index.html").is_file()


@pytest.mark.sphinx("html", testroot="options", srcdir="options-tag-whole")
def test_a_tag_is_one_word_in_its_cell_never_recom_mended(app: Any) -> None:
    """The layout script picks the compact table or cards before a tag must break; a soft
    hyphen made a narrow Tag column read "RECOM-MENDED"."""
    app.build()
    html = (app.outdir / "filters.html").read_text("utf-8")
    cells = re.findall(r'<td data-label="Tag"[^>]*><p>([^<]*)', html)
    assert "RECOMMENDED" in cells
    assert not [cell for cell in cells if "&#173;" in cell or "\u00ad" in cell]
