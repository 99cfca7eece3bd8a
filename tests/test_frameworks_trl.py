"""TRL's launches and accelerate's configs, read: every value each fixture settles, and nothing it does not.

The fixtures (tests/frameworks/trl/) are written in TRL's idioms -- ``accelerate launch
--config_file``, ``trl grpo|rloo``, ``trl vllm-serve`` beside the trainer with
``CUDA_VISIBLE_DEVICES`` on each, a SLURM pair of ``srun``\\ s -- and the accelerate
configs they name, read through a fake :class:`~sphinx_rlresources.scripts.files.Files`
holding the fixture tree.  A config that cannot be read leaves the count unknown: the
8 of accelerate's shipped examples is never assumed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx_rlresources.estimator.architectures import bundled
from sphinx_rlresources.estimator.fromscript import Row, plan_for_row
from sphinx_rlresources.estimator.memory import estimate
from sphinx_rlresources.scripts.docstring import docstring_script
from sphinx_rlresources.scripts.frameworks import read_file
from sphinx_rlresources.scripts.run import Origin, Run

ROOT = Path(__file__).parent / "frameworks" / "trl"


class FakeFiles:
    def __init__(self) -> None:
        self.texts = {str(p.relative_to(ROOT)): p.read_text("utf-8") for p in ROOT.rglob("*") if p.is_file()}
        self.asked: list[str] = []

    def read(self, path: str) -> str | None:
        self.asked.append(path)
        return self.texts.get(path)


def read(path: str, files: FakeFiles | None = None) -> Run:
    return read_file((ROOT / path).read_text("utf-8"), path, None, files if files is not None else FakeFiles())


def text(script: str, files: FakeFiles | None = None) -> Run:
    return read_file(script, "examples/scripts/x.sh", None, files if files is not None else FakeFiles())


def settled(run: Run) -> dict[str, Any]:
    return {name: found.value for name, found in run.settings().items() if found.value is not None}


def roles(run: Run) -> list[tuple[str, int | None]]:
    return [(role.name, role.gpus.value) for role in run.roles]


def test_trls_own_script_colocated_with_the_config_it_names() -> None:
    files = FakeFiles()
    run = read("examples/scripts/grpo_colocate.sh", files)
    assert "examples/accelerate_configs/zero3_offload.yaml" in files.asked
    assert (run.framework, run.entry_point, run.launch_line) == ("trl", "trl/scripts/grpo.py", 5)
    assert settled(run) == {
        "gpus": 8,
        "nodes": 1,
        "gpus_per_node": 8,
        "colocated": True,
        "train_backend": "deepspeed",
        "zero_stage": 3,
        "lora_rank": 32,
        "model": "Qwen/Qwen2.5-1.5B-Instruct",
        "algorithm": "grpo",
        "use_kl": False,  # beta 0.0 by default: no reference
        "critic": False,
        "response_length": 512,
        "micro_batch_per_gpu": 4,
        "rollout_n": 16,
        "param_offload": False,
        "optimizer_offload": True,
        "ref_param_offload": False,  # the reference is prepared as the trained model is: no offload_param
        "offload_mode": "compute",
        "gradient_checkpointing": True,
        "param_dtype": "float32",  # ModelConfig's dtype for TRL's own scripts
        "engine": "vllm",
        "rollout_tp": 1,
        "memory_fraction": 0.4,
        "free_cache_engine": False,  # vllm_enable_sleep_mode's default: the engine keeps its claim
    }
    assert (run.gpus.origin, run.gpus.file) == (Origin.SET, "examples/accelerate_configs/zero3_offload.yaml")
    assert run.response_length.origin is Origin.FRAMEWORK_DEFAULT
    assert run.problems == ()


def test_server_and_trainer_pinned_to_devices_count_the_devices() -> None:
    run = read("examples/scripts/grpo_server.sh")
    assert run.entry_point == "train_grpo.py"
    assert settled(run) == {
        "gpus": 8,
        "colocated": False,
        "train_backend": "deepspeed",
        "zero_stage": 3,
        "model": "Qwen/Qwen2.5-7B",  # what the server serves: TRL syncs the trained weights to it
        "param_offload": False,
        "optimizer_offload": True,
        "ref_param_offload": False,  # as the trained model's parameters (prepare_deepspeed keeps the config)
        "offload_mode": "compute",
        "engine": "vllm",
        "rollout_tp": 2,
        "memory_fraction": 0.9,
    }
    assert roles(run) == [("trainer", 4), ("rollout", 4)]
    assert run.gpus.written == "devices 0,1,2,3,4,5,6,7"
    assert run.model.origin is Origin.DERIVED
    # A user's train_grpo.py may set anything in code: no TRL defaults for it.
    for name in ("lora_rank", "rollout_n", "algorithm", "response_length", "gradient_checkpointing"):
        assert getattr(run, name).value is None


def test_the_trl_cli_without_a_config_leaves_the_backend_to_accelerate() -> None:
    run = read("examples/scripts/rloo_cli.sh")
    assert (run.entry_point, run.algorithm.value) == ("trl rloo", "rloo")
    assert settled(run) == {
        "gpus": 2,
        "lora_rank": 0,
        "model": "Qwen/Qwen2.5-0.5B",
        "algorithm": "rloo",
        "use_kl": True,  # RLOO's beta is 0.05
        "critic": False,
        "response_length": 512,
        "rollout_n": 2,
        "gradient_checkpointing": True,
        "param_dtype": "float32",  # ModelConfig's dtype for TRL's own scripts
        "engine": "hf",
    }
    assert run.train_backend.origin is Origin.RUNTIME
    assert run.engine.origin is Origin.FRAMEWORK_DEFAULT


def test_a_cli_config_and_a_named_accelerate_config() -> None:
    files = FakeFiles()
    run = read("examples/scripts/grpo_cli_config.sh", files)
    assert "examples/cli_configs/grpo.yaml" in files.asked
    assert "trl/accelerate_configs/zero2.yaml" in files.asked  # TRL's own, not in this tree
    assert settled(run) == {
        "gpus": 4,
        "colocated": True,
        "train_backend": "deepspeed",
        "lora_rank": 0,
        "model": "Qwen/Qwen2.5-0.5B-Instruct",
        "algorithm": "grpo",
        "use_kl": False,
        "critic": False,
        "response_length": 2048,
        "rollout_n": 4,
        "gradient_checkpointing": True,
        "param_dtype": "float32",  # ModelConfig's dtype for TRL's own scripts
        "engine": "vllm",
        "rollout_tp": 1,
        "memory_fraction": 0.3,
        "free_cache_engine": False,
    }
    assert (run.gpus.file, run.gpus.line) == ("examples/cli_configs/grpo.yaml", 8)
    assert run.train_backend.origin is Origin.DERIVED  # from the name zero2
    assert run.nodes.value is None


def test_a_config_outside_the_repository_leaves_the_gpus_unknown() -> None:
    run = read("examples/scripts/grpo_unreadable_config.sh")
    assert settled(run) == {"model": "Qwen/Qwen3-0.6B", "rollout_n": 8, "engine": "vllm"}
    assert run.gpus.origin is Origin.RUNTIME
    assert run.colocated.value is None  # an example may choose its vLLM mode in code


def test_slurm_trainer_nodes_plus_a_vllm_node() -> None:
    run = read("examples/scripts/slurm_server.sh")
    assert run.entry_point == "train_grpo.py"
    assert settled(run) == {
        "gpus": 40,
        "colocated": False,
        "train_backend": "fsdp",
        "train_tp": 1,
        "train_cp": 2,
        "model": "Qwen/Qwen2.5-72B",
        "param_offload": True,
        "ref_param_offload": True,  # prepare_fsdp wraps the reference with the same CPU offload
        "offload_mode": "compute",
        "engine": "vllm",
        "rollout_tp": 8,
        "memory_fraction": 0.9,
    }
    trainer = run.roles[0]
    # --num_processes 32 --num_machines 4 on the command line win over the config's 16 and 2.
    assert (trainer.gpus.value, trainer.nodes.value, trainer.gpus_per_node.value) == (32, 4, 8)
    assert roles(run) == [("trainer", 32), ("rollout", 8)]
    assert run.gpus.origin is Origin.FRAMEWORK_DEFAULT  # the server's data-parallel size is TRL's default 1


def test_a_single_process_trainer_beside_its_server() -> None:
    run = read("examples/scripts/python_pair.sh")
    assert settled(run) == {
        "gpus": 2,
        "colocated": False,
        "train_backend": "single",
        "model": "Qwen/Qwen3-1.7B",
        "engine": "vllm",
        "rollout_tp": 1,
        "memory_fraction": 0.9,
    }
    assert run.gpus.written == "devices 0,1"


def test_accelerate_configs_on_their_own() -> None:
    run = read("examples/accelerate_configs/fsdp2_two_nodes.yaml")
    assert run.framework == "accelerate"
    assert settled(run) == {
        "gpus": 16,
        "nodes": 2,
        "gpus_per_node": 8,
        "train_backend": "fsdp",
        "train_tp": 1,
        "train_cp": 2,
        "param_offload": True,
        "offload_mode": "compute",
        "gradient_checkpointing": True,
    }
    run = read("examples/accelerate_configs/zero3_offload.yaml")
    assert settled(run) == {
        "gpus": 8,
        "nodes": 1,
        "gpus_per_node": 8,
        "train_backend": "deepspeed",
        "zero_stage": 3,
        "param_offload": False,
        "optimizer_offload": True,
        "offload_mode": "compute",
    }
    assert (run.gpus.line, run.train_backend.line) == (12, 9)


def test_distributed_type_no_is_one_process_whatever_num_processes_says() -> None:
    run = read("examples/accelerate_configs/single_gpu.yaml")
    assert settled(run) == {"gpus": 1, "nodes": 1, "gpus_per_node": 1, "train_backend": "single"}
    [problem] = run.problems
    assert (problem.line, problem.severity) == (8, "warning")
    unquoted = read_file("distributed_type: NO\nnum_processes: 4\nnum_machines: 1\n", "c.yaml")
    assert (unquoted.gpus.value, unquoted.train_backend.value) == (1, "single")
    launched = text("accelerate launch --config_file examples/accelerate_configs/single_gpu.yaml trl/scripts/grpo.py\n")
    assert (launched.gpus.value, launched.train_backend.value) == (1, "single")


def test_a_server_mode_whose_server_runs_elsewhere_leaves_the_total_unknown() -> None:
    run = text("accelerate launch --num_processes 8 train.py --use_vllm --vllm_mode server --vllm_server_host h\n")
    assert run.gpus.value is None
    assert roles(run) == [("trainer", 8), ("rollout", None)]


def test_visible_devices_without_a_config_or_a_count_are_the_processes() -> None:
    run = text("CUDA_VISIBLE_DEVICES=0,1,2 accelerate launch train.py --use_vllm\n")
    assert (run.gpus.value, run.gpus.origin) == (3, Origin.DERIVED)
    run = text("accelerate launch --use_deepspeed --num_processes 4 train.py --num_generations 4\n")
    assert (run.gpus.value, run.train_backend.value) == (4, "deepspeed")
    run = text("python train.py --use_vllm\n")
    assert (run.gpus.value, run.gpus.origin) == (None, Origin.RUNTIME)


def test_a_bool_flag_takes_a_written_true_or_false() -> None:
    # HfArgumentParser gives a bool field nargs="?": `--use_vllm false` turns vLLM off
    # (huggingface/trl examples pass `--use_peft true`, `--gradient_checkpointing true`).
    run = text("trl grpo --model_name_or_path Qwen/Qwen2-0.5B --use_vllm false --num_generations 4\n")
    assert (run.engine.value, run.rollout_n.value) == ("hf", 4)
    run = text("trl grpo --model_name_or_path Qwen/Qwen2-0.5B --use_vllm True --vllm_mode colocate\n")
    assert run.engine.value == "vllm"


def test_sft_has_no_rollout_and_other_launchers_are_not_trl() -> None:
    run = text("trl sft --model_name_or_path Qwen/Qwen2-0.5B --use_peft --num_processes 8\n")
    assert (run.framework, run.engine.value, run.lora_rank.value, run.gpus.value) == ("trl", None, 16, 8)
    assert text("accelerate launch --num_processes 8 open_instruct/finetune.py --use_flash_attn\n").framework is None
    assert text("python train.py --epochs 2\n").framework is None


def test_a_server_only_script_says_the_servers_gpus_not_the_runs() -> None:
    run = text("CUDA_VISIBLE_DEVICES=0,1 trl vllm-serve --model Qwen/Qwen2.5-7B --tensor-parallel-size 2\n")
    assert (run.framework, run.engine.value, run.model.value) == ("trl", "vllm", "Qwen/Qwen2.5-7B")
    assert run.gpus.value is None
    assert roles(run) == [("rollout", 2)]
    assert text("trl vllm-serve --model <model_name>\n").model.value is None


def test_an_elided_command_takes_no_default() -> None:
    run = text("trl grpo --model_name_or_path Qwen/Qwen2.5-0.5B --num_processes 4 ...\n")
    assert settled(run) == {"gpus": 4, "model": "Qwen/Qwen2.5-0.5B", "algorithm": "grpo", "critic": False}


def test_a_docstring_launch_is_read_the_first_trainer_with_its_server() -> None:
    files = FakeFiles()
    run = read("examples/scripts/grpo_docstring.py", files)
    assert (run.framework, run.entry_point, run.launch_line) == ("trl", "examples/scripts/grpo_docstring.py", 20)
    assert settled(run) == {
        "gpus": 4,  # the server's GPU 0 + the trainer's 1,2,3; the second launch (8 processes) is not the run read
        "colocated": False,
        "engine": "vllm",
        "train_backend": "deepspeed",
        "zero_stage": 2,  # from the DeepSpeed JSON the accelerate config names
        "model": "Qwen/Qwen3-1.7B",
        "response_length": 512,
        "rollout_tp": 1,
        "memory_fraction": 0.9,
    }
    assert (run.zero_stage.file, run.zero_stage.line) == ("examples/accelerate_configs/ds_zero2.json", 4)
    assert run.model.line == 24  # the docstring's line in the file
    assert "examples/accelerate_configs/ds_zero2.json" in files.asked


def test_a_python_file_is_read_only_through_its_docstring() -> None:
    never = 'import os\n"""accelerate launch --num_processes 8 x.py --model_name_or_path m"""\n'
    assert "no docstring" in read_file(never, "x.py").unrecognised  # a string after code is no docstring
    prose = '"""\nSee the docs: don\'t run "this" (yet).\n\npip install trl\n"""\n'
    assert "no docstring with a launch" in read_file(prose, "x.py").unrecognised  # prose never reaches the shell
    one_line = '#!/usr/bin/env python\n"""accelerate launch --num_processes 2 grpo.py --use_vllm"""\n'
    assert (read_file(one_line, "grpo.py").gpus.value, read_file(one_line, "grpo.py").launch_line) == (2, 2)
    unclosed = '"""\naccelerate launch --num_processes 2 grpo.py --use_vllm\n'
    assert "no docstring" in read_file(unclosed, "x.py").unrecognised


