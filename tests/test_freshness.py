"""Freshness: tested dates, the staleness check against git, the markers and the role.

Each test builds a small git repository from ``tests/roots/test-freshness`` with dated
commits (author and committer dates set), so the history is the same on every run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import TESTS, warning_lines
from docutils import nodes

from sphinx_rlresources.core import freshness, history
from sphinx_rlresources.core import git as git_repo
from sphinx_rlresources.core.diagnostics import Subtype
from sphinx_rlresources.core.loader import LoadOptions, load_dataset

ROOT = TESTS / "roots" / "test-freshness"
S7 = "examples/tuning/7b"
FRESH = f"{S7}/qwen2-7b_grpo_2_h800_fsdp_vllm.sh"  # tested 2025-06-25, changed that same day
STALE = f"{S7}/qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh"  # tested 2025-06-25, changed twice after
UNDATED = f"{S7}/qwen2.5-7b_grpo_8_h100_fsdp_vllm.sh"  # no tested date, changed after its data file


def stale_message(root: Path) -> str:
    return (
        "the script runs response_length 2048 (was 1024) since this row was tested on 2025-06-25 (changed by "
        f"{sha_of(root, 'raise the rollout count')[:10]} on 2025-07-10: 'raise the rollout count and the response "
        "length'); run the configuration again and update the row and tested"
    )


def undated_message(root: Path) -> str:
    return (
        "the script runs response_length 2048 (was 512) since this row's data file last changed on 2025-06-20, "
        f"and the row has no tested date (changed by {sha_of(root, 'rewrite rollout settings')[:10]} on "
        "2025-09-30: 'rewrite rollout settings'); run the configuration again, update the row and add tested: "
        "YYYY-MM-DD"
    )


def sha_of(root: Path, subject: str) -> str:
    return git(root, "log", "--format=%H", "--fixed-strings", f"--grep={subject}").split()[0]


def git(root: Path, *args: str, date: str | None = None) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    if date:
        env.update(GIT_AUTHOR_DATE=f"{date}T12:00:00+00:00", GIT_COMMITTER_DATE=f"{date}T12:00:00+00:00")
    done = subprocess.run(["git", "-C", str(root), *args], env=env, capture_output=True, text=True, check=True)
    return done.stdout


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new))


def commit(root: Path, date: str, subject: str) -> None:
    git(root, "add", "--", "data", "examples", "conf.py", "index.rst")
    git(root, "commit", "-q", "-m", subject, date=date)


def make_history(root: Path) -> Path:
    """The test root as a repository: added 2025-06-20, script edits after (some change what a row states)."""
    git(root, "init", "-q")
    git(root, "config", "user.name", "Test Author")
    git(root, "config", "user.email", "author@example.org")
    git(root, "config", "commit.gpgsign", "false")
    commit(root, "2025-06-20", "add the 7B and 70B rows and their scripts")
    edit(root / FRESH, "optim.lr=1e-6", "optim.lr=2e-6")
    commit(root, "2025-06-25", "tune the learning rate")
    edit(root / STALE, "rollout.n=5", "rollout.n=6")
    edit(root / STALE, "max_response_length=1024", "max_response_length=2048")
    commit(root, "2025-07-10", "raise the rollout count and the response length")
    edit(root / STALE, "gpu_memory_utilization=0.6", "gpu_memory_utilization=0.5")  # nothing the row states
    edit(root / UNDATED, "rollout.n=5", "rollout.n=8 \\\n    data.max_response_length=2048")
    commit(root, "2025-09-30", "rewrite rollout settings")
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(ROOT, root)
    return make_history(root)


def stale_lines(root: Path) -> list[str]:
    dataset = load_dataset(
        root / "data", root, LoadOptions(stale=True), display=lambda p: p.relative_to(root).as_posix()
    )
    return [d.format() for d in dataset.diagnostics if d.subtype is Subtype.STALE]


def test_fresh_stale_and_undated_rows(repo: Path) -> None:
    dataset = load_dataset(
        repo / "data", repo, LoadOptions(stale=True), display=lambda p: p.relative_to(repo).as_posix()
    )
    stale = [d for d in dataset.diagnostics if d.subtype is Subtype.STALE]
    assert [d.format() for d in stale] == [
        f"data/7b.yaml:28:13: warning: {stale_message(repo)} [rlresources.stale]",
        f"data/7b.yaml:38:13: warning: {undated_message(repo)} [rlresources.stale]",
    ]
    assert dataset.notes == []
    by_script = {e.script: e.source for e in dataset.entries}
    # same-day edit (fresh), the script's own addition after tested (not a change)
    assert set(dataset.stale) == {by_script[STALE], by_script[UNDATED]}
    found = dataset.stale[by_script[STALE]]
    assert found.by is not None
    assert (found.what, found.by.date, found.since, found.basis) == (
        "response_length 2048 (was 1024)", "2025-07-10", "2025-06-25", "tested"
    )  # fmt: skip


def test_off_by_default(repo: Path) -> None:
    dataset = load_dataset(repo / "data", repo)
    assert not [d for d in dataset.diagnostics if d.subtype is Subtype.STALE]
    assert dataset.stale == {}


def test_editing_the_data_file_refreshes_an_undated_row(repo: Path) -> None:
    edit(repo / "data" / "7b.yaml", "max_batch: 256", "max_batch: 240")
    commit(repo, "2025-10-02", "re-measure the 8*H100 row")
    assert stale_lines(repo) == [f"data/7b.yaml:28:13: warning: {stale_message(repo)} [rlresources.stale]"]


def test_updating_tested_clears_the_row(repo: Path) -> None:
    text = (repo / "data" / "7b.yaml").read_text()
    (repo / "data" / "7b.yaml").write_text(text.replace("tested: 2025-06-25", "tested: 2025-09-30"))
    assert stale_lines(repo) == [f"data/7b.yaml:38:13: warning: {undated_message(repo)} [rlresources.stale]"]


def test_a_script_path_with_pathspec_magic_is_taken_literally(repo: Path) -> None:
    # ':(glob)*' would match every script if git read it as a pathspec; it must match none.
    weird = repo / S7 / ":(glob)*.sh"
    weird.write_text("#!/usr/bin/env bash\n")
    commit(repo, "2025-06-21", "add a script with an odd name")
    walked = history.walk(git_repo.Repo(repo), [weird])
    assert [path for path in walked.changes if path.startswith(f"{S7}/:")] == [f"{S7}/:(glob)*.sh"]


def test_shallow_clone_is_skipped_with_a_note(repo: Path, tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(clone)], check=True, capture_output=True
    )
    dataset = load_dataset(clone / "data", clone, LoadOptions(stale=True))
    assert not [d for d in dataset.diagnostics if d.subtype is Subtype.STALE]
    assert dataset.notes == [
        f"the staleness check is skipped: {clone} is a shallow clone, whose history is cut; fetch "
        "the whole history (git fetch --unshallow, or a CI checkout with full depth) to run it"
    ]


def test_not_a_repository_is_skipped_with_a_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "plain"
    shutil.copytree(ROOT, root)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    dataset = load_dataset(root / "data", root, LoadOptions(stale=True))
    assert dataset.notes == [f"the staleness check is skipped: {root} is not inside a git checkout"]
    assert not [d for d in dataset.diagnostics if d.subtype is Subtype.STALE]


def test_no_git_is_skipped_with_a_note(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    dataset = load_dataset(repo / "data", repo, LoadOptions(stale=True))
    assert dataset.notes == ["the staleness check is skipped: git is not installed (or not on PATH)"]
    assert dataset.stale == {}
    # "last updated" still answers: from the tested dates, else the files' modification time
    entries = dataset.sizes["70b"].entries
    path = repo / "data" / "70b.yaml"
    os.utime(path, (1767225600, 1767225600))  # 2026-01-01 UTC
    assert freshness.last_updated(entries, repo, [path]) == ("2026-01-01", "mtime")
    assert freshness.last_updated(dataset.entries, repo, dataset.files()) == ("2025-06-25", "tested")


def test_last_updated_falls_back_to_the_data_files_last_commit(repo: Path) -> None:
    dataset = load_dataset(repo / "data", repo)
    size = dataset.sizes["70b"]
    assert freshness.last_updated(size.entries, repo, [size.path]) == ("2025-06-20", "git")
    edit(size.path, "max_batch: 176", "max_batch: 160")
    commit(repo, "2025-11-03", "re-measure 70B")
    assert freshness.last_updated(size.entries, repo, [size.path]) == ("2025-11-03", "git")


def test_parse_log_keeps_odd_subjects_on_one_line_and_follows_renames() -> None:
    record = history.RECORD
    text = (
        f"{record}abc\x1f2025-09-30\x1ffix\tthe\x1bscript\0\nM\0a.sh\0"
        f"{record}bcd\x1f2025-07-01\x1frename\0\nR094\0old.sh\0a.sh\0M\0b.sh\0"
        f"{record}def\x1f2025-06-01\x1fadd\0\nA\0old.sh\0"
    )
    walked = history.History(Path("/"), changes=history.parse_log(text))
    assert [
        (s.commit.sha, s.commit.date, s.commit.subject, s.commit.order, s.status, s.path, s.old)
        for s in walked.lineage("a.sh")
    ] == [
        ("abc", "2025-09-30", "fix the script", 0, "M", "a.sh", "a.sh"),
        ("bcd", "2025-07-01", "rename", 1, "R", "a.sh", "old.sh"),
        ("def", "2025-06-01", "add", 2, "A", "old.sh", "old.sh"),
    ]
    assert [s.commit.sha for s in walked.lineage("b.sh")] == ["bcd"]


def test_is_older() -> None:
    import datetime as dt

    today = dt.date(2026, 1, 1)
    assert freshness.is_older("2024-10-01", 365, today)
    assert not freshness.is_older("2025-06-25", 365, today)
    assert not freshness.is_older(None, 365, today)
    assert not freshness.is_older("2020-01-01", None, today)


# -- the build -------------------------------------------------------------------------


def _rows(app: Any, title: str) -> list[list[str]]:
    doctree = app.env.get_doctree("index")
    for sec in doctree.findall(nodes.section):
        if sec[0].astext() == title:
            table = next(sec.findall(nodes.table))
            tbody = next(table.findall(nodes.tbody))
            return [[entry.astext() for entry in row.findall(nodes.entry)] for row in tbody.children]
    raise AssertionError(title)


def _dates(app: Any) -> list[tuple[str, list[str]]]:
    doctree = app.env.get_doctree("index")
    return [
        (node.astext(), node["classes"])
        for node in doctree.findall(nodes.inline)
        if "rlresources-last-updated" in node["classes"]
    ]


@pytest.mark.sphinx("html", testroot="freshness", srcdir="freshness-html")
def test_build_marks_and_dates(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")  # the build's day: 2026-01-01
    make_history(Path(app.srcdir))
    app.build()
    warnings = warning_lines(app)
    assert warnings == [
        f"<srcdir>/data/7b.yaml:28:13: WARNING: {stale_message(Path(app.srcdir))} [rlresources.stale]",
        f"<srcdir>/data/7b.yaml:38:13: WARNING: {undated_message(Path(app.srcdir))} [rlresources.stale]",
    ]
    assert _dates(app) == [
        ("2025-06-25", ["rlresources-last-updated", "rlresources-from-tested"]),
        ("2025-06-25", ["rlresources-last-updated", "rlresources-from-tested"]),
        ("2025-06-20", ["rlresources-last-updated", "rlresources-from-git"]),
    ]
    # default columns: the markers follow the Tag
    assert [row[0] for row in _rows(app, "7B")] == [
        "MIN",
        "MIN (stale) (unverified)",
        "RECOMMENDED (stale) (unverified)",
        "RECOMMENDED (outdated)",
    ]
    # with a Tested column, they follow the date
    assert [row[3] for row in _rows(app, "Dated")] == [
        "2025-06-25",
        "2025-06-25 (stale) (unverified)",
        "(stale) (unverified)",
        "2024-10-01 (outdated)",
    ]
    html = (Path(app.outdir) / "index.html").read_text()
    assert '<span class="rlresources-marker rlresources-marker-stale">(stale)</span>' in html
    assert '<tr class="rlresources-row rlresources-stale rlresources-unverified row-' in html
    assert 'href="_static/rlresources-freshness.css' in html
    assert (Path(app.outdir) / "_static" / "rlresources-freshness.css").is_file()


@pytest.mark.sphinx(
    "text",
    testroot="freshness",
    srcdir="freshness-text",
    confoverrides={"rlresources_stale_marker": "[script changed]", "rlresources_mark_unverified": False},
)
def test_markers_are_text_in_every_builder(app: Any) -> None:
    make_history(Path(app.srcdir))
    app.build()
    text = (Path(app.outdir) / "index.txt").read_text()
    assert "MIN [script changed]" in text
    assert "(unverified)" not in text
    assert "Last updated: 2025-06-25." in text


@pytest.mark.sphinx(
    "html",
    testroot="freshness",
    srcdir="freshness-nogit",
    confoverrides={"rlresources_max_age_days": 0},
)
def test_build_without_history_notes_and_does_not_warn(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(Path(app.srcdir).parent))
    app.build()
    assert warning_lines(app) == [
        "WARNING: rlresources_max_age_days = 0 must be a positive number of days, or None; "
        "no age marker is shown [rlresources.config]",
    ]
    status = app.status.getvalue()
    assert f"rlresources: the staleness check is skipped: {app.srcdir} is not inside a git checkout" in status
    assert [row[0] for row in _rows(app, "7B")] == [
        "MIN",
        "MIN (unverified)",
        "RECOMMENDED (unverified)",
        "RECOMMENDED",
    ]


@pytest.mark.sphinx("html", testroot="freshness", srcdir="freshness-unknown")
def test_role_with_an_unknown_size(app: Any) -> None:
    (Path(app.srcdir) / "index.rst").write_text("Page\n====\n\nLast updated: :rl-last-updated:`13b`.\n")
    app.build()
    assert warning_lines(app) == [
        "<srcdir>/index.rst:4: WARNING: rl-last-updated names unknown size '13b'; write 'all' "
        "or one of: 7B, 70B [rlresources.unknown_size]"
    ]
    assert _dates(app) == [("unknown", ["rlresources-last-updated"])]


# -- rlresources lint --stale ---------------------------------------------------------


def test_lint_stale_reports_the_same_lines(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from sphinx_rlresources.cli import main as cli

    monkeypatch.chdir(repo)
    argv = ["lint", "--data", "data", "--root", ".", "--no-cross-check"]
    assert cli.main(argv) == 0  # without --stale: the history is not read
    capsys.readouterr()
    assert cli.main([*argv, "--stale"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line for line in out if line.endswith("[rlresources.stale]")] == [
        f"data/7b.yaml:28:13: warning: {stale_message(repo)} [rlresources.stale]",
        f"data/7b.yaml:38:13: warning: {undated_message(repo)} [rlresources.stale]",
    ]
    assert out[-1].endswith("2 warnings in 2 data files (5 rows) and 5 scripts")


def test_lint_stale_without_history_notes_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from sphinx_rlresources.cli import main as cli

    root = tmp_path / "plain"
    shutil.copytree(ROOT, root)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    monkeypatch.chdir(root)
    assert cli.main(["lint", "--data", "data", "--root", ".", "--no-cross-check", "--stale"]) == 0
    captured = capsys.readouterr()
    resolved = Path(root).resolve()
    assert captured.err == (
        f"rlresources: note: the staleness check is skipped: {resolved} is not inside a git checkout\n"
    )


@pytest.mark.sphinx("html", testroot="freshness", srcdir="freshness-role-bug")
def test_a_bug_in_the_role_is_a_warning_as_in_the_directives(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The role shares the directives' guard: a bug is one rlresources.internal warning per use, the page builds."""
    from sphinx_rlresources.sphinxext import freshness as sphinx_freshness

    def boom(*_args: object) -> tuple[str, str]:
        raise ValueError("boom")

    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(Path(app.srcdir).parent))
    monkeypatch.setattr(sphinx_freshness.freshness, "last_updated", boom)
    app.build()
    internal = [line for line in warning_lines(app) if "[rlresources.internal]" in line]
    assert internal == [
        f"<srcdir>/index.rst:{line}: WARNING: rl-last-updated could not be drawn (ValueError: boom); "
        "please report this [rlresources.internal]"
        for line in (4, 9, 16)
    ]
    assert _dates(app) == []
    assert (Path(app.outdir) / "index.html").is_file()


