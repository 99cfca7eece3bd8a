"""prime-rl: TOML configs (``rl.toml``, ``sft.toml``, a trainer's, an orchestrator's) and ``uv run rl @ x.toml``.

prime-rl (PrimeIntellect-ai/prime-rl) configures a run with pydantic models filled from
TOML files and CLI flags: ``uv run rl @ base.toml @ overlay.toml`` deep-merges the files
left to right, ``--trainer @ t.toml`` merges a file into one section, and
``--deployment.num-train-gpus 2`` (dotted, kebab-case; ``--flag``/``--no-flag`` for
booleans) wins over both (``docs/configuration.md``).  One ``rl.toml`` holds the whole
run: ``[trainer]``, ``[orchestrator]``, ``[inference]``, shared ``[model]`` and
``seq_len``, and ``[deployment]``, which places it -- ``single_node`` (the default):
``num_train_gpus`` + ``num_infer_gpus`` GPUs on one node (1 + 1; no inference GPUs
without an ``[inference]`` table, ``entrypoints/rl.py:132``); ``multi_node``:
``num_train_nodes`` + ``num_infer_nodes × num_infer_replicas`` nodes of
``gpus_per_node`` GPUs (8), the inference nodes inferred from ``[inference.deployment]``
when unsaid (``rl.py:304-319``).  Configs of before 2026-02-24 name GPU ids instead
(``trainer_gpu_ids = [1]``, ``inference_gpu_ids = [0]``, their defaults at ``db50929``
``src/prime_rl/rl.py:107-108``): the run has the distinct ids' count.  A config of one
component alone (``uv run trainer @ train.toml``) settles its model and lengths, not
the GPUs its launcher gives it.

prime-rl trains with FSDP2 (``torch.distributed.fsdp.fully_shard``,
``src/prime_rl/trainer/model.py:22``) and serves rollouts with vLLM
(``src/prime_rl/inference/vllm/``).  Each setting read from the files is declared in
:data:`TABLE` (:data:`SFT_TABLE` for ``sft``), with its keys (first written wins),
converter, default and the line of the config class that defaults it
(``packages/prime-rl-configs/src/prime_rl/configs/`` at PrimeIntellect-ai/prime-rl@559b447).
Nothing is evaluated; an unreadable file named by a launch leaves what it could set unknown.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from sphinx_rlresources.safe.tomlsafe import TomlDocument, TomlError, load
from sphinx_rlresources.scripts.files import Files, candidates
from sphinx_rlresources.scripts.frameworks import primeevals, primeinfer
from sphinx_rlresources.scripts.frameworks.base import (
    ORIGINS,
    Setting,
    Table,
    added,
    as_bool,
    as_float,
    as_int,
    as_lower,
    as_recipe_model,
    as_switch_or_table,
    default,
    derived,
    times,
)
from sphinx_rlresources.scripts.frameworks.layers import Entry, Merged
from sphinx_rlresources.scripts.interpreter import Command, Interpreter
from sphinx_rlresources.scripts.run import UNKNOWN, Found, Origin, Problem, Role, Run

NAME = "prime-rl"
PROGRAMS = ("rl", "sft")
"""The entry points that launch a whole run (``[project.scripts]`` of prime-rl's pyproject.toml)."""
SECTIONS = ("trainer", "orchestrator", "inference")
WRAPPERS = frozenset({"uv", "run", "uvx", "exec", "nohup", "env"})
MAX_FILES = 16
"""The most ``@ file`` arguments one launch merges (each is read once, bounded)."""


SHOWN = "{key}: {value} (prime-rl's default, {source})"
# The rl entry point's settings (RLConfig and its sections): dotted keys, the first written winning (a
# component's own before the shared one); lines at PrimeIntellect-ai/prime-rl@559b447.
TABLE = Table(
    NAME,
    {
        "model": Setting(
            # inference.vllm.model: the served model's key since InferenceConfig takes vLLM's arguments
            (
                "model.name",
                "trainer.model.name",
                "orchestrator.model.name",
                "inference.model.name",
                "inference.vllm.model",
            ),
            as_recipe_model,
            "Qwen/Qwen3-0.6B",
            "shared.py:146",
        ),
        # trainer.model.seq_len and orchestrator.seq_len win over the shared seq_len (rl.py:287-288)
        "max_total_length": Setting(
            ("trainer.model.seq_len", "orchestrator.seq_len", "seq_len"), as_int, 2048, "trainer.py:182"
        ),
        "response_length": Setting(
            ("orchestrator.train.sampling.max_completion_tokens", "orchestrator.sampling.max_tokens"), as_int
        ),
        "algorithm": Setting(("orchestrator.algo.type",), as_lower, "grpo", "orchestrator.py:448"),
        "train_cp": Setting(("trainer.model.cp",), as_int, 1, "trainer.py:224"),
        "train_ep": Setting(("trainer.model.ep",), as_int),  # "auto" by default: decided at run time
        "param_offload": Setting(("trainer.model.fsdp_cpu_offload",), as_bool, False, "trainer.py:197"),
        # the optimizer states in host memory, weights on the GPU (optim/state_offload.py:10-16)
        "optimizer_offload": Setting(("trainer.model.optim_cpu_offload",), as_bool, True, "trainer.py:200"),
        "rollout_tp": Setting(
            ("inference.vllm.tensor_parallel_size", "inference.parallel.tp"), as_int, 1, "inference.py:84"
        ),
        "memory_fraction": Setting(
            ("inference.vllm.gpu_memory_utilization", "inference.gpu_memory_utilization"),
            as_float,
            0.9,
            "inference.py:102",
        ),
        "lora_rank": Setting(("trainer.model.lora.rank",), as_int, 16, "trainer.py:104"),
    },
    SHOWN,
)
# The sft entry point's (SFTConfig): the model and data sections, no orchestrator.
SFT_TABLE = Table(
    f"{NAME} (sft)",
    {
        "model": Setting(("model.name",), as_recipe_model, "Qwen/Qwen3-0.6B", "shared.py:146"),
        "max_total_length": Setting(("data.seq_len",), as_int, 128, "sft.py:43"),
        "train_batch_size": Setting(("data.batch_size",), as_int, 128, "sft.py:40"),
        "micro_batch_per_gpu": Setting(("data.micro_batch_size",), as_int, 1, "sft.py:46"),
        "train_cp": Setting(("model.cp",), as_int, 1, "trainer.py:224"),
        "param_offload": Setting(("model.fsdp_cpu_offload",), as_bool, False, "trainer.py:197"),
        "optimizer_offload": Setting(("model.optim_cpu_offload",), as_bool, True, "trainer.py:200"),
        "lora_rank": Setting(("model.lora.rank",), as_int, 16, "trainer.py:104"),
    },
    SHOWN,
)
# [deployment]: (rl default, sft default, the lines that say them).
DEPLOYMENT: dict[str, tuple[int | None, int | None, str]] = {
    "gpus_per_node": (8, 8, "rl.py:173, sft.py:151"),
    "num_train_gpus": (1, 1, "rl.py:180, sft.py:158"),
    "num_infer_gpus": (1, 1, "rl.py:183, sft.py:161"),
    "num_train_nodes": (None, 2, "sft.py:174 (required in rl.py:200)"),
    "num_infer_replicas": (1, 1, "rl.py:206"),
}
OLD_IDS = {"inference_gpu_ids": [0], "trainer_gpu_ids": [1]}
"""GPU ids of configs before 2026-02-24, and their defaults (db5092914 src/prime_rl/rl.py:107-108)."""
RL_KEYS = frozenset(
    {*SECTIONS, "deployment", "model", "seq_len", "max_steps", "ckpt", "monitors", "log", "slurm", "weight_broadcast"}
    | {"env_vars", "run", "output_dir", "clean", "resume", "tokenizer", "rollout_transport", "dry_run", "wandb"}
    | {*OLD_IDS, "teacher_gpu_ids", "teacher_inference", "bench", "async_level", "continuous_batching"}
)
"""Top-level keys an ``rl`` config may hold (RLConfig's fields, today's and those of the GPU-id generation)."""


def _words(command: Command) -> list[str | None]:
    return [field.value for field in command.fields]


def _program(command: Command) -> tuple[str | None, int]:
    """The entry point after ``uv run`` (or none of it), and the index of its first argument."""
    values = _words(command)
    index = 0
    while index < len(values) and values[index] in WRAPPERS:
        index += 1
    if index < len(values):
        return values[index], index + 1
    return None, index


def claims(command: Command) -> bool:
    """``[uv run] rl|sft … @ file.toml …`` (or a section's ``--trainer @ file.toml``)."""
    program, start = _program(command)
    return program in PROGRAMS and "@" in _words(command)[start:]


# -- files ------------------------------------------------------------------------------------------
def kind_of(document: TomlDocument) -> str | None:
    """Which prime-rl config a TOML is (``rl``, ``sft``, ``trainer``, ``orchestrator``, ``inference``), or None.

    Only shapes no other tool's TOML has are claimed: an ``rl`` config's sections or GPU
    ids among RLConfig's own keys, an ``sft`` config's ``[model]`` and ``[data]`` beside
    its ``[deployment]`` or ``[optim]``, a trainer's ``[model]`` and ``[optim]``, an
    orchestrator's ``group_size``/``batch_size`` with its ``[train]`` sources, an
    inference config's ``[vllm]`` among InferenceConfig's keys (:mod:`.primeinfer`).
    """
    value = document.value
    keys = set(value)
    if primeinfer.claims(value):
        return "inference"
    tables = {key for key, item in value.items() if isinstance(item, dict)}
    if keys <= RL_KEYS and (tables & {"trainer", "orchestrator"} or keys & set(OLD_IDS)):
        return "rl"
    if {"model", "data"} <= tables and tables & {"deployment", "optim", "loss"}:
        return "sft"
    if {"model", "optim"} <= tables and "data" not in tables and not tables & {"project", "tool"}:
        return "trainer"
    train = value.get("train")
    if keys & {"group_size", "batch_size"} and isinstance(train, dict) and train.keys() & {"sampling", "source"}:
        return "orchestrator"
    return None


def _entries(document: TomlDocument, file: str, prefix: tuple[str, ...]) -> dict[str, Entry]:
    """Each leaf (and each table, present even when empty) as a dotted key with its line."""
    found: dict[str, Entry] = {}

    def walk(node: dict[str, Any], path: tuple[str, ...]) -> None:
        for key, item in node.items():
            here = (*path, str(key))
            line = document.line(here)
            dotted = ".".join((*prefix, *here))
            if isinstance(item, dict) and item:
                walk(item, here)
            else:
                shown = "{}" if isinstance(item, dict) else _shown(item)
                found[dotted] = Entry(item, Origin.SET, line, file, f"{'.'.join(here)} = {shown}")

    walk(document.value, ())
    return found


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value[:80]}"'
    return str(value)[:80]


