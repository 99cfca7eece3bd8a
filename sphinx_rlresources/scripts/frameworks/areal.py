"""AReaL: a YAML config with ``allocation_mode`` and ``cluster:``, launched by ``python3 -m areal.launcher.*``.

AReaL (inclusionAI/AReaL) places its run with one string, ``allocation_mode``: the
inference engine's parallelism ``+`` the trainer's, each ``[backend:]`` then dimensions
(``sglang:d4p1t1+d4p1t1``, the older ``sglang.d4p1m1+d2p2m1``, ``sglang:d8p1t4+fsdp:d4c8``).
Each side's GPUs are the product of its data, pipeline, tensor (``t``, or ``m`` in the
older spelling) and context dimensions, and the run's are both sides' together -- read
only when the string has exactly that shape; a single side, or three, is not read, so the
GPUs stay unknown.  A trainer's expert dimension (``megatron:d2p2t2e2``) splits the experts
over GPUs already counted: it adds none (``ParallelStrategy.world_size``,
inclusionAI/AReaL@4aef98d ``areal/api/alloc_mode.py:153-160``), and a world size it does
not divide with the pipeline (alloc_mode.py:95-107) is not read.  A Megatron MoE
hybrid, ``megatron:(attn:d1p6t1c1|ffn:d1p6t1e1)``, has the attention part's world size
(data × tensor × pipeline × context); the FFN part's (data × pipeline × tensor × expert,
its pipeline the attention's when unsaid, its data what is left of the attention's
world) must be the same, as AReaL checks (alloc_mode.py:943-1030), else it is not read.  Today's
configs write the two sides apart, ``rollout.backend: "sglang:d4p1t1"`` and
``actor.backend: "fsdp:d4p1t1"`` (inclusionAI/AReaL@4aef98d ``examples/math/gsm8k_grpo.yaml``),
read the same way; a rollout given a ``scheduling_strategy`` (placed with another role) is not.  Nodes and
GPUs per node are ``cluster.n_nodes`` and ``cluster.n_gpus_per_node``; the model is
``actor.path``.  A launch script's ``key=value`` overrides win over its ``--config``.
A rollout-only config (``rollout.backend`` and ``cluster:`` with no ``actor:`` section,
inclusionAI/AReaL@4aef98d ``examples/experimental/inference_service/tau2_rollout.yaml``)
trains nothing -- a training entry point cannot run without one, ``actor.backend`` being
required (``TrainEngineConfig.backend``, ``areal/api/cli_args.py:1160``, ``MISSING``) -- so
its GPUs are the rollout side's and its model the engine's own (``sglang.model_path``,
``vllm.model``), a whole-value reference to another key (``${model_path}``) followed.

No settings table (:class:`~.base.Table`) is kept: the hardware is the allocation string,
parsed, and the few other settings are read as written, with no default assumed.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from typing import TypeVar

from sphinx_rlresources.safe.yamlsafe import YamlDocument
from sphinx_rlresources.scripts.files import Files
from sphinx_rlresources.scripts.frameworks.argv import as_model
from sphinx_rlresources.scripts.frameworks.base import as_int, as_text, derived, from_override, module_after
from sphinx_rlresources.scripts.frameworks.easyr1 import Config, config_file
from sphinx_rlresources.scripts.hydra import read_hydra
from sphinx_rlresources.scripts.interpreter import Command, Interpreter
from sphinx_rlresources.scripts.run import UNKNOWN, Found, Origin, Problem, Role, Run
from sphinx_rlresources.scripts.settings import ScriptSettings

NAME = "areal"
T = TypeVar("T")
ENGINES = frozenset({"sglang", "vllm"})
TRAINERS = {"fsdp": "fsdp", "megatron": "megatron", "archon": "archon"}
_SIDE = re.compile(r"^(?:([a-z]+)[:.])?((?:[dptmce][0-9]{1,4})+)$")
_DIM = re.compile(r"([dptmce])([0-9]{1,4})")
_HYBRID = re.compile(r"^([a-z]+):\(?attn:((?:[cdtp][0-9]{1,4})+)\|ffn:((?:[detp][0-9]{1,4})+)\)?$")
"""AReaL's ``hybrid_moe_syntax`` after a backend (alloc_mode.py:608-620): its parentheses optional."""
_BACKEND = re.compile(r"^([a-z]+)[:.]")
LAUNCHERS = ("areal.launcher.", "areal.infra.launcher.")
OWN_KEYS = frozenset(
    {"allocation_mode", "scheduler.type", "cluster.n_nodes", "cluster.n_gpus_per_node"}
    | {"rollout.backend", "actor.backend"}
)
"""Overrides of AReaL's config no other framework read here spells so (NeMo-RL's are ``cluster.num_nodes``...)."""
MAX_HOPS = 4
"""``${a}`` -> ``${b}`` references followed to a model before it is called unknown."""
TRAINER_ONLY = frozenset({"sft", "rw", "dpo"})
"""``train_dataset.type`` of AReaL's entry points that train with no rollout."""


