"""``rlresources sync`` against hostile files: what it writes, when it refuses, what it reports.

A README is the user's file: sync keeps its permission bits, never replaces one the user
could not write, never loses an edit made while it ran, never writes more than it could
read back, and says so when a marker is almost right instead of passing over its table.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from sphinx_rlresources.cli import main as cli
from sphinx_rlresources.cli import sync as sync_module
from sphinx_rlresources.cli.blocks import scan

TESTS = Path(__file__).parent
READERS = TESTS / "roots" / "test-readers"
BLOCK = "<!-- rl-resource-table 7b :columns: tag, model -->\nstale\n<!-- /rl-resource-table -->\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(READERS / "data", root / "data")
    shutil.copytree(READERS / "examples", root / "examples")
    (root / "pyproject.toml").write_text('[tool.rlresources]\ndata = "data"\nroot = "."\n', "utf-8")
    monkeypatch.chdir(root)
    return root


def sync(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(["sync", *argv])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return status, captured.out, captured.err


# -- the file's mode -------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o644, 0o664, 0o700])
def test_a_synced_file_keeps_its_permission_bits(repo: Path, capsys: pytest.CaptureFixture[str], mode: int) -> None:
    readme = repo / "README.md"
    readme.write_text(BLOCK, "utf-8")
    readme.chmod(mode)
    assert sync(capsys, "README.md")[0] == 0
    assert readme.read_text("utf-8") != BLOCK  # it was written
    assert stat.S_IMODE(readme.stat().st_mode) == mode


def test_set_id_bits_are_not_carried_over(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    readme = repo / "README.md"
    readme.write_text(BLOCK, "utf-8")
    readme.chmod(0o4755)
    assert sync(capsys, "README.md")[0] == 0
    assert stat.S_IMODE(readme.stat().st_mode) == 0o755


@pytest.mark.parametrize("mode", [0o444, 0o400, 0o000])
def test_a_read_only_file_is_refused_and_left_as_it_is(
    repo: Path, capsys: pytest.CaptureFixture[str], mode: int
) -> None:
    readme = repo / "README.md"
    readme.write_text(BLOCK, "utf-8")
    readme.chmod(mode)
    try:
        status, _out, err = sync(capsys, "README.md")
        if mode == 0o000 and os.geteuid() != 0:
            assert status == 2 and "cannot be read" in err
            return
        assert status == 2
        assert "README.md' is read-only" in err and "chmod u+w" in err and "nothing was written" in err
        assert stat.S_IMODE(readme.stat().st_mode) == mode
        readme.chmod(0o600)
        assert readme.read_text("utf-8") == BLOCK
        assert [p.name for p in repo.iterdir() if "rlresources-tmp" in p.name] == []
    finally:
        readme.chmod(0o600)


def test_check_reads_a_read_only_file(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Only writing is refused: a read-only README is still checked."""
    readme = repo / "README.md"
    readme.write_text(BLOCK, "utf-8")
    readme.chmod(0o444)
    status, out, _err = sync(capsys, "--check", "README.md")
    assert status == 1 and "README.md:1: error: the block differs" in out


# -- a change between the read and the write -------------------------------------------------


