"""Adoption on a real repository as it is today (issue: scripts pinned at a commit, no -W, one configuration).

The main test builds a git repository in a temporary folder, as the framework's is:

1. commit 1 holds the hand-written page and its scripts;
2. commit 2 deletes the scripts and pins the page's links at commit 1;
3. the docs build has an unrelated warning, the settings live only in
   ``pyproject.toml``, and conf.py sets just the extension and ``rlresources_fail_on``.

The other tests cover each of the six problems found there, one by one.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import unbroken
from sphinx.cmd.build import build_main
from test_hostile import ROW

from sphinx_rlresources.cli.main import main as rlresources
from sphinx_rlresources.core.diagnostics import relpath
from sphinx_rlresources.core.loader import load_dataset

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="these tests build a git repository")

SCRIPT_TEXT = """\
#!/usr/bin/env bash
python3 -m verl.trainer.main_ppo \\
    algorithm.adv_estimator=grpo \\
    data.train_batch_size={batch} \\
    actor_rollout_ref.model.path=Qwen/{model}-Instruct \\
    actor_rollout_ref.model.lora_rank={lora} \\
    actor_rollout_ref.rollout.name=vllm \\
    trainer.n_gpus_per_node={gpus} \\
    trainer.nnodes=1
"""
#: (size folder, file name, model, gpus the script runs, lora rank)
SCRIPTS = [
    ("0.5b", "qwen2.5-0.5b_grpo-lora_1_h100_fsdp_vllm.sh", "Qwen2.5-0.5B", 1, 32),
    ("7b", "qwen2-7b_grpo_8_h100_fsdp_vllm.sh", "Qwen2.5-7B", 8, 0),
    ("7b", "qwen2-7b_grpo_4_h800_fsdp_vllm.sh", "Qwen2.5-7B", 4, 0),
]
#: One row per script: (size heading, model, task, resource written on the page, script index).
#: The third row is a true defect: the page says 16 GPUs, the script runs 4 and is named _4_.
ROWS = [
    ("0.5B", "Qwen2.5-0.5B", "GRPO-LoRA", "1*H100", 0),
    ("7B", "Qwen2.5-7B", "GRPO", "8*H100", 1),
    ("7B", "Qwen2.5-7B", "GRPO", "16*H800", 2),
]


def git(repo: Path, *args: str, date: str = "2025-06-25T12:00:00+00:00") -> str:
    env = dict(os.environ, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t")
    env.update(GIT_COMMITTER_EMAIL="t@example.org", GIT_CONFIG_NOSYSTEM="1", HOME=str(repo))
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(name, None)
    done = subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def page(link: str) -> str:
    """The hand-written page; ``link`` is the URL prefix of each script (``.../blob/REF/``)."""
    parts = ["Hardware\n========\n\n"]
    sections: dict[str, list[str]] = {}
    for size, model, task, resource, index in ROWS:
        folder, name, *_ = SCRIPTS[index]
        sections.setdefault(size, []).append(
            f"    * - MIN\n      - {model}\n      - {task}\n      - {resource}\n      - 64\n      - fsdp\n"
            f"      - vllm0.8.3\n      - `{name} <{link}examples/tuning/{folder}/{name}>`_\n      - Simon\n"
        )
    for size, rows in sections.items():
        underline = "~" * (3 if size == "0.5B" else len(size))  # the seed page's short underline
        parts.append(
            f"{size}\n{underline}\n\n.. list-table::\n    :header-rows: 1\n\n"
            "    * - Tag\n      - Model\n      - Task\n      - Resource\n      - MaxBatch\n      - Train\n"
            "      - Infer\n      - Link\n      - Contributor\n" + "".join(rows) + "\n"
        )
    return "".join(parts)


def write_scripts(repo: Path) -> None:
    for folder, name, model, gpus, lora in SCRIPTS:
        path = repo / "examples" / "tuning" / folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SCRIPT_TEXT.format(batch=64, model=model, lora=lora, gpus=gpus), "utf-8")


@pytest.fixture
def framework(tmp_path: Path) -> tuple[Path, str]:
    """The framework's repository after commit 2, and commit 1's hash."""
    repo = tmp_path / "framework"
    (repo / "docs").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    write_scripts(repo)
    (repo / "docs" / "tuning.rst").write_text(page("https://github.com/org/repo/blob/main/"), "utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the page and its scripts")
    first = git(repo, "rev-parse", "HEAD")
    shutil.rmtree(repo / "examples")
    (repo / "docs" / "tuning.rst").write_text(page(f"https://github.com/org/repo/blob/{first}/"), "utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "move the scripts out; pin the links", date="2026-01-10T12:00:00+00:00")
    (repo / "pyproject.toml").write_text(
        '[tool.rlresources]\ndata = "data"\nroot = "."\nscript_url = "https://github.com/org/repo/blob/{ref}/{path}"\n',
        "utf-8",
    )
    (repo / "docs" / "conf.py").write_text(
        'extensions = ["sphinx_rlresources"]\nrlresources_fail_on = "error"\n', "utf-8"
    )
    (repo / "docs" / "index.rst").write_text(
        "Docs\n====\n\nSee :doc:`nowhere` (an unrelated warning, as real builds have).\n\n.. toctree::\n\n   sizes\n",
        "utf-8",
    )
    (repo / "docs" / "sizes.rst").write_text(
        "Sizes\n=====\n\n.. rl-resource-table:: 0.5b\n\n.. rl-resource-table:: 7b\n", "utf-8"
    )
    return repo, first


def cli(repo: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    old = Path.cwd()
    os.chdir(repo)
    try:
        status = rlresources(list(argv))
    finally:
        os.chdir(old)
    out, err = capsys.readouterr()
    return status, out, err


def findings(repo: Path, capsys: pytest.CaptureFixture[str]) -> set[tuple[str, str]]:
    status, out, _err = cli(repo, capsys, "lint", "--format", "json")
    assert status == 1
    return {(item["code"], item["json_path"]) for item in json.loads(out)}


def build(repo: Path, *flags: str) -> tuple[int, str]:
    log = repo / "warnings.txt"
    status = build_main(["-q", "-E", *flags, "-w", str(log), str(repo / "docs"), str(repo / "docs" / "_build")])
    return status, log.read_text("utf-8")


def test_a_framework_repository_as_it_is_today(framework: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    repo, first = framework
    # 1. the import reports the page's heading defect, and writes script_ref and tested for every row
    status, out, _err = cli(repo, capsys, "import", "docs/tuning.rst", "--out", "data", "--root", ".")
    assert status == 0
    assert out.startswith(
        "docs/tuning.rst:4: warning: '0.5B' is not a heading to docutils: its underline (3 '~') is shorter than "
        "the title and under 4 characters"
    )
    rows = load_dataset(repo / "data", repo, None).entries
    # the day the row's cells last changed: commit 1 (commit 2 changed only the Link cells)
    assert [(e.script_ref, e.tested) for e in rows] == [(first, "2025-06-25")] * 3

    # 2. lint from the root finds the true defects, and nothing is "missing"
    pinned = findings(repo, capsys)
    assert not any(code == "rlresources.script_missing" for code, _ in pinned)
    assert ("rlresources.script_gpus", "entries[1].gpus") in pinned
    checked_out = repo.parent / "checked-out"
    shutil.copytree(repo, checked_out)
    write_scripts(checked_out)  # the tree at commit 1, with the rows' script_ref dropped
    for data in (checked_out / "data").glob("*.yaml"):
        text = data.read_text("utf-8")
        data.write_text("\n".join(line for line in text.splitlines() if "script_ref" not in line) + "\n", "utf-8")
    assert findings(checked_out, capsys) == pinned

    # 3. the build without -W exits non-zero, writes every page, links each row at the pinned commit
    status, warnings = build(repo)
    assert status == 1
    assert "nowhere" in warnings and "[rlresources.script_gpus]" in warnings
    html = unbroken((repo / "docs" / "_build" / "sizes.html").read_text("utf-8"))
    assert f"https://github.com/org/repo/blob/{first}/examples/tuning/7b/qwen2-7b_grpo_8_h100_fsdp_vllm.sh" in html
    assert (repo / "docs" / "_build" / "index.html").is_file()
    # 4. with "never", the same build exits 0
    assert build(repo, "-D", "rlresources_fail_on=never")[0] == 0


def test_a_ref_the_clone_lacks_says_how_to_fetch_it(tmp_path: Path, framework: tuple[Path, str]) -> None:
    repo, _first = framework
    (repo / "data").mkdir()
    (repo / "data" / "7b.yaml").write_text(
        "size: 7B\nentries:\n  - tag: MIN\n    model: Qwen2.5-7B\n    task: GRPO\n    gpus: 8\n    device: H100\n"
        "    max_batch: 64\n    train: fsdp\n    infer: vllm\n"
        "    script: examples/tuning/7b/qwen2-7b_grpo_8_h100_fsdp_vllm.sh\n    script_ref: 0123abc\n"
        "    contributor: Simon\n",
        "utf-8",
    )
    found = [d.format() for d in load_dataset(repo / "data", repo).diagnostics]
    assert len(found) == 1
    assert "script_ref '0123abc' is not a commit, tag or branch this repository has" in found[0]
    assert "build.jobs.post_checkout" in found[0] and found[0].endswith("[rlresources.script_ref]")
    assert ":12:17: " in found[0]  # at the script_ref value


def test_no_git_is_a_clear_error(framework: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    repo, first = framework
    (repo / "data").mkdir()
    (repo / "data" / "7b.yaml").write_text(
        "size: 7B\nentries:\n  - tag: MIN\n    model: Qwen2.5-7B\n    task: GRPO\n    gpus: 8\n    device: H100\n"
        "    max_batch: 64\n    train: fsdp\n    infer: vllm\n"
        f"    script: examples/tuning/7b/qwen2-7b_grpo_8_h100_fsdp_vllm.sh\n    script_ref: {first}\n"
        "    contributor: Simon\n",
        "utf-8",
    )
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    (found,) = [d.format() for d in load_dataset(repo / "data", repo).diagnostics]
    assert "needs git to read the script at that commit, but git is not installed" in found
    assert found.endswith("[rlresources.script_ref]")


# -- 2. -W is not an option: rlresources_fail_on -------------------------------------------


def small_project(tmp_path: Path, conf: str, gpus: int = 8) -> Path:
    root = tmp_path / "p"
    (root / "data").mkdir(parents=True)
    shutil.copytree(Path(__file__).parent / "roots" / "test-hostile" / "examples", root / "examples")
    (root / "data" / "7b.yaml").write_text("size: 7B\nentries:\n" + ROW.replace("gpus: 8", f"gpus: {gpus}"), "utf-8")
    (root / "conf.py").write_text(
        f'extensions = ["sphinx_rlresources"]\nrlresources_data_dir = "data"\nrlresources_root = "."\n{conf}', "utf-8"
    )
    (root / "index.rst").write_text("T\n=\n\n:doc:`missing`\n\n.. rl-resource-table:: 7b\n", "utf-8")
    return root


def run_build(root: Path, *flags: str) -> tuple[int, str]:
    log = root / "log.txt"
    status = build_main(["-q", "-E", *flags, "-w", str(log), str(root), str(root / "_build")])
    return status, log.read_text("utf-8")


@pytest.mark.parametrize(
    ("fail_on", "gpus", "status"),
    [
        ("never", 16, 0),
        ("error", 8, 0),  # only the unrelated warning: not ours
        ("error", 16, 1),  # a data problem
        ("warning", 8, 0),
        ("warning", 16, 1),
    ],
)
def test_fail_on_sets_the_exit_status_without_w(tmp_path: Path, fail_on: str, gpus: int, status: int) -> None:
    root = small_project(tmp_path, f"rlresources_fail_on = {fail_on!r}\n", gpus)
    got, _log = run_build(root)
    assert got == status
    assert (root / "_build" / "index.html").is_file()  # every page is written either way


def test_an_option_problem_fails_at_warning_not_at_error(tmp_path: Path) -> None:
    root = small_project(tmp_path, 'rlresources_fail_on = "error"\n')
    (root / "index.rst").write_text("T\n=\n\n.. rl-resource-table:: 7b\n   :columns: tag, nothing\n", "utf-8")
    assert run_build(root)[0] == 0
    (root / "conf.py").write_text((root / "conf.py").read_text("utf-8").replace('"error"', '"warning"'), "utf-8")
    assert run_build(root)[0] == 1


def test_suppressed_findings_do_not_fail_the_build(tmp_path: Path) -> None:
    conf = 'rlresources_fail_on = "error"\nsuppress_warnings = ["rlresources.script_gpus", "rlresources.naming"]\n'
    assert run_build(small_project(tmp_path, conf, 16))[0] == 0


def test_parallel_readers_count_too(tmp_path: Path) -> None:
    root = small_project(tmp_path, 'rlresources_fail_on = "warning"\n')
    for n in range(4):
        (root / f"p{n}.rst").write_text(f"P{n}\n==\n\n.. rl-resource-table:: 70b\n", "utf-8")  # unknown size
    (root / "index.rst").write_text("T\n=\n\n.. toctree::\n\n   p0\n   p1\n   p2\n   p3\n", "utf-8")
    status, log = run_build(root, "-j", "2")
    assert status == 1 and log.count("[rlresources.unknown_size]") == 4


def test_the_log_says_how_many_findings_failed_the_build(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = small_project(tmp_path, 'rlresources_fail_on = "error"\n', 16)
    status = build_main(["-E", str(root), str(root / "_build")])
    out = capsys.readouterr().out.strip().splitlines()
    assert status == 1  # the count is of our findings, not of Sphinx's warnings
    assert re.fullmatch(
        r"rlresources: \d+ findings at or above 'error' failed the build \(rlresources_fail_on = 'error'\); "
        r"every page was written",
        out[-2],
    )
    assert "build finished with problems" in out[-1]


@pytest.mark.parametrize("flags", [(), ("-W", "--keep-going"), ("-j", "2")], ids=["plain", "-W", "-j 2"])
def test_each_finding_is_counted_once(tmp_path: Path, flags: tuple[str, ...]) -> None:
    """The count equals the findings printed: Sphinx hands a page's held-back warnings to the logger twice."""
    root = small_project(tmp_path, 'rlresources_fail_on = "warning"\n', 16)
    for n in range(3):
        (root / f"p{n}.rst").write_text(f"P{n}\n==\n\n.. rl-resource-table:: 70b\n", "utf-8")  # unknown size
    toctree = ".. toctree::\n\n   p0\n   p1\n   p2\n"
    (root / "index.rst").write_text(f"T\n=\n\n.. rl-resource-table:: 7b\n\n{toctree}", "utf-8")
    log = root / "log.txt"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        build_main(["-E", *flags, "-w", str(log), str(root), str(root / "_build")])
    printed = log.read_text("utf-8").count("[rlresources.")
    summary = re.search(r"rlresources: (\d+) findings? at or above 'warning'", out.getvalue())
    assert printed >= 5 and summary is not None
    assert int(summary.group(1)) == printed


