"""What reading a script gives: the trainer's overrides and the settings a row is checked against."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from sphinx_rlresources.scripts.run import Problem
from sphinx_rlresources.scripts.shell import INT_RE

STOCK_CONFIGS = frozenset({"ppo_trainer", "ppo_megatron_trainer"})
"""verl's own trainer configs; other names may set anything, so defaults are not assumed."""
STOCK_ENTRY_POINTS = frozenset({"verl.trainer.main_ppo", "verl/trainer/main_ppo.py"})
"""The trainers whose default config is ``ppo_trainer``."""


class Override(NamedTuple):
    """One ``key=value`` argument of the trainer command (a named tuple: a script has dozens, each row's).

    ``value`` is the value after shell expansion, or None when any part of it is unknown;
    ``tail`` is the known text after the last unknown part (all of it when known), so
    ``$HOME/models/Qwen2.5-7B`` still shows its last path part.  ``raw`` is the argument
    as written and ``line`` the 1-based line it starts on.
    """

    key: str
    value: str | None
    raw: str
    line: int
    tail: str = ""
    origin: str = "set"
    """Where the value came from (:class:`~sphinx_rlresources.scripts.run.Origin`'s values)."""
    file: str = ""
    """The file ``line`` is in, when not the script itself (a sourced or delegated one)."""
    meant: str = ""
    """The variable a bare word was read as (``model.path=model_path`` read as ``$model_path``)."""

    @property
    def shown(self) -> str:
        """``key=value`` with the resolved value, or as written when it is unknown."""
        if self.meant:
            return f"{self.raw} (read as ${self.meant}={self.value}: the '$' is missing)"
        return f"{self.key}={self.value}" if self.value is not None else self.raw


@dataclass(frozen=True)
class ScriptSettings:
    """What the trainer command of a script sets, as far as it can be known."""

    overrides: dict[str, Override] = field(default_factory=dict)
    config_name: str | None = None
    config_name_line: int = 0
    trainer_line: int = 0
    """The line the trainer command starts on (0: no command with ``a.b=c`` overrides)."""
    entry_point: str | None = None
    """What the trainer command runs: the module after ``-m``, or the first ``*.py``."""
    problems: list[Problem] = field(default_factory=list)
    variables: dict[str, str | None] = field(default_factory=dict)
    """The script's top-level variables at its end (None: unknown)."""
    duplicates: list[tuple[Override, Override]] = field(default_factory=list)
    """Each key given twice: (the earlier, the later one, which Hydra keeps)."""
    prefix: dict[str, str | None] = field(default_factory=dict)
    """``NAME=value`` words written before the launch command itself, each value as written."""

    # -- raw access --------------------------------------------------------------
    def text(self, key: str) -> str | None:
        """The known value of an override, with one layer of Hydra quotes removed."""
        override = self.overrides.get(key)
        if override is None or override.value is None:
            return None
        value = override.value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        return value

    def integer(self, key: str) -> int | None:
        value = self.text(key)
        if value is None or not INT_RE.fullmatch(value):
            return None
        return int(value)

    @property
    def stock_config(self) -> bool:
        """Whether the trainer uses one of verl's own configs, whose defaults are known.

        Without ``--config-name`` that is only so for verl's PPO entry point: a recipe's
        own trainer (``recipe.dapo.main_dapo``) brings its own default config.
        """
        if self.config_name is None:
            return self.config_name_line == 0 and self.entry_point in STOCK_ENTRY_POINTS
        name = self.config_name.strip().strip("'\"")
        if name.endswith(".yaml"):
            name = name[: -len(".yaml")]
        return name in STOCK_CONFIGS

    # -- the settings a row is checked against -----------------------------------
    @property
    def n_gpus_per_node(self) -> int | None:
        return self.integer("trainer.n_gpus_per_node")

    @property
    def nnodes(self) -> int | None:
        return self.integer("trainer.nnodes")

    @property
    def gpus(self) -> int | None:
        """GPUs used in all: ``n_gpus_per_node × nnodes`` when both are known."""
        per_node, nodes = self.n_gpus_per_node, self.nnodes
        if per_node is None or nodes is None:
            return None
        return per_node * nodes

    @property
    def train_backend(self) -> str | None:
        """``megatron``, ``fsdp`` or None (unknown).

        ``actor_rollout_ref.actor.strategy`` decides when set; otherwise a config name
        naming megatron means megatron, and verl's default config means fsdp.
        """
        if "actor_rollout_ref.actor.strategy" in self.overrides:
            strategy = (self.text("actor_rollout_ref.actor.strategy") or "").lower()
            if strategy == "megatron":
                return "megatron"
            if strategy in ("fsdp", "fsdp2"):
                return "fsdp"
            return None
        if self.config_name is not None and "megatron" in self.config_name.lower():
            return "megatron"
        if self.stock_config:
            return "fsdp"
        return None

    @property
    def lora_rank(self) -> int | None:
        """The LoRA rank: 0 (full fine-tuning) when a stock config is used and not set."""
        if "actor_rollout_ref.model.lora_rank" in self.overrides:
            return self.integer("actor_rollout_ref.model.lora_rank")
        return 0 if self.stock_config else None

    @property
    def model_path(self) -> str | None:
        return self.text("actor_rollout_ref.model.path")

    @property
    def train_batch_size(self) -> int | None:
        return self.integer("data.train_batch_size")
