"""A framework's words for what a row states: its algorithms as the tables' tasks, its backends' families.

Each adapter declares its own :class:`Vocabulary` beside the code that reads its
settings (``VOCABULARY`` in ``scripts/frameworks/<name>.py``), so adding a framework
adds its words in one place; the task check, ``new`` and the estimator ask
:func:`sphinx_rlresources.scripts.frameworks.vocabulary_of` instead of testing names.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

FAMILIES: Mapping[str, str] = {
    "fsdp": "fsdp",
    "fsdp1": "fsdp",
    "fsdp2": "fsdp",
    "fsdp_turbo": "fsdp",
    "dtensor": "fsdp",
    "automodel": "fsdp",
    "megatron": "megatron",
    "megatron_lite": "megatron",
    "mcore": "megatron",
    "deepspeed": "deepspeed",
    "veomni": "veomni",
    "torchtitan": "torchtitan",
}
"""A backend's name (a row's ``train``, a script's) -> the family that trains the same way.

NeMo-RL's DTensor policy and its Automodel path are FSDP2 sharding (NVIDIA-NeMo/RL
names its own DTensor recipes ``…-fsdp2tp1``), verl's ``fsdp2`` and ``fsdp`` differ in
version only, and ``megatron_lite`` is verl's lighter Megatron worker."""

_KEY = re.compile(r"[^a-z0-9+]+")
_BREAKS = re.compile(r"[-_\s]+")
_LORA = frozenset({"lora", "qlora"})


def task_key(task: str) -> str:
    """A task's algorithm as compared: ``GRPO-LoRA`` -> ``grpo``, ``Dr.GRPO`` -> ``drgrpo``, ``REINFORCE++`` kept."""
    lowered = task.lower()
    if "lora" in lowered:  # most tasks say no LoRA: one substitution is all they cost
        lowered = "".join(p for p in _BREAKS.split(lowered) if p not in _LORA)
    return _KEY.sub("", lowered)


def says_lora(task: str) -> bool:
    """Whether a task (or a name's task word) says only LoRA adapters train: ``GRPO-LoRA``, ``grpo-qlora``."""
    return any(p in _LORA for p in _BREAKS.split(task.lower()))


def family(backend: str) -> str | None:
    """The family of a backend name, or None for a name no vocabulary knows."""
    return FAMILIES.get(backend.lower().strip())


@dataclass(frozen=True)
class Vocabulary:
    """One framework's algorithm names, and its training defaults that lie outside the script."""

    framework: str
    tasks: Mapping[str, tuple[str, ...]]
    """An algorithm as the framework's setting names it -> the tasks it runs, as the tables
    name them; the first is the one ``new`` writes."""
    naming: str | None = None
    """The ``naming`` preset that matches the framework's own launch-file names."""
    fsdp_param_bytes: int = 2
    """Bytes per parameter its FSDP actor keeps (verl keeps fp32 master weights: 4)."""
    megatron_grad_bytes: int = 4
    """Bytes per gradient its Megatron backend keeps (fp32 unless it reduces gradients in bf16)."""
    vocab_parallel: bool = False
    """Its FSDP backend's tensor parallelism shards the output head on the vocabulary (NeMo-RL's
    DTensor plans): the logits and their working set split over the tensor-parallel GPUs."""
    logits_fp32: bool = False
    """Its actor casts the logits to fp32 before scoring them (OpenRLHF): an fp32 copy of them, and
    in the update its gradient too, beside the bf16 logits."""
    pass_entropy: bool = True
    """Its log-prob pass computes the entropy beside the log-probs (verl's does; OpenRLHF's not)."""
    offload_mode: str | None = None
    """Its own offload when a script leaves it unsaid (verl: ``phase``)."""
    memory_fraction: float | None = None
    """Its rollout engine's default share of GPU memory, when it has one of its own."""
    logit_chunk: tuple[int, int] | None = None
    """(tokens, vocabulary entries) its fused log-prob kernel holds at a time, where it has one
    of its own (prime-rl's fused LM head); None: verl's chunk."""
    activation_offload: bool = False
    """Whether its trainer offloads the checkpointed layer inputs to host memory by default."""
    generation_offload: bool = False
    """Whether colocated generation moves the trainer's parameters and optimizer states to host
    memory whatever its offload switches say, and brings each back for its own phase (NeMo-RL's
    weight sync): the ``phase`` offload of both, unless a switch offloads them already."""
    log_prob_budget_per_sequence: bool = False
    """Whether its log-prob passes' token budget, left unsaid, is the sequence cap times their batch
    (NeMo-RL's ``logprob_mb_tokens: ${mul:max_total_sequence_length, logprob_batch_size}``), not the
    update's budget."""
    defaults: Mapping[str, Any] = field(default_factory=dict)
    """Settings (``Run`` fields) its own config gives a run whose script or flags say nothing of
    them (verl's FSDP offload: off).  The estimator takes them for the expected peak only; the
    floor keeps the least-memory value, as for any framework default."""
    aliases: Mapping[str, str] = field(default_factory=dict)
    """Spellings of an algorithm that mean another (``dapo`` as an estimator value -> ``grpo``)."""
    to_backend: Mapping[str, str] = field(default_factory=dict)
    """A training backend -> how a script of this framework switches to it (a finding's advice)."""
    from_backend: Mapping[str, str] = field(default_factory=dict)
    """A training backend -> how a script of this framework leaves it (a finding's advice)."""

    @functools.cached_property
    def task_keys(self) -> Mapping[str, frozenset[str]]:
        """An algorithm -> the keys of the tasks it runs (made once: the checks ask per row)."""
        return {algorithm: frozenset(task_key(t) for t in tasks) for algorithm, tasks in self.tasks.items()}

    @functools.cached_property
    def known_tasks(self) -> frozenset[str]:
        """Every task this vocabulary names, as :func:`task_key` gives it."""
        return frozenset().union(*self.task_keys.values())

    def _algorithm(self, algorithm: str) -> str:
        name = algorithm.lower()
        return self.aliases.get(name, name)

    def label(self, algorithm: str | None, dynamic_sampling: bool | None = None) -> str | None:
        """The task ``new`` writes for an algorithm; DAPO for GRPO with dynamic sampling on."""
        if algorithm is None:
            return None
        tasks = self.tasks.get(self._algorithm(algorithm))
        if not tasks:
            return None
        if dynamic_sampling and tasks[0] == "GRPO" and "DAPO" in tasks:
            return "DAPO"
        return tasks[0]

    def runs(self, algorithm: str, task: str) -> bool | None:
        """Whether ``algorithm`` runs ``task``; None when either is not in this vocabulary (not compared)."""
        keys = self.task_keys.get(self._algorithm(algorithm))
        if not keys:
            return None
        key = task_key(task)
        return key in keys if key in self.known_tasks else None

    def means(self, task: str) -> tuple[str, ...]:
        """The algorithm values that run ``task`` (for a finding's advice)."""
        key = task_key(task)
        return tuple(sorted(a for a, tasks in self.tasks.items() if any(task_key(t) == key for t in tasks)))


GROUP_TASKS = ("GRPO", "DAPO", "Dr.GRPO", "GSPO")
"""The tasks that run on a group-relative advantage with other loss settings (GRPO's estimator)."""
