"""Any entry point under a generic launcher: GPUs and nodes from the launcher, the framework left unknown.

Many runs no adapter reads are still started by a launcher whose flags settle the
hardware: ``accelerate launch --num_processes N [--num_machines M] [--config_file f]``
(processes over all machines), ``torchrun --nproc_per_node N --nnodes M`` (and
``python -m torch.distributed.run``), ``deepspeed --num_gpus N --num_nodes M`` (both per
node and nodes; with neither, every visible GPU of every host of the hostfile), and a
Slurm job's ``#SBATCH -N``/``--nodes``, ``--gres=gpu:N``, ``--gpus-per-node`` and
``--gpus`` headers around a plain ``python`` entry point.  This module is asked only
when no framework's adapter claimed a command, and reads the first launch it finds;
the framework stays unknown (``framework: null``, the entry point named), even for a
framework's own SFT or DPO entry point (``openrlhf.cli.train_sft``,
``open_instruct/finetune.py``), whose settings no adapter reads.  Defaults follow each launcher's
own: ``torchrun``'s ``--nnodes`` and ``--nproc_per_node`` are 1 (torch/distributed/run.py);
``accelerate``'s and ``deepspeed``'s are decided at run time (a default config file, the
hostfile), so they are unknown here.  A plain ``python`` of a trainer known to build
``accelerate.Accelerator()`` (:data:`TRAINERS`) is one process on one GPU, whatever else
the machine offers.

No settings table (:class:`~.base.Table`) is kept: a launcher's flags and ``#SBATCH`` headers
settle only nodes and GPUs, each by its own rule (counts, ranges, ``gpu:N``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from sphinx_rlresources.scripts.expand import Field
from sphinx_rlresources.scripts.frameworks import accelerate
from sphinx_rlresources.scripts.frameworks.argv import as_model, inner_commands, visible_devices
from sphinx_rlresources.scripts.frameworks.base import (
    Flag,
    as_int,
    default,
    derived,
    from_override,
    product,
    program_name,
    read_flags,
)
from sphinx_rlresources.scripts.interpreter import Command, Interpreter
from sphinx_rlresources.scripts.run import UNKNOWN, Found, Origin, Role, Run

TORCH_MODULES = ("torch.distributed.run", "torch.distributed.launch")
ACCELERATE_MODULES = ("accelerate.commands.launch",)
"""``python -m accelerate.commands.launch``: ``accelerate launch`` without its console script."""
ACCELERATE_BACKENDS = (("use_deepspeed", "deepspeed"), ("use_fsdp", "fsdp"), ("multi_gpu", "ddp"))
LAUNCHER_SWITCHES = frozenset(
    {"module", "m", "no_python", "no-python", "standalone", "use_deepspeed", "use_fsdp", "multi_gpu", "cpu"}
    | {"autoresume", "no_local_rank", "no-local-rank", "same_network", "debug", "quiet", "force_multi"}
)
SUBMITTERS = frozenset({"mason.py"})
"""Job submitters that take the command to run after ``--`` and allocate its nodes and GPUs (:func:`submitted`)."""
MAX_WRAPPED = 4
"""Words before a submitter's script (``uv run python mason.py``)."""
WRAPPERS = frozenset({"srun", "env", "nohup", "time", "uv", "exec", "numactl", "stdbuf", "mpirun", "apptainer"})
"""Programs that run the command after their own flags: the launcher may stand behind them."""
COUNTS = frozenset(
    {"nproc_per_node", "nproc-per-node", "nnodes", "num_gpus", "num-gpus", "num_nodes", "num-nodes"}
    | {"num_processes", "num-processes", "num_machines", "num-machines", "config_file", "config-file"}
)
"""Flags that take a value: one read as a bare switch lost its value to an unknown expansion (run time)."""
SLURM_VARIABLES = {
    "nodes": ("SLURM_NNODES", "SLURM_JOB_NUM_NODES"),
    "gpus_per_node": ("SLURM_GPUS_ON_NODE", "SLURM_GPUS_PER_NODE"),
}
"""Variables Slurm sets from the job's headers: a launcher flag written with one is the header's value."""
_SBATCH = re.compile(r"^#SBATCH\s+(.*)$")
_GPU_COUNT = re.compile(r"^(?:gpu:)?(?:[A-Za-z0-9_.-]+:)?([0-9]{1,4})$")
MAX_HEADER_LINES = 400
PROCS = ("nproc_per_node", "nproc-per-node")
MAX_COMMAND_LINES = 200


