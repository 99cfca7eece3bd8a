"""What frameworks measure: optional, typed fields, each one column, shown only when asked for.

NeMo-RL's performance summary (docs/guides/performance-summary.md in NVIDIA-NeMo/RL)
lists GPUs, sequence lengths, batch sizes, parallelism, tokens/s/GPU and step time for
each recipe; the rows here carry the same kinds of figures.  A row with them draws the
same default table as before, byte for byte; ``:columns:`` (or ``--columns``) shows them
in the table, ``render``, ``sync`` and the JSON export, and a description's
``[text](url)`` is the only markup it may hold.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import unbroken
from docutils import nodes
from docutils.core import publish_doctree
from markdown_it import MarkdownIt
from sphinx.cmd.build import build_main

from sphinx_rlresources.cli.main import main as rlresources
from sphinx_rlresources.core.richtext import Run, runs

READERS = Path(__file__).parent / "roots" / "test-readers"
MEASURED = """    seq_len: {prompt: 1024, response: 3072}
    global_batch: 512
    parallelism: {tp: 4, pp: 2}
    throughput: 1520.5
    step_time: 42
    peak_memory: 61.25
    evidence: https://wandb.ai/org/project/runs/abc123
    description: "DAPO recipe, see [the logs](https://wandb.ai/org/project/runs/abc123) and <b>*this*</b>"
"""
COLUMNS = "model, seq_len, global_batch, parallelism, throughput, step_time, peak_memory, logs, description"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(READERS / "data", root / "data")
    shutil.copytree(READERS / "examples", root / "examples")
    (root / "pyproject.toml").write_text('[tool.rlresources]\ndata = "data"\nroot = "."\nscripts = []\n', "utf-8")
    return root


def _measure(root: Path) -> None:
    """Give the 7B file's last row (8 GPUs) the measured fields."""
    path = root / "data" / "7b.yaml"
    path.write_text(path.read_text("utf-8").rstrip("\n") + "\n" + MEASURED, "utf-8")


