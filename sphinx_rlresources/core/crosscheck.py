"""Check a row against what its tuning script actually runs.

Readers size their clusters from the rows, so a row that claims 32 GPUs for a script
that asks for 8, or LoRA for a script that trains the full model, is worse than no row.
Each claim is compared with the script as read by :mod:`sphinx_rlresources.scripts`; a value the
reader cannot know is never reported.  Every finding is located at the row's field in
the data file (that is what a contributor edits) and names the script line it
disagrees with.  No Sphinx import: the build and ``rlresources lint`` share this.
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinx_rlresources.core.diagnostics import Diagnostic, Subtype
from sphinx_rlresources.core.model import Entry
from sphinx_rlresources.core.paths import read_regular
from sphinx_rlresources.scripts.reader import MAX_SCRIPT_CHARS, Override, ScriptProblem, ScriptSettings, read_script

MAX_SCRIPT_BYTES = MAX_SCRIPT_CHARS
"""The most bytes of a script read; a larger script is reported, not checked."""

#: Task algorithm (lowercase, without ``-LoRA``) -> the ``algorithm.adv_estimator``
#: values that run it in verl.  DAPO, Dr. GRPO and GSPO are GRPO's group-relative
#: advantage with other loss settings, so verl runs them with ``adv_estimator=grpo``;
#: PPO is the value-model GAE estimator.  A task not listed here is not compared.
ALGORITHMS: dict[str, frozenset[str]] = {
    "ppo": frozenset({"gae"}),
    "grpo": frozenset({"grpo"}),
    "dapo": frozenset({"grpo"}),
    "dr-grpo": frozenset({"grpo"}),
    "drgrpo": frozenset({"grpo"}),
    "gspo": frozenset({"grpo"}),
    "grpo-passk": frozenset({"grpo_passk"}),
    "reinforce++": frozenset({"reinforce_plus_plus"}),
    "reinforce++-baseline": frozenset({"reinforce_plus_plus_baseline"}),
    "rloo": frozenset({"rloo"}),
    "remax": frozenset({"remax"}),
    "opo": frozenset({"opo"}),
    "gpg": frozenset({"gpg"}),
}

#: Row ``train`` values and the backend the script must then use.
BACKENDS = {"megatron": "megatron", "fsdp": "fsdp", "fsdp2": "fsdp"}

_LORA_PARTS = frozenset({"lora", "qlora"})
_VERSION_SUFFIX = re.compile(r"[0-9.]+$")

GPUS_PER_NODE = "trainer.n_gpus_per_node"
NNODES = "trainer.nnodes"
ROLLOUT = "actor_rollout_ref.rollout.name"
STRATEGY = "actor_rollout_ref.actor.strategy"
LORA_RANK = "actor_rollout_ref.model.lora_rank"
ESTIMATOR = "algorithm.adv_estimator"
MODEL_PATH = "actor_rollout_ref.model.path"
BATCH = "data.train_batch_size"


def task_parts(task: str) -> tuple[str, bool]:
    """``GRPO-LoRA`` -> (``grpo``, True): the algorithm and whether only adapters train."""
    parts = task.lower().split("-")
    lora = any(part in _LORA_PARTS for part in parts)
    return "-".join(part for part in parts if part not in _LORA_PARTS), lora


def load_script(path: Path) -> ScriptSettings | None:
    """Read a script file (bounded, UTF-8 with replacement); None when it cannot be read."""
    try:
        data = read_regular(path, MAX_SCRIPT_BYTES)
    except OSError:
        return None  # already reported as script_missing by the path check
    return settings_of(data)


def settings_of(data: bytes) -> ScriptSettings:
    """What a script's bytes set (from a file or from git), bounded."""
    if len(data) > MAX_SCRIPT_BYTES:
        return ScriptSettings(
            problems=[
                ScriptProblem(
                    0,
                    f"the script is more than {MAX_SCRIPT_BYTES} bytes long; it was not read, so "
                    "nothing in it was checked",
                )
            ]
        )
    return read_script(data.decode("utf-8", errors="replace"))


def check_text(entry: Entry, data: bytes) -> list[Diagnostic]:
    """Cross-check the row against its script's bytes (read from git at the row's ``script_ref``)."""
    return cross_check(entry, settings_of(data), entry.script)


def check_row(entry: Entry, path: Path) -> list[Diagnostic]:
    """Read the row's script at ``path`` and cross-check the row against it."""
    settings = load_script(path)
    if settings is None:
        return []
    return cross_check(entry, settings, entry.script)


def cross_check(entry: Entry, settings: ScriptSettings, script_display: str) -> list[Diagnostic]:
    """Every disagreement between the row and what the script runs.

    ``script_display`` is how messages name the script (its path from the root).
    """
    return _Check(entry, settings, script_display).run()


