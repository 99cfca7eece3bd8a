"""prime-rl: its TOML configs and ``uv run rl @ …`` launches, read over tests/frameworks/primerl.

The fixtures are written in prime-rl's idiom and cite the public files of
PrimeIntellect-ai/prime-rl that taught it.  Every value each fixture settles is
asserted, and every other one must stay unknown.
"""

from __future__ import annotations

import pytest
from framework_fixtures import read, roles, settled

from sphinx_rlresources.safe.tomlsafe import MAX_DEPTH, TomlError, load
from sphinx_rlresources.scripts.frameworks import read_file
from sphinx_rlresources.scripts.frameworks.primerl import SFT_TABLE, TABLE, read_toml
from sphinx_rlresources.scripts.run import Origin

RL_DEFAULTS = {
    "train_backend": "fsdp",
    "engine": "vllm",
    "colocated": False,
    "algorithm": "grpo",
    "train_cp": 1,
    "param_offload": False,
    "optimizer_offload": True,  # optim_cpu_offload: the states in host memory (trainer.py:200)
    "rollout_tp": 1,
    "memory_fraction": 0.9,
    "max_total_length": 2048,
    "lora_rank": 0,
}
"""What prime-rl's config classes give a run whose files do not say it."""


def test_a_single_node_rl_config_adds_trainer_and_inference_gpus() -> None:
    run = read("primerl", "examples/reverse-text/rl.toml")
    assert run.framework == "prime-rl" and run.launch_line == 0
    settled(
        run,
        RL_DEFAULTS,
        gpus=8,
        nodes=1,
        gpus_per_node=8,
        model="Qwen/Qwen3-1.7B",
        lora_rank=32,
        max_total_length=4096,
        response_length=1024,
        train_batch_size=32,  # 256 samples / 8 per example
        rollout_n=8,
        rollout_tp=2,
        memory_fraction=0.7,
    )
    assert roles(run) == [("trainer", 2, 1, 2, ""), ("rollout", 6, 1, 6, "")]
    assert (run.gpus.line, run.model.line, run.lora_rank.line) == (12, 9, 26)
    assert run.train_backend.origin is Origin.FRAMEWORK_DEFAULT and "model.py:22" in run.train_backend.written
    assert "trainer.py:224" in run.train_cp.written  # every default cites the config class's line


def test_a_multi_node_rl_config_takes_inference_nodes_from_the_inference_deployment() -> None:
    run = read("primerl", "examples/multi-node/rl.toml")
    settled(
        run,
        RL_DEFAULTS,
        gpus=40,  # (3 train + 2 inference nodes) × 8
        nodes=5,
        gpus_per_node=8,
        model="Qwen/Qwen3-30B-A3B",
        max_total_length=16384,
        train_ep=8,
        train_cp=2,
        rollout_tp=8,
        algorithm="grpo",
        # a train source sets its own group_size: the run's is not one number, nor its prompts per step
        rollout_n=None,
        train_batch_size=None,
    )
    assert roles(run) == [("trainer", 24, 3, 8, ""), ("rollout", 16, 2, 8, "")]
    assert "rl.py:173" in run.gpus_per_node.written


def test_configs_of_the_gpu_id_generation_count_distinct_ids() -> None:
    run = read("primerl", "examples/old-ids/rl.toml")
    settled(
        run,
        RL_DEFAULTS,
        gpus=6,
        nodes=1,
        gpus_per_node=6,
        model="deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B",
        response_length=8192,
        rollout_n=8,
        train_batch_size=8,
    )
    assert roles(run) == [("trainer", 2, 1, 2, ""), ("rollout", 4, 1, 4, "")]


def test_an_sft_config_and_its_eval_server() -> None:
    run = read("primerl", "examples/sft/sft.toml")
    settled(
        run,
        gpus=6,
        nodes=1,
        gpus_per_node=6,
        train_backend="fsdp",
        model="Qwen/Qwen3-4B",
        lora_rank=0,
        algorithm="sft",
        max_total_length=8192,
        train_batch_size=64,
        micro_batch_per_gpu=2,
        train_cp=1,
        param_offload=False,
        optimizer_offload=True,
    )
    assert roles(run) == [("trainer", 4, 1, 4, ""), ("eval", 2, 1, 2, "")]


def test_a_components_config_alone_settles_its_section_not_the_gpus() -> None:
    trainer = read("primerl", "k8s/train.toml")
    settled(
        trainer,
        gpus=None,
        train_backend="fsdp",
        model="Qwen/Qwen3-0.6B-Base",
        max_total_length=1024,
        lora_rank=0,
        train_cp=1,
        param_offload=False,
        optimizer_offload=True,
    )
    assert trainer.gpus.origin is Origin.RUNTIME
    orchestrator = read("primerl", "k8s/orch.toml")
    settled(
        orchestrator,
        model="Qwen/Qwen3-0.6B-Base",
        max_total_length=1024,
        response_length=256,
        algorithm="grpo",
        rollout_n=4,
        train_batch_size=16,
    )


