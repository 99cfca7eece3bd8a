"""verl's launchers, read: today's (arrays, documented defaults, model_engine) and the legacy ones.

The fixtures (tests/frameworks/verl/) are written in verl's idioms and cite the public
files that taught each one.  Beyond what ``inspect`` reports, this module checks what
the reader is for: a row that contradicts a modern verl script gets the same findings
as one that contradicts a legacy script, ``new`` scaffolds a row for a script named by
verl's ``run_<model>_<backend>.sh``, and under the seed rule such scripts are not
reported as scripts without a row.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from framework_fixtures import FIXTURES, kinds, read, settled

from sphinx_rlresources.cli.main import main as rlresources
from sphinx_rlresources.core.crosscheck import cross_check
from sphinx_rlresources.core.model import Contributor, Entry, SourceRef
from sphinx_rlresources.scripts.frameworks import read_file
from sphinx_rlresources.scripts.run import Origin

#: What verl's stock trainer gives a script that is silent (verl-project/verl@1dda039 verl/trainer/config).
STOCK: dict[str, Any] = {
    "colocated": True,
    "train_tp": 1,
    "train_pp": 1,
    "train_ep": 1,
    "train_cp": 1,
    "ulysses_sp": 1,
    "lora_rank": 0,
    "use_kl": False,
    "critic": False,
    "prompt_length": 512,
    "response_length": 512,
    "train_batch_size": 1024,
    "mini_batch_size": 256,
    "dynamic_batch": False,
    "max_token_len_per_gpu": 16384,
    "param_offload": False,
    "optimizer_offload": False,
    "ref_param_offload": False,
    "gradient_checkpointing": True,
    "entropy_checkpointing": False,
    "rollout_tp": 2,
    "memory_fraction": 0.5,
    "free_cache_engine": True,
    "max_num_seqs": 1024,
    "train_backend": "fsdp",
    "rollout_n": 1,
}


def test_current_lora_script_with_arrays_and_defaults() -> None:
    run = read("verl", "examples/tuning/lora/run_qwen3_8b_fsdp.sh")
    settled(
        run,
        STOCK,
        gpus=2,
        nodes=1,
        gpus_per_node=2,
        engine="vllm",
        model="Qwen/Qwen3-8B",
        lora_rank=64,
        algorithm="grpo",
        train_batch_size=64,
        prompt_length=512,
        response_length=1024,
        dynamic_batch=True,
        max_token_len_per_gpu=1536,
        rollout_tp=2,
        rollout_n=5,
    )
    assert run.framework == "verl" and run.entry_point == "verl.trainer.main_ppo"
    assert (run.gpus.origin, run.model.origin, run.engine.origin) == (
        Origin.SCRIPT_DEFAULT,
        Origin.SCRIPT_DEFAULT,
        Origin.SET,
    )
    assert run.model.line == 25  # inside the MODEL array, where a contributor edits it
    assert run.problems == ()


def test_the_environment_a_row_names_wins_over_the_documented_default() -> None:
    run = read("verl", "examples/tuning/lora/run_qwen3_8b_fsdp.sh", {"NGPUS_PER_NODE": "4", "NNODES": "2"})
    assert (run.gpus.value, run.gpus.origin) == (8, Origin.ENV)


def test_megatron_chosen_by_model_engine_in_an_array() -> None:
    run = read("verl", "examples/tuning/lora/run_qwen3_30b_a3b_megatron.sh")
    settled(
        run,
        STOCK,
        gpus=8,
        nodes=1,
        gpus_per_node=8,
        engine="vllm",
        train_backend="megatron",
        train_tp=4,
        train_ep=8,
        model="Qwen/Qwen3-30B-A3B-Instruct-2507",
        lora_rank=32,
        algorithm="grpo",
        prompt_length=1024,
        response_length=2048,
        max_token_len_per_gpu=3072,
        rollout_n=4,
    )
    assert run.train_backend.written == "model_engine=megatron"


def test_four_nodes_by_default_and_offload() -> None:
    run = read("verl", "examples/tuning/scaling/run_qwen2_5_72b_fsdp.sh")
    settled(
        run,
        STOCK,
        gpus=32,
        nodes=4,
        gpus_per_node=8,
        engine="vllm",
        model="Qwen/Qwen2.5-72B-Instruct",
        algorithm="grpo",
        train_batch_size=256,
        param_offload=True,
        optimizer_offload=True,
        offload_mode="phase",
        rollout_tp=16,
        rollout_n=5,
    )


def test_legacy_script_with_its_sanity_findings() -> None:
    run = read("verl", "examples/tuning/7b/qwen2-7b_grpo_2_h800_fsdp_vllm.sh")
    settled(
        run,
        STOCK,
        gpus=2,
        nodes=1,
        gpus_per_node=2,
        engine="vllm",
        model="Qwen/Qwen2.5-7B-Instruct",
        algorithm="grpo",
        train_batch_size=32,
        micro_batch_per_gpu=8,  # the deprecated global 16, over 2 GPUs, as verl divides it
        param_offload=True,
        offload_mode="phase",
        rollout_n=5,
    )
    assert run.deprecated == ("actor_rollout_ref.actor.ppo_micro_batch_size",)
    assert kinds(run) == [(14, "deprecated", "warning"), (16, "duplicate", "warning"), (6, "machine-path", "warning")]


def test_legacy_megatron_config_and_one_sample_per_prompt() -> None:
    run = read("verl", "examples/tuning/32b/qwen2_32b_grpo_8_h20_megatron_vllm.sh")
    assert (run.gpus.value, run.train_backend.value, run.train_tp.value) == (8, "megatron", 8)
    assert run.train_backend.written == "--config-name=ppo_megatron_trainer.yaml"
    assert kinds(run) == [(9, "zero-advantage", "error")]


def test_a_case_on_a_defaulted_toggle_picks_its_branch() -> None:
    run = read("verl", "examples/grpo_trainer/run_qwen3_8b_fsdp.sh")
    assert (run.gpus.value, run.gpus.origin, run.engine.value) == (8, Origin.SCRIPT_DEFAULT, "vllm")
    other = read("verl", "examples/grpo_trainer/run_qwen3_8b_fsdp.sh", {"MACHINE": "gb200", "INFER_BACKEND": "sglang"})
    assert (other.gpus.value, other.gpus.origin, other.engine.value, other.engine.origin) == (
        4,
        Origin.ENV,
        "sglang",
        Origin.ENV,
    )


def test_a_recipe_brings_its_own_config_so_silence_is_unknown() -> None:
    run = read("verl", "recipe/dapo/run_dapo_qwen2.5_32b.sh")
    assert run.framework == "verl-recipe" and run.entry_point == "recipe.dapo.main_dapo"
    assert (run.gpus.value, run.gpus.origin) == (128, Origin.SCRIPT_DEFAULT)
    assert run.train_backend.value is None and run.lora_rank.value is None and run.train_batch_size.value is None
    assert (run.model.value, run.model.tail) == (None, "/verl/models/Qwen2.5-32B")


def row(**values: Any) -> Entry:
    fields: dict[str, Any] = {
        "size": "7B",
        "tag": "MIN",
        "model": "Qwen3-8B",
        "task": "GRPO-LoRA",
        "gpus": 2,
        "device": "H100",
        "max_batch": None,
        "train": "fsdp",
        "infer": "vllm",
        "script": "examples/tuning/lora/run_qwen3_8b_fsdp.sh",
        "contributor": Contributor("T"),
        "source": SourceRef("data/7b.yaml", 3, 5),
    }
    fields.update(values)
    return Entry(**fields)


def test_a_row_contradicting_a_modern_script_gets_the_findings_a_legacy_one_would() -> None:
    run = read("verl", "examples/tuning/lora/run_qwen3_8b_fsdp.sh")
    assert cross_check(row(), run, row().script) == []
    wrong = row(gpus=8, train="megatron", infer="sglang")
    found = cross_check(wrong, run, wrong.script)
    assert [d.subtype.value for d in found] == ["script_gpus", "script_infer", "script_train"]
    assert found[0].message == (
        "row says gpus 8 but examples/tuning/lora/run_qwen3_8b_fsdp.sh:42 runs trainer.n_gpus_per_node=2 × "
        "trainer.nnodes=1 = 2 GPUs (the default the script documents; a row that ran with another value says "
        "so in env); fix the row or the script"
    )
    with_env = row(gpus=8, env={"NGPUS_PER_NODE": "8"})
    assert cross_check(with_env, read("verl", with_env.script, with_env.env), with_env.script) == []


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(FIXTURES / "verl" / "examples", tmp_path / "examples")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "8b.yaml").write_text("size: 8B\nentries: []\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_new_follows_verls_naming_rule(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "pyproject.toml").write_text('[tool.rlresources]\nnaming = "verl"\n', encoding="utf-8")
    assert rlresources(["new", "examples/tuning/lora/run_qwen3_8b_fsdp.sh", "--size", "8B", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "  - tag: TODO" in out
    assert "    model: Qwen3-8B  # from actor_rollout_ref.model.path=Qwen/Qwen3-8B, as the tables name models" in out
    assert "    task: GRPO-LoRA\n" in out
    assert "    gpus: 2\n" in out
    assert "    device: TODO  # the GPU it ran on" in out
    assert "    train: fsdp\n    infer: vllm\n" in out
    assert rlresources(["new", "examples/tuning/7b/qwen2-7b_grpo_2_h800_fsdp_vllm.sh", "--dry-run"]) == 1
    assert "names vllm, which verl's rule keeps out of names" in capsys.readouterr().out


def test_under_the_seed_rule_verls_run_scripts_are_not_rows_missing(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert rlresources(["lint", "--format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)
    orphans = sorted(f["file"] for f in found if f["code"] == "rlresources.orphan_script")
    assert orphans == [  # the seed-named ones only: run_*.sh are not claimed by the seed rule
        "examples/tuning/32b/qwen2_32b_grpo_8_h20_megatron_vllm.sh",
        "examples/tuning/7b/qwen2-7b_grpo_2_h800_fsdp_vllm.sh",
    ]
    (repo / "pyproject.toml").write_text('[tool.rlresources]\nnaming = "verl"\n', encoding="utf-8")
    assert rlresources(["lint", "--format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)
    orphans = sorted(f["file"] for f in found if f["code"] == "rlresources.orphan_script")
    assert orphans == [
        "examples/tuning/lora/run_qwen3_30b_a3b_megatron.sh",
        "examples/tuning/lora/run_qwen3_8b_fsdp.sh",
        "examples/tuning/scaling/run_qwen2_5_72b_fsdp.sh",
    ]


def test_inspect_json_has_the_promised_keys(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert rlresources(["inspect", "examples/tuning/lora/run_qwen3_8b_fsdp.sh", "--format", "json"]) == 0
    (found,) = json.loads(capsys.readouterr().out)
    assert {k: found[k] for k in ("path", "framework", "gpus", "nodes", "gpus_per_node", "engine")} == {
        "path": "examples/tuning/lora/run_qwen3_8b_fsdp.sh",
        "framework": "verl",
        "gpus": 2,
        "nodes": 1,
        "gpus_per_node": 2,
        "engine": "vllm",
    }
    assert (found["train_backend"], found["model"], found["lora_rank"]) == ("fsdp", "Qwen/Qwen3-8B", 64)
    assert found["detail"]["gpus"]["origin"] == "script-default"
    assert rlresources(["inspect", "examples/tuning/lora/run_qwen3_8b_fsdp.sh", "--env", "NGPUS_PER_NODE=4"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == "examples/tuning/lora/run_qwen3_8b_fsdp.sh: verl (verl.trainer.main_ppo, line 51)"
    assert "  gpus                           4                        env                line 42" in text


def test_a_key_verl_ignores_is_to_be_deleted() -> None:
    # data.val_batch_size as verl's legacy tuning scripts pass it (volcengine/verl@b178a3c
    # examples/tuning/3b/qwen2-3b_grpo-lora_1_h100_fsdp_vllm.sh:21); verl/utils/config.py
    # warns that it is ignored, and nothing replaced it.
    script = "python3 -m verl.trainer.main_ppo \\\n    data.val_batch_size=64 \\\n    trainer.n_gpus_per_node=1\n"
    run = read_file(script, "examples/tuning/3b/run.sh", None, None)
    assert [(p.line, p.message) for p in run.problems if p.kind == "deprecated"] == [
        (2, "data.val_batch_size is deprecated in verl; verl ignores it, so delete it")
    ]


def test_a_launch_line_that_is_only_printed_is_not_the_launch() -> None:
    # Launchers echo what they are about to run (verl-project/verl@1dda039
    # examples/ascend_extras/grpo_trainer/run_qwen3_next_80b_fsdp.sh:163-165 prints its
    # settings before the launch); a printed line is text, the launch is the command after it.
    script = (
        "echo running python3 -m verl.trainer.main_ppo trainer.n_gpus_per_node=2\n"
        "python3 -m verl.trainer.main_ppo trainer.n_gpus_per_node=8 trainer.nnodes=1\n"
    )
    run = read_file(script, "examples/tuning/7b/run.sh", None, None)
    assert (run.launch_line, run.gpus.value) == (2, 8)
