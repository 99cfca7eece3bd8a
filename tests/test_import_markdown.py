# ruff: noqa: E501 - a README table row is one long line
"""``rlresources import`` reads Markdown pages: GitHub pipe tables and MyST list-tables.

The README table below is written in the idiom of OpenRLHF's README (a pipe table whose
Link cells are relative links into the repository; README.md in OpenRLHF/OpenRLHF) and
the MyST page in that of NeMo-RL's docs (a ``{list-table}`` fence; docs/ in
NVIDIA-NeMo/RL); both are this project's own text.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from sphinx_rlresources.cli import main as cli

README = """# Hardware

Rows verified on our cluster.

## 7B

| Tag | Model | Task | Resource | MaxBatch | Train | Infer | Link | Contributor |
| --- | --- | :---: | --- | ---: | --- | --- | --- | --- |
| MIN | Qwen2.5-7B | GRPO | 8*H100 | 64 | fsdp | vllm0.8.3 | [qwen2.5-7b_grpo_8_h100_fsdp_vllm.sh](./examples/tuning/7b/qwen2.5-7b_grpo_8_h100_fsdp_vllm.sh) | [Ann Lee](https://github.com/annlee) |
| RECOMMENDED | `Qwen2.5-7B` | GRPO | 16*H100 | \\- | megatron | sglang0.4.6 | [run][r16] | Bo |
| MIN | GRPO-LoRA | 1*H100 | 16 | fsdp | vllm0.8.3 |

```bash
| not | a | table |
| --- | --- | --- |
```

[r16]: examples/tuning/7b/qwen2.5-7b_grpo_16_h100_megatron_sglang.sh
"""

MYST = """# Hardware

## 70B

```{list-table}
:header-rows: 1

* - Tag
  - Model
  - Task
  - Resource
  - MaxBatch
  - Train
  - Infer
  - Link
  - Contributor
* - MIN
  - Qwen2.5-72B
  - GRPO-LoRA
  - 8*H100
  - 176
  - fsdp
  - vllm0.8.3
  - [qwen2.5-72b_grpo-lora_8_h100_fsdp_vllm.sh](../examples/tuning/70b/qwen2.5-72b_grpo-lora_8_h100_fsdp_vllm.sh)
  - SimonHuang
```
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    status = cli.main(list(argv))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return status, captured.out.splitlines() + captured.err.splitlines()


def read(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for script in (
        "7b/qwen2.5-7b_grpo_8_h100_fsdp_vllm.sh",
        "7b/qwen2.5-7b_grpo_16_h100_megatron_sglang.sh",
        "70b/qwen2.5-72b_grpo-lora_8_h100_fsdp_vllm.sh",
    ):
        path = tmp_path / "examples" / "tuning" / script
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/bin/bash\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_readme_pipe_table_is_imported(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "README.md").write_text(README, encoding="utf-8")
    status, out = run(capsys, "import", "README.md", "--out", "data", "--root", ".")
    assert status == 0, out
    rows = read(repo / "data" / "7b.yaml")["entries"]
    assert rows[0] == {
        "tag": "MIN", "model": "Qwen2.5-7B", "task": "GRPO", "gpus": 8, "device": "H100", "max_batch": 64,
        "train": "fsdp", "infer": "vllm", "infer_version": "0.8.3",
        "script": "examples/tuning/7b/qwen2.5-7b_grpo_8_h100_fsdp_vllm.sh",
        "contributor": {"name": "Ann Lee", "github": "annlee"},
    }  # fmt: skip
    assert rows[1]["model"] == "Qwen2.5-7B" and rows[1]["max_batch"] is None  # `code` unwrapped, \- is "-"
    assert rows[1]["script"] == "examples/tuning/7b/qwen2.5-7b_grpo_16_h100_megatron_sglang.sh"  # a reference link
    assert rows[2]["model"] == "TODO" and rows[2]["task"] == "GRPO-LoRA" and rows[2]["contributor"] == "TODO"
    assert any("README.md:11: warning: it has 6 cells but the header at line 7 has 9" in line for line in out)
    assert out[-1] == (
        "rlresources: 3 rows in 1 size imported; every cell carried over; 3 placeholders (TODO) to fill in, "
        "named by rlresources lint"
    )


def test_a_myst_list_table_is_imported_with_links_relative_to_the_page(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "docs").mkdir()
    (repo / "docs" / "hardware.md").write_text(MYST, encoding="utf-8")
    status, out = run(capsys, "import", "docs/hardware.md", "--out", "data", "--root", ".")
    assert status == 0, out
    (row,) = read(repo / "data" / "70b.yaml")["entries"]
    assert row["script"] == "examples/tuning/70b/qwen2.5-72b_grpo-lora_8_h100_fsdp_vllm.sh"
    assert (row["model"], row["max_batch"], row["contributor"]) == ("Qwen2.5-72B", 176, "SimonHuang")


def test_a_link_out_of_the_repository_is_refused(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = README.replace("./examples/tuning/7b/qwen2.5-7b_grpo_8_h100_fsdp_vllm.sh", "../../etc/x.sh")
    (repo / "README.md").write_text(page, encoding="utf-8")
    status, out = run(capsys, "import", "README.md", "--out", "data", "--root", ".")
    assert status == 1
    assert any(
        "the link '[qwen2.5-7b_grpo_8_h100_fsdp_vllm.sh](../../etc/x.sh)' leads outside the root" in o for o in out
    )


def test_a_markdown_page_without_sizes_says_how_it_was_read(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "notes.md").write_text("# Notes\n\nNothing here.\n", encoding="utf-8")
    status, out = run(capsys, "import", "notes.md", "--out", "data")
    assert status == 2
    assert out == [
        "rlresources: error: the page 'notes.md', read as Markdown (by its suffix), has no heading that names a "
        "size (7B, 70B) and no table whose scripts do"
    ]


DOCS = Path(__file__).parent.parent / "docs" / "cli.rst"


def _block(text: str, kind: str, after: str) -> str:
    found = re.search(rf"\.\. code-block:: {kind}\n\n((?:   .*\n|\n)+)", text[text.index(after) :])
    assert found, (kind, after)
    return re.sub(r"^   ", "", found.group(1), flags=re.M).strip("\n") + "\n"


def _sessions(console: str) -> list[tuple[list[str], list[str]]]:
    """Each ``$ command`` of a console block with the lines it shows."""
    found: list[tuple[list[str], list[str]]] = []
    for line in console.splitlines():
        if line.startswith("$ "):
            found.append((line[2:].split()[1:], []))
        else:
            found[-1][1].append(line)
    return found


def _shows(out: list[str], shown: list[str]) -> None:
    """The lines shown, in order, with ``...`` standing for lines left out (and only there)."""
    at = 0
    for number, line in enumerate(shown):
        if line == "...":
            continue
        if number == 0 or shown[number - 1] != "...":
            assert out[at] == line, (out[at], line)
        else:
            at = out.index(line, at)
        at += 1
    assert shown[-1] == "..." or at == len(out)


def test_the_cli_page_import_examples_are_what_import_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/cli.rst: a README's table, imported as the page shows it."""
    monkeypatch.chdir(tmp_path)
    text = DOCS.read_text(encoding="utf-8")
    readme = tmp_path / "readme"
    script = readme / "examples" / "tuning" / "7b" / "qwen2.5-7b_grpo_8_h100_fsdp_vllm.sh"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/bash\n", encoding="utf-8")
    (readme / "README.md").write_text(_block(text, "markdown", "A Markdown page, a README's table"), encoding="utf-8")
    monkeypatch.chdir(readme)
    assert run(capsys, "schema", "--out", "data/rlresources.schema.json")[0] == 0
    ((argv, shown),) = _sessions(_block(text, "console", "A Markdown page, a README's table"))
    _shows(run(capsys, *argv)[1], shown)
