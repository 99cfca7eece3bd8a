"""The estimator: exact counts, hostile config.json files, the laws of a floor and an expected peak, the check."""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sphinx_rlresources.core.loader import load_dataset
from sphinx_rlresources.core.model import Contributor, Entry, SourceRef
from sphinx_rlresources.core.plausibility import check_row, estimate_row
from sphinx_rlresources.core.rowscript import run_of
from sphinx_rlresources.estimator.architectures import (
    BUNDLED,
    ConfigError,
    bundled,
    by_size,
    from_config,
    vision_params,
)
from sphinx_rlresources.estimator.devices import DEVICES, device_memory
from sphinx_rlresources.estimator.fromscript import READ, Row, plan_for_row
from sphinx_rlresources.estimator.memory import BUDGETS, OFFLOAD_MODES, Plan, Result, estimate, minimum_gpus
from sphinx_rlresources.scripts.run import Found, Origin, Role, Run

REPO = Path(__file__).resolve().parent.parent

# -- exact arithmetic ------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_every_bundled_model_has_its_published_parameter_count(name: str) -> None:
    arch = BUNDLED[name]
    assert arch.params() == arch.published


def test_the_counts_the_issue_names() -> None:
    model = bundled("Qwen/Qwen2.5-7B-Instruct")
    assert model is not None and model.params() == 7_615_616_512
    moe = bundled("Qwen3-30B-A3B")
    assert moe is not None and moe.params(active=True) == 3_353_032_704  # "A3B": 3.3B active
    mixtral = bundled("mistralai/Mixtral-8x7B-Instruct-v0.1")
    assert mixtral is not None and mixtral.params() == 46_702_792_704  # not 7.24B: all 8 experts count


@pytest.mark.parametrize(
    ("name", "tp", "expected"),
    [
        ("Qwen2.5-7B", 1, 2 * 28 * 4 * 128 * 2),  # 57,344: 2 * layers * kv_heads * head_dim * bf16
        ("Qwen2.5-7B", 2, 2 * 28 * 2 * 128 * 2),  # the 4 KV heads split over 2 GPUs
        ("Qwen2.5-7B", 8, 2 * 28 * 1 * 128 * 2),  # more GPUs than KV heads: one head each
        ("Llama-3.1-70B", 1, 2 * 80 * 8 * 128 * 2),
        ("DeepSeek-V3", 1, 61 * (512 + 64) * 2),  # latent attention: one compressed vector per layer
        ("DeepSeek-V3", 8, 61 * (512 + 64) * 2),  # ... which every GPU keeps whole
    ],
)
def test_kv_bytes_per_token(name: str, tp: int, expected: int) -> None:
    arch = bundled(name)
    assert arch is not None and arch.kv_bytes_per_token(tp) == expected


def test_lora_adapters_are_rank_times_in_plus_out_per_adapted_linear_layer() -> None:
    arch = bundled("Qwen2.5-0.5B")
    assert arch is not None
    d, kv, f = 896, 2 * 64, 4864
    per_layer = (d + d) + 2 * (d + kv) + (d + d) + 3 * (d + f)
    assert arch.lora_params(8) == 8 * 24 * per_layer
    assert arch.lora_params(8, "all-linear") == arch.lora_params(8, "['all-linear']")
    assert arch.lora_params(8, "q_proj, v_proj") == 8 * 24 * ((d + d) + (d + kv))


QWEN2_CONFIG = {
    "model_type": "qwen2", "hidden_size": 3584, "num_hidden_layers": 28, "num_attention_heads": 28,
    "num_key_value_heads": 4, "intermediate_size": 18944, "vocab_size": 152064, "tie_word_embeddings": False,
}  # fmt: skip
QWEN25_VISION = {
    "depth": 32, "hidden_size": 1280, "intermediate_size": 3420, "out_hidden_size": 3584, "num_heads": 16,
    "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2, "in_chans": 3,
}  # fmt: skip
QWEN2_VISION = {
    "depth": 32, "embed_dim": 1280, "hidden_size": 3584, "mlp_ratio": 4, "num_heads": 16, "in_chans": 3,
    "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2,
}  # fmt: skip


def write(tmp_path: Path, config: object) -> Path:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config) if not isinstance(config, str) else config, "utf-8")
    return path


def test_a_config_json_is_read_offline_and_counted_the_same(tmp_path: Path) -> None:
    assert from_config(write(tmp_path, QWEN2_CONFIG)).params() == 7_615_616_512


def test_mixtrals_num_local_experts_counts_every_expert(tmp_path: Path) -> None:
    config = {
        "model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000, "num_local_experts": 8,
        "num_experts_per_tok": 2,
    }  # fmt: skip
    arch = from_config(write(tmp_path, config))
    assert arch.params() == 46_702_792_704
    assert arch.params(active=True) == 46_702_792_704 - 6 * 32 * 3 * 4096 * 14336  # two experts of eight per token


# The fields of Qwen1.5-MoE-A2.7B's and OLMoE-1B-7B-0924's config.json files that shape a count.
QWEN2_MOE_CONFIG = {
    "model_type": "qwen2_moe", "hidden_size": 2048, "num_hidden_layers": 24, "num_attention_heads": 16,
    "num_key_value_heads": 16, "intermediate_size": 5632, "vocab_size": 151936, "num_experts": 60,
    "num_experts_per_tok": 4, "moe_intermediate_size": 1408, "shared_expert_intermediate_size": 5632,
}  # fmt: skip
OLMOE_CONFIG = {
    "model_type": "olmoe", "hidden_size": 2048, "num_hidden_layers": 16, "num_attention_heads": 16,
    "num_key_value_heads": 16, "intermediate_size": 1024, "vocab_size": 50304, "num_experts": 64,
    "num_experts_per_tok": 8,
}  # fmt: skip


@pytest.mark.parametrize(
    ("config", "name", "active"),
    [
        (QWEN2_MOE_CONFIG, "Qwen1.5-MoE-A2.7B", 2_689_173_504),  # "2.7B activated"
        (OLMOE_CONFIG, "OLMoE-1B-7B-0924", 1_282_017_280),  # "1.3B active"
    ],
)
def test_a_qwen2_moe_shared_expert_and_olmoes_norms_are_counted(
    tmp_path: Path, config: dict[str, object], name: str, active: int
) -> None:
    """Qwen2-MoE's shared expert has a width and a gate of its own (without them the count was
    830 million short); OLMoE normalises q and k over every head, not one head's width."""
    arch, known = from_config(write(tmp_path, config)), bundled(name)
    assert known is not None and arch.params() == known.published and arch.params(active=True) == active
    assert arch.lora_params(32) == known.lora_params(32)


def test_a_shared_expert_is_adapted_as_one_mlp_as_wide_as_its_experts() -> None:
    arch = bundled("Qwen1.5-MoE-A2.7B")
    assert arch is not None
    d, f, shared = 2048, 1408, 5632
    attention = 4 * (d + d)
    per_layer = attention + 60 * 3 * (d + f) + 3 * (d + shared)
    assert arch.lora_params(1) == 24 * per_layer


@pytest.mark.parametrize(
    ("model_type", "vision", "tower", "total"),
    [
        ("qwen2_5_vl", QWEN25_VISION, 676_550_144, 8_292_166_656),  # Qwen2.5-VL-7B-Instruct's safetensors total
        ("qwen2_vl", QWEN2_VISION, 675_759_104, 8_291_375_616),  # Qwen2-VL-7B-Instruct's
    ],
)
def test_a_vlm_counts_its_vision_tower_and_keeps_its_attention_biases(
    tmp_path: Path, model_type: str, vision: dict[str, int], tower: int, total: int
) -> None:
    assert vision_params(vision, model_type) == tower
    arch = from_config(write(tmp_path, {**QWEN2_CONFIG, "model_type": model_type, "vision_config": vision}))
    assert arch.qkv_bias and arch.vision == tower and arch.params() == total


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("[1, 2]", "is not a JSON object"),
        ("{not json", "cannot be read as JSON"),
        ({"num_attention_heads": 4, "hidden_size": "big"}, "'hidden_size' must be a whole number, not \"big\""),
        ({"num_attention_heads": 4, "hidden_size": True}, "'hidden_size' must be a whole number, not true"),
        ({}, "'num_attention_heads' is missing"),
        ({**QWEN2_CONFIG, "num_attention_heads": 0}, "'num_attention_heads' is 0, outside 1..16,384"),
        ({**QWEN2_CONFIG, "num_hidden_layers": 0}, "'num_hidden_layers' is 0, outside 1..4,096"),
        ({**QWEN2_CONFIG, "num_hidden_layers": 10**11}, "'num_hidden_layers' is 100000000000, outside 1..4,096"),
        ({**QWEN2_CONFIG, "hidden_size": 1e200}, "'hidden_size' must be a whole number, not 1e\\+200"),
        ({**QWEN2_CONFIG, "vocab_size": 10**200}, "'vocab_size' is a 201-digit number, outside 1..16,777,216"),
        ({**QWEN2_CONFIG, "intermediate_size": -5}, "'intermediate_size' is -5, outside 0..2,097,152"),
        ({**QWEN2_CONFIG, "num_key_value_heads": 3}, "'num_key_value_heads' is 3, which does not divide the 28"),
        ({**QWEN2_CONFIG, "hidden_size": 4}, "'hidden_size' is 4, fewer than the 28 attention heads"),
        ("[" * 100_000 + "]" * 100_000, "nests 100000 levels deep, more than 32"),
        ({**QWEN2_CONFIG, "vision_config": {"depth": 10**9}}, "'vision_config.depth' is 1000000000, outside 0..1,024"),
        ({"text_config": {"num_attention_heads": 0}}, "'text_config.num_attention_heads' is 0"),
    ],
)
def test_a_bad_config_is_a_clear_error(tmp_path: Path, config: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        from_config(write(tmp_path, config))


def test_a_config_that_is_not_a_regular_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "config.json").mkdir()
    with pytest.raises(ConfigError, match="not a regular file"):
        from_config(tmp_path / "config.json")
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.json")
        with pytest.raises(ConfigError, match="not a regular file"):
            from_config(tmp_path / "pipe.json")  # never opened, so never blocks
    (tmp_path / "big.json").write_bytes(b" " * 2_000_000)
    with pytest.raises(ConfigError, match="larger than"):
        from_config(tmp_path / "big.json")