class Job(NamedTuple):
    """What a job allocates: a Slurm job's ``#SBATCH`` headers, or a job submitter's flags."""

    nodes: Found[int] = UNKNOWN
    gpus_per_node: Found[int] = UNKNOWN
    gpus: Found[int] = UNKNOWN


class Launch(NamedTuple):
    """A launcher's command: which launcher, its flags, and the entry point it starts."""

    kind: str
    """``accelerate``, ``torchrun``, ``deepspeed`` or ``python``."""
    command: Command
    flags: dict[str, Flag]
    entry: str | None
    lines: Sequence[str] = ()
    """The script's lines, where a flag's vanished value may still be seen."""
    args: int = 0
    """Where the entry point's own arguments start in ``command.fields``."""
    allocation: Job | None = None
    """What the job submitter the launch stands behind asks for (``mason.py --num_nodes --gpus``)."""


def parse(command: Command) -> Launch | None:
    """The launcher in ``command`` (after any ``srun …``/``env`` prefix), or None."""
    values = [field.value for field in command.fields]
    # ``pip install deepspeed``, ``echo torchrun …``: a launcher only as the program, or behind a wrapper
    last = len(values) if program_name(values[0]) in WRAPPERS else 1
    for index, text in enumerate(values[:last]):
        name = program_name(text)
        nxt = values[index + 1] if index + 1 < len(values) else None
        if name == "accelerate" and nxt == "launch":
            return _launch("accelerate", command, index + 2)
        if name == "torchrun":
            return _launch("torchrun", command, index + 1)
        if name == "deepspeed":
            return _launch("deepspeed", command, index + 1)
        module = (
            values[index + 2] if name in ("python", "python3") and nxt == "-m" and index + 2 < len(values) else None
        )
        if module in TORCH_MODULES or module in ACCELERATE_MODULES:
            return _launch("torchrun" if module in TORCH_MODULES else "accelerate", command, index + 3)
        if name in ("python", "python3"):
            return _launch("python", command, index + 1)
    return None


def _launch(kind: str, command: Command, start: int) -> Launch:
    """The launcher's own flags (up to the entry point) and the entry point: ``-m``/``--module X`` or a script."""
    fields = command.fields
    index, module = start, False
    while index < len(fields):
        text = _flag_text(fields[index])
        if not text.startswith("-"):
            break
        bare = text.lstrip("-")
        if bare in ("m", "module"):
            module = True
        index += 1
        if "=" not in text and bare not in LAUNCHER_SWITCHES and index < len(fields):
            following = fields[index].value or ""
            if not following.startswith("-") and not following.endswith(".py"):
                index += 1  # the flag's value
    entry = fields[index].value if index < len(fields) else None
    if kind == "python" and not module and not (entry or "").endswith(".py"):
        entry = None
    found = read_flags(fields[start:index], LAUNCHER_SWITCHES, COUNTS)
    for field in fields[start:index]:  # --nproc_per_node=$UNKNOWN: written, its value decided at run time
        name = _flag_text(field).lstrip("-").partition("=")[0]
        if field.value is None and name and name not in found:
            found[name] = Flag(name, None, field.word.raw, field.line, "runtime", field.file)
    return Launch(kind, command, found, entry, args=index + 1)


def _flag_text(field: Field) -> str:
    """A launcher argument as written when its value is unknown (``--node_rank=$RANK``): still a flag."""
    if field.value is not None:
        return field.value
    raw = field.word.raw
    return raw if raw.startswith("-") and "=" in raw else ""


class Submission(NamedTuple):
    """A command a job submitter runs: what the submitter asks for, and where the command starts."""

    job: Job
    start: int
    """The index in ``command.fields`` of the first word after ``--``."""


