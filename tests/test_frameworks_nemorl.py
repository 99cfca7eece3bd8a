"""The NeMo-RL adapter over tests/frameworks/nemorl: inheritance chains, the cluster, launches and recipe names.

Every value each fixture settles is asserted, and every other one must stay unknown.
"""

from __future__ import annotations

import pytest
from framework_fixtures import kinds, read, roles, settled

from sphinx_rlresources.safe.yamlsafe import YamlError, load
from sphinx_rlresources.scripts.frameworks import read_config, read_run
from sphinx_rlresources.scripts.frameworks.nemorl import name_fields
from sphinx_rlresources.scripts.run import Origin

R = "examples/configs/recipes/llm/"
#: What the fixture base (grpo_base.yaml) settles for a DTensor recipe that changes nothing else.
BASE = {
    "colocated": True,
    "train_backend": "dtensor",
    "train_tp": 1,
    "train_cp": 1,
    "lora_rank": 0,
    "algorithm": "grpo",
    "use_kl": True,
    "critic": False,
    "train_batch_size": 16,
    "micro_batch_per_gpu": 2,
    "log_prob_micro_batch_per_gpu": 2,
    "dynamic_batch": False,
    "rollout_n": 8,
    # cpu_offload as the recipe says it; the estimator adds the order of colocated generation
    # (Vocabulary.generation_offload)
    "param_offload": False,
    "optimizer_offload": False,
    "offload_mode": None,
    "gradient_checkpointing": False,
    "engine": "vllm",
    "rollout_tp": 1,
    "memory_fraction": 0.6,
    "max_total_length": 1024,  # policy.max_total_sequence_length
}
#: The 1n8g recipe over the base: 8 GPUs, a 4096-token sequence, activation checkpointing.
QWEN7B = {
    **BASE,
    "gpus": 8,
    "nodes": 1,
    "gpus_per_node": 8,
    "model": "Qwen/Qwen2.5-7B",
    "prompt_length": 4096,
    "response_length": 4096,
    "max_total_length": 4096,
    "max_token_len_per_gpu": 8192,
    "log_prob_max_token_len_per_gpu": 8192,
    "gradient_checkpointing": True,
}


def test_the_base_config_resolves_its_own_references() -> None:
    run = read("nemorl", "examples/configs/grpo_base.yaml")
    settled(
        run,
        BASE,
        gpus=1,
        nodes=1,
        gpus_per_node=1,
        model="Qwen/Qwen2.5-0.5B",
        prompt_length=1024,  # ${policy.max_total_sequence_length}
        response_length=1024,
        max_token_len_per_gpu=2048,  # ${mul:${policy.max_total_sequence_length}, ${policy.train_micro_batch_size}}
        log_prob_max_token_len_per_gpu=2048,  # ${mul:..., ${policy.logprob_batch_size}}, which is train_micro's
    )
    assert run.framework == "nemo-rl" and run.problems == ()


def test_the_log_prob_passes_take_their_own_token_budget() -> None:
    """``logprob_mb_tokens`` is read beside ``train_mb_tokens``; left to the base config it follows
    ``logprob_batch_size``, so the log-prob passes of a recipe that raises it hold more tokens."""
    run = read("nemorl", R + "grpo-qwen3-30ba3b-4n8g-logprob4.yaml")
    assert (run.max_token_len_per_gpu.value, run.log_prob_max_token_len_per_gpu.value) == (4096, 16384)
    assert run.log_prob_max_token_len_per_gpu.line  # the base's line that wrote it


def test_a_recipe_merges_over_its_parent_relative_to_itself() -> None:
    run = read("nemorl", R + "grpo-qwen2.5-7b-1n8g-fsdp2tp1.yaml")
    settled(run, QWEN7B)
    assert (run.gpus_per_node.line, run.gpus_per_node.file) == (11, "")  # the recipe's own line
    assert (run.nodes.line, run.nodes.file) == (63, "examples/configs/grpo_base.yaml")  # inherited
    assert run.gpus.origin is Origin.DERIVED
    assert roles(run) == [("trainer", 8, 1, 8, ""), ("rollout", 8, 1, 8, "trainer")]


def test_a_chain_of_two_with_generation_carved_out_of_the_cluster() -> None:
    run = read("nemorl", R + "grpo-qwen2.5-7b-2n8g-fsdp2tp1-noncolocated.yaml")
    settled(
        run, QWEN7B, gpus=16, nodes=2, colocated=False, param_offload=False, optimizer_offload=False, offload_mode=None
    )
    assert run.model.file == R + "grpo-qwen2.5-7b-1n8g-fsdp2tp1.yaml"  # from the middle of the chain
    assert roles(run) == [("trainer", 8, 1, 8, ""), ("rollout", 8, 1, 8, "")]  # 16 in all, not 24


