"""EasyR1: ``python3 -m verl.trainer.main config=examples/config.yaml key=value …``.

EasyR1 (hiyouga/EasyR1) is a fork of verl with its own trainer module and config
layout: ``verl.trainer.main`` (verl's own is ``main_ppo``), one YAML named by
``config=`` and OmegaConf ``key=value`` overrides on top (``worker.actor.model.model_path``,
``worker.rollout.tensor_parallel_size``, ``trainer.n_gpus_per_node``, ``trainer.nnodes``).
Read as verl it would be misnamed and its settings missed, so this adapter is asked
before verl's.  A value is the override when the script writes one, else the config's
(read through the caller's files, from the repository root or the script's folder),
else EasyR1's own default for the few settings whose default is read here
(hiyouga/EasyR1@b44b311 ``verl/trainer/config.py:109-111``: ``nnodes`` 1,
``n_gpus_per_node`` 8; ``verl/workers/rollout/config.py:24``: ``name`` vllm), else
unknown.  It trains with FSDP only, on the GPUs its rollout shares (its hybrid engine).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from sphinx_rlresources.safe.yamlsafe import YamlDocument, YamlError, load
from sphinx_rlresources.scripts.files import Files, candidates
from sphinx_rlresources.scripts.frameworks.argv import as_model
from sphinx_rlresources.scripts.frameworks.base import (
    Setting,
    Table,
    as_bool,
    as_float,
    as_int,
    as_lower,
    as_text,
    default,
    derived,
    from_override,
    module_after,
    product,
)
from sphinx_rlresources.scripts.frameworks.sanity import duplicate_problems
from sphinx_rlresources.scripts.frameworks.vocabulary import GROUP_TASKS, Vocabulary
from sphinx_rlresources.scripts.hydra import read_hydra
from sphinx_rlresources.scripts.interpreter import Command, Interpreter
from sphinx_rlresources.scripts.run import UNKNOWN, Found, Origin, Problem, Role, Run
from sphinx_rlresources.scripts.settings import ScriptSettings

NAME = "easyr1"
ENTRY_POINT = "verl.trainer.main"
VOCABULARY = Vocabulary(
    NAME,
    {
        # algorithm.adv_estimator (hiyouga/EasyR1@b44b311 verl/trainer/core_algos.py:76-86): verl's names
        "gae": ("PPO",),
        "grpo": GROUP_TASKS,
        "grpo_passk": ("GRPO-passk",),
        "reinforce_plus_plus": ("REINFORCE++",),
        "remax": ("ReMax",),
        "rloo": ("RLOO",),
    },
    # verl/workers/fsdp_workers.py:198-199: torch_dtype float32 for the actor and critic, bf16 for the ref
    fsdp_param_bytes=4,
    # fsdp_workers.py:557-561: load_fsdp_model / load_fsdp_optimizer before the update, offload after
    # (FSDP's own CPUOffload only with worker.actor.fsdp.enable_cpu_offload, fsdp_workers.py:298-299)
    offload_mode="phase",
    memory_fraction=0.6,  # verl/workers/rollout/config.py:32: gpu_memory_utilization
    # Its actor scores log-probs alone, in every pass: _forward_micro_batch returns
    # log_probs_from_logits(...) and nothing else (verl/workers/actor/dp_actor.py:68-155); the
    # entropy went with its loss in #132 (b09c96c, 2025-03-18).
    pass_entropy=False,
    # No offload default: the dataclasses say off (verl/workers/actor/config.py:92-93) while the
    # examples/config.yaml every example script names says on; a silent run is either.
)
"""EasyR1's algorithm names and the training defaults that lie outside a script (at b44b311; the
actor's fp32 parameters and the offload around each phase are the same at 6241a21c, February 2025:
``fsdp_workers.py:166-167`` and ``:367-371``)."""
T = TypeVar("T")
ACTOR = "worker.actor"
ROLLOUT = "worker.rollout"

#: Every setting the reader takes; EasyR1's defaults (hiyouga/EasyR1's dataclasses) for those it assumes.
TABLE = Table(
    "easyr1",
    {
        "gpus_per_node": Setting(("trainer.n_gpus_per_node",), as_int, 8, "verl/trainer/config.py:111"),
        "nodes": Setting(("trainer.nnodes",), as_int, 1, "verl/trainer/config.py:109"),
        "ulysses_sp": Setting((f"{ACTOR}.ulysses_sequence_parallel_size",), as_int),
        "lora_rank": Setting((f"{ACTOR}.model.lora.rank",), as_int),
        "model": Setting((f"{ACTOR}.model.model_path",), as_model),
        "algorithm": Setting(("algorithm.adv_estimator",), as_lower),
        "prompt_length": Setting(("data.max_prompt_length",), as_int),
        "response_length": Setting(("data.max_response_length",), as_int),
        "train_batch_size": Setting(("data.rollout_batch_size",), as_int),
        "mini_batch_size": Setting((f"{ACTOR}.global_batch_size",), as_int),
        "micro_batch_per_gpu": Setting((f"{ACTOR}.micro_batch_size_per_device_for_update",), as_int),
        "rollout_n": Setting((f"{ROLLOUT}.n",), as_int),
        "param_offload": Setting((f"{ACTOR}.offload.offload_params",), as_bool),
        "optimizer_offload": Setting((f"{ACTOR}.offload.offload_optimizer",), as_bool),
        "gradient_checkpointing": Setting((f"{ACTOR}.model.enable_gradient_checkpointing",), as_bool),
        "engine": Setting((f"{ROLLOUT}.name",), as_lower, "vllm", "verl/workers/rollout/config.py:24"),
        "rollout_tp": Setting((f"{ROLLOUT}.tensor_parallel_size",), as_int),
        "memory_fraction": Setting((f"{ROLLOUT}.gpu_memory_utilization",), as_float),
    },
    "{key}: EasyR1's default ({source})",
)


def claims(command: Command) -> bool:
    """EasyR1's trainer module (verl has no ``verl.trainer.main``)."""
    module, _after = module_after(command)
    return module == ENTRY_POINT