def claims(command: Command) -> bool:
    """AReaL's launchers (``python3 -m areal.launcher.local|ray|slurm ENTRY.py --config X.yaml``, since
    renamed ``areal.infra.launcher.*``), or an entry point run directly with ``--config`` and an
    override only AReaL spells (``python3 examples/math/gsm8k_rl.py --config X.yaml scheduler.type=ray``,
    inclusionAI/AReaL@4aef98d ``examples/skypilot/ray_cluster.sky.yaml``)."""
    module, _after = module_after(command)
    if module is None:
        return False
    if module.startswith(LAUNCHERS):
        return True
    values = [field.value or "" for field in command.fields]
    return (
        module.endswith(".py")
        and any(text == "--config" or text.startswith("--config=") for text in values)
        and any(text.partition("=")[0] in OWN_KEYS for text in values)
    )


def claims_config(document: YamlDocument) -> bool:
    """An AReaL config: ``allocation_mode`` (or today's ``rollout.backend``) beside a ``cluster:`` mapping,
    or a trainer-only one (:func:`trains_only`)."""
    value = document.value
    if not isinstance(value, dict) or not isinstance(value.get("cluster"), dict):
        return False
    rollout = value.get("rollout")
    return (
        "allocation_mode" in value
        or (isinstance(rollout, dict) and "backend" in rollout and "actor" in value)
        or trains_only(value)
        or serves_only(value)
    )


def serves_only(value: dict[object, object]) -> bool:
    """A rollout-only config: ``rollout.backend`` with no ``actor:`` and no ``allocation_mode`` (nothing trains)."""
    rollout = value.get("rollout")
    return (
        isinstance(rollout, dict) and "backend" in rollout and "actor" not in value and "allocation_mode" not in value
    )


def trains_only(value: dict[object, object]) -> bool:
    """An SFT, reward-model or DPO config: ``actor.backend``, a dataset of that type, and no rollout at all.

    AReaL's trainer-only entry points (inclusionAI/AReaL@4aef98d ``examples/math/gsm8k_sft.yaml``,
    ``examples/alignment/hhrlhf_rw.yaml``, ``hhrlhf_dpo.yaml``) have no ``rollout:`` section and
    no ``allocation_mode``; their ``train_dataset.type`` says which (``sft``, ``rw``, ``dpo``).
    An RL config without a rollout section would still have AReaL's default rollout, so the
    dataset's type is required.
    """
    actor, data = value.get("actor"), value.get("train_dataset")
    return (
        "rollout" not in value
        and "allocation_mode" not in value
        and isinstance(actor, dict)
        and "backend" in actor
        and isinstance(data, dict)
        and data.get("type") in TRAINER_ONLY
    )


