"""Staleness that means something (issue 38): a row is stale when its script changed what the row states.

Each test builds a real git history in a temporary repository -- a row tested on a
day, then commits that touch its script -- and asks the one rule both ways a row can
link its script: from the checkout (``lint --stale``, the build) and pinned at a commit
(``script_ref``, judged by default).  A comment, a reformat or a rename that git follows
changes nothing the row states; a GPU count does.  The launcher is written in the idiom
of verl's ``examples/tuning/7b/qwen2-7b_grpo_2_h800_fsdp_vllm.sh``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from sphinx_rlresources.core.diagnostics import Subtype
from sphinx_rlresources.core.loader import LoadOptions, load_dataset

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="these tests build a git repository")

FOLDER = "examples/tuning/7b"
NAME = "qwen2-7b_grpo_2_h800_fsdp_vllm.sh"
RENAMED = "qwen2.5-7b_grpo_2_h800_fsdp_vllm.sh"
SCRIPT = """\
#!/usr/bin/env bash
# MIN configuration: Qwen2-7B GRPO on 2*H800 (fsdp + vllm 0.8.2).
set -x

python3 -m verl.trainer.main_ppo \\
    algorithm.adv_estimator=grpo \\
    data.train_batch_size=32 \\
    data.max_prompt_length=512 \\
    data.max_response_length=1024 \\
    actor_rollout_ref.model.path=Qwen/Qwen2-7B-Instruct \\
    actor_rollout_ref.rollout.name=vllm \\
    actor_rollout_ref.rollout.tensor_model_parallel_size=2 \\
    actor_rollout_ref.rollout.n=5 \\
    trainer.n_gpus_per_node=2 \\
    trainer.nnodes=1 $@
"""
ROW = """\
size: 7B
entries:
  - tag: MIN
    model: Qwen2-7B
    task: GRPO
    gpus: 2
    device: H800
    max_batch: 32
    train: fsdp
    infer: vllm
    infer_version: "0.8.2"
    script: {script}
    contributor: Xiangyongan
    tested: 2025-06-25
"""


def git(root: Path, *args: str, date: str | None = None) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    if date:
        env.update(GIT_AUTHOR_DATE=f"{date}T12:00:00+00:00", GIT_COMMITTER_DATE=f"{date}T12:00:00+00:00")
    done = subprocess.run(["git", "-C", str(root), *args], env=env, capture_output=True, text=True, check=True)
    return done.stdout


def commit(root: Path, date: str, subject: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", subject, date=date)


def write(root: Path, text: str, name: str = NAME) -> None:
    (root / FOLDER / name).write_text(text, encoding="utf-8")
    (root / "data" / "7b.yaml").write_text(ROW.format(script=f"{FOLDER}/{name}"), encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A row tested on 2025-06-25 whose script was committed on 2025-06-20."""
    root = tmp_path / "repo"
    (root / FOLDER).mkdir(parents=True)
    (root / "data").mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.name", "Test Author")
    git(root, "config", "user.email", "author@example.org")
    git(root, "config", "commit.gpgsign", "false")
    write(root, SCRIPT)
    commit(root, "2025-06-20", "add the 7B row and its launcher")
    return root


def touch(root: Path, name: str = NAME) -> None:
    """A comment and a reformat: every argument moves, nothing the row states changes."""
    text = (root / FOLDER / name).read_text(encoding="utf-8")
    text = text.replace("set -x\n", "set -x\n# Launched by the nightly tuning job.\n")
    text = text.replace("    data.max_prompt_length=512 \\\n", "    data.max_prompt_length=512  \\\n")
    text = text.replace("    algorithm.adv_estimator=grpo", "        algorithm.adv_estimator=grpo")
    (root / FOLDER / name).write_text(text, encoding="utf-8")


def rename(root: Path) -> None:
    git(root, "mv", f"{FOLDER}/{NAME}", f"{FOLDER}/{RENAMED}")
    write(root, (root / FOLDER / RENAMED).read_text(encoding="utf-8"), RENAMED)


def more_gpus(root: Path, name: str = NAME) -> None:
    path = root / FOLDER / name
    path.write_text(path.read_text(encoding="utf-8").replace("n_gpus_per_node=2", "n_gpus_per_node=4"))


def pin(root: Path) -> None:
    """Pin the row at the newest commit (its script is then read from git there)."""
    path = root / "data" / "7b.yaml"
    sha = git(root, "rev-parse", "HEAD").strip()
    path.write_text(path.read_text(encoding="utf-8") + f"    script_ref: {sha}\n", encoding="utf-8")