def test_a_deepspeed_json_stage_of_auto_or_unreadable_stays_unknown() -> None:
    run = read("examples/accelerate_configs/zero_auto.yaml")
    assert (run.train_backend.value, run.zero_stage.value) == ("deepspeed", None)
    assert "'auto'" in run.zero_stage.written and run.zero_stage.file == "examples/accelerate_configs/ds_auto.json"
    assert read("examples/accelerate_configs/zero_json.yaml", FakeFiles()).zero_stage.value == 2
    bare = "distributed_type: DEEPSPEED\nnum_processes: 2\ndeepspeed_config:\n  deepspeed_config_file: gone.json\n"
    assert "not found" in read_file(bare, "a.yaml", None, FakeFiles()).zero_stage.written


def test_a_docstring_offering_several_launches_is_read_from_its_first() -> None:
    """A launch "without vLLM", then "with vLLM", then with a server: the later ones are alternatives."""
    run = read("examples/scripts/openenv/three_ways.py")
    assert (run.framework, run.launch_line) == ("trl", 12)
    assert settled(run) == {"model": "Qwen/Qwen3-0.6B", "algorithm": "grpo", "engine": "hf"}
    assert roles(run) == [("trainer", None)]  # the server of the third launch is not this run's
    assert (run.engine.origin, run.engine.line) == (Origin.SCRIPT_DEFAULT, 31)  # --use-vllm: store_true, not given
    assert (run.model.origin, run.model.line) == (Origin.SCRIPT_DEFAULT, 30)  # --model-id's default
    assert run.gpus.origin is Origin.RUNTIME  # plain python: every GPU the Trainer sees


