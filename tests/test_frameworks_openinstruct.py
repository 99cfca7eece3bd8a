"""The open-instruct adapter over tests/frameworks/openinstruct: learners plus engines, mason's request, old flags.

Every value each fixture settles is asserted, and every other one must stay unknown.
"""

from __future__ import annotations

from framework_fixtures import kinds, pass_logits, read, roles, settled

from sphinx_rlresources.scripts.frameworks import read_file
from sphinx_rlresources.scripts.run import Origin

#: open-instruct's defaults (grpo_utils.py, data_loader.py, model_utils.py at e6c3044) for a DeepSpeed run.
FAST = {
    "colocated": False,
    "train_backend": "deepspeed",
    "ulysses_sp": 1,
    "lora_rank": 0,
    "algorithm": "grpo",
    "use_kl": True,
    "critic": False,
    "prompt_length": 256,
    "response_length": 256,
    "train_batch_size": 16,
    "micro_batch_per_gpu": 1,
    "rollout_n": 4,
    "param_offload": False,
    "optimizer_offload": False,
    "gradient_checkpointing": False,
    "engine": "vllm",
    "rollout_tp": 1,
    "memory_fraction": 0.9,
}


def test_mason_request_and_the_trainer_after_the_escaped_and() -> None:
    run = read("openinstruct", "scripts/train/qwen/grpo_single_node.sh")
    settled(
        run,
        FAST,
        gpus=8,
        nodes=1,
        gpus_per_node=8,
        model="Qwen/Qwen2.5-1.5B",
        prompt_length=1024,
        response_length=2048,
        train_batch_size=32,
        rollout_n=8,
        gradient_checkpointing=True,  # a bare --gradient_checkpointing
    )
    assert (run.framework, run.entry_point) == ("open-instruct", "open_instruct/grpo_fast.py")
    assert run.train_backend.line == 16  # --deepspeed_stage 2
    assert roles(run) == [("trainer", 4, None, None, ""), ("rollout", 4, None, None, "")]
    assert run.problems == ()


def test_learners_listed_per_node_are_summed() -> None:
    run = read("openinstruct", "scripts/train/olmo/grpo_multi_node.sh")
    settled(
        run,
        FAST,
        gpus=32,
        nodes=4,
        gpus_per_node=8,
        model="allenai/OLMo-2-1124-7B-DPO",  # export model_path=..., then ${model_path}
        ulysses_sp=2,
        micro_batch_per_gpu=2,
        optimizer_offload=True,
        offload_mode="compute",
        memory_fraction=0.85,
    )
    assert run.gpus_per_node.origin is Origin.SCRIPT_DEFAULT  # NUM_GPUS=${NUM_GPUS:-8}
    assert run.gpus.origin is Origin.FRAMEWORK_DEFAULT  # vllm_tensor_parallel_size is open-instruct's default 1
    assert roles(run) == [("trainer", 16, None, None, ""), ("rollout", 16, None, None, "")]
    assert run.problems == ()


def test_a_request_larger_than_the_run_is_a_warning() -> None:
    run = read("openinstruct", "scripts/train/olmo/grpo_overallocated.sh")
    settled(run, FAST, gpus=16, nodes=4, gpus_per_node=8, model="allenai/open_instruct_dev", rollout_tp=4)
    assert kinds(run) == [(4, "other", "warning")]
    assert "32 GPUs, but the run uses 16" in run.problems[0].message


def test_single_gpu_mode_shares_the_learner_and_grpo_py_is_fsdp() -> None:
    run = read("openinstruct", "scripts/train/debug/single_gpu.sh")
    settled(
        run,
        FAST,
        gpus=1,
        colocated=True,
        train_backend="fsdp",  # OLMo-core; --deepspeed_stage is ignored by grpo.py
        use_kl=False,  # --load_ref_policy false
        param_offload=None,
        optimizer_offload=None,
        model="Qwen/Qwen3-0.6B",
        memory_fraction=0.3,
    )
    assert roles(run) == [("trainer", 1, None, None, ""), ("rollout", 1, None, None, "trainer")]


