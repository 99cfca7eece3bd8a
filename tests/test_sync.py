"""``rlresources sync``: Markdown blocks kept true to the data, and ``--check`` as a CI gate.

Everything outside the markers must survive byte for byte (prose, CRLF line endings,
a missing final newline), every marker that cannot be used is a located error that
leaves its file untouched, nothing is written through a link, and what is written is
the table ``render`` draws, which a GFM parser (markdown-it-py with linkify) reads
back cell for cell.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from sphinx_rlresources.cli import main as cli
from sphinx_rlresources.cli.sync import ROW_OPTIONS, SPHINX_ONLY
from sphinx_rlresources.core import columns as cols
from sphinx_rlresources.core.loader import load_dataset
from sphinx_rlresources.core.query import select
from sphinx_rlresources.sphinxext.table import RLResourceTable

TESTS = Path(__file__).parent
REPO = TESTS.parent
READERS = TESTS / "roots" / "test-readers"

README = """\
# Our framework

Which GPUs does each size need? The tables below are checked data.

## 7B

<!-- rl-resource-table 7b :columns: tag, model, resource, link :sort: -resource -->
<!-- /rl-resource-table -->

Prose between the blocks, with a | pipe and <!-- a comment --> kept as written.

## Everything that runs GRPO-LoRA

<!-- rl-resource-table all
     :tasks: GRPO-LoRA
     :columns: size, model, resource, estimate, contributor
     :sort: -estimate
-->
whatever was here before
<!-- /rl-resource-table -->

Closing words.
"""


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


def sync(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(["sync", *argv])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return status, captured.out, captured.err


def outside(text: str) -> str:
    """The text with every block's inside cut out: what sync must never change."""
    return re.sub(r"(<!-- rl-resource-table[^>]*-->).*?(<!-- /rl-resource-table -->)", r"\1\2", text, flags=re.S)


def tables(text: str) -> list[list[list[str]]]:
    """Every table's rows of cell texts, as markdown-it-py (GFM tables, linkify on) reads them.

    Each cell must be plain text or one code span: a link, emphasis or HTML in a cell
    means text from the data became markup.  Links the table makes itself are allowed
    (and their text kept).
    """
    found: list[list[list[str]]] = []
    tokens = MarkdownIt("gfm-like").parse(text)
    row: list[str] = []
    inside = False
    for token in tokens:
        if token.type in ("table_open", "table_close"):
            inside = token.type == "table_open"
            found += [[]] if inside else []
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close":
            found[-1].append(row)
        elif token.type == "inline" and inside:
            kinds = [c.type for c in token.children or []]
            assert set(kinds) <= {"text", "code_inline", "link_open", "link_close"}, kinds
            row.append("".join(c.content for c in token.children or [] if c.type in ("text", "code_inline")))
    return found


def expected_rows(root: Path, size: str, **options: str) -> list[list[str]]:
    """The header and the cells the directive's query gives, straight from core."""
    dataset = load_dataset(root / "data", root)
    chosen = select(dataset, size, columns=options.get("columns"), sort=options.get("sort"),
                    filters={k: v for k, v in options.items() if k in cols.FILTERS})  # fmt: skip
    context = cols.CellContext(dataset)
    header = [cols.COLUMNS[key].header for key in chosen.columns]
    return [header] + [[cols.COLUMNS[key].cell(e, context).text for key in chosen.columns] for e in chosen.entries]


