"""Hugging Face Accelerate configs (``accelerate launch --config_file X.yaml``): processes, machines, backend.

TRL (and anything launched with ``accelerate launch``) takes its hardware from such a
file: ``num_processes`` is the number of GPUs over all machines, ``num_machines`` the
nodes, and ``distributed_type`` the backend (``DEEPSPEED`` with
``deepspeed_config.zero_stage``, ``FSDP`` with ``fsdp_config.fsdp_version``,
``MULTI_GPU`` for DDP, ``NO`` for one process).  ``distributed_type: "NO"`` runs one
process whatever ``num_processes`` says (TRL's own ``trl/accelerate_configs/single_gpu.yaml``
says 8), and an unquoted ``NO`` is YAML's false -- both read as one process.  The file is
read as a config adapter of its own (``rlresources inspect X.yaml``) and by the TRL
adapter for the config a launch names.

No settings table (:class:`~.base.Table`) is kept: the file's keys are read as written,
with no default assumed but one process for ``distributed_type: NO``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from sphinx_rlresources.safe.yamlsafe import YamlDocument, YamlError, load
from sphinx_rlresources.scripts.files import Files, candidates
from sphinx_rlresources.scripts.frameworks.base import derived, offload_mode
from sphinx_rlresources.scripts.run import UNKNOWN, Found, Origin, Problem, Role, Run

NAME = "accelerate"
MAX_JSON_CHARS = 1_000_000
"""A DeepSpeed config longer than this is not read (real ones are a few hundred bytes)."""
_STAGE = re.compile(r'"stage"\s*:')
BACKENDS = {"DEEPSPEED": "deepspeed", "FSDP": "fsdp", "MULTI_GPU": "ddp", "NO": "single", "MEGATRON_LM": "megatron"}
"""``distributed_type`` -> the backend name of a :class:`Run` (``single``: one process, no wrapper)."""


def claims(document: YamlDocument) -> bool:
    """An accelerate config: a mapping with ``distributed_type`` or ``compute_environment`` and a process count."""
    value = document.value
    if not isinstance(value, dict):
        return False
    return ("distributed_type" in value or "compute_environment" in value) and (
        "num_processes" in value or "distributed_type" in value
    )


class Settings:
    """What an accelerate config says, each value with the line that says it."""

    def __init__(self, document: YamlDocument, file: str = "") -> None:
        self.document = document
        self.value: Mapping[str, Any] = document.value if isinstance(document.value, dict) else {}
        self.file = file

    def found(self, *path: str, value: Any = None) -> Found[Any]:
        """The scalar at ``path`` (None when absent), as written at its line."""
        node: Any = self.value
        for key in path:
            if not isinstance(node, Mapping) or key not in node:
                return UNKNOWN
            node = node[key]
        if isinstance(node, (dict, list)):
            return UNKNOWN
        written = self.document.source.get(tuple(path), str(node))
        line = self.document.mark(tuple(path))[0]
        return Found(node if value is None else value, Origin.SET, line, f"{'.'.join(path)}: {written}", self.file)

    def distributed_type(self) -> Found[str]:
        found = self.found("distributed_type")
        if found.value is False:  # distributed_type: NO, unquoted, is YAML's false
            return Found("NO", found.origin, found.line, found.written, found.file)
        if isinstance(found.value, str):
            return Found(found.value.upper(), found.origin, found.line, found.written, found.file)
        return UNKNOWN

    def backend(self) -> Found[str]:
        kind = self.distributed_type()
        name = BACKENDS.get(kind.value or "")
        if name is None:
            return Found(None, Origin.UNKNOWN, kind.line, kind.written, kind.file) if kind.line else UNKNOWN
        return Found(name, kind.origin, kind.line, kind.written, kind.file)

    def processes(self) -> Found[int]:
        """GPUs over all machines; one for ``distributed_type: NO``, whatever ``num_processes`` says."""
        kind = self.distributed_type()
        if kind.value == "NO":
            return Found(1, Origin.DERIVED, kind.line, f"{kind.written} (one process)", self.file)
        found = self.found("num_processes")
        return found if isinstance(found.value, int) and not isinstance(found.value, bool) else _unknown(found)

    def machines(self) -> Found[int]:
        found = self.found("num_machines")
        return found if isinstance(found.value, int) and not isinstance(found.value, bool) else _unknown(found)

    def integer(self, *path: str) -> Found[int]:
        found = self.found(*path)
        return found if isinstance(found.value, int) and not isinstance(found.value, bool) else _unknown(found)

    def offload(self) -> tuple[Found[bool], Found[bool]]:
        """(parameters, optimizer) kept on the host: DeepSpeed's offload devices or FSDP's ``fsdp_offload_params``."""
        found = []
        for key in ("offload_param_device", "offload_optimizer_device"):
            device = self.found("deepspeed_config", key)
            if isinstance(device.value, str):
                on = device.value.lower() in ("cpu", "nvme")
                found.append(Found(on, device.origin, device.line, device.written, device.file))
            else:
                found.append(UNKNOWN)
        params = self.found("fsdp_config", "fsdp_offload_params")
        if isinstance(params.value, bool) and found[0].value is None:
            found[0] = params
        return found[0], found[1]

    def zero_stage(self, files: Files | None, base: str = "") -> Found[int]:
        """DeepSpeed's ZeRO stage: ``deepspeed_config.zero_stage``, else the JSON ``deepspeed_config_file`` names.

        accelerate reads ``zero_optimization.stage`` from that file when it is given
        (accelerate/utils/dataclasses.py ``DeepSpeedPlugin``); the file is looked for from
        the root, then beside this config; ``"auto"`` or an unreadable file leaves it unknown.
        """
        if self.distributed_type().value != "DEEPSPEED":
            return UNKNOWN
        stage = self.integer("deepspeed_config", "zero_stage")
        if stage.value is not None:
            return stage
        named = self.found("deepspeed_config", "deepspeed_config_file")
        if not isinstance(named.value, str) or files is None:
            return stage
        where = self.file or base
        for candidate in [*candidates("", named.value, ""), *candidates(where, named.value, "")]:
            text = files.read(candidate)
            if text is not None:
                return deepspeed_stage(text, candidate)
        return Found(None, Origin.UNKNOWN, named.line, f"{named.written} (not found)", named.file)

    def parallel(self, name: str) -> Found[int]:
        return self.integer("parallelism_config", f"parallelism_config_{name}_size")

    def problems(self) -> list[Problem]:
        kind = self.distributed_type()
        count = self.found("num_processes")
        if kind.value == "NO" and isinstance(count.value, int) and count.value != 1:
            return [
                Problem(
                    count.line,
                    f"num_processes: {count.value} with distributed_type: NO: accelerate runs one process without a "
                    "distributed backend, so only one GPU is used; set num_processes: 1, or MULTI_GPU/DEEPSPEED/FSDP",
                    "gpus",
                    kind="other",
                    severity="warning",
                )
            ]
        return []


def read(document: YamlDocument, path: str, files: Files | None = None) -> Run:
    """The :class:`Run` of an accelerate config file (hardware and backend only: it names no model)."""
    s = Settings(document)
    gpus, machines = s.processes(), s.machines()
    per_node = per_machine(gpus, machines)
    params, optimizer = s.offload()
    activation = s.found("fsdp_config", "fsdp_activation_checkpointing")
    return Run(
        path=path,
        framework=NAME,
        gpus=gpus,
        nodes=machines,
        gpus_per_node=per_node,
        roles=(Role("trainer", gpus, machines, per_node),),
        train_backend=s.backend(),
        train_tp=s.parallel("tp"),
        train_cp=s.parallel("cp"),
        ulysses_sp=s.parallel("sp"),
        param_offload=params,
        optimizer_offload=optimizer,
        offload_mode=host_offload(params, optimizer),
        gradient_checkpointing=activation if activation.value is True else UNKNOWN,
        zero_stage=s.zero_stage(files, path),
        problems=tuple(s.problems()),
    )


def deepspeed_stage(text: str, file: str) -> Found[int]:
    """``zero_optimization.stage`` of a DeepSpeed JSON config, bounded; unknown for ``"auto"`` or anything else."""
    if len(text) > MAX_JSON_CHARS:
        return Found(None, Origin.UNKNOWN, 0, f"{file}: longer than {MAX_JSON_CHARS} characters, not read", file)
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return Found(None, Origin.UNKNOWN, 0, f"{file}: not valid JSON", file)
    zero = value.get("zero_optimization") if isinstance(value, dict) else None
    stage = zero.get("stage") if isinstance(zero, dict) else None
    match = _STAGE.search(text)
    line = text.count("\n", 0, match.start()) + 1 if match else 0
    if not isinstance(stage, int) or isinstance(stage, bool) or not 0 <= stage <= 3:
        return Found(None, Origin.UNKNOWN, line, f"zero_optimization.stage: {stage!r}", file) if line else UNKNOWN
    return Found(stage, Origin.SET, line, f"zero_optimization.stage: {stage}", file)


def from_file(name: str, script: str, files: Files) -> Settings | None:
    """The accelerate config ``--config_file name`` names, from the script at ``script`` (None: unread or not one)."""
    for candidate in candidates(script, name, ""):
        text = files.read(candidate)
        if text is None:
            continue
        try:
            document = load(text)
        except YamlError:
            return None
        return Settings(document, candidate) if claims(document) else None
    return None


def per_machine(gpus: Found[int], machines: Found[int]) -> Found[int]:
    """GPUs per node: processes over machines, when they divide."""
    if gpus.value is None or machines.value is None or machines.value <= 0 or gpus.value % machines.value:
        return derived(None, [gpus, machines], "num_processes / num_machines")
    return derived(
        gpus.value // machines.value, [gpus, machines], f"{gpus.value} processes / {machines.value} machines"
    )


def host_offload(params: Found[bool], optimizer: Found[bool]) -> Found[str]:
    """DeepSpeed's offload devices and FSDP's ``fsdp_offload_params`` keep states, and their compute, on the host."""
    why = "DeepSpeed/FSDP offload: states live and compute on the host"
    return offload_mode(("compute", why, params), ("compute", why, optimizer))


def _unknown(found: Found[Any]) -> Found[int]:
    return Found(None, Origin.UNKNOWN, found.line, found.written, found.file) if found.line else UNKNOWN


__all__ = [
    "BACKENDS",
    "NAME",
    "Settings",
    "claims",
    "deepspeed_stage",
    "from_file",
    "host_offload",
    "per_machine",
    "read",
]
