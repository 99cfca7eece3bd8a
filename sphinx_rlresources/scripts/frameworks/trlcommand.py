"""The TRL commands of a script: ``accelerate launch … x.py``, ``python x.py``, ``trl grpo|rloo …``, and the
vLLM servers beside them (``trl vllm-serve``, or vLLM's own ``vllm serve MODEL`` for the trainers that talk to it).

One command mixes accelerate's own flags, the training script's (parsed by TRL's
``TrlParser``/``HfArgumentParser``, which take ``--flag_name`` and ``--flag-name`` alike)
and, for ``trl vllm-serve``, vLLM's server flags; each is read with its own vocabulary
here, so :mod:`.trl` reads a run from already separated flags.  Nothing is run.
"""

from __future__ import annotations

from typing import NamedTuple

from sphinx_rlresources.scripts.expand import Field
from sphinx_rlresources.scripts.frameworks.base import Flag, program_name, read_flags
from sphinx_rlresources.scripts.interpreter import Command

TRAINERS = frozenset({"grpo", "rloo", "sft", "dpo", "kto", "reward", "gkd", "orpo", "ppo", "xpo", "nash_md"})
"""``trl <command>`` subcommands that train (trl/cli/main.py)."""
RL_TRAINERS = frozenset({"grpo", "rloo"})
#: Flags only a TRL trainer's arguments have: one of them marks ``accelerate launch x.py`` as TRL's.
MARKERS = frozenset(
    {"use_vllm", "vllm_mode", "num_generations", "vllm_server_host", "vllm_server_base_url", "use_peft"}
)
ACCELERATE_VALUED = frozenset(
    {"config_file", "num_processes", "num_machines", "machine_rank", "main_process_ip", "main_process_port"}
    | {"mixed_precision", "gpu_ids", "deepspeed_config_file", "zero_stage", "fsdp_version", "accelerate_config"}
    | {
        "dynamo_backend",
        "rdzv_backend",
        "deepspeed_hostfile",
        "deepspeed_multinode_launcher",
        "num_cpu_threads_per_process",
    }
)
ACCELERATE_SWITCHES = frozenset({"multi_gpu", "use_deepspeed", "use_fsdp", "cpu", "same_network", "debug", "quiet"})
ACCELERATE_SPELLINGS = ACCELERATE_VALUED | {name.replace("_", "-") for name in ACCELERATE_VALUED}


def _spellings(names: set[str]) -> frozenset[str]:
    """Each name as ``flag_name`` and ``flag-name`` (HfArgumentParser and vLLM accept both)."""
    return frozenset(names | {name.replace("_", "-") for name in names})


SCRIPT_SWITCHES = _spellings({"use_vllm", "use_peft", "gradient_checkpointing", "bf16", "log_completions"})
SCRIPT_VALUED = _spellings(
    {"model_name_or_path", "vllm_mode", "num_generations", "max_completion_length", "lora_r", "beta"}
    | {"per_device_train_batch_size", "vllm_tensor_parallel_size", "vllm_gpu_memory_utilization", "config"}
)
SERVER_VALUED = _spellings({"model", "tensor_parallel_size", "data_parallel_size", "gpu_memory_utilization", "port"})
TRL_SERVER = "trl vllm-serve"
VLLM_SERVER = "vllm serve"
"""The two servers, as :attr:`Launch.script` names them: TRL's (its own weight-sync endpoints) and vLLM's."""


class Launch(NamedTuple):
    """One TRL command: what kind, its own (launcher) flags and the training script's flags."""

    command: Command
    kind: str
    """``accelerate``, ``trl`` (the CLI), ``python`` (one process) or ``server`` (a vLLM server)."""
    script: str | None
    """The training script; for a server, which one (:data:`TRL_SERVER` or :data:`VLLM_SERVER`)."""
    trainer: str | None
    """``grpo``/``rloo``… for TRL's own scripts (whose defaults apply), else None."""
    launcher: dict[str, Flag]
    args: dict[str, Flag]


def _normal(found: dict[str, Flag]) -> dict[str, Flag]:
    """HfArgumentParser accepts ``--flag-name`` for ``--flag_name``: one spelling."""
    return {name.replace("-", "_"): flag for name, flag in found.items()}