@dataclass(frozen=True)
class Layers:
    """What the files and flags of one run set, merged as prime-rl merges them, with what could not be read."""

    merged: Merged
    problems: tuple[Problem, ...] = ()
    kind: str = "rl"


def _read_toml(name: str, script: str, files: Files | None) -> tuple[TomlDocument | None, str, str]:
    """The TOML a launch names (from the root, else the script's folder): (document, path, why not)."""
    if files is None:
        return None, name, ""
    for candidate in [*candidates("", name, ""), *candidates(script, name, "")]:
        text = files.read(candidate)
        if text is None:
            continue
        try:
            return load(text), candidate, ""
        except TomlError as err:
            return None, candidate, f"{candidate}:{err.line}:{err.column}: not valid TOML ({err.message})"
    return None, name, ""


class _Arguments:
    """A launch's arguments after the entry point: ``@ file`` (into a section or the root) and ``--key value``."""

    def __init__(self, command: Command, start: int) -> None:
        self.fields = command.fields[start:]
        self.files: list[tuple[str, Found[str]]] = []
        self.flags: list[tuple[str, Entry]] = []
        self._read()

    def _read(self) -> None:
        index = 0
        fields = self.fields
        while index < len(fields):
            text = fields[index].value or ""
            nxt = fields[index + 1] if index + 1 < len(fields) else None
            if text == "@" and nxt is not None:
                self.files.append(("", self._named(nxt)))
                index += 2
                continue
            if not text.startswith("--") or len(text) < 3:
                index += 1
                continue
            name, sep, inline = text[2:].partition("=")
            key = name.replace("-", "_")
            if not sep and nxt is not None and nxt.value == "@" and index + 2 < len(fields):
                self.files.append((key, self._named(fields[index + 2])))
                index += 3
                continue
            if sep:
                self.flags.append((key, self._entry(fields[index], inline)))
                index += 1
            elif nxt is None or (nxt.value or "").startswith("--"):
                negated = key.startswith("no_")
                self.flags.append(
                    (key[3:] if negated else key, Entry(not negated, Origin.SET, fields[index].line, "", text))
                )
                index += 1
            else:
                self.flags.append((key, self._entry(nxt, nxt.value, raw=f"{text} {nxt.word.raw}")))
                index += 2

    @staticmethod
    def _named(field: Any) -> Found[str]:
        origin = ORIGINS.get(field.origin, Origin.RUNTIME) if field.value is not None else Origin.RUNTIME
        return Found(field.value, origin, field.line, field.word.raw, field.file)

    @staticmethod
    def _entry(field: Any, value: str | None, raw: str = "") -> Entry:
        origin = ORIGINS.get(field.origin, Origin.RUNTIME) if value is not None else Origin.RUNTIME
        return Entry(value, origin, field.line, field.file, raw or field.word.raw)


