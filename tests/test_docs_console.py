"""Every ``$ rlresources ...`` example of the docs and the README runs here, and prints what the page shows.

Docs that drift from the tool teach the wrong command: a suggested name the tool no
longer gives, a line number one off, a file the repository does not have.  So every
console example is found in ``docs/*.rst`` and ``README.md`` (a test fails on one that
no entry below covers), run in the place it names -- a copy of this repository, or the
named fixture repository ``tests/data/cli/repo`` the CLI page's examples are about --
and its real output is compared with the output the page shows (``...`` on a line of
its own stands for lines left out).  An example shown without its output is compared
with the output stored in ``tests/data/console/`` instead.

Pipes and redirections of the examples (``| head -4``, ``| grep WORD``, ``> FILE``,
``> /dev/null``) are done here, on the command's captured output: the command itself
runs in this process, as ``rlresources`` would run it.
"""

from __future__ import annotations

import contextlib
import glob
import io
import json
import re
import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from adoption import ADOPTIONS, adopted, adoption_repo, planted, with_readme
from conftest import REPO, TESTS
from helpers import commit, git

from sphinx_rlresources.cli import main as cli

STORED = TESTS / "data" / "console"
CLI_FIXTURE = TESTS / "data" / "cli" / "repo"
_PROMPT = re.compile(r"^(\s*)\$ (rlresources\b.*)$")


@dataclass(frozen=True)
class Shown:
    """One console example as a page shows it: where, the command, and the output under it."""

    source: str
    line: int
    command: str
    output: tuple[str, ...]


def _rst_examples(path: Path) -> list[Shown]:
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    for index, line in enumerate(lines):
        match = _PROMPT.match(line)
        if not match:
            continue
        indent = len(match.group(1))
        output = []
        for following in lines[index + 1 :]:
            if following.strip() and (len(following) - len(following.lstrip()) < indent):
                break
            if following[indent:].startswith("$ "):
                break
            output.append(following[indent:].rstrip())
        while output and not output[-1]:
            output.pop()
        found.append(Shown(path.name, index + 1, match.group(2), tuple(output)))
    return found


def _markdown_examples(path: Path) -> list[Shown]:
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    fenced = False
    for index, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
            continue
        match = _PROMPT.match(line) if fenced else None
        if not match:
            continue
        output = []
        for following in lines[index + 1 :]:
            if following.startswith(("```", "$ ")):
                break
            output.append(following.rstrip())
        found.append(Shown(path.name, index + 1, match.group(2), tuple(output)))
    return found


def examples() -> list[Shown]:
    """Every ``$ rlresources`` line of the docs and the README, with the output shown under it."""
    found = []
    for path in sorted((REPO / "docs").glob("*.rst")):
        found += _rst_examples(path)
    return found + _markdown_examples(REPO / "README.md")


def key(example: Shown, every: list[Shown]) -> str:
    """``file: command``, and ``#2``, ``#3`` for a command the file shows again (in another state)."""
    same = [e for e in every if (e.source, e.command) == (example.source, example.command)]
    nth = same.index(example) + 1
    command = " ".join(re.sub(r"\s+#.*$", "", example.command).split())  # without its comment
    return f"{example.source}: {command}" + (f" #{nth}" if nth > 1 else "")


# -- the places the examples run in ----------------------------------------------------------


def seed_copy(folder: Path) -> Path:
    """This repository as a reader's checkout has it: the data, the scripts, the layout, the README."""
    for part in ("data", "examples", "tests/frameworks", "tests/data/import"):
        shutil.copytree(REPO / part, folder / part)
    for part in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / part, folder / part)
    return folder


def cli_fixture(folder: Path) -> Path:
    """``tests/data/cli/repo``: two sizes, one 7B row, a script without its row (the CLI page's story)."""
    shutil.copytree(CLI_FIXTURE, folder, dirs_exist_ok=True)
    (folder / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.rlresources]\ndata = "data"\nroot = "."\nscripts = ["examples/tuning"]\n',
        encoding="utf-8",
    )
    return folder


