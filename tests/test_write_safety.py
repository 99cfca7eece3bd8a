"""The commands that write land inside the root, as regular files, never through a link (issue 19).

A pull request can put a symbolic link where ``import``, ``new`` or ``schema --out``
will write -- as the target itself, dangling or not, or as a folder on the way -- or a
named pipe that would block, or a folder.  Each case below is refused with exit 2 and
a message that names the path, and nothing inside or outside the root changes.  The
property test at the end builds random trees of such things and checks the promise
for every command at once.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sphinx_rlresources.cli.main import main as rlresources
from sphinx_rlresources.core.paths import WriteRefused, write_inside

SCRIPT = "examples/tuning/14b/qwen2-14b_grpo_8_h100_fsdp_vllm.sh"
SCRIPT_TEXT = """\
#!/usr/bin/env bash
python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo trainer.n_gpus_per_node=8 trainer.nnodes=1 \\
    actor_rollout_ref.model.path=Qwen/Qwen2.5-14B-Instruct actor_rollout_ref.rollout.name=vllm
"""
PAGE = """\
Hardware
========

14B
~~~

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
     - Qwen2.5-14B
     - GRPO
     - 8*H100
     - 16
     - fsdp
     - vllm0.8.3
     - examples/tuning/14b/qwen2-14b_grpo_8_h100_fsdp_vllm.sh
     - Simon
"""
SECRET = "# a shell start-up file outside the repository\n"


def snapshot(*folders: Path) -> dict[str, tuple[str, str]]:
    """Every entry under the folders: what it is, and its content's hash or its link target."""
    found: dict[str, tuple[str, str]] = {}
    for folder in folders:
        for current, dirs, files in os.walk(folder):
            for name in dirs + files:
                path = Path(current) / name
                if path.is_symlink():
                    found[str(path)] = ("link", os.readlink(path))
                elif path.is_file():
                    found[str(path)] = ("file", hashlib.sha256(path.read_bytes()).hexdigest())
                elif path.is_dir():
                    found[str(path)] = ("dir", "")
                else:
                    found[str(path)] = ("other", "")
    return found


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Path]]:
    """(the repository, a folder outside it holding a file an attacker wants written)."""
    root, outside = tmp_path / "repo", tmp_path / "outside"
    outside.mkdir()
    (outside / ".bashrc").write_text(SECRET, encoding="utf-8")
    (root / "data").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.rlresources]\ndata = "data"\n', encoding="utf-8")
    script = root / SCRIPT
    script.parent.mkdir(parents=True)
    script.write_text(SCRIPT_TEXT, encoding="utf-8")
    (root / "page.rst").write_text(PAGE, encoding="utf-8")
    monkeypatch.chdir(root)
    yield root, outside


def commands(force: bool = True) -> list[tuple[list[str], str]]:
    """Each command that writes, and the name of the file it writes in ``data/``."""
    return [
        (["new", SCRIPT, "--size", "14B"], "14b.yaml"),
        (["import", "page.rst", "--out", "data", *(["--force"] if force else [])], "14b.yaml"),
        (["schema", "--out", "data"], "rlresources.schema.json"),
    ]