class _Check:
    def __init__(self, entry: Entry, settings: ScriptSettings, script: str) -> None:
        self.entry = entry
        self.settings = settings
        self.script = script
        self.found: list[Diagnostic] = []
        # A value the sanity check already blames (model.path=model_path) is not compared too.
        self.blamed = {problem.key for problem in settings.problems if problem.key}

    def run(self) -> list[Diagnostic]:
        for problem in self.settings.problems:
            where = f"{self.script}:{problem.line}" if problem.line > 0 else self.script
            self.report("script", Subtype.SCRIPT_SANITY, f"{where}: {problem.message}")
        if self.settings.trainer_line:
            self.gpus()
            self.infer()
            self.train()
            self.lora()
            self.algorithm()
            self.model()
            self.batch()
        return self.found

    # -- helpers -----------------------------------------------------------------------
    def report(self, field: str, subtype: Subtype, message: str) -> None:
        line, column = self.entry.at(field)
        json_path = f"{self.entry.source.json_path}.{field}"
        self.found.append(Diagnostic(self.entry.source.path, line, column, subtype, message, json_path=json_path))

    def override(self, key: str) -> Override | None:
        if key in self.blamed:
            return None
        return self.settings.overrides.get(key)

    def at(self, override: Override) -> str:
        return f"{self.script}:{override.line}"

    # -- the checks ----------------------------------------------------------------------
    def gpus(self) -> None:
        per_node, nodes = self.override(GPUS_PER_NODE), self.override(NNODES)
        total = self.settings.gpus
        if per_node is None or nodes is None or total is None or total == self.entry.gpus:
            return
        self.report(
            "gpus",
            Subtype.SCRIPT_GPUS,
            f"row says gpus {self.entry.gpus} but {self.at(per_node)} runs {GPUS_PER_NODE}="
            f"{self.settings.n_gpus_per_node} × {NNODES}={self.settings.nnodes} = {total} GPUs; "
            "fix the row or the script",
        )

    def infer(self) -> None:
        override = self.override(ROLLOUT)
        engine = self.settings.rollout_name
        if override is None or not engine:
            return
        row = _VERSION_SUFFIX.sub("", self.entry.infer.lower()) or self.entry.infer.lower()
        if row in (engine, engine.split("_", 1)[0]):
            return
        self.report(
            "infer",
            Subtype.SCRIPT_INFER,
            f"row says infer '{self.entry.infer}' but {self.at(override)} runs {ROLLOUT}={engine}; "
            "fix the row or the script",
        )

    def train(self) -> None:
        want = BACKENDS.get(self.entry.train.lower())
        got = self.settings.train_backend
        if want is None or got is None or want == got or STRATEGY in self.blamed:
            return
        settings = self.settings
        strategy = settings.overrides.get(STRATEGY)
        if strategy is not None:
            where, how = self.at(strategy), strategy.shown
        elif settings.config_name is not None:
            where, how = f"{self.script}:{settings.config_name_line}", f"--config-name={settings.config_name}"
        else:
            where, how = (
                f"{self.script}:{settings.trainer_line}",
                f"verl's default config (no --config-name, no {STRATEGY})",
            )
        hint = (
            "run it with --config-name=ppo_megatron_trainer or actor_rollout_ref.actor.strategy=megatron"
            if want == "megatron"
            else "drop its megatron config"
        )
        self.report(
            "train",
            Subtype.SCRIPT_TRAIN,
            f"row says train '{self.entry.train}' but {where} runs {got}: {how}; fix the row, or {hint}",
        )

    def lora(self) -> None:
        rank = self.settings.lora_rank
        if rank is None or LORA_RANK in self.blamed:
            return
        _algorithm, says_lora = task_parts(self.entry.task)
        override = self.settings.overrides.get(LORA_RANK)
        task = self.entry.task
        if says_lora and rank <= 0:
            if override is not None:
                what = f"{self.at(override)} sets {override.shown}, so it trains the full model"
            else:
                what = f"{self.script}:{self.settings.trainer_line} sets no {LORA_RANK}, so it trains the full model"
            self.report(
                "task",
                Subtype.SCRIPT_LORA,
                f"task '{task}' says LoRA but {what}; drop '-LoRA' from the task, or set {LORA_RANK} in the script",
            )
        elif not says_lora and rank > 0 and override is not None:
            self.report(
                "task",
                Subtype.SCRIPT_LORA,
                f"task '{task}' does not say LoRA but {self.at(override)} sets {override.shown} (LoRA); "
                f"name the task '{task}-LoRA', or remove {LORA_RANK} from the script",
            )

    def algorithm(self) -> None:
        override = self.override(ESTIMATOR)
        estimator = self.settings.adv_estimator
        name, _lora = task_parts(self.entry.task)
        expected = ALGORITHMS.get(name)
        if override is None or estimator is None or expected is None or estimator in expected:
            return
        means = " or ".join(f"{ESTIMATOR}={value}" for value in sorted(expected))
        self.report(
            "task",
            Subtype.SCRIPT_ALGORITHM,
            f"task '{self.entry.task}' means {means} but {self.at(override)} runs {ESTIMATOR}={estimator}; "
            "fix the task or the script",
        )

    def model(self) -> None:
        override = self.override(MODEL_PATH)
        if override is None:
            return
        path = (override.value if override.value is not None else override.tail).rstrip("/")
        if "/" not in path and override.value is None:
            return  # the last part is not wholly known: $MODEL_DIR, ${PREFIX}-7B
        last = path.rsplit("/", 1)[-1]
        if not last:
            return
        model_id = self.entry.model_id
        if model_id:
            want = model_id.lower()
            got = path.lower()
            if got == want or got.endswith("/" + want) or last.lower() == want.rsplit("/", 1)[-1]:
                return
            self.report(
                "model_id",
                Subtype.SCRIPT_MODEL,
                f"row says model_id '{model_id}' but {self.at(override)} trains {override.shown}; "
                "fix model_id or the script",
            )
            return
        if self.entry.model.lower() in last.lower():
            return
        self.report(
            "model",
            Subtype.SCRIPT_MODEL,
            f"row says model '{self.entry.model}' but {self.at(override)} trains {override.shown}, whose "
            f"last part '{last}' does not contain '{self.entry.model}'; fix the row (or give it a "
            "model_id) or the script",
        )

    def batch(self) -> None:
        override = self.override(BATCH)
        size = self.settings.train_batch_size
        if override is None or size is None or self.entry.max_batch is None or size == self.entry.max_batch:
            return
        self.report(
            "max_batch",
            Subtype.SCRIPT_BATCH,
            f"row says max_batch {self.entry.max_batch} but {self.at(override)} runs {BATCH}={size}; "
            "fix the row (the largest batch that ran) or the script",
        )