def parse(command: Command) -> Launch | None:
    """The TRL command in ``command`` (after any ``srun``/``uv run`` prefix), or None."""
    values = [field.value for field in command.fields]
    for index, text in enumerate(values):
        nxt = values[index + 1] if index + 1 < len(values) else None
        if program_name(text) == "trl" and nxt == "vllm-serve":
            found = _normal(read_flags(command.fields[index + 2 :], frozenset(), SERVER_VALUED))
            return Launch(command, "server", TRL_SERVER, None, {}, found)
        if program_name(text) == "vllm" and nxt == "serve":
            return _vllm_serve(command, index + 2)
        if program_name(text) == "trl" and nxt in TRAINERS:
            switches = SCRIPT_SWITCHES | ACCELERATE_SWITCHES
            found = _normal(read_flags(command.fields[index + 2 :], switches, SCRIPT_VALUED))
            return Launch(command, "trl", f"trl {nxt}", nxt, found, found)
        if program_name(text) == "accelerate" and nxt == "launch":
            return _accelerate(command, index + 2)
        if program_name(text) in ("python", "python3") and index == _first_program(values):
            return _python(command, index + 1)
    return None


def _vllm_serve(command: Command, start: int) -> Launch:
    """``vllm serve MODEL --flags``: the model is its first argument (or ``--model``, as vLLM's CLI takes both)."""
    fields = command.fields[start:]
    found = _normal(read_flags(fields, frozenset(), SERVER_VALUED))
    first = fields[0] if fields else None
    if first is not None and first.value is not None and not first.value.startswith("-") and "model" not in found:
        found["model"] = Flag("model", first.value, first.word.raw, first.line, first.origin, first.file)
    return Launch(command, "server", VLLM_SERVER, None, {}, found)


def _first_program(values: list[str | None]) -> int:
    """The index of the first word that is not a wrapper (``srun …``, ``uv run``): where ``python`` must stand."""
    for index, text in enumerate(values):
        if program_name(text) in ("python", "python3"):
            return index
    return -1


def _accelerate(command: Command, start: int) -> Launch:
    fields = command.fields
    index = start
    launcher: list[Field] = []
    while index < len(fields):
        text = fields[index].value or ""
        name = text.lstrip("-").split("=", 1)[0].replace("-", "_")
        if not text.startswith("-"):
            break
        launcher.append(fields[index])
        index += 1
        following = fields[index].value or "" if index < len(fields) else ""
        lost = following.startswith("--") or following.endswith(".py")  # an unknown $X vanished before it
        if "=" not in text and name in ACCELERATE_VALUED and index < len(fields) and not lost:
            launcher.append(fields[index])
            index += 1
        elif text == "-m" and index < len(fields):
            launcher.append(fields[index])
            index += 1
            break
    script = fields[index].value if index < len(fields) else None
    module = next((launcher[i + 1].value for i, f in enumerate(launcher[:-1]) if f.value == "-m"), None)
    script = module or script
    args = _normal(read_flags(fields[index + (0 if module else 1) :], SCRIPT_SWITCHES, SCRIPT_VALUED))
    own = _normal(read_flags(launcher, ACCELERATE_SWITCHES, ACCELERATE_SPELLINGS))
    return Launch(command, "accelerate", script, _own_trainer(script), own, args)


def _python(command: Command, start: int) -> Launch | None:
    fields = command.fields
    values = [f.value or "" for f in fields]
    script, index = None, start
    if start + 1 < len(values) and values[start] == "-m":
        script, index = values[start + 1], start + 2
    elif start < len(values) and values[start].endswith(".py"):
        script, index = values[start], start + 1
    if script is None:
        return None
    args = _normal(read_flags(fields[index:], SCRIPT_SWITCHES, SCRIPT_VALUED))
    return Launch(command, "python", script, _own_trainer(script), {}, args)


def _own_trainer(script: str | None) -> str | None:
    """``grpo`` for ``trl/scripts/grpo.py`` or ``-m trl.scripts.grpo``: TRL's own scripts, whose defaults are known."""
    text = (script or "").removeprefix("./")
    for prefix, suffix in (("trl/scripts/", ".py"), ("trl.scripts.", "")):
        if text.startswith(prefix) and text.endswith(suffix):
            name = text[len(prefix) : len(text) - len(suffix) if suffix else None]
            return name if name in TRAINERS else None
    return None


__all__ = ["MARKERS", "RL_TRAINERS", "TRAINERS", "TRL_SERVER", "VLLM_SERVER", "Launch", "parse"]