def freshness_history(folder: Path) -> Path:
    """``tests/roots/test-freshness`` in the history docs/freshness.rst tells (tests/test_freshness.py's too):
    added on 2025-06-20; the LoRA row's script, tested 2025-06-25, given a longer response on
    2025-07-10 and edited in nothing it states on 2025-09-30; the undated row's script given a
    longer response on 2025-09-30."""
    shutil.copytree(TESTS / "roots" / "test-freshness", folder)
    scripts = folder / "examples" / "tuning" / "7b"
    git(folder, "init", "-q")
    commit(folder, "add the 7B and 70B rows and their scripts", "2025-06-20T12:00:00+00:00")
    _edit(scripts / "qwen2-7b_grpo_2_h800_fsdp_vllm.sh", "optim.lr=1e-6", "optim.lr=2e-6")
    commit(folder, "tune the learning rate", "2025-06-25T12:00:00+00:00")
    _edit(scripts / "qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh", "rollout.n=5", "rollout.n=6")
    _edit(scripts / "qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh", "max_response_length=1024", "max_response_length=2048")
    commit(folder, "raise the rollout count and the response length", "2025-07-10T12:00:00+00:00")
    _edit(
        scripts / "qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh", "gpu_memory_utilization=0.6", "gpu_memory_utilization=0.5"
    )
    _edit(
        scripts / "qwen2.5-7b_grpo_8_h100_fsdp_vllm.sh",
        "rollout.n=5",
        "rollout.n=8 \\\n    data.max_response_length=2048",
    )
    commit(folder, "rewrite rollout settings", "2025-09-30T12:00:00+00:00")
    return folder


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path.name} no longer holds {old!r}: the example's set-up needs updating"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def scaffolded(root: Path) -> None:
    """The orphan script's row, as ``rlresources new`` writes it (TODOs left)."""
    assert cli.main(["new", "examples/tuning/7b/qwen2.5-7b_grpo_8_h100_megatron_sglang.sh"]) == 0


def filled(root: Path) -> None:
    """The scaffolded row with its TODOs filled in."""
    scaffolded(root)
    path = root / "data" / "7b.yaml"
    text = path.read_text(encoding="utf-8")
    for old, new in (("tag: TODO", "tag: RECOMMENDED"), ("max_batch: TODO", "max_batch: 256"),
                     ("contributor: TODO", "contributor: SimonHuang")):  # fmt: skip
        text = text.replace(old, new, 1)
    path.write_text(text, encoding="utf-8")


def filled_with_eight_gpus(root: Path) -> None:
    """The CLI page's broken row: the new row filled in, with ``gpus: eight``."""
    filled(root)
    _edit(root / "data" / "7b.yaml", "gpus: 8", "gpus: eight")


def misnamed_script(root: Path) -> None:
    """A new script whose name breaks the rule."""
    good = root / "examples" / "tuning" / "7b" / "qwen2.5-7b_grpo_8_h100_megatron_sglang.sh"
    shutil.copy(good, good.with_name("Qwen2_7b_grpo_8_h100_megatron_sglang.sh"))


def the_pages_readme(root: Path) -> None:
    """docs/without-sphinx.rst's README (its first Markdown block), with empty blocks, as the page starts."""
    page = (REPO / "docs" / "without-sphinx.rst").read_text(encoding="utf-8")
    block = page.split(".. code-block:: markdown\n\n", 1)[1]
    lines = []
    for line in block.splitlines():
        if line and not line.startswith("   "):
            break
        lines.append(line[3:])
    (root / "README.md").write_text("\n".join(lines).strip("\n") + "\n", encoding="utf-8")


def the_pages_readme_synced_then_four_gpus(root: Path) -> None:
    """That README filled in, then the first 7B row claims 4 GPUs (its script still runs 2)."""
    the_pages_readme(root)
    assert cli.main(["sync", "README.md"]) == 0
    _edit(root / "data" / "7b.yaml", "gpus: 2", "gpus: 4")


def readme_block_emptied(root: Path) -> None:
    """This repository's README with its table's rows taken out: the block is out of date."""
    path = root / "README.md"
    text = path.read_text(encoding="utf-8")
    start = text.index("<!-- rl-resource-table 70b")
    start = text.index("-->", start) + len("-->")
    end = text.index("<!-- /rl-resource-table -->", start)
    path.write_text(text[:start] + "\n" + text[end:], encoding="utf-8")