@pytest.mark.parametrize("label", ["infB", "nanB", "0B", "-3B", "1e300B", "-infB", "large"])
def test_a_size_label_that_names_no_model_gives_no_shape(label: str) -> None:
    assert by_size(label) is None


def test_an_unknown_model_is_counted_from_its_size_label_only() -> None:
    arch = by_size("14B")
    assert arch is not None and arch.params() == 14 * 10**9 and arch.kv_bytes_per_token() == 0


# -- the laws: floor and expected peak -----------------------------------------------------------

plans = st.fixed_dictionaries(
    {
        "model": st.sampled_from(sorted(BUNDLED)),
        "task": st.sampled_from(["GRPO", "PPO", "DAPO", "RLOO"]),
        "device": st.sampled_from(sorted(DEVICES)),
        "gpus": st.sampled_from([1, 2, 4, 8, 16, 32, 64]),
        "offload": st.booleans(),
        "mode": st.sampled_from(OFFLOAD_MODES),
        "checkpointing": st.booleans(),
        "prompt": st.integers(min_value=1, max_value=8192),
        "response": st.integers(min_value=1, max_value=16384),
        "micro": st.integers(min_value=1, max_value=16),
        "lora": st.sampled_from([0, 8, 32, 128]),
        "kl": st.booleans(),
        "padding": st.booleans(),
        "entropy": st.booleans(),
        "train": st.sampled_from(["fsdp", "megatron"]),
        "budget": st.sampled_from(BUDGETS),
        "fraction": st.sampled_from([None, 0.3, 0.6, 0.9]),
        "sleep": st.booleans(),
    }
)


def plan_of(values: dict[str, Any], **changes: Any) -> tuple[Any, Plan]:
    merged = {**values, **changes}
    arch = BUNDLED[merged["model"]]
    return arch, Plan(
        task=merged["task"], gpus=merged["gpus"], device=merged["device"], device_gib=DEVICES[merged["device"]],
        lora_rank=merged["lora"], train_backend=merged["train"], param_bytes=4 if merged["train"] == "fsdp" else 2,
        param_offload=merged["offload"], optimizer_offload=merged["offload"], offload_mode=merged["mode"],
        gradient_checkpointing=merged["checkpointing"], prompt_length=merged["prompt"],
        response_length=merged["response"], micro_batch_per_gpu=merged["micro"], rollout_tp=1, use_kl=merged["kl"],
        remove_padding=not merged["padding"], update_entropy=merged["entropy"], budget_of=merged["budget"],
        memory_fraction=merged["fraction"], free_cache_engine=merged["sleep"],
    )  # fmt: skip


def result(values: dict[str, Any], **changes: Any) -> Result:
    return estimate(*plan_of(values, **changes))


def update_gib(found: Result, figure: str = "expected") -> float:
    """The actor's update: resident, plus the moment that trains."""
    estimate_ = getattr(found, figure)
    moment = next(m for m in estimate_.moments if m.name == "the actor's update")
    return float(moment.total(estimate_.resident_bytes))


@given(values=plans)
def test_more_gpus_never_raise_the_per_gpu_training_memory(values: dict[str, Any]) -> None:
    for figure in ("floor", "expected"):
        more, fewer = result(values, gpus=values["gpus"] * 2), result(values)
        assert getattr(more, figure).train_gib <= getattr(fewer, figure).train_gib


@given(values=plans, rank=st.sampled_from([8, 32, 128]))
def test_lora_is_below_full_fine_tuning(values: dict[str, Any], rank: int) -> None:
    """LoRA's update is below full fine-tuning's; its whole peak is too, but for its adapters' own bytes.

    The log-prob pass holds the base and the adapters where full fine-tuning holds the base,
    so only the update, where the states differ, is strictly ordered.
    """
    lora, full = result(values, lora=rank), result(values, lora=0)
    for figure in ("floor", "expected"):
        assert update_gib(lora, figure) <= update_gib(full, figure)
        arch = BUNDLED[values["model"]]
        adapters = 4 * arch.lora_params(rank) / max(values["gpus"], 1) / 2**30
        assert getattr(lora, figure).peak_gib <= getattr(full, figure).peak_gib + adapters + 1e-9
    if not values["offload"]:  # the states are on the GPU: the adapters' are far smaller
        assert update_gib(lora) < update_gib(full)


@given(values=plans)
def test_offload_moves_memory_from_gpu_to_host_and_never_adds_to_the_gpu(values: dict[str, Any]) -> None:
    on, off = result(values, offload=True), result(values, offload=False)
    for figure in ("floor", "expected"):
        # a claim of a share of what is free (SGLang, verl's vLLM 0.6.3) grows into what offload frees
        train = "train_gib" if values["budget"] == "device" else "trainer_gib"
        assert getattr(getattr(on, figure), train) <= getattr(getattr(off, figure), train) * (1 + 1e-12)
        assert getattr(on, figure).rollout_gib <= getattr(off, figure).rollout_gib + 1e-9
        assert getattr(on, figure).host_gib > getattr(off, figure).host_gib
    if values["mode"] == "compute":  # the states never come back: the training phase shrinks
        assert on.expected.train_gib < off.expected.train_gib


@given(values=plans, more=st.integers(min_value=1, max_value=4096))
def test_longer_sequences_never_lower_it(values: dict[str, Any], more: int) -> None:
    base = result(values)
    longer = result(values, response=values["response"] + more, prompt=values["prompt"] + more)
    for figure in ("floor", "expected"):
        assert getattr(longer, figure).train_gib >= getattr(base, figure).train_gib
        assert getattr(longer, figure).rollout_gib >= getattr(base, figure).rollout_gib


@given(
    values=plans,
    budget=st.one_of(st.none(), st.integers(min_value=1, max_value=200_000)),
    mean=st.one_of(st.none(), st.integers(min_value=1, max_value=16384)),
    prompts=st.one_of(st.none(), st.integers(min_value=1, max_value=4096)),
    sp=st.sampled_from([1, 2, 4]),
    rollout_gpus=st.sampled_from([0, 1, 2]),
)
def test_the_expected_peak_is_never_below_the_floor(
    values: dict[str, Any], budget: int | None, mean: int | None, prompts: int | None, sp: int, rollout_gpus: int
) -> None:
    arch, plan = plan_of(values)
    plan = replace(
        plan, dynamic_batch=budget is not None, max_token_len_per_gpu=budget, mean_response_length=mean,
        train_batch_size=prompts, mini_batch_size=prompts, ulysses_sp=sp,
        rollout_gpus=rollout_gpus if rollout_gpus < plan.gpus else 0,
    )  # fmt: skip
    found = estimate(arch, plan)
    for phase in ("train", "rollout"):
        assert found.expected.phase_gib(phase) >= found.floor.phase_gib(phase) - 1e-9
    assert found.expected_gib >= found.floor_gib - 1e-9 and found.expected.host_gib >= found.floor.host_gib - 1e-9
    assert found.expected.trainer_gib >= found.floor.trainer_gib - 1e-9


@given(values=plans)
def test_the_verdict_follows_one_rule(values: dict[str, Any]) -> None:
    found = result(values)
    device = found.plan.device_gib
    if found.floor.problems or found.floor_gib > device:
        rule = "does-not-fit"
    elif found.expected_gib > device:
        rule = "likely-oom"
    else:
        rule = "tight" if found.expected_gib > 0.9 * device else "fits"
    assert found.verdict == rule


def test_the_peak_is_the_larger_phase_plus_what_stays_resident_not_their_sum() -> None:
    arch = bundled("Qwen2.5-7B")
    assert arch is not None
    found = estimate(arch, Plan("GRPO", 8, "H100", DEVICES["H100"])).expected
    assert found.peak_gib == max(found.train_gib, found.rollout_gib) < found.train_gib + found.rollout_gib