def test_a_readme_with_two_blocks_is_synced_checked_and_synced_again(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = repo / "README.md"
    readme.write_text(README, "utf-8")
    status, out, _ = sync(capsys, "--check", "README.md")
    assert status == 1
    assert "README.md:7: error: the block differs from the table the data gives" in out
    assert "README.md:14: error: the block differs" in out
    assert "    -whatever was here before" in out  # the short diff, indented
    assert readme.read_text("utf-8") == README  # --check writes nothing

    assert sync(capsys, "README.md")[0] == 0
    synced = readme.read_text("utf-8")
    assert outside(synced) == outside(README)
    assert tables(synced) == [
        expected_rows(repo, "7b", columns="tag, model, resource, link", sort="-resource"),
        expected_rows(repo, "all", tasks="GRPO-LoRA", columns="size, model, resource, estimate, contributor",
                      sort="-estimate"),
    ]  # fmt: skip
    assert [row[2] for row in tables(synced)[0][1:]] == ["8*H100", "2*H800", "1*H100"]  # :sort: -resource
    status, out, _ = sync(capsys, "--check", "README.md")
    assert (status, out) == (0, "rlresources: 2 blocks in 1 file, all up to date\n")

    data = repo / "data" / "7b.yaml"
    data.write_text(data.read_text("utf-8").replace("gpus: 8", "gpus: 16"), "utf-8")
    status, out, _ = sync(capsys, "--check", "README.md")
    assert status == 1
    assert out.splitlines()[0].startswith("README.md:7: error: the block differs")
    assert "    -| RECOMMENDED | Qwen2.5-7B | 8\\*H100 |" in out
    assert "    +| RECOMMENDED | Qwen2.5-7B | 16\\*H100 |" in out
    assert "README.md:14" not in out  # the other block is still true
    assert readme.read_text("utf-8") == synced

    # the row now disagrees with its script and its name (errors): the file is left as it was
    status, out, _ = sync(capsys, "README.md")
    assert status == 1 and out.endswith("; 1 file with a problem left as it was\n")
    assert readme.read_text("utf-8") == synced
    assert sync(capsys, "--no-cross-check", "README.md")[0] == 1  # the name still disagrees: still left
    assert readme.read_text("utf-8") == synced
    status, out, _ = sync(capsys, "--check", "README.md")
    assert status == 1
    assert "[rlresources.outdated_block]" in out
    assert "[rlresources.naming]" in out  # the same findings lint reports for the rows drawn
    assert cli.main(["lint"]) == 1
    linted = capsys.readouterr().out.splitlines()[:-1]
    assert len(linted) >= 2  # the name and the script disagree with the row, at the same place
    assert [line for line in out.splitlines() if line.startswith("data/")] == linted


def test_the_findings_are_those_of_the_rows_drawn(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = repo / "examples/tuning/70b/qwen2-70b_grpo_32_h20_fsdp_vllm.sh"
    script.unlink()  # a 70B row's script is gone: lint reports script_missing at that row
    (repo / "README.md").write_text("<!-- rl-resource-table 7b -->\n<!-- /rl-resource-table -->\n", "utf-8")
    status, out, _ = sync(capsys, "README.md")
    assert status == 0 and "script_missing" not in out
    (repo / "B.md").write_text("<!-- rl-resource-table 70b :devices: H800 -->\n<!-- /rl-resource-table -->\n")
    assert sync(capsys, "B.md")[0] == 0  # the H20 row is not drawn
    before = "<!-- rl-resource-table 70b :devices: H20 -->\n<!-- /rl-resource-table -->\n"
    (repo / "C.md").write_text(before)
    status, out, _ = sync(capsys, "C.md")
    assert status == 1
    assert re.search(r"^data/70b.yaml:\d+:\d+: error: .*\[rlresources.script_missing\]$", out, re.M), out
    assert out.endswith("rlresources: 1 block in 1 file; 1 file with a problem left as it was\n")
    assert (repo / "C.md").read_text("utf-8") == before  # an error in a row it draws: left untouched


MALFORMED = [
    # (the file, the error's location, words of its message)
    ("<!-- rl-resource-table 7b -->\ntext\n", "1:1", "never closed"),
    ("text\n<!-- /rl-resource-table -->\n", "2:1", "closes no block"),
    ("<!-- rl-resource-table 7b -->\n<!-- rl-resource-table 70b -->\n<!-- /rl-resource-table -->\n", "1:1",
     "not closed before the next rl-resource-table marker at line 5"),
    ("```markdown\n<!-- rl-resource-table 7b -->\n<!-- /rl-resource-table -->\n```\n", "2:1",
     "inside the code fence opened at line 4"),
    ("~~~~\n```\n  <!-- rl-resource-table 7b -->\n~~~~\n", "3:3", "inside the code fence opened at line 4"),
    ("```\n```python\n<!-- rl-resource-table 7b -->\n```\n", "3:1", "inside the code fence opened at line 4"),
    ("<!-- rl-resource-table 8b -->\n<!-- /rl-resource-table -->\n", "1:24", "unknown size '8b'; did you mean '7B'?"),
    ("<!-- rl-resource-table qqq -->\n<!-- /rl-resource-table -->\n", "1:24",
     "unknown size 'qqq'; the known sizes are: 7B, 70B, 405B"),
    ("<!-- rl-resource-table 7b :colums: tag -->\n<!-- /rl-resource-table -->\n", "1:27",
     "unknown option ':colums:'"),
    ("<!-- rl-resource-table 7b\n   :caption: Ours\n-->\n<!-- /rl-resource-table -->\n", "2:4",
     ":caption: styles or names a Sphinx table and means nothing in Markdown"),
    ("<!-- rl-resource-table 7b :columns: tag, speed -->\n<!-- /rl-resource-table -->\n", "1:37",
     ":columns: names no column 'speed'"),
    ("<!-- rl-resource-table 7b :tags: MIN :tags: RECOMMENDED -->\n<!-- /rl-resource-table -->\n", "1:38",
     ":tags: is given twice"),
    ("<!-- rl-resource-table 7b :sort: -->\n<!-- /rl-resource-table -->\n", "1:27", ":sort: has no value"),
    ("<!-- rl-resource-table :tags: MIN -->\n<!-- /rl-resource-table -->\n", "1:24", "names no size"),
    ("<!-- rl-resource-table 7b 70b -->\n<!-- /rl-resource-table -->\n", "1:27", "'70b' follows the size"),
    ("<!-- rl-resource-table 7b --> hello\n<!-- /rl-resource-table -->\n", "1:30", "text after the marker's '-->'"),
    ("<!-- rl-resource-table 7b\n:tags: MIN\n", "1:1", "never closed with '-->'"),
    ("    <!-- rl-resource-table 7b -->\n<!-- /rl-resource-table -->\n", "1:5", "indented by 4 or more spaces"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "where", "words"), MALFORMED, ids=[m[2][:30] for m in MALFORMED])
def test_a_marker_that_cannot_be_used_is_a_located_error_and_nothing_is_written(
    repo: Path, capsys: pytest.CaptureFixture[str], text: str, where: str, words: str
) -> None:
    good = "<!-- rl-resource-table 7b -->\n<!-- /rl-resource-table -->\n"
    page = repo / "docs" / "page.md"
    page.parent.mkdir()
    page.write_text(good + "\n" + text, "utf-8")  # a good block first: the whole file is still left alone
    other = repo / "other.md"
    other.write_text(good, "utf-8")
    for flags in (["--check"], []):
        status, out, _ = sync(capsys, *flags, "docs/page.md", "other.md")
        line, column = where.split(":")
        location = f"docs/page.md:{int(line) + 3}:{column}: error: "
        assert status == 1
        assert any(o.startswith(location) and words in o for o in out.splitlines()), out
        assert page.read_text("utf-8") == good + "\n" + text
    assert tables(other.read_text("utf-8")) == [expected_rows(repo, "7b")]  # the other file was synced


def test_an_empty_data_folder_says_which_folder_and_which_setting(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A build or sync run with the data setting pointing at the wrong folder: the message
    # names the folder read, not a list of no sizes.
    (repo / "empty").mkdir()
    (repo / "README.md").write_text("<!-- rl-resource-table 7b -->\n<!-- /rl-resource-table -->\n", "utf-8")
    status, out, _ = sync(capsys, "--check", "--data", "empty", "README.md")
    assert status == 1
    assert (
        "README.md:1:24: error: unknown size '7b': the data folder 'empty' has no data files; check the data "
        "setting (rlresources_data, or data in [tool.rlresources]) or import a page [rlresources.unknown_size]"
    ) in out.splitlines()


def test_the_options_are_the_directives(repo: Path) -> None:
    assert set(ROW_OPTIONS) | set(SPHINX_ONLY) == set(RLResourceTable.option_spec)
    assert not set(ROW_OPTIONS) & set(SPHINX_ONLY)


def test_crlf_files_keep_crlf(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = README.replace("\n", "\r\n")
    readme = repo / "README.md"
    readme.write_bytes(text.encode())
    assert sync(capsys, "README.md")[0] == 0
    synced = readme.read_bytes().decode()
    assert "\n" not in synced.replace("\r\n", "")  # every line ends in CRLF, the table's too
    assert outside(synced) == outside(text)
    assert tables(synced)[0] == expected_rows(repo, "7b", columns="tag, model, resource, link", sort="-resource")
    assert sync(capsys, "--check", "README.md")[0] == 0


def test_a_block_at_the_end_of_a_file_without_a_final_newline(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = "\ufeffIntro\n\n<!-- rl-resource-table 405b -->\nold\n<!-- /rl-resource-table -->"
    readme = repo / "README.md"
    readme.write_text(text, "utf-8")
    assert sync(capsys, "README.md")[0] == 0
    assert readme.read_text("utf-8") == (
        "\ufeffIntro\n\n<!-- rl-resource-table 405b -->\n\nNo configuration has been verified for 405B yet.\n\n"
        "<!-- /rl-resource-table -->"
    )
    assert sync(capsys, "--check", "README.md")[0] == 0


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
@pytest.mark.parametrize("leads", ["inside", "outside"])
def test_a_linked_file_is_refused_and_nothing_is_written(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], leads: str
) -> None:
    target = (repo / "real.md") if leads == "inside" else (tmp_path / "elsewhere.md")
    target.write_text("<!-- rl-resource-table 7b -->\n<!-- /rl-resource-table -->\n", "utf-8")
    (repo / "README.md").symlink_to(target)
    good = repo / "good.md"
    good.write_text("<!-- rl-resource-table 7b -->\n<!-- /rl-resource-table -->\n", "utf-8")
    for flags in (["--check"], []):
        status, out, err = sync(capsys, *flags, "good.md", "README.md")
        assert status == 2
        assert err.startswith("rlresources: error: 'README.md' is a symbolic link; nothing is written through a link")
        assert err.count("\n") == 1 and out == ""
    assert target.read_text("utf-8") == "<!-- rl-resource-table 7b -->\n<!-- /rl-resource-table -->\n"
    assert good.read_text("utf-8") == "<!-- rl-resource-table 7b -->\n<!-- /rl-resource-table -->\n"


def test_files_that_cannot_be_read_stop_the_command(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "latin1.md").write_bytes(b"caf\xe9\n")
    (tmp_path / "out.md").write_text("x", "utf-8")
    (repo / "folder.md").mkdir()
    for name, message in [
        ("missing.md", "'missing.md' does not exist; nothing was written"),
        ("latin1.md", "'latin1.md' is not UTF-8 text (byte 4); nothing was written"),
        ("folder.md", "'folder.md' is a folder, not a regular file"),
        (str(tmp_path / "out.md"), "lies outside the repository root"),
    ]:
        status, _out, err = sync(capsys, name)
        assert status == 2 and err.startswith("rlresources: error: ") and message in err, err
        assert err.count("\n") == 1


def test_github_annotations(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "README.md").write_text(README, "utf-8")
    status, out, _ = sync(capsys, "--check", "--format", "github", "README.md")
    assert status == 1
    first = out.splitlines()[0]
    assert first.startswith("::error file=README.md,line=7,title=rlresources.outdated_block::the block differs")
    assert all(not line.startswith("::") or line.startswith("::error file=README.md") for line in out.splitlines())


def test_markdown_never_lets_the_data_become_a_link(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = repo / "data" / "7b.yaml"
    text = data.read_text("utf-8")
    text = text.replace("contributor: Xiangyongan", "contributor: https://evil.example", 1)
    text = text.replace("contributor: SimonHuang", "contributor: a@b.c", 1)
    text = text.replace("model: Qwen2-7B", "model: www.evil.example", 1)
    data.write_text(text, "utf-8")
    readme = repo / "README.md"
    readme.write_text("<!-- rl-resource-table 7b :columns: model, contributor -->\n<!-- /rl-resource-table -->\n")
    status, out, _ = sync(capsys, "README.md")
    assert status == 1 and "[rlresources.script_model]" in out  # the script trains Qwen2-7B: an error, left as is
    assert readme.read_text("utf-8").count("\n") == 2
    assert sync(capsys, "--no-cross-check", "README.md")[0] == 0  # the data alone is valid: drawn
    synced = readme.read_text("utf-8")
    assert "`https://evil.example`" in synced and "`a@b.c`" in synced
    assert tables(synced)[0][1:3] == [["www.evil.example", "https://evil.example"], ["Qwen2.5-7B", "a@b.c"]]
    tokens = MarkdownIt("gfm-like").parse(synced)
    assert not [t for t in tokens if t.type == "inline" and any(c.type == "link_open" for c in t.children or [])]
    assert (
        cli.main(["render", "7b", "--format", "markdown", "--columns", "model, contributor", "--no-cross-check"]) == 0
    )
    assert capsys.readouterr().out in synced  # the block is what render draws


def test_this_projects_readme_is_in_sync(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The README's block shows the 70B rows of data/: a data change without a sync fails here."""
    monkeypatch.chdir(REPO)
    status, out, _ = sync(capsys, "--check", "README.md")
    assert (status, out) == (0, "rlresources: 1 block in 1 file, all up to date\n")


def test_the_docs_example_is_what_sync_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/without-sphinx.rst shows a README before and after a sync, with this repository's data."""
    page = (REPO / "docs" / "without-sphinx.rst").read_text("utf-8")
    blocks = re.findall(r"\.\. code-block:: markdown\n\n((?:   .*\n|\n)+)", page)
    before, after = (re.sub(r"^   ", "", block, flags=re.M).strip("\n") + "\n" for block in blocks[:2])
    root = tmp_path / "repo"
    shutil.copytree(REPO / "data", root / "data")
    shutil.copytree(REPO / "examples", root / "examples")
    (root / "pyproject.toml").write_text('[tool.rlresources]\ndata = "data"\nroot = "."\n', "utf-8")
    (root / "README.md").write_text(before, "utf-8")
    monkeypatch.chdir(root)
    assert sync(capsys, "README.md") == (0, "rlresources: updated 2 of 2 blocks in 1 file (1 file written)\n", "")
    assert (root / "README.md").read_text("utf-8").endswith(after)