def test_an_edit_made_while_sync_ran_is_kept(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    readme, other = repo / "README.md", repo / "OTHER.md"
    readme.write_text(BLOCK, "utf-8")
    other.write_text(BLOCK, "utf-8")
    edited = "someone's edit\n" + BLOCK
    page = sync_module.Syncer.page

    def edit_meanwhile(self: sync_module.Syncer, path: Path, text: str) -> sync_module.Page:
        found = page(self, path, text)
        if path.name == "README.md":
            readme.write_text(edited, "utf-8")  # after sync read it, before it writes
        return found

    monkeypatch.setattr(sync_module.Syncer, "page", edit_meanwhile)
    status, _out, err = sync(capsys, "README.md", "OTHER.md")
    assert status == 2
    assert "README.md' changed after it was read; it is not replaced (the change is kept)" in err
    assert "(1 other file written)" in err
    assert readme.read_text("utf-8") == edited
    assert other.read_text("utf-8") != BLOCK  # the file nobody touched is synced
    assert [p.name for p in repo.iterdir() if "rlresources-tmp" in p.name] == []


@pytest.mark.parametrize("change", ["appended", "shortened", "same size"])
def test_any_change_of_the_bytes_is_noticed(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    readme = repo / "README.md"
    readme.write_text(BLOCK, "utf-8")
    edited = {"appended": BLOCK + "x", "shortened": BLOCK[:-1], "same size": BLOCK.replace("stale", "STALE")}[change]
    page = sync_module.Syncer.page

    def edit_meanwhile(self: sync_module.Syncer, path: Path, text: str) -> sync_module.Page:
        found = page(self, path, text)
        readme.write_text(edited, "utf-8")
        return found

    monkeypatch.setattr(sync_module.Syncer, "page", edit_meanwhile)
    assert sync(capsys, "README.md")[0] == 2
    assert readme.read_text("utf-8") == edited


# -- never more than it can read back --------------------------------------------------------


def test_a_result_larger_than_sync_reads_is_not_written(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = repo / "README.md"
    readme.write_text(BLOCK, "utf-8")
    monkeypatch.setattr(sync_module, "MAX_PAGE_BYTES", len(BLOCK) + 10)  # the file fits, its table does not
    for argv in (["README.md"], ["--check", "README.md"]):
        status, out, _err = sync(capsys, *argv)
        assert status == 1
        assert "README.md:1: error: with its tables the file would be" in out
        assert f"more than the {len(BLOCK) + 10} rlresources sync reads, so it is not written" in out
        assert readme.read_text("utf-8") == BLOCK


# -- markers that are almost right -----------------------------------------------------------

NEAR_MISSES = [
    ("<!-- RL-Resource-Table 7b -->", 6, "'RL-Resource-Table' is not the marker name"),
    ("<!-- rl-resource-tabel 7b -->", 6, "'rl-resource-tabel' is not the marker name"),
    ("<!-- rl_resource_table 7b -->", 6, "'rl_resource_table' is not the marker name"),
    ("<!-- rl-resource-tables 7b -->", 6, "'rl-resource-tables' is not the marker name"),
    ("<!--rl-resourcetable 7b-->", 5, "'rl-resourcetable' is not the marker name"),
    ("<!-- /rl-resource-tabel -->", 7, "'rl-resource-tabel' is not the marker name"),
    ("<!-- / rl-resource-table -->", 8, "this comment names rl-resource-table but is no marker"),
    ("<!-- rl-resource-table: 7b -->", 6, "this comment names rl-resource-table but is no marker"),
]


@pytest.mark.parametrize(("line", "column", "words"), NEAR_MISSES, ids=[m[0] for m in NEAR_MISSES])
def test_a_marker_almost_right_is_a_located_finding(
    repo: Path, capsys: pytest.CaptureFixture[str], line: str, column: int, words: str
) -> None:
    readme = repo / "README.md"
    text = f"# Title\n\n{line}\n| hand | edited |\n"
    readme.write_text(text, "utf-8")
    status, out, _err = sync(capsys, "--check", "README.md")
    assert status == 1
    assert f"README.md:3:{column}: error: {words}" in out
    assert "its table is never synced or checked; write <!-- rl-resource-table SIZE" in out
    assert sync(capsys, "README.md")[0] == 1
    assert readme.read_text("utf-8") == text


@pytest.mark.parametrize(
    "line",
    [
        "<!-- a comment -->",
        "<!-- rl-resources is our tool -->",
        "<!-- resource-table -->",
        "<!-- TODO: table -->",
        "```\n<!-- rl-resource-tabel 7b -->\n```",  # code: an example, not a marker
    ],
)
def test_other_comments_are_no_finding(line: str) -> None:
    assert scan(f"# Title\n\n{line}\n").problems == []


def test_a_long_comment_costs_no_more_than_its_first_word() -> None:
    text = "<!-- " + "r" * 1_000_000 + " -->\n"
    assert scan(text * 3).problems == []


# -- the report is bounded -------------------------------------------------------------------


def test_check_caps_the_diff_lines_it_prints(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocks = 300
    readme = repo / "README.md"
    block = "<!-- rl-resource-table 7b -->\n" + "old line\n" * 20 + "<!-- /rl-resource-table -->\n"
    readme.write_text(block * blocks, "utf-8")
    status, out, _err = sync(capsys, "--check", "README.md")
    lines = out.splitlines()
    assert status == 1
    assert sum(1 for line in lines if ": error: the block differs" in line) == blocks  # every finding
    diff = [line for line in lines if line.startswith("    ") and not line.startswith("    ... ")]
    assert 0 < len(diff) <= sync_module.REPORT_DIFF_LINES
    assert any(line.startswith("    ... ") and "diff lines left out (at most 200 are shown)" in line for line in lines)