def test_the_headline_adds_up_term_by_term() -> None:
    arch = bundled("Qwen2.5-7B")
    assert arch is not None
    found = estimate(arch, Plan("PPO", 4, "H100", DEVICES["H100"], free_cache_engine=False)).expected
    for phase in ("train", "rollout"):
        moment = found.largest(phase)
        assert moment is not None
        listed = sum(t.bytes for t in found.resident) + sum(t.bytes for t in moment.terms)
        assert abs(listed / 2**30 - found.phase_gib(phase)) < 1e-9


# -- offload as verl does it, and the fewest GPUs --------------------------------------------------


def verl_plan(model: str, device: str, gpus: int = 1, **fields: Any) -> tuple[Any, Plan]:
    arch = bundled(model)
    assert arch is not None
    run = Run(framework="verl", param_offload=Found(True, Origin.SET), optimizer_offload=Found(True, Origin.SET))
    row = Row(model, None, "", fields.pop("task", "GRPO"), gpus, "fsdp", "vllm")
    return arch, replace(plan_for_row(row, run, device, DEVICES[device]), **fields)


def test_verl_offload_brings_the_states_back_for_the_update() -> None:
    """Qwen2-7B full GRPO on one H800 with verl's offload: the update needs ~16 bytes per parameter there."""
    arch, plan = verl_plan("Qwen2-7B", "H800")
    one = estimate(arch, plan)
    assert one.verdict == "does-not-fit" and one.floor_gib > 16 * arch.params() / 2**30 * 0.99
    _moment, term = one.limiting()
    assert term is not None and "optimizer states" in term.name and term.name.endswith("<- host")
    assert (minimum_gpus(arch, plan, by="floor") or (0,))[0] >= 2
    assert (minimum_gpus(arch, plan) or (0,))[0] >= 2
    compute = estimate(arch, replace(plan, offload_mode="compute"))
    assert compute.floor.train_gib < 16  # FSDP2's CPU offload: only a layer at a time on the GPU


@pytest.mark.parametrize("model", ["Qwen2.5-0.5B", "Qwen2-7B", "Qwen2.5-32B", "Llama-3.1-70B"])
@pytest.mark.parametrize("offload", [True, False])
def test_min_gpus_never_answers_fewer_than_the_floor_allows(model: str, offload: bool) -> None:
    arch, plan = verl_plan(model, "H100", param_offload=offload, optimizer_offload=offload, memory_fraction=0.5)
    by_floor, by_expected = minimum_gpus(arch, plan, by="floor"), minimum_gpus(arch, plan)
    assert by_floor is not None and by_expected is not None and by_expected[0] >= by_floor[0]
    fewer = [g for g in (1, 2, 4, 8) if g < by_floor[0]]
    for gpus in fewer:  # every count below the floor's answer really is does-not-fit
        assert estimate(arch, plan.with_gpus(gpus)).verdict == "does-not-fit"


def test_minimum_gpus_picks_a_tensor_parallel_size_that_divides_the_heads() -> None:
    arch, plan = verl_plan("Qwen2.5-72B", "H100", memory_fraction=0.5)
    gpus, found = minimum_gpus(arch, plan) or (0, None)
    assert gpus >= 8 and found is not None and arch.heads % found.rollout_tp == 0
    fixed = replace(plan, rollout_tp=16)
    assert (minimum_gpus(arch, fixed) or (0,))[0] >= 16  # a given TP needs at least that many GPUs
    assert minimum_gpus(arch, replace(plan, rollout_tp=1)) is None  # TP=1 cannot hold 72B's weights on an H100


def test_the_rollout_tp_divides_the_engines_gpus_and_the_heads() -> None:
    """Issue 37: Qwen2.5-1.5B (12 heads) on 8 GPUs took TP=6, which verl's rollout mesh refuses."""
    arch, plan = verl_plan("Qwen2.5-1.5B", "H100", memory_fraction=0.5)
    assert estimate(arch, plan.with_gpus(8)).rollout_tp == 4
    for name, shape in sorted(BUNDLED.items()):
        for gpus in (1, 2, 3, 6, 8, 12, 24, 40):
            tp = estimate(shape, replace(plan, gpus=gpus)).rollout_tp
            assert gpus % tp == 0 and shape.heads % tp == 0, (name, gpus, tp)
    unknown = by_size("13B")
    assert unknown is not None
    assert estimate(unknown, plan.with_gpus(6)).rollout_tp == 2  # heads unknown: a power of two dividing 6


def test_an_engine_sized_from_free_memory_at_start_does_not_see_the_optimizer_states() -> None:
    """verl's vLLM 0.6.3 takes its share of what is free when it starts, before the first step makes
    AdamW's moments: the claim is a share of memory those moments fill later (TinyZero's 3B PPO)."""
    arch, plan = verl_plan(
        "Qwen2.5-3B", "H100", gpus=2, task="PPO", param_offload=False, optimizer_offload=False,
        memory_fraction=0.4, budget_of="free-after-weights", rollout_tp=2, critic=True,
    )  # fmt: skip
    found = estimate(arch, plan).expected
    device, weights = plan.device_gib * 2**30, 2 * arch.params() / 2
    optimizer = sum(t.bytes for t in found.resident if "optimizer states" in t.name)
    assert optimizer > 20 * 2**30  # the actor's and the critic's Adam moments, fp32, over 2 GPUs
    at_start = found.resident_bytes - optimizer  # what was on the GPU when the engine measured
    assert found.engine_claim == pytest.approx(weights + 0.4 * (device - at_start - weights))
    generation = next(m for m in found.moments if m.name == "generation")
    assert "before the optimizer's first step" in generation.terms[0].name
    # offloaded moments were never on the GPU beside it: the claim is a share of what the rest leaves
    offloaded = estimate(arch, replace(plan, optimizer_offload=True)).expected
    rest = offloaded.resident_bytes
    assert offloaded.engine_claim == pytest.approx(weights + 0.4 * (device - rest - weights))
    # an engine whose budget is a share of the device never measured what was free
    device_budget = estimate(arch, replace(plan, budget_of="device")).expected
    assert device_budget.engine_claim == pytest.approx(0.4 * device)


def test_min_gpus_and_the_verdict_agree() -> None:
    arch, plan = verl_plan("Qwen2.5-1.5B", "H100", memory_fraction=0.5)
    for shape in (arch, bundled("Qwen2.5-72B")):
        assert shape is not None
        gpus, found = minimum_gpus(shape, plan) or (0, None)
        assert found is not None and found.verdict in ("fits", "tight")
        again = estimate(shape, plan.with_gpus(gpus))
        assert (again.verdict, again.rollout_tp) == (found.verdict, found.rollout_tp)
        assert gpus % found.rollout_tp == 0


def test_nemo_rls_total_sequence_cap_bounds_prompt_and_response_together() -> None:
    """Issue 37: DeepScaleR's 24K stage ran on one 8xH100 node; read as a 24K prompt plus a 24K
    response it was likely-oom at 102.7 GiB, 97 of it logits over 49,152 tokens."""
    from framework_fixtures import read

    run = read("nemorl", "examples/configs/recipes/llm/grpo-qwen2.5-1.5b-1n8g-24k.yaml")
    row = Row("Qwen2.5-1.5B", None, "1.5B", "GRPO", 8, "dtensor", "vllm")
    plan = plan_for_row(row, run, "H100", DEVICES["H100"])
    assert (plan.max_total_length, plan.lengths) == (24576, (12288, 12288))
    found = estimate(BUNDLED["qwen2.5-1.5b"], plan)
    # it ran: not likely-oom, the CUDA context and the allocator's reserve included
    assert found.verdict in ("fits", "tight") and found.expected.trainer_gib < DEVICES["H100"]
    uncapped = estimate(BUNDLED["qwen2.5-1.5b"], replace(plan, max_total_length=None))
    assert uncapped.verdict == "likely-oom"  # what the estimate said before the cap was read
    # a cap above the sum changes nothing; a cap below it keeps each length's share
    assert replace(plan, prompt_length=512, response_length=1024, max_total_length=4096).lengths == (512, 1024)
    assert replace(plan, prompt_length=1024, response_length=3072, max_total_length=2048).lengths == (512, 1536)


def test_an_engine_that_takes_what_it_was_told_is_not_tight() -> None:
    """OpenRLHF's default gpu_memory_utilization 0.95 on GPUs of the engine alone is a setting, not a risk;
    the same claim beside the trainer's resident states is."""
    arch, plan = verl_plan("Qwen2.5-7B", "H100", gpus=8, memory_fraction=0.95, rollout_gpus=4)
    apart = estimate(arch, plan)
    assert apart.expected_gib > 0.9 * plan.device_gib and apart.verdict == "fits"
    assert apart.engine_gib == pytest.approx(0.95 * plan.device_gib) and apart.trainer_gib < 0.9 * plan.device_gib
    beside = estimate(arch, replace(plan, rollout_gpus=0, memory_fraction=0.88, param_offload=False))
    assert beside.verdict in ("tight", "likely-oom")


