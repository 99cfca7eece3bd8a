"""The argument vector of a launch hidden inside another command: ``ray job submit -- …``, ``bash -c "…"``.

Frameworks launched through Ray (OpenRLHF, slime) put the trainer after ``ray job
submit [its own flags] --``; on Slurm the whole submission is often one double-quoted
string handed to ``srun … bash -c "…"``.  bash parses that string again when it runs
it, so reading it again with the same interpreter is exactly what bash would do --
with the values the outer script had already expanded into it.  The flags of the
trainer are then read with :func:`~.base.read_flags`, where a flag known to take a value
but followed by another flag lost its value to an unknown unquoted expansion
(``--actor-num-gpus-per-node ${NUM_GPUS}`` with ``NUM_GPUS`` from ``nvidia-smi``): that
value is unknown until run time, never the flag read as a switch.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from sphinx_rlresources.scripts.expand import Field
from sphinx_rlresources.scripts.frameworks.base import as_text, derived, program_name, read_flags
from sphinx_rlresources.scripts.interpreter import Command, Interpreter
from sphinx_rlresources.scripts.run import Found, Origin, Problem, Role

T = TypeVar("T")


def inner_commands(command: Command) -> list[Command]:
    """The commands of ``bash -c STRING`` in ``command``, as the reading found them (on its budget, once)."""
    return list(command.inner)


def launched(command: Command, claims: Callable[[Command], bool]) -> Command | None:
    """The command itself when ``claims`` says it is the launch, else the launch inside its ``bash -c``."""
    if claims(command):
        return command
    for inner in command.inner:
        if claims(inner):
            return inner
    return None


PLACEHOLDER = re.compile(r"\.\.\.|<[^>]*>|\{[^}]*\}|YOUR_|your[-_]")
"""A value a reader must fill in (``...``, ``<model_name>``, ``{model}``, ``YOUR_MODEL``): not a value yet."""


def as_model(text: str) -> str | None:
    """A model path or hub id as written; None for a placeholder the reader must fill in."""
    value = as_text(text)
    return None if value is None or PLACEHOLDER.search(value) else value


ELISIONS = frozenset({"...", "…", "[...]", "<...>"})


def elided(fields: Iterable[Field]) -> bool:
    """Whether a command stands for more than it shows (``... # other training args`` in a README):
    any flag may hide there, so no default can be taken for what it does not show."""
    return any(field.value in ELISIONS for field in fields)


def when(found: Found[T], test: Callable[[T], bool], written: str) -> Found[bool]:
    """A yes/no that follows from one setting (a critic for GAE), with its origin; unknown when the setting is."""
    if found.value is None:
        return Found(None, found.origin, found.line, found.written, found.file)
    origin = Origin.DERIVED if found.origin is Origin.SET else found.origin
    return Found(test(found.value), origin, found.line, f"{written} ({found.written})", found.file)


SERVER_MODULES = ("sglang.launch_server", "vllm.entrypoints.openai.api_server", "vllm.entrypoints.api_server")
TP_FLAGS = ("tp", "tp-size", "tp_size", "tensor-parallel-size", "tensor_parallel_size")
DP_FLAGS = ("dp", "dp-size", "dp_size", "data-parallel-size", "data_parallel_size")


def is_server(command: Command) -> bool:
    """An inference server the script starts beside the trainer (a teacher, a reward model): SGLang's or vLLM's."""
    values = [field.value or "" for field in command.fields]
    if len(values) > 1 and program_name(values[0]) == "vllm" and values[1] == "serve":
        return True
    return any(values[i] == "-m" and values[i + 1] in SERVER_MODULES for i in range(len(values) - 1))


def visible_devices(command: Command) -> Found[int] | None:
    """How many devices ``CUDA_VISIBLE_DEVICES=0,1 cmd`` lets the command see (None: no such prefix)."""
    for name, field in command.prefix:
        if name in ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ASCEND_RT_VISIBLE_DEVICES"):
            if field.value is None:
                return Found(None, Origin.RUNTIME, field.line, f"{name}={field.word.raw}", field.file)
            ids = [part for part in field.value.split(",") if part.strip()]
            return Found(len(ids), Origin.DERIVED, field.line, f"{name}={field.value}", field.file)
    return None


def server_gpus(command: Command) -> Found[int]:
    """A side server's GPUs: its visible devices when the script pins them, else tensor × data parallel sizes."""
    pinned = visible_devices(command)
    if pinned is not None:
        return pinned
    found = read_flags(command.fields)
    sizes = []
    for names in (TP_FLAGS, DP_FLAGS):
        flag = next((found[n] for n in names if n in found), None)
        if flag is None:
            sizes.append(Found(1, Origin.FRAMEWORK_DEFAULT, 0, "the engine's default: 1"))
        else:
            number = int(flag.value) if flag.value and flag.value.isdigit() else None
            sizes.append(Found(number, Origin.SET if number else Origin.RUNTIME, flag.line, flag.raw, flag.file))
    if sizes[0].value is None or sizes[1].value is None:
        return Found(None, Origin.RUNTIME, sizes[0].line or sizes[1].line or command.line, "server parallel sizes")
    origin = (
        Origin.DERIVED if all(s.origin is not Origin.FRAMEWORK_DEFAULT for s in sizes) else Origin.FRAMEWORK_DEFAULT
    )
    return Found(sizes[0].value * sizes[1].value, origin, command.line, "server: tensor × data parallel")


def side_servers(
    reading: Interpreter, launch: Command, besides: Sequence[Command] = ()
) -> list[tuple[Command, Found[int]]]:
    """The inference servers the script starts besides its launch (and ``besides``: those counted already)."""
    known = [launch, *besides]
    return [(c, server_gpus(c)) for c in reading.commands if all(c is not k for k in known) and is_server(c)]


def dangling(reading: Interpreter, launch: Command) -> list[Command]:
    """Commands right after the launch that start with a flag: the line before lost its trailing ``\\``.

    bash ends the launch at a line without a backslash, so the flags after it are not
    the trainer's at all (and bash then fails to run ``--flag`` as a command).
    """
    found = []
    after = False
    for command in reading.commands:
        if command is launch or (command.line == launch.line and command.fields == launch.fields):
            after = True
            continue
        if not after:
            continue
        first = command.fields[0].value or ""
        if not first.startswith("--"):
            break
        found.append(command)
    return found


def dangling_problems(reading: Interpreter, launch: Command) -> list[Problem]:
    found = []
    for command in dangling(reading, launch):
        first = command.fields[0]
        found.append(
            Problem(
                command.line,
                f"this line starts with {first.value}, but the launch before it ended a line without a trailing "
                "backslash: bash ends the command there, so these flags never reach the trainer; add the '\\'",
                "",
                kind="other",
            )
        )
    return found


def with_servers(
    reading: Interpreter,
    launch: Command,
    total: Found[int],
    roles: tuple[Role, ...],
    besides: Sequence[Command] = (),
) -> tuple[Found[int], tuple[Role, ...], bool]:
    """The run's GPUs and roles with the inference servers the script starts beside the launch (a teacher);
    ``besides`` are servers the reader counted already (TRL's rollout server)."""
    servers = side_servers(reading, launch, besides)
    if not servers:
        return total, roles, False
    parts = [total] + [gpus for _, gpus in servers]
    value = sum(p.value for p in parts if p.value is not None) if all(p.value is not None for p in parts) else None
    written = " + ".join([total.written or str(total.value)] + [f"server {g.value} ({g.written})" for _, g in servers])
    combined = derived(value, parts, written)
    extra = tuple(Role("server", gpus) for _, gpus in servers)
    return combined, roles + extra, True
