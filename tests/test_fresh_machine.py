"""A fresh machine tests less than a full one: ``make`` and ``make test`` say so where a reader looks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import REPO


def test_skipped_browser_tests_are_announced_last_with_the_command_that_installs_chromium() -> None:
    # A PATH that holds only the virtual environment: the machine has no Chromium.
    env = {**os.environ, "PATH": str(Path(sys.executable).parent)}
    env.pop("CI", None)  # in CI a missing browser fails the run instead
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/test_themes.py", "-q", "-p", "no:cacheprovider"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    lines = done.stdout.rstrip().splitlines()
    assert done.returncode == 0, done.stdout[-2000:]
    assert "skipped" in lines[-3]  # pytest's counts, and then ours, the very last lines
    assert "browser/theme tests skipped: Chromium missing" in lines[-2]
    assert lines[-1] == "install with: apt-get install chromium chromium-driver"


def test_the_first_make_says_what_it_installs_and_shows_pip_at_work() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("$(STAMP): pyproject.toml\n", 1)[1].split("\n\n", 1)[0]
    first = recipe.splitlines()[0]
    assert first.startswith("\t@echo ") and "about a minute" in first
    install = next(line for line in recipe.splitlines() if "-e '.[test,docs]'" in line)
    assert "--quiet" not in install  # pip's "Collecting ..." lines are the progress