# -- 3. one configuration -----------------------------------------------------------------


def test_the_build_reads_pyproject_and_says_when_conf_py_differs(tmp_path: Path) -> None:
    root = small_project(tmp_path, "")
    (root / "tables").mkdir()
    (root / "data" / "7b.yaml").rename(root / "tables" / "7b.yaml")
    (root / "pyproject.toml").write_text('[tool.rlresources]\ndata = "tables"\nroot = "."\n', "utf-8")
    (root / "conf.py").write_text('extensions = ["sphinx_rlresources"]\n', "utf-8")
    status, log = run_build(root)
    assert status == 0 and "rlresources" not in log  # found through pyproject.toml alone
    assert "qwen2-7b_grpo_8_h100_fsdp_vllm.sh" in unbroken((root / "_build" / "index.html").read_text("utf-8"))
    (root / "conf.py").write_text('extensions = ["sphinx_rlresources"]\nrlresources_data_dir = "data"\n', "utf-8")
    (root / "data").mkdir(exist_ok=True)
    _status, log = run_build(root)
    differ = [line for line in log.splitlines() if "differ" in line]
    assert differ == [
        "WARNING: rlresources_data_dir = 'data' in conf.py and data = 'tables' in [tool.rlresources] of "
        f"{relpath(root / 'pyproject.toml')} differ; the build uses conf.py's value and rlresources lint "
        "uses pyproject.toml's: state it once, in pyproject.toml [rlresources.config]"
    ]


