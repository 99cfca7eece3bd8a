"""The ROLL adapter over tests/frameworks/roll: device ids parsed (never evaluated), roles, and what stays unknown.

Every value each fixture settles is asserted, and every other one must stay unknown.
"""

from __future__ import annotations

import pytest
from framework_fixtures import kinds, pass_logits, read, roles, settled

from sphinx_rlresources.scripts.frameworks.roll import device_ids
from sphinx_rlresources.scripts.run import Origin


@pytest.mark.parametrize(
    ("written", "ids"),
    [
        ("list(range(0,16))", list(range(16))),
        ("list(range(0, 8, 2))", [0, 2, 4, 6]),
        ("list(range(0,2))+list(range(14,16))", [0, 1, 14, 15]),
        ("list([0,1,2,3,8,9,10,11])", [0, 1, 2, 3, 8, 9, 10, 11]),
        ('"[6, 7]"', [6, 7]),
        ("[1]", [1]),
        ([4, 5], [4, 5]),
        ("[i for i in range(8)]", None),
        ("list(range(0,N))", None),
        ("__import__('os').system('true')", None),
        ("list(range(0,8,0))", None),
        ("list(range(0,999999))", None),  # more ids than any cluster: unknown, not a million-item list
        (8, None),
        ([1, -1], None),
    ],
)
def test_device_ids(written: object, ids: list[int] | None) -> None:
    assert device_ids(written) == ids


def test_overlapping_roles_share_the_trainer_and_the_judge_counts() -> None:
    run = read("roll", "examples/qwen3-8B-rlvr_megatron/rlvr_config.yaml")
    settled(
        run,
        gpus=16,
        nodes=2,  # ids 0-15 over num_gpus_per_node: 8
        gpus_per_node=8,
        colocated=True,
        train_backend="megatron",
        train_tp=2,
        train_pp=1,
        train_ep=1,
        lora_rank=0,
        model="Qwen/Qwen3-8B",  # ${pretrain}
        algorithm="reinforce",
        prompt_length=2048,
        response_length=6144,
        train_batch_size=64,
        micro_batch_per_gpu=2,
        rollout_n=8,
        gradient_checkpointing=True,
        engine="vllm",
        rollout_tp=1,
        memory_fraction=0.8,
    )
    assert run.framework == "roll"
    assert run.rollout_tp.origin is Origin.FRAMEWORK_DEFAULT  # vLLM's default TP, worker_config.py:285
    assert run.model.line == 22  # model_name_or_path: ${pretrain}
    # the stated node size holds on nodes of that size: ROLL takes the machine's (base_config.py:351-352)
    assert run.gpus_per_node.origin is Origin.SET and run.gpus_per_node.line == 10
    assert run.nodes.origin is Origin.DERIVED and "base_config.py:351-352" in run.nodes.written
    assert roles(run) == [
        ("trainer", 16, None, None, ""),
        ("rollout", 12, None, None, "trainer"),
        ("reference", 16, None, None, "trainer"),
        ("reward:llm_judge", 4, None, None, "trainer"),
    ]
    assert run.problems == ()


def test_a_disjoint_sglang_rollout_adds_its_ids() -> None:
    run = read("roll", "examples/qwen2.5-7B-rlvr_async/rlvr_config_async.yaml")
    settled(
        run,
        gpus=24,
        nodes=3,
        gpus_per_node=8,
        colocated=False,
        train_backend="fsdp",
        lora_rank=0,
        model="Qwen/Qwen2.5-7B",
        dynamic_batch=True,
        max_token_len_per_gpu=16384,
        gradient_checkpointing=True,
        engine="sglang",
        memory_fraction=0.85,  # mem_fraction_static; SGLang's TP default is the worker's GPUs: unknown
    )
    assert roles(run) == [
        ("trainer", 16, None, None, ""),
        ("rollout", 8, None, None, ""),
        ("reference", 16, None, None, "trainer"),
    ]


def test_lora_through_interpolation_and_every_mapping_spelling() -> None:
    run = read("roll", "examples/lora/rlvr_lora.yaml")
    # no num_gpus_per_node: ROLL takes the node's GPUs at start, so nodes are known only then
    assert run.nodes.origin is Origin.RUNTIME and run.gpus_per_node.origin is Origin.RUNTIME
    settled(
        run,
        gpus=8,
        colocated=False,
        train_backend="megatron",
        lora_rank=32,
        lora_targets="q_proj,v_proj",
        model="Qwen/Qwen2.5-7B",
        gradient_checkpointing=True,
        engine="vllm",
        rollout_tp=2,
    )
    assert run.lora_rank.line == 11  # lora_rank: ${lora_rank}, resolved
    assert [r[1] for r in roles(run)] == [4, 4, 4]


def test_unused_low_ids_still_count_and_an_env_config_is_merged() -> None:
    run = read("roll", "examples/agentic/agent_val.yaml")
    settled(
        run,
        gpus=3,  # ids 1-2: ROLL's max id + 1
        nodes=2,  # 3 device slots over num_gpus_per_node: 2; the last node partly used, so no GPUs per node
        colocated=False,
        train_backend="megatron",
        lora_rank=0,
        model="Qwen/Qwen3-4B",
        gradient_checkpointing=True,
        engine="vllm",
        rollout_tp=1,
    )
    assert "id 0 used by no role" in run.gpus.written  # why the pools add up to 2 of the 3
    assert run.gpus_per_node.value is None and "partly used" in run.gpus_per_node.written
    assert roles(run) == [  # critic: device_mapping ~ runs on CPUs and is no role
        ("trainer", 1, None, None, ""),
        ("rollout", 1, None, None, ""),
        ("reference", 1, None, None, "trainer"),
    ]
    assert run.problems == ()


def test_a_mapping_that_is_not_read_and_a_deleted_parent() -> None:
    run = read("roll", "examples/agentic/agent_stale.yaml")
    settled(run, train_backend="deepspeed", model="Qwen/Qwen2.5-0.5B-Instruct", engine="vllm")
    assert run.gpus.value is None and "[i for i in range(8)]" in run.gpus.written
    assert roles(run) == [("trainer", None, None, None, ""), ("rollout", 8, None, None, "")]
    assert kinds(run) == [(6, "other", "warning"), (10, "deprecated", "warning")]


def test_offline_distillation_student_and_teacher() -> None:
    run = read("roll", "examples/distill/distill.yaml")
    settled(
        run,
        gpus=8,
        train_backend="megatron",
        train_tp=2,
        lora_rank=0,
        model="Qwen/Qwen2.5-7B-Instruct",  # student_pretrain
        gradient_checkpointing=False,  # disable_gradient_checkpointing: true
    )
    assert roles(run) == [("trainer", 8, None, None, ""), ("teacher", 8, None, None, "trainer")]


def test_an_environment_config_is_no_roll_run() -> None:
    run = read("roll", "examples/config/traj_envs.yaml")
    assert run.framework is None
    settled(run)


def test_rolls_log_prob_pass_casts_the_logits_to_fp32_and_scores_the_entropy() -> None:
    """Both of ROLL's backends cast the whole logits to fp32 for the log-probs unless a fused kernel is said."""
    for train in ("fsdp", "megatron"):
        assert pass_logits("roll", "Qwen2.5-7B", train, "vllm") == ["logits for log-probs and entropy (cast to fp32)"]
    assert pass_logits("verl", "Qwen2.5-7B", "fsdp", "vllm") == ["logits for log-probs and entropy"]
