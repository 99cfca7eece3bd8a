"""EasyR1: ``python3 -m verl.trainer.main config=… key=value``, named EasyR1 (not verl), its config read.

The fixtures (tests/frameworks/easyr1/) are written in EasyR1's idiom and cite the
public files of hiyouga/EasyR1 that taught it.
"""

from __future__ import annotations

from framework_fixtures import read, values

from sphinx_rlresources.estimator.architectures import bundled
from sphinx_rlresources.estimator.devices import DEVICES
from sphinx_rlresources.estimator.fromscript import Row, plan_for_row
from sphinx_rlresources.estimator.memory import estimate
from sphinx_rlresources.scripts.frameworks import read_file
from sphinx_rlresources.scripts.run import Origin

LORA = "examples/qwen3_4b_math_grpo_lora.sh"
TWO_NODES = "examples/qwen2_5_vl_32b_geo3k_grpo_2nodes.sh"


def test_easyr1_is_named_and_read_with_its_config_under_the_overrides() -> None:
    run = read("easyr1", LORA)
    assert (run.framework, run.entry_point, run.launch_line) == ("easyr1", "verl.trainer.main", 8)
    found = values(run)
    assert {k: found[k] for k in ("gpus", "nodes", "gpus_per_node", "engine", "train_backend", "model")} == {
        "gpus": 2,
        "nodes": 1,
        "gpus_per_node": 2,
        "engine": "vllm",
        "train_backend": "fsdp",
        "model": "Qwen/Qwen3-4B",
    }
    assert (found["lora_rank"], found["rollout_tp"], found["response_length"]) == (64, 1, 4096)  # overrides win
    assert (found["prompt_length"], found["rollout_n"], found["memory_fraction"]) == (2048, 5, 0.6)  # the config's
    assert (run.nodes.file, run.nodes.line, run.nodes.written) == ("examples/config.yaml", 33, "trainer.nnodes: 1")
    assert run.engine.origin is Origin.FRAMEWORK_DEFAULT


def test_the_gpus_line_is_the_scripts_when_the_script_writes_a_part() -> None:
    run = read("easyr1", TWO_NODES)
    assert (run.gpus.value, run.nodes.value, run.gpus_per_node.value) == (16, 2, 8)
    assert (run.gpus.line, run.gpus.file) == (13, "")
    assert (run.gpus_per_node.file, run.gpus_per_node.line) == ("examples/config.yaml", 32)
    assert run.lora_rank.value is None  # neither the script nor the config says: unknown, not 0


def test_without_its_config_what_the_overrides_leave_out_is_unknown() -> None:
    run = read("easyr1", TWO_NODES, files=False)
    assert (run.framework, run.gpus.value, run.nodes.value, run.gpus_per_node.value) == ("easyr1", None, 2, None)
    assert run.model.value == "Qwen/Qwen2.5-VL-32B-Instruct"


def test_the_config_on_its_own_is_easyr1s() -> None:
    run = read("easyr1", "examples/config.yaml")
    assert (run.framework, run.gpus.value, run.nodes.value, run.model.value) == (
        "easyr1",
        8,
        1,
        "Qwen/Qwen2.5-7B-Instruct",
    )


def test_verls_own_trainer_is_still_verl() -> None:
    run = read_file("python3 -m verl.trainer.main_ppo trainer.n_gpus_per_node=8 trainer.nnodes=1\n", "x.sh")
    assert run.framework == "verl"


def test_an_invalid_config_is_a_warning_and_its_settings_unknown() -> None:
    class Files:
        def read(self, path: str) -> str | None:
            return "worker: [unclosed\n" if path == "bad.yaml" else None

    run = read_file("python3 -m verl.trainer.main config=bad.yaml trainer.nnodes=1\n", "x.sh", None, Files())
    assert (run.framework, run.gpus_per_node.value, run.nodes.value) == ("easyr1", None, 1)
    assert [(p.line, p.severity) for p in run.problems] == [(1, "warning")]
    assert "bad.yaml is not valid YAML" in run.problems[0].message


def test_easyr1s_actor_is_fp32_and_its_offload_brings_the_states_back_for_each_phase() -> None:
    """EasyR1 keeps verl's fp32 actor and its manual offload (hiyouga/EasyR1 ``fsdp_workers.py``:
    ``load_fsdp_model`` and ``load_fsdp_optimizer`` before the update), not FSDP's CPU offload."""
    run = read("easyr1", "examples/config.yaml")
    assert (run.param_offload.value, run.optimizer_offload.value) == (True, True)
    row = Row("Qwen2.5-7B", None, "", "GRPO", 8, "fsdp", "vllm")
    plan = plan_for_row(row, run, "H100", DEVICES["H100"])
    assert (plan.offload_mode, plan.param_bytes) == ("phase", 4)
    arch = bundled("Qwen2.5-7B")
    assert arch is not None
    update = next(m for m in estimate(arch, plan).expected.moments if m.name == "the actor's update")
    back = {t.name: t.bytes for t in update.terms if t.name.endswith("<- host")}
    assert back["actor parameters (fp32, sharded) <- host"] == 4 * arch.params() / 8
    assert any(name.startswith("optimizer states") for name in back)
    silent = plan_for_row(row, read_file("python3 -m verl.trainer.main trainer.nnodes=1\n", "x.sh"), "H100", 80.0)
    assert silent.memory_fraction == 0.6  # worker.rollout.gpu_memory_utilization's default