def stale(root: Path) -> list[str]:
    dataset = load_dataset(root / "data", root, LoadOptions(stale=True), display=lambda p: p.name)
    found = [d.message for d in dataset.diagnostics if d.subtype is Subtype.STALE]
    assert len(dataset.stale) == len(found)
    assert not dataset.notes
    return found


def sha(root: Path, subject: str) -> str:
    return git(root, "log", "--format=%H", "--fixed-strings", f"--grep={subject}").split()[0][:10]


@pytest.mark.parametrize("pinned", [False, True], ids=["checkout", "pinned"])
def test_a_touch_is_not_stale(repo: Path, pinned: bool) -> None:
    touch(repo)
    commit(repo, "2025-07-01", "reformat the launchers")
    if pinned:
        pin(repo)
    assert stale(repo) == []


@pytest.mark.parametrize("pinned", [False, True], ids=["checkout", "pinned"])
def test_a_rename_git_follows_is_not_stale(repo: Path, pinned: bool) -> None:
    rename(repo)
    commit(repo, "2025-07-01", "name the launcher after its model")
    touch(repo, RENAMED)
    commit(repo, "2025-08-01", "reformat the launchers")
    if pinned:
        pin(repo)
    assert stale(repo) == []


@pytest.mark.parametrize("pinned", [False, True], ids=["checkout", "pinned"])
def test_a_gpu_change_is_stale_and_names_its_commit(repo: Path, pinned: bool) -> None:
    touch(repo)
    commit(repo, "2025-07-01", "reformat the launchers")
    more_gpus(repo)
    commit(repo, "2025-08-01", "run on four GPUs")
    touch(repo)  # a later touch is not the culprit
    commit(repo, "2025-09-01", "another sweep")
    if pinned:
        pin(repo)
    at = f"the script at {git(repo, 'rev-parse', 'HEAD').strip()}" if pinned else "the script"
    pin_hint = ", or pin script_ref at the commit that was tested" if pinned else ""
    assert stale(repo) == [
        f"{at} runs gpus 4 (was 2) since this row was tested on 2025-06-25 (changed by "
        f"{sha(repo, 'run on four GPUs')} on 2025-08-01: 'run on four GPUs'); run the configuration again and "
        f"update the row and tested{pin_hint}"
    ]


@pytest.mark.parametrize("pinned", [False, True], ids=["checkout", "pinned"])
def test_a_gpu_change_behind_a_rename_is_stale(repo: Path, pinned: bool) -> None:
    more_gpus(repo)
    commit(repo, "2025-07-01", "run on four GPUs")
    rename(repo)
    commit(repo, "2025-08-01", "name the launcher after its model")
    if pinned:
        pin(repo)
    found = stale(repo)
    assert len(found) == 1 and " runs gpus 4 (was 2) since this row was tested on 2025-06-25 (changed by " in found[0]
    assert f"{sha(repo, 'run on four GPUs')} on 2025-07-01: 'run on four GPUs')" in found[0]


def test_a_script_committed_after_its_row_was_run_is_judged_from_its_first_version(tmp_path: Path) -> None:
    root = tmp_path / "late"
    (root / FOLDER).mkdir(parents=True)
    (root / "data").mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.name", "Test Author")
    git(root, "config", "user.email", "author@example.org")
    write(root, SCRIPT)
    commit(root, "2025-07-01", "commit the launcher that was run on 2025-06-25")
    touch(root)
    commit(root, "2025-07-02", "reformat it")
    assert stale(root) == []
    more_gpus(root)
    commit(root, "2025-07-03", "run on four GPUs")
    found = stale(root)
    assert len(found) == 1 and found[0].startswith(
        "the script runs gpus 4 (was 2) since this row was tested on 2025-06-25"
    )


def test_the_version_as_tested_is_the_one_in_the_tree_then_whatever_the_author_dates() -> None:
    """A rebased commit keeps its older author date: the walk's order, not the dates, says what came before."""
    from sphinx_rlresources.core import history
    from sphinx_rlresources.core.model import Commit

    dates = ["2025-09-01", "2025-06-01", "2025-08-01", "2025-05-01"]  # newest first, one rebased
    lineage = [history.Step(Commit(f"{i}" * 40, day, "s", i), "M", "a.sh", "a.sh") for i, day in enumerate(dates)]
    found = history.versions(lineage, history.after_day("2025-06-25"))
    assert found is not None
    assert (found.base.commit.order, [s.commit.order for s in found.newer]) == (1, [0])
    assert history.versions(lineage, history.after_day("2025-09-01")) is None  # nothing after the tested day
