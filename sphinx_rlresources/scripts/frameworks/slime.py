"""slime: ``ray job submit … -- python3 train.py --actor-num-nodes 1 … ${MODEL_ARGS[@]}`` (or ``train_async.py``).

slime reads Megatron-style hyphenated flags; the model's shape comes from a sourced
``scripts/models/<model>.sh`` that sets ``MODEL_ARGS`` (read through the caller's
:class:`~..files.Files`).  The run's GPUs follow slime's placement
(``slime/ray/placement_group.py`` ``_get_placement_group_layout`` at THUDM/slime@624b824):
the actor has ``--actor-num-nodes × --actor-num-gpus-per-node``; the rollout
``--rollout-num-gpus``, which ``--colocate`` sets to the actor's count when unsaid; with
``--colocate`` the two share GPUs (the larger count), without it they add up; the
critic (PPO) and the reference live on the actor's GPUs; ``--debug-train-only`` runs
only the actor, ``--debug-rollout-only`` only the rollout.  External engines
(``--rollout-external-engine-addrs``) run on GPUs this script does not say.

Generation is always SGLang and training Megatron (FSDP was removed in 2026-03,
``e4faf633``); slime has no LoRA -- ``--q-lora-rank``/``--kv-lora-rank`` in the model
files are the latent sizes of DeepSeek's multi-head latent attention, not adapters.
Defaults are those of ``slime/utils/arguments.py`` at 624b824 (cited by line), and
Megatron-LM's (``megatron/training/arguments.py`` ``_add_distributed_args``: every
parallel size 1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from sphinx_rlresources.scripts.frameworks.argv import as_model, dangling_problems, elided, launched, when, with_servers
from sphinx_rlresources.scripts.frameworks.base import (
    Flag,
    Setting,
    Table,
    added,
    as_bool,
    as_float,
    as_int,
    as_lower,
    default,
    deprecated,
    derived,
    from_override,
    offload_mode,
    product,
    read_flags,
)
from sphinx_rlresources.scripts.frameworks.sanity import common_problems
from sphinx_rlresources.scripts.frameworks.vocabulary import GROUP_TASKS, Vocabulary
from sphinx_rlresources.scripts.interpreter import Command, Interpreter
from sphinx_rlresources.scripts.run import UNKNOWN, Found, Origin, Problem, Role, Run

NAME = "slime"
VOCABULARY = Vocabulary(
    NAME,
    {
        # --advantage-estimator's choices (slime/utils/arguments.py at THUDM/slime); "sft" is read from --loss-type.
        "grpo": GROUP_TASKS,
        "gspo": ("GSPO",),
        "reinforce_plus_plus": ("REINFORCE++",),
        "reinforce_plus_plus_baseline": ("REINFORCE++-baseline",),
        "ppo": ("PPO",),
        "sft": ("SFT",),
    },
    naming="slime",
    # Its log-prob passes score the entropy only with --use-rollout-entropy ("with_entropy":
    # args.use_rollout_entropy, slime/backends/megatron_utils/model.py:443 at THUDM/slime@624b824;
    # store_true, default False, slime/utils/arguments.py:1018-1020; miles' Megatron actor the same),
    # which no script of either repository passes and the reader does not read.  miles' FSDP actor
    # computes it whatever the flag (miles/backends/fsdp_utils/actor.py:414): not told apart.
    pass_entropy=False,
    # Its Megatron actor hands the loss fp32 logits over every token ("assert logits.dtype ==
    # torch.float32", slime/backends/megatron_utils/loss.py:128 and :535 at 624b824, loss.py:50 at
    # 9ddbdbd in July 2025): Megatron's Float16Module casts the last stage's output to fp32.
    logits_fp32=True,
)
ENTRY_SCRIPTS = ("train.py", "train_async.py")
Placement = tuple[Found[int], Found[int], Found[int], tuple[Role, ...]]
"""The run's GPUs, nodes and GPUs per node, and each role's share."""

#: slime's argparse defaults (slime/utils/arguments.py @624b824) and Megatron-LM's own (megatron/training/
#: arguments.py, _add_distributed_args: no parallelism), by the Run field each flag gives.
ARGS = "slime/utils/arguments.py@624b824"
MEGATRON = "megatron/training/arguments.py (_add_distributed_args)"
TABLE = Table(
    "slime",
    {
        "nodes": Setting(("actor-num-nodes",), as_int, 1, f"{ARGS}:39"),
        "gpus_per_node": Setting(("actor-num-gpus-per-node",), as_int, 8, f"{ARGS}:41"),
        "rollout_gpus": Setting(("rollout-num-gpus",), as_int),
        "rollout_tp": Setting(("rollout-num-gpus-per-engine",), as_int, 1, f"{ARGS}:56"),
        "colocated": Setting(("colocate",), as_bool, False, f"{ARGS}:71"),
        "rollout_n": Setting(("n-samples-per-prompt",), as_int, 1, f"{ARGS}:700"),
        "micro_batch_per_gpu": Setting(("micro-batch-size",), as_int, 1, f"{ARGS}:717"),
        "dynamic_batch": Setting(("use-dynamic-batch-size",), as_bool, False, f"{ARGS}:747"),
        "kl_coef": Setting(("kl-coef",), as_float, 0.0, f"{ARGS}:909"),
        "algorithm": Setting(("advantage-estimator",), as_lower, "grpo", f"{ARGS}:941"),
        "use_kl_loss": Setting(("use-kl-loss",), as_bool, False, f"{ARGS}:981"),
        "debug_rollout_only": Setting(("debug-rollout-only",), as_bool, False, f"{ARGS}:1593"),
        "debug_train_only": Setting(("debug-train-only",), as_bool, False, f"{ARGS}:1594"),
        "train_tp": Setting(("tensor-model-parallel-size",), as_int, 1, MEGATRON),
        "train_pp": Setting(("pipeline-model-parallel-size",), as_int, 1, MEGATRON),
        "train_cp": Setting(("context-parallel-size",), as_int, 1, MEGATRON),
        "train_ep": Setting(("expert-model-parallel-size",), as_int, 1, MEGATRON),
        "model": Setting(("hf-checkpoint",), as_model),
        "prompt_length": Setting(("rollout-max-prompt-len",), as_int),
        "response_length": Setting(("rollout-max-response-len",), as_int),
        "train_batch_size": Setting(("rollout-batch-size",), as_int),
        "max_token_len_per_gpu": Setting(("max-tokens-per-gpu",), as_int),
        "memory_fraction": Setting(("sglang-mem-fraction-static",), as_float),
    },
    "--{key} (slime's default: {value})",
)
SWITCHES = frozenset(
    {
        "colocate",
        "offload",
        "offload-train",
        "no-offload-train",
        "offload-rollout",
        "no-offload-rollout",
        "use-kl-loss",
        "debug-train-only",
        "debug-rollout-only",
        "use-dynamic-batch-size",
        "sequence-parallel",
        "optimizer-cpu-offload",
        "release-train",
    }
)
VALUED = frozenset(
    {
        "actor-num-nodes",
        "actor-num-gpus-per-node",
        "rollout-num-gpus",
        "rollout-num-gpus-per-engine",
        "num-gpus-per-node",
        "hf-checkpoint",
        "tensor-model-parallel-size",
        "pipeline-model-parallel-size",
        "context-parallel-size",
        "expert-model-parallel-size",
        "rollout-max-prompt-len",
        "rollout-max-response-len",
        "rollout-batch-size",
        "n-samples-per-prompt",
        "micro-batch-size",
        "max-tokens-per-gpu",
        "advantage-estimator",
        "kl-coef",
        "sglang-mem-fraction-static",
        "train-backend",
        "recompute-granularity",
        "rollout-external-engine-addrs",
        "load-debug-rollout-data",
        "critic-num-nodes",
        "critic-num-gpus-per-node",
        "rollout-num-gpus-per-node",
    }
)
#: Flags only slime (among launchers of a ``train.py``) passes: one of them marks the command as slime's.
SIGNATURE = frozenset(
    {
        "actor-num-nodes",
        "actor-num-gpus-per-node",
        "rollout-num-gpus",
        "rollout-num-gpus-per-engine",
        "hf-checkpoint",
        "rollout-batch-size",
        "n-samples-per-prompt",
        "sglang-mem-fraction-static",
        "rollout-max-response-len",
    }
)
#: Flags the current slime no longer parses, and what replaced them.
DEPRECATED = {
    "critic-num-nodes": "nothing: the critic uses the actor's GPUs since 75af5297c (2026-04)",
    "critic-num-gpus-per-node": "nothing: the critic uses the actor's GPUs since 75af5297c (2026-04)",
    "rollout-num-gpus-per-node": "--num-gpus-per-node (renamed in ebf16c57c, 2025-09)",
}


def _script(command: Command) -> tuple[str | None, int]:
    """slime's entry script (``train.py``, ``"${REPO_ROOT}/train.py"``) and the index after it."""
    for index, field in enumerate(command.fields):
        text = field.value if field.value is not None else field.tail
        name = text.rsplit("/", 1)[-1]
        if name in ENTRY_SCRIPTS and not text.startswith("-") and "=" not in text:
            return text.removeprefix("./"), index + 1
    return None, len(command.fields)


