# ruff: noqa: E501 - expected output lines are compared whole
"""``rlresources import``: hand-written pages onto data files, losing nothing silently.

The round trip is the proof: a well-formed page built by Sphinx and the same page
imported and drawn by the directive give the same cells and the same links.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from docutils import nodes

from sphinx_rlresources.cli import main as cli

DATA = Path(__file__).parent / "data" / "import"
SEED = DATA / "seed-page.rst"
WELL_FORMED = DATA / "well-formed.rst"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    status = cli.main(list(argv))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return status, captured.out.splitlines(), captured.err


def read(folder: Path) -> dict[str, Any]:
    return {p.name: yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.yaml"))}


# -- the seed page: rows short of cells read by content, the rest as placeholders -------

#: First line of each data row of the seed page (each has 6 cells under a 9-column header).
SEED_ROWS = [44, 67, 90, 113, 119, 142, 148, 171, 177, 200, 206, 212]


@pytest.fixture(autouse=True)
def _in_a_fresh_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """import writes inside the repository root (the working folder here), never outside it."""
    monkeypatch.chdir(tmp_path)


def test_seed_page_rows_short_of_cells_become_rows_with_placeholders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each seed row lacks Model, Link and Contributor: its six cells are placed by what they hold
    (MIN, GRPO-LoRA, 1*H100, 116, fsdp, vllm0.8.3), the three it lacks are TODO, and lint names them."""
    (tmp_path / "seed-page.rst").write_bytes((DATA / "seed-page.rst").read_bytes())
    status, out, _err = run(capsys, "import", "seed-page.rst", "--out", str(tmp_path / "data"))
    assert status == 0  # nothing of the page was lost
    short = [line for line in out if "cells but the header" in line]
    assert [int(line.split(":")[1]) for line in short] == SEED_ROWS
    assert out[:2] == [  # the page's own defects, at their lines
        "seed-page.rst:28: warning: '0.5B' is not a heading to docutils: its underline (3 '~') is shorter than "
        "the title and under 4 characters, so the page shows it as text and the sidebar lacks it; underline it "
        "with at least 4 '~'",
        "seed-page.rst:44: warning: it has 6 cells but the header at line 35 has 9: readers see 'GRPO-LoRA' under "
        "Model; read by what each cell holds, it lacks Model, Link, Contributor, written as TODO placeholders that "
        "lint names until you fill them in; add the missing cells on the page",
    ]
    assert not [line for line in out if "not carried over" in line]
    assert out[-1] == (
        "rlresources: 12 rows in 9 sizes imported; every cell carried over; 36 placeholders (TODO) to fill in, "
        "named by rlresources lint"
    )
    written = read(tmp_path / "data")
    assert [len(written[f"{label}.yaml"]["entries"]) for label in ("0.5b", "7b", "70b", "405b")] == [1, 2, 3, 0]
    assert written["7b.yaml"]["entries"][0] == {
        "tag": "MIN", "model": "TODO", "task": "GRPO", "gpus": 2, "device": "H800", "max_batch": None,
        "train": "fsdp", "infer": "vllm", "infer_version": "0.8.2", "script": "TODO", "contributor": "TODO",
    }  # fmt: skip
    assert written["32b.yaml"]["entries"][0]["train"] == "megatron"
    assert written["0.5b.yaml"]["entries"][0]["max_batch"] == 116
    status, lint, _err = run(capsys, "lint", "--data", "data", "--root", ".")
    assert status == 1
    placeholders = [line for line in lint if "[rlresources.placeholder]" in line]
    assert len(placeholders) == 36 and len(lint) == 37  # the placeholders and the summary, nothing else
    assert lint[0].startswith("data/0.5b.yaml:5:12: error: entries[0].model: still TODO, a placeholder written by")