def test_the_code_of_the_launched_script_says_its_trainer_and_model() -> None:
    run = read("examples/scripts/openenv/hard_coded.py")  # `\\` in a plain docstring: one command
    assert (run.launch_line, run.entry_point) == (10, "examples/scripts/openenv/hard_coded.py")
    assert settled(run) == {"model": "Qwen/Qwen3-1.7B", "algorithm": "grpo", "engine": "hf"}
    assert (run.model.origin, run.model.line) == (Origin.SET, 24)  # GRPOTrainer(model="...")
    assert "grpo_config.py:577" in run.engine.written  # GRPOConfig's use_vllm default, not set in the code
    run = read("examples/scripts/distill_parsed.py")  # TrlParser into a subclass of GKDConfig
    assert settled(run) == {"model": "Qwen/Qwen2-0.5B-Instruct", "micro_batch_per_gpu": 4, "engine": "hf"}
    assert run.engine.written == "transformers' generate (GKDConfig has no use_vllm)"


def test_a_launch_with_no_flag_of_trls_own_is_trls_by_its_code() -> None:
    run = read("examples/scripts/sft_peft_only.py")
    assert (run.framework, run.model.value, run.gpus.value, run.train_backend.value) == (
        "trl",
        "google/gemma-3-4b-it",
        16,
        "fsdp",
    )
    assert run.engine.value is None  # SFT samples nothing


