"""Lint asks git once per repository (issue 34): the number of git processes does not grow with the rows.

A ``git`` on ``PATH`` that logs each call and hands it to the real one counts what a
lint of pinned, dated rows with a real history starts: the same handful for 2 rows as
for 8, where a process per script and question made it grow with every row.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from sphinx_rlresources.cli.main import main as rlresources

GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None or os.name != "posix", reason="a logging git needs a POSIX shell")

SCRIPT = """\
#!/usr/bin/env bash
set -x
python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo data.train_batch_size=32 \\
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct actor_rollout_ref.rollout.name=vllm \\
    trainer.n_gpus_per_node={gpus} trainer.nnodes=1
"""
ROW = """\
  - tag: MIN
    model: Qwen2.5-7B
    task: GRPO
    gpus: {gpus}
    device: H100
    max_batch: 32
    train: fsdp
    infer: vllm
    infer_version: "0.8.5"
    script: examples/tuning/7b/{name}
    script_ref: {ref}
    contributor: Simon
    tested: 2025-06-25
"""


def git(root: Path, *args: str, date: str = "2025-06-20") -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@e.org", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@e.org")
    env.update(GIT_AUTHOR_DATE=f"{date}T12:00:00+00:00", GIT_COMMITTER_DATE=f"{date}T12:00:00+00:00")
    return subprocess.run(["git", "-C", str(root), *args], env=env, check=True, capture_output=True, text=True).stdout


def make_repo(root: Path, rows: int) -> None:
    """``rows`` pinned rows whose launchers were touched in 20 commits after they were tested."""
    folder = root / "examples" / "tuning" / "7b"
    folder.mkdir(parents=True)
    (root / "data").mkdir()
    names = [f"qwen2.5-7b_grpo_{gpus}_h100_fsdp_vllm.sh" for gpus in range(1, rows + 1)]
    for gpus, name in enumerate(names, 1):
        (folder / name).write_text(SCRIPT.format(gpus=gpus), encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "add the launchers")
    for day in range(1, 21):
        for name in names:
            with (folder / name).open("a", encoding="utf-8") as handle:
                handle.write(f"# reviewed on day {day}\n")
        git(root, "commit", "-qam", f"sweep {day}", date=f"2025-07-{day:02d}")
    ref = git(root, "rev-parse", "HEAD").strip()
    rows_text = "".join(ROW.format(gpus=gpus, name=name, ref=ref) for gpus, name in enumerate(names, 1))
    (root / "data" / "7b.yaml").write_text("size: 7B\nentries:\n" + rows_text, encoding="utf-8")


def git_calls(root: Path, log: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> int:
    monkeypatch.chdir(root)
    assert rlresources(["lint", "--data", "data", "--root", "."]) in (0, 1)
    out = capsys.readouterr().out
    assert "[rlresources.stale]" not in out and "[rlresources.script_ref]" not in out, out  # touches, read at the ref
    calls = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return len(calls)


def test_lint_starts_as_many_git_processes_for_8_rows_as_for_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shim, log = tmp_path / "bin", tmp_path / "calls.log"
    shim.mkdir()
    (shim / "git").write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{GIT}" "$@"\n', encoding="utf-8")
    (shim / "git").chmod((shim / "git").stat().st_mode | stat.S_IEXEC)
    few, many = tmp_path / "few", tmp_path / "many"
    make_repo(few, 2)
    make_repo(many, 8)
    monkeypatch.setenv("PATH", f"{shim}{os.pathsep}{os.environ['PATH']}")
    counts = [git_calls(root, log, monkeypatch, capsys) for root in (few, many)]
    assert counts[0] == counts[1]
    assert counts[1] <= 8  # the configuration, the layout, one log, the files and metadata at the ref