def submission(command: Command) -> Submission | None:
    """``python mason.py [its flags] -- CMD``: the job mason asks for, and where ``CMD`` starts; else None.

    The one reading of ``mason.py`` (allenai/open-instruct@e6c3044 mason.py:122-126,
    598-599): Beaker is asked for ``--num_nodes`` replicas (1 unless said) of ``--gpus``
    GPUs each (0 unless said).  Every further ``--`` starts another task of the same
    size, so a command with more than one is not read.
    """
    values = [field.value for field in command.fields]
    at = next((i for i, text in enumerate(values[:MAX_WRAPPED]) if program_name(text) in SUBMITTERS), None)
    if at is None or not _run_by_python(values, at):
        return None
    cuts = [i for i in range(at + 1, len(values)) if values[i] == "--"]
    if len(cuts) != 1 or cuts[0] + 1 >= len(values):
        return None
    asked = read_flags(command.fields[at + 1 : cuts[0]], frozenset(), frozenset({"num_nodes", "gpus"}))
    where = f"{program_name(values[at])}'s default"
    nodes = from_override(asked["num_nodes"].override(), as_int) if "num_nodes" in asked else default(1, f"{where}: 1")
    per_node = from_override(asked["gpus"].override(), as_int) if "gpus" in asked else default(0, f"{where}: 0")
    gpus = derived(product(nodes, per_node), [nodes, per_node], f"{program_name(values[at])} --num_nodes × --gpus")
    return Submission(Job(nodes, per_node, gpus), cuts[0] + 1)


def _run_by_python(values: list[str | None], at: int) -> bool:
    """``python mason.py`` or ``uv run mason.py``: open-instruct's scripts write both
    (allenai/open-instruct@e6c3044 scripts/train/qwen/*.sh use ``uv run``)."""
    if at >= 1 and program_name(values[at - 1]) in ("python", "python3"):
        return True
    return at >= 2 and program_name(values[at - 2]) == "uv" and values[at - 1] == "run"


def submitted(command: Command) -> Launch | None:
    """The launch a job submitter runs (:func:`submission`), with what it asks for; else None.

    On several nodes mason rewrites accelerate's ``--num_processes N`` into ``N ×
    num_nodes`` with ``--num_machines`` (mason.py:533-545): the count written after
    ``--`` is per node.  mason runs what follows ``--`` through a shell, so a written
    ``\\&\\&`` joins commands there: the launch is the part that is one
    (``source setup.sh \\&\\& accelerate launch …``).
    """
    found = submission(command)
    if found is None:
        return None
    for part in after_and(command.fields[found.start :]):
        inner = command._replace(fields=part, prefix=(), inner=())
        launch = parse(inner)
        if launch is not None and launch.entry is not None:
            return launch._replace(allocation=found.job)
    return None


def after_and(fields: Sequence[Field]) -> list[tuple[Field, ...]]:
    """The commands a shell runs from words joined by a literal ``&&`` (also glued: ``&&python``)."""
    parts: list[list[Field]] = [[]]
    for field in fields:
        text = field.value or ""
        if text.startswith("&&"):
            parts.append([])
            if len(text) > 2:
                parts[-1].append(field._replace(value=text[2:], tail=text[2:]))
            continue
        parts[-1].append(field)
    return [tuple(part) for part in parts if part]


