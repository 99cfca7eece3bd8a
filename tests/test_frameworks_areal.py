"""AReaL: its placement strings (``allocation_mode``, or today's ``rollout.backend``/``actor.backend``) and cluster.

The fixtures (tests/frameworks/areal/) are written in AReaL's idioms and cite the public
files of inclusionAI/AReaL that taught each one.  A placement of a shape not read leaves
the GPUs unknown; the backends it names are still read.
"""

from __future__ import annotations

import pytest
from framework_fixtures import read, roles

from sphinx_rlresources.scripts.frameworks import read_file
from sphinx_rlresources.scripts.frameworks.areal import side, sides
from sphinx_rlresources.scripts.run import Origin


def headline(path: str) -> tuple[object, ...]:
    run = read("areal", path)
    assert run.framework == "areal"
    return (run.gpus.value, run.nodes.value, run.gpus_per_node.value, run.engine.value, run.train_backend.value)


def test_an_allocation_mode_config() -> None:
    assert headline("examples/math/gsm8k_grpo.yaml") == (8, 1, 8, "sglang", None)
    run = read("areal", "examples/math/gsm8k_grpo.yaml")
    assert run.model.value == "Qwen/Qwen2.5-1.5B-Instruct"
    assert roles(run) == [("trainer", 4, None, None, ""), ("rollout", 4, None, None, "")]


def test_a_launch_script_overrides_its_config() -> None:
    run = read("areal", "examples/math/run_gsm8k_grpo_slurm.sh")
    assert (run.entry_point, run.launch_line) == ("areal.launcher.slurm", 5)
    assert (run.gpus.value, run.nodes.value, run.gpus_per_node.value) == (64, 8, 8)
    assert (run.engine.value, run.train_backend.value, run.model.value) == ("sglang", "fsdp", "Qwen/QwQ-32B")
    assert (run.gpus.line, run.gpus.file) == (8, "")


def test_todays_backends_apart_and_a_reference_on_the_actors_gpus() -> None:
    assert headline("examples/math/gsm8k_grpo_backends.yaml") == (16, 2, 8, "sglang", "megatron")
    run = read("areal", "examples/math/gsm8k_grpo_backends.yaml")
    assert [r.name for r in run.roles] == ["trainer", "rollout"]  # ref: ${actor.backend}, colocated: no pool


def test_a_teacher_with_a_backend_of_its_own_is_a_pool() -> None:
    assert headline("examples/distillation/grpo_distill.yaml") == (8, 1, 8, "vllm", "fsdp")
    assert [r.name for r in read("areal", "examples/distillation/grpo_distill.yaml").roles] == [
        "trainer",
        "rollout",
        "teacher",
    ]


def test_a_cpu_template_has_no_gpu_count() -> None:
    run = read("areal", "examples/math/cpu_template.yaml")
    assert (run.gpus.value, run.gpus_per_node.value) == (None, 0)
    assert "more than the cluster's 1 × 0" in run.gpus.written


@pytest.mark.parametrize(
    ("path", "gpus", "pools"),
    [
        ("examples/math/moe_hybrid.yaml", 64, [32, 32]),  # the attention part's world, 4 × 4 × 2
        ("examples/math/moe_lora.yaml", 8, [6, 2]),  # the FFN's data parallel left to the attention's world
        ("examples/math/run_moe.sh", 16, [8, 8]),  # e2 adds no GPU to d2p2t2
    ],
)
def test_a_megatron_moe_placement_has_the_attention_parts_world(path: str, gpus: int, pools: list[int]) -> None:
    run = read("areal", path)
    assert (run.gpus.value, run.train_backend.value) == (gpus, "megatron")
    assert [role.gpus.value for role in run.roles] == pools
    assert run.gpus.value == run.nodes.value * run.gpus_per_node.value  # the cluster agrees


