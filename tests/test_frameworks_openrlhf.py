"""OpenRLHF's launchers, read: every value each fixture settles, its origin, and nothing it does not settle.

The fixtures (tests/frameworks/openrlhf/) are written in OpenRLHF's idioms -- both flag
dialects, arrays with comment lines, ``ray job submit --``, ``srun … bash -c "…"``,
colocated and disaggregated placement -- each citing the public script it learned from.
Each test compares the whole set of known values with what a careful reader of the file
and of OpenRLHF's ``train_ppo_ray.py`` gets, so a value the adapter invents fails as
surely as one it misses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sphinx_rlresources.scripts.frameworks import read_file
from sphinx_rlresources.scripts.run import Origin, Run

ROOT = Path(__file__).parent / "frameworks" / "openrlhf"
SCRIPTS = "examples/scripts"

#: What every dotted-flag run gets from OpenRLHF's own defaults when the script is silent.
DOTTED_DEFAULTS: dict[str, Any] = {
    "train_backend": "deepspeed",
    "train_tp": 1,
    "train_pp": 1,
    "train_ep": 1,
    "train_cp": 1,
    "lora_rank": 0,
    "train_batch_size": 1024,
    "micro_batch_per_gpu": 1,
    "log_prob_micro_batch_per_gpu": 1,
    "dynamic_batch": False,
    "max_token_len_per_gpu": 16192,
    "rollout_n": 1,
    "optimizer_offload": False,
    "param_offload": False,  # get_ds_train_config(offload=False, ...): never the trained parameters
    "zero_stage": 2,
    "ref_param_offload": False,
    "gradient_checkpointing": False,
    "memory_fraction": 0.95,
    "free_cache_engine": False,
}


def read(name: str) -> Run:
    path = f"{SCRIPTS}/{name}"
    return read_file((ROOT / path).read_text("utf-8"), path)


def settled(run: Run) -> dict[str, Any]:
    return {name: found.value for name, found in run.settings().items() if found.value is not None}


def roles(run: Run) -> list[tuple[str, int | None, str]]:
    return [(role.name, role.gpus.value, role.colocated_with) for role in run.roles]


def test_colocate_all_puts_every_role_on_the_actors_gpus() -> None:
    run = read("train_ppo_hybrid.sh")
    assert run.framework == "openrlhf"
    assert run.entry_point == "openrlhf.cli.train_ppo_ray"
    assert run.launch_line == 6
    assert settled(run) == {
        **DOTTED_DEFAULTS,
        "gpus": 8,
        "nodes": 1,
        "gpus_per_node": 8,
        "colocated": True,
        "model": "meta-llama/Llama-3.1-8B-Instruct",
        "zero_stage": 3,
        "algorithm": "gae",
        "use_kl": True,
        "critic": True,
        "prompt_length": 2048,
        "response_length": 1024,
        "train_batch_size": 512,
        "micro_batch_per_gpu": 4,
        "log_prob_micro_batch_per_gpu": 8,
        "gradient_checkpointing": True,
        "engine": "vllm",
        "rollout_tp": 2,
        "memory_fraction": 0.6,
        "free_cache_engine": True,
    }
    assert roles(run) == [
        ("trainer", 8, ""),
        ("reference", 8, "trainer"),
        ("critic", 8, "trainer"),
        ("reward", 8, "trainer"),
        ("rollout", 8, "trainer"),
    ]
    assert run.gpus.origin is Origin.DERIVED
    assert run.train_backend.origin is Origin.FRAMEWORK_DEFAULT
    assert run.lora_rank.origin is Origin.FRAMEWORK_DEFAULT
    assert run.model.origin is Origin.SET
    assert (run.model.line, run.gpus_per_node.line) == (21, 8)
    assert run.problems == ()
    # The commented-out --ds.tensor_parallel_size 2 after the command is not read.
    assert run.train_tp.origin is Origin.FRAMEWORK_DEFAULT


def test_arrays_with_comment_lines_and_a_documented_default() -> None:
    run = read("train_grpo_arrays.sh")
    assert run.launch_line == 38
    assert settled(run) == {
        **DOTTED_DEFAULTS,
        "gpus": 4,
        "nodes": 1,
        "gpus_per_node": 4,
        "colocated": True,
        "train_cp": 2,
        "zero_stage": 3,
        "model": "Qwen/Qwen3-4B",
        "algorithm": "reinforce_baseline",
        "use_kl": True,
        "critic": False,
        "dynamic_batch": True,
        "max_token_len_per_gpu": 20000,
        "rollout_n": 8,
        "engine": "vllm",
        "rollout_tp": 2,
    }
    assert run.gpus.origin is Origin.SCRIPT_DEFAULT  # ${NUM_GPUS:-4}
    assert run.gpus_per_node.line == 19  # the line inside the array
    assert run.optimizer_offload.origin is Origin.FRAMEWORK_DEFAULT  # "# --ds.adam_offload" is a comment
    # The agent scores the samples: no reward model, and no critic for reinforce_baseline.
    assert roles(run) == [("trainer", 4, ""), ("reference", 4, "trainer"), ("rollout", 4, "trainer")]


def test_the_environment_overrides_the_documented_default() -> None:
    path = f"{SCRIPTS}/train_grpo_arrays.sh"
    run = read_file((ROOT / path).read_text("utf-8"), path, {"NUM_GPUS": "8"})
    assert (run.gpus.value, run.gpus.origin) == (8, Origin.ENV)
    assert run.rollout_tp.value == 2
    assert roles(run)[-1] == ("rollout", 8, "trainer")


def test_disaggregated_roles_add_up() -> None:
    run = read("train_ppo_disaggregated.sh")
    assert settled(run) == {
        **DOTTED_DEFAULTS,
        "gpus": 10,
        "colocated": False,
        "lora_rank": 16,
        "lora_targets": "q_proj,v_proj",
        "model": "mistralai/Mistral-7B-Instruct-v0.3",
        "algorithm": "gae",
        "use_kl": True,
        "critic": True,
        "train_batch_size": 256,
        "optimizer_offload": True,
        "offload_mode": "compute",
        "engine": "vllm",
        "rollout_tp": 2,
    }
    # actor 4 (reference on it) + critic 2 (reward model on it) + vLLM 2 × 2
    assert roles(run) == [
        ("trainer", 4, ""),
        ("reference", 4, "trainer"),
        ("critic", 2, ""),
        ("reward", 2, "critic"),
        ("rollout", 4, ""),
    ]
    assert run.gpus.written == "actor 4 + critic 2 + vLLM 4"
    assert run.lora_rank.origin is Origin.SET


def test_the_launch_inside_srun_bash_c_async_keeps_vllm_apart() -> None:
    run = read("train_ppo_slurm.sh")
    assert run.launch_line == 19
    assert settled(run) == {
        **DOTTED_DEFAULTS,
        "gpus": 8,
        "colocated": False,
        "model": "Qwen/Qwen2.5-7B-Instruct",
        "algorithm": "group_norm",
        "use_kl": True,
        "critic": False,
        "rollout_n": 4,
        "engine": "vllm",
        "rollout_tp": 2,
    }
    # async + colocate_all: the DeepSpeed models share the actor's GPUs, vLLM keeps its own.
    assert roles(run) == [("trainer", 4, ""), ("reference", 4, "trainer"), ("rollout", 4, "")]
    assert run.gpus_per_node.value is None  # nodes of the whole run are not said
    assert run.model.line == 33  # the line inside the quoted submission


def test_flat_flags_are_read_with_the_defaults_every_release_shares_and_reported() -> None:
    run = read("train_ppo_flat.sh")
    assert settled(run) == {
        "gpus": 14,
        "colocated": False,
        "train_backend": "deepspeed",
        "train_pp": 1,
        "train_ep": 1,
        "lora_rank": 0,
        "model": "OpenRLHF/Llama-3-8b-sft-mixture",
        "algorithm": "gae",
        "use_kl": True,
        "critic": True,
        "prompt_length": 1024,
        "response_length": 2048,
        "train_batch_size": 1024,
        "micro_batch_per_gpu": 4,
        "dynamic_batch": False,
        "rollout_n": 1,
        "optimizer_offload": False,
        "param_offload": False,
        "zero_stage": 3,
        "ref_param_offload": False,
        "gradient_checkpointing": True,
        "engine": "vllm",
        "rollout_tp": 1,
        "free_cache_engine": False,
    }
    # The reference's sizes are unsaid: OpenRLHF gives it a node of 8 GPUs of its own.
    assert roles(run) == [("trainer", 2, ""), ("reference", 8, ""), ("critic", 2, ""), ("rollout", 2, "")]
    assert run.roles[1].gpus.origin is Origin.FRAMEWORK_DEFAULT
    assert run.gpus.origin is Origin.FRAMEWORK_DEFAULT
    # Defaults that changed between flat releases are left unknown.
    for name in ("memory_fraction", "max_token_len_per_gpu", "log_prob_micro_batch_per_gpu", "train_tp"):
        assert getattr(run, name).value is None
    [problem] = run.problems
    assert (problem.kind, problem.severity, problem.line) == ("deprecated", "warning", 6)
    assert "--actor_num_nodes" in run.deprecated and "--pretrain" in run.deprecated


def test_gpus_counted_at_run_time_stay_unknown() -> None:
    run = read("train_unknown_gpus.sh")
    assert run.gpus.value is None
    assert run.gpus.origin is Origin.RUNTIME
    assert run.gpus_per_node.value is None
    assert (run.nodes.value, run.nodes.origin) == (1, Origin.SCRIPT_DEFAULT)
    assert run.model.value is None  # "$1"
    assert run.roles[0].gpus.value is None
    assert settled(run) == {
        **DOTTED_DEFAULTS,
        "nodes": 1,
        "colocated": True,
        "algorithm": "rloo",
        "use_kl": False,
        "critic": False,
        "rollout_n": 4,
        "engine": "vllm",
        "rollout_tp": 1,
    }


def test_mixed_dialects_broken_colocation_and_one_sample_are_problems() -> None:
    run = read("train_mixed_dialect.sh")
    assert run.model.value == "Qwen/Qwen2.5-1.5B"  # --pretrain is still read
    assert (run.gpus.value, run.rollout_tp.value, run.rollout_n.value) == (8, 2, 1)
    found = {(p.kind, p.severity, p.line) for p in run.problems}
    assert found == {("deprecated", "error", 7), ("zero-advantage", "error", 16), ("other", "error", 11)}
    assert run.deprecated == ("--ref_num_gpus_per_node", "--pretrain")


def test_flags_after_a_line_without_its_backslash_are_not_the_trainers() -> None:
    run = read("train_missing_backslash.sh")
    assert (run.gpus.value, run.nodes.value, run.gpus_per_node.value) == (16, 2, 8)
    assert run.optimizer_offload.origin is Origin.FRAMEWORK_DEFAULT  # --ds.adam_offload never reached it
    assert run.train_batch_size.value == 1024
    [problem] = run.problems
    assert (problem.line, problem.severity) == (21, "error")
    assert "backslash" in problem.message


def test_a_deepspeed_sft_script_is_not_an_openrlhf_rl_launch() -> None:
    run = read("train_sft.sh")
    assert run.framework is None
    # the launcher layer reads it: OpenRLHF's SFT trainer names its model and always trains with DeepSpeed
    assert settled(run) == {"model": "meta-llama/Llama-3.1-8B", "train_backend": "deepspeed"}
    assert run.entry_point == "openrlhf.cli.train_sft"


@pytest.mark.parametrize(
    ("flags", "gpus"),
    [
        ("--train.colocate_all --vllm.num_engines $ENGINES", 8),  # the engines share the actor's 8 GPUs
        ("--vllm.num_engines $ENGINES", None),  # engines of their own, how many unknown
        ("--train.colocate_all --train.async_enable --vllm.num_engines $ENGINES", None),
    ],
)
def test_engines_written_but_unknown(flags: str, gpus: int | None) -> None:
    text = f"python3 -m openrlhf.cli.train_ppo_ray {flags} --actor.num_gpus_per_node 8 --reward.remote_url u\n"
    run = read_file(text + "", "x.sh")
    assert run.engine.value is None
    assert run.gpus.value == gpus
    assert run.roles[-1].name == "rollout"
    assert run.roles[-1].gpus.value is None


def test_without_vllm_engines_no_engine_is_invented() -> None:
    text = "python3 -m openrlhf.cli.train_ppo_ray --actor.num_gpus_per_node 2 --critic.num_gpus_per_node 2\n"
    run = read_file(text, "x.sh")
    assert run.engine.value is None
    assert run.rollout_tp.value is None
    # actor 2 + reference 8 + critic 2 + reward model 8: OpenRLHF's defaults for the unsaid roles.
    assert run.gpus.value == 20


def test_an_elided_command_takes_no_default() -> None:
    # As OpenRLHF's README writes it: "... # other training args".
    text = (
        "python3 -m openrlhf.cli.train_ppo_ray \\\n"
        "  --actor.model_name_or_path meta-llama/Meta-Llama-3-8B \\\n"
        "  --reward.remote_url /path/to/reward_func.py \\\n"
        "  ... # other training args\n"
    )
    run = read_file(text, "README.sh")
    assert settled(run) == {
        "train_backend": "deepspeed",
        "train_pp": 1,
        "train_ep": 1,
        "model": "meta-llama/Meta-Llama-3-8B",
    }
    assert run.gpus.value is None


def test_the_experience_makers_passes_take_the_rollout_token_budget() -> None:
    """``--rollout.max_tokens_per_gpu`` batches the log-prob passes (train_ppo_ray.py:360, and :651-653
    sets it to the train budget when unsaid), apart from ``--train.max_tokens_per_gpu``."""
    text = (
        "python3 -m openrlhf.cli.train_ppo_ray --actor.num_gpus_per_node 4 --train.dynamic_batch_enable \\\n"
        "  --train.max_tokens_per_gpu 16192 --rollout.max_tokens_per_gpu 32768 --ds.ring_attn_size 2\n"
    )
    run = read_file(text, "x.sh")
    assert (run.max_token_len_per_gpu.value, run.log_prob_max_token_len_per_gpu.value) == (16192, 32768)
    assert run.train_cp.value == 2
    unsaid = read_file(text.replace(" --rollout.max_tokens_per_gpu 32768", ""), "x.sh")
    assert unsaid.log_prob_max_token_len_per_gpu.value is None
