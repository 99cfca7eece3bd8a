"""The repositories of tests/test_adopt_frameworks.py, which docs/adopting.rst's examples also run in.

For NeMo-RL, OpenRLHF, slime, SkyRL and TRL a repository of that framework's shape is made from
the fixture files of ``tests/frameworks/<name>/`` (each cites the public file that taught its
idiom), with the ``[tool.rlresources]`` block docs/adopting.rst gives for that framework.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from framework_fixtures import FIXTURES
from helpers import working_in

from sphinx_rlresources.cli.main import main as rlresources

ADOPTING = FIXTURES.parents[1] / "docs" / "adopting.rst"


@dataclass(frozen=True)
class Adoption:
    """One framework's repository and what the page says to do in it."""

    fixture: str
    """The folder under tests/frameworks/."""
    heading: str
    """The framework's name as docs/adopting.rst writes it."""
    files: tuple[str, ...]
    """The files copied into the repository: launch files, the configs they read, files that need no row."""
    new: tuple[tuple[str, str], ...]
    """(launch file, size) for each ``rlresources new`` the page runs."""
    defects: tuple[tuple[str, str, str, tuple[str, ...]], ...]
    """(data file, the row's line as written, the planted line, the codes of the findings it must get)."""


ADOPTIONS: dict[str, Adoption] = {
    "nemo-rl": Adoption(
        "nemorl",
        "NeMo-RL",
        (
            "examples/configs/grpo_base.yaml",
            "examples/configs/recipes/llm/grpo-qwen2.5-7b-1n8g-fsdp2tp1.yaml",
            "examples/configs/recipes/llm/grpo-qwen3-30ba3b-4n8g-megatron-lora.yaml",
            # CI launchers need no row under the page's launch_files
            "tests/test_suites/llm/grpo-qwen2.5-7b-1n8g-fsdp2tp1.sh",
            "tests/test_suites/llm/common.env",
        ),
        (
            ("examples/configs/recipes/llm/grpo-qwen2.5-7b-1n8g-fsdp2tp1.yaml", "7B"),
            ("examples/configs/recipes/llm/grpo-qwen3-30ba3b-4n8g-megatron-lora.yaml", "30B"),
        ),
        (
            ("7b", "    gpus: 8\n", "    gpus: 16\n", ("naming", "script_gpus")),
            ("7b", "    train: dtensor\n", "    train: megatron\n", ("script_train",)),
        ),
    ),
    "openrlhf": Adoption(
        "openrlhf",
        "OpenRLHF",
        (
            "examples/scripts/train_ppo_hybrid.sh",
            "examples/scripts/train_reinforce_baseline_lora.sh",
            "examples/scripts/train_sft.sh",  # not an RL launcher: no row
        ),
        (("examples/scripts/train_ppo_hybrid.sh", "8B"), ("examples/scripts/train_reinforce_baseline_lora.sh", "7B")),
        (
            # reinforce_baseline is not GRPO's group_norm (the PPO script's gae is OpenRLHF's default, unstated:
            # a default is not compared, since it changes between versions)
            ("7b", "    task: REINFORCE++-baseline-LoRA\n", "    task: GRPO-LoRA\n", ("script_algorithm",)),
            ("8b", "    gpus: 8\n", "    gpus: 16\n", ("script_gpus",)),
        ),
    ),
    "slime": Adoption(
        "slime",
        "slime",
        ("scripts/run-qwen2.5-1.5B.sh", "scripts/models/qwen2.5-1.5B.sh", "scripts/run-sft.sh"),
        (("scripts/run-qwen2.5-1.5B.sh", "1.5B"),),
        (("1.5b", "    gpus: 8\n", "    gpus: 4\n", ("script_gpus",)),),
    ),
    "skyrl": Adoption(
        "skyrl",
        "SkyRL",
        ("examples/train/gsm8k/run_gsm8k.sh", "examples/train/sft/run_sft.sh"),
        (("examples/train/gsm8k/run_gsm8k.sh", "0.5B"),),
        (("0.5b", "    task: GRPO\n", "    task: PPO\n", ("script_algorithm",)),),
    ),
    "trl": Adoption(
        "trl",
        "TRL",
        (
            "examples/scripts/grpo_colocate.sh",
            "examples/accelerate_configs/zero3_offload.yaml",
            "examples/scripts/rloo_cli.sh",
        ),
        (("examples/scripts/grpo_colocate.sh", "1.5B"), ("examples/scripts/rloo_cli.sh", "0.5B")),
        (("1.5b", "    train: deepspeed\n", "    train: megatron\n", ("script_train",)),),
    ),
}