def test_lint_exits_2_when_the_configured_data_folder_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.rlresources]\ndata = "tables"\n', "utf-8")
    status, out, err = cli(tmp_path, capsys, "lint")
    assert (status, out) == (2, "")
    assert err.startswith("rlresources: error: the data folder 'tables' does not exist")


def test_upper_case_data_file_names_are_read(tmp_path: Path) -> None:
    root = small_project(tmp_path, "")
    (root / "data" / "7b.yaml").rename(root / "data" / "7B.YAML")
    dataset = load_dataset(root / "data", root)
    assert [d.format() for d in dataset.diagnostics] == [] and list(dataset.sizes) == ["7b"]


# -- 5. a missing script is not linked ----------------------------------------------------


def test_a_missing_script_is_not_linked_even_with_a_url_template(tmp_path: Path) -> None:
    root = small_project(tmp_path, 'rlresources_script_url = "https://example.org/{ref}/{path}"\n')
    (root / "examples" / "tuning" / "7b" / "qwen2-7b_grpo_8_h100_fsdp_vllm.sh").unlink()
    _status, _log = run_build(root)
    html = unbroken((root / "_build" / "index.html").read_text("utf-8"))
    assert "qwen2-7b_grpo_8_h100_fsdp_vllm.sh" in html
    assert 'href="https://example.org/' not in html