def test_a_short_row_whose_cells_fit_two_ways_is_not_guessed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``mybackend`` could be the Train or the Infer cell, ``Simon`` the Infer or the Contributor: nothing is guessed."""
    page = tmp_path / "page.rst"
    page.write_text(
        "7B\n~~~~\n\n.. list-table::\n   :header-rows: 1\n\n"
        "   * - Tag\n     - Model\n     - Task\n     - Resource\n     - Train\n     - Infer\n     - Link\n"
        "     - Contributor\n   * - MIN\n     - Qwen2.5-7B\n     - GRPO\n     - 8*H100\n     - mybackend\n"
        "     - Simon\n",
        encoding="utf-8",
    )
    status, out, _err = run(capsys, "import", "page.rst", "--out", str(tmp_path / "data"))
    assert status == 1
    assert (
        "page.rst:15: warning: row not carried over: it has 6 cells but the header at line 7 has 8 (Tag, Model, "
        "Task, Resource, Train, Infer, Link, Contributor); which column each cell belongs to cannot be told, by "
        "position or by what the cells hold"
    ) in out
    assert read(tmp_path / "data") == {"7b.yaml": {"size": "7B", "entries": []}}


def test_seed_page_headings_are_not_headings_to_docutils() -> None:
    """The case the importer exists for: docutils reads ``0.5B`` over ``~~~`` as a paragraph."""
    from docutils.core import publish_doctree

    doctree = publish_doctree(SEED.read_text(encoding="utf-8"), settings_overrides={"report_level": 5})
    titles = [t.astext() for t in doctree.findall(nodes.title)]
    assert "0.5B" not in titles


# -- the round trip ------------------------------------------------------------------


def cells_by_size(app: Any) -> dict[str, list[list[tuple[str, str | None]]]]:
    """Each section's table as rows of (text, link) cells."""
    doctree = app.env.get_doctree("index")
    found = {}
    for section in doctree.findall(nodes.section):
        title = section[0].astext()
        tables = [t for t in section.children if isinstance(t, nodes.table)]
        if not tables:
            continue
        rows = []
        for row in tables[0].findall(nodes.row):
            cells = []
            for entry in row.findall(nodes.entry):
                refs = list(entry.findall(nodes.reference))
                cells.append((entry.astext(), refs[0].get("refuri") if refs else None))
            rows.append(cells)
        found[title] = rows
    return found