def test_a_config_built_from_spread_arguments_leaves_vllm_unknown() -> None:
    run = read("examples/scripts/spread_config.py")
    assert (run.framework, run.model.value, run.engine.value) == ("trl", "Qwen/Qwen3-4B", None)


def test_a_plain_docstring_is_read_as_python_reads_its_backslashes() -> None:
    plain = '"""\npython x.py \\\\\n    --a 1\n"""\n'  # the file holds `x.py \\`: the docstring's value, `x.py \`
    assert docstring_script(plain) == "\npython x.py \\\n    --a 1\n\n"
    assert docstring_script("r" + plain) == "\npython x.py \\\\\n    --a 1\n\n"  # a raw one holds both


def test_a_data_step_before_the_launch_is_not_the_launch() -> None:
    doc = (
        '"""\npython scripts/prepare.py --out data\n\n'
        "accelerate launch --num_processes 2 examples/scripts/x.py --use_vllm\n\n"
        'accelerate launch --num_processes 8 examples/scripts/x.py --use_vllm\n"""\n'
    )
    run = read_file(doc, "examples/scripts/x.py")
    assert (run.framework, run.launch_line, run.gpus.value) == ("trl", 4, 2)


def test_vllms_own_server_is_the_rollout_of_a_trainer_that_generates_on_it() -> None:
    """AsyncGRPO always asks a ``vllm serve``: its GPUs are a pool, the total counts both."""
    run = read("examples/scripts/openenv/async_agent.py")
    assert (run.framework, run.launch_line) == ("trl", 20)
    assert settled(run) == {
        "gpus": 3,  # the server's devices 0,1 + the trainer's 2
        "colocated": False,
        "engine": "vllm",
        "train_backend": "single",
        "model": "Qwen/Qwen3-8B",  # the script's own --model, as the command gives it
        "algorithm": "grpo",
        "rollout_tp": 2,  # vllm serve --tensor-parallel-size 2
        "memory_fraction": 0.9,
    }
    assert roles(run) == [("trainer", 1), ("rollout", 2)]
    assert (run.model.origin, run.model.line) == (Origin.SET, 21)
    assert "async_grpo_config.py:230" in run.engine.written
    run = read("examples/scripts/async_unpinned.py")  # neither pinned: processes + TP × DP
    assert (run.gpus.value, run.model.value, run.rollout_tp.value) == (4, "Qwen/Qwen3-0.6B", 1)
    assert roles(run) == [("trainer", 2), ("rollout", 2)]
    assert run.rollout_tp.written == "vllm serve --tensor-parallel-size (vLLM's default)"