def test_the_column_tells_a_small_model_from_a_large_one_behind_the_same_claim() -> None:
    """Issue 37: every row at vLLM's 0.6 read 48 GiB; the trainer's own peak is said apart."""
    from sphinx_rlresources.core.columns import estimate_text

    small, large = (
        estimate(*verl_plan(name, "H100", gpus=gpus, task="GRPO-LoRA", memory_fraction=0.6))
        for name, gpus in (("Qwen2.5-0.5B", 1), ("Qwen2.5-32B", 4))
    )
    from sphinx_rlresources.estimator.phases import CUDA_CONTEXT

    claim = 0.6 * DEVICES["H100"] + CUDA_CONTEXT / 2**30  # the claim and the trainer's context beside it
    assert small.expected_gib == pytest.approx(claim) and large.expected_gib == pytest.approx(claim)
    assert large.trainer_gib > 4 * small.trainer_gib
    texts = [estimate_text(found) for found in (small, large)]
    assert texts[0] != texts[1] and all("engine 48)" in t for t in texts), texts


def test_zero_stages_and_openrlhfs_optimizer_only_offload() -> None:
    """OpenRLHF trains with DeepSpeed at ZeRO-2 by default (a full parameter copy on each GPU) and
    --adam_offload moves Adam's states only: get_ds_train_config(offload=False, adam_offload=...)."""
    arch = bundled("Llama-3.1-8B")
    assert arch is not None
    row = Row("Llama-3.1-8B", None, "8B", "PPO", 8, "deepspeed", "vllm")

    def run(stage: Found[int], adam: bool) -> Run:
        return Run(
            framework="openrlhf",
            zero_stage=stage,
            param_offload=Found(False, Origin.FRAMEWORK_DEFAULT),
            optimizer_offload=Found(adam, Origin.SET),
            offload_mode=Found("compute", Origin.SET),
        )

    default, three = (
        plan_for_row(row, run(Found(stage, origin), adam=True), "H100", DEVICES["H100"])
        for stage, origin in ((2, Origin.FRAMEWORK_DEFAULT), (3, Origin.SET))
    )
    assert (default.zero_stage, three.zero_stage, default.param_offload) == (2, 3, False)
    two, sharded = estimate(arch, default), estimate(arch, three)
    params = {t.name: t.gib for t in two.expected.resident}
    assert params["actor parameters (bf16, a full copy per GPU)"] == pytest.approx(2 * arch.params() / 2**30)
    assert "optimizer states (fp32 master, Adam m and v; sharded), offloaded" in {t.name for t in two.expected.host}
    assert two.expected_gib > sharded.expected_gib
    assert two.floor_gib == pytest.approx(sharded.floor_gib)  # a framework default: the floor shards all
    ddp = replace(default, zero_stage=0, optimizer_offload=False, floor_values=())
    names = {t.name for t in estimate(arch, ddp).expected.resident}
    assert "optimizer states (fp32 master, Adam m and v; a full copy per GPU)" in names


def test_nemo_rls_colocated_policy_trains_with_its_states_and_generates_without_them() -> None:
    """NeMo-RL keeps the model and optimizer on the GPU to train and moves both to the CPU before
    generation (prepare_for_training, offload_before_refit, offload_after_refit)."""
    from framework_fixtures import read

    run = read("nemorl", "examples/configs/recipes/llm/grpo-qwen2.5-7b-1n8g-fsdp2tp1.yaml")
    row = Row("Qwen2.5-7B", None, "7B", "GRPO", 8, "dtensor", "vllm")
    plan = plan_for_row(row, run, "H100", DEVICES["H100"])
    assert (plan.param_offload, plan.optimizer_offload, plan.offload_mode) == (True, True, "phase")
    found = estimate(BUNDLED["qwen2.5-7b"], plan).expected
    moments = {m.name: m for m in found.moments}
    assert found.resident_bytes == 0  # nothing stays through generation
    assert [t.phase for t in moments["generation"].terms] == ["engine", "runtime"]  # and the trainer's context
    update = {t.name for t in moments["the actor's update"].terms}
    assert any("parameters" in n and "<- host" in n for n in update)
    assert any("optimizer" in n and "<- host" in n for n in update)
    log_prob = {t.name for t in moments["the actor's log-prob pass"].terms}
    assert not any("optimizer" in n for n in log_prob)  # the optimizer waits on the CPU for the update


def test_nemo_rls_colocated_flow_is_its_vocabularys_whatever_gives_the_settings() -> None:
    """A NeMo-RL run given as settings (``estimate --framework nemo-rl``, a validation row) with
    cpu_offload off generates without its states, as a recipe its adapter reads does; GPUs of
    the engine's own leave the states where they are, and verl keeps them beside its engine."""
    row = Row("Qwen2.5-7B", None, "7B", "GRPO", 8, "megatron", "vllm")
    off = {"param_offload": Found(False, Origin.SET), "optimizer_offload": Found(False, Origin.SET)}
    colocated = plan_for_row(row, Run(framework="nemo-rl", **off), "H100", DEVICES["H100"])
    assert (colocated.param_offload, colocated.optimizer_offload, colocated.offload_mode) == (True, True, "phase")
    assert {"param_offload", "offload_mode"} <= set(colocated.framework_defaults)
    engine = Role("rollout", gpus=Found(4, Origin.SET))
    apart = Run(framework="nemo-rl", colocated=Found(False, Origin.SET), roles=(engine,), **off)
    assert plan_for_row(row, apart, "H100", DEVICES["H100"]).param_offload is False
    assert plan_for_row(row, Run(framework="verl", **off), "H100", DEVICES["H100"]).param_offload is False
    silent = plan_for_row(row, Run(framework="nemo-rl"), "H100", DEVICES["H100"])
    assert (silent.memory_fraction, silent.offload_mode) == (0.6, "phase")  # grpo_math_1B.yaml's vLLM share


def test_nemo_rls_megatron_reduces_gradients_in_bf16() -> None:
    """grad_reduce_in_fp32 is false in NeMo-RL's Megatron config, true in verl's (megatron_utils.py)."""
    row = Row("Qwen2.5-7B", None, "7B", "GRPO", 8, "megatron", "vllm")
    arch = BUNDLED["qwen2.5-7b"]

    def gradients(framework: str) -> float:
        plan = plan_for_row(row, Run(framework=framework), "H100", DEVICES["H100"])
        update = next(m for m in estimate(arch, plan).expected.moments if m.name == "the actor's update")
        return sum(t.bytes for t in update.terms if t.name.startswith("gradients"))

    assert gradients("nemo-rl") == pytest.approx(gradients("verl") / 2)


def test_a_routed_layer_keeps_its_experts_copies_instead_of_a_dense_mlp() -> None:
    """Without recomputation a MoE layer keeps Korthikanti's attention share and its top-k copies:
    no dense MLP runs there, so its 19 bytes per token and hidden unit are not counted."""
    from sphinx_rlresources.estimator.pertoken import ACTIVATION_BYTES, DENSE_MLP_BYTES

    arch = bundled("Qwen3-30B-A3B")
    assert arch is not None and arch.experts and not arch.dense_layers
    plan = Plan(task="GRPO", gpus=8, device="H100", device_gib=DEVICES["H100"], gradient_checkpointing=False)
    update = next(m for m in estimate(arch, plan).expected.moments if m.name == "the actor's update")
    kept = next(t.bytes for t in update.terms if t.name == "activations (no recomputation)")
    tokens = plan.prompt_length + plan.response_length
    assert kept == pytest.approx((ACTIVATION_BYTES - DENSE_MLP_BYTES) * arch.hidden * tokens * arch.layers)
    assert any(t.name.startswith("activations: tokens routed") for t in update.terms)


def test_a_dense_layer_kept_whole_keeps_its_gated_mlps_tensors() -> None:
    """Without recomputation a dense layer keeps its gated MLP's input and four tensors of its width
    (2·d + 8·f bytes per token), not GPT's 19·d; the layer being recomputed keeps Korthikanti's 34."""
    from sphinx_rlresources.estimator.pertoken import ACTIVATION_BYTES, DENSE_MLP_BYTES

    arch = BUNDLED["qwen2.5-1.5b"]
    tokens = 1024 + 256

    def update(checkpointing: bool) -> dict[str, float]:
        plan = Plan(
            task="GRPO",
            gpus=1,
            device="H200",
            device_gib=DEVICES["H200"],
            gradient_checkpointing=checkpointing,
            prompt_length=256,
            response_length=1024,
        )
        moment = next(m for m in estimate(arch, plan).expected.moments if m.name.startswith("the actor's update"))
        return {t.name: t.bytes for t in moment.terms}

    attention = (ACTIVATION_BYTES - DENSE_MLP_BYTES) * arch.hidden
    mlp = 2 * arch.hidden + 8 * arch.intermediate  # 73.0 KiB for Qwen2.5-1.5B, where 19·d is 28.5
    kept = update(False)["activations (no recomputation)"]
    assert kept == pytest.approx((attention + mlp) * tokens * arch.layers)
    recomputed = update(True)["activations: the layer being recomputed"]
    assert recomputed == pytest.approx(ACTIVATION_BYTES * arch.hidden * tokens)


