"""The SkyRL adapter over tests/frameworks/skyrl: placement rules, defaults, delegation and old spellings.

Every value each fixture settles is asserted, and every other one must stay unknown.
"""

from __future__ import annotations

from framework_fixtures import kinds, pass_logits, read, roles, settled

from sphinx_rlresources.scripts.frameworks import read_run
from sphinx_rlresources.scripts.run import Origin

#: What SkyRL's config.py defaults to, for the settings none of the fixtures below writes.
DEFAULTS = {
    "ulysses_sp": 1,
    "lora_rank": 0,
    "algorithm": "grpo",
    "use_kl": True,
    "critic": False,
    "prompt_length": 512,
    "response_length": 1024,
    "train_batch_size": 1024,
    "mini_batch_size": 256,
    "micro_batch_per_gpu": 1,
    "log_prob_micro_batch_per_gpu": 1,
    "dynamic_batch": False,
    "rollout_n": 5,
    "param_offload": False,
    "gradient_checkpointing": True,
    "remove_padding": True,
    "engine": "vllm",
    "rollout_tp": 1,
    "memory_fraction": 0.8,
    "max_num_seqs": 1024,
    "model": "Qwen/Qwen2.5-1.5B-Instruct",
    "train_backend": "fsdp",
}


def gsm8k(**changes: object) -> dict[str, object]:
    return {
        **DEFAULTS,
        "gpus": 4,
        "nodes": 1,
        "gpus_per_node": 4,
        "colocated": True,
        "model": "Qwen/Qwen2.5-0.5B-Instruct",
        "prompt_length": 256,
        "response_length": 512,
        "train_batch_size": 256,
        "rollout_n": 4,
        "memory_fraction": 0.7,
        **changes,
    }


def test_assign_default_idiom_settles_the_gpus_without_unset_errors() -> None:
    run = read("skyrl", "examples/train/gsm8k/run_gsm8k.sh")
    settled(run, gsm8k())
    assert run.framework == "skyrl" and run.entry_point == "skyrl.train.entrypoints.main_base"
    assert run.gpus_per_node.origin is Origin.SCRIPT_DEFAULT  # `: "${NUM_GPUS:=4}"`
    assert run.nodes.origin is Origin.FRAMEWORK_DEFAULT and run.nodes.line == 0
    assert run.engine.origin is Origin.SCRIPT_DEFAULT  # `: "${BACKEND:=vllm}"`
    assert run.model.origin is Origin.SET and run.model.line == 13
    assert run.problems == ()  # no "does not set $NUM_GPUS"
    assert roles(run) == [
        ("trainer", 4, 1, 4, ""),
        ("rollout", 4, 1, 4, "trainer"),
        ("reference", 4, 1, 4, "trainer"),
    ]


def test_the_environment_overrides_the_documented_default() -> None:
    run = read("skyrl", "examples/train/gsm8k/run_gsm8k.sh", env={"NUM_GPUS": "2"})
    assert (run.gpus.value, run.gpus_per_node.value, run.gpus_per_node.origin) == (2, 2, Origin.ENV)


def test_a_delegating_script_is_read_through_its_callee_and_its_overrides_win() -> None:
    run = read("skyrl", "examples/train/algorithms/gspo/run_gspo.sh")
    settled(run, gsm8k(rollout_n=8))
    assert (run.rollout_n.line, run.rollout_n.file) == (7, "")  # the caller's own line
    assert (run.model.line, run.model.file) == (13, "examples/train/gsm8k/run_gsm8k.sh")
    assert run.problems == ()  # overriding the callee is the point, not a duplicate


def test_without_files_the_delegated_launch_is_not_followed() -> None:
    run = read("skyrl", "examples/train/algorithms/gspo/run_gspo.sh", files=False)
    assert run.framework is None and run.gpus.value is None


def test_megatron_per_node_gpus_times_nodes() -> None:
    run = read("skyrl", "examples/train/megatron/run_megatron_moe.sh")
    settled(
        run,
        {**DEFAULTS, "param_offload": None, "ulysses_sp": None},
        gpus=16,
        nodes=2,
        gpus_per_node=8,
        colocated=True,
        train_backend="megatron",
        train_tp=4,
        train_pp=2,
        train_ep=8,
        train_cp=1,
        lora_rank=16,
        model="Qwen/Qwen3-30B-A3B",
        use_kl=False,
        rollout_tp=8,
    )
    assert run.gpus.origin is Origin.DERIVED
    assert roles(run) == [("trainer", 16, 2, 8, ""), ("rollout", 16, 2, 8, "trainer")]  # no KL: no reference


def test_not_colocated_adds_the_engines_and_shares_the_reference() -> None:
    run = read("skyrl", "examples/train/fully_async/run_async.sh")
    settled(run, DEFAULTS, gpus=4, colocated=False)  # nodes: Ray places the pools, unknown
    assert run.entry_point == "examples.train.fully_async.main_fully_async"
    assert roles(run) == [
        ("trainer", 2, 1, 2, ""),
        ("reference", 2, 1, 2, "trainer"),
        ("rollout", 2, None, None, ""),
    ]
    assert kinds(run) == [(15, "deprecated", "warning")]  # trainer.strategy=fsdp2


def test_ppo_with_a_separate_reference_and_critic() -> None:
    run = read("skyrl", "examples/train/ppo/run_ppo_disagg.sh")
    settled(
        run,
        DEFAULTS,
        gpus=8,
        colocated=False,
        algorithm="gae",
        critic=True,
        dynamic_batch=True,
        max_token_len_per_gpu=8192,
    )
    assert roles(run) == [
        ("trainer", 2, 1, 2, ""),
        ("reference", 1, 1, 1, ""),
        ("critic", 2, 1, 2, ""),
        ("rollout", 3, None, None, ""),
    ]
    assert kinds(run) == [(17, "duplicate", "warning")]