def import_folder(folder: Path) -> Path:
    """An empty repository holding ``seed-page.rst``: this project's page before it moved onto data."""
    folder.mkdir()
    shutil.copy(TESTS / "data" / "import" / "seed-page.rst", folder / "seed-page.rst")
    return folder


def readers_page(folder: Path) -> Path:
    """A reader's repository: its own hand-written page (a fixture in its place) and nothing else yet."""
    (folder / "docs" / "perf").mkdir(parents=True)
    shutil.copy(TESTS / "data" / "import" / "well-formed.rst", folder / "docs" / "perf" / "device_tuning.rst")
    shutil.copy(TESTS / "data" / "import" / "seed-page.rst", folder / "old-page.rst")
    return folder


def schema_written(root: Path) -> None:
    assert cli.main(["schema", "--out", "data/rlresources.schema.json"]) == 0


def a_config_json(root: Path) -> None:
    """The ``path/to/config.json`` the estimator page names: a Qwen2-7B shape, as Hugging Face writes it."""
    (root / "path" / "to").mkdir(parents=True)
    config = {"model_type": "qwen2", "hidden_size": 3584, "num_hidden_layers": 28, "num_attention_heads": 28,
              "num_key_value_heads": 4, "intermediate_size": 18944, "vocab_size": 152064}  # fmt: skip
    (root / "path" / "to" / "config.json").write_text(json.dumps(config), encoding="utf-8")


def _page_block(page: str, kind: str, after: str) -> str:
    """The first ``code-block:: KIND`` after ``after`` on ``docs/PAGE``, unindented."""
    text = (REPO / "docs" / page).read_text(encoding="utf-8")
    found = re.search(rf"\.\. code-block:: {kind}\n\n((?:   .*\n|\n)+)", text[text.index(after) :])
    assert found, (page, kind, after)
    return re.sub(r"^   ", "", found.group(1), flags=re.M).strip("\n") + "\n"


def readers_root(folder: Path) -> Path:
    """``tests/roots/test-readers``: three 7B rows with their scripts, the data-format and sync pages' story."""
    for part in ("data", "examples"):
        shutil.copytree(TESTS / "roots" / "test-readers" / part, folder / part)
    (folder / "pyproject.toml").write_text('[tool.rlresources]\ndata = "data"\nroot = "."\n', encoding="utf-8")
    return folder


def measured_row(root: Path) -> None:
    """docs/data-format.rst's row with what was measured, as the last of data/7b.yaml."""
    row = _page_block("data-format.rst", "yaml", "What was measured\n")
    path = root / "data" / "7b.yaml"
    kept = path.read_text(encoding="utf-8").split("  - tag: RECOMMENDED")[0]
    path.write_text(kept + re.sub(r"^", "  ", row, flags=re.M).rstrip(" "), encoding="utf-8")


def readme_with_markers(root: Path) -> None:
    """docs/without-sphinx.rst's README before its sync with relative links."""
    text = _page_block("without-sphinx.rst", "markdown", "A README's own links and descriptions")
    (root / "README.md").write_text(text, encoding="utf-8")


def readme_table(folder: Path) -> Path:
    """docs/cli.rst's README table, with its script, and the schema in data/ (adopting's first step)."""
    script = folder / "examples" / "tuning" / "7b" / "qwen2.5-7b_grpo_8_h100_fsdp_vllm.sh"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/bash\n", encoding="utf-8")
    (folder / "README.md").write_text(_page_block("cli.rst", "markdown", "A Markdown page, a README"), encoding="utf-8")
    (folder / "data").mkdir()
    shutil.copy(REPO / "sphinx_rlresources" / "schema" / "rlresources.schema.json", folder / "data")
    return folder


@dataclass(frozen=True)
class Place:
    """Where an example runs: a fresh copy of a repository, then what the page's story did before."""

    make: Callable[[Path], Path]
    before: Callable[[Path], None] | None = None
    stored: str | None = None
    """For an example shown without output: the file under tests/data/console/ holding it."""