def test_vllms_own_server_beside_another_trainer_is_a_server_of_its_own() -> None:
    run = read("examples/scripts/grpo_judge.sh")  # a judge on GPU 3 beside a colocated GRPO run on 0-2
    assert (run.framework, run.gpus.value, run.colocated.value) == ("trl", 4, True)
    assert roles(run) == [("trainer", 3), ("server", 1)]
    assert run.model.value == "Qwen/Qwen3-1.7B"  # the trainer's, not the judge's
    alone = read("examples/scripts/vllm_only.sh")  # vLLM's server alone is no TRL run
    assert alone.framework is None and alone.unrecognised


def test_an_evaluation_with_vllms_own_engine_has_that_engines_gpus() -> None:
    run = read("examples/scripts/code_eval.py")
    assert (run.framework, run.launch_line) == ("trl", 10)
    assert settled(run) == {
        "gpus": 2,  # tensor_parallel_size: the dataclass field's default, the command leaves it out
        "engine": "vllm",
        "model": "Qwen/Qwen3-8B",  # the command's --model_name_or_path (the field has no default)
        "rollout_tp": 2,
        "memory_fraction": 0.85,  # a plain field default
    }
    assert (run.gpus.origin, run.gpus.line, run.model.line, run.engine.line) == (Origin.SCRIPT_DEFAULT, 28, 11, 34)
    assert roles(run) == [("rollout", 2)]