def test_megatron_with_peft_and_an_sglang_rollout() -> None:
    run = read("nemorl", R + "grpo-qwen3-30ba3b-4n8g-megatron-lora.yaml")
    settled(
        run,
        BASE,
        gpus=32,
        nodes=4,
        gpus_per_node=8,
        train_backend="megatron",
        train_tp=4,
        train_pp=2,
        train_ep=8,
        lora_rank=64,
        model="Qwen/Qwen3-30B-A3B",
        prompt_length=1024,
        response_length=1024,
        max_token_len_per_gpu=2048,
        log_prob_max_token_len_per_gpu=2048,
        param_offload=None,  # cpu_offload belongs to DTensor
        optimizer_offload=None,  # the base does not set megatron_cfg.optimizer
        offload_mode=None,  # CPU Adam or not is unknown: neither NeMo-RL's order nor compute is assumed
        engine="sglang",
        rollout_tp=4,
        memory_fraction=0.7,
    )


def test_an_unreadable_parent_leaves_what_it_would_set_unknown() -> None:
    run = read("nemorl", R + "grpo-qwen3-8b-1n8g-orphan.yaml")
    settled(run, gpus_per_node=8, model="Qwen/Qwen3-8B")
    assert run.nodes.origin is Origin.UNKNOWN and "grpo_missing.yaml" in run.nodes.written
    assert kinds(run) == [(4, "other", "warning")]
    assert "cannot be read" in run.problems[0].message


def test_the_total_sequence_cap_is_read_beside_the_lengths_it_caps() -> None:
    """DeepScaleR's 24K stage: prompt and max_new_tokens both follow the cap, which bounds their sum."""
    run = read("nemorl", R + "grpo-qwen2.5-1.5b-1n8g-24k.yaml")
    settled(
        run,
        BASE,
        gpus=8,
        nodes=1,
        gpus_per_node=8,
        model="Qwen/Qwen2.5-1.5B",
        train_tp=2,
        prompt_length=24576,
        response_length=24576,
        max_total_length=24576,
        micro_batch_per_gpu=1,
        log_prob_micro_batch_per_gpu=2,
        param_offload=True,
        optimizer_offload=True,
        offload_mode="compute",
        gradient_checkpointing=True,
        memory_fraction=0.8,
    )
    assert run.max_total_length.line == 10 and run.problems == ()


def test_without_files_nothing_inherited_is_known_and_nothing_is_blamed() -> None:
    run = read("nemorl", R + "grpo-qwen2.5-7b-1n8g-fsdp2tp1.yaml", files=False)
    settled(run, gpus_per_node=8, model="Qwen/Qwen2.5-7B", max_total_length=4096)  # the recipe's own cap
    assert run.problems == ()


def test_nemo_gym_nodes_are_added_to_the_cluster() -> None:
    run = read("nemorl", R + "grpo-qwen3-1.7b-3n8g-gym.yaml")
    settled(run, QWEN7B, gpus=24, nodes=3, model="Qwen/Qwen3-1.7B")
    assert roles(run) == [
        ("trainer", 8, 1, 8, ""),
        ("rollout", 8, 1, 8, "trainer"),
        ("environment", 16, 2, 8, ""),
    ]


def test_merge_keys_and_a_name_that_disagrees_with_the_cluster() -> None:
    path = R + "distillation-qwen3-4b-2n8g-anchors.yaml"
    run = read("nemorl", path)
    settled(
        run,
        gpus=8,
        nodes=1,
        gpus_per_node=8,
        colocated=True,
        train_backend="dtensor",
        train_tp=2,
        lora_rank=32,
        model="Qwen/Qwen3-4B-Base",  # the policy's, not the teacher's merged copy
        algorithm="distillation",
        critic=False,
        train_batch_size=64,
        rollout_n=1,
        engine="vllm",
        max_total_length=2048,
    )
    fields = name_fields(path)
    assert fields is not None and (fields["nodes"], fields["gpus_per_node"]) == (2, 8)
    assert (run.nodes.value, run.gpus_per_node.value) == (1, 8)  # the name is a claim, the cluster is the truth


def test_a_test_suite_script_runs_its_recipe_with_its_overrides_on_top() -> None:
    run = read("nemorl", "tests/test_suites/llm/grpo-qwen2.5-7b-2n8g-fsdp2tp1-noncolocated.sh")
    settled(
        run, QWEN7B, gpus=32, nodes=4, colocated=False, memory_fraction=0.8,
        param_offload=False, optimizer_offload=False, offload_mode=None,
    )  # fmt: skip
    assert (run.framework, run.entry_point, run.launch_line) == ("nemo-rl", "examples/run_grpo.py", 14)
    assert (run.nodes.line, run.nodes.file, run.nodes.origin) == (17, "", Origin.SET)  # cluster.num_nodes=$NUM_NODES
    assert run.model.file == R + "grpo-qwen2.5-7b-1n8g-fsdp2tp1.yaml"
    assert roles(run) == [("trainer", 24, 3, 8, ""), ("rollout", 8, 1, 8, "")]
    assert run.problems == ()