def test_engines_run_elsewhere_leave_the_total_unknown() -> None:
    run = read("skyrl", "examples/train/remote/run_remote.sh")
    settled(run, DEFAULTS, colocated=False, rollout_tp=4)
    assert run.gpus.value is None and run.gpus.origin is not Origin.DERIVED
    assert roles(run) == [
        ("trainer", 4, 1, 4, ""),
        ("reference", 4, 1, 4, "trainer"),
        ("rollout", None, None, None, ""),
    ]


def test_external_engines_written_out_are_counted() -> None:
    run = read("skyrl", "examples/train/remote/run_remote_counted.sh")
    settled(run, DEFAULTS, gpus=8, colocated=False, use_kl=False, rollout_tp=2)
    assert run.entry_point == "examples.train.remote.main_remote"  # "$PYTHON_BIN" -m "$ENTRYPOINT"
    assert roles(run) == [("trainer", 4, 1, 4, ""), ("rollout", 4, None, None, "")]


def test_the_old_package_and_keys_are_read_and_reported() -> None:
    run = read("skyrl", "legacy/examples/run_gsm8k_legacy.sh")
    settled(run, DEFAULTS, gpus=8, nodes=1, gpus_per_node=8, colocated=True, rollout_tp=2)
    assert run.entry_point == "skyrl_train.entrypoints.main_base"
    assert run.rollout_tp.line == 9  # generator.inference_engine_tensor_parallel_size=2
    assert run.deprecated == (
        "generator.num_inference_engines",
        "generator.inference_engine_tensor_parallel_size",
        "generator.backend",
    )
    assert kinds(run) == [
        (8, "deprecated", "warning"),
        (9, "deprecated", "warning"),
        (10, "deprecated", "warning"),
        (5, "deprecated", "warning"),
        (11, "other", "error"),  # +generator.extra_key: SkyRL rejects '+'
    ]


def test_sft_entry_point_has_its_own_placement_and_defaults() -> None:
    run = read("skyrl", "examples/train/sft/run_sft.sh")
    settled(
        run,
        gpus=2,
        nodes=1,
        gpus_per_node=2,
        train_backend="megatron",
        train_tp=2,
        train_pp=1,
        train_cp=1,
        lora_rank=0,
        model="Qwen/Qwen2.5-0.5B-Instruct",
        algorithm="sft",
        critic=False,
    )
    assert run.train_backend.origin is Origin.FRAMEWORK_DEFAULT  # sft_config.py:152
    assert roles(run) == [("trainer", 2, 1, 2, "")]


def test_a_case_nested_in_a_case_inside_a_loop_is_read() -> None:
    run = read("skyrl", "examples/train/thunder/cleanup.sh")  # used to raise IndexError
    settled(run)
    assert run.framework is None


class Tree:
    """A fake :class:`Files`: a few scripts by their path from the root."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def read(self, path: str) -> str | None:
        return self.files.get(path)


def test_delegation_through_the_scripts_own_folder() -> None:
    """``bash "$SCRIPT_DIR/x.sh"``: the folder is only known at run time, the file beside the script is read."""
    caller = (
        'SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"\n'
        'bash "$SCRIPT_DIR/run_base.sh" generator.n_samples_per_prompt=2 "$@"\n'
    )
    base = "uv run -m skyrl.train.entrypoints.main_base trainer.placement.policy_num_gpus_per_node=2 \\\n  $@\n"
    tree = Tree({"examples/sync/run_base.sh": base})
    run = read_run(caller, "examples/sync/run_caller.sh", files=tree)
    assert (run.framework, run.gpus.value, run.rollout_n.value, run.rollout_n.line) == ("skyrl", 2, 2, 2)
    assert read_run(caller, "examples/sync/run_caller.sh").framework is None  # no Files: not followed


# The launch idiom of NovaSky-AI/SkyRL@a956457:examples/train/gsm8k/run_gsm8k.sh (uv run -m with Hydra
# overrides); skyrl-train's own spelling of the packing switch was trainer.use_sample_packing.
PACKING = """\
uv run --isolated --extra fsdp -m skyrl.train.entrypoints.main_base \\
  trainer.placement.colocate_all=true trainer.placement.policy_num_gpus_per_node=4 \\
  {key}=false
"""


def test_microbatch_padding_is_removed_unless_said_in_either_spelling() -> None:
    for key in ("trainer.remove_microbatch_padding", "trainer.use_sample_packing"):
        run = read_run(PACKING.format(key=key), "examples/train/x.sh")
        assert (run.remove_padding.value, run.remove_padding.origin, run.remove_padding.line) == (False, Origin.SET, 3)
    said = read_run(PACKING.format(key="trainer.gradient_checkpointing"), "examples/train/x.sh")
    assert (said.remove_padding.value, said.remove_padding.origin) == (True, Origin.FRAMEWORK_DEFAULT)


def test_skyrls_log_prob_passes_score_without_the_entropy() -> None:
    """``_forward_micro_batch`` leaves ``compute_entropy`` at False; verl's pass computes it."""
    assert pass_logits("skyrl", "Qwen2.5-1.5B", "fsdp", "vllm") == ["logits for log-probs"]
    assert pass_logits("verl", "Qwen2.5-1.5B", "fsdp", "vllm") == ["logits for log-probs and entropy"]
