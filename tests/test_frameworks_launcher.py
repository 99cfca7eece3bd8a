"""The generic launcher layer: GPUs and nodes from ``accelerate``/``torchrun``/``deepspeed``/Slurm for any entry point.

The fixtures (tests/frameworks/launcher/) are written in the idioms of open-instruct's
and OpenRLHF's non-RL scripts and cite the public files that taught each one.  The
framework stays unknown: no adapter reads these trainers' own settings.
"""

from __future__ import annotations

import pytest
from framework_fixtures import read

from sphinx_rlresources.scripts.frameworks import read_file
from sphinx_rlresources.scripts.frameworks.launcher import job
from sphinx_rlresources.scripts.frameworks.skypilot import accelerators
from sphinx_rlresources.scripts.run import Origin, Run


def hardware(run: Run) -> tuple[object, ...]:
    return (run.framework, run.entry_point, run.gpus.value, run.nodes.value, run.gpus_per_node.value)


def test_accelerate_launch_gives_processes_machines_and_backend() -> None:
    run = read("launcher", "scripts/train/finetune_single_node.sh")
    assert hardware(run) == (None, "open_instruct/finetune.py", 4, 1, 4)
    assert (run.launch_line, run.gpus.origin, run.gpus.line) == (7, Origin.SCRIPT_DEFAULT, 10)
    assert (run.train_backend.value, run.train_backend.line) == ("deepspeed", 11)
    # finetune.py's model flag is known (launcher.TRAINERS), though no adapter reads its other flags
    assert (run.framework, run.model.value, run.model.line) == (None, "meta-llama/Llama-3.1-8B", 14)


def test_a_job_submitter_allocates_the_launch_it_runs() -> None:
    # mason.py asks for 8 nodes of 8 and rewrites --num_processes 8 into 64 over 8 machines
    run = read("launcher", "scripts/train/finetune_mason.sh")
    assert hardware(run) == (None, "open_instruct/finetune.py", 64, 8, 8)
    assert (run.launch_line, run.nodes.line, run.gpus_per_node.line, run.gpus_per_node.written) == (6, 8, 9, "gpus=8")
    assert (run.train_backend.value, run.model.value) == ("deepspeed", "meta-llama/Llama-3.1-8B")


def test_a_cpu_job_submitted_with_no_gpus_has_none() -> None:
    run = read("launcher", "scripts/train/cache_job_mason.sh")
    assert hardware(run) == (None, "open_instruct/olmo_core_finetune.py", 0, 1, 0)
    assert (run.model.value, run.model.line) == ("Qwen/Qwen3-0.6B", 15)
    assert run.train_backend.value is None


def test_accelerate_run_as_a_module() -> None:
    run = read("launcher", "scripts/train/dpo_one_gpu.sh")
    assert hardware(run) == (None, "open_instruct/dpo_tune_cache.py", 1, None, None)
    assert run.model.value == "Qwen/Qwen3-1.7B"
    assert run.train_backend.origin is Origin.RUNTIME  # accelerate's default config decides: not "single"


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        # mason's defaults: one node, no GPUs (mason.py:122-126)
        ("python mason.py --cluster c -- python train.py\n", (0, 1, 0)),
        ("python mason.py --num_nodes 2 --gpus 8 -- torchrun --nproc_per_node 8 train.py\n", (16, 2, 8)),
        ("uv run mason.py --num_nodes 2 --gpus 8 -- torchrun --nproc_per_node 8 train.py\n", (16, 2, 8)),
        # the launch starts 4 per node on 8 asked for: which is the run's is not guessed
        ("python mason.py --gpus 8 -- accelerate launch --num_processes 4 train.py\n", (None, 1, 8)),
        ("python mason.py --gpus $GPUS -- python train.py\n", (None, 1, None)),
        # torchrun written for one node on each of two replicas: not one run of 16
        ("python mason.py --num_nodes 2 --gpus 8 -- torchrun --nnodes 1 --nproc_per_node 8 t.py\n", (None, 2, 8)),
    ],
)
def test_job_submitter_allocations(script: str, expected: tuple[object, ...]) -> None:
    run = read_file(script, "x.sh")
    assert (run.gpus.value, run.nodes.value, run.gpus_per_node.value) == expected


@pytest.mark.parametrize(
    "script",
    [
        "python mason.py --gpus 8 -- python a.py -- python b.py\n",  # two tasks of 8: not one run
        "python mason.py --gpus 8 python a.py\n",  # no `--`: mason refuses it
        "echo mason.py --gpus 8 -- python a.py\n",
    ],
)
def test_what_a_job_submitter_does_not_settle_is_not_read(script: str) -> None:
    run = read_file(script, "x.sh")
    assert (run.launch_line, run.gpus.value) == (0, None)


