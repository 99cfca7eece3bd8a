"""prime-rl's trainer memory as its source keeps it (issue 37): the facts of ``primevocab``, each checked.

PR #3234 of PrimeIntellect-ai/prime-rl published the trainer's peak HBM for Qwen3-30B-A3B on
one 8xH200 node from 8K to 64K tokens, with the optimizer on the GPU and with ``full_offload``
(benchmarks/heldout_runs.csv).  Read as verl's trainer, those rows were 0.68x to 2.55x off: the
states never came back for ``step()``, every token's logits were counted, the checkpointed
layer inputs stayed on the GPU and full offload kept nothing there.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any

import pytest
from conftest import REPO

from sphinx_rlresources.estimator.architectures import Architecture, bundled
from sphinx_rlresources.estimator.fromscript import Row, plan_for_row
from sphinx_rlresources.estimator.memory import estimate
from sphinx_rlresources.estimator.pertoken import OFFLOADED_INPUTS, RECOMPUTED_BYTES
from sphinx_rlresources.estimator.phases import COMPUTE_COPY_TERM
from sphinx_rlresources.estimator.plan import GIB, Estimate, Moment, Plan
from sphinx_rlresources.scripts.run import Found, Origin, Run

sys.path.insert(0, str(REPO / "benchmarks"))  # the validation is dev-only code: it lives with the benchmarks

from estimator_validation import checked

MODEL = "Qwen3-30B-A3B"


def arch() -> Architecture:
    found = bundled(MODEL)
    assert found is not None
    return found


def plan(framework: str = "prime-rl", tokens: int = 8192, **said: Any) -> Plan:
    """A trainer-only run of the PR's shape: one sequence of ``tokens`` per GPU, 8 H200s."""
    settings = {name: Found(value, Origin.SET) for name, value in said.items()}
    run = Run(
        framework=framework,
        prompt_length=Found(1024, Origin.SET),
        response_length=Found(tokens - 1024, Origin.SET),
        **settings,
    )
    return plan_for_row(Row(MODEL, None, "30b", "GRPO", 8, "fsdp", "none"), run, "H200", 140.4)


def moment(found: Estimate, name: str) -> Moment:
    return next(m for m in found.moments if m.name == name)


def test_state_offload_brings_the_states_back_for_the_step_alone() -> None:
    """``optim_cpu_offload`` (on by default): ``CPUOffloadOptimizer`` moves the states to the GPU
    for ``step()`` only, after backward freed the activations (state_offload.py:10-16)."""
    found = plan()
    assert found.offload_mode == "step" and found.optimizer_offload and not found.param_offload
    expected = estimate(arch(), found).expected
    step = moment(expected, "the optimizer step")
    names = [t.name for t in step.terms]
    assert any(n.startswith("optimizer states") and n.endswith("<- host") for n in names)
    assert any(n.startswith("gradients") for n in names)
    assert not any(n.startswith(("activations", "logits")) for n in names)
    update = moment(expected, "the actor's update")
    assert not any(t.name.startswith("optimizer states") for t in update.terms)
    # the fixed-size moment is the peak at 8K: fp32 parameters, gradients and Adam's moments, 16 bytes each
    assert expected.peak is not None and expected.peak.name == "the optimizer step"
    assert expected.peak_gib >= 16 * arch().params() / 8 / GIB
    # verl's offload by phase keeps the states through the whole update instead
    verl = estimate(arch(), replace(found, offload_mode="phase")).expected
    assert not any(m.name == "the optimizer step" for m in verl.moments)


def test_the_fused_lm_head_holds_one_chunk_whatever_the_length() -> None:
    """``fused_lm_head_token_chunk_size`` (8192 tokens) over at most 8192 vocabulary entries at a
    time (lm_head.py:114,134-135): the logits never span every token and the whole vocabulary."""
    shape = arch()
    short, long = (estimate(shape, plan(tokens=t)).expected for t in (8192, 65536))
    for found in (short, long):
        logits = [t for t in moment(found, "the actor's update").terms if t.name.startswith("logits")]
        assert [t.bytes for t in logits] == [4 * 8192 * min(shape.vocab, 8192)]
    verl = plan(framework="verl", tokens=65536)
    assert verl.logit_chunk is None and not verl.fused_kernels
    assert estimate(shape, verl).expected.train_gib > long.train_gib