def read(command: Command, reading: Interpreter, path: str) -> Run:
    """The :class:`Run` of an AReaL launch: its overrides over the ``--config`` it names."""
    settings = read_hydra(reading, command)
    named = _config_flags(command)
    config, problems = config_file(named[-1] if named else None, reading, path)
    return _Reader(settings, config, path).run(problems)


def _config_flags(command: Command) -> list[Found[str]]:
    """``--config X.yaml`` (or ``--config=X.yaml``), as a found value with its line."""
    fields = command.fields
    found = []
    for index, field in enumerate(fields):
        text = field.value or ""
        if text == "--config" and index + 1 < len(fields):
            nxt = fields[index + 1]
            found.append(Found(nxt.value, Origin.SET if nxt.value else Origin.RUNTIME, nxt.line, nxt.word.raw))
        elif text.startswith("--config="):
            found.append(Found(text.split("=", 1)[1], Origin.SET, field.line, text))
    return found


def read_config(document: YamlDocument, path: str, files: Files | None = None) -> Run:
    """The :class:`Run` of an AReaL config on its own."""
    return _Reader(ScriptSettings(), Config(document, path), path).run([])


def sides(text: str) -> list[tuple[str | None, int]] | None:
    """Each side of an allocation string: its backend (or None) and its GPUs; None when not of the read shape."""
    parts = text.strip().strip("'\"").split("+")
    found = [side(part) for part in parts]
    if len(parts) != 2 or None in found:
        return None
    return [item for item in found if item is not None]


def side(text: str) -> tuple[str | None, int] | None:
    """``sglang:d4p1t1`` -> (``sglang``, 4); None when not of the read shape (AReaL ignores whitespace)."""
    compact = re.sub(r"\s+", "", text.strip().strip("'\""))
    hybrid = _HYBRID.match(compact)
    if hybrid is not None:
        world = _hybrid(_dims(hybrid.group(2)), _dims(hybrid.group(3)))
        return None if world is None else (hybrid.group(1), world)
    match = _SIDE.match(compact)
    if match is None:
        return None
    dims = _dims(match.group(2))
    experts = dims.pop("e", 1)
    if experts > 1 and match.group(1) not in TRAINERS:
        return None  # only a trainer's side has experts (an engine's dimensions are d, t, p)
    world = math.prod(dims.values())
    if world % (dims.get("p", 1) * experts):
        return None  # AReaL rejects experts that do not divide the world with the pipeline
    return match.group(1), world


def _dims(text: str) -> dict[str, int]:
    """``d4p1t2`` -> {d: 4, p: 1, t: 2}; the last of a letter wins, as AReaL's parser keeps it."""
    return {dim: int(size) for dim, size in _DIM.findall(text)}


