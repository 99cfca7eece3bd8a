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


class DictFiles:
    """A :class:`Files` over a few texts, for the chains no fixture tree needs."""

    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = texts

    def read(self, path: str) -> str | None:
        return self.texts.get(path)


ONE_STEP = "verl/experimental/one_step_off_policy"


def test_another_entry_point_inherits_verls_defaults_through_its_hydra_config() -> None:
    run = read("verl", f"{ONE_STEP}/shell/grpo_0.6b_gsm8k_fsdp2_2_6.sh")
    assert run.entry_point == "verl.experimental.one_step_off_policy.main_ppo"
    assert (run.train_backend.value, run.train_backend.line) == ("fsdp", 16)
    assert (run.lora_rank.value, run.lora_rank.origin) == (0, Origin.FRAMEWORK_DEFAULT)
    # the config's own key holds over verl's default, cited where it is written
    found = run.free_cache_engine
    assert (found.value, found.origin, found.file, found.line) == (
        False,
        Origin.SET,
        f"{ONE_STEP}/config/one_step_off_ppo_trainer.yaml",
        18,
    )
    unread = read("verl", f"{ONE_STEP}/shell/grpo_0.6b_gsm8k_fsdp2_2_6.sh", files=False)
    assert unread.lora_rank.value is None and unread.free_cache_engine.value is None


def test_a_config_path_under_the_project_and_a_config_name_of_the_examples() -> None:
    run = read("verl", "examples/sglang_multiturn/run_qwen2.5-3b_gsm8k_multiturn.sh")
    assert (
        run.train_backend.value == "fsdp"
        and "verl's ppo_trainer (by examples/sglang_multiturn" in run.train_backend.written
    )
    assert (run.engine.value, run.engine.file) == (
        "sglang",
        "examples/sglang_multiturn/config/gsm8k_multiturn_grpo.yaml",
    )
    assert run.lora_rank.value == 0 and run.prompt_length.value == 1024 and run.response_length.value == 512


def test_a_verl_recipe_trainer_reads_its_config_beside_it() -> None:
    run = read("verl-recipe", "dapo/run_dapo_qwen2.5_7b.sh")
    assert run.framework == "verl-recipe" and run.entry_point == "recipe.dapo.main_dapo"
    assert (run.train_backend.value, run.lora_rank.value, run.gpus.value) == ("fsdp", 0, 16)
    assert run.dynamic_sampling.value is True  # the script's key holds over the config's


def test_a_recipe_whose_roles_have_pools_of_their_own_has_no_total() -> None:
    run = read("verl-recipe", "async_flow/run_async_grpo_qwen7b.sh")
    assert (run.gpus.value, run.nodes.value, run.gpus_per_node.value) == (None, None, None)
    assert run.gpus.line == 8 and "async_resources.actor_train" in run.gpus.written
    assert run.lora_rank.value == 0


def test_a_recipe_trainer_on_verls_own_config_outside_its_checkout() -> None:
    main = '@hydra.main(config_path="../../verl/trainer/config", config_name="ppo_trainer", version_base=None)\n'
    script = "python3 -m recipe.partial.main_ppo trainer.nnodes=1 trainer.n_gpus_per_node=2\n"
    run = read_file(script, "partial/run.sh", None, DictFiles({"partial/main_ppo.py": main}))
    assert run.train_backend.value == "fsdp" and "@hydra.main of partial/main_ppo.py" in run.train_backend.written
    beside = '@hydra.main(config_path="config", config_name="ppo_trainer", version_base=None)\n'
    copy = DictFiles({"partial/main_ppo.py": beside, "partial/config/ppo_trainer.yaml": "trainer:\n  nnodes: 1\n"})
    assert read_file(script, "partial/run.sh", None, copy).train_backend.value is None  # its own copy may differ


SCRIPT = "python3 -m recipe.x.main_x trainer.nnodes=1 trainer.n_gpus_per_node=8 algorithm.adv_estimator=grpo\n"
MAIN = '@hydra.main(config_path="config", config_name="x_trainer", version_base=None)\ndef main(c): pass\n'


@pytest.mark.parametrize(
    "config",
    [
        "defaults:\n  - actor@actor_rollout_ref.actor: megatron_actor\n  - _self_\n",  # a group chosen: not plain
        "defaults:\n  - base_trainer\n  - _self_\n",  # a parent the checkout does not hold
        "defaults:\n  - _self_\n  - ppo_trainer\n",  # verl's config over this one's keys
        "trainer:\n  nnodes: 1\n",  # nothing inherited
        "defaults: [ppo_trainer, _self_\n",  # not YAML
    ],
)
def test_a_chain_that_is_not_plain_leaves_the_defaults_unknown(config: str) -> None:
    files = DictFiles({"x/main_x.py": MAIN, "x/config/x_trainer.yaml": config})
    run = read_file(SCRIPT, "x/run.sh", None, files)
    assert run.framework == "verl-recipe" and run.gpus.value == 8
    assert run.train_backend.value is None and run.lora_rank.value is None


