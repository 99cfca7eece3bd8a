"""``rlresources inspect`` as a program reads it: recognised or why not, pools, origins, exit statuses.

The scripts are this repository's fixtures (tests/frameworks/), each citing the public
file whose idiom it is written in; the unknown kinds are what contributors point
``inspect`` at by mistake (a prime-rl ``.toml``, a TRL ``.py``, a README).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from framework_fixtures import FIXTURES, read

from sphinx_rlresources.cli.main import main as rlresources
from sphinx_rlresources.scripts.frameworks import file_kind

ONE_STEP = "recipe/one_step_off_policy/shell"
SAME_NODE = f"{ONE_STEP}/grpo_qwen3_1.7b_fsdp2_2_6.sh"
WHOLE_NODES = f"{ONE_STEP}/dapo_7b_fsdp2_32_32.sh"
LORA = "examples/tuning/lora/run_qwen3_8b_fsdp.sh"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(FIXTURES / "verl", tmp_path, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def inspected(capsys: pytest.CaptureFixture[str], *paths: str) -> tuple[int, list[dict[str, Any]]]:
    status = rlresources(["inspect", *paths, "--format", "json"])
    return status, json.loads(capsys.readouterr().out)


def test_a_read_file_is_recognised_with_its_pool_and_every_headline_origin(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, (found,) = inspected(capsys, LORA)
    assert status == 0
    assert (found["recognised"], found["why_not"], found["launch_line"]) == (True, None, 51)
    assert found["pools"] == [
        {
            "name": "trainer",
            "gpus": 2,
            "nodes": 1,
            "gpus_per_node": 2,
            "shared_by": [],
            "detail": {
                "gpus": {
                    "origin": "script-default",
                    "file": LORA,
                    "line": 42,
                    "written": found["detail"]["gpus"]["written"],
                },
                "nodes": {"origin": "script-default", "file": LORA, "line": 43, "written": "trainer.nnodes=1"},
                "gpus_per_node": {
                    "origin": "script-default",
                    "file": LORA,
                    "line": 42,
                    "written": "trainer.n_gpus_per_node=2",
                },
            },
        }
    ]
    # every headline key has its origin, known or not: a program need not test for its presence
    assert {"gpus", "nodes", "gpus_per_node", "engine", "train_backend", "model", "lora_rank"} <= found["detail"].keys()
    assert found["detail"]["train_backend"]["origin"] == "framework-default"


@pytest.mark.parametrize(
    ("name", "text", "why"),
    [
        ("infer.toml", "[model]\nname = 'Qwen/Qwen3-4B'\n", "a TOML config with these top-level keys ('model')"),
        ("bad.toml", "[model\n", "the file is not valid TOML"),
        (
            "grpo.py",
            "print('accelerate launch --num_processes 8 grpo.py')\n",
            "the module has no docstring with a launch",
        ),
        (
            "usage.py",
            '"""Usage:\n\n    python3 make_data.py --n 3\n"""\n',
            "in its docstring, no command in the script",
        ),
        ("README.md", "# Training\n", "no reader reads a .md file"),
        ("train.sh", "set -x\npython train.py --lr 1e-6\nmkdir -p out\n", "it runs 'python train.py'"),
        ("empty.sh", "set -x\necho nothing\n", "the script runs no command but shell builtins"),
        ("cfg.yaml", "learning_rate: 1\nseed: 2\n", "top-level keys ('learning_rate', 'seed')"),
        ("bad.yaml", "a: [1\n", "the file is not valid YAML"),
    ],
)
def test_a_file_no_reader_knows_is_not_recognised_saying_why_with_status_3(
    repo: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, why: str
) -> None:
    (repo / name).write_text(text, encoding="utf-8")
    status, (_read, found) = inspected(capsys, LORA, name)
    assert status == 3
    assert found["recognised"] is False and why in found["why_not"]
    assert (found["framework"], found["gpus"], found["pools"]) == (None, None, [])
    assert rlresources(["inspect", name]) == 3
    text_out = capsys.readouterr().out.splitlines()
    assert text_out[0].startswith(f"{name}: not recognised: ") and why in text_out[0]
    assert not any(line.lstrip().startswith("gpus ") for line in text_out)  # no rows of unknowns


def test_a_read_file_with_an_error_of_its_own_is_status_1_not_3(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the same setting given twice with two values: read, recognised, with a mistake of its own
    (repo / "run.sh").write_text(
        "python3 -m verl.trainer.main_ppo trainer.n_gpus_per_node=8 trainer.n_gpus_per_node=4\n", encoding="utf-8"
    )
    status, (found,) = inspected(capsys, "run.sh")
    assert found["recognised"] is True
    assert [p["severity"] for p in found["problems"]].count("error") >= 1
    assert status == 1


def test_file_kinds_are_named_by_their_suffix() -> None:
    assert [file_kind(p) for p in ("a/run.sh", "run", "job.SLURM", "x.bash", "c.yml", "c.toml", "t.py", ".envrc")] == [
        "script",
        "script",
        "script",
        "script",
        "config",
        "config",
        "script",
        "script",
    ]


def test_pools_on_whole_nodes_add_up_to_the_runs_totals(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, (found,) = inspected(capsys, WHOLE_NODES)
    assert status == 0
    assert (found["gpus"], found["nodes"], found["gpus_per_node"]) == (64, 8, 8)
    assert [(p["name"], p["gpus"], p["nodes"], p["gpus_per_node"]) for p in found["pools"]] == [
        ("trainer", 32, 4, 8),
        ("rollout", 32, 4, 8),
    ]
    assert found["detail"]["nodes"]["written"] == "nodes of every pool: trainer 4 + rollout 4"
    assert sum(p["gpus"] for p in found["pools"]) == found["gpus"] == found["nodes"] * found["gpus_per_node"]


def test_pools_of_unlike_nodes_leave_the_runs_nodes_unknown_not_wrong(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 6 trainer GPUs and 2 rollout GPUs on one node of 8: the sum of the pools' nodes (2) would be wrong
    status, (found,) = inspected(capsys, SAME_NODE)
    assert status == 0
    assert (found["gpus"], found["nodes"], found["gpus_per_node"]) == (8, None, None)
    assert [(p["name"], p["gpus"], p["nodes"], p["gpus_per_node"]) for p in found["pools"]] == [
        ("trainer", 6, 1, 6),
        ("rollout", 2, 1, 2),
    ]
    assert "may share nodes" in found["detail"]["nodes"]["written"]


def test_every_fixtures_totals_add_up_where_known() -> None:
    checked = 0
    for framework in sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()):
        for path in sorted((FIXTURES / framework).rglob("*")):
            if path.suffix not in (".sh", ".yaml", ".yml", ".toml", ".py"):
                continue
            run = read(framework, path.relative_to(FIXTURES / framework).as_posix())
            gpus, nodes, per_node = run.gpus.value, run.nodes.value, run.gpus_per_node.value
            if None in (gpus, nodes, per_node) or any(p.kind == "other" and p.key == "gpus" for p in run.problems):
                continue  # unknown, or a run that asks for more than it uses (open-instruct's warning says so)
            assert gpus == nodes * per_node, path  # type: ignore[operator]
            checked += 1
    assert checked > 25
