"""The install and pre-commit instructions work for a user who follows them today.

The package is not on the package index, so no page may tell a user to
``pip install sphinx-rlresources`` unless it says that is a future release. The
pre-commit hooks and the CI checkout the pages show pin one commit of this
repository (``rev:``/``ref:``); pre-commit installs the package at that commit, so it
must accept every ``[tool.rlresources]`` key and ``rlresources_*`` value the pages tell
users to set.  The settings at that commit are read from the repository's history with
``git show`` and parsed with :mod:`ast`: nothing of that commit is run.
"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest
from conftest import REPO

PAGES = sorted([REPO / "README.md", *(REPO / "docs").glob("*.rst"), *(REPO / "docs").glob("*.md")])
PINNED = re.compile(r"^\s*-?\s*(?:rev|ref): ([0-9a-f]{40})\b", re.M)
FUTURE = re.compile(r"future release|not on the package index", re.I)


def _page_text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def test_no_page_installs_from_the_index_unless_it_says_that_is_the_future() -> None:
    for page in PAGES:
        lines = _page_text(page).splitlines()
        for number, line in enumerate(lines):
            if re.search(r"pip install (?:-U )?sphinx-rlresources(?![\w/.-])", line):
                around = " ".join(lines[max(0, number - 2) : number + 3])
                assert FUTURE.search(around), f"{page.name}:{number + 1}: {line.strip()}"


def _pinned_commits() -> dict[str, set[str]]:
    pins: dict[str, set[str]] = {}
    for page in PAGES:
        for rev in PINNED.findall(_page_text(page)):
            pins.setdefault(rev, set()).add(page.name)
    return pins


def test_the_pages_pin_one_commit() -> None:
    pins = _pinned_commits()
    assert len(pins) == 1, f"the pages pin different commits: {pins}"
    assert {"adopting.rst", "without-sphinx.rst", "contributing.rst"} <= next(iter(pins.values()))


def _keys_the_pages_set() -> tuple[set[str], set[str]]:
    """(``[tool.rlresources]`` keys, ``rlresources_*`` conf.py names) the pages tell users to set."""
    toml_keys: set[str] = set()
    conf_names: set[str] = set()
    for page in PAGES:
        text = _page_text(page)
        for table in re.findall(r"\[tool\.rlresources\]\n((?:[ \t]*[a-z_]+ = .*\n)+)", text):
            toml_keys.update(re.findall(r"^[ \t]*([a-z_]+) = ", table, re.M))
        conf_names.update(re.findall(r"^[ \t]*(rlresources_[a-z_]+) = ", text, re.M))
    return toml_keys, conf_names


def _settings_at(rev: str) -> tuple[set[str], set[str]]:
    """(pyproject keys, conf.py names) that ``core/settings.py`` declares at ``rev``, by its AST."""
    source = subprocess.run(
        ["git", "show", f"{rev}:sphinx_rlresources/core/settings.py"],
        cwd=REPO, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    toml_keys: set[str] = set()
    conf_names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Setting"):
            continue
        key = node.args[0]
        assert isinstance(key, ast.Constant) and isinstance(key.value, str)
        keywords = {k.arg: k.value for k in node.keywords}
        in_pyproject = keywords.get("in_pyproject")
        if not (isinstance(in_pyproject, ast.Constant) and in_pyproject.value is False):
            toml_keys.add(key.value)
        conf = keywords.get("conf")
        if isinstance(conf, ast.Constant) and isinstance(conf.value, str):
            conf_names.add(f"rlresources_{conf.value}")
    return toml_keys, conf_names


def _have_commit(rev: str) -> bool:
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout (an sdist): the history is not here")
    found = subprocess.run(["git", "cat-file", "-e", f"{rev}^{{commit}}"], cwd=REPO, capture_output=True, check=False)
    if found.returncode != 0:
        shallow = subprocess.run(
            ["git", "rev-parse", "--is-shallow-repository"], cwd=REPO, capture_output=True, text=True, check=False
        )
        if shallow.stdout.strip() == "true":
            pytest.skip(f"a shallow clone lacks {rev}: git fetch --unshallow")
    return found.returncode == 0


def test_the_pinned_commit_accepts_every_key_the_pages_tell_users_to_set() -> None:
    (rev,) = _pinned_commits()
    assert _have_commit(rev), f"{rev} is not a commit of this repository"
    toml_keys, conf_names = _keys_the_pages_set()
    assert {"data", "root", "naming", "launch_files"} <= toml_keys  # the reading finds the pages' tables
    assert {"rlresources_data_dir", "rlresources_fail_on"} <= conf_names
    known_keys, known_names = _settings_at(rev)
    assert not toml_keys - known_keys, f"[tool.rlresources] keys that {rev[:12]} rejects: {toml_keys - known_keys}"
    assert not conf_names - known_names, f"conf.py values that {rev[:12]} does not know: {conf_names - known_names}"


def _hook_flags() -> set[str]:
    """The ``--flags`` the pages pass to a hook in ``args: [...]``."""
    flags: set[str] = set()
    for page in PAGES:
        for args in re.findall(r"args: \[([^\]]*)\]", _page_text(page)):
            flags.update(arg.strip() for arg in args.split(",") if arg.strip().startswith("--"))
    return flags


def _cli_flags_at(rev: str) -> set[str]:
    """Every ``--flag`` string constant of ``cli/main.py`` at ``rev``, by its AST."""
    source = subprocess.run(
        ["git", "show", f"{rev}:sphinx_rlresources/cli/main.py"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    return {
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("--")
    }


def test_the_pinned_commit_takes_every_flag_the_pages_give_a_hook() -> None:
    (rev,) = _pinned_commits()
    assert _have_commit(rev)
    flags = _hook_flags()
    assert {"--check", "--relative-links"} <= flags  # the reading finds the pages' hooks
    assert not flags - _cli_flags_at(rev), f"hook flags that {rev[:12]} does not know: {flags - _cli_flags_at(rev)}"


def test_the_pinned_commit_offers_both_documented_hooks() -> None:
    (rev,) = _pinned_commits()
    assert _have_commit(rev)
    hooks = subprocess.run(
        ["git", "show", f"{rev}:.pre-commit-hooks.yaml"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    assert "- id: rlresources-lint" in hooks and "- id: rlresources-sync" in hooks


def test_an_old_commit_is_caught() -> None:
    """The reading is not vacuous: the commit the pages pinned before rejects script_glob."""
    old = "6cac8ddb23f7897f2765a2199de73f2940884181"
    if not _have_commit(old):
        pytest.skip("the old commit is not in this clone")
    assert "script_glob" not in _settings_at(old)[0]