@pytest.mark.parametrize(
    ("script", "model", "backend"),
    [
        ("deepspeed --num_gpus 8 --module openrlhf.cli.train_sft --pretrain m/a --zero_stage 2\n", "m/a", "deepspeed"),
        ("torchrun --nproc_per_node 8 -m openrlhf.cli.train_rm --model.model_name_or_path m/b\n", "m/b", "deepspeed"),
        ("torchrun --nproc_per_node 8 -m mytrainer.sft --model_name_or_path m/c\n", None, None),  # not known here
    ],
)
def test_known_trainers_give_their_model_and_backend(script: str, model: str | None, backend: str | None) -> None:
    run = read_file(script, "x.sh")
    assert (run.framework, run.model.value, run.train_backend.value) == (None, model, backend)


def test_torchrun_inside_srun_bash_c_takes_its_nodes_from_the_sbatch_header() -> None:
    run = read("launcher", "examples/scripts/train_dpo_slurm.sh")
    assert hardware(run) == (None, "openrlhf.cli.train_dpo", 16, 2, 8)
    assert (run.nodes.line, run.nodes.written) == (6, "--nnodes = #SBATCH -N 2")


def test_deepspeed_without_a_node_count_leaves_the_total_to_run_time() -> None:
    run = read("launcher", "examples/scripts/train_rm_deepspeed.sh")
    assert hardware(run) == (None, "openrlhf.cli.train_rm", None, None, 4)
    assert run.nodes.origin is Origin.RUNTIME  # the hostfile's hosts, where it runs
    # the deepspeed launcher alone does not make it DeepSpeed training; OpenRLHF's trainer does
    assert (run.train_backend.value, run.train_backend.origin) == ("deepspeed", Origin.DERIVED)
    assert run.model.value == "OpenRLHF/Llama-3-8b-sft-mixture"


def test_a_launch_kept_in_a_here_document() -> None:
    run = read("launcher", "examples/scripts/train_sft_heredoc.sh")
    assert hardware(run) == (None, "openrlhf.cli.train_sft", None, None, None)
    assert (run.model.value, run.train_backend.value, run.launch_line) == ("Qwen/Qwen2.5-7B", "deepspeed", 16)


def test_deepspeed_with_nodes_and_gpus() -> None:
    run = read("launcher", "examples/scripts/train_sft_multinode.sh")
    assert hardware(run) == (None, "openrlhf.cli.train_sft", 16, 2, 8)


def test_torchrun_defaults_to_one_node() -> None:
    run = read("launcher", "scripts/train/torchrun_local.sh")
    assert hardware(run) == (None, "train.py", 8, 1, 8)
    assert run.nodes.origin is Origin.FRAMEWORK_DEFAULT and run.nodes.written == "torchrun's default: 1"


def test_a_plain_python_job_takes_the_sbatch_allocation_and_its_last_entry_point() -> None:
    run = read("launcher", "scripts/train/sbatch_python.sbatch")
    assert hardware(run) == (None, "mytrainer.sft", 4, 1, 4)
    assert (run.gpus_per_node.line, run.gpus_per_node.written) == (4, "#SBATCH --gres=gpu:h100:4")


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("python -m torch.distributed.run --nproc_per_node=2 --nnodes=1:1 train.py\n", (2, 1, 2)),
        ("torchrun --nnodes 1:4 --nproc_per_node 8 train.py\n", (None, None, 8)),  # elastic: run time
        ("torchrun --nproc_per_node gpu train.py\n", (None, 1, None)),
        ("CUDA_VISIBLE_DEVICES=0,1,2 python train.py\n", (3, 1, 3)),
        ("accelerate launch --config_file missing.yaml train.py\n", (None, None, None)),
    ],
)
def test_launcher_flags(script: str, expected: tuple[object, ...]) -> None:
    run = read_file(script, "x.sh")
    assert (run.gpus.value, run.nodes.value, run.gpus_per_node.value) == expected
    assert run.launch_line == 1


@pytest.mark.parametrize(
    "script",
    [
        "pip install deepspeed torch\n",  # a package named like a launcher
        "echo torchrun --nproc_per_node 8 train.py\n",  # printed, not run
        "python prepare.py\npython train.py\n",  # a plain python with nothing to say its GPUs
        "torchrun --nproc_per_node 1 $PROJECT_ROOT/export.py\n",  # an entry point not known here
        "deepspeed --module $training_commands\n",
    ],
)
def test_what_is_not_a_launch_is_not_read_as_one(script: str) -> None:
    run = read_file(script, "x.sh")
    assert (run.launch_line, run.gpus.value) == (0, None)
    assert run.unrecognised


def test_a_launch_that_surely_runs_wins_over_one_inside_an_if() -> None:
    script = 'if [[ ${1} != "slurm" ]]; then\n  deepspeed --num_gpus 2 a.py\nfi\ntorchrun --nproc_per_node 8 b.py\n'
    assert hardware(read_file(script, "x.sh")) == (None, "b.py", 8, 1, 8)