def test_round_trip_import_then_draw_equals_the_original(
    tmp_path: Path, make_app: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    original = tmp_path / "original"
    original.mkdir()
    (original / "conf.py").write_text("", encoding="utf-8")
    shutil.copy(WELL_FORMED, original / "index.rst")
    app = make_app("html", srcdir=original)
    app.build()
    want = cells_by_size(app)
    assert set(want) == {"7B", "70B", "405B"}

    drawn = tmp_path / "drawn"
    drawn.mkdir()
    status, out, _err = run(capsys, "import", str(WELL_FORMED), "--out", str(drawn / "data"))
    assert status == 0
    assert out[-5:] == [
        "The links were GitHub URLs; to keep linking them, put this in pyproject.toml (the build and every command "
        "read it):",
        "    [tool.rlresources]",
        '    script_url = "https://github.com/org/repo/blob/{ref}/{path}"',
        '    script_ref = "main"',
        "rlresources: 4 rows in 3 sizes imported; every cell carried over",
    ]
    for data_file in (drawn / "data").glob("*.yaml"):  # the scripts exist: only those are linked
        for line in data_file.read_text("utf-8").splitlines():
            if line.strip().startswith("script: "):
                script = drawn / line.split(": ", 1)[1].strip('"')
                script.parent.mkdir(parents=True, exist_ok=True)
                script.write_text("#!/bin/sh\n", "utf-8")
    (drawn / "conf.py").write_text(
        'extensions = ["sphinx_rlresources"]\nrlresources_data_dir = "data"\nrlresources_root = "."\n', "utf-8"
    )
    (drawn / "pyproject.toml").write_text("\n".join(line.strip() for line in out[-4:-1]) + "\n", "utf-8")
    (drawn / "index.rst").write_text(
        "Drawn\n=====\n\n7B\n--\n\n.. rl-resource-table:: 7b\n\n70B\n---\n\n.. rl-resource-table:: 70b\n\n"
        "405B\n----\n\n.. rl-resource-table:: 405b\n",
        encoding="utf-8",
    )
    app = make_app("html", srcdir=drawn)
    app.build()
    got = cells_by_size(app)
    # the same cells, except that the directive says what an empty MaxBatch means
    header = want["7B"][0]
    for size in ("7B", "70B"):
        original = [
            [("not measured", None) if column == ("MaxBatch", None) and cell == ("", None) else cell
             for column, cell in zip(header, row, strict=True)]
            for row in want[size]
        ]  # fmt: skip
        assert got[size] == original
    assert ("not measured", None) in got["7B"][1]
    assert want["70B"][1][7] == (
        "qwen2.5-72b_grpo-lora_8_h100_fsdp_vllm.sh",
        "https://github.com/org/repo/blob/main/examples/tuning/70b/qwen2.5-72b_grpo-lora_8_h100_fsdp_vllm.sh",
    )
    assert want["70B"][1][8] == ("Simon Huang", "mailto:simon@example.org")
    # 405B's only row is empty on the page; the data declares the size with no rows.
    assert all(text == "" for text, _link in want["405B"][1])
    assert "405B" not in got
    assert read(drawn / "data")["405b.yaml"] == {"size": "405B", "entries": []}


# -- messy pages ---------------------------------------------------------------------


def simple_table(rows: list[list[str]]) -> str:
    """A reST simple table whose columns fit their widest cell."""
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    border = " ".join("=" * w for w in widths)
    lines = [border, " ".join(c.ljust(w) for c, w in zip(rows[0], widths, strict=True)).rstrip(), border]
    lines += [" ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows[1:]]
    return "\n".join([*lines, border]) + "\n"


HEADER = ["Tag", "Model", "Task", "Resource", "MaxBatch", "Train", "Infer", "Link", "Contributor"]
MESSY = (
    "Resources\n=========\n\nQwen2.5 7B\n~~\n\n"
    + simple_table(
        [
            [*HEADER, "Notes"],
            [
                "min",
                "Qwen2.5-7B",
                "GRPO",
                "2*H800",
                "\\-",
                "fsdp",
                "vllm0.8.2",
                "`qwen2-7b_grpo_2_h800_fsdp_vllm <https://github.com/o/r/tree/release/v1/examples/tuning/7b/qwen2-7b_grpo_2_h800_fsdp_vllm.sh>`__",
                "`Jane <https://github.com/jane-d>`_",
                "slow",
            ],
            [
                "MIN",
                "Qwen2.5-7B",
                "GRPO",
                "8 GPUs",
                "16",
                "fsdp",
                "vllm",
                "`x.sh <https://gitlab.com/o/r/x.sh>`_",
                "Bob",
                "\\",
            ],
        ]
    )
    + """
Larger models
~~~~~~~~~~~~~

.. list-table::

   * - Tag
     - Model
     - Task
     - Resource
     - MaxBatch
     - Train
     - Infer
     - Link
     - Contributor
   * - RECOMMENDED
     - Qwen2-70B
     - GRPO
     - 32*H20
     -
     - megatron
     - sglang
     - `qwen2-70b_grpo_32_h20_megatron_sglang.sh <examples/tuning/70b/qwen2-70b_grpo_32_h20_megatron_sglang.sh>`_
     - `Ann <ann@example.org>`_

+-----+-----------+------+----------+----------+-------+-------+--------------------------------------------------------+-------------+
| Tag | Model     | Task | Resource | MaxBatch | Train | Infer | Link                                                   | Contributor |
+=====+===========+======+==========+==========+=======+=======+========================================================+=============+
| MIN | Qwen2-14B | GRPO | 4*H800   | 8        | fsdp  | vllm  | examples/tuning/14b/qwen2-14b_grpo_4_h800_fsdp_vllm.sh | `Lee`_      |
+-----+-----------+------+----------+----------+-------+-------+--------------------------------------------------------+-------------+

.. _Lee: mailto:lee@example.org

.. code-block:: rst

   ====== ======
   Tag    Model
   ====== ======
   MIN    fake
   ====== ======
"""
)


def test_messy_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "page.rst"
    page.write_text(MESSY, encoding="utf-8")
    root = tmp_path / "root"
    (root / "examples" / "tuning" / "7b").mkdir(parents=True)
    (root / "examples" / "tuning" / "7b" / "qwen2-7b_grpo_2_h800_fsdp_vllm.sh").write_text("", encoding="utf-8")
    status, out, _err = run(capsys, "import", str(page), "--out", str(root / "data"), "--root", str(root))
    shown = str(page)
    assert status == 1
    assert [line.replace(shown, "page.rst") for line in out[:14]] == [
        "page.rst:4: warning: 'Qwen2.5 7B' is not a heading to docutils: its underline (2 '~') is shorter than the "
        "title and under 4 characters, so the page shows it as text and the sidebar lacks it; underline it with at "
        "least 10 '~'",
        "page.rst:10: warning: cell 10 (Notes) 'slow' not carried over: the data has no field for the column 'Notes'",
        "page.rst:10: warning: the link to 'qwen2-7b_grpo_2_h800_fsdp_vllm.sh' uses /tree/, GitHub's folder view, "
        "for a file; use /blob/",
        "page.rst:10: note: Tag 'min' is written as MIN",
        "page.rst:11: warning: row not carried over: Resource '8 GPUs' is not in the form N*DEVICE (8*H100); 'https://gitlab.com/o/r/x.sh' is not a link to a file in a GitHub repository (…/blob/REF/PATH or …/tree/REF/PATH)",
        "page.rst:11: warning: cell 1 (Tag) 'MIN' not carried over",
        "page.rst:11: warning: cell 2 (Model) 'Qwen2.5-7B' not carried over",
        "page.rst:11: warning: cell 3 (Task) 'GRPO' not carried over",
        "page.rst:11: warning: cell 4 (Resource) '8 GPUs' not carried over",
        "page.rst:11: warning: cell 5 (MaxBatch) '16' not carried over",
        "page.rst:11: warning: cell 6 (Train) 'fsdp' not carried over",
        "page.rst:11: warning: cell 7 (Infer) 'vllm' not carried over",
        "page.rst:11: warning: cell 8 (Link) '`x.sh <https://gitlab.com/o/r/x.sh>`_' not carried over",
        "page.rst:11: warning: cell 9 (Contributor) 'Bob' not carried over",
    ]
    written = read(root / "data")
    assert sorted(written) == ["14b.yaml", "70b.yaml", "7b.yaml"]  # 14B and 70B from the scripts' folders
    assert written["7b.yaml"]["entries"] == [
        {
            "tag": "MIN",
            "model": "Qwen2.5-7B",
            "task": "GRPO",
            "gpus": 2,
            "device": "H800",
            "max_batch": None,
            "train": "fsdp",
            "infer": "vllm",
            "infer_version": "0.8.2",
            "script": "examples/tuning/7b/qwen2-7b_grpo_2_h800_fsdp_vllm.sh",
            "contributor": {"name": "Jane", "github": "jane-d"},
        }
    ]
    assert written["70b.yaml"]["entries"][0]["contributor"] == {"name": "Ann", "email": "ann@example.org"}
    assert written["70b.yaml"]["entries"][0]["max_batch"] is None
    assert "infer_version" not in written["70b.yaml"]["entries"][0]
    assert written["14b.yaml"] == {
        "size": "14B",
        "entries": [
            {
                "tag": "MIN",
                "model": "Qwen2-14B",
                "task": "GRPO",
                "gpus": 4,
                "device": "H800",
                "max_batch": 8,
                "train": "fsdp",
                "infer": "vllm",
                "script": "examples/tuning/14b/qwen2-14b_grpo_4_h800_fsdp_vllm.sh",
                "contributor": {"name": "Lee", "email": "lee@example.org"},
            }
        ],
    }
    text = "\n".join(out).replace(shown, "page.rst")
    assert (
        "page.rst:17: note: the list-table has no :header-rows:, but its first row names the columns; read it as the header"
        in text
    )
    assert 'script_url = "https://github.com/o/r/blob/{ref}/{path}"' in text
    assert 'script_ref = "release/v1"' in text
    assert out[-1] == "rlresources: 3 rows in 3 sizes imported; not carried over: 1 row, 10 cells (see above)"


def test_import_cannot_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _out, err = run(capsys, "import", str(tmp_path / "missing.rst"), "--out", str(tmp_path / "d"))
    assert (status, err) == (2, f"rlresources: error: the page '{tmp_path / 'missing.rst'}' does not exist\n")
    status, _out, err = run(capsys, "import", str(SEED))
    assert (status, err.splitlines()[-1]) == (
        2,
        "rlresources: error: import: the following arguments are required: --out",
    )
    out_dir = tmp_path / "d"
    assert run(capsys, "import", str(WELL_FORMED), "--out", str(out_dir))[0] == 0
    status, _out, err = run(capsys, "import", str(WELL_FORMED), "--out", str(out_dir))
    assert status == 2
    assert err.endswith("already exist; pass --force to overwrite, or import into an empty folder\n")
    assert run(capsys, "import", str(WELL_FORMED), "--out", str(out_dir), "--force")[0] == 0
    empty = tmp_path / "empty.rst"
    empty.write_text("Title\n=====\n\nNo tables.\n", encoding="utf-8")
    status, _out, err = run(capsys, "import", str(empty), "--out", str(out_dir))
    assert status == 2
    assert "has no heading that names a size" in err
    latin = tmp_path / "latin.rst"
    latin.write_bytes(b"7B\n--\n\n\xe9\n")
    status, _out, err = run(capsys, "import", str(latin), "--out", str(out_dir))
    assert status == 2
    assert "is not UTF-8 text" in err


def test_imported_values_that_yaml_would_misread_are_quoted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "page.rst"
    page.write_text(
        "7B\n--\n\n.. list-table::\n   :header-rows: 1\n\n"
        "   * - Tag\n     - Model\n     - Task\n     - Resource\n     - MaxBatch\n     - Train\n     - Infer\n     - Link\n     - Contributor\n"
        "   * - MIN\n     - yes\n     - 1e3\n     - 1*H100\n     - 4\n     - null\n     - vllm0.10\n"
        "     - examples/tuning/7b/a_b_1_h100_null_vllm.sh\n     - 2025-06-25\n",
        encoding="utf-8",
    )
    assert run(capsys, "import", str(page), "--out", str(tmp_path / "d"))[0] == 0
    entry = read(tmp_path / "d")["7b.yaml"]["entries"][0]
    assert (entry["model"], entry["task"], entry["train"], entry["infer_version"], entry["contributor"]) == (
        "yes",
        "1e3",
        "null",
        "0.10",
        "2025-06-25",
    )


def test_a_link_in_a_plain_text_column_keeps_the_text_and_reports_the_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "page.rst"
    page.write_text(
        "7B\n--\n\n.. list-table::\n   :header-rows: 1\n\n"
        "   * - Tag\n     - Model\n     - Task\n     - Resource\n     - MaxBatch\n     - Train\n     - Infer\n     - Link\n     - Contributor\n"
        "   * - MIN\n     - `Qwen2.5-7B <https://hf.co/Qwen/Qwen2.5-7B>`_\n     - **GRPO**\n     - 1*H100\n     - 4\n     - ``fsdp``\n     - vllm\n"
        "     - examples/tuning/7b/a_b_1_h100_fsdp_vllm.sh\n     - `Bo <ftp://bo>`_\n",
        encoding="utf-8",
    )
    status, out, _err = run(capsys, "import", str(page), "--out", str(tmp_path / "d"))
    assert status == 1
    assert [line.replace(str(page), "page.rst") for line in out[:3]] == [
        "page.rst:17: warning: the link to 'https://hf.co/Qwen/Qwen2.5-7B' in '`Qwen2.5-7B <https://hf.co/Qwen/Qwen2.5-7B>`_' is not carried over (this column holds plain text)",
        "page.rst:23: note: the link text 'examples/tuning/7b/a_b_1_h100_fsdp_vllm.sh' is not the script's file name; the table will show 'a_b_1_h100_fsdp_vllm.sh'",
        "page.rst:24: warning: the contributor link 'ftp://bo' is not an http(s) or mailto link; only the name is kept",
    ]
    entry = read(tmp_path / "d")["7b.yaml"]["entries"][0]
    assert (entry["model"], entry["task"], entry["train"], entry["contributor"]) == ("Qwen2.5-7B", "GRPO", "fsdp", "Bo")
    assert out[-1] == "rlresources: 1 row in 1 size imported; not carried over: 2 link or markup parts (see above)"


FRAGMENTS = [
    "7B",
    "70B",
    "~~~",
    "=====",
    "Title",
    "-----",
    "",
    "   ",
    ".. list-table::",
    "   :header-rows: 1",
    "   * - Tag",
    "     - Model",
    "   * - MIN",
    "     - 8*H100",
    "     - vllm0.8.3",
    "     - \\",
    "     -",
    "     - `a.sh <https://github.com/o/r/blob/main/examples/tuning/7b/m_t_8_h100_fsdp_vllm.sh>`_",
    "     - `N <mailto:n@example.org>`_",
    ".. _x: https://github.com/x",
    "     - `x`_",
    "====== ======",
    "Tag    Model",
    "MIN    Qwen",
    "+-----+-----+",
    "| Tag | a   |",
    "+=====+=====+",
    ".. code-block:: rst",
    "* - Tag\n  - Model\n  - Task\n  - Resource\n  - MaxBatch\n  - Train\n  - Infer\n  - Link\n  - Contributor",
    "* - MIN\n  - Qwen2-7B\n  - GRPO\n  - 2*H800\n  - 16\n  - fsdp\n  - vllm\n  - examples/tuning/7b/q_g_2_h800_fsdp_vllm.sh\n  - Ann",
    # A table start and rows that can follow it, so that many examples do write rows.
    "7B\n--\n\n.. list-table::\n   :header-rows: 1\n\n   * - Tag\n     - Model\n     - Task\n     - Resource\n"
    "     - MaxBatch\n     - Train\n     - Infer\n     - Link\n     - Contributor",
    "   * - RECOMMENDED\n     - Qwen2-7B\n     - GRPO\n     - 4*H20\n     - -\n     - megatron\n     - sglang0.4.6\n"
    "     - `x <https://github.com/o/r/tree/v1/examples/tuning/7b/q_g_4_h20_megatron_sglang.sh>`_\n     - `Bo <https://github.com/bo>`_",
    "   * - MIN\n     - Qwen2-7B\n     - GRPO-LoRA\n     - 1*H100\n     - 8\n     - fsdp\n     - vllm\n"
    "     - examples/tuning/7b/q_g-l_1_h100_fsdp_vllm.sh\n     - Cy",
]


def test_import_never_raises_and_writes_only_valid_rows_made_of_page_text() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from sphinx_rlresources.cli.importer import import_page
    from sphinx_rlresources.core.validation import validator

    fragments = st.lists(st.sampled_from(FRAGMENTS), max_size=20)
    rows = st.lists(st.sampled_from(FRAGMENTS[-2:]), max_size=3)

    @settings(max_examples=300)
    @given(fragments, st.booleans(), rows, fragments)
    def check(before: list[str], table: bool, body: list[str], after: list[str]) -> None:
        text = "\n".join(before + ([FRAGMENTS[-3], *body] if table else []) + after)
        result = import_page(text, Path("."), None)
        for key, rows in result.rows.items():
            label = result.sizes[key]
            for _line, entry in rows:  # every value is page text, or a TODO placeholder of a short row
                for error in validator().iter_errors({"size": label, "entries": [entry]}):
                    field = list(error.absolute_path)[2:3]
                    assert field and entry[str(field[0])] == "TODO", error.message
                for name in ("tag", "model", "task", "device", "train", "infer", "script"):
                    if entry[name] != "TODO":
                        assert str(entry[name]).lower().rsplit("/", 1)[-1] in text.lower(), name
                if entry["device"] != "TODO":
                    assert f"{entry['gpus']}*{entry['device']}" in text

    check()
    # The property is not vacuous: the fragments do make rows.
    example = "\n".join([FRAGMENTS[-3], FRAGMENTS[-2], FRAGMENTS[-1]])
    assert sum(len(rows) for rows in import_page(example, Path("."), None).rows.values()) == 2


@pytest.mark.parametrize(
    ("cell", "path", "template", "ref"),
    [
        (
            "`a.sh <https://github.com/o/r/blob/v1.2/examples/tuning/7b/a.sh>`_",
            "examples/tuning/7b/a.sh",
            "https://github.com/o/r/blob/{ref}/{path}",
            "v1.2",
        ),
        (
            "`a <https://github.com/o/r/tree/0123abc/examples/tuning/7b/a.sh>`__",
            "examples/tuning/7b/a.sh",
            "https://github.com/o/r/blob/{ref}/{path}",
            "0123abc",
        ),
        (
            "https://raw.githubusercontent.com/o/r/main/examples/a%20b.sh",
            "examples/a b.sh",
            "https://github.com/o/r/blob/{ref}/{path}",
            "main",
        ),
        ("examples/tuning/7b/a.sh", "examples/tuning/7b/a.sh", None, None),
        ("`a.sh <../examples/tuning/7b/a.sh>`_", None, None, None),
        ("`a.sh <https://github.com/o/r/blob/main/examples/tuning/7b/>`_", None, None, None),
        ("`a.sh <https://example.org/a.sh>`_", None, None, None),
    ],
)
def test_link_cells(cell: str, path: str | None, template: str | None, ref: str | None) -> None:
    from sphinx_rlresources.cli.cells import CellError, read_script
    from sphinx_rlresources.cli.pageread import Cell, Page

    if path is None:
        with pytest.raises(CellError):
            read_script(Cell(cell, 1), Page([]), Path("."), None)
        return
    link, _text = read_script(Cell(cell, 1), Page([]), Path("."), None)
    assert (link.path, link.template, link.ref) == (path, template, ref)


def test_download_links_resolve_against_the_root(tmp_path: Path) -> None:
    from sphinx_rlresources.cli.cells import CellError, read_script
    from sphinx_rlresources.cli.pageread import Cell, Page

    cell = Cell(":download:`a.sh <../examples/tuning/7b/a.sh>`", 1)
    link, text = read_script(cell, Page([]), tmp_path / "docs", tmp_path)
    assert (link.path, text) == ("examples/tuning/7b/a.sh", "a.sh")
    with pytest.raises(CellError, match="pass --root"):
        read_script(cell, Page([]), tmp_path / "docs", None)
    with pytest.raises(CellError, match="leads outside the root"):
        read_script(Cell(":download:`../../x.sh`", 1), Page([]), tmp_path / "docs", tmp_path)
