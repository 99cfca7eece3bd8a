"""Git in someone else's repository runs nothing of theirs (issue 19: "git runs code from the repository's config").

A repository we run in may come from anyone, and so may its ``.git/config``: an
fsmonitor, a clean or smudge filter, a textconv driver, a pager, hooks -- each names a
program git would start.  The repository below sets every one of them to a trap that
leaves a marker file, then every command of ours that runs git is run in it.  The
control test shows the traps are armed: plain git, asked the same question, springs
them.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from sphinx_rlresources.cli.main import main as rlresources
from sphinx_rlresources.core import git as core_git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="these tests build a git repository")

SCRIPT = """\
#!/usr/bin/env bash
python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo data.train_batch_size=16 \\
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct actor_rollout_ref.rollout.name=vllm \\
    trainer.n_gpus_per_node=8 trainer.nnodes=1
"""
PAGE = """\
Hardware
========

7B
~~

.. list-table::
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
     - Qwen2.5-7B
     - GRPO
     - 8*H100
     - 16
     - fsdp
     - vllm0.8.3
     - `qwen2-7b_grpo_8_h100_fsdp_vllm.sh <https://github.com/o/r/blob/{ref}/examples/tuning/7b/qwen2-7b_grpo_8_h100_fsdp_vllm.sh>`_
     - Simon
"""


def plain_git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@e.org", GIT_COMMITTER_NAME="t")
    env.update(GIT_COMMITTER_EMAIL="t@e.org", GIT_CONFIG_NOSYSTEM="1", HOME=str(repo))
    return subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=False)


@pytest.fixture
def trapped(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose config names a trap for every program git can be told to run; (repo, markers)."""
    repo, markers = tmp_path / "repo", tmp_path / "markers"
    markers.mkdir()
    repo.mkdir()
    trap = tmp_path / "trap.sh"
    trap.write_text(f'#!/bin/sh\ntouch "{markers}/$(date +%s%N)"\ncat\n', encoding="utf-8")
    trap.chmod(trap.stat().st_mode | stat.S_IEXEC)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for hook in ("post-checkout", "post-index-change", "pre-commit", "post-commit", "reference-transaction"):
        (hooks / hook).write_text(trap.read_text(encoding="utf-8"), encoding="utf-8")
        (hooks / hook).chmod(0o755)
    script = repo / "examples" / "tuning" / "7b" / "qwen2-7b_grpo_8_h100_fsdp_vllm.sh"
    script.parent.mkdir(parents=True)
    script.write_text(SCRIPT, encoding="utf-8")
    (repo / "page.rst").write_text(PAGE.format(ref="main"), encoding="utf-8")
    (repo / "pyproject.toml").write_text('[tool.rlresources]\ndata = "data"\n', encoding="utf-8")
    plain_git(repo, "init", "-q", "-b", "main")
    plain_git(repo, "add", ".")
    plain_git(repo, "commit", "-qm", "scripts")
    commit = plain_git(repo, "rev-parse", "HEAD").stdout.strip()
    (repo / "page.rst").write_text(PAGE.format(ref=commit), encoding="utf-8")
    (repo / ".gitattributes").write_text("* filter=evil diff=evil\n", encoding="utf-8")
    plain_git(repo, "add", ".")
    plain_git(repo, "commit", "-qm", "pin the page")
    for key, value in [
        ("core.fsmonitor", str(trap)),
        ("core.pager", str(trap)),
        ("core.hooksPath", str(hooks)),
        ("filter.evil.clean", str(trap)),
        ("filter.evil.smudge", str(trap)),
        ("filter.evil.required", "true"),
        ("diff.evil.textconv", str(trap)),
        ("diff.external", str(trap)),
    ]:
        plain_git(repo, "config", key, value)
    for leftover in markers.iterdir():  # committing above may have sprung a trap before it was armed
        leftover.unlink()
    return repo, markers


def test_the_traps_are_armed(trapped: tuple[Path, Path]) -> None:
    """Without our safeguards git runs the repository's programs: the test below can fail."""
    repo, markers = trapped
    (repo / "page.rst").write_text(PAGE.format(ref="main") + "\nedited\n", encoding="utf-8")
    plain_git(repo, "blame", "--porcelain", "--", "page.rst")
    plain_git(repo, "diff", "--stat")
    assert list(markers.iterdir()), "plain git ran none of the repository's programs: the traps are not armed"


def test_no_command_of_ours_runs_the_repositorys_programs(
    trapped: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, markers = trapped
    monkeypatch.chdir(repo)
    monkeypatch.setenv("HOME", str(repo))
    assert rlresources(["import", "page.rst", "--out", "data", "--root", "."]) in (0, 1)
    out = capsys.readouterr().out
    assert "tested: " in (repo / "data" / "7b.yaml").read_text(encoding="utf-8"), out  # blame ran, and answered
    assert rlresources(["lint", "--stale"]) in (0, 1)
    assert rlresources(["estimate", "--row", "data/7b.yaml:5"]) in (0, 1)
    assert rlresources(["render", "7b"]) == 0
    capsys.readouterr()
    assert list(markers.iterdir()) == []


def test_every_git_command_line_switches_off_what_can_run_code(trapped: tuple[Path, Path]) -> None:
    repo, _markers = trapped
    line = core_git.git_command(repo)
    pairs = {line[i + 1] for i, part in enumerate(line[:-1]) if part == "-c"}
    assert {"core.fsmonitor=false", "protocol.allow=never", f"core.hooksPath={os.devnull}"} <= pairs
    assert {"filter.evil.clean=", "filter.evil.smudge=", "filter.evil.required=false", "diff.evil.textconv="} <= pairs
    assert "--no-pager" in line