def test_accelerate_config_named_by_the_launch_is_read() -> None:
    class Files:
        path = ""

        def read(self, path: str) -> str | None:
            if path == "configs/zero3.yaml":
                return "distributed_type: DEEPSPEED\nnum_machines: 2\nnum_processes: 16\n"
            return None

    run = read_file("accelerate launch --config_file configs/zero3.yaml train.py\n", "x.sh", None, Files())
    assert (run.gpus.value, run.nodes.value, run.gpus_per_node.value, run.train_backend.value) == (
        16,
        2,
        8,
        "deepspeed",
    )
    assert run.gpus.file == "configs/zero3.yaml"


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ("#SBATCH -N 4\n#SBATCH --gpus-per-node=8\n", (4, 8, None)),
        ("#SBATCH --nodes 2\n#SBATCH --gres=gpu:a100:4,nvme:1\n", (2, 4, None)),
        ("#SBATCH -N2 -G 16\n", (2, None, 16)),
        ("#SBATCH --nodes=2-4\n", (None, None, None)),  # a range: decided by the scheduler
        ("echo hi\n#SBATCH -N 4\n", (None, None, None)),  # after the first command: not a header
    ],
)
def test_sbatch_headers(headers: str, expected: tuple[object, ...]) -> None:
    found = job("#!/bin/bash\n" + headers)
    assert (found.nodes.value, found.gpus_per_node.value, found.gpus.value) == expected


def test_a_skypilot_task_gives_its_run_script_skypilots_variables() -> None:
    run = read("launcher", "sky/torchrun.sky.yaml")
    assert hardware(run) == (None, "train.py", 12, 3, 4)
    assert (run.launch_line, run.nodes.origin, run.nodes.line) == (14, Origin.ENV, 15)


@pytest.mark.parametrize(
    ("value", "count"),
    [
        ("A100:8", 8),
        ("H100", 1),
        ("L4 : 2", 2),
        ({"A100": 8, "H100": 8}, 8),
        (["A100:8", "H100:4"], None),  # a choice of counts: which one is decided at launch
        ("A100:0.5", None),  # a fraction of a GPU: not a count
        (None, None),
    ],
)
def test_skypilot_accelerators(value: object, count: int | None) -> None:
    assert accelerators(value) == count


def test_a_skypilot_task_with_a_choice_of_counts_leaves_them_unknown() -> None:
    task = "resources:\n  accelerators: [A100:8, H100:4]\nrun: |\n"
    task += "  torchrun --nproc_per_node=$SKYPILOT_NUM_GPUS_PER_NODE t.py\n"  # not torchrun's default 1
    run = read_file(task, "t.sky.yaml")
    assert (run.gpus.value, run.gpus_per_node.value, run.launch_line) == (None, None, 4)


def test_a_here_document_in_a_sourced_file_is_that_files() -> None:
    # OpenRLHF's train_nonrl_slurm.sh sources the SFT/DPO script that builds $training_commands
    class Files:
        path = ""

        def read(self, path: str) -> str | None:
            if path == "cmds.sh":
                return "\n\nread -r -d '' training_commands <<EOF\nopenrlhf.cli.train_dpo --pretrain m/dpo\nEOF\n"
            return None

    script = (
        "read -r -d '' other <<EOF\nx\nEOF\nsource ./cmds.sh slurm\ntorchrun --nproc_per_node 8 -m $training_commands\n"
    )
    run = read_file(script, "x.sh", None, Files())
    assert (run.entry_point, run.model.value, run.gpus.value) == ("openrlhf.cli.train_dpo", "m/dpo", 8)


def test_a_plain_python_accelerator_trainer_is_one_process_on_one_gpu() -> None:
    run = read("launcher", "scripts/train/reward_model_plain.sh")
    assert hardware(run) == (None, "open_instruct/reward_modeling.py", 1, 1, 1)  # two devices visible, one used
    assert (run.train_backend.value, run.model.value) == ("single", "EleutherAI/pythia-160m")
    assert "reward_modeling.py:189" in run.gpus.written
    # finetune.py's Accelerator may get a DeepSpeed plugin from its own flags: one GPU, backend not said
    run = read_file("python open_instruct/finetune.py --model_name_or_path m/a\n", "x.sh")
    assert (run.gpus.value, run.train_backend.value, run.model.value) == (1, None, "m/a")


def test_a_job_submitter_runs_the_launch_after_an_escaped_and() -> None:
    run = read("launcher", "scripts/train/dpo_mason_setup.sh")
    assert hardware(run) == (None, "open_instruct/dpo_tune_cache.py", 32, 4, 8)  # --num_processes 8 is per node
    assert (run.train_backend.value, run.model.value) == ("deepspeed", "/checkpoints/sft-final")
