"""``sync`` keeps a README's style: relative links to its own repository's scripts, and a description.

READMEs link their scripts relatively (``[x.sh](./examples/scripts/x.sh)``, as OpenRLHF's
README.md in OpenRLHF/OpenRLHF does); ``sync --relative-links`` writes such links from
each file's own folder, for scripts of the working tree only, and never a link a
renderer could read as a scheme.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from helpers import commit, git
from markdown_it import MarkdownIt

from sphinx_rlresources.cli import main as cli
from sphinx_rlresources.core.urls import relative_link, safe_relative

TESTS = Path(__file__).parent
READERS = TESTS / "roots" / "test-readers"
BLOCK = "<!-- rl-resource-table 7b :columns: model, link -->\n<!-- /rl-resource-table -->\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(READERS / "data", root / "data")
    shutil.copytree(READERS / "examples", root / "examples")
    (root / "pyproject.toml").write_text(
        '[tool.rlresources]\ndata = "data"\nroot = "."\nscripts = ["examples/tuning"]\n', "utf-8"
    )
    monkeypatch.chdir(root)
    return root


def sync(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = cli.main(["sync", *argv])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return status, captured.out


def hrefs(markdown: str) -> list[str]:
    tokens = MarkdownIt("gfm-like").parse(markdown)
    return [c.attrs["href"] for t in tokens if t.children for c in t.children if c.type == "link_open"]


def test_relative_links_from_each_files_folder(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "README.md").write_text(BLOCK, "utf-8")
    (repo / "docs" / "guide").mkdir(parents=True)
    (repo / "docs" / "guide" / "hardware.md").write_text(BLOCK, "utf-8")
    status, out = sync(capsys, "--relative-links", "README.md", "docs/guide/hardware.md")
    assert (status, out) == (0, "rlresources: updated 2 of 2 blocks in 2 files (2 files written)\n")
    readme = (repo / "README.md").read_text("utf-8")
    assert (
        "| Qwen2-7B | [qwen2-7b_grpo_2_h800_fsdp_vllm.sh](./examples/tuning/7b/qwen2-7b_grpo_2_h800_fsdp_vllm.sh) |"
        in readme
    )
    assert hrefs(readme) == [
        "./examples/tuning/7b/qwen2-7b_grpo_2_h800_fsdp_vllm.sh",
        "./examples/tuning/7b/qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh",
        "./examples/tuning/7b/qwen2.5-7b_grpo_8_h100_fsdp_sglang.sh",
    ]
    nested = hrefs((repo / "docs" / "guide" / "hardware.md").read_text("utf-8"))
    assert nested[0] == "../../examples/tuning/7b/qwen2-7b_grpo_2_h800_fsdp_vllm.sh"
    for link in nested:  # each leads to the file, read from the page's folder as GitHub reads it
        assert (repo / "docs" / "guide" / link).resolve().is_file()
    assert sync(capsys, "--check", "--relative-links", "README.md")[0] == 0
    assert sync(capsys, "--check", "README.md")[0] == 1  # without the flag the block draws no links


def test_a_pinned_row_keeps_its_absolute_link(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A script pinned at a commit (``script_ref``) is read from git, not the working tree: a relative
    link would lead to the tree's file (or to nothing), so it keeps the --script-url link at its commit."""
    git(repo, "init", "-q")
    sha = commit(repo, "scripts", "2025-06-25T12:00:00+00:00")
    data = repo / "data" / "7b.yaml"
    pinned = "    script: examples/tuning/7b/qwen2-7b_grpo_2_h800_fsdp_vllm.sh\n"
    data.write_text(data.read_text("utf-8").replace(pinned, pinned + f"    script_ref: {sha}\n", 1), "utf-8")
    (repo / "README.md").write_text(BLOCK, "utf-8")
    argv = ["--relative-links", "--script-url", "https://github.com/o/r/blob/{ref}/{path}", "--no-cross-check"]
    assert sync(capsys, *argv, "README.md")[0] == 0
    assert hrefs((repo / "README.md").read_text("utf-8")) == [
        f"https://github.com/o/r/blob/{sha}/examples/tuning/7b/qwen2-7b_grpo_2_h800_fsdp_vllm.sh",
        "./examples/tuning/7b/qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh",
        "./examples/tuning/7b/qwen2.5-7b_grpo_8_h100_fsdp_sglang.sh",
    ]


def test_the_description_column_is_synced_with_its_links(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = repo / "data" / "7b.yaml"
    data.write_text(
        data.read_text("utf-8").rstrip("\n") + '\n    description: "see [logs](https://example.org/run/7) `x`"\n',
        "utf-8",
    )
    (repo / "README.md").write_text(BLOCK.replace("model, link", "model, description"), "utf-8")
    assert sync(capsys, "README.md")[0] == 0
    readme = (repo / "README.md").read_text("utf-8")
    assert "| Qwen2.5-7B | see [logs](https://example.org/run/7) \\`x\\` |" in readme
    assert hrefs(readme) == ["https://example.org/run/7"]


@pytest.mark.parametrize(
    ("folder", "path", "link"),
    [
        ("", "examples/x.sh", "./examples/x.sh"),
        ("docs", "examples/x.sh", "../examples/x.sh"),
        ("examples/a", "examples/b/x.sh", "../b/x.sh"),
        ("examples", "examples/x.sh", "./x.sh"),
        ("", "javascript:alert(1).sh", None),
        ("", "a b.sh", None),
        ("", "x<y>.sh", None),
    ],
)
def test_a_relative_link_is_plain(folder: str, path: str, link: str | None) -> None:
    assert relative_link(folder, path) == link
    assert safe_relative("javascript:x") is None and safe_relative(".//evil.example") is None


def test_a_file_with_an_error_is_left_untouched(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/cli.rst: a file whose blocks draw a row with an error is not written, nor are its good blocks."""
    (repo / "examples" / "tuning" / "7b" / "qwen2-7b_grpo_2_h800_fsdp_vllm.sh").unlink()
    before = "# Ours\n\n" + BLOCK + "\n" + BLOCK.replace("7b", "70b")
    (repo / "README.md").write_text(before, "utf-8")
    status, out = sync(capsys, "README.md")
    assert status == 1
    assert re.search(r"^data/7b.yaml:\d+:\d+: error: .*\[rlresources.script_missing\]$", out, re.M), out
    assert out.splitlines()[-1] == "rlresources: 2 blocks in 1 file; 1 file with a problem left as it was"
    assert (repo / "README.md").read_text("utf-8") == before


def test_the_docs_relative_links_example_is_what_sync_writes(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/without-sphinx.rst "A README's own links": the file before, the command's output, the file after."""
    page = (TESTS.parent / "docs" / "without-sphinx.rst").read_text("utf-8")
    section = page[page.index("A README's own links and descriptions\n") : page.index("A file is left as it was\n")]
    before, after = (
        re.sub(r"^   ", "", block, flags=re.M).strip("\n") + "\n"
        for block in re.findall(r"\.\. code-block:: markdown\n\n((?:   .*\n|\n)+)", section)
    )
    command, output = re.findall(r"\.\. code-block:: console\n\n   \$ rlresources (.*)\n   (.*)\n", section)[0]
    (repo / "README.md").write_text(before, "utf-8")
    assert sync(capsys, *command.split()[1:]) == (0, output + "\n")
    assert (repo / "README.md").read_text("utf-8") == after