def job(text: str) -> Job:
    """The ``#SBATCH`` headers at the top of a script (sbatch stops reading them at the first command)."""
    found: dict[str, Found[int]] = {}
    for number, line in enumerate(text.splitlines()[:MAX_HEADER_LINES], start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break
        match = _SBATCH.match(stripped)
        if match:
            _header(match.group(1).split("#", 1)[0].split(), number, found)
    return Job(found.get("nodes", UNKNOWN), found.get("gpus_per_node", UNKNOWN), found.get("gpus", UNKNOWN))


def _header(words: list[str], line: int, found: dict[str, Found[int]]) -> None:
    """One ``#SBATCH`` line's options into ``found`` (nodes, GPUs per node, GPUs)."""
    options = {"-N": "nodes", "--nodes": "nodes", "--gpus-per-node": "gpus_per_node", "--gres": "gpus_per_node"}
    options |= {"-G": "gpus", "--gpus": "gpus"}
    index = 0
    while index < len(words):
        word = words[index]
        name, sep, value = word.partition("=")
        if not sep and name in options and index + 1 < len(words):
            value, index = words[index + 1], index + 1
        elif not sep and name[:2] in ("-N", "-G") and len(name) > 2:
            name, value = name[:2], name[2:]
        index += 1
        key = options.get(name)
        if key is None:
            continue
        count = _count(value, gres=name == "--gres")
        written = f"#SBATCH {word}" if sep or len(word) > 2 else f"#SBATCH {name} {value}"
        found[key] = Found(count, Origin.SET if count is not None else Origin.RUNTIME, line, written)


def _count(value: str, gres: bool) -> int | None:
    """``8``, ``gpu:8``, ``gpu:a100:8`` (a GPU count); a range (``2-4``) or another resource is not one."""
    if gres:
        parts = [p for p in value.split(",") if p.startswith("gpu")]
        value = parts[0] if len(parts) == 1 else ""
    match = _GPU_COUNT.match(value)
    return int(match.group(1)) if match else None


def read(reading: Interpreter, text: str, path: str) -> Run | None:
    """The run of the first launcher command, with the Slurm job around it; None when there is none."""
    slurm = job(text)
    commands = [c for c in reading.commands if c.fields[0].value is not None]
    # ``srun … bash -c "cd …; torchrun …"``: the commands inside the string too, in order
    every = [inner for c in commands for inner in (c, *inner_commands(c))]
    # an entry point not known here may be anything, an export or an evaluation after the run: not read
    launches = [launch for c in every if (launch := submitted(c) or parse(c)) is not None and launch.entry is not None]
    # a launch that surely runs before one inside ``if``/``&&`` (``if [[ $1 != slurm ]]; then deepspeed …``)
    ranked = sorted((launch for launch in launches if launch.kind != "python"), key=lambda x: x.command.conditional)
    chosen = ranked[0] if ranked else None
    if chosen is None:
        # a plain python entry point counts only where the job or the devices say its GPUs
        chosen = next(
            (
                launch
                for launch in reversed(launches)
                if (
                    launch.allocation is not None
                    or slurm.gpus_per_node.line
                    or slurm.gpus.line
                    or visible_devices(launch.command)
                    or known(launch).alone
                )
            ),
            None,
        )
    if chosen is None:
        return None
    gpus, nodes, per_node, backend = _hardware(chosen._replace(lines=text.splitlines()), slurm, reading)
    model, backend = _trainer(chosen, backend)
    problems = tuple(reading.problems)
    return Run(
        path=path,
        entry_point=chosen.entry,
        launch_line=chosen.command.line,
        gpus=gpus,
        nodes=nodes,
        gpus_per_node=per_node,
        roles=(Role("trainer", gpus, nodes, per_node),),
        train_backend=backend,
        model=model,
        problems=problems,
    )


Hardware = tuple[Found[int], Found[int], Found[int], Found[str]]


def _hardware(launch: Launch, slurm: Job, reading: Interpreter) -> Hardware:
    if launch.allocation is not None:
        return _allocated(launch, launch.allocation, reading)
    if launch.kind == "accelerate":
        return _accelerate(launch, reading)
    if launch.kind == "torchrun":
        per_node = _flag(launch, PROCS, ("gpus_per_node", slurm.gpus_per_node), "torchrun's default: 1")
        nodes = _flag(launch, ("nnodes",), ("nodes", slurm.nodes), "torchrun's default: 1")
        return (*_per_node_times(nodes, per_node), UNKNOWN)
    if launch.kind == "deepspeed":
        per_node = _flag(launch, ("num_gpus", "num-gpus"), ("gpus_per_node", slurm.gpus_per_node), "")
        nodes = _flag(launch, ("num_nodes", "num-nodes"), ("nodes", slurm.nodes), "")
        # the deepspeed launcher alone does not make the training DeepSpeed's (a Trainer without a ds config is DDP)
        return (*_per_node_times(nodes, per_node), UNKNOWN)
    alone = known(launch)
    if alone.alone:  # however many GPUs the job or the devices offer, one process uses one
        one = Found(1, Origin.DERIVED, launch.command.line, alone.alone)
        backend = Found(alone.alone_backend, Origin.DERIVED, launch.command.line, alone.alone)
        return one, one, one, backend if alone.alone_backend else UNKNOWN
    pinned = visible_devices(launch.command)
    if pinned is not None:
        return pinned, default(1, "one process on this machine"), pinned, UNKNOWN
    if slurm.gpus.value is not None and slurm.nodes.value is None and not slurm.gpus_per_node.line:
        return slurm.gpus, UNKNOWN, UNKNOWN, UNKNOWN
    nodes = slurm.nodes if slurm.nodes.line else default(1, "sbatch's default: 1 node")
    return (*_per_node_times(nodes, slurm.gpus_per_node), UNKNOWN)


def _flag(launch: Launch, names: Sequence[str], slurm: tuple[str, Found[int]], fallback: str) -> Found[int]:
    """A launcher's count flag; a Slurm variable in it is the job's header; absent, the launcher's default.

    ``slurm`` is the Slurm variable group (``nodes``/``gpus_per_node``) and the job's value.
    """
    flag = next((launch.flags[n] for n in names if n in launch.flags), None)
    if flag is None:
        if fallback:
            return default(1, fallback)
        return Found(None, Origin.RUNTIME, launch.command.line, f"{launch.kind} decides at run time")
    found = from_override(flag.override(), _count_or_range)
    group, job_value = slurm
    if found.value is None and job_value.value is not None and _names_slurm(launch, flag, group):
        return Found(job_value.value, job_value.origin, job_value.line, f"{flag.raw} = {job_value.written}")
    return found


def _count_or_range(text: str) -> int | None:
    """``4`` or torchrun's fixed range ``4:4``; an elastic range (``1:4``) is decided at run time."""
    low, sep, high = text.partition(":")
    if sep:
        return as_int(low) if low == high else None
    return as_int(text)


def _names_slurm(launch: Launch, flag: Flag, group: str) -> bool:
    """Whether the flag is written with one of Slurm's variables for ``group`` (``--nnodes $SLURM_NNODES``).

    An unquoted variable the reader cannot know vanishes from the command, so the
    script's own lines of the command are looked at too, for the flag followed by it.
    """
    variables = "|".join(SLURM_VARIABLES[group])
    pattern = re.compile(rf"--{re.escape(flag.name)}(?:=|\s+)[\"'\\]*\$\{{?(?:{variables})\b")
    if pattern.search(flag.raw):
        return True
    if flag.file:
        return False
    span = launch.lines[max(0, launch.command.line - 1) : flag.line][-MAX_COMMAND_LINES:]
    return any(pattern.search(line[:2000]) for line in span)


def _per_node_times(nodes: Found[int], per_node: Found[int]) -> tuple[Found[int], Found[int], Found[int]]:
    shown = f"{_shown(per_node)} per node × {_shown(nodes)} nodes"
    return derived(product(nodes, per_node), [per_node, nodes], shown), nodes, per_node


def _shown(found: Found[int]) -> str:
    return "unknown" if found.value is None else str(found.value)


def _accelerate(launch: Launch, reading: Interpreter) -> Hardware:
    flags = {name.replace("-", "_"): flag for name, flag in launch.flags.items()}
    settings = _config(flags.get("config_file"), reading)
    processes = from_override(flags["num_processes"].override(), as_int) if "num_processes" in flags else None
    machines = from_override(flags["num_machines"].override(), as_int) if "num_machines" in flags else None
    backend = next(
        (Found(name, Origin.SET, flags[f].line, flags[f].raw) for f, name in ACCELERATE_BACKENDS if f in flags), None
    )
    if settings is not None:
        processes, machines = processes or settings.processes(), machines or settings.machines()
        backend = backend or settings.backend()
    unread: Found[Any] = Found(None, Origin.RUNTIME, launch.command.line, "accelerate's config (default or unread)")
    processes, machines = processes or unread, machines or unread
    return processes, machines, accelerate.per_machine(processes, machines), backend or unread


def _config(flag: Flag | None, reading: Interpreter) -> accelerate.Settings | None:
    """The accelerate config a launch names, when the caller's files can read it."""
    if flag is None or not flag.value or reading.files is None:
        return None
    return accelerate.from_file(flag.value, reading.path, reading.files)


def _allocated(launch: Launch, job: Job, reading: Interpreter) -> Hardware:
    """A submitted launch runs on what the submitter asks for, unless it starts another count per node
    (or, for ``torchrun``/``deepspeed``, is written for another number of nodes)."""
    started, inner_nodes, inner_per_node, backend = _hardware(launch._replace(allocation=None), Job(), reading)
    if launch.kind != "accelerate":
        started = inner_per_node if launch.kind != "python" else UNKNOWN
    gpus, nodes, per_node = _per_node_times(job.nodes, job.gpus_per_node)
    if started.value is not None and per_node.value is not None and started.value != per_node.value:
        written = f"the job asks for {per_node.value} GPUs per node, its launch starts {started.value} per node"
        gpus = Found(None, Origin.UNKNOWN, started.line, written, started.file)
    elif launch.kind in ("torchrun", "deepspeed") and inner_nodes.line and inner_nodes.value != nodes.value:
        written = f"the job asks for {_shown(nodes)} nodes, its launch is written for {_shown(inner_nodes)}"
        gpus = Found(None, Origin.UNKNOWN, inner_nodes.line, written, inner_nodes.file)
    return gpus, nodes, per_node, backend


class Trainer(NamedTuple):
    """A framework's own entry point that no adapter reads: the flags naming its model, and its one backend."""

    model: tuple[str, ...]
    backend: str | None
    why: str
    """Where the backend is decided, cited."""
    alone: str = ""
    """Run by plain ``python``: the ``accelerate.Accelerator()`` it builds (cited) runs one process on one GPU."""
    alone_backend: str | None = None
    """Its backend then (``single``), when nothing in its code can turn DeepSpeed on without a launcher."""


_OPENRLHF = Trainer(
    ("model.model_name_or_path", "pretrain"),  # the dotted flag since 0.10.2, --pretrain before
    "deepspeed",
    "OpenRLHF trains with DeepSpeed (openrlhf/utils/utils.py get_strategy, OpenRLHF/OpenRLHF@3c3be62)",
)
_OPEN_INSTRUCT = Trainer(("model_name_or_path",), None, "")
_ACCELERATOR = "one process, one GPU: accelerate's Accelerator() without a launcher"
TRAINERS = {
    **{f"openrlhf.cli.train_{kind}": _OPENRLHF for kind in ("sft", "dpo", "rm", "kto", "prm", "kd")},
    # allenai/open-instruct@e6c3044: the non-RL trainers.  dpo.py and olmo_core_finetune.py train with
    # OLMo-core's HSDP (dpo.py:270-271, olmo_core_finetune.py:213-214) under torchrun: backend unknown
    "open_instruct/dpo.py": _OPEN_INSTRUCT,
    "open_instruct/olmo_core_finetune.py": _OPEN_INSTRUCT,
    # Accelerator(...) at finetune.py:396 and dpo_tune_cache.py:139, which may build a DeepSpeed plugin from
    # their own flags (--zero_stage); reward_modeling.py:189 builds none
    **{
        f"open_instruct/{name}.py": _OPEN_INSTRUCT._replace(alone=f"{_ACCELERATOR} (open_instruct/{name}.py:{line})")
        for name, line in (("finetune", 396), ("dpo_tune_cache", 139))
    },
    "open_instruct/reward_modeling.py": _OPEN_INSTRUCT._replace(
        alone=f"{_ACCELERATOR} (open_instruct/reward_modeling.py:189)", alone_backend="single"
    ),
}
"""Entry points whose model flag (and backend) are known, though the framework's adapter reads only its RL launch."""


def _trainer(launch: Launch, backend: Found[str]) -> tuple[Found[str], Found[str]]:
    """The model (and the backend, when the trainer has one) of an entry point :data:`TRAINERS` knows."""
    trainer = known(launch)
    if not trainer.model:
        return UNKNOWN, backend
    args = read_flags(launch.command.fields[launch.args :])
    flag = next((args[name] for name in trainer.model if name in args), None)
    model = from_override(flag.override(), as_model) if flag is not None else UNKNOWN
    if trainer.backend is not None and backend.value is None:
        backend = Found(trainer.backend, Origin.DERIVED, launch.command.line, f"{launch.entry}: {trainer.why}")
    return model, backend


NOT_KNOWN = Trainer((), None, "")


def known(launch: Launch) -> Trainer:
    """The :data:`TRAINERS` entry of a launch's entry point (one with no model flags when it is not known)."""
    entry = (launch.entry or "").removeprefix("./")
    return next((t for name, t in TRAINERS.items() if entry == name or entry.endswith("/" + name)), NOT_KNOWN)


__all__ = ["TRAINERS", "Job", "Launch", "Trainer", "job", "parse", "read", "submitted"]