def test_an_update_over_a_padded_batch_takes_the_entropys_gradient_eagerly() -> None:
    """verl compiles its entropy only with padding removed (dp_actor.py:75-78, :240 at 49b08e9): a padded
    update holds the eager working set, 22 bytes per response token and vocabulary entry."""
    from sphinx_rlresources.estimator.pertoken import EAGER_ENTROPY_UPDATE_BYTES, LOGIT_BYTES

    arch = BUNDLED["qwen2.5-0.5b"]
    base = Plan(
        task="GRPO", gpus=1, device="H200", device_gib=DEVICES["H200"], update_entropy=True, micro_batch_per_gpu=4
    )

    def update_logits(plan: Plan) -> float:
        moments = estimate(arch, plan).expected.moments
        return sum(
            t.bytes
            for m in moments
            if m.name.startswith("the actor's update")
            for t in m.terms
            if t.name.startswith("logits")
        )

    padded, packed = update_logits(replace(base, remove_padding=False)), update_logits(base)
    responses, every = 4 * base.response_length * arch.vocab, 4 * sum(base.lengths) * arch.vocab
    assert padded == pytest.approx(2 * every + (EAGER_ENTROPY_UPDATE_BYTES - 2) * responses)
    assert packed == pytest.approx(LOGIT_BYTES * every)  # compiled: verl's guide's 7
    assert update_logits(replace(base, remove_padding=False, entropy_checkpointing=True)) < padded


def test_one_micro_batch_per_step_makes_its_gradients_after_the_logits_are_gone() -> None:
    """zero_grad() frees the gradients before each mini-batch: with one micro-batch per GPU the logits'
    backward runs before any gradient exists; a second micro-batch's runs beside them."""
    arch = BUNDLED["qwen2.5-7b"]
    one = Plan(task="GRPO", gpus=1, device="H200", device_gib=DEVICES["H200"], micro_batch_per_gpu=8,
               mini_batch_size=8, param_offload=False, optimizer_offload=False)  # fmt: skip
    names = {m.name: {t.name.split(" (")[0] for t in m.terms} for m in estimate(arch, one).expected.moments}
    logits_first = names["the actor's update: the backward through the logits"]
    layers = names["the actor's update: the backward through the layers"]
    assert not any(n.startswith("gradients") for n in logits_first) and any(
        n.startswith("logits") for n in logits_first
    )
    assert any(n.startswith("gradients") for n in layers) and not any(n.startswith("logits") for n in layers)
    two = {m.name for m in estimate(arch, replace(one, mini_batch_size=16)).expected.moments}
    assert "the actor's update" in two  # the second micro-batch adds to gradients already made
    unknown = {m.name for m in estimate(arch, replace(one, mini_batch_size=None)).expected.moments}
    assert "the actor's update" in unknown


def test_host_memory_is_in_the_verdict() -> None:
    """DeepSeek-V3 on 32 H100s with its states offloaded needs about 3 TB of host memory per node."""
    arch, plan = verl_plan("DeepSeek-V3", "H100", gpus=32, offload_mode="compute")
    assert estimate(arch, plan).verdict != "does-not-fit"  # without a node's memory, host memory is unchecked
    found = estimate(arch, replace(plan, host_memory_gib=2048))
    assert found.verdict == "does-not-fit" and found.host_gib > 2048
    assert found.limiting()[0] == "host"


# -- the check: no false alarm, and the impossible row ---------------------------------------


def entry(model: str, task: str, gpus: int, device: str, size: str, train: str = "fsdp") -> Entry:
    return Entry(
        size=size, tag="MIN", model=model, task=task, gpus=gpus, device=device, max_batch=None, train=train,
        infer="vllm", script="x.sh", contributor=Contributor("x"), source=SourceRef("data/x.yaml", 3, 5),
        field_marks={"gpus": (6, 11)},
    )  # fmt: skip


#: The real framework page's rows (the seed page): model, task, GPUs, device, training backend.
REAL_PAGE = [
    ("Qwen2.5-0.5B", "GRPO-LoRA", 1, "H100", "fsdp", "0.5B"),
    ("Qwen2.5-1.5B", "GRPO-LoRA", 1, "H100", "fsdp", "1.5B"),
    ("Qwen2.5-3B", "GRPO-LoRA", 1, "H100", "fsdp", "3B"),
    ("Qwen2-7B", "GRPO", 2, "H800", "fsdp", "7B"),
    ("Qwen2.5-7B", "GRPO-LoRA", 1, "H100", "fsdp", "7B"),
    ("Qwen2.5-14B", "GRPO", 4, "H800", "fsdp", "14B"),
    ("Qwen2.5-14B", "GRPO-LoRA", 2, "H100", "fsdp", "14B"),
    ("Qwen2.5-32B", "GRPO", 8, "H20", "megatron", "32B"),
    ("Qwen2.5-32B", "GRPO-LoRA", 4, "H100", "fsdp", "32B"),
    ("Qwen2-72B", "GRPO", 32, "H20", "fsdp", "70B"),
    ("Qwen2-72B", "GRPO", 32, "H800", "fsdp", "70B"),
    ("Qwen2.5-72B", "GRPO-LoRA", 8, "H100", "fsdp", "70B"),
]


@pytest.mark.parametrize("row", REAL_PAGE, ids=[f"{r[0]}-{r[1]}-{r[2]}x{r[3]}" for r in REAL_PAGE])
def test_no_row_of_the_real_page_is_flagged(row: tuple[str, str, int, str, str, str]) -> None:
    model, task, gpus, device, train, size = row
    found = estimate_row(entry(model, task, gpus, device, size, train), None)  # no script: every setting unknown
    assert found is not None and found.verdict != "does-not-fit", found.problems


#: The batch-search scripts of verl's tuning page, as their rows write them today (the *_per_gpu keys).
PER_GPU_SCRIPT = """python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo \\
  data.train_batch_size={prompts} data.max_prompt_length=512 data.max_response_length=1024 \\
  actor_rollout_ref.model.path=Qwen/{model}-Instruct actor_rollout_ref.model.lora_rank=32 \\
  actor_rollout_ref.model.use_remove_padding=True actor_rollout_ref.model.enable_gradient_checkpointing=True \\
  actor_rollout_ref.actor.ppo_mini_batch_size={prompts} actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu={micro} \\
  actor_rollout_ref.actor.ulysses_sequence_parallel_size={sp} actor_rollout_ref.actor.use_kl_loss=True \\
  actor_rollout_ref.actor.fsdp_config.param_offload=True actor_rollout_ref.actor.fsdp_config.optimizer_offload=True \\
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu={micro} actor_rollout_ref.rollout.name=vllm \\
  actor_rollout_ref.rollout.tensor_model_parallel_size={gpus} actor_rollout_ref.rollout.gpu_memory_utilization={util} \\
  actor_rollout_ref.rollout.n=5 actor_rollout_ref.ref.fsdp_config.param_offload=True \\
  trainer.n_gpus_per_node={gpus} trainer.nnodes=1
"""


@pytest.mark.parametrize(
    ("model", "gpus", "micro", "sp", "util"),
    [("Qwen2.5-14B", 2, 58, 2, 0.25), ("Qwen2.5-3B", 1, 62, 1, 0.1), ("Qwen2.5-7B", 1, 100, 1, 0.2)],
)
def test_the_runs_of_the_issue_are_not_called_impossible(
    model: str, gpus: int, micro: int, sp: int, util: float
) -> None:
    """Qwen2.5-14B GRPO-LoRA on 2xH100 with micro-batch 58 and Qwen2.5-3B on one H100 with 62 ran."""
    script = PER_GPU_SCRIPT.format(model=model, gpus=gpus, micro=micro, sp=sp, util=util, prompts=micro * gpus)
    row = entry(model, "GRPO-LoRA", gpus, "H100", model.split("-")[1])
    run = run_of(script.encode(), "x.sh", {}, None)  # the verl adapter's Run
    found = estimate_row(row, run)
    assert found is not None and found.verdict != "does-not-fit" and check_row(row, found) is None
    assert found.plan.micro_batch_per_gpu == micro and found.plan.memory_fraction == util
    assert "micro_batch_per_gpu" not in found.plan.assumed and found.plan.ulysses_sp == sp
    assert found.plan.offload_mode == "phase" and found.plan.param_bytes == 4  # verl's, from the framework


def test_no_row_of_our_data_is_flagged_and_each_has_an_estimate() -> None:
    dataset = load_dataset(REPO / "data", REPO)
    assert [d for d in dataset.diagnostics if d.subtype.value == "implausible"] == []
    assert len(dataset.estimates) == len(dataset.entries) == 12


