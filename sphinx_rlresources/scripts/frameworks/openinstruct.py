"""open-instruct: ``python open_instruct/grpo_fast.py --flag value ...``, often behind ``python mason.py ... --``.

The run's GPUs are the learners plus the vLLM engines, which share the learners' GPUs
only in ``--single_gpu_mode`` (allenai/open-instruct@e6c3044
open_instruct/grpo_fast_resource_plan.py:26-55, "min_total_cluster_gpus").  ``mason.py``
asks Beaker for ``--num_nodes × --gpus`` (read by :func:`.launcher.submission`, the one
reading of mason for every launch it submits): that is the job's allocation, reported as the
nodes and GPUs per node, and it may exceed what the run uses (a problem worth a
warning: those GPUs idle).  Flags are parsed by HfArgumentParser, which refuses any it
does not know, so flags removed from open-instruct are reported as deprecated.
``grpo.py`` is the OLMo-core (FSDP) trainer with the same flags; ``grpo_fast.py``
trains with DeepSpeed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from sphinx_rlresources.scripts.expand import Field
from sphinx_rlresources.scripts.frameworks import launcher
from sphinx_rlresources.scripts.frameworks.base import (
    ORIGINS,
    Setting,
    Table,
    added,
    as_bool,
    as_float,
    as_int,
    as_text,
    default,
    deprecated,
    derived,
    product,
)
from sphinx_rlresources.scripts.frameworks.sanity import common_problems
from sphinx_rlresources.scripts.frameworks.vocabulary import GROUP_TASKS, Vocabulary
from sphinx_rlresources.scripts.interpreter import Command, Interpreter
from sphinx_rlresources.scripts.run import UNKNOWN, Found, Origin, Problem, Role, Run
from sphinx_rlresources.scripts.unset import more_message, unset_message, unset_uses

NAME = "open-instruct"
VOCABULARY = Vocabulary(
    NAME,
    {"grpo": GROUP_TASKS},
    # compute_logprobs, the forward-only pass for the old and the reference log-probs, asks
    # forward_for_logprobs for no entropy (open_instruct/grpo_utils.py:577-647 at allenai/open-instruct@e6c3044).
    pass_entropy=False,
)
"""open-instruct's grpo_fast trains GRPO (and its DAPO-style variants by loss settings)."""
T = TypeVar("T")
ENTRY_POINTS = ("open_instruct/grpo_fast.py", "open_instruct/grpo.py")
#: Flags grpo_fast no longer has (HfArgumentParser rejects them) -> what replaced them.
REMOVED = {
    "actor_num_gpus_per_node": "use --num_learners_per_node (it left with the *_thread_ray_gtrl trainers, bac939310)",
    "max_token_length": "delete it (dropped from grpo_fast's arguments in 3a9a97e46)",
}

#: Every flag the reader takes, by the Run field it gives; the defaults are the dataclass fields of
#: open_instruct/ (grpo_utils.py, data_loader.py, grpo_fast.py, model_utils.py), cited by line.
TABLE = Table(
    "open-instruct",
    {
        "colocated": Setting(("single_gpu_mode",), as_bool, False, "grpo_utils.py:158"),
        "vllm_engines": Setting(("vllm_num_engines",), as_int, 1, "data_loader.py:395"),
        "rollout_tp": Setting(("vllm_tensor_parallel_size",), as_int, 1, "data_loader.py:396"),
        "zero_stage": Setting(("deepspeed_stage",), as_int, 0, "grpo_utils.py:168"),
        "param_offload": Setting(("deepspeed_offload_param",), as_bool, False, "grpo_utils.py:172"),
        "optimizer_offload": Setting(("deepspeed_offload_optimizer",), as_bool, False, "grpo_utils.py:174"),
        "ulysses_sp": Setting(("sequence_parallel_size",), as_int, 1, "grpo_utils.py:165"),
        "model": Setting(("model_name_or_path",), as_text),
        "use_kl": Setting(("load_ref_policy",), as_bool, True, "grpo_utils.py:148"),
        "prompt_length": Setting(("max_prompt_token_length",), as_int, 256, "data_loader.py:408"),
        "response_length": Setting(("response_length",), as_int, 256, "data_loader.py:409"),
        "train_batch_size": Setting(("num_unique_prompts_rollout",), as_int, 16, "data_loader.py:415"),
        "micro_batch_per_gpu": Setting(("per_device_train_batch_size",), as_int, 1, "grpo_fast.py:2402"),
        "rollout_n": Setting(("num_samples_per_prompt_rollout",), as_int, 4, "data_loader.py:414"),
        "gradient_checkpointing": Setting(("gradient_checkpointing",), as_bool, False, "model_utils.py:190"),
        "memory_fraction": Setting(("vllm_gpu_memory_utilization",), as_float, 0.9, "data_loader.py:400"),
    },
    "--{key} ({source})",
)


@dataclass(frozen=True)
class Flag:
    """``--name v1 v2 ...``: every value up to the next ``--flag`` (argparse's ``nargs``), None where unknown."""

    name: str
    values: tuple[str | None, ...]
    line: int
    raw: str
    origin: Origin
    file: str = ""