# -- 6. coherent advice ---------------------------------------------------------------------


def test_the_name_and_the_gpus_checks_point_the_same_way(tmp_path: Path) -> None:
    root = small_project(tmp_path, "", gpus=16)  # the script runs 8 and is named _8_
    found = [d.message for d in load_dataset(root / "data", root).diagnostics]
    assert any("the script runs gpunums '8' as its name says: fix the row" in m for m in found)
    (gpus,) = [m for m in found if "n_gpus_per_node" in m]
    assert "rename" not in gpus
    assert not any("rename the script to 'qwen2-7b_grpo_16_" in m for m in found)


def test_new_reads_the_model_hint_from_the_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = small_project(tmp_path, "")
    folder = root / "examples" / "tuning" / "32b"
    folder.mkdir()
    text = (root / "examples" / "tuning" / "7b" / "qwen2-7b_grpo_8_h100_fsdp_vllm.sh").read_text("utf-8")
    (folder / "qwen2.5-32b_grpo_8_h100_fsdp_vllm.sh").write_text(
        text.replace("Qwen/Qwen2-7B-Instruct", "Qwen/Qwen2.5-32B-Instruct"), "utf-8"
    )
    status, out, _err = cli(root, capsys, "new", "examples/tuning/32b/qwen2.5-32b_grpo_8_h100_fsdp_vllm.sh",
                            "--data", "data", "--root", ".", "--dry-run")  # fmt: skip
    assert status == 0
    assert "model: Qwen2.5-32B  # from actor_rollout_ref.model.path=Qwen/Qwen2.5-32B-Instruct" in out
    assert "Qwen2.5-7B" not in out