def test_no_mason_two_learners_and_the_default_engine() -> None:
    run = read("openinstruct", "scripts/train/debug/three_gpu.sh")
    settled(run, FAST, gpus=3, model="Qwen/Qwen3-0.6B")  # nodes: no request, unknown
    assert kinds(run) == [(10, "other", "warning")]  # --use_peft: never applied by grpo_fast
    assert run.lora_rank.origin is Origin.FRAMEWORK_DEFAULT


def test_removed_flags_are_reported_and_leave_the_learners_unknown() -> None:
    run = read("openinstruct", "scripts/train/legacy/old_flags.sh")
    # the old spelling of --num_learners_per_node still says what the stale script asks for: 6 + 10 engines
    settled(run, FAST, gpus=16, nodes=2, gpus_per_node=8, model="Qwen/Qwen2.5-7B")
    assert run.entry_point == "open_instruct/grpo_fast.py"  # after `\&\&python`, no space
    assert run.deprecated == ("--actor_num_gpus_per_node", "--max_token_length")
    assert kinds(run) == [(7, "deprecated", "warning"), (8, "deprecated", "warning")]
    assert roles(run) == [("trainer", 6, None, None, ""), ("rollout", 10, None, None, "")]


def test_values_from_outside_stay_unknown() -> None:
    run = read("openinstruct", "scripts/train/legacy/passthrough.sh")
    settled(run, FAST)  # the model and the learners come from the environment
    assert run.model.origin is Origin.RUNTIME
    assert kinds(run) == [(6, "unset", "error")]  # "$MODEL" is never set
    run = read("openinstruct", "scripts/train/legacy/passthrough.sh", env={"MODEL": "Qwen/Qwen3-4B", "LEARNERS": "2 2"})
    settled(run, FAST, gpus=8, model="Qwen/Qwen3-4B")
    assert run.model.origin is Origin.ENV and run.problems == ()


def test_the_old_spelling_of_the_learners_with_one_shared_gpu() -> None:
    run = read("openinstruct", "scripts/train/legacy/single_gpu_old.sh")
    settled(
        run,
        FAST,
        gpus=1,  # --actor_num_gpus_per_node 1, vLLM on the same GPU
        colocated=True,
        model="HuggingFaceTB/SmolLM2-135M",
        memory_fraction=0.3,
    )
    assert run.deprecated == ("--actor_num_gpus_per_node",)


def test_mason_is_read_by_one_rule_for_every_launch_it_submits() -> None:
    """Two tasks after two ``--`` are no one job: not for the generic launcher, not for open-instruct."""
    script = "python mason.py --num_nodes 2 --gpus 8 -- python open_instruct/grpo_fast.py -- python b.py\n"
    run = read_file(script, "x.sh")
    assert (run.framework, run.nodes.value, run.gpus_per_node.value) == ("open-instruct", None, None)
    plain = read_file("python mason.py --num_nodes 2 --gpus 8 -- python open_instruct/grpo_fast.py\n", "x.sh")
    generic = read_file("python mason.py --num_nodes 2 --gpus 8 -- python open_instruct/finetune.py\n", "x.sh")
    assert (plain.nodes, plain.gpus_per_node) == (generic.nodes, generic.gpus_per_node)


def test_open_instructs_log_prob_passes_score_without_the_entropy() -> None:
    """``compute_logprobs`` asks ``forward_for_logprobs`` for no entropy; verl's pass computes it."""
    assert pass_logits("open-instruct", "Qwen2.5-7B", "deepspeed", "vllm") == ["logits for log-probs"]
    assert pass_logits("verl", "Qwen2.5-7B", "deepspeed", "vllm") == ["logits for log-probs and entropy"]
