"""Output that a machine or a terminal reads never takes orders from the data (issue 19).

Three readers act on our lines: GitHub Actions runs a line that starts with ``::`` as a
workflow command, a CI log shows a line break as a new line (so a file name holding
one forges a finding), and a terminal obeys ESC and BEL.  Every name or value we print
goes through :func:`sphinx_rlresources.safe.text.shown` / ``one_line``, and no line
starts with text from the data.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sphinx.cmd.build import build_main

from sphinx_rlresources.cli.main import main as rlresources
from sphinx_rlresources.core.diagnostics import Diagnostic, Subtype
from sphinx_rlresources.safe.text import one_line, safe_start, shown

ROW = """\
size: 7B
entries:
  - tag: MIN
    model: Qwen2.5-7B
    task: GRPO
    gpus: 8
    device: H100
    max_batch: 16
    train: fsdp
    infer: vllm
    script: {script}
    contributor: Simon
"""
CONTROL = "\x1b]0;owned\x07\x1b[2J"


def repo(tmp_path: Path) -> Path:
    (tmp_path / "data").mkdir()
    (tmp_path / "examples" / "tuning" / "7b").mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text('[tool.rlresources]\ndata = "data"\n', encoding="utf-8")
    return tmp_path


def test_the_one_quoting_function() -> None:
    assert shown("a\nb") == "'a\\nb'"
    assert shown("x" * 100) == "'" + "x" * 59 + "…'"
    assert one_line(CONTROL) == "\\x1b]0;owned\\x07\\x1b[2J"
    assert one_line("gnp.exe\u202e") == "gnp.exe\\u202e"
    assert safe_start("::error file=a::b") == "./::error file=a::b"
    assert safe_start("data/7b.yaml") == "data/7b.yaml"


def test_an_orphan_script_cannot_issue_a_workflow_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = repo(tmp_path)
    folder = root / "examples" / "tuning" / "7b"
    (folder / "::error file=README.md,line=1::pwned_grpo_8_h100_fsdp_vllm.sh").write_text("echo\n", encoding="utf-8")
    (folder / "qwen2-7b_grpo_8_h100_fsdp_vllm.sh").write_text("echo\n", encoding="utf-8")
    (root / "data" / "7b.yaml").write_text(
        ROW.format(script="examples/tuning/7b/qwen2-7b_grpo_8_h100_fsdp_vllm.sh"), encoding="utf-8"
    )
    monkeypatch.chdir(root)
    assert rlresources(["lint"]) == 1
    out = capsys.readouterr().out
    assert "pwned_grpo" in out
    assert not [line for line in out.splitlines() if line.startswith("::")]


def test_a_file_name_with_a_line_break_cannot_forge_a_log_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = repo(tmp_path)
    forged = "7b.yaml\nforged.yaml:1:1: error: forged"
    (root / "data" / "7b.yaml").write_text("size: [", encoding="utf-8")
    (root / "data" / f"{forged}.yaml").write_text("size: [", encoding="utf-8")
    monkeypatch.chdir(root)
    assert rlresources(["lint"]) == 1
    assert rlresources(["render", "7b"]) == 1
    out, err = capsys.readouterr()
    for line in (out + err).splitlines():
        assert not line.startswith("forged.yaml"), line
    src = root / "docs"
    src.mkdir()
    (src / "conf.py").write_text(
        'extensions = ["sphinx_rlresources"]\nrlresources_data_dir = "../data"\nrlresources_root = ".."\n', "utf-8"
    )
    (src / "index.rst").write_text("T\n=\n\n.. rl-resource-table:: 7b\n", encoding="utf-8")
    warnings = tmp_path / "warnings.txt"
    build_main(["-q", "-b", "html", "-w", str(warnings), str(src), str(tmp_path / "out")])
    logged = warnings.read_text(encoding="utf-8")
    assert "\\n" in logged
    assert not [line for line in logged.splitlines() if line.startswith("forged.yaml")]


def test_import_never_prints_a_cells_control_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    page = (
        "7B\n~~\n\n.. list-table::\n   :header-rows: 1\n\n   * - Tag\n     - Model\n     - Task\n     - Resource\n"
        "     - MaxBatch\n     - Train\n     - Infer\n     - Link\n     - Contributor\n   * - MIN\n"
        f"     - Qwen{CONTROL}\n     - GRPO\n     - 8*H100\n     - 16\n     - fsdp\n     - vllm\n"
        f"     - examples/tuning/7b/a.sh\n     - Simon\n   * - MIN\n     - {CONTROL}\n"
    )
    (tmp_path / "page.rst").write_text(page, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    rlresources(["import", "page.rst", "--out", "data"])
    out, err = capsys.readouterr()
    assert "owned" in out  # the cell is reported ...
    assert "\x1b" not in out + err and "\x07" not in out + err  # ... with its control bytes escaped


def test_every_diagnostic_location_and_message_is_one_printable_line() -> None:
    found = Diagnostic("::x\n.yaml", 3, 4, Subtype.SCHEMA, f"bad {CONTROL}\nline")
    line = found.format()
    assert line.isprintable() and "\n" not in line
    assert line.startswith("./::x\\n.yaml:3:4: error: bad \\x1b]0;owned")
