"""Test scaffolding shared by several modules: a git repository built commit by commit, the CLI run in a folder.

Kept here rather than imported from one test module into another, so a test module
holds tests and nothing else imports it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from sphinx_rlresources.cli.main import main as rlresources


def git(repo: Path, *args: str, date: str = "2025-06-25T12:00:00+00:00") -> str:
    """Run git in ``repo`` with a fixed author, committer and date, and no user or system configuration."""
    env = dict(os.environ, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t")
    env.update(GIT_COMMITTER_EMAIL="t@example.org", GIT_CONFIG_NOSYSTEM="1", HOME=str(repo))
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(name, None)
    done = subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def commit(repo: Path, message: str, date: str) -> str:
    """Commit everything in ``repo`` on ``date``; its hash."""
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, date=date)
    return git(repo, "rev-parse", "HEAD")


def cli(repo: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``rlresources ARGV`` run in ``repo``: (status, stdout, stderr)."""
    old = Path.cwd()
    os.chdir(repo)
    try:
        status = rlresources(list(argv))
    finally:
        os.chdir(old)
    out, err = capsys.readouterr()
    return status, out, err