def layers_of(command: Command, reading: Interpreter, path: str) -> Layers:
    """The files a launch names (left to right) and its flags over them, merged."""
    _program_name, start = _program(command)
    arguments = _Arguments(command, start)
    merged = Merged()
    problems: list[Problem] = []
    for section, named in arguments.files[:MAX_FILES]:
        if named.value is None:
            merged.cover(named.written)
            continue
        document, file, why = _read_toml(named.value, path, reading.files)
        if document is None:
            merged.cover(file)
            if why:
                problems.append(Problem(named.line, f"{why}; what it sets is unknown", "config", "other", "warning"))
            continue
        merged.apply(_entries(document, file, (section,) if section else ()), [])
    merged.apply(dict(arguments.flags), [])
    program, _start = _program(command)
    return Layers(merged, tuple(problems), "sft" if program == "sft" else "rl")


# -- reading ----------------------------------------------------------------------------------------
def read(command: Command, reading: Interpreter, path: str) -> Run:
    """The :class:`Run` of ``uv run rl|sft @ …``."""
    layers = layers_of(command, reading, path)
    program, _start = _program(command)
    found = tuple(reading.problems)
    run = _Reader(layers, path).run()
    variables = {name: value.value for name, value in reading.vars.items()}
    return replace(
        run,
        entry_point=program,
        launch_line=command.line,
        problems=(*found, *layers.problems),
        variables=variables,
    )