def settings(heading: str) -> str:
    """The ``[tool.rlresources]`` block docs/adopting.rst gives under the framework's heading."""
    section = ADOPTING.read_text("utf-8").split(".. _adopting-frameworks:", 1)[1]
    entry = re.split(rf"^{re.escape(heading)}\n", section, maxsplit=1, flags=re.MULTILINE)[1]
    block = entry.split(".. code-block:: toml\n\n", 1)[1].split("\n\n", 1)[0]
    return textwrap.dedent(block) + "\n"


def quietly(args: list[str]) -> tuple[int, str]:
    """``rlresources ARGS`` in this process: (status, stdout and stderr as a terminal shows them)."""
    terminal = io.StringIO()
    with contextlib.redirect_stdout(terminal), contextlib.redirect_stderr(terminal):
        status = rlresources(args)
    return status, terminal.getvalue()


def adoption_repo(framework: str) -> Callable[[Path], Path]:
    """A maker of the framework's repository: its files, the page's settings, the schema written."""
    adoption = ADOPTIONS[framework]

    def make(folder: Path) -> Path:
        for path in adoption.files:
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(FIXTURES / adoption.fixture / path, folder / path)
        (folder / "pyproject.toml").write_text(settings(adoption.heading), encoding="utf-8")
        with working_in(folder):
            assert quietly(["schema", "--out", "data/rlresources.schema.json"])[0] == 0
        return folder

    return make


#: What ``new`` leaves as TODO that neither the name nor these launch files say, filled as its comment asks.
FILLED = {"device": "H100", "max_batch": "null", "train": "ddp"}


def fill_todos(root: Path) -> None:
    """Replace each ``field: TODO  # hint`` line ``new`` wrote with the value the page fills in."""
    for path in (root / "data").glob("*.yaml"):
        text = path.read_text("utf-8")
        for field, value in FILLED.items():
            text = re.sub(rf"^(\s+){field}: TODO\b.*$", rf"\g<1>{field}: {value}", text, flags=re.MULTILINE)
        path.write_text(text, encoding="utf-8")


def adopted(framework: str) -> Callable[[Path], None]:
    """The page's steps after the settings: ``new`` on each launch file, then the TODOs filled."""

    def steps(root: Path) -> None:
        with working_in(root):
            for script, size in ADOPTIONS[framework].new:
                status, said = quietly(["new", script, "--size", size, "--tag", "MIN", "--contributor", "Simon"])
                assert status == 0, said
        fill_todos(root)

    return steps


def lint_json(root: Path) -> list[dict[str, Any]]:
    with working_in(root):
        _status, out = quietly(["lint", "--format", "json"])
    found: list[dict[str, Any]] = json.loads(out)
    return found


README = """\
# Hardware

<!-- rl-resource-table all :columns: size, tag, model, task, resource, link -->
<!-- /rl-resource-table -->
"""


def planted(framework: str, defect: int) -> Callable[[Path], None]:
    """The page's steps, then the framework's defect number ``defect`` planted in its row."""

    def steps(root: Path) -> None:
        adopted(framework)(root)
        size, written, wrong, _codes = ADOPTIONS[framework].defects[defect]
        path = root / "data" / f"{size}.yaml"
        text = path.read_text("utf-8")
        assert text.count(written) == 1, text
        path.write_text(text.replace(written, wrong), encoding="utf-8")

    return steps


def with_readme(framework: str) -> Callable[[Path], None]:
    """The page's steps, then a README with the table block to fill."""

    def steps(root: Path) -> None:
        adopted(framework)(root)
        (root / "README.md").write_text(README, encoding="utf-8")

    return steps
