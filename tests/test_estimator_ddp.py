"""Plain PyTorch trainers: DDP and one process keep every state whole on each GPU, with no master copy.

accelerate launches DDP on several GPUs unless a DeepSpeed or FSDP config says otherwise
(``accelerate/commands/launch.py``, ``_validate_launch_command``): each GPU holds the whole
model, its gradients and Adam's moments, all in the dtype the model was loaded in, and
nothing can be offloaded.  TRL's own scripts load in ModelConfig's ``dtype``, ``float32``
unless said (``trl/trainer/model_config.py:89-90`` at huggingface/trl@f2cd577); releases
before v0.23 spelled it ``--torch_dtype``.
"""

from __future__ import annotations

import json

import pytest

from sphinx_rlresources.cli.main import main as rlresources
from sphinx_rlresources.estimator.architectures import bundled
from sphinx_rlresources.estimator.fromscript import Row, plan_for_row
from sphinx_rlresources.estimator.memory import estimate
from sphinx_rlresources.estimator.plan import Plan
from sphinx_rlresources.estimator.suggest import suggest
from sphinx_rlresources.scripts.frameworks import read_run
from sphinx_rlresources.scripts.run import Origin

# The idiom of huggingface/trl@f2cd577:docs/source/grpo_trainer.md and examples/scripts/grpo_vlm.py's
# docstring (accelerate launch with TRL's script and its flags), here with DDP said by --multi_gpu.
DDP = """\
accelerate launch --multi_gpu --num_processes 4 trl/scripts/grpo.py \\
    --model_name_or_path Qwen/Qwen2.5-7B --dataset_name trl-lib/DeepMath-103K \\
    --per_device_train_batch_size 2 --num_generations 8 {dtype}
"""
QWEN = bundled("Qwen2.5-7B")
assert QWEN is not None
PARAMS = QWEN.params()


def plan_of(script: str) -> Plan:
    run = read_run(script, "train.sh")
    return plan_for_row(Row("Qwen2.5-7B", None, "7b", "GRPO", 4, "", ""), run, "H100", 79.6)


def resident(plan: Plan, floor: bool = False) -> dict[str, float]:
    found = estimate(QWEN, plan)
    figure = found.floor if floor else found.expected
    return {term.name: term.bytes for term in figure.resident}


def test_ddp_keeps_a_whole_copy_on_each_gpu_without_a_master() -> None:
    plan = plan_of(DDP.format(dtype="--dtype bfloat16"))
    assert (plan.zero_stage, plan.master_weights, plan.param_bytes) == (0, False, 2)
    assert not (plan.param_offload or plan.optimizer_offload)
    terms = resident(plan)
    assert terms["actor parameters (bf16, a full copy per GPU)"] == 2 * PARAMS
    assert terms["optimizer states (Adam m and v, bf16; a full copy per GPU)"] == 4 * PARAMS
    # Said, DDP is no default: the floor cannot shard or offload either.
    assert not {name for name, _ in plan.floor_values} & {"zero_stage", "param_offload", "optimizer_offload"}
    assert resident(plan, floor=True) == terms


def test_trls_own_script_loads_fp32_unless_told_and_the_floor_keeps_bf16() -> None:
    plan = plan_of(DDP.format(dtype=""))
    assert (plan.param_bytes, plan.master_weights) == (4, False)
    assert ("param_bytes", 2) in plan.floor_values
    assert "param_bytes" in plan.framework_defaults
    terms = resident(plan)
    assert terms["actor parameters (fp32, a full copy per GPU)"] == 4 * PARAMS
    assert terms["optimizer states (Adam m and v; a full copy per GPU)"] == 8 * PARAMS
    assert sum(resident(plan, floor=True).values()) == 6 * PARAMS  # bf16 parameters and moments
    old = read_run(DDP.format(dtype="--torch_dtype bfloat16"), "train.sh")  # before v0.23
    assert (old.param_dtype.value, old.param_dtype.origin) == ("bfloat16", Origin.SET)


def test_a_sharded_backend_keeps_its_master_whatever_the_dtype() -> None:
    script = DDP.format(dtype="").replace("--multi_gpu", "--use_deepspeed --zero_stage 3")
    plan = plan_of(script)
    assert (plan.zero_stage, plan.master_weights, plan.param_bytes) == (3, True, 2)


def test_estimate_takes_trls_default_ddp_and_zero_stage_says_otherwise(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["estimate", "--model", "Qwen2.5-7B", "--device", "H100", "--gpus", "4", "--framework", "trl"]
    assert rlresources([*argv, "--format", "json"]) == 0
    said = json.loads(capsys.readouterr().out)["assumptions"]
    assert (said["zero_stage"]["value"], said["master_weights"]["value"]) == (0, False)
    assert said["zero_stage"]["framework_default"] and said["master_weights"]["framework_default"]
    assert rlresources([*argv, "--zero-stage", "3", "--format", "json"]) == 0
    said = json.loads(capsys.readouterr().out)["assumptions"]
    assert (said["zero_stage"]["value"], said["master_weights"]["value"]) == (3, True)
    assert rlresources([*argv, "--zero-stage", "4"]) == 2
    assert "--zero-stage: invalid choice: 4" in capsys.readouterr().err


def test_no_engine_share_is_suggested_where_no_engine_runs(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["estimate", "--model", "Qwen2.5-0.5B", "--device", "H100", "--gpus", "1", "--framework", "trl"]
    assert rlresources([*argv, "--suggest", "--format", "json"]) == 0
    suggestion = json.loads(capsys.readouterr().out)["suggest"]
    assert "memory_fraction" not in [s["setting"] for s in suggestion["settings"]]


def test_a_suggestion_that_shards_or_offloads_leaves_plain_pytorch_for_a_master_copy() -> None:
    qwen14 = bundled("Qwen2.5-14B")
    assert qwen14 is not None
    run = read_run(DDP.format(dtype="--dtype bfloat16").replace("Qwen2.5-7B", "Qwen2.5-14B"), "train.sh")
    plan = plan_for_row(Row("Qwen2.5-14B", None, "14b", "GRPO", 4, "", ""), run, "H100", 79.6)
    found = suggest(qwen14, plan)
    assert found is not None
    assert {s.name for s in found.settings} & {"param_offload", "optimizer_offload", "zero_stage"}
    assert found.plan.master_weights  # DeepSpeed's bf16 optimizer: 12 bytes of master and moments
    names = [t.name for t in [*found.result.expected.resident, *found.result.expected.host]]
    assert any(name.startswith("optimizer states (fp32 master") for name in names)
    # A batch alone keeps it plain.
    small = suggest(QWEN, plan_of(DDP.format(dtype="--dtype bfloat16")))
    assert small is not None and not small.plan.master_weights
