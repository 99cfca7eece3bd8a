"""slime's launchers, read: every value each fixture settles, its origin, and nothing it does not settle.

The fixtures (tests/frameworks/slime/) are written in slime's idioms: ``ray job submit --
python3 train.py``, the model's shape in a sourced ``scripts/models/*.sh``, arrays with
comment lines, GPUs probed by ``nvidia-smi``, colocated and disaggregated placement, a
teacher server beside the run.  Sourced files are read through a fake
:class:`~sphinx_rlresources.scripts.files.Files` that holds the fixture tree in memory
and records what was asked, so the tests see which file the reader followed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from framework_fixtures import pass_logits

from sphinx_rlresources.scripts.frameworks import read_file
from sphinx_rlresources.scripts.run import Origin, Run

ROOT = Path(__file__).parent / "frameworks" / "slime"

#: What every slime run gets from slime's and Megatron's defaults when the script is silent.
DEFAULTS: dict[str, Any] = {
    "train_backend": "megatron",
    "train_tp": 1,
    "train_pp": 1,
    "train_ep": 1,
    "train_cp": 1,
    "lora_rank": 0,
    "micro_batch_per_gpu": 1,
    "dynamic_batch": False,
    "gradient_checkpointing": False,
    "use_kl": False,
    "critic": False,
}


class FakeFiles:
    """The fixture tree in memory, by path from its root; remembers every path asked for."""

    def __init__(self) -> None:
        self.texts = {str(p.relative_to(ROOT)): p.read_text("utf-8") for p in ROOT.rglob("*.sh")}
        self.asked: list[str] = []

    def read(self, path: str) -> str | None:
        self.asked.append(path)
        return self.texts.get(path)


def read(path: str, files: FakeFiles | None = None, env: dict[str, str] | None = None) -> Run:
    files = files if files is not None else FakeFiles()
    return read_file((ROOT / path).read_text("utf-8"), path, env, files)


def settled(run: Run) -> dict[str, Any]:
    return {name: found.value for name, found in run.settings().items() if found.value is not None}


def roles(run: Run) -> list[tuple[str, int | None, str]]:
    return [(role.name, role.gpus.value, role.colocated_with) for role in run.roles]


def test_colocated_with_the_model_file_sourced_from_the_scripts_folder() -> None:
    files = FakeFiles()
    run = read("scripts/run-qwen2.5-1.5B.sh", files)
    assert "scripts/models/qwen2.5-1.5B.sh" in files.asked
    assert run.framework == "slime"
    assert (run.entry_point, run.launch_line) == ("train.py", 49)
    assert settled(run) == {
        **DEFAULTS,
        "gpus": 8,
        "nodes": 1,
        "gpus_per_node": 8,
        "colocated": True,
        "train_tp": 2,
        "model": "/root/Qwen2.5-1.5B-Instruct",
        "algorithm": "grpo",
        "use_kl": True,  # --use-kl-loss loads the reference even at coefficient 0
        "prompt_length": 1024,
        "response_length": 4096,
        "train_batch_size": 32,
        "dynamic_batch": True,
        "max_token_len_per_gpu": 8192,
        "rollout_n": 8,
        "param_offload": True,
        "optimizer_offload": True,
        "offload_mode": "phase",
        "gradient_checkpointing": True,
        "engine": "sglang",
        "rollout_tp": 2,
        "memory_fraction": 0.65,
        "free_cache_engine": True,
    }
    assert roles(run) == [("trainer", 8, ""), ("rollout", 8, "trainer")]
    assert run.model.line == 11  # inside CKPT_ARGS; the commented FP8 line is not read
    assert run.engine.origin is Origin.FRAMEWORK_DEFAULT
    assert run.problems == ()


def test_without_the_model_file_the_launch_is_still_read() -> None:
    path = "scripts/run-qwen2.5-1.5B.sh"
    run = read_file((ROOT / path).read_text("utf-8"), path, None, None)
    assert (run.gpus.value, run.model.value, run.train_tp.value) == (8, "/root/Qwen2.5-1.5B-Instruct", 2)


def test_gpus_probed_with_nvidia_smi_are_unknown_at_run_time() -> None:
    run = read("scripts/run-detected-gpus.sh")
    assert run.gpus.value is None
    assert run.gpus.origin is Origin.RUNTIME
    assert run.gpus_per_node.value is None
    assert run.roles[0].gpus_per_node.origin is Origin.RUNTIME
    assert settled(run) == {
        **DEFAULTS,
        "nodes": 1,
        "colocated": True,
        "model": "/root/Qwen2.5-1.5B-Instruct",
        "algorithm": "grpo",
        "train_batch_size": 16,
        "rollout_n": 4,
        "param_offload": True,
        "optimizer_offload": True,
        "offload_mode": "phase",
        "engine": "sglang",
        "rollout_tp": 1,
        "free_cache_engine": True,
    }


def test_an_environment_value_cannot_settle_a_count_reassigned_inside_if() -> None:
    run = read("scripts/run-detected-gpus.sh", env={"NUM_GPUS": "4"})
    # NUM_GPUS=8 inside `if [ ... -le 0 ]` may still replace it: which branch runs is unknown.
    assert run.gpus.value is None


def test_disaggregated_actor_and_rollout_add_up_and_mla_ranks_are_no_lora() -> None:
    files = FakeFiles()
    run = read("scripts/run-mla-disaggregated.sh", files)
    assert "scripts/models/mla-small.sh" in files.asked
    assert settled(run) == {
        **DEFAULTS,
        "gpus": 32,
        "colocated": False,
        "train_tp": 4,
        "train_pp": 2,
        "train_ep": 8,
        "train_cp": 2,
        "algorithm": "gspo",
        "train_batch_size": 64,
        "rollout_n": 8,
        "param_offload": False,
        "optimizer_offload": True,
        "offload_mode": "compute",
        "engine": "sglang",
        "rollout_tp": 8,
        "free_cache_engine": False,
    }
    assert run.model.value is None  # $BASE_DIR from outside
    assert run.lora_rank.origin is Origin.FRAMEWORK_DEFAULT  # --q-lora-rank 1536 is attention, not LoRA
    assert roles(run) == [("trainer", 16, ""), ("rollout", 16, "")]
    assert run.gpus.written == "actor 2 × 8 + rollout 16"


def test_colocate_with_an_explicit_rollout_count_takes_the_larger_not_the_sum() -> None:
    run = read("examples/search/run_colocated_rollout.sh")
    assert settled(run) == {
        **DEFAULTS,
        "gpus": 4,
        "nodes": 1,
        "gpus_per_node": 4,
        "colocated": True,
        "model": "/root/Qwen2.5-3B",
        "algorithm": "reinforce_plus_plus_baseline",
        "train_batch_size": 32,
        "rollout_n": 5,
        "param_offload": True,
        "optimizer_offload": True,
        "offload_mode": "phase",
        "engine": "sglang",
        "rollout_tp": 2,
        "free_cache_engine": True,
    }
    assert run.model.origin is Origin.SCRIPT_DEFAULT
    assert run.colocated.line == 6  # --colocate in MISC_ARGS


def test_a_teacher_server_pinned_to_a_gpu_adds_to_the_run() -> None:
    run = read("examples/distill/run_teacher.sh")
    assert run.entry_point == "train_async.py"
    assert settled(run) == {
        **DEFAULTS,
        "gpus": 7,
        "colocated": False,
        "model": "/root/Qwen3-1.7B",
        "algorithm": "grpo",
        "train_batch_size": 16,
        "rollout_n": 4,
        "param_offload": False,
        "optimizer_offload": False,
        "engine": "sglang",
        "rollout_tp": 1,
        "free_cache_engine": False,
    }
    assert roles(run) == [("trainer", 2, ""), ("rollout", 4, ""), ("server", 1, "")]


def test_train_only_sft_has_no_rollout() -> None:
    run = read("scripts/run-sft.sh")
    assert settled(run) == {
        **DEFAULTS,
        "gpus": 16,
        "nodes": 2,
        "gpus_per_node": 8,
        "colocated": False,
        "model": "/root/Qwen2.5-1.5B",
        "algorithm": "sft",
        "train_batch_size": 128,
        "param_offload": False,
        "optimizer_offload": False,
    }
    assert run.problems == ()  # no zero-advantage warning for SFT


def test_rollout_only_debug_counts_the_rollout() -> None:
    text = "python3 train.py --actor-num-gpus-per-node 8 --rollout-num-gpus 4 --debug-rollout-only --hf-checkpoint m\n"
    run = read_file(text, "x.sh")
    assert (run.gpus.value, [r.name for r in run.roles]) == (4, ["rollout"])


def test_external_engines_leave_the_total_unknown() -> None:
    text = "python3 train.py --actor-num-gpus-per-node 8 --rollout-external-engine-addrs h:1 h:2 --hf-checkpoint m\n"
    run = read_file(text, "x.sh")
    assert run.gpus.value is None
    assert run.roles[0].gpus.value == 8


def test_not_colocated_without_a_rollout_count_is_unknown() -> None:
    run = read_file("python3 train.py --actor-num-gpus-per-node 4 --rollout-batch-size 8\n", "x.sh")
    assert run.gpus.value is None


def test_removed_flags_are_reported_and_an_old_critic_leaves_the_total_unknown() -> None:
    text = (
        "python3 train.py --actor-num-gpus-per-node 4 --critic-num-nodes 1 --critic-num-gpus-per-node 4 "
        "--advantage-estimator ppo --colocate --train-backend fsdp --hf-checkpoint m\n"
    )
    run = read_file(text, "x.sh")
    assert run.gpus.value is None
    assert (run.critic.value, run.train_backend.value) == (True, "fsdp")
    assert {p.key for p in run.problems if p.kind == "deprecated"} == {
        "critic-num-nodes",
        "critic-num-gpus-per-node",
        "train-backend",
    }
    assert run.deprecated == ("--critic-num-nodes", "--critic-num-gpus-per-node")


def test_a_python_train_py_without_slimes_flags_is_not_slime() -> None:
    assert read_file("python3 train.py --epochs 3 --lr 1e-4\n", "x.sh").framework is None


def test_an_elided_command_takes_no_default() -> None:
    run = read_file("python3 train.py --actor-num-nodes 2 --hf-checkpoint /root/m ...\n", "x.sh")
    assert settled(run) == {"train_backend": "megatron", "lora_rank": 0, "model": "/root/m", "engine": "sglang"}


def test_a_split_run_on_the_one_node_ray_starts_with_its_gpus() -> None:
    run = read("scripts/run-split-one-node.sh")
    assert (run.gpus.value, run.nodes.value, run.gpus_per_node.value) == (8, 1, 8)
    assert "one node of 8" in run.nodes.written and "ray start --head --num-gpus 8" in run.nodes.written
    assert [(r.name, r.gpus.value, r.nodes.value, r.gpus_per_node.value) for r in run.roles] == [
        ("trainer", 4, 1, 4),
        ("rollout", 4, 1, 4),
    ]


def test_a_split_run_of_whole_nodes_counts_the_nodes_of_both() -> None:
    run = read("scripts/run-split-two-nodes.sh")
    assert (run.gpus.value, run.nodes.value, run.gpus_per_node.value) == (24, 3, 8)
    assert [(r.name, r.gpus.value, r.nodes.value, r.gpus_per_node.value) for r in run.roles] == [
        ("trainer", 16, 2, 8),
        ("rollout", 8, 1, 8),
    ]


def test_a_split_run_that_does_not_fill_its_nodes_leaves_them_to_ray() -> None:
    run = read("scripts/run-split-uneven.sh")
    assert (run.gpus.value, run.nodes.value, run.gpus_per_node.value) == (12, None, None)
    # without a head started in the script, the node size is not known either
    assert read("scripts/run-mla-disaggregated.sh").nodes.value is None


def test_slimes_log_prob_passes_score_fp32_logits_without_the_entropy() -> None:
    """slime scores the entropy beside the log-probs only with ``--use-rollout-entropy`` (off unless
    said), and over the fp32 logits Megatron's Float16Module hands it."""
    assert pass_logits("slime", "Qwen3-4B", "megatron", "sglang") == ["logits for log-probs (cast to fp32)"]
    assert pass_logits("verl", "Qwen3-4B", "megatron", "sglang") == ["logits for log-probs and entropy"]