def adoption_places() -> dict[str, Place]:
    """docs/adopting.rst's end-to-end sections: each framework's repository, one step after another."""
    places = {}
    for index, framework in enumerate(("nemo-rl", "openrlhf", "slime", "skyrl", "trl")):
        make = adoption_repo(framework)
        for script, size in ADOPTIONS[framework].new:
            places[f"adopting.rst: rlresources new {script} --size {size} --tag MIN --contributor Simon"] = Place(make)
        lint, planted_lint, sync = (f" #{n}" if n > 1 else "" for n in (2 * index + 1, 2 * index + 2, index + 1))
        places[f"adopting.rst: rlresources lint{lint}"] = Place(make, adopted(framework))
        places[f"adopting.rst: rlresources sync README.md{sync}"] = Place(make, with_readme(framework))
        places[f"adopting.rst: rlresources lint{planted_lint}"] = Place(make, planted(framework, 0))
    return places


SEED = Place(seed_copy)
CLI = Place(cli_fixture)
EIGHT = Place(cli_fixture, filled_with_eight_gpus)
ESTIMATE = "rlresources estimate --model Qwen2.5-7B"
LORA_8B = "tests/frameworks/verl/examples/tuning/lora/run_qwen3_8b_fsdp.sh"

COVERED: dict[str, Place] = {
    # docs/adopting.rst: a reader's own page, in its place
    "adopting.rst: rlresources schema --out data/rlresources.schema.json": Place(readers_page, stored="adopt-schema"),
    "adopting.rst: rlresources import docs/perf/device_tuning.rst --out data --root .": Place(
        readers_page, schema_written, stored="adopt-import"
    ),
    **adoption_places(),
    # docs/cli.rst: this repository, and the fixture repository of its story
    "cli.rst: rlresources lint --data nowhere": SEED,
    "cli.rst: rlresources lint": SEED,
    "cli.rst: rlresources lint #2": CLI,
    "cli.rst: rlresources lint #3": EIGHT,
    "cli.rst: rlresources lint --format json": EIGHT,
    "cli.rst: rlresources lint --format github": EIGHT,
    "cli.rst: rlresources new examples/tuning/7b/qwen2.5-7b_grpo_8_h100_megatron_sglang.sh": CLI,
    "cli.rst: rlresources lint #4": Place(cli_fixture, scaffolded),
    "cli.rst: rlresources new examples/tuning/7b/Qwen2_7b_grpo_8_h100_megatron_sglang.sh": Place(
        cli_fixture, misnamed_script
    ),
    "cli.rst: rlresources render 7b": CLI,
    "cli.rst: rlresources render 7B --format markdown --script-url "
    "'https://github.com/org/repo/blob/{ref}/{path}'": CLI,
    "cli.rst: rlresources render all --format markdown --columns size,tag,model,resource": Place(cli_fixture, filled),
    "cli.rst: rlresources sync README.md": Place(seed_copy, readme_block_emptied),
    "cli.rst: rlresources sync --check README.md": SEED,
    "cli.rst: rlresources sync --check NOWHERE.md": SEED,
    f"cli.rst: rlresources inspect {LORA_8B} --env NGPUS_PER_NODE=8": SEED,
    f"cli.rst: rlresources inspect {LORA_8B} --format json": SEED,
    "cli.rst: rlresources inspect tests/frameworks/verl/recipe/one_step_off_policy/shell/"
    "grpo_qwen3_1.7b_fsdp2_2_6.sh": SEED,
    "cli.rst: rlresources inspect pyproject.toml": SEED,
    # docs/script-checks.rst: this repository's fixtures
    "script-checks.rst: rlresources inspect tests/frameworks/launcher/examples/scripts/train_dpo_slurm.sh": SEED,
    "script-checks.rst: rlresources inspect tests/frameworks/primerl/examples/multi-node/rl.toml": SEED,
    "script-checks.rst: rlresources inspect --root tests/frameworks/trl"
    " tests/frameworks/trl/examples/scripts/grpo_docstring.py": SEED,
    "script-checks.rst: rlresources inspect tests/frameworks/launcher/scripts/train/finetune_mason.sh": SEED,
    # docs/frameworks.rst: a fixture of this repository
    "frameworks.rst: rlresources inspect tests/frameworks/verl/examples/tuning/scaling/run_qwen2_5_72b_fsdp.sh"
    " | grep batch_size": SEED,
    "cli.rst: rlresources schema --out data/rlresources.schema.json": SEED,
    "cli.rst: rlresources schema | head -4": SEED,
    "cli.rst: rlresources estimate --model Qwen2.5-72B --task GRPO --device H100 --framework verl --offload "
    "--min-gpus --format json | grep min_gpus": SEED,
    "cli.rst: rlresources estimate --model Llama-3-8B --device A100 > /dev/null": SEED,
    "cli.rst: rlresources import seed-page.rst --out data": Place(import_folder),
    "cli.rst: rlresources import tests/data/import/well-formed.rst --out imported": SEED,
    # docs/contributing.rst: the fixture repository, one step after another
    "contributing.rst: rlresources new examples/tuning/7b/qwen2.5-7b_grpo_8_h100_megatron_sglang.sh": CLI,
    "contributing.rst: rlresources new examples/tuning/7b/Qwen2_7b_grpo_8_h100_megatron_sglang.sh": Place(
        cli_fixture, misnamed_script
    ),
    "contributing.rst: rlresources lint": Place(cli_fixture, scaffolded),
    "contributing.rst: rlresources lint #2": Place(cli_fixture, filled),
    "contributing.rst: rlresources render 7b --format markdown --columns tag,model,task,resource,maxbatch": Place(
        cli_fixture, filled
    ),
    "contributing.rst: rlresources schema --out data/rlresources.schema.json": SEED,
    # docs/estimator.rst: this repository; the examples listed without output are stored
    f"estimator.rst: {ESTIMATE} --task GRPO-LoRA --gpus 1 --device H100 --framework verl": Place(
        seed_copy, stored="estimate-lora"
    ),
    "estimator.rst: rlresources estimate --model Qwen2-7B --task GRPO --device H800 --framework verl --offload "
    "--min-gpus": Place(seed_copy, stored="estimate-min-gpus"),
    "estimator.rst: rlresources estimate --model path/to/config.json --task PPO --gpus 16 --device A100-80G "
    "--format json": Place(seed_copy, a_config_json, stored="estimate-config-json"),
    "estimator.rst: rlresources estimate --row data/70b.yaml:17": Place(seed_copy, stored="estimate-row-70b"),
    "estimator.rst: rlresources estimate --row data/7b.yaml:5 --data data --root . --mean-response-length 230": Place(
        seed_copy, stored="estimate-row-7b"
    ),
    f"estimator.rst: {ESTIMATE} --task GRPO-LoRA --gpus 1 --device H100 --framework verl --offload --micro-batch 64 "
    "--gpu-memory-utilization 0.2 --mean-prompt-length 110 --mean-response-length 230": SEED,
    f"estimator.rst: {ESTIMATE} --task GRPO-LoRA --gpus 1 --device H100 --framework verl --offload --micro-batch 64 "
    "--gpu-memory-utilization 0.2 --mean-prompt-length 110 --mean-response-length 230 --suggest": SEED,
    "estimator.rst: rlresources estimate --row data/8b.yaml:5 --suggest": Place(
        adoption_repo("openrlhf"), adopted("openrlhf")
    ),
    "estimator-reference.rst: rlresources estimate --model Qwen2.5-72B --task GRPO --device H100 --gpus 8 "
    "--framework verl --no-offload --suggest": SEED,
    "cli.rst: rlresources estimate --row data/7b.yaml:5 --suggest": SEED,
    "estimator-reference.rst: rlresources estimate --model Qwen2.5-0.5B --gpus 1 --device MyCard --device-memory 12 "
    "--gpus-per-node 4": Place(seed_copy, stored="estimate-device"),
    "estimator-reference.rst: rlresources estimate --model DeepSeek-V3 --gpus 32 --device H100 "
    "--offload --offload-mode compute "
    "--host-memory 2048": Place(seed_copy, stored="estimate-offload"),
    f"estimator-reference.rst: {ESTIMATE} --task PPO --gpus 8 --device H100 --no-offload --kl "
    "--no-ref-offload --critic": Place(seed_copy, stored="estimate-ppo"),
    f"estimator-reference.rst: {ESTIMATE} --task GRPO --gpus 8 --device H100 --no-kl --no-critic --ref-offload": Place(
        seed_copy, stored="estimate-grpo"
    ),
    "estimator-reference.rst: rlresources estimate --model Qwen3-8B --gpus 4 --device H20 --no-offload "
    "--prompt-length 2048 "
    "--response-length 8192 --mean-prompt-length 155 --mean-response-length 1674 --token-budget 32768 --train-batch 16 "
    "--rollout-n 8 --gpu-memory-utilization 0.6 --rollout-tp 2": Place(seed_copy, stored="estimate-lengths"),
    f"estimator-reference.rst: {ESTIMATE} --gpus 8 --device H100 --ulysses-sp 2 --micro-batch 4 "
    "--log-prob-micro-batch 8 "
    "--keep-padding": Place(seed_copy, stored="estimate-batches"),
    "estimator-reference.rst: rlresources estimate --model Qwen2.5-32B --gpus 8 --device H20 "
    "--train megatron --train-tp 4 "
    "--train-pp 2 --train-cp 1 --offload": Place(seed_copy, stored="estimate-megatron"),
    "estimator-reference.rst: rlresources estimate --model Qwen3-30B-A3B --gpus 8 --device H100 "
    "--train megatron --train-tp 2 "
    "--train-ep 4": Place(seed_copy, stored="estimate-moe"),
    f"estimator-reference.rst: {ESTIMATE} --gpus 3 --device H20 --framework trl --dtype float32 --kl": Place(
        seed_copy, stored="estimate-ddp"
    ),
    f"estimator-reference.rst: {ESTIMATE} --gpus 3 --device H20 --framework trl --train fsdp "
    "--zero-stage 2 --kl": Place(seed_copy, stored="estimate-zero2"),
    f"estimator-reference.rst: {ESTIMATE} --task GRPO-LoRA --lora-rank 64 "
    "--lora-targets q_proj,k_proj,v_proj,o_proj --gpus 1 "
    "--device H100": Place(seed_copy, stored="estimate-lora-targets"),
    f"estimator-reference.rst: {ESTIMATE} --gpus 8 --device H100 --engine sglang "
    "--gpu-memory-utilization 0.5 --max-num-seqs 256 "
    "--fp8-rollout --no-free-cache-engine": Place(seed_copy, stored="estimate-engine"),
    "estimator-reference.rst: rlresources estimate --model Qwen3-1.7B --task GRPO --gpus 1 --device A100-80G "
    "--framework trl": SEED,
    "estimator-reference.rst: rlresources estimate --model Qwen2.5-1.5B --gpus 4 --device H100 --framework trl "
    "--engine vllm --gpu-memory-utilization 0.4 --micro-batch 4 --response-length 4096": SEED,
    "estimator-reference.rst: rlresources estimate --model Qwen2.5-1.5B --gpus 4 --device H100 --framework trl "
    "--engine vllm --gpu-memory-utilization 0.4 --micro-batch 4 --response-length 4096 --free-cache-engine": SEED,
    f"estimator-reference.rst: {ESTIMATE} --task GRPO --gpus 8 --device H100 --framework nemo-rl": SEED,
    "estimator-reference.rst: rlresources estimate --model Qwen3-4B --gpus 8 --device H100 --framework prime-rl "
    "--engine none --prompt-length 1024 --response-length 64512 --no-activation-offload": SEED,
    "estimator-reference.rst: rlresources estimate --model Qwen3-4B --gpus 8 --device H100 --engine none "
    "--prompt-length 1024 --response-length 64512 --fused-kernels --activation-offload": SEED,
    "estimator-reference.rst: rlresources estimate --model Qwen2.5-0.5B --gpus 1 --device H100 --engine none": SEED,
    f"estimator-reference.rst: {ESTIMATE} --gpus 8 --device H100 --kl --rollout-gpus 2 --ref-gpus 2": SEED,
    f"estimator-reference.rst: {ESTIMATE} --gpus 16 --device H100 --task PPO --rollout-gpus 4 --critic-gpus 4 "
    "--reward-gpus 2": SEED,
    f"estimator-reference.rst: {ESTIMATE} --gpus 8 --device H100 --rollout-gpus 2 --rollout-tp 2": Place(
        seed_copy, stored="estimate-rollout-gpus"
    ),
    f"estimator-reference.rst: {ESTIMATE} --gpus 8 --device H100 --entropy-checkpointing "
    "--entropy-chunking --fused-kernels "
    "--no-gradient-checkpointing": Place(seed_copy, stored="estimate-entropy"),
    # docs/freshness.rst: the freshness test repository in its history
    "freshness.rst: rlresources lint --stale": Place(freshness_history),
    # docs/security.rst
    "security.rst: rlresources lint --max-file-size 4194304": Place(seed_copy, stored="lint-max-file-size"),
    # docs/without-sphinx.rst: the page's own README, over this repository's data
    "without-sphinx.rst: rlresources sync README.md": Place(seed_copy, the_pages_readme),
    "without-sphinx.rst: rlresources sync --check README.md": Place(seed_copy, the_pages_readme_synced_then_four_gpus),
    "without-sphinx.rst: rlresources sync --check --format github README.md": Place(
        seed_copy, the_pages_readme_synced_then_four_gpus
    ),
    # docs/getting-started.rst, docs/data-format.rst: the installed command, and the readers' fixture
    "getting-started.rst: rlresources --version": SEED,
    "data-format.rst: rlresources render 7b --format markdown --columns model,seq_len,global_batch,parallelism,"
    "throughput,step_time,peak_memory,logs,description": Place(readers_root, measured_row),
    "cli.rst: rlresources import README.md --out data --root .": Place(readme_table),
    "without-sphinx.rst: rlresources sync --relative-links README.md": Place(readers_root, readme_with_markers),
    # README.md: this repository, and a hand-written page a reader brings (a fixture here)
    "README.md: rlresources estimate --model Qwen2.5-72B --task GRPO --device H100 --framework verl --offload "
    "--min-gpus": SEED,
    "README.md: rlresources new examples/tuning/7b/qwen2.5-7b_grpo_8_h100_megatron_sglang.sh": Place(
        cli_fixture, stored="readme-new"
    ),
    "README.md: rlresources lint": SEED,
    "README.md: rlresources render 70b --format markdown": Place(seed_copy, stored="readme-render"),
    "README.md: rlresources sync --check README.md": Place(seed_copy, stored="readme-sync"),
    "README.md: rlresources import old-page.rst --out data": Place(readers_page, stored="readme-import"),
    "README.md: rlresources estimate --row data/70b.yaml:29": Place(seed_copy, stored="readme-estimate-row"),
    "README.md: rlresources inspect examples/tuning/7b/*.sh": Place(seed_copy, stored="readme-inspect"),
}
"""``"file: command"`` (``#2`` for a command the file shows again) -> where it runs.  Every example must be here."""