def _direct(command: Command) -> bool:
    script, start = _script(command)
    if script is None:
        return False
    return any((f.value or "").lstrip("-").split("=", 1)[0] in SIGNATURE for f in command.fields[start:])


def claims(command: Command) -> bool:
    """slime's ``train.py``/``train_async.py`` with its own flags (directly, via Ray, or inside ``bash -c``)."""
    if _direct(command):
        return True
    return any(f.value is not None and " " in f.value and "train" in f.value for f in command.fields) and (
        launched(command, _direct) is not None
    )


def read(command: Command, reading: Interpreter, path: str) -> Run:
    """The :class:`Run` of a slime launch command."""
    launch = launched(command, _direct) or command
    script, start = _script(launch)
    found = read_flags(launch.fields[start:], SWITCHES, VALUED)
    return _Reader(found, reading, path, launch, script).run()


class _Reader:
    def __init__(self, found: dict[str, Flag], reading: Interpreter, path: str, launch: Command, script: str | None):
        self.flags = found
        self.reading = reading
        self.path = path
        self.launch = launch
        self.script = script
        self.elided = elided(launch.fields)

    def get(self, name: str) -> Found[Any]:
        """A setting of :data:`TABLE` as written, else slime's (or Megatron's) default."""
        return TABLE.read(name, self.look_up, not self.elided)

    def look_up(self, key: str, convert: Callable[[str], Any]) -> Found[Any]:
        flag = self.flags.get(key)
        return from_override(flag.override(), convert) if flag is not None else UNKNOWN

    def flags_bool(self, name: str) -> Found[bool]:
        flag = self.flags.get(name)
        if flag is not None:
            return from_override(flag.override(), as_bool)
        return UNKNOWN if self.elided else default(False, f"no --{name}")

    def run(self) -> Run:
        estimator = self.get("algorithm")
        loss = self.flags.get("loss-type")
        if loss is not None and loss.value == "sft_loss":
            estimator = Found("sft", Origin.SET, loss.line, loss.raw, loss.file)
        kl_coef = self.get("kl_coef")
        kl_loss = self.get("use_kl_loss")
        use_kl = _use_kl(kl_coef, kl_loss)
        critic = when(estimator, lambda v: v == "ppo", "a critic for PPO")
        colocate = self.get("colocated")
        gpus, nodes, per_node, roles = self._placement(colocate)
        gpus, roles, served = with_servers(self.reading, self.launch, gpus, roles)
        if served:
            nodes, per_node = UNKNOWN, UNKNOWN
        train_only = self.get("debug_train_only").value or "load-debug-rollout-data" in self.flags
        offload_train, offload_rollout = self._offload(colocate)
        cpu_adam = self.flags_bool("optimizer-cpu-offload")
        recompute = self.flags.get("recompute-granularity")
        run = Run(
            path=self.path,
            framework=NAME,
            entry_point=self.script,
            launch_line=self.launch.line,
            gpus=gpus,
            nodes=nodes,
            gpus_per_node=per_node,
            roles=roles,
            colocated=colocate,
            train_backend=self._backend(),
            train_tp=self.get("train_tp"),
            train_pp=self.get("train_pp"),
            train_ep=self.get("train_ep"),
            train_cp=self.get("train_cp"),
            lora_rank=default(0, "slime has no LoRA (--q-lora-rank/--kv-lora-rank are attention sizes)"),
            model=self.get("model"),
            algorithm=estimator,
            use_kl=use_kl,
            critic=critic,
            prompt_length=self.get("prompt_length"),
            response_length=self.get("response_length"),
            train_batch_size=self.get("train_batch_size"),
            micro_batch_per_gpu=self.get("micro_batch_per_gpu"),
            dynamic_batch=self.get("dynamic_batch"),
            max_token_len_per_gpu=self.get("max_token_len_per_gpu"),
            rollout_n=UNKNOWN if train_only else self.get("rollout_n"),
            param_offload=offload_train,
            optimizer_offload=cpu_adam if cpu_adam.value else offload_train,
            offload_mode=offload_mode(
                ("compute", "Megatron's CPU optimizer: the step runs on the host", cpu_adam),
                ("phase", "the trainer leaves the GPU during rollout", offload_train),
            ),
            gradient_checkpointing=(
                Found(True, Origin.SET, recompute.line, recompute.raw, recompute.file)
                if recompute is not None and recompute.value
                else UNKNOWN
                if self.elided
                else default(False, "no --recompute-granularity (Megatron recomputes nothing)")
            ),
            engine=UNKNOWN if train_only else default("sglang", "slime generates with SGLang only"),
            rollout_tp=UNKNOWN if train_only else self.get("rollout_tp"),
            memory_fraction=UNKNOWN if train_only else self.get("memory_fraction"),
            free_cache_engine=UNKNOWN if train_only else offload_rollout,
            deprecated=tuple(f"--{name}" for name in DEPRECATED if name in self.flags),
            variables={name: value.value for name, value in self.reading.vars.items()},
        )
        problems = self._problems() + dangling_problems(self.reading, self.launch) + common_problems(run, self.reading)
        return replace(run, problems=tuple(problems))

    def _placement(self, colocate: Found[bool]) -> Placement:
        """The run's GPUs as ``_get_placement_group_layout`` reserves them, with each role's share."""
        nodes = self.get("nodes")
        per_node = self.get("gpus_per_node")
        actor = derived(
            product(nodes, per_node),
            [nodes, per_node],
            f"actor {nodes.value} × {per_node.value}",
        )
        rollout = self.get("rollout_gpus")
        train_only = self.get("debug_train_only")
        rollout_only = self.get("debug_rollout_only")
        trainer = Role("trainer", actor, nodes, per_node)
        if self._old_critic():
            return Found(None, Origin.UNKNOWN, self.flags["critic-num-nodes"].line), UNKNOWN, UNKNOWN, (trainer,)
        if train_only.value or "load-debug-rollout-data" in self.flags:
            return actor, nodes, per_node, (trainer,)
        if "rollout-external-engine-addrs" in self.flags:
            external = Role("rollout", Found(None, Origin.RUNTIME, self.flags["rollout-external-engine-addrs"].line))
            return (
                derived(None, [actor, external.gpus], "actor + external engines"),
                UNKNOWN,
                UNKNOWN,
                (trainer, external),
            )
        follows = rollout.value is None and not rollout.line and bool(colocate.value)
        if follows:
            rollout = derived(actor.value, [actor], f"--rollout-num-gpus unsaid: the actor's {actor.value}")
        if rollout_only.value:
            return rollout, UNKNOWN, UNKNOWN, (Role("rollout", rollout),)
        if colocate.value is None or train_only.value is None or rollout_only.value is None:
            return derived(None, [colocate], "colocation unknown"), UNKNOWN, UNKNOWN, (trainer,)
        if colocate.value:
            engines = Role("rollout", rollout, colocated_with="trainer")
            if actor.value is None or rollout.value is None:
                shape = (nodes, per_node) if follows else (UNKNOWN, UNKNOWN)
                return derived(None, [actor, rollout], "max(actor, rollout)"), *shape, (trainer, engines)
            total = derived(max(actor.value, rollout.value), [actor, rollout], f"max({actor.written}, {rollout.value})")
            same = rollout.value <= actor.value
            return total, nodes if same else UNKNOWN, per_node if same else UNKNOWN, (trainer, engines)
        engines = Role("rollout", rollout)
        if not rollout.line:  # slime's own arithmetic (actor + None) fails: no run to count
            return (
                Found(None, Origin.UNKNOWN, 0, "no --rollout-num-gpus without --colocate"),
                UNKNOWN,
                UNKNOWN,
                (trainer,),
            )
        total = derived(added(actor, rollout), [actor, rollout], f"{actor.written} + rollout {rollout.value}")
        return self._split_nodes(total, trainer, engines)

    def _split_nodes(self, total: Found[int], trainer: Role, engines: Role) -> Placement:
        """Nodes of an actor and a rollout on GPUs of their own, from the node size ``ray start --head`` declares.

        slime reserves one PACK placement group of single-GPU bundles, the actor's first, sorted by
        node and GPU (``_create_placement_group``): with nodes of ``--num-gpus S``, a run of at most S
        GPUs fits one node, and an actor and a rollout of whole nodes each fill ``total / S`` nodes.
        Any other shape (or no head started here) leaves the nodes to Ray.
        """
        size = _head_gpus(self.reading)
        head = f"ray start --head --num-gpus {size.value if size is not None else None}"
        gpus, actor, served = total.value, trainer.gpus.value, engines.gpus.value
        if size is None or size.value is None or gpus is None or actor is None or served is None or not size.value:
            return total, UNKNOWN, UNKNOWN, (trainer, engines)
        if gpus <= size.value:
            nodes = derived(1, [total, size], f"{gpus} GPUs on one node of {size.value} ({head})")
            per_node = derived(gpus, [total, size], f"{total.written}, on one node")
            return total, nodes, per_node, (trainer, replace(engines, nodes=nodes, gpus_per_node=engines.gpus))
        if actor % size.value or served % size.value:
            return total, UNKNOWN, UNKNOWN, (trainer, engines)
        nodes = derived(gpus // size.value, [total, size], f"{total.written} on nodes of {size.value} ({head})")
        rollout_nodes = derived(
            served // size.value, [engines.gpus, size], f"rollout {served} on nodes of {size.value}"
        )
        return total, nodes, size, (trainer, replace(engines, nodes=rollout_nodes, gpus_per_node=size))

    def _old_critic(self) -> bool:
        """A critic with GPUs of its own (slime before 75af5297c): placed by rules this reader does not follow."""
        return "critic-num-nodes" in self.flags or "critic-num-gpus-per-node" in self.flags

    def _offload(self, colocate: Found[bool]) -> tuple[Found[bool], Found[bool]]:
        """Whether the trainer's and the engines' states leave the GPU between phases (arguments.py:1907-1955)."""
        found = []
        for part in ("train", "rollout"):
            explicit = self.flags.get(f"offload-{part}") or self.flags.get(f"no-offload-{part}")
            both = self.flags.get("offload")
            if explicit is not None:
                value = explicit.name == f"offload-{part}"
                found.append(Found(value, Origin.SET, explicit.line, explicit.raw, explicit.file))
            elif both is not None:
                found.append(Found(True, Origin.SET, both.line, both.raw, both.file))
            elif colocate.value:
                found.append(Found(True, Origin.DERIVED, colocate.line, f"--colocate implies --offload-{part}"))
            elif colocate.value is False and not self.elided:
                found.append(default(False, f"no --offload-{part}"))
            else:
                found.append(UNKNOWN)
        return found[0], found[1]

    def _backend(self) -> Found[str]:
        flag = self.flags.get("train-backend")
        if flag is not None:
            return from_override(flag.override(), as_lower)
        prefix = dict(self.launch.prefix)
        if "SLIME_BACKEND" in prefix:
            field = prefix["SLIME_BACKEND"]
            value = as_lower(field.value) if field.value is not None else None
            return Found(value, Origin.SET if value else Origin.RUNTIME, field.line, f"SLIME_BACKEND={field.value}")
        if "SLIME_BACKEND" in self.reading.vars:
            value = self.reading.vars["SLIME_BACKEND"].value
            line = self.reading.lines.get("SLIME_BACKEND", 0)
            return Found(as_lower(value) if value else None, Origin.SET if value else Origin.RUNTIME, line)
        return default("megatron", "slime trains with Megatron (--train-backend: arguments.py:1592)")

    def _problems(self) -> list[Problem]:
        found = list(self.reading.problems)
        gone = "--{key} is no longer a slime flag (replaced by {advice}); the current slime refuses the command"
        found += deprecated(DEPRECATED, self.flags, gone)
        backend = self.flags.get("train-backend")
        if backend is not None and (backend.value or "").lower() == "fsdp":
            found.append(
                Problem(
                    backend.line,
                    "--train-backend fsdp was removed from slime in 2026-03 (e4faf633); the current slime trains with "
                    "Megatron only",
                    "train-backend",
                    kind="deprecated",
                    severity="warning",
                )
            )
        return found


def _use_kl(coef: Found[float], loss: Found[bool]) -> Found[bool]:
    """The reference is loaded for a KL coefficient other than 0, or for --use-kl-loss even at coefficient 0."""
    if loss.value:
        return Found(True, loss.origin, loss.line, loss.written, loss.file)
    if coef.value is None or loss.value is None:
        return Found(None, Origin.RUNTIME if coef.line or loss.line else Origin.UNKNOWN, coef.line or loss.line)
    chosen = coef if coef.line else loss
    origin = Origin.DERIVED if chosen.origin is Origin.SET else chosen.origin
    return Found(coef.value != 0, origin, chosen.line, f"--kl-coef {coef.value}, no --use-kl-loss")


__all__ = ["NAME", "claims", "read"]


def _head_gpus(reading: Interpreter) -> Found[int] | None:
    """``ray start --head … --num-gpus S``: the GPUs of the node the script starts Ray on (None: no head here)."""
    for command in reading.commands:
        values = [field.value for field in command.fields]
        if values[:2] != ["ray", "start"] or "--head" not in values:
            continue
        found = read_flags(command.fields[2:], frozenset({"head", "disable-usage-stats", "block"}))
        flag = found.get("num-gpus")
        return from_override(flag.override(), as_int) if flag is not None else None
    return None