@pytest.mark.parametrize("dangling", [False, True], ids=["link", "dangling-link"])
@pytest.mark.parametrize("command", commands(), ids=["new", "import --force", "schema --out"])
def test_a_link_planted_as_the_target_is_refused_and_nothing_is_written(
    repo: tuple[Path, Path], command: tuple[list[str], str], dangling: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    root, outside = repo
    argv, name = command
    target = outside / ("missing" if dangling else ".bashrc")
    (root / "data" / name).symlink_to(target)
    before = snapshot(root, outside)
    assert rlresources(argv) == 2
    err = capsys.readouterr().err
    assert name in err and "symbolic link" in err and "nothing was written" in err, err
    assert snapshot(root, outside) == before
    assert not (outside / "missing").exists()


@pytest.mark.parametrize("command", commands(), ids=["new", "import --force", "schema --out"])
def test_a_link_planted_as_the_folder_is_refused_and_nothing_is_written(
    repo: tuple[Path, Path], command: tuple[list[str], str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, outside = repo
    (root / "data").rmdir()
    (root / "data").symlink_to(outside)
    before = snapshot(root, outside)
    assert rlresources(command[0]) == 2
    err = capsys.readouterr().err
    assert "symbolic link" in err or "outside the repository root" in err, err
    assert snapshot(root, outside) == before


@pytest.mark.parametrize("command", commands(), ids=["new", "import --force", "schema --out"])
def test_a_named_pipe_as_the_target_neither_blocks_nor_is_written(
    repo: tuple[Path, Path], command: tuple[list[str], str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, outside = repo
    os.mkfifo(root / "data" / command[1])
    before = snapshot(root, outside)
    assert rlresources(command[0]) == 2  # returns at once: the pipe is never opened for reading or writing
    assert "named pipe" in capsys.readouterr().err
    assert snapshot(root, outside) == before


def test_a_target_outside_the_root_is_refused(repo: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _root, outside = repo
    assert rlresources(["schema", "--out", str(outside / "schema.json")]) == 2
    assert "outside the repository root" in capsys.readouterr().err
    assert rlresources(["import", "page.rst", "--out", "../outside"]) == 2
    assert "outside the repository root" in capsys.readouterr().err
    assert sorted(p.name for p in outside.iterdir()) == [".bashrc"]


def test_the_ordinary_writes_still_work(repo: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    root, _outside = repo
    assert rlresources(["schema", "--out", "schemas"]) == 0  # a missing folder inside the root is created
    assert (root / "schemas" / "rlresources.schema.json").is_file()
    assert rlresources(["import", "page.rst", "--out", "data"]) == 0
    assert rlresources(["import", "page.rst", "--out", "data"]) == 2  # exists: --force is needed
    assert rlresources(["import", "page.rst", "--out", "data", "--force"]) == 0
    assert not [p for p in (root / "data").iterdir() if p.name.startswith(".")]  # no temporary file is left


def test_write_inside_replaces_in_one_step(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b.yaml"
    write_inside(tmp_path, target, b"one\n", overwrite=False, create_folders=True)
    write_inside(tmp_path, target, b"two\n", overwrite=True)
    assert target.read_bytes() == b"two\n"
    with pytest.raises(WriteRefused, match="already exists"):
        write_inside(tmp_path, target, b"three\n", overwrite=False)
    with pytest.raises(WriteRefused, match="outside the repository root"):
        write_inside(tmp_path / "a", tmp_path / "a" / ".." / "c.yaml", b"x", overwrite=True)


# -- the property ----------------------------------------------------------------------------

NAMES = ["data", "14b.yaml", "x", "schemas", "rlresources.schema.json"]
KINDS = st.sampled_from(["file", "folder", "fifo", "link-in", "link-out", "link-dangling", "link-loop"])


def plant(root: Path, outside: Path, relative: str, kind: str) -> None:
    path = root / relative
    if path.exists() or path.is_symlink() or not path.parent.is_dir() or path.parent.is_symlink():
        return
    if kind == "file":
        path.write_text("size: 14B\nentries: []\n", encoding="utf-8")
    elif kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "link-in":
        path.symlink_to(root / "page.rst")
    elif kind == "link-out":
        path.symlink_to(outside / ".bashrc" if "." in relative.rsplit("/", 1)[-1] else outside)
    elif kind == "link-dangling":
        path.symlink_to(outside / "nowhere")
    else:
        path.symlink_to(path)


@settings(
    max_examples=60,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    plan=st.lists(st.tuples(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3), KINDS), max_size=6),
    command=st.sampled_from([argv for argv, _name in commands(force=True)]),
)
def test_whatever_is_planted_every_change_is_a_regular_file_inside_the_root(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    plan: list[tuple[list[str], str]],
    command: list[str],
) -> None:
    base = tmp_path_factory.mktemp("tree")
    root, outside = base / "repo", base / "outside"
    outside.mkdir()
    (outside / ".bashrc").write_text(SECRET, encoding="utf-8")
    (root / "data").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.rlresources]\ndata = "data"\n', encoding="utf-8")
    (root / SCRIPT).parent.mkdir(parents=True)
    (root / SCRIPT).write_text(SCRIPT_TEXT, encoding="utf-8")
    (root / "page.rst").write_text(PAGE, encoding="utf-8")
    for parts, kind in plan:
        plant(root, outside, "/".join(parts), kind)
    before_outside, before_root = snapshot(outside), snapshot(root)
    monkeypatch.chdir(root)
    status = rlresources(command)
    assert status in (0, 1, 2)
    assert snapshot(outside) == before_outside  # nothing outside the root changed
    after = snapshot(root)
    changed = {path for path in set(after) | set(before_root) if after.get(path) != before_root.get(path)}
    for path in changed:
        assert path in after, f"{path} was removed"
        assert after[path][0] in ("file", "dir"), f"{path} became {after[path]}"
        assert not Path(path).is_symlink()
        assert Path(path).resolve().is_relative_to(root.resolve())