def read_toml(text: str, path: str) -> Run:
    """The :class:`Run` of a TOML file on its own: a prime-rl config (an evals one: :mod:`.primeevals`), else
    not recognised (with why)."""
    try:
        document = load(text)
    except TomlError as err:
        problem = Problem(err.line, f"the config is not valid TOML (column {err.column}): {err.message}")
        return Run(path=path, problems=(problem,), unrecognised="the file is not valid TOML")
    kind = kind_of(document)
    if kind is None and primeevals.claims(document):
        return primeevals.read(document, path)
    if kind is None:
        keys = [str(key) for key in list(document.value)[:5]]
        listed = ", ".join(f"'{key}'" for key in keys[:4]) + (", ..." if len(keys) > 4 else "")
        why = f"no reader knows a TOML config with these top-level keys ({listed or 'none'})"
        return Run(path=path, unrecognised=why)
    merged = Merged()
    merged.apply(_entries(document, path, (kind,) if kind in SECTIONS else ()), [])
    return _Reader(Layers(merged, (), kind), path).run()


COMPONENT_SETTINGS = {
    "trainer": frozenset({"model", "max_total_length", "train_cp", "train_ep", "param_offload", "optimizer_offload"}),
    "orchestrator": frozenset({"model", "max_total_length", "response_length", "algorithm"}),
    "inference": frozenset({"model", "rollout_tp", "memory_fraction"}),
}
"""What a component's config alone settles: its own section's settings."""
RUNTIME_GPUS = "the GPUs of a component are its launcher's (the rl entry point, torchrun, a pod)"