def test_the_impossible_row_is_refused_at_its_gpus_line() -> None:
    row = entry("Qwen2.5-72B", "GRPO", 1, "H100", "70B")
    problem = check_row(row, estimate_row(row, None))
    assert problem is not None
    assert problem.format().startswith(
        "data/x.yaml:6:11: error: this row cannot have run as written: even the floor of Qwen2.5-72B's GRPO run needs "
    )
    assert problem.format().endswith("[rlresources.implausible]")


def test_a_script_value_outside_its_bounds_is_estimated_as_not_given() -> None:
    key = b"python3 -m verl.trainer.main_ppo actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu="
    found = estimate_row(entry("Qwen2.5-7B", "GRPO", 8, "H100", "7B"), run_of(key + b"99999999999", "x.sh", {}, None))
    assert (
        found is not None
        and found.plan.micro_batch_per_gpu == 1
        and found.plan.ignored == ("micro_batch_per_gpu=99999999999",)
    )


def test_device_names_are_matched_loosely() -> None:
    assert device_memory("h100") == DEVICES["H100"] and device_memory("A100") == DEVICES["A100-80G"]
    assert device_memory("910B") == DEVICES["Ascend910B"] and device_memory("TPUv5") is None
    assert device_memory("RTX A6000") == DEVICES["RTX-A6000"] and device_memory("a10g") == DEVICES["A10"]
    assert device_memory("H20-3e") == DEVICES["H20-141G"] and device_memory("A800") == 80.0


# -- the Sphinx side --------------------------------------------------------------------------


def test_the_directive_and_the_column(tmp_path: Path) -> None:
    from sphinx.cmd.build import build_main

    root = tmp_path / "site"
    shutil.copytree(REPO / "data", root / "data")
    shutil.copytree(REPO / "examples", root / "examples")
    (root / "conf.py").write_text(
        'extensions = ["sphinx_rlresources"]\nrlresources_data_dir = "data"\nrlresources_root = "."\n', "utf-8"
    )
    (root / "index.rst").write_text(
        "T\n=\n\n.. rl-resource-table:: 70b\n   :columns: model, resource, estimate\n\n"
        ".. rl-resource-estimate::\n   :models: Llama-3.1-405B, Nope-1B\n   :devices: H200\n",
        "utf-8",
    )
    log = tmp_path / "log.txt"
    assert build_main(["-q", "-E", "-w", str(log), str(root), str(tmp_path / "out")]) == 0
    html = (tmp_path / "out" / "index.html").read_text("utf-8")
    assert "Estimated, not measured" in html and "nobody has run these" in html
    # The column: both figures named, and a legend under its table (the style is never the only sign).
    column = re.findall(r'<td [^>]*class="rl-col-estimate"[^>]*>\s*<p>(.*?)</p>', html, re.S)
    assert len(column) == 3 and all(
        re.fullmatch(r"floor \d+, expected \d+ GiB/(<wbr/>)?GPU \(trainer [\d.]+, engine [\d.]+\)", c) for c in column
    )
    assert html.count('class="rlresources-estimate-legend"') == 2  # the column's and the estimate table's
    assert "lengths and batches, and is the figure to plan with" in html
    # The estimate table: one compact row per task and device (the offload setting that needs the
    # fewest GPUs, the count, the verdict in a word, the limiting term), both settings' figures a click away.
    table = html[re.search(r'<table class="[^"]*rlresources-estimate[ "]', html).start() :]  # type: ignore[union-attr]
    table = table[: table.index("</table>")]
    assert "the fewest GPUs the estimator allows for Llama-3.1-405B" in table  # one model: named once, above
    heads = re.findall(r"<th[^>]*>\s*<p>(.*?)</p>", table, re.S)
    assert heads == ["Task", "Device", "Fewest GPUs", "Offload", "Verdict", "Limited by", "Details"]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)[1:]
    assert len(rows) == 1
    cells = re.findall(r"<td ([^>]*)>(.*?)</td>", rows[0], re.S)
    texts = [re.sub("<[^>]+>", "", c).strip() for _attrs, c in cells]
    assert texts[:2] == ["GRPO", "H200"] and re.fullmatch(r"\d+", texts[2]) and texts[3] in {"on", "off"}, texts
    assert texts[4] in {"fits", "tight"} and texts[5] and "GiB" not in texts[5], texts  # a count, then a word
    assert ["rl-estimated" in attrs for attrs, _c in cells] == [False, False, True, True, True, True, True]
    details = cells[6][1]
    assert details.startswith('<details class="rlresources-details"><summary>Figures</summary>'), details
    figures = re.findall(r"<p>(Offload (?:on|off): .*?)</p>", details, re.S)
    assert len(figures) == 2, details
    for text in figures:
        assert re.search(r"\d+ GPUs \((fits|tight)\), expected peak ≈ [\d.]+ GiB/GPU; floor \d+ GPUs \(≥", text)
        assert re.search(r"host memory ≈ [\d,]+ GiB per node", text), text
    shown = next(t for t in figures if t.startswith(f"Offload {texts[3]}:"))
    assert shown.split(": ", 1)[1].startswith(f"{texts[2]} GPUs ({texts[4]})")  # the row shows that setting
    assert all(int(t.split(": ", 1)[1].split()[0]) >= int(texts[2]) for t in figures)  # ... the fewest
    (warning,) = log.read_text("utf-8").splitlines()
    assert ":models: names 'Nope-1B', which is not known" in warning and warning.endswith("[rlresources.option]")


#: A verl launch silent on offload, the engine's budget and its tensor parallelism, in the
#: idiom of verl-project/verl@1dda039 examples/grpo_trainer/run_qwen2-7b_math.sh (written for this test).
SILENT_VERL = """python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo \\
  data.train_batch_size=128 actor_rollout_ref.model.path=Qwen/Qwen2.5-14B-Instruct \\
  actor_rollout_ref.rollout.name=vllm trainer.n_gpus_per_node=4 trainer.nnodes=1
"""


def test_a_framework_default_never_makes_a_row_impossible() -> None:
    # verl's defaults today (no offload, gpu_memory_utilization=0.5, rollout TP 2) would not
    # hold Qwen2.5-14B on 4 H100s, but a default changes between releases and the script does
    # not say which one it ran with: the expected peak uses them (likely-oom), the floor does not.
    row = entry("Qwen2.5-14B", "GRPO", 4, "H100", "14B")
    run = run_of(SILENT_VERL.encode(), "x.sh", {}, None)
    assert run.param_offload.origin is Origin.FRAMEWORK_DEFAULT
    found = estimate_row(row, run)
    assert found is not None
    least = dict(found.plan.floor_values)
    assert least["param_offload"] is True and least["memory_fraction"] is None and least["rollout_tp"] is None
    assert found.plan.param_offload is False and found.plan.memory_fraction == 0.5  # the expected peak's
    assert found.verdict == "likely-oom" and check_row(row, found) is None
    assert found.floor_gib < found.expected_gib
    written = SILENT_VERL.replace(
        "rollout.name=vllm", "rollout.name=vllm actor_rollout_ref.rollout.gpu_memory_utilization=0.5"
    )
    pinned = estimate_row(row, run_of(written.encode(), "x.sh", {}, None))
    assert pinned is not None and "memory_fraction" not in dict(pinned.plan.floor_values)  # written: the floor uses it


def test_megatrons_default_parallelism_is_a_default_too() -> None:
    # verl's Megatron config says tensor and pipeline parallelism 1 when a script is silent:
    # a 14B model unsharded on each of 104 GPUs.  The expected peak uses that; the floor
    # takes the most model parallelism the GPUs allow, so the row is not called impossible.
    script = (
        "python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer algorithm.adv_estimator=gae \\\n"
        "  actor_rollout_ref.model.path=Qwen/Qwen2.5-14B-Instruct actor_rollout_ref.rollout.name=sglang \\\n"
        "  trainer.n_gpus_per_node=8 trainer.nnodes=13\n"
    )
    row = entry("Qwen2.5-14B", "PPO", 104, "H800", "14B", "megatron")
    found = estimate_row(row, run_of(script.encode(), "x.sh", {}, None))
    assert found is not None and (found.plan.train_tp, found.plan.train_pp) == (1, 1)
    assert dict(found.plan.floor_values)["train_tp"] == 8 and dict(found.plan.floor_values)["train_pp"] == 13
    assert found.verdict == "likely-oom" and check_row(row, found) is None


@pytest.mark.parametrize(
    ("model", "task", "gpus", "device", "micro", "verdict"),
    [
        ("Qwen/Qwen2.5-7B", "GRPO", 8, "H100", 1, "fits"),
        ("Qwen/Qwen2.5-14B", "GRPO", 1, "H100", 64, "likely-oom"),
        ("Qwen/Qwen2.5-72B", "GRPO", 1, "H100", 1, "does-not-fit"),
    ],
)
def test_what_a_table_keeps_of_an_estimate_says_what_the_estimate_says(
    model: str, task: str, gpus: int, device: str, micro: int, verdict: str
) -> None:
    arch = bundled(model)
    assert arch is not None
    plan = plan_for_row(Row(model, model, "7B", task, gpus, "fsdp", "vllm"), None, device, DEVICES[device])
    found = estimate(arch, replace(plan, micro_batch_per_gpu=micro))
    kept = found.kept()
    assert (kept.floor_gib, kept.impossible, kept.expected_gib, kept.verdict) == (
        found.floor_gib,
        found.impossible,
        found.expected_gib,
        found.verdict,
    )
    assert kept.verdict == verdict