def read(command: Command, reading: Interpreter, path: str) -> Run:
    """The :class:`Run` of an EasyR1 launch."""
    settings = read_hydra(reading, command)
    config, problems = _config(settings, reading, path)
    return _Reader(settings, config, path).run(problems)


def claims_config(document: YamlDocument) -> bool:
    """An EasyR1 config: ``worker:`` with ``actor:`` and ``rollout:``, beside ``trainer:``."""
    value = document.value
    if not isinstance(value, dict) or not isinstance(value.get("trainer"), dict):
        return False
    worker = value.get("worker")
    return isinstance(worker, dict) and all(isinstance(worker.get(part), dict) for part in ("actor", "rollout"))


def read_config(document: YamlDocument, path: str, files: Files | None = None) -> Run:
    """The :class:`Run` of an EasyR1 config on its own (as ``config=`` with no overrides would run it)."""
    return _Reader(ScriptSettings(), Config(document, path), path).run([])


class Config:
    """The YAML ``config=`` names, each scalar by its dotted key, with its line."""

    def __init__(self, document: YamlDocument | None = None, file: str = "") -> None:
        self.document = document
        self.file = file

    def found(self, key: str, convert: Callable[[str], T | None]) -> Found[T]:
        if self.document is None:
            return UNKNOWN
        node: Any = self.document.value
        path = tuple(key.split("."))
        for part in path:
            if not isinstance(node, Mapping) or part not in node:
                return UNKNOWN
            node = node[part]
        if isinstance(node, (dict, list)) or node is None:
            return UNKNOWN
        text = str(node).lower() if isinstance(node, bool) else str(node)
        value = convert(text)
        written = f"{key}: {self.document.source.get(path, text)}"
        line = self.document.mark(path)[0]
        return Found(value, Origin.SET if value is not None else Origin.UNKNOWN, line, written, self.file)