class _Reader:
    def __init__(self, layers: Layers, path: str) -> None:
        self.m = layers.merged
        self.kind = layers.kind
        self.path = path

    def run(self) -> Run:
        table = SFT_TABLE if self.kind == "sft" else TABLE
        names = [
            n for n in table.settings if n != "lora_rank" and n in COMPONENT_SETTINGS.get(self.kind, table.settings)
        ]
        # a setting's default holds only when every file of the chain was read
        values: dict[str, Any] = {name: table.read(name, self.m.found, self.m.complete) for name in names}
        serving = (self.kind == "rl" and self.m.has("inference")) or self.kind == "inference"
        if self.kind == "rl" and not serving:  # no server started: its engine settings are another's
            values.pop("rollout_tp", None)
            values.pop("memory_fraction", None)
        if self.kind == "sft":
            values["algorithm"] = default("sft", "uv run sft: supervised fine-tuning")
        elif self.kind in ("rl", "orchestrator"):
            values["rollout_n"] = self._group()
            values["train_batch_size"] = self._prompts()
        if self.kind not in ("orchestrator", "inference"):  # an inference config trains nothing
            values["train_backend"] = default("fsdp", "prime-rl trains with FSDP2 (src/prime_rl/trainer/model.py:22)")
            values["lora_rank"] = self._lora("model" if self.kind == "sft" else "trainer.model")
            values.update(self._full_offload("model" if self.kind == "sft" else "trainer.model"))
        if serving:
            values["engine"] = default("vllm", "prime-rl serves rollouts with vLLM (src/prime_rl/inference/vllm/)")
        if serving and self.kind != "inference":  # an inference config has no trainer to share GPUs with
            values["colocated"] = default(False, "prime-rl's trainer and inference hold GPUs of their own")
        gpus, nodes, per_node, roles = self._placement()
        return Run(
            path=self.path,
            framework=NAME,
            gpus=gpus,
            nodes=nodes,
            gpus_per_node=per_node,
            roles=roles,
            **values,
        )

    def _full_offload(self, prefix: str) -> dict[str, Found[bool]]:
        """``full_offload`` (trainer.py:203), ``true`` or a section: the masters, gradients and states on the host,
        bf16 weights on the GPU (optim/offload.py:1554); ``optim_cpu_offload`` is then false (trainer.py:309-318)."""
        said = self.m.found(key := f"{prefix}.full_offload", as_switch_or_table)
        child = self.m.entry(min(below)) if said.value is None and (below := self.m.below.get(key)) else None
        if child is not None and child.origin is not Origin.UNKNOWN:  # [trainer.model.full_offload] with settings
            said = Found(True, child.origin, child.line, f"[{key}]", child.file)
        if not said.value:
            return {} if said.value is None else {"compute_copy": said}
        return {"param_offload": said, "optimizer_offload": said, "compute_copy": said}

    # -- placement --------------------------------------------------------------------------------
    def _deployment(self, key: str) -> Found[int]:
        found = self.m.found(f"deployment.{key}", as_int)
        if found.line or found.written or not self.m.complete:
            return found
        rl_default, sft_default, source = DEPLOYMENT[key]
        value = sft_default if self.kind == "sft" else rl_default
        if value is None:
            return Found(None, Origin.UNKNOWN, 0, f"deployment.{key} (required: no default, {source})")
        return default(value, f"deployment.{key}: {value} (prime-rl's default, {source})")

    def _placement(self) -> Placement:
        if self.kind == "inference":
            return primeinfer.placement(self.m)
        if self.kind not in ("rl", "sft"):
            gpus: Found[int] = Found(None, Origin.RUNTIME, 0, RUNTIME_GPUS)
            return gpus, gpus, gpus, ()
        if any(self.m.has(key) for key in OLD_IDS):
            return self._ids()
        shape = self.m.found("deployment.type", as_lower)
        if shape.value == "multi_node":
            return self._multi_node(shape)
        if shape.value not in (None, "single_node") or (shape.value is None and (shape.line or not self.m.complete)):
            return _unknown(f"{shape.written or 'deployment.type'}: a placement not read")
        return self._single_node()

    def _infer_share(self) -> Found[int] | None:
        """Inference GPUs without an ``[inference]`` table: none for sft, unknown for rl (a server elsewhere).

        None when the table is there, so the deployment says them.
        """
        if self.m.has("inference"):
            return None
        if self.kind == "sft":
            return Found(0, Origin.FRAMEWORK_DEFAULT, 0, "no [inference]: no online evals, no inference GPUs")
        return Found(None, Origin.UNKNOWN, 0, "no [inference]: the server is started elsewhere, on GPUs not said here")

    def _single_node(self) -> Placement:
        train = self._deployment("num_train_gpus")
        infer = self._infer_share() or self._deployment("num_infer_gpus")
        one = default(1, "deployment.type single_node: one node")
        trainer = Role("trainer", train, one, train)
        if infer.value is None:
            return Found(None, Origin.UNKNOWN, infer.line, infer.written, infer.file), one, UNKNOWN, (trainer,)
        total = _sum([train, infer], f"num_train_gpus {train.value} + num_infer_gpus {infer.value}")
        server = "eval" if self.kind == "sft" else "rollout"  # sft's server only runs online evals
        roles = (trainer, Role(server, infer, one, infer)) if infer.value else (trainer,)
        return total, one, total, roles

    def _multi_node(self, shape: Found[str]) -> Placement:
        per_node = self._deployment("gpus_per_node")
        train = self._deployment("num_train_nodes")
        infer = self._infer_nodes()
        nodes = _sum([train, infer], f"num_train_nodes {train.value} + inference nodes {infer.value}")
        gpus = times(nodes, per_node, "nodes × deployment.gpus_per_node")
        trainer = Role("trainer", times(train, per_node, "num_train_nodes × gpus_per_node"), train, per_node)
        if infer.value == 0:
            return gpus, nodes, per_node, (trainer,)
        rollout = Role("rollout", times(infer, per_node, "inference nodes × gpus_per_node"), infer, per_node)
        return gpus, nodes, per_node, (trainer, rollout)

    def _infer_nodes(self) -> Found[int]:
        """``num_infer_nodes × num_infer_replicas``; unsaid, from ``[inference.deployment]`` (rl.py:304-319)."""
        written = self.m.found("deployment.num_infer_nodes", as_int)
        replicas = self._deployment("num_infer_replicas") if self.kind == "rl" else default(1, "sft: one replica")
        if written.line or written.written or self.kind == "sft":
            count = (
                written if written.line or written.written else default(0, "deployment.num_infer_nodes: 0 (sft.py:177)")
            )
        elif not self.m.has("inference"):
            count = self._infer_share() or UNKNOWN
        else:
            count = self._inferred()
        return times(count, replicas, "num_infer_nodes × num_infer_replicas")

    def _inferred(self) -> Found[int]:
        kind = self.m.found("inference.deployment.type", as_lower)
        if kind.value in (None, "single_node") and not kind.line:
            return default(1, "deployment.num_infer_nodes unsaid: one inference node (rl.py:315-316)")
        if kind.value == "multi_node":
            nodes = self.m.found("inference.deployment.num_nodes", as_int)
            return nodes if nodes.line else default(2, "inference.deployment.num_nodes: 2 (inference.py:378)")
        if kind.value == "disaggregated":
            prefill, decode = primeinfer.disaggregated_nodes(self.m)
            return _sum([prefill, decode], f"prefill {prefill.value} + decode {decode.value} nodes")
        return Found(None, Origin.UNKNOWN, kind.line, f"{kind.written}: inference nodes not read", kind.file)

    def _ids(self) -> Placement:
        """The GPU-id generation: the distinct ids the trainer and the inference server use."""
        parts = {name: self._id_list(name, fallback) for name, fallback in OLD_IDS.items()}
        if not self.m.has("inference"):
            parts["inference_gpu_ids"] = Found(
                None, Origin.UNKNOWN, 0, "no [inference]: the server is started elsewhere"
            )
        if self.m.has("teacher_gpu_ids"):
            parts["teacher_gpu_ids"] = self._id_list("teacher_gpu_ids", [])
        one = default(1, "GPU ids of one node")
        train = parts["trainer_gpu_ids"]
        trainer = Role("trainer", _count(train), one, _count(train))
        if any(p.value is None for p in parts.values()):
            unread: Found[int] = Found(None, Origin.UNKNOWN, 0, "a GPU id list not read")
            return unread, one, UNKNOWN, (trainer,)
        every = sorted({i for p in parts.values() for i in p.value or ()})
        shown = ", ".join(f"{name} {p.value}" for name, p in parts.items())
        total = derived(len(every), list(parts.values()), f"distinct ids of {shown}")
        infer = parts["inference_gpu_ids"]
        return total, one, total, (trainer, Role("rollout", _count(infer), one, _count(infer)))

    def _id_list(self, key: str, fallback: list[int]) -> Found[list[int]]:
        found = self.m.found(key, _ids)
        if found.line or found.written or not self.m.complete:
            return found
        return default(fallback, f"{key} = {fallback} (prime-rl's default before 2026-02-24, rl.py:107-108 at db50929)")

    # -- the rest ----------------------------------------------------------------------------------------
    def _lora(self, prefix: str) -> Found[int]:
        """The adapter's rank when ``[…model.lora]`` is there (16 unless said), 0 when it is not (``lora: None``)."""
        table = self.m.found(f"{prefix}.lora", lambda value: value)
        if isinstance(table.value, str) and table.value.lower() == "none":
            return Found(0, Origin.SET, table.line, table.written, table.file)
        if self.m.has(f"{prefix}.lora"):
            rank = self.m.found(f"{prefix}.lora.rank", as_int)
            if rank.line or rank.written or not self.m.complete:
                return rank
            return default(16, f"{prefix}.lora.rank: 16 (prime-rl's default, trainer.py:104)")
        if not self.m.complete:
            return UNKNOWN
        return default(0, f"no [{prefix}.lora]: the whole model trains (trainer.py:256)")

    def _group(self) -> Found[int]:
        """Rollouts per example: ``group_size`` (1), unless a train source sets its own (orchestrator.py:637-640)."""
        sources = self.m.found("orchestrator.train.source", lambda value: value)
        if isinstance(sources.value, list) and any(isinstance(s, dict) and "group_size" in s for s in sources.value):
            return Found(None, Origin.UNKNOWN, sources.line, "a train source sets its own group_size", sources.file)
        for key in ("orchestrator.group_size", "orchestrator.rollouts_per_example"):
            found = self.m.found(key, as_int)
            if found.line or found.written:
                return found
        if not self.m.complete:
            return UNKNOWN
        return default(1, "orchestrator.group_size: 1 (prime-rl's default, orchestrator.py:517)")

    def _prompts(self) -> Found[int]:
        """Prompts per step: ``batch_size`` samples over ``group_size`` samples each (orchestrator.py:508, 629)."""
        batch = self.m.found("orchestrator.batch_size", as_int)
        group = self._group()
        if batch.value is None or group.value is None or group.value <= 0 or batch.value % group.value:
            return derived(None, [batch], "orchestrator.batch_size / group_size") if batch.line else UNKNOWN
        return derived(
            batch.value // group.value, [batch, group], f"batch_size {batch.value} / group_size {group.value}"
        )


Placement = tuple[Found[int], Found[int], Found[int], tuple[Role, ...]]


def _unknown(why: str) -> Placement:
    unknown: Found[int] = Found(None, Origin.UNKNOWN, 0, why)
    return unknown, unknown, unknown, ()


def _sum(parts: list[Found[int]], written: str) -> Found[int]:
    first, second = parts
    return derived(added(first, second), parts, written)


def _count(ids: Found[list[int]]) -> Found[int]:
    value = len(set(ids.value)) if ids.value is not None else None
    return Found(value, ids.origin, ids.line, ids.written, ids.file)


def _ids(value: Any) -> list[int] | None:
    """``[0, 1]`` (TOML) or ``0,1`` / ``[0,1]`` / ``0 1`` (a flag): GPU ids; None for anything else."""
    items: Iterable[Any]
    if isinstance(value, list):
        items = value
    elif isinstance(value, str):
        items = [w for w in value.strip().strip("[]").replace(",", " ").split() if w]
    else:
        return None
    ids = [as_int(item) for item in items]
    return [i for i in ids if i is not None] if all(i is not None and i >= 0 for i in ids) else None


__all__ = ["NAME", "SFT_TABLE", "TABLE", "claims", "kind_of", "layers_of", "read", "read_toml"]