def test_the_expected_peak_is_built_once_for_a_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """``estimate`` lists the expected peak's terms and gives its verdict: one build of it, not two."""
    from sphinx_rlresources.estimator import memory

    built: list[bool] = []
    real = memory.build

    def counting(*args: Any, expected: bool) -> Any:
        built.append(expected)
        return real(*args, expected=expected)

    monkeypatch.setattr(memory, "build", counting)
    arch = bundled("Qwen2.5-7B")
    assert arch is not None
    found = estimate(arch, Plan("GRPO", 8, "H100", DEVICES["H100"]))
    terms, verdict, peak = found.expected.moments, found.verdict, found.expected_gib
    assert terms and verdict in ("fits", "tight") and peak == found.expected.peak_gib
    assert built == [False, True]  # the floor, then the expected peak once
    table_row = estimate(arch, Plan("GRPO", 8, "H100", DEVICES["H100"])).kept()
    assert (table_row.verdict, table_row.expected_gib) == (verdict, peak) and built == [False, True, False, True]


def test_a_plan_names_each_setting_as_a_run_does() -> None:
    """``inspect`` and ``estimate`` name a setting alike: every setting read is a Run field and a Plan field."""
    plan_fields, run_fields = {f.name for f in fields(Plan)}, {f.name for f in fields(Run)}
    assert set(READ) <= plan_fields & run_fields and "train_backend" in plan_fields & run_fields
    run = Run(micro_batch_per_gpu=Found(7, Origin.SET), ulysses_sp=Found(2, Origin.SET))
    plan = plan_for_row(Row("Qwen2.5-7B", None, "7B", "GRPO", 8, "fsdp", "vllm"), run, "H100", 79.6)
    assert (plan.micro_batch_per_gpu, plan.ulysses_sp, plan.train_backend) == (7, 2, "fsdp")


def test_the_expected_peak_counts_the_cuda_context_and_the_allocators_reserve() -> None:
    """What no tensor holds (issue 37): in every trainer moment of the expected peak, none in the floor."""
    from sphinx_rlresources.estimator.phases import ALLOCATOR_RESERVE, CUDA_CONTEXT, TRAINER_CONTEXT_TERM

    plan = Plan(task="PPO", gpus=8, device="H100", device_gib=DEVICES["H100"], micro_batch_per_gpu=4, use_kl=True)
    found = estimate(BUNDLED["qwen2.5-7b"], plan)
    for moment in found.expected.moments:
        runtime = [t for t in moment.terms if t.phase == "runtime"]
        if moment.phase == "train":
            per_token = sum(t.bytes for t in moment.terms if t.name.startswith(("activations", "logits")))
            assert [t.bytes for t in runtime] == [CUDA_CONTEXT + ALLOCATOR_RESERVE * per_token]
            assert moment.runtime_bytes == runtime[0].bytes
        elif moment.name == "generation":  # the trainer's process keeps its context beside the engine
            assert [(t.name, t.bytes) for t in runtime] == [(TRAINER_CONTEXT_TERM, CUDA_CONTEXT)]
        else:
            assert runtime == []
    assert not any(t.phase == "runtime" for m in found.floor.moments for t in m.terms)


def test_nemo_rls_dtensor_policy_keeps_fp32_parameters() -> None:
    """NeMo-RL's DTensor worker loads the policy in fp32 (master weights), as verl's FSDP actor does."""
    from framework_fixtures import read

    run = read("nemorl", "examples/configs/recipes/llm/grpo-qwen2.5-1.5b-1n8g-24k.yaml")
    plan = plan_for_row(Row("Qwen2.5-1.5B", None, "1.5B", "GRPO", 8, "dtensor", "vllm"), run, "H100", 79.6)
    assert (plan.train_backend, plan.param_bytes) == ("fsdp", 4)
    megatron = replace(run, train_backend=Found("megatron", Origin.SET))
    assert (
        plan_for_row(
            Row("Qwen2.5-1.5B", None, "1.5B", "GRPO", 8, "megatron", "vllm"), megatron, "H100", 79.6
        ).param_bytes
        == 2
    )


def test_a_mixture_of_experts_counts_its_routed_copies() -> None:
    """Issue 37: each token's top-k copies and their expert intermediates, beside the dense 34 bytes."""
    arch = BUNDLED["qwen3-30b-a3b"]
    plan = Plan(task="GRPO", gpus=8, device="H100", device_gib=DEVICES["H100"], micro_batch_per_gpu=8)
    found = estimate(arch, plan)
    tokens = 8 * (512 + 1024)
    copy = 8 * 2 * (2 * arch.hidden + 4 * arch.moe_intermediate)  # top-8, bf16
    update = next(m for m in found.expected.moments if m.name == "the actor's update")
    routed = [t.bytes for t in update.terms if t.name.startswith("activations: tokens routed")]
    assert routed == [copy * tokens]  # the layer being recomputed
    whole = estimate(arch, replace(plan, gradient_checkpointing=False)).expected.moments[0]
    assert [t.bytes for t in whole.terms if "routed" in t.name] == [copy * tokens * (arch.layers - arch.dense_layers)]
    assert not any("routed" in t.name for m in found.floor.moments for t in m.terms)
    dense = estimate(BUNDLED["qwen2.5-7b"], plan).expected
    assert not any("routed" in t.name for m in dense.moments for t in m.terms)


def test_a_shared_expert_keeps_one_copy_as_wide_as_it_is() -> None:
    """Qwen2-MoE's shared expert is one MLP of four experts' width: one hidden-wide copy per token."""
    arch = BUNDLED["qwen1.5-moe-a2.7b"]
    plan = Plan(task="GRPO", gpus=8, device="H100", device_gib=DEVICES["H100"], micro_batch_per_gpu=8)
    update = next(m for m in estimate(arch, plan).expected.moments if m.name == "the actor's update")
    routed = [t.bytes for t in update.terms if t.name.startswith("activations: tokens routed")]
    top4 = 4 * 2 * (2 * 2048 + 4 * 1408)
    shared = 2 * (2 * 2048 + 4 * 5632)
    assert routed == [(top4 + shared) * 8 * (512 + 1024)]


def test_a_named_frameworks_silent_setting_is_its_own_default() -> None:
    """One rule for a silent setting of a named framework (a script, ``--framework``, a validation
    row): its vocabulary's default for the expected peak, the least memory for the floor."""
    row = Row("Qwen2.5-7B", None, "7B", "GRPO", 8, "fsdp", "")
    verl = plan_for_row(row, Run(framework="verl"), "H100", 79.6)
    assert (verl.param_offload, verl.optimizer_offload, verl.memory_fraction) == (False, False, 0.5)
    assert {("param_offload", True), ("optimizer_offload", True)} <= set(verl.floor_values)
    assert "param_offload" not in verl.assumed
    unnamed = plan_for_row(row, Run(), "H100", 79.6)
    assert unnamed.param_offload is True and "param_offload" in unnamed.assumed
    # written but unknown ($OFFLOAD unresolved) is not silent: no default stands in for it
    unresolved = Run(framework="verl", param_offload=Found(None, Origin.SET, 3, "param_offload=$OFFLOAD"))
    assert plan_for_row(row, unresolved, "H100", 79.6).param_offload is True
    trl = plan_for_row(row, Run(framework="trl"), "H100", 79.6)  # use_vllm defaults to False
    assert trl.engine == "none" and trl.param_offload is False


def test_no_engine_counts_the_trainer_alone() -> None:
    arch = bundled("Qwen2.5-7B")
    assert arch is not None
    base = Plan(task="GRPO", gpus=8, device="H100", device_gib=79.6, memory_fraction=0.5, free_cache_engine=False)
    alone = estimate(arch, replace(base, engine="none"))
    engine = estimate(arch, base)
    assert all(not m.engine_bytes and m.phase == "train" for m in alone.expected.moments)
    assert alone.expected.peak_gib == alone.expected.trainer_gib == pytest.approx(engine.expected.trainer_gib)
    assert alone.expected.peak_gib < engine.expected.peak_gib and alone.expected.engine_claim == 0
    assert not any("engine sleeps" in t.name for t in alone.expected.host)