def claims(command: Command) -> bool:
    """A command that runs open-instruct's GRPO trainer, directly or after ``mason.py ... --``."""
    return _entry(command) is not None


def _entry(command: Command) -> tuple[int, str] | None:
    for index, field in enumerate(command.fields):
        value = field.value or ""
        for entry in ENTRY_POINTS:
            if value == entry or value.endswith("/" + entry) or value == "./" + entry:
                return index, entry
    return None


def flags(fields: list[Field]) -> dict[str, Flag]:
    """Every ``--name`` with the values after it; a bare ``--switch`` has none; the last of a name wins.

    Not :func:`~.base.read_flags`, which reads one value a flag: open-instruct's
    HfArgumentParser takes lists (``--dataset_mixer_list a 1.0 b 1.0``), so a flag's
    values run to the next ``--name``.
    """
    groups: list[tuple[Field, list[Field]]] = []
    for field in fields:
        text = field.value
        if text is not None and text.startswith("--") and len(text) > 2:
            groups.append((field, []))
        elif groups:
            groups[-1][1].append(field)
    found: dict[str, Flag] = {}
    for start, after in groups:
        name, sep, inline = (start.value or "")[2:].partition("=")
        values: list[str | None] = [inline] if sep else []
        origins = [start.origin] if sep else []
        values += [f.value for f in after]
        origins += [f.origin if f.value is not None else "runtime" for f in after]
        origin = max((ORIGINS.get(o, Origin.RUNTIME) for o in origins), key=_rank, default=Origin.SET)
        raw = " ".join([start.word.raw, *(f.word.raw for f in after)])
        line = after[0].line if after else start.line
        found[name] = Flag(name, tuple(values), line, raw, origin, start.file)
    return found


def _rank(origin: Origin) -> int:
    order = [Origin.SET, Origin.SCRIPT_DEFAULT, Origin.ENV, Origin.RUNTIME]
    return order.index(origin) if origin in order else len(order)


def read(command: Command, reading: Interpreter, path: str) -> Run:
    """The :class:`Run` of an open-instruct GRPO launch."""
    index, entry = _entry(command) or (0, "")
    fields = list(command.fields)
    asked = launcher.submission(command)
    job = asked.job if asked is not None and asked.start <= index else None
    run = _Reader(flags(fields[index + 1 :]), job, entry, command, reading, path).run()
    return replace(run, problems=(*run.problems, *_unset(fields[index + 1 :])))


def _unset(fields: list[Field]) -> list[Problem]:
    """A trainer argument built from a variable the script never sets (and is no usual environment variable)."""
    listed, more = unset_uses((field, "") for field in fields)
    found = [Problem(field.line, unset_message(field, name), name, kind="unset") for field, _, name in listed]
    return [*found, Problem(more.line, more_message(more), kind="unset")] if more.uses else found