def test_activation_offload_keeps_one_layer_input_on_the_gpu() -> None:
    """``ac_offloading`` (on by default) offloads every saved tensor of the forward -- the
    checkpointed blocks' inputs -- to pinned host memory (act_offloading.py:116-160)."""
    shape, found = arch(), plan(tokens=65536)
    assert found.activation_offload and not plan(framework="verl").activation_offload
    offloaded = estimate(shape, found).expected
    kept = estimate(shape, replace(found, activation_offload=False)).expected
    one_layer = RECOMPUTED_BYTES * shape.hidden * 65536
    saved = moment(kept, "the actor's update").total(0) - moment(offloaded, "the actor's update").total(0)
    runtime = 0.46 * one_layer * (shape.layers - 1)  # the allocator's reserve follows the per-token terms
    assert saved == pytest.approx(one_layer * (shape.layers - 1) + runtime, rel=1e-6)
    host = [t for t in offloaded.host if t.name.startswith(OFFLOADED_INPUTS)]
    assert [t.bytes for t in host] == [one_layer * shape.layers * 8]


def test_a_run_that_says_its_activation_offload_is_taken_at_its_word() -> None:
    """``ac_offloading`` defaulted to None before prime-rl turned it on (config.py:146-151 at bceb0cc):
    a run, a flag or a validation row that says it overrides the vocabulary's default, either way."""
    assert plan().activation_offload and "activation_offload" in plan().framework_defaults
    off = plan(activation_offload=False)
    assert not off.activation_offload and "activation_offload" not in off.framework_defaults
    assert plan(framework="verl", activation_offload=True).activation_offload
    said = Run(activation_offload=Found(True, Origin.SET))
    megatron = plan_for_row(Row(MODEL, None, "30b", "GRPO", 8, "megatron", "none"), said, "H200", 140.4)
    assert not megatron.activation_offload and "activation_offload=True" in megatron.ignored  # named, not taken


def test_full_offload_keeps_the_bf16_compute_weights_and_steps_on_the_cpu() -> None:
    """``full_offload``: masters, gradients and Adam's moments on the host, AdamW on the CPU, the
    model cast to bf16 on the GPU (offload.py:1554)."""
    shape = arch()
    full = plan(param_offload=True, optimizer_offload=True, compute_copy=True)
    expected = estimate(shape, full).expected
    copy = [t.bytes for t in expected.resident if t.name == COMPUTE_COPY_TERM]
    assert copy == [2 * shape.params() / 8]
    assert not any(m.name == "the optimizer step" for m in expected.moments)
    assert not any(t.name.startswith("gradients") for m in expected.moments for t in m.terms)
    fsdp_offload = estimate(shape, replace(full, compute_copy=False)).expected  # fsdp_cpu_offload: no copy
    assert not fsdp_offload.resident


def test_the_pr_3234_table_is_within_reach() -> None:
    """The held-out rows of the PR's table: the optimizer-on-GPU sweep within 30% at every length,
    and the 64K full-offload row no longer counted at 2.55x what it measured."""
    rows = {c.point.id: c for c in checked(REPO / "benchmarks" / "heldout_runs.csv")}
    table = {i: c for i, c in rows.items() if i.startswith("primerl-qwen3-30b-a3b-")}
    assert len(table) == 6
    for name, found in table.items():
        assert found.ratio is not None and found.ratio <= 1.3, name
        assert found.floor_gib <= (found.point.measured_gib or 0), name
        if not name.endswith("full-offload"):
            assert found.ratio >= 0.7, name
            assert found.result.verdict == "fits", name


def test_a_full_offload_config_is_estimated_with_its_bf16_weights() -> None:
    """The reader's ``full_offload`` reaches the estimate: no optimizer step on the GPU, the bf16 copy resident."""
    from framework_fixtures import read

    run = read("primerl", "examples/full-offload/sft.toml")
    found = plan_for_row(Row("Qwen3-4B", None, "4b", "SFT", 8, "fsdp", "none"), run, "H200", 140.4)
    assert (found.param_offload, found.optimizer_offload, found.compute_copy) == (True, True, True)
    expected = estimate(bundled("Qwen3-4B") or arch(), found).expected
    assert [t.name for t in expected.resident] == [COMPUTE_COPY_TERM]
    assert not any(m.name == "the optimizer step" for m in expected.moments)