def test_a_chain_through_a_recipe_parent_and_a_megatron_config() -> None:
    files = DictFiles(
        {
            "x/main_x.py": MAIN,
            "x/config/x_trainer.yaml": "defaults:\n  - base_trainer\n  - _self_\n",
            "x/config/base_trainer.yaml": "defaults:\n  - ppo_megatron_trainer\n  - _self_\n"
            "actor_rollout_ref:\n  model:\n    lora_rank: 32\n",
        }
    )
    run = read_file(SCRIPT, "x/run.sh", None, files)
    assert run.train_backend.value == "megatron" and "ppo_megatron_trainer" in run.train_backend.written
    assert (run.lora_rank.value, run.lora_rank.file, run.lora_rank.line) == (32, "x/config/base_trainer.yaml", 6)


def test_a_variables_bare_name_is_read_as_the_variable_it_means() -> None:
    # volcengine/verl@b178a3c examples/tuning/70b/qwen2-70b_grpo_32_h20_fsdp_vllm.sh:5,16 (written for this test)
    script = (
        "model_path=Qwen/Qwen2-72B-Instruct\n"
        "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo \\\n"
        "    actor_rollout_ref.model.path=model_path trainer.n_gpus_per_node=8 trainer.nnodes=4\n"
    )
    run = read_file(script, "run.sh")
    assert (run.model.value, run.model.origin, run.model.line) == ("Qwen/Qwen2-72B-Instruct", Origin.SET, 3)
    assert "read as $model_path=Qwen/Qwen2-72B-Instruct" in run.model.written
    (problem,) = [p for p in run.problems if p.kind == "missing-dollar"]
    assert problem.key == "" and problem.message.endswith(
        "the checks read it as $model_path ('Qwen/Qwen2-72B-Instruct')"
    )
    unknown = read_file(script.replace("model_path=Qwen/Qwen2-72B-Instruct", "model_path=$1"), "run.sh")
    assert unknown.model.value == "model_path"  # a variable known only at run time: blamed, and not compared
    assert [p.key for p in unknown.problems if p.kind == "missing-dollar"] == ["actor_rollout_ref.model.path"]


def test_an_engine_named_by_the_scripts_first_argument_is_its_default_when_run_without_one() -> None:
    # Idiom from volcengine/verl@b178a3c examples/grpo_trainer/run_glm41v_9b.sh (ENGINE=${1:-vllm}, `$@` last).
    script = (
        "set -x\nENGINE=${1:-vllm}\n\npython3 -m verl.trainer.main_ppo \\\n"
        "    actor_rollout_ref.rollout.name=$ENGINE \\\n    trainer.n_gpus_per_node=8 \\\n    trainer.nnodes=1 $@\n"
    )
    run = read_file(script, "examples/grpo_trainer/run_x.sh")
    assert (run.engine.value, run.engine.origin, run.engine.line) == ("vllm", Origin.SCRIPT_DEFAULT, 5)


def test_megatrons_cpu_optimizer_keeps_adam_on_the_host() -> None:
    """``optim.override_optimizer_config.optimizer_cpu_offload`` (Megatron Core's OptimizerConfig, as
    verl's 96 GB DeepSeek and Qwen3 MoE examples set it with ``+``): Adam steps on the host."""
    text = (
        "python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.strategy=megatron \\\n"
        "  +actor_rollout_ref.actor.optim.override_optimizer_config.optimizer_cpu_offload=True \\\n"
        "  actor_rollout_ref.actor.megatron.param_offload=True\n"
    )
    run = read_file(text, "x.sh")
    assert (run.optimizer_offload.value, run.offload_mode.value) == (True, "compute")
    assert run.optimizer_offload.line == 2
    fsdp = read_file(text.replace("strategy=megatron", "strategy=fsdp"), "x.sh")
    assert fsdp.offload_mode.value != "compute"  # a Megatron key, not read for FSDP
    by_phase = read_file(text.replace("optimizer_cpu_offload=True", "optimizer_cpu_offload=False"), "x.sh")
    assert (by_phase.offload_mode.value, by_phase.offload_mode.written) == (
        "phase",
        "verl's Megatron offload: states come back for their phase",
    )