def test_a_marker_said_once_for_the_page_leaves_the_rows_other_marker_apart_from_its_text() -> None:
    """Every row is outdated (one sentence says it), one is also stale: its cell reads "MIN (stale)".

    Taking the outdated marker off removed the first " " of the cell instead of the one
    before that marker, and phone cards read "MIN(stale)".
    """
    from types import SimpleNamespace

    from docutils.utils import new_document

    from sphinx_rlresources.sphinxext.freshness import say_markers_once

    def row(*kinds: str) -> nodes.row:
        para = nodes.paragraph("", "MIN")
        for kind in kinds:
            para += nodes.Text(" ")
            para += nodes.inline(kind, kind, classes=["rlresources-marker", f"rlresources-marker-{kind}"])
        made = nodes.row("", nodes.entry("", para))
        made["rl_markers"] = {kind: kind for kind in kinds}
        made["rl_tested"] = "2025-06-25"
        return made

    table = nodes.table("", nodes.tgroup("", nodes.tbody("", row("stale", "outdated"), row("outdated"))))
    table["classes"].append("rlresources-table")
    doctree = new_document("<page>")
    doctree += table
    say_markers_once(SimpleNamespace(config=SimpleNamespace(rlresources_max_age_days=365)), doctree)  # type: ignore[arg-type]
    cells = [row.astext() for row in table.findall(nodes.row)]
    assert cells == ["MIN stale", "MIN"]
    sentence = next(doctree.findall(nodes.paragraph))
    assert sentence["classes"] == ["rlresources-shared-markers"]
    assert sentence.astext().startswith("outdated Every configuration on this page was last tested on 2025-06-25")