def _config(settings: ScriptSettings, reading: Interpreter, path: str) -> tuple[Config, list[Problem]]:
    """The config ``config=FILE`` names."""
    override = settings.overrides.get("config")
    return config_file(from_override(override, as_text) if override is not None else None, reading, path)


def config_file(named: Found[str] | None, reading: Interpreter, path: str) -> tuple[Config, list[Problem]]:
    """The YAML a launch names (from the root, else the script's folder); unreadable: unknown, invalid: a problem."""
    if named is None or named.value is None or reading.files is None:
        return Config(), []
    for candidate in [*candidates("", named.value, ""), *candidates(path, named.value, "")]:
        text = reading.files.read(candidate)
        if text is None:
            continue
        try:
            return Config(load(text), candidate), []
        except YamlError as err:
            message = f"{candidate} is not valid YAML ({err.problems[0].message}); its settings are unknown"
            return Config(), [Problem(named.line, message, "config", "other", "warning")]
    return Config(), []


class _Reader:
    def __init__(self, s: ScriptSettings, config: Config, path: str) -> None:
        self.s = s
        self.config = config
        self.path = path
        self.defaults = config.document is not None or "config" not in s.overrides
        """EasyR1's defaults hold unless a config is named that could not be read (it may set anything)."""

    def get(self, name: str) -> Found[Any]:
        """The override the script writes, else the config's value, else EasyR1's default."""
        return TABLE.read(name, self.look_up, self.defaults)

    def look_up(self, key: str, convert: Callable[[str], Any]) -> Found[Any]:
        override = self.s.overrides.get(key)
        return from_override(override, convert) if override is not None else self.config.found(key, convert)

    def run(self, problems: list[Problem]) -> Run:
        per_node = self.get("gpus_per_node")
        nodes = self.get("nodes")
        value = product(per_node, nodes)
        written = f"trainer.n_gpus_per_node={per_node.value} × trainer.nnodes={nodes.value}"
        # the line of the file that wrote it: the script's own first, else the config's
        parts = sorted((per_node, nodes), key=lambda part: (not part.line, bool(part.file)))
        gpus = dataclasses.replace(derived(value, parts, written), file=parts[0].file if parts[0].line else "")
        found = list(self.s.problems)
        return Run(
            path=self.path,
            framework=NAME,
            entry_point=ENTRY_POINT if self.s.trainer_line else None,
            launch_line=self.s.trainer_line,
            gpus=gpus,
            nodes=nodes,
            gpus_per_node=per_node,
            roles=(Role("trainer", gpus, nodes, per_node), Role("rollout", gpus, nodes, per_node, "trainer")),
            colocated=default(True, "EasyR1's hybrid engine (rollout on the trainer's GPUs)"),
            train_backend=default("fsdp", "EasyR1 trains with FSDP only"),
            ulysses_sp=self.get("ulysses_sp"),
            lora_rank=self.get("lora_rank"),
            model=self.get("model"),
            algorithm=self.get("algorithm"),
            prompt_length=self.get("prompt_length"),
            response_length=self.get("response_length"),
            train_batch_size=self.get("train_batch_size"),
            mini_batch_size=self.get("mini_batch_size"),
            micro_batch_per_gpu=self.get("micro_batch_per_gpu"),
            rollout_n=self.get("rollout_n"),
            param_offload=self.get("param_offload"),
            optimizer_offload=self.get("optimizer_offload"),
            gradient_checkpointing=self.get("gradient_checkpointing"),
            engine=self.get("engine"),
            rollout_tp=self.get("rollout_tp"),
            memory_fraction=self.get("memory_fraction"),
            variables=self.s.variables,
            problems=tuple(found + duplicate_problems(self.s) + problems),
        )


__all__ = ["NAME", "VOCABULARY", "Config", "claims", "claims_config", "config_file", "read", "read_config"]