def test_a_hybrid_whose_parts_disagree_leaves_the_gpus_unknown() -> None:
    run = read("areal", "examples/math/moe_disagree.yaml")  # FFN world 16, attention 32: AReaL rejects it
    assert run.gpus.value is None and run.gpus.line == 9
    assert (run.nodes.value, run.engine.value, run.train_backend.value) == (8, "sglang", "megatron")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("sglang:d4p1t1", ("sglang", 4)),
        ("sglang.d4p1m2", ("sglang", 8)),
        ("fsdp:d4c8", ("fsdp", 32)),
        ("d2p2t1", (None, 4)),
        ("megatron:d2p2t2e2", ("megatron", 8)),  # experts split GPUs already counted
        ("megatron:d2p1t1e4", None),  # 4 experts do not divide a world of 2: AReaL rejects it
        ("sglang:d2e2", None),  # an engine has no expert dimension
        ("megatron:(attn:d4p4t2|ffn:d2p4e4)", ("megatron", 32)),
        ("megatron:attn:d4t2|ffn:e8", ("megatron", 8)),  # parentheses optional, FFN data derived (1)
        ("megatron:(attn:d4p2|ffn:p1e2)", None),  # pipelines differ
        ("fsdp: d4 p1 t1", ("fsdp", 4)),  # whitespace is ignored
        ("sglang:", None),
    ],
)
def test_one_side(text: str, expected: object) -> None:
    assert side(text) == expected


def test_an_allocation_has_two_sides() -> None:
    assert sides("sglang:d4p1t1+d4p1t1") == [("sglang", 4), (None, 4)]
    assert sides("sglang:d4p1t1") is None
    assert sides("sglang:d4+fsdp:d4+fsdp:d4") is None


def test_a_trainer_only_config_has_the_actors_gpus() -> None:
    # SFT (reward model, DPO): no rollout section, no allocation_mode; the actor's backend places the run
    run = read("areal", "examples/vlm/vlm_sft.yaml")
    assert headline("examples/vlm/vlm_sft.yaml") == (16, 2, 8, None, "fsdp")
    assert (run.model.value, run.gpus.line) == ("Qwen/Qwen2.5-VL-3B-Instruct", 15)
    assert roles(run) == [("trainer", 16, None, None, "")]


def test_an_rl_config_without_a_rollout_section_is_not_read_as_trainer_only() -> None:
    run = read("areal", "examples/alignment/rl_without_rollout.yaml")
    assert run.framework is None and run.unrecognised  # AReaL's default rollout would run too: not guessed


def test_a_skypilot_task_runs_an_entry_point_with_skypilots_cluster() -> None:
    run = read("areal", "examples/skypilot/two_nodes.sky.yaml")
    assert headline("examples/skypilot/two_nodes.sky.yaml") == (16, 2, 8, "sglang", "fsdp")
    assert (run.entry_point, run.launch_line, run.nodes.origin, run.nodes.line) == (
        "examples/math/gsm8k_rl.py",
        14,
        Origin.ENV,
        17,
    )
    assert run.gpus.line == 19 and run.model.value is not None  # the model from the --config it names


@pytest.mark.parametrize(
    ("command", "claimed"),
    [
        ("python3 -m areal.infra.launcher.local examples/math/gsm8k_rl.py --config c.yaml\n", True),
        ("python3 examples/math/gsm8k_rl.py --config c.yaml scheduler.type=local\n", True),
        ("python3 train.py --config c.yaml\n", False),  # --config alone: any program's flag
        ("python3 train.py scheduler.type=local\n", False),
    ],
)
def test_what_is_an_areal_launch(command: str, claimed: bool) -> None:
    run = read_file(command, "x.sh")
    assert (run.framework == "areal") is claimed


def test_a_rollout_only_config_has_the_rollouts_gpus_and_trains_nothing() -> None:
    run = read("areal", "examples/experimental/inference_service/rollout_only.yaml")
    assert (run.framework, run.gpus.value, run.nodes.value, run.gpus_per_node.value) == ("areal", 4, 1, 4)
    assert (run.engine.value, run.train_backend.value, run.model.value) == ("sglang", None, "Qwen/Qwen3-4B")
    assert (run.gpus.line, run.model.line) == (13, 5)  # the model: where ${model_path} leads
    assert roles(run) == [("rollout", 4, None, None, "")]
    run = read("areal", "examples/experimental/inference_service/rollout_vllm.yaml")
    assert (run.gpus.value, run.engine.value, run.model.value) == (None, "vllm", "Qwen/Qwen3-8B")
    assert "more than the cluster's 1 × 2" in run.gpus.written