# -- running one -------------------------------------------------------------------------------


def _pipe(text: str, stage: list[str]) -> str:
    lines = text.splitlines()
    if stage[:1] == ["head"] and len(stage) == 2 and stage[1].startswith("-"):
        return "\n".join(lines[: int(stage[1][1:])]) + "\n"
    if stage[:1] == ["grep"] and len(stage) == 2:
        return "".join(line + "\n" for line in lines if stage[1] in line)
    msg = f"the harness cannot run '{' '.join(stage)}' after a pipe: add it to _pipe"
    raise AssertionError(msg)


def _parse(command: str) -> tuple[list[list[str]], str | None]:
    """A command line as its pipeline's stages and the file ``>`` sends standard output to."""
    words = shlex.split(command, comments=True)
    stages: list[list[str]] = [[]]
    for index, word in enumerate(words):
        if word == ">":
            return stages, words[index + 1]
        if word == "|":
            stages.append([])
        elif "*" in word and glob.glob(word):  # the shell's expansion, sorted as bash sorts plain names
            stages[-1].extend(sorted(glob.glob(word)))
        else:
            stages[-1].append(word)
    return stages, None


class _Tee(io.StringIO):
    """One of the command's streams, also written to the terminal both share."""

    def __init__(self, terminal: io.StringIO) -> None:
        super().__init__()
        self.terminal = terminal

    def write(self, text: str) -> int:
        self.terminal.write(text)
        return super().write(text)