def _hybrid(attn: dict[str, int], ffn: dict[str, int]) -> int | None:
    """The attention part's world size when the FFN part's agrees (alloc_mode.py:943-1030), else None."""
    world = math.prod(attn.get(dim, 1) for dim in "dtpc")
    pipeline = ffn.get("p", attn.get("p", 1))
    if pipeline != attn.get("p", 1):
        return None  # AReaL: "Pipeline parallel size for attention and FFN modules must be identical"
    rest = ffn.get("e", 1) * ffn.get("t", 1) * pipeline
    data = ffn.get("d", world // rest if world % rest == 0 else 0)
    return world if data * rest == world else None


class _Reader:
    def __init__(self, s: ScriptSettings, config: Config, path: str) -> None:
        self.s = s
        self.config = config
        self.path = path
        document = config.document.value if config.document is not None else None
        self.alone = isinstance(document, dict) and trains_only(document) and "rollout.backend" not in s.overrides
        """A trainer-only config (SFT, reward model, DPO): the actor's GPUs are the run's."""
        self.serving = isinstance(document, dict) and serves_only(document) and "actor.backend" not in s.overrides
        """A rollout-only config: the rollout's GPUs are the run's, and nothing trains."""

    def get(self, key: str, convert: Callable[[str], T | None]) -> Found[T]:
        override = self.s.overrides.get(key)
        if override is not None:
            return from_override(override, convert)
        return self.config.found(key, convert)

    def placement(self) -> tuple[Found[str], Found[str], list[tuple[str | None, int]] | None]:
        """Where the sides are written -- one ``allocation_mode``, or (today) ``rollout.backend`` and
        ``actor.backend`` -- and the sides read; a rollout placed on the actor's GPUs is not read."""
        allocation = self.get("allocation_mode", as_text)
        if allocation.line or allocation.origin is not Origin.UNKNOWN:
            return allocation, allocation, sides(allocation.value) if allocation.value else None
        rollout, actor = self.get("rollout.backend", as_text), self.get("actor.backend", as_text)
        if self.alone or self.serving:
            placed = rollout if self.serving else actor
            found = side(placed.value or "")
            return placed, placed, None if found is None else [found]
        shared = self.get("rollout.scheduling_strategy.type", as_text)
        parsed = [side(rollout.value or ""), side(actor.value or "")]
        if shared.line or None in parsed:
            return rollout, actor, None
        return rollout, actor, [item for item in parsed if item is not None]

    def run(self, problems: list[Problem]) -> Run:
        allocation, trainer_at, parsed = self.placement()
        nodes = self.get("cluster.n_nodes", as_int)
        per_node = self.get("cluster.n_gpus_per_node", as_int)
        engine, backend, gpus = UNKNOWN, UNKNOWN, self._unread(allocation, trainer_at)
        roles: tuple[Role, ...] = ()
        if parsed is not None and len(parsed) == 1 and self.serving:
            ((inference, served),) = parsed
            engine = self._part(allocation, inference) if inference in ENGINES else UNKNOWN
            gpus = _within(self._part(allocation, served), nodes, per_node)
            roles = (Role("rollout", gpus),)
        elif parsed is not None and len(parsed) == 1:
            ((trainer, trained),) = parsed
            backend = self._part(trainer_at, TRAINERS[trainer]) if trainer in TRAINERS else UNKNOWN
            gpus = _within(self._part(trainer_at, trained), nodes, per_node)
            roles = (Role("trainer", gpus),)
        elif parsed is not None and parsed[0][0] in ENGINES:
            (inference, served), (trainer, trained) = parsed
            engine = self._part(allocation, inference or "")
            backend = self._part(trainer_at, TRAINERS[trainer]) if trainer in TRAINERS else UNKNOWN
            rollout_gpus, trainer_gpus = self._part(allocation, served), self._part(trainer_at, trained)
            written = allocation.written if allocation is trainer_at else f"{allocation.written}, {trainer_at.written}"
            gpus = dataclasses.replace(
                derived(served + trained, [allocation, trainer_at], f"{written}: {served} + {trained} GPUs"),
                file=allocation.file,
            )
            roles = (Role("trainer", trainer_gpus), Role("rollout", rollout_gpus))
            gpus, roles = self._other_pools(gpus, roles)
            gpus = _within(gpus, nodes, per_node)
        served_by, trained_by = _backends(allocation, trainer_at)
        if engine.value is None and served_by in ENGINES:  # a side of a shape not read still names its backend
            engine = self._part(allocation, served_by)
        if backend.value is None and trained_by in TRAINERS:
            backend = self._part(trainer_at, TRAINERS[trained_by])
        found = list(self.s.problems)
        return Run(
            path=self.path,
            framework=NAME,
            entry_point=self.s.entry_point if self.s.trainer_line else None,
            launch_line=self.s.trainer_line,
            gpus=gpus,
            nodes=nodes,
            gpus_per_node=per_node,
            roles=roles,
            colocated=Found(False, allocation.origin, allocation.line, allocation.written, allocation.file)
            if roles
            else UNKNOWN,
            train_backend=backend,
            engine=engine,
            model=self._model(engine),
            variables=self.s.variables,
            problems=tuple(found + problems),
        )

    def _model(self, engine: Found[str]) -> Found[str]:
        """``actor.path``; in a rollout-only config the engine's own model key, a ``${key}`` it names followed."""
        key = "actor.path"
        if self.serving:
            key = "vllm.model" if engine.value == "vllm" else "sglang.model_path"
        for _hop in range(MAX_HOPS):
            named = re.fullmatch(r"\$\{([A-Za-z_][\w.]*)\}", self.get(key, as_text).value or "")
            if named is None:
                return self.get(key, _model)
            key = named.group(1)
        return UNKNOWN

    def _other_pools(self, gpus: Found[int], roles: tuple[Role, ...]) -> tuple[Found[int], tuple[Role, ...]]:
        """Every other section with a ``backend`` of its own (a distillation ``teacher:``) is a pool of its own.

        A section whose backend is another's (``ref: backend: ${actor.backend}``) or that is placed
        with another role (``scheduling_strategy``) shares that role's GPUs; one whose backend is
        not read leaves the run's GPUs unknown.
        """
        document = self.config.document.value if self.config.document is not None else {}
        names = set(document) if isinstance(document, dict) else set()
        names |= {key.split(".")[0] for key in self.s.overrides if key.count(".") == 1 and key.endswith(".backend")}
        for name in sorted(str(n) for n in names - {"rollout", "actor"}):
            backend = self.get(f"{name}.backend", as_text)
            if (
                backend.value is None
                or "${" in backend.value
                or self.get(f"{name}.scheduling_strategy.type", as_text).line
            ):
                continue
            parsed = side(backend.value)
            if parsed is None or gpus.value is None:
                unread = f"{backend.written}: a pool whose GPUs are not read"
                return Found(None, Origin.UNKNOWN, backend.line, unread, backend.file), roles
            pool = self._part(backend, parsed[1])
            total = derived(gpus.value + parsed[1], [gpus, pool], f"{gpus.written} + {name} {parsed[1]}")
            gpus, roles = dataclasses.replace(total, file=gpus.file), (*roles, Role(name, pool))
        return gpus, roles

    @staticmethod
    def _part(allocation: Found[str], value: T) -> Found[T]:
        return Found(value, allocation.origin, allocation.line, allocation.written, allocation.file)

    @staticmethod
    def _unread(allocation: Found[str], trainer_at: Found[str]) -> Found[int]:
        if not allocation.line:
            return UNKNOWN
        both = allocation.written if allocation is trainer_at else f"{allocation.written}, {trainer_at.written}"
        written = f"{both} (a shape, or a placement with another role, not read)"
        return Found(None, Origin.UNKNOWN, allocation.line, written, allocation.file)


def _backends(allocation: Found[str], trainer_at: Found[str]) -> tuple[str | None, str | None]:
    """The backend each side names (``sglang:…``, ``megatron:(attn:…|ffn:…)``), whatever its dimensions."""
    first = (allocation.value or "").strip("'\"")
    last = (trainer_at.value or "").strip("'\"")
    if allocation is trainer_at:
        first, _, last = first.partition("+")
    served, trained = _BACKEND.match(first), _BACKEND.match(last)
    return (served.group(1) if served else None), (trained.group(1) if trained else None)


def _within(gpus: Found[int], nodes: Found[int], per_node: Found[int]) -> Found[int]:
    """The sides' GPUs, unless the cluster cannot hold them (a CPU template, a server started elsewhere)."""
    if gpus.value is None or nodes.value is None or per_node.value is None:
        return gpus
    room = nodes.value * per_node.value
    if 0 < gpus.value <= room:
        return gpus
    written = f"{gpus.written}, more than the cluster's {nodes.value} × {per_node.value}: not read"
    return Found(None, Origin.UNKNOWN, gpus.line, written, gpus.file)


def _model(text: str) -> str | None:
    """``actor.path``, unless it is an interpolation (``${...}``) left to OmegaConf at run time."""
    return None if "${" in text else as_model(text)


__all__ = ["NAME", "claims", "claims_config", "read", "read_config", "side", "sides"]