def test_a_launch_merges_its_files_left_to_right_and_its_flags_win() -> None:
    run = read("primerl", "scripts/run.sh")
    assert (run.framework, run.entry_point, run.launch_line) == ("prime-rl", "rl", 6)
    settled(
        run,
        RL_DEFAULTS,
        gpus=10,  # --deployment.num-train-gpus 4 over the file's 2, + 6
        nodes=1,
        gpus_per_node=10,
        model="Qwen/Qwen3-4B",  # --model.name "$MODEL", the script's default
        lora_rank=32,
        max_total_length=1024,  # --trainer @ k8s/train.toml: the trainer's own seq_len wins over the shared one
        response_length=2048,
        train_batch_size=32,
        rollout_n=8,
        rollout_tp=2,
        memory_fraction=0.7,
    )
    assert (run.model.origin, run.model.line) == (Origin.SCRIPT_DEFAULT, 9)
    assert (run.max_total_length.file, run.max_total_length.line) == ("k8s/train.toml", 7)
    assert (run.lora_rank.file, run.lora_rank.line) == ("examples/reverse-text/rl.toml", 26)
    assert run.problems == ()


def test_a_launch_whose_file_is_missing_takes_no_default_it_could_change() -> None:
    run = read("primerl", "scripts/run-missing.sh")
    assert run.framework == "prime-rl"
    assert (run.gpus.value, run.model.value, run.lora_rank.value, run.algorithm.value) == (None, None, None, None)
    assert "examples/gone/rl.toml" in run.model.written


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('[project]\nname = "x"\n[tool.ruff]\nline-length = 1\n', "top-level keys ('project', 'tool')"),
        ('[model]\nname = "Qwen/Qwen3-4B"\n', "top-level keys ('model')"),  # an inference server's alone: not a run
        ("[model\n", "not valid TOML"),
    ],
)
def test_other_toml_is_not_recognised_saying_why(text: str, why: str) -> None:
    run = read_file(text, "conf/x.toml")
    assert run.framework is None and why in run.unrecognised


def test_a_toml_error_is_a_problem_with_its_line_never_a_traceback() -> None:
    run = read("primerl", "other/broken.toml")
    assert run.unrecognised == "the file is not valid TOML"
    [problem] = run.problems
    assert problem.line == 3 and "column 7" in problem.message and "twice" in problem.message