def run_example(command: str) -> tuple[int, str]:
    """Run one ``rlresources ...`` line in the current folder: (status, what the terminal shows)."""
    stages, target = _parse(command)
    terminal = io.StringIO()  # stdout and stderr in the order they were written, as a terminal shows them
    out, err = _Tee(terminal), _Tee(terminal)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main(stages[0][1:])
        except SystemExit as exit_:  # argparse's own errors and --help
            status = int(exit_.code or 0)
    if target is None and len(stages) == 1:
        return status, terminal.getvalue()
    shown = out.getvalue()
    for stage in stages[1:]:
        shown = _pipe(shown, stage)
    if target is not None:
        if target != "/dev/null":
            Path(target).write_text(shown, encoding="utf-8")
        shown = ""
    return status, shown + err.getvalue()


def matches(shown: tuple[str, ...], real: list[str]) -> bool:
    """Whether the page's lines are the real ones, ``...`` standing for any lines left out."""
    pattern = "".join(
        r"(?:[^\n]*\n)*?" if line.strip() == "..." else re.escape(line) + r"\n" for line in shown
    )  # fmt: skip
    return re.fullmatch(pattern, "".join(line + "\n" for line in real)) is not None


EXAMPLES = examples()


def test_every_console_example_is_covered() -> None:
    missing = [f"{e.source}:{e.line}: {key(e, EXAMPLES)}" for e in EXAMPLES if key(e, EXAMPLES) not in COVERED]
    assert missing == [], "add each to COVERED with the place it runs in"
    assert len(EXAMPLES) >= 60  # the finder still finds them