def test_an_engine_built_in_a_way_not_read_leaves_its_gpus_unknown() -> None:
    head = '"""\npython examples/scripts/x.py --tp 4\n"""\nfrom vllm import LLM\nfrom trl import TrlParser\n'
    literal = read_file(head + 'llm = LLM(model="org/m", tensor_parallel_size=8)\n', "examples/scripts/x.py")
    assert (literal.gpus.value, literal.model.value, literal.memory_fraction.value) == (8, "org/m", 0.9)
    assert literal.memory_fraction.origin is Origin.FRAMEWORK_DEFAULT  # vLLM's own default
    spread = read_file(head + "llm = LLM(**engine_kwargs)\n", "examples/scripts/x.py")
    assert (spread.framework, spread.gpus.value, spread.engine.value) == ("trl", None, "vllm")
    two = read_file(head + 'a = LLM(model="m")\nb = LLM(model="n")\n', "examples/scripts/x.py")
    assert two.framework is None  # two engines: not one run read here


# TRL's sleep switch (GRPOConfig.vllm_enable_sleep_mode, huggingface/trl#3968), written as its docs'
# colocate examples pass their flags (huggingface/trl@f2cd577:docs/source/grpo_trainer.md).
COLOCATE = """\
accelerate launch --multi_gpu --num_processes 4 trl/scripts/grpo.py \\
    --model_name_or_path Qwen/Qwen2.5-1.5B --dataset_name trl-lib/DeepMath-103K \\
    --use_vllm --vllm_mode colocate --vllm_gpu_memory_utilization 0.4 \\
    --per_device_train_batch_size 4 --num_generations 8 --max_completion_length 8192 {sleep}
"""


def test_colocated_vllm_keeps_its_claim_through_the_update_unless_told_to_sleep() -> None:
    awake, asleep = text(COLOCATE.format(sleep="")), text(COLOCATE.format(sleep="--vllm_enable_sleep_mode"))
    assert (awake.free_cache_engine.value, awake.free_cache_engine.origin) == (False, Origin.FRAMEWORK_DEFAULT)
    assert (asleep.free_cache_engine.value, asleep.free_cache_engine.origin) == (True, Origin.SET)
    qwen = bundled("Qwen2.5-1.5B")
    assert qwen is not None
    row = Row("Qwen2.5-1.5B", None, "1.5b", "GRPO", 4, "", "")
    moments = {
        sleep: {m.name: m for m in estimate(qwen, plan_for_row(row, run, "H100", 79.6)).expected.moments}
        for sleep, run in ((False, awake), (True, asleep))
    }
    claim = "rollout engine's claim"
    update = "the actor's update"
    assert any(t.name.startswith(claim) for t in moments[False][update].terms)
    assert not any(t.name.startswith(claim) for t in moments[True][update].terms)


def test_a_served_engine_has_no_sleep_to_read() -> None:
    served = text(COLOCATE.format(sleep="").replace("colocate", "server"))
    assert served.free_cache_engine.value is None