def _render(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert rlresources(["render", "7b", *argv]) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def test_the_default_table_is_byte_identical_with_measured_fields(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(repo)
    before = [_render(capsys), _render(capsys, "--format", "markdown")]
    _measure(repo)
    assert rlresources(["lint"]) == 0, capsys.readouterr().out
    capsys.readouterr()
    assert [_render(capsys), _render(capsys, "--format", "markdown")] == before


def test_render_shows_the_measured_columns(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _measure(repo)
    monkeypatch.chdir(repo)
    markdown = _render(capsys, "--format", "markdown", "--columns", COLUMNS)
    lines = markdown.splitlines()
    assert lines[0] == (
        "| Model | Seq len | Global batch | Parallelism | Tokens/s/GPU | Step time | Peak memory | Logs | Description |"
    )
    assert lines[-1] == (
        "| Qwen2.5-7B | prompt 1024, response 3072 | 512 | TP4 PP2 | 1520.5 | 42 s | 61.25 GiB "
        "| [wandb.ai](https://wandb.ai/org/project/runs/abc123) "
        "| DAPO recipe, see [the logs](https://wandb.ai/org/project/runs/abc123) and \\<b\\>\\*this\\*\\</b\\> |"
    )
    assert lines[2] == "| Qwen2-7B |  |  |  |  |  |  |  |  |"  # nothing measured: empty cells
    # the description's one link is the only link a Markdown renderer makes of it
    tokens = MarkdownIt("gfm-like").parse(lines[-1].split(" | ")[-1].rstrip(" |"))
    links = [c.attrs["href"] for t in tokens if t.children for c in t.children if c.type == "link_open"]
    assert links == ["https://wandb.ai/org/project/runs/abc123"]
    assert "<b>" not in MarkdownIt("gfm-like").render(markdown)
    rst = _render(capsys, "--columns", "model, description")
    # reST: docutils reads the cell back as the same text with the one link
    doctree = publish_doctree(rst, settings_overrides={"report_level": 2, "halt_level": 2})
    last = list(doctree.findall(nodes.entry))[-1]
    assert last.astext() == "DAPO recipe, see the logs and <b>*this*</b>"
    assert [r["refuri"] for r in last.findall(nodes.reference)] == ["https://wandb.ai/org/project/runs/abc123"]


def test_a_description_links_only_safe_markdown_links() -> None:
    assert runs("see [logs](https://x.org/a) or [run](http://y.org/b).") == (
        Run("see "), Run("logs", "https://x.org/a"), Run(" or "), Run("run", "http://y.org/b"), Run("."),
    )  # fmt: skip
    for literal in (
        "[x](javascript:alert(1))",
        "[x](data:text/html,hi)",
        "[x](/relative/path)",
        "[x](mailto:a@b.c)",
        '[x](https://a.org/"onmouseover=1)',
        "<https://a.org>",
        "**bold** _it_ `code`",
    ):
        assert runs(literal) == (Run(literal),), literal


def test_the_build_and_the_json_show_them(repo: Path, tmp_path: Path) -> None:
    _measure(repo)
    (repo / "conf.py").write_text(
        'extensions = ["sphinx_rlresources"]\nrlresources_data_dir = "data"\nrlresources_root = "."\n', "utf-8"
    )
    (repo / "index.rst").write_text(f"Sizes\n=====\n\n.. rl-resource-table:: 7b\n   :columns: {COLUMNS}\n", "utf-8")
    out = tmp_path / "html"
    assert build_main(["-q", "-W", "-N", "-E", str(repo), str(out)]) == 0
    page = (out / "index.html").read_text("utf-8")
    cell = unbroken(re.findall(r"<td [^>]*class=\"rl-col-description\"[^>]*><p>(.*?)</p></td>", page, re.S)[-1])
    assert cell == (
        '<span>DAPO recipe, see <a class="reference external" href="https://wandb.ai/org/project/runs/abc123">'
        "the logs</a> and &lt;b&gt;*this*&lt;/b&gt;</span>"
    )
    page = unbroken(page)
    assert ">TP4 PP2<" in page and ">61.25 GiB<" in page and ">prompt 1024, response 3072<" in page
    data = json.loads((out / "_static" / "rlresources" / "data.json").read_text("utf-8"))
    row = [r for r in data["rows"] if r["size"] == "7B"][-1]
    assert row["parallelism"] == {"tp": 4, "pp": 2} and row["seq_len"] == {"prompt": 1024, "response": 3072}
    assert (row["throughput"], row["step_time"], row["peak_memory"], row["global_batch"]) == (1520.5, 42, 61.25, 512)
    assert row["cells"]["description"] == "DAPO recipe, see the logs and <b>*this*</b>"
    assert row["runs"]["description"][1] == ["the logs", "https://wandb.ai/org/project/runs/abc123"]
    assert row["links"]["logs"]["url"] == "https://wandb.ai/org/project/runs/abc123"
    assert data["rows"][0]["runs"] == {} and data["rows"][0]["parallelism"] is None


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("    throughput: 0", "throughput"),
        ("    parallelism: {}", "parallelism"),
        ("    parallelism: {tp: 0}", "parallelism"),
        ("    seq_len: {total: 4096}", "seq_len"),
        ("    global_batch: lots", "global_batch"),
        ("    description: ''", "description"),
    ],
)
def test_lint_refuses_a_bad_measured_value_at_its_line(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], line: str, said: str
) -> None:
    path = repo / "data" / "7b.yaml"
    text = path.read_text("utf-8").rstrip("\n") + "\n" + line + "\n"
    path.write_text(text, "utf-8")
    monkeypatch.chdir(repo)
    assert rlresources(["lint"]) == 1
    out = capsys.readouterr().out
    number = text.count("\n")
    assert f"data/7b.yaml:{number}:" in out and said in out, out


def test_the_data_format_page_example_is_what_render_prints(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/data-format.rst "What was measured": its row, lint-clean, and the command's output as shown."""
    page = (Path(__file__).parent.parent / "docs" / "data-format.rst").read_text("utf-8")
    section = page[page.index("What was measured\n") : page.index("A contributor\n")]
    row = re.search(r"\.\. code-block:: yaml\n\n((?:   .*\n)+)", section)
    console = re.search(r"\.\. code-block:: console\n\n   \$ rlresources (.*)\n((?:   .*\n)+)", section)
    assert row and console
    path = repo / "data" / "7b.yaml"
    kept = path.read_text("utf-8").split("  - tag: RECOMMENDED")[0]  # the page's row stands for the 8-GPU one
    path.write_text(kept + re.sub(r"^   ", "  ", row.group(1), flags=re.M), "utf-8")
    script = repo / "examples" / "tuning" / "7b" / "qwen2.5-7b_grpo_8_h100_fsdp_sglang.sh"
    assert script.is_file()
    monkeypatch.chdir(repo)
    assert rlresources(["lint", "--data", "data"]) == 0, capsys.readouterr().out
    capsys.readouterr()
    assert rlresources(console.group(1).split()) == 0
    assert capsys.readouterr().out == re.sub(r"^   ", "", console.group(2), flags=re.M)
