"""The speed-ups change nothing a reader or a contributor sees.

* Parked table rows (:mod:`sphinx_rlresources.sphinxext.deferred`) give the same doctree and the
  same written files as rows drawn in place, and a table whose text a read transform
  would change (smart quotes, translation) is drawn in place.
* Resolving each script folder once gives the same answers as resolving every path,
  symbolic links included.
* Parking rows has a switch that turns it off.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import TESTS, unbroken, warning_lines
from docutils import nodes
from helpers import built

from sphinx_rlresources.core import checks
from sphinx_rlresources.core.diagnostics import Subtype
from sphinx_rlresources.core.loader import LoadOptions, load_dataset
from sphinx_rlresources.sphinxext import deferred
from sphinx_rlresources.sphinxext import table as directive


def build(make_app: Any, srcdir: Path, buildername: str = "html", **kwargs: Any) -> Any:
    return built(make_app, srcdir, buildername, freshenv=True, **kwargs)


def site(tmp_path: Path, name: str) -> Path:
    src = tmp_path / name
    shutil.copytree(TESTS / "roots" / "test-incremental", src)
    return src


def written(outdir: Path) -> dict[str, bytes]:
    return {
        p.relative_to(outdir).as_posix(): p.read_bytes()
        for p in sorted(outdir.rglob("*"))
        if p.is_file() and ".doctrees" not in p.relative_to(outdir).parts
    }


@pytest.mark.parametrize("buildername", ["html", "text"])
def test_parked_rows_write_the_same_files_as_rows_drawn_in_place(
    make_app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, buildername: str
) -> None:
    parked: list[bool] = []
    real = deferred.defer_rows

    def spy(table: nodes.Element, language: str | None) -> bool:
        parked.append(real(table, language))
        return parked[-1]

    monkeypatch.setattr(directive, "defer_rows", spy)
    fast = build(make_app, site(tmp_path, "fast"), buildername)
    assert parked and all(parked), "every table of this site should have been parked"
    monkeypatch.setattr(directive, "defer_rows", lambda table, language: False)
    plain = build(make_app, site(tmp_path, "plain"), buildername)
    assert warning_lines(fast) == warning_lines(plain) == []
    one, two = written(Path(fast.outdir)), written(Path(plain.outdir))
    assert sorted(one) == sorted(two)
    assert [name for name in one if one[name] != two[name]] == []
    for docname in ("all", "size-70b"):
        kept = fast.env.get_doctree(docname)
        assert not list(kept.findall(deferred.rlresources_rows))  # no holder outlives the read
        same = plain.env.get_doctree(docname).pformat().replace(str(plain.srcdir), str(fast.srcdir))
        assert kept.pformat() == same


def table_of(text: str, **body_options: Any) -> tuple[nodes.table, nodes.tbody]:
    table, group, body, row, entry, para = (
        nodes.table(), nodes.tgroup(), nodes.tbody(**body_options), nodes.row(), nodes.entry(), nodes.paragraph()
    )  # fmt: skip
    para += nodes.Text(text)
    entry += para
    row += entry
    body += row
    group += body
    table += group
    return table, body


def test_text_smart_quotes_would_change_is_drawn_in_place_unless_the_body_opts_out() -> None:
    table, body = table_of("O'Brien")
    assert deferred.defer_rows(table, "en") is False
    assert isinstance(body[0], nodes.row)
    table, body = table_of("O'Brien", support_smartquotes=False)  # as the directive draws it
    assert deferred.defer_rows(table, "en") is True
    assert isinstance(body[0], deferred.rlresources_rows)


def test_rows_survive_settings_that_strip_comments(make_app: Any, tmp_path: Path) -> None:
    src = site(tmp_path, "strip")
    (src / "plain.rst").write_text("Plain\n=====\n\n.. a comment\n\ntext\n")

    def strip_comments(app: Any) -> None:
        app.env.settings["strip_comments"] = True  # what docutils.conf's strip_comments sets

    app = build(make_app, src, prepare=strip_comments)
    assert "a comment" not in (Path(app.outdir) / "plain.html").read_text(encoding="utf-8")
    assert "qwen2.5-72b_" in unbroken((Path(app.outdir) / "size-70b.html").read_text(encoding="utf-8"))


def test_data_text_is_shown_as_written(make_app: Any, tmp_path: Path) -> None:
    src = site(tmp_path, "quotes")
    data = src / "data" / "7b.yaml"
    data.write_text(data.read_text(encoding="utf-8").replace("contributor: SimonHuang", 'contributor: "O\'Brien"'))
    app = build(make_app, src)
    assert warning_lines(app) == []
    assert "<td><p>O'Brien</p></td>" in unbroken((Path(app.outdir) / "size-7b.html").read_text(encoding="utf-8"))


def test_translated_pages_are_drawn_in_place() -> None:
    table, body = table_of("MIN", support_smartquotes=False)
    assert deferred.defer_rows(table, "de") is False
    assert isinstance(body[0], nodes.row)
    assert deferred.defer_rows(table, "en") is True
    assert isinstance(body[0], deferred.rlresources_rows)


def test_one_lookup_per_folder_agrees_with_resolving_every_path(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    outside = tmp_path / "outside"
    (outside / "7b").mkdir(parents=True)
    (outside / "7b" / "qwen2-7b_grpo_2_h800_fsdp_vllm.sh").write_text("#!/bin/sh\n")
    tuning = root / "examples" / "tuning"
    (tuning / "70b").mkdir(parents=True)
    (tuning / "70b" / "real.sh").write_text("#!/bin/sh\n")
    # a file linked to another file inside the root, and a folder linked outside it
    (tuning / "70b" / "qwen2-70b_grpo_32_h20_fsdp_vllm.sh").symlink_to(tuning / "70b" / "real.sh")
    (tuning / "7b").symlink_to(outside / "7b")
    rows = [
        ("70b", "examples/tuning/70b/qwen2-70b_grpo_32_h20_fsdp_vllm.sh", "70B", 32, "H20"),
        ("7b", "examples/tuning/7b/qwen2-7b_grpo_2_h800_fsdp_vllm.sh", "7B", 2, "H800"),
    ]
    (root / "data").mkdir()
    for key, script, label, gpus, device in rows:
        (root / "data" / f"{key}.yaml").write_text(
            f"size: {label}\nentries:\n  - tag: MIN\n    model: Qwen2-{label}\n    task: GRPO\n    gpus: {gpus}\n"
            f"    device: {device}\n    max_batch: null\n    train: fsdp\n    infer: vllm\n    script: {script}\n"
            "    contributor: Someone\n"
        )
    dataset = load_dataset(root / "data", root, LoadOptions(cross_check=False))
    assert dataset.scripts == {rows[0][1]: (tuning / "70b" / "real.sh").resolve()}
    assert [(d.subtype, d.path) for d in dataset.diagnostics] == [(Subtype.SCRIPT_PATH, str(root / "data" / "7b.yaml"))]
    known: dict[Path, Path] = {}
    for entry in dataset.entries:  # a shared cache answers as a fresh one does
        assert checks.resolve_script(entry, root, known) == checks.resolve_script(entry, root)


def test_parking_rows_can_be_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    table, body = table_of("MIN", support_smartquotes=False)
    monkeypatch.setenv("RLRESOURCES_NO_DEFERRED_ROWS", "1")
    assert deferred.defer_rows(table, "en") is False
    assert isinstance(body[0], nodes.row)
    monkeypatch.setenv("RLRESOURCES_NO_DEFERRED_ROWS", "0")  # 0 or empty: on, as unset
    assert deferred.defer_rows(table, "en") is True
    assert isinstance(body[0], deferred.rlresources_rows)


def _cell(content: nodes.Node, key: str) -> nodes.entry:
    from sphinx_rlresources.sphinxext.nodes import rlresources_cell

    return rlresources_cell("", nodes.paragraph("", "", content), label=key, classes=[f"rl-col-{key}"])


def test_one_walk_of_a_table_gives_each_text_its_own_rule() -> None:
    """Each text gets the rule of where it is: the caption soft hyphens alone, a header its
    camel-case break, an Infer cell the engine's break, a body cell dates and name breaks
    (and a tag stays whole: no "RECOM-MENDED" in a narrow Tag column)."""
    from sphinx_rlresources.sphinxext import layout
    from sphinx_rlresources.sphinxext.nodes import rlresources_script_label

    caption = nodes.title(
        "", "", nodes.Text("MaxBatch RECOMMENDED"), nodes.Text("RECOMMENDED"), nodes.literal("a_b", "a_b")
    )
    head = nodes.row("", nodes.entry("", nodes.paragraph("", "", nodes.Text("MaxBatch"))))
    link = nodes.reference("q_7b_grpo.sh", "q_7b_grpo.sh", refuri="https://example.org/q_7b_grpo.sh")
    body = nodes.row(
        "",
        _cell(nodes.Text("RECOMMENDED"), "tag"),
        _cell(nodes.Text("vllm0.8.3"), "infer"),
        _cell(nodes.Text("sglang0.4.6"), "model"),
        _cell(nodes.Text("2025-06-25"), "tested"),
        _cell(link, "link"),
        _cell(nodes.Text("MaxBatch"), "notes"),
    )
    table = nodes.table("", caption, nodes.tgroup("", nodes.colspec(), nodes.thead("", head), nodes.tbody("", body)))
    layout.prepare_html_table(table)

    assert [type(n) for n in caption.children] == [nodes.Text, layout.rlresources_hyphenated, nodes.inline]
    assert type(caption[2][0]) is layout.rlresources_breakable  # code in a caption: breakable text
    assert type(head[0][0][0]) is layout.rlresources_breakable  # "Max|Batch" in a header only
    tag, infer, model, tested, script, notes = (cell[0][0] for cell in body.children)
    assert type(tag) is nodes.Text
    assert type(infer) is layout.rlresources_engine  # vllm|0.8.3 in the Infer column
    assert type(model) is layout.rlresources_breakable  # sglang|0.4.6: five letters and a digit
    assert isinstance(tested, nodes.inline) and tested["classes"] == ["rlresources-date"]
    label = script[0]
    assert isinstance(label, rlresources_script_label) and type(label[0]) is layout.rlresources_breakable
    assert type(notes) is nodes.Text  # no camel-case break in a body cell