def test_no_entry_covers_an_example_that_is_gone() -> None:
    shown = {key(e, EXAMPLES) for e in EXAMPLES}
    assert sorted(set(COVERED) - shown) == []
    assert sorted(p.stem for p in STORED.glob("*.txt")) == sorted(p.stored for p in COVERED.values() if p.stored)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"{e.source}:{e.line}")
def test_the_example_prints_what_the_page_shows(
    example: Shown, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    place = COVERED.get(key(example, EXAMPLES))
    if place is None:
        pytest.fail("not covered: see test_every_console_example_is_covered")
    root = place.make(tmp_path / "repo")
    monkeypatch.chdir(root)
    monkeypatch.setenv("COLUMNS", "82")
    if place.before is not None:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            place.before(root)
    _status, real = run_example(example.command)
    assert "Traceback" not in real
    lines = [line.rstrip() for line in real.rstrip("\n").splitlines()]
    if place.stored is not None:
        assert example.output == (), "the page shows output: compare with it, not with a stored file"
        assert lines == (STORED / f"{place.stored}.txt").read_text(encoding="utf-8").rstrip("\n").splitlines()
    else:
        assert example.output, "the page shows no output: store it (Place.stored)"
        assert matches(example.output, lines), "\n".join(["the page shows:", *example.output, "", "it prints:", *lines])


def _markdown_blocks(page: str) -> list[str]:
    """The ``.. code-block:: markdown`` blocks of a page, dedented."""
    blocks = []
    for block in page.split(".. code-block:: markdown\n\n")[1:]:
        lines = []
        for line in block.splitlines():
            if line and not line.startswith("   "):
                break
            lines.append(line[3:])
        blocks.append("\n".join(lines).strip("\n") + "\n")
    return blocks


def test_the_readme_after_sync_is_the_one_the_page_shows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/without-sphinx.rst shows its README before and after ``rlresources sync``: both are real."""
    root = seed_copy(tmp_path / "repo")
    monkeypatch.chdir(root)
    the_pages_readme(root)
    with contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(["sync", "README.md"]) == 0
    before, after = _markdown_blocks((REPO / "docs" / "without-sphinx.rst").read_text(encoding="utf-8"))[:2]
    assert after in (root / "README.md").read_text(encoding="utf-8")  # the page shows it from the first block on
    assert after not in before