def test_toml_is_bounded_before_it_is_parsed() -> None:
    with pytest.raises(TomlError, match="nest"):
        load("a = " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    with pytest.raises(TomlError, match="longer than"):
        load("a = 1\n" * 200_000)
    with pytest.raises(TomlError) as err:
        load("a = [\n1,\n")
    assert err.value.line == 3 and "end of the file" in err.value.message
    document = load('x = 1\n[a."b.c"]\nd = "[not a header]"\n[[e]]\nf = 2\n')
    assert document.lines[("a", "b.c", "d")] == 3 and document.line(("e", "f")) == 5
    assert document.line(("a", "b.c", "d", "missing")) == 3  # the nearest key above that is written
    # lines are placed by a linear scan: a long line of spaces once took minutes in a regular expression
    assert load("[" + " " * 200_000 + "x]\n" + "y" + " " * 200_000 + "= 1\n").lines == {("x",): 1, ("x", "y"): 2}


def test_every_setting_default_cites_the_config_class() -> None:
    for name, setting in [*TABLE.settings.items(), *SFT_TABLE.settings.items()]:
        assert setting.default is None or setting.source.endswith(tuple("0123456789")), name


def test_disaggregated_inference_counts_prefill_and_decode_nodes_of_every_replica() -> None:
    run = read("primerl", "examples/disaggregated/rl.toml")
    # (2 × 2 prefill + 3 × 1 decode) × 2 replicas = 14 inference nodes, + 4 training nodes; 8 GPUs each
    assert (run.gpus.value, run.nodes.value, run.gpus_per_node.value) == (144, 18, 8)
    assert roles(run) == [("trainer", 32, 4, 8, ""), ("rollout", 112, 14, 8, "")]
    assert run.model.value == "example/Big-MoE"  # the trainer's own, with no shared [model]


def test_an_evals_config_against_another_host_uses_no_gpu_of_its_own() -> None:
    run = read("primerl", "examples/evals/remote.toml")
    assert (run.framework, run.unrecognised, run.gpus.value, run.model.value) == (
        "prime-rl",
        "",
        0,
        "some-lab/some-model",
    )
    assert (run.gpus.line, run.model.line) == (7, 4)
    assert (run.engine.value, run.train_backend.value, run.nodes.value) == (None, None, None)  # no server, no training


def test_an_evals_config_against_a_local_server_leaves_its_gpus_unknown() -> None:
    run = read("primerl", "examples/evals/local.toml")
    assert (run.framework, run.gpus.value, run.model.value) == ("prime-rl", None, "Qwen/Qwen3-0.6B")  # evals.py:73
    assert "on this machine" in run.gpus.written
    online = read_toml('model = "m"\n[eval.client]\nbase_url = "https://x.example.com/v1"\n[online]\n', "e.toml")
    assert (online.framework, online.gpus.value) == ("prime-rl", None)  # its weights come from a trainer
    assert read_toml('[eval]\nmodel = "m"\n', "e.toml").unrecognised  # no client, no sources: not an evals config


INFERENCE = {"engine": "vllm", "rollout_tp": 1, "memory_fraction": 0.9, "model": "Qwen/Qwen3-0.6B"}
"""What InferenceConfig gives a config that does not say it (inference.py:57, 84, 102); nothing trains."""


def test_a_disaggregated_inference_config_counts_prefill_and_decode_nodes() -> None:
    run = read("primerl", "examples/infer/pd.toml")  # (1 × 3 prefill + 2 × 1 decode) nodes of 4 GPUs
    assert (run.framework, run.unrecognised) == ("prime-rl", "")
    settled(
        run,
        INFERENCE,
        gpus=20,
        nodes=5,
        gpus_per_node=4,
        model="example-org/Example-MoE-FP8",
        memory_fraction=0.8,
    )
    assert roles(run) == [("prefill", 12, 3, 4, ""), ("decode", 8, 2, 4, "")]
    assert (run.nodes.line, run.gpus_per_node.line, run.model.line) == (9, 12, 21)
    assert run.nodes.origin is Origin.FRAMEWORK_DEFAULT  # num_decode_replicas unsaid: 1 (inference.py:397)
    assert run.train_backend.value is None and run.algorithm.value is None  # nothing trains


def test_inference_configs_of_every_other_placement() -> None:
    multi = read("primerl", "examples/infer/multi.toml")  # num_nodes 2 (inference.py:378) of 8 (inference.py:366)
    settled(multi, INFERENCE, gpus=16, nodes=2, gpus_per_node=8, rollout_tp=4)
    local = read("primerl", "examples/infer/local.toml")  # run here: vLLM's TP 2 × DP 2
    settled(local, INFERENCE, gpus=4, nodes=1, gpus_per_node=4, model="Qwen/Qwen3-4B-Instruct-2507", rollout_tp=2)
    job = read("primerl", "examples/infer/one_node_job.toml")  # a SLURM job of one whole node
    settled(job, INFERENCE, gpus=8, nodes=1, gpus_per_node=8, model="Qwen/Qwen3-8B")
    assert read_toml('[vllm]\nmodel = "m"\n[trainer]\nx = 1\n', "t.toml").unrecognised  # not InferenceConfig's keys
    assert read_toml('[deployment]\ntype = "disaggregated"\n', "t.toml").unrecognised  # no [vllm]: not claimed


def test_the_estimator_takes_prime_rls_fp32_parameters_and_offloaded_optimizer_states() -> None:
    """The vocabulary (primevocab.py): fp32 parameters (optimization_dtype), the states in host memory."""
    from sphinx_rlresources.estimator.fromscript import Row, plan_for_row

    run = read("primerl", "examples/reverse-text/rl.toml")
    plan = plan_for_row(Row("Qwen3-4B", None, "4b", "GRPO", 8, "fsdp", "vllm"), run, "H100", 79.6)
    assert plan.param_bytes == 4 and plan.optimizer_offload is True and plan.param_offload is False
    assert {"param_bytes", "optimizer_offload", "param_offload"} <= set(plan.framework_defaults)
    said = read_toml("[trainer.model]\noptim_cpu_offload = false\n", "rl.toml")
    assert said.optimizer_offload.value is False and said.optimizer_offload.origin is Origin.SET


def test_full_offload_puts_the_states_in_host_memory_and_keeps_bf16_weights() -> None:
    """``full_offload`` (trainer.py:203): ``true`` or a section of its own; the fp32 masters, the
    gradients and Adam's moments on the host, bf16 weights on the GPU (``compute_copy``), and what
    ``optim_cpu_offload = false`` said of the states replaced."""
    sft = read("primerl", "examples/full-offload/sft.toml")
    settled(
        sft,
        gpus=8,
        nodes=1,
        gpus_per_node=8,
        train_backend="fsdp",
        model="Qwen/Qwen3-4B",
        lora_rank=0,
        algorithm="sft",
        max_total_length=16384,
        train_batch_size=16,
        micro_batch_per_gpu=1,
        train_cp=1,
        param_offload=True,
        optimizer_offload=True,
        compute_copy=True,
    )
    assert (sft.compute_copy.line, sft.optimizer_offload.written) == (9, "model.full_offload = true")
    rl = read("primerl", "examples/full-offload/rl.toml")
    assert (rl.param_offload.value, rl.optimizer_offload.value, rl.compute_copy.value) == (True, True, True)
    assert (rl.compute_copy.line, rl.compute_copy.written) == (18, "[trainer.model.full_offload]")
    off = read_toml("[model]\nfull_offload = false\n[optim]\nlr = 1e-5\n", "train.toml")  # a trainer's config
    assert (off.compute_copy.value, off.optimizer_offload.value) == (False, True)