def test_an_explicit_config_with_overrides() -> None:
    run = read("nemorl", "tests/test_suites/llm/run_explicit.sh")
    assert (run.train_tp.value, run.train_tp.line, run.train_tp.file) == (8, 7, "")
    assert run.model.value == "Qwen/Qwen3-30B-A3B-Base"
    assert (run.gpus.value, run.train_backend.value, run.lora_rank.value) == (32, "megatron", 64)
    assert run.lora_rank.file == R + "grpo-qwen3-30ba3b-4n8g-megatron-lora.yaml"


def test_a_launch_whose_config_cannot_be_read_knows_only_its_overrides() -> None:
    script = "uv run examples/run_grpo.py --config $CFG cluster.num_nodes=2 cluster.gpus_per_node=4\n"
    run = read_run(script, "run.sh")
    settled(run, gpus_per_node=4)  # the unread recipe may add nemo-gym nodes to the cluster's 2
    assert run.framework == "nemo-rl"
    assert "nemo-gym" in run.gpus.written and "nemo-gym" in run.nodes.written


def test_inheritance_cycles_and_depth_are_bounded() -> None:
    class Loop:
        def read(self, path: str) -> str | None:
            return {"a.yaml": "defaults: b.yaml\ncluster: {num_nodes: 2}\n", "b.yaml": "defaults: a.yaml\n"}.get(path)

    run = read_config("defaults: b.yaml\ncluster: {gpus_per_node: 8}\n", "a.yaml", Loop())
    assert run.gpus_per_node.value == 8 and run.nodes.value is None
    assert [p.severity for p in run.problems] == ["error"] and "circle" in run.problems[0].message

    class Deep:
        def read(self, path: str) -> str | None:
            depth = int(path.removesuffix(".yaml").removeprefix("c"))
            return f"defaults: c{depth + 1}.yaml\ncluster: {{num_nodes: {depth}}}\n"

    run = read_config("defaults: c1.yaml\ncluster: {gpus_per_node: 8}\n", "c0.yaml", Deep())
    assert run.nodes.value is None and "levels of inheritance" in run.problems[0].message


def test_name_fields() -> None:
    assert name_fields("recipes/llm/grpo-llama3.2-1b-instruct-1n8g-fsdp2tp1.v3.yaml") == {
        "algo": "grpo",
        "model": "llama3.2-1b-instruct",
        "nodes": 1,
        "gpus_per_node": 8,
        "variant": "fsdp2tp1",
        "version": 3,
    }
    assert name_fields("vlm_grpo-qwen2.5-vl-3b-instruct-clevr-1n4g-megatrontp1.v1.yaml") == {
        "algo": "vlm_grpo",
        "model": "qwen2.5-vl-3b-instruct-clevr",
        "nodes": 1,
        "gpus_per_node": 4,
        "variant": "megatrontp1",
        "version": 1,
    }
    assert name_fields("grpo-qwen3-235b-32n8g.yaml") == {
        "algo": "grpo",
        "model": "qwen3-235b",
        "nodes": 32,
        "gpus_per_node": 8,
        "variant": "",
        "version": None,
    }
    assert name_fields("grpo-deepscaler-1.5b-8K.yaml") is None  # no NnGg: the documented exception


def test_merge_keys_are_read_in_configs_only() -> None:
    """Data files still refuse ``<<:``; recipe configs (NeMo-RL's distillation base) may use it."""
    text = "base: &B\n  x: 1\n  y: 2\nteacher:\n  y: 3\n  <<: *B\n"
    with pytest.raises(YamlError):
        load(text)
    document = load(text, merge_keys=True)
    assert document.value["teacher"] == {"x": 1, "y": 3}  # the mapping's own key wins, wherever it stands
    assert document.mark(("teacher", "y")) == (5, 6) and document.mark(("teacher", "x")) == (2, 6)


def test_a_placeholder_model_is_unknown() -> None:
    """DeepSeek recipes leave prose where the model goes; their scripts pass the real one."""
    text = "policy:\n  model_name: Follow instructions in docs/guides/deepseek.md\ncluster: {num_nodes: 1}\n"
    run = read_config(text, "recipe.yaml")
    assert run.model.value is None and "Follow instructions" in run.model.written