class _Reader:
    def __init__(
        self,
        args: dict[str, Flag],
        job: launcher.Job | None,
        entry: str,
        command: Command,
        reading: Interpreter,
        path: str,
    ) -> None:
        self.args = args
        self.job = job
        """What ``mason.py`` asks Beaker for, when the launch is submitted with it (:func:`.launcher.submission`)."""
        self.entry = entry
        self.command = command
        self.reading = reading
        self.path = path

    def get(self, name: str) -> Found[Any]:
        """A flag's one value, else open-instruct's default (its dataclass field, cited in :data:`TABLE`)."""
        return TABLE.read(name, self.look_up)

    def look_up(self, key: str, convert: Callable[[str], Any]) -> Found[Any]:
        """A flag's one value; a bool flag bare (true), or ``--no_<name>`` (HfArgumentParser's negation: false)."""
        flag = self.args.get(key)
        if convert is as_bool:
            negated = self.args.get(f"no_{key}")
            if flag is None and negated is not None and not negated.values:
                return Found(False, negated.origin, negated.line, negated.raw, negated.file)
            if flag is not None and not flag.values:
                return Found(True, flag.origin, flag.line, flag.raw, flag.file)
        return _one(flag, convert)

    def run(self) -> Run:
        fast = self.entry.endswith("grpo_fast.py")
        learners = self._learners()
        single = self.get("colocated")
        engines = self.get("vllm_engines")
        tp = self.get("rollout_tp")
        vllm = derived(product(engines, tp), [engines, tp], "vllm_num_engines × vllm_tensor_parallel_size")
        if single.value:
            gpus = derived(learners.value, [learners, single], "the learners; vLLM shares them (--single_gpu_mode)")
            rollout = Role("rollout", learners, colocated_with="trainer")
        else:
            parts = [learners, vllm, single]
            gpus = derived(
                added(learners, vllm),
                parts,
                "sum(num_learners_per_node) + vllm_num_engines × vllm_tensor_parallel_size",
            )
            rollout = Role("rollout", vllm if single.value is False else UNKNOWN)
        nodes = self.job.nodes if self.job is not None else UNKNOWN
        per_node = self.job.gpus_per_node if self.job is not None else UNKNOWN
        stage = self.get("zero_stage") if fast else UNKNOWN
        param_offload = self.get("param_offload") if fast else UNKNOWN
        optimizer_offload = self.get("optimizer_offload") if fast else UNKNOWN
        offloads = param_offload.value or optimizer_offload.value
        run = Run(
            path=self.path,
            framework=NAME,
            entry_point=self.entry,
            launch_line=self.command.line,
            gpus=gpus,
            nodes=nodes,
            gpus_per_node=per_node,
            roles=(Role("trainer", learners), rollout),
            colocated=single,
            train_backend=self._backend(fast, stage),
            ulysses_sp=self.get("ulysses_sp"),
            lora_rank=default(0, f"{self.entry} trains the whole model (it never reads --use_peft / --lora_r)"),
            model=self.get("model"),
            algorithm=Found("grpo", Origin.DERIVED, self.command.line, f"{self.entry} (GRPO)"),
            use_kl=self.get("use_kl"),
            critic=Found(False, Origin.DERIVED, 0, "GRPO has no critic"),
            prompt_length=self.get("prompt_length"),
            response_length=self.get("response_length"),
            train_batch_size=self.get("train_batch_size"),
            micro_batch_per_gpu=self.get("micro_batch_per_gpu"),
            rollout_n=self.get("rollout_n"),
            param_offload=param_offload,
            optimizer_offload=optimizer_offload,
            offload_mode=Found("compute", Origin.SET, 0, "DeepSpeed ZeRO-Offload") if offloads else UNKNOWN,
            gradient_checkpointing=self.get("gradient_checkpointing"),
            engine=default("vllm", "open-instruct's rollouts run on vLLM"),
            rollout_tp=tp,
            memory_fraction=self.get("memory_fraction"),
            deprecated=tuple(f"--{name}" for name in REMOVED if name in self.args),
            variables={name: value.value for name, value in self.reading.vars.items()},
        )
        problems = self._problems(gpus, nodes, per_node) + common_problems(run, self.reading)
        return replace(run, problems=tuple(problems))

    def _learners(self) -> Found[int]:
        """``--num_learners_per_node 8 8`` (one GPU per learner, a list: grpo_utils.py:160, default [1]).

        ``--actor_num_gpus_per_node`` is its older spelling, with the same list and default
        (open_instruct/grpo_fast.py before bac939310): a stale script asks for what it says
        there, though today's trainer refuses the flag (reported as deprecated).
        """
        flag = self.args.get("num_learners_per_node") or self.args.get("actor_num_gpus_per_node")
        if flag is None:
            return default(1, "--num_learners_per_node (the default, [1]: grpo_utils.py:160)")
        counts = [as_int(v) if v is not None else None for v in flag.values]
        if not counts or any(c is None for c in counts):
            return Found(None, Origin.RUNTIME if flag.origin is Origin.RUNTIME else Origin.UNKNOWN, flag.line, flag.raw)
        return Found(sum(c for c in counts if c is not None), flag.origin, flag.line, flag.raw, flag.file)

    def _backend(self, fast: bool, stage: Found[int]) -> Found[str]:
        if not fast:
            return Found("fsdp", Origin.DERIVED, self.command.line, "open_instruct/grpo.py trains with OLMo-core FSDP")
        return Found(
            "deepspeed",
            stage.origin if stage.line else Origin.DERIVED,
            stage.line,
            f"{self.entry} trains with DeepSpeed ({stage.written})",
        )

    def _problems(self, gpus: Found[int], nodes: Found[int], per_node: Found[int]) -> list[Problem]:
        found = list(self.reading.problems)
        gone = "--{key} is no longer an open-instruct flag and the trainer refuses to start with it; use {advice}"
        found += deprecated(REMOVED, self.args, gone)
        peft = self.args.get("use_peft") or self.args.get("lora_r")
        if peft is not None:
            found.append(
                Problem(
                    peft.line,
                    f"{peft.raw}: {self.entry} never applies LoRA; the whole model trains",
                    "lora_rank",
                    severity="warning",
                )
            )
        asked = product(nodes, per_node)
        if self.job is not None and asked is not None and gpus.value is not None and asked != gpus.value:
            more = asked > gpus.value
            found.append(
                Problem(
                    per_node.line or nodes.line,
                    f"mason.py asks Beaker for {nodes.value} × {per_node.value} = {asked} GPUs, but the run uses "
                    f"{gpus.value} ({gpus.written}); "
                    + ("the other GPUs sit idle" if more else "it cannot start on fewer"),
                    "gpus",
                    severity="warning" if more else "error",
                )
            )
        return found


def _one(flag: Flag | None, convert: Callable[[str], T | None]) -> Found[T]:
    """The single value of a flag (unknown if it has several, none, or is not written)."""
    if flag is None:
        return UNKNOWN
    if len(flag.values) != 1 or flag.values[0] is None:
        return Found(
            None, Origin.RUNTIME if flag.origin is Origin.RUNTIME else Origin.UNKNOWN, flag.line, flag.raw, flag.file
        )
    value = convert(flag.values[0])
    return Found(value, flag.origin if value is not None else Origin.UNKNOWN, flag.line, flag.raw, flag.file)