def test_trls_offload_default_stands_only_where_no_deepspeed_or_fsdp_config_could_set_it() -> None:
    # The launches follow TRL's README: a single-GPU ``python`` script, and ``accelerate launch
    # --config_file`` with a DeepSpeed config (trl/accelerate_configs/zero3.yaml), here not readable.
    row = Row("Qwen2.5-0.5B", None, "0.5B", "GRPO", 1, "", "")
    plain = run_of(b"CUDA_VISIBLE_DEVICES=0 python train_grpo.py --num_generations 4\n", "x.sh", {}, None)
    assert plain.param_offload.value is None and not plain.param_offload.line  # silent: nothing offloads it
    assert plan_for_row(row, plain, "H100", 79.6).param_offload is False
    configured = b"accelerate launch --config_file cfg/zero3.yaml -m trl.scripts.grpo --model_name_or_path x\n"
    unread = run_of(configured, "x.sh", {}, None)
    assert unread.param_offload.line == 1  # said in a config this reader cannot read
    assert plan_for_row(row, unread, "H100", 79.6).param_offload is True  # unknown: the least memory


def test_trls_reference_stays_on_its_gpu_and_its_batches_are_padded() -> None:
    """TRL's GRPO keeps its reference model in the trainer's process, prepared as the trained
    model is (no offload without a DeepSpeed or FSDP one), pads every batch and scores its
    log-prob passes without the entropy: its vocabulary says so, for the expected peak; the
    floor still packs and offloads."""
    arch = bundled("Qwen3-0.6B")
    assert arch is not None
    row = Row("Qwen3-0.6B", None, "0.6B", "GRPO", 1, "", "")
    trl = plan_for_row(row, Run(framework="trl", use_kl=Found(True, Origin.SET)), "A100-80G", 80.0)
    assert (trl.ref_param_offload, trl.remove_padding) == (False, False)
    assert {"ref_param_offload", "remove_padding"} <= set(trl.framework_defaults)
    assert {("ref_param_offload", True), ("remove_padding", True)} <= set(trl.floor_values)
    found = estimate(arch, trl)
    assert [t.name for t in found.expected.resident if t.name.startswith("reference model")]
    assert not [t for t in found.expected.host if t.name.startswith("reference model")]
    assert [t for t in found.floor.host if t.name.startswith("reference model")]  # the floor's least memory
    # its log-prob pass scores without the entropy (compute_entropy is the loss's alone)
    assert trl.pass_entropy is False
    scoring = [t.name for m in found.expected.moments if m.name == "the actor's log-prob pass" for t in m.terms]
    assert "logits for log-probs" in scoring and not [n for n in scoring if "entropy" in n]
    # padded: a batch holds every sequence at its full length; packed it would hold its mean
    means = replace(trl, mean_prompt_length=100, mean_response_length=100)
    packed = replace(means, remove_padding=True)
    assert estimate(arch, means).expected_gib > estimate(arch, packed).expected_gib


@pytest.mark.parametrize(("framework", "entropy"), [("easyr1", False), ("verl", True)])
def test_easyr1_scores_log_probs_alone_where_verl_adds_the_entropy(framework: str, entropy: bool) -> None:
    """EasyR1's actor returns the log-probs alone in every pass (hiyouga/EasyR1@b44b311
    verl/workers/actor/dp_actor.py:68-155; the entropy left with its loss in #132); verl's
    log-prob pass computes the entropy too."""
    arch = BUNDLED["qwen2.5-7b"]
    plan = plan_for_row(
        Row("Qwen2.5-7B", None, "7B", "GRPO", 8, "fsdp", "vllm"), Run(framework=framework), "H100", 80.0
    )
    assert plan.pass_entropy is entropy
    scoring = [
        t.name for m in estimate(arch, plan).expected.moments if m.name == "the actor's log-prob pass" for t in m.terms
    ]
    assert any(("entropy" in n) is entropy for n in scoring if n.startswith("logits"))


def test_an_engine_with_no_stated_budget_claims_at_most_its_default_pool() -> None:
    # vLLM claims gpu_memory_utilization (0.9 unless set) of the device whatever the batch: a step's
    # sequences beyond what that pool holds wait their turn, they are not claimed
    arch = bundled("Qwen3-4B")
    assert arch is not None
    plan = Plan("GRPO", 1, "H200", 140.4, prompt_length=1024, response_length=16384, train_batch_size=256)
    found = estimate(arch, plan)
    assert found.engine_gib == pytest.approx(0.9 * 140.4)
    short = estimate(arch, replace(plan, response_length=1024, train_batch_size=16))  # 16 fit the pool: their need
    assert short.engine_gib < 0.5 * 140.4
    sglang = estimate(arch, replace(plan, engine="sglang"))
    assert sglang.engine_gib == pytest.approx(0.88 * 140.4)
    # the floor keeps the least an engine can hold: its weights and one sequence's KV cache
    assert found.floor.engine_claim < 10 * 2**30


def test_nemo_rls_dtensor_tensor_parallelism_splits_the_vocabulary() -> None:
    # NVIDIA-NeMo/RL@7ea279a nemo_rl/models/dtensor/parallelize.py:189 shards the output head on the
    # vocabulary (ColwiseParallel(output_layouts=Shard(-1))); log-probs come from the vocab-parallel logits
    arch = bundled("Qwen3-32B")
    assert arch is not None
    run = Run(framework="nemo-rl", train_tp=Found(8, Origin.SET))
    plan = plan_for_row(Row("Qwen3-32B", None, "", "GRPO", 64, "fsdp", "vllm"), run, "H100", DEVICES["H100"])
    assert plan.vocab_parallel and plan.train_tp == 8
    plan = replace(plan, prompt_length=24576, response_length=24576)

    def logits(p: Plan) -> float:
        update = next(m for m in estimate(arch, p).expected.moments if m.name == "the actor's update")
        return sum(t.bytes for t in update.terms if t.name.startswith("logits"))

    assert logits(plan) == pytest.approx(logits(replace(plan, vocab_parallel=False)) / 8)
    # verl's FSDP has no tensor parallelism of its own to split it
    assert not verl_plan("Qwen3-32B", "H100")[1].vocab_parallel


def test_nemo_rls_log_prob_passes_take_their_own_token_budget() -> None:
    """NeMo-RL's ``logprob_mb_tokens`` defaults to the sequence cap times ``logprob_batch_size``, apart
    from ``train_mb_tokens``: a run that leaves it unsaid scores four sequences' tokens at once where
    its update takes one (PR #3093 lowered the batch to 2 for that), as it says it where it does."""

    def settings(framework: str, **said: Any) -> Run:
        return Run(
            framework=framework,
            dynamic_batch=Found(True, Origin.SET, 1, ""),
            max_token_len_per_gpu=Found(4096, Origin.SET, 1, ""),
            log_prob_micro_batch_per_gpu=Found(4, Origin.SET, 1, ""),
            max_total_length=Found(4096, Origin.SET, 1, ""),
            **{k: Found(v, Origin.SET, 1, "") for k, v in said.items()},
        )

    row = Row("Qwen2.5-7B", None, "7B", "GRPO", 8, "fsdp", "vllm")
    plan = plan_for_row(row, settings("nemo-rl"), "H100", 79.6)
    assert (plan.max_token_len_per_gpu, plan.log_prob_max_token_len_per_gpu) == (4096, 16384)
    written = plan_for_row(row, settings("nemo-rl", log_prob_max_token_len_per_gpu=8192), "H100", 79.6)
    assert written.log_prob_max_token_len_per_gpu == 8192
    assert plan_for_row(row, settings("verl"), "H100", 79.6).log_prob_max_token_len_per_gpu is None

    def logits(found: Plan) -> float:
        moment = next(m for m in estimate(BUNDLED["qwen2.5-7b"], found).expected.moments if "log-prob" in m.name)
        return sum(t.bytes for t in moment.terms if t.name.startswith("logits"))

    assert logits(plan) == pytest.approx(4 * logits(replace(plan, log_prob_max_token_len_per_gpu=4096)))


def test_megatron_brings_its_offloaded_parameters_back_even_with_a_cpu_optimizer() -> None:
    """Megatron computes with its parameters on the GPU: with Adam on the host (``compute``) the
    parameters still come back for each phase, while the optimizer's states never do; an FSDP2
    trainer offloaded in ``compute`` mode keeps both, and its gradients, on the host."""
    arch = BUNDLED["qwen2.5-7b"]
    plan = Plan(
        task="GRPO", gpus=4, device="H100", device_gib=DEVICES["H100"], train_backend="megatron", train_tp=4,
        param_offload=True, optimizer_offload=True, offload_mode="compute", param_bytes=2,
    )  # fmt: skip
    update = next(m for m in estimate(arch, plan).floor.moments if m.name.startswith("the actor's update"))
    names = [t.name for t in update.terms]
    assert any(n.startswith("actor parameters") and n.endswith("<- host") for n in names)
    assert not any(n.startswith("optimizer states") for n in names)
    assert any(n.startswith("gradients") for n in names)
    fsdp = replace(plan, train_backend="fsdp", train_tp=1)
    fsdp_update = next(m for m in estimate(arch, fsdp).floor.moments if m.name.startswith("the actor's update"))
    assert not any(t.name.startswith(("actor parameters", "gradients")) for t in fsdp_update.terms)
