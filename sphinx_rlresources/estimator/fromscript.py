"""A run's :class:`~.plan.Plan` from what its launch script asks for (a :class:`~sphinx_rlresources.scripts.run.Run`).

The estimator reads a script only through the framework-neutral ``Run`` that every
framework adapter fills, so a slime or OpenRLHF script is estimated like a verl one.
``rlresources estimate`` turns its flags into a ``Run`` too, and both go through
:func:`plan_for_row`: a row whose script is silent on a setting and a ``--model`` run
without its flag assume the *same* value, :data:`SILENT`, and the output names each one.

The silent values are the least demanding choice where there is one (offload on,
recomputation on, no reference model, the largest rollout tensor parallelism the heads
allow, the engine's budget not stated) so that the floor stays a lower bound of what any
script could have run, and a row is called implausible only when even that does not fit.
Values outside their bounds (:data:`BOUNDS`) are estimated as if not given, and named.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sphinx_rlresources.estimator.architectures import Architecture, bundled, by_size
from sphinx_rlresources.estimator.plan import NO_ENGINE, OFFLOAD_MODES, TRAINER_GENERATES, Plan
from sphinx_rlresources.scripts.frameworks import vocabulary_of
from sphinx_rlresources.scripts.frameworks.vocabulary import Vocabulary
from sphinx_rlresources.scripts.run import Found, Origin, Run

WHY_SILENT: dict[str, str] = {
    "param_offload": "the least GPU memory",
    "optimizer_offload": "the least GPU memory",
    "ref_param_offload": "the least GPU memory",
    "offload_mode": "the least GPU memory; a framework's own offload may differ (verl's: phase)",
    "gradient_checkpointing": "the least GPU memory",
    "prompt_length": "a common maximum",
    "response_length": "a common maximum",
    "micro_batch_per_gpu": "the least GPU memory",
    "log_prob_micro_batch_per_gpu": "as micro_batch_per_gpu",
    "dynamic_batch": "a fixed micro-batch",
    "max_token_len_per_gpu": "no token budget",
    "remove_padding": "the fewest tokens",
    "rollout_n": "one response per prompt",
    "train_batch_size": "not stated",
    "mini_batch_size": "not stated",
    "rollout_tp": "the largest the heads allow: the least GPU memory",
    "train_tp": "none for FSDP; for Megatron, as much as the GPUs allow (the least memory)",
    "train_pp": "none for FSDP; for Megatron, the rest of the GPUs (the least memory)",
    "train_ep": "no expert parallelism",
    "train_cp": "no context parallelism",
    "ulysses_sp": "no Ulysses sequence parallelism",
    "memory_fraction": "not stated: the engine holds its weights and the KV cache it uses",
    "free_cache_engine": "the engine sleeps during training: the least GPU memory",
    "max_num_seqs": "the engine's default",
    "fp8_rollout": "bf16 rollout weights",
    "use_kl": "no reference model: the least GPU memory (and verl's default)",
    "update_entropy": "no entropy bonus (verl's default)",
    "entropy_checkpointing": "not set",
    "entropy_chunking": "not set",
    "fused_kernels": "not set",
    "lora_targets": "verl's default",
    "gpus_per_node": "a node of 8 GPUs",
}
"""Setting (the Run field and the Plan field of one name) -> why its default is what a silent
script is assumed to run."""

SILENT: dict[str, tuple[Any, str]] = {
    name: (next(f.default for f in dataclasses.fields(Plan) if f.name == name), why) for name, why in WHY_SILENT.items()
}
"""Plan field -> (the value assumed when nothing says, why): :class:`Plan`'s own defaults, so
``--row``, ``--model`` and a plan built in code assume the same."""

FRAMEWORK_MECHANISMS = frozenset({"offload_mode", "gpus_per_node", "lora_targets"})
"""Framework defaults that are how the framework works rather than a setting a release may
change: the floor keeps them (verl offloads by phase whatever its release)."""

ENGINE_SETTINGS = ("rollout_tp", "memory_fraction", "max_num_seqs", "fp8_rollout", "free_cache_engine")
"""Settings of the rollout engine alone (``Run`` fields): a run whose trainer generates has none
to default, and the CLI refuses them for such a run."""

#: Plan field -> (least, most) a value from a script or a flag may be.
BOUNDS: dict[str, tuple[float, float]] = {
    "lora_rank": (0, 1 << 16),
    "prompt_length": (1, 10_000_000),
    "response_length": (1, 10_000_000),
    "micro_batch_per_gpu": (1, 10_000_000),
    "log_prob_micro_batch_per_gpu": (1, 10_000_000),
    "max_token_len_per_gpu": (1, 1_000_000_000),
    "rollout_n": (1, 100_000),
    "train_batch_size": (1, 1_000_000_000),
    "mini_batch_size": (1, 1_000_000_000),
    "rollout_tp": (1, 1 << 16),
    "train_tp": (1, 1 << 16),
    "train_pp": (1, 1 << 16),
    "train_ep": (1, 1 << 16),
    "train_cp": (1, 1 << 16),
    "ulysses_sp": (1, 1 << 16),
    "memory_fraction": (1e-6, 1.0),
    "max_num_seqs": (1, 10_000_000),
    "gpus_per_node": (1, 1024),
    "rollout_gpus": (0, 1 << 20),
    "zero_stage": (0, 3),
}

READ: tuple[str, ...] = tuple(WHY_SILENT)
"""The settings a Run says and a Plan takes, by the same name (``inspect --format json``'s keys).

A plan field not here (the backend, the LoRA rank, the ZeRO stage, the sequence cap) is read
from its Run field by :func:`plan_for_row` with a rule of its own."""


@dataclass(frozen=True)
class Row:
    """What a data row says about a run (kept apart from the core's Entry: no import of the core)."""

    model: str
    model_id: str | None
    size: str
    task: str
    gpus: int
    train: str
    infer: str


_READ: tuple[tuple[str, Any, bool, tuple[float, float] | None, tuple[str, Any]], ...] = tuple(
    (name, SILENT[name][0], name in FRAMEWORK_MECHANISMS, BOUNDS.get(name), (name, SILENT[name][0])) for name in READ
)
""":data:`READ`'s settings with what each needs looked up, once: (plan field, silent value,
a framework mechanism?, bounds, the ``(field, silent value)`` pair a plan's ``floor_values`` holds).

:func:`plan_for_row` walks it for every row.  The pair is made here once and shared by every
plan that needs it: a load keeps each row's plan, so new pairs per row would be kept too."""
_SETTINGS_OF: Callable[[Run], tuple[Found[Any], ...]] = operator.attrgetter(*READ)
"""The Run's settings in :data:`READ`'s order, fetched in one call."""


def architecture_for(row: Row, run: Run | None) -> Architecture | None:
    """The row's model shape: bundled by hub id, the script's model or the row's name; else its size label alone."""
    for name in (row.model_id, run.model.value if run else None, row.model):
        if name:
            found = bundled(name)
            if found is not None:
                return found
    return by_size(row.size)


def _said_backend(row: Row, run: Run) -> str:
    """The training backend as the script (else the row) names it, lower-cased; empty when neither does."""
    return (run.train_backend.value or row.train or "").lower()


def _backend(row: Row, run: Run) -> str:
    return "megatron" if _said_backend(row, run).startswith("megatron") else "fsdp"


def plan_for_row(row: Row, run: Run | None, device: str, device_gib: float) -> Plan:  # noqa: C901 - one setting at a time, each from the script or a stated default
    """The plan a row (or ``estimate``'s flags, as a Run) asks for, with :data:`SILENT` where nothing says."""
    run = run or Run()
    assumed: list[str] = []
    ignored: list[str] = []
    values: dict[str, Any] = {}
    floor_values: list[tuple[str, Any]] = []
    defaulted: list[str] = []
    # The framework's own facts (verl: fp32 FSDP parameters, offload by phase), from its vocabulary.
    words = vocabulary_of((run.framework or "").lower())
    run = framework_defaults(run, words)
    facts = words or ANY_TRAINER
    framework_default = Origin.FRAMEWORK_DEFAULT
    for (name, least, mechanism, bounds, floor_pair), found in zip(_READ, _SETTINGS_OF(run), strict=True):
        value = found.value
        if found.origin is framework_default and value is not None:
            defaulted.append(name)
            if not mechanism and value != least:
                floor_values.append(floor_pair)
        if value is None:
            if name not in values:
                values[name] = least
                assumed.append(name)
            continue
        # _within, written out: this loop runs 32 times a row on lint's and the build's path
        if bounds is not None and not (type(value) in _NUMBERS and bounds[0] <= value <= bounds[1]):
            ignored.append(f"{name}={str(value)[:20]}")
            value = least
            assumed.append(name)
        values[name] = value
    engine_gpus = row.gpus
    rollout_gpus = _rollout_gpus(run, row.gpus)
    ref_gpus = _own_gpus(run, "reference", row.gpus - rollout_gpus)
    critic_gpus = _own_gpus(run, "critic", row.gpus - rollout_gpus - ref_gpus)
    reward_gpus = _own_gpus(run, "reward", row.gpus - rollout_gpus - ref_gpus - critic_gpus)
    with_critic = [r for r in run.roles if r.name == "reward" and r.colocated_with == "critic"]
    reward_with_critic = bool(critic_gpus and with_critic)
    if rollout_gpus:
        engine_gpus = rollout_gpus
    tp = values["rollout_tp"]
    if tp is not None and (tp > engine_gpus or engine_gpus % tp):
        ignored.append(f"rollout_tp={tp}")
        values["rollout_tp"] = None
    if values["offload_mode"] not in OFFLOAD_MODES:
        ignored.append(f"offload_mode={str(values['offload_mode'])[:20]}")
        values["offload_mode"] = SILENT["offload_mode"][0]
    lora = run.lora_rank.value
    if lora is None or not _fits("lora_rank", lora):
        assumed.append("lora_rank")
        lora = 32 if "lora" in row.task.lower() else 0
    plain = _replicated(run, row)
    if plain is not None and plain.origin is not Origin.FRAMEWORK_DEFAULT:
        _keep_on_gpu(values, floor_values, assumed, ignored)
    zero = plain or run.zero_stage
    zero_stage = 3 if zero.value is None or not _fits("zero_stage", zero.value) else int(zero.value)
    if zero.value is not None and zero_stage != zero.value:
        ignored.append(f"zero_stage={str(zero.value)[:20]}")
    if zero.origin is Origin.FRAMEWORK_DEFAULT and zero_stage != 3:
        floor_values.append(("zero_stage", 3))  # OpenRLHF's default 2 is a default: the floor shards all
    cap = run.max_total_length.value
    if cap is not None and not _fits("response_length", cap):
        ignored.append(f"max_total_length={str(cap)[:20]}")
        cap = None
    backend = _backend(row, run)
    if backend == "megatron":
        # The least memory Megatron can have: every GPU a model-parallel shard, TP within a node.
        tp = 1 << (min(row.gpus, values["gpus_per_node"]).bit_length() - 1)
        while row.gpus % tp:
            tp //= 2
        if {"train_tp", "train_pp"} <= set(assumed):
            values["train_tp"], values["train_pp"] = tp, row.gpus // tp
        elif all(getattr(run, f).origin is Origin.FRAMEWORK_DEFAULT for f in ("train_tp", "train_pp")):
            floor_values += [("train_tp", tp), ("train_pp", row.gpus // tp)]  # verl's 1 and 1 are a default too
    defaulted += _defaulted_facts(run, facts, backend, plain)
    if run.activation_offload.value and backend != "fsdp":  # prime-rl's FSDP trainer's switch, not Megatron's
        ignored.append("activation_offload=True")
    engine = (run.engine.value or row.infer or "vllm").lower()
    engine = NO_ENGINE if engine in TRAINER_GENERATES else "sglang" if engine.startswith("sglang") else "vllm"
    if engine == NO_ENGINE:  # an engine's defaults say nothing about a trainer that generates itself
        defaulted = [name for name in defaulted if name not in ENGINE_SETTINGS]
    elif not rollout_gpus:
        defaulted += _generation_offload(values, facts, assumed)
    log_prob_budget = _log_prob_budget(run, values, facts, cap, ignored)
    return Plan(
        task=row.task,
        gpus=row.gpus,
        device=device,
        device_gib=device_gib,
        lora_rank=int(lora),
        train_backend=backend,
        param_bytes=_param_bytes(run, facts, backend, plain, floor_values),
        megatron_grad_bytes=facts.megatron_grad_bytes,
        logits_fp32=facts.logits_fp32,
        vocab_parallel=facts.vocab_parallel,
        pass_entropy=facts.pass_entropy,
        logit_chunk=facts.logit_chunk,
        activation_offload=_offloads_activations(run, facts, backend),
        compute_copy=run.compute_copy.value is True,
        engine=engine,
        budget_of="free" if engine == "sglang" else "device",
        critic=run.critic.value,
        rollout_gpus=rollout_gpus,
        ref_gpus=ref_gpus,
        critic_gpus=critic_gpus,
        reward_gpus=reward_gpus,
        reward_with_critic=reward_with_critic,
        max_total_length=None if cap is None else int(cap),
        log_prob_max_token_len_per_gpu=log_prob_budget,
        zero_stage=zero_stage,
        master_weights=plain is None,
        assumed=tuple(assumed),
        framework=run.framework if defaulted else None,
        framework_defaults=tuple(n for n in defaulted if n not in assumed),
        ignored=tuple(ignored),
        floor_values=tuple([pair for pair in floor_values if pair[0] not in assumed]),
        **values,
    )


REPLICATED_BACKENDS = ("ddp", "single")
"""Backends that keep every state whole on each GPU (PyTorch DDP, one process): ZeRO stage 0."""


def _replicated(run: Run, row: Row) -> Found[int] | None:
    """ZeRO stage 0 where the run says no stage and trains in plain PyTorch, DDP or one process (as
    said, or as its framework's default, which the floor then shards like any default); else None."""
    backend = run.train_backend
    if run.zero_stage.value is not None or _said_backend(row, run) not in REPLICATED_BACKENDS:
        return None
    origin = backend.origin if backend.value is not None else Origin.SET
    return Found(0, origin, backend.line, backend.written, backend.file)


ON_GPU = ("param_offload", "optimizer_offload", "ref_param_offload")
"""What plain PyTorch cannot offload: DDP and one process keep every state on the GPU."""


def _keep_on_gpu(
    values: dict[str, Any], floor_values: list[tuple[str, Any]], assumed: list[str], ignored: list[str]
) -> None:
    """A run said to train in plain PyTorch offloads nothing, in the floor too: an offload it says is named."""
    ignored += [f"{name}=True" for name in ON_GPU if values.get(name) and name not in assumed]
    values.update(dict.fromkeys(ON_GPU, False))
    floor_values[:] = [pair for pair in floor_values if pair[0] not in ON_GPU]
    assumed[:] = [name for name in assumed if name not in ON_GPU]


DTYPE_BYTES = {"float32": 4, "fp32": 4, "bfloat16": 2, "bf16": 2, "float16": 2, "fp16": 2}
"""A loaded model's dtype -> bytes per parameter (``auto``, the checkpoint's own, is not known here)."""


def _param_bytes(
    run: Run, facts: Vocabulary, backend: str, plain: Found[int] | None, floor_values: list[tuple[str, Any]]
) -> int:
    """Bytes per parameter the trainer keeps: the loaded dtype's in plain PyTorch, where the run says it
    (a framework's default dtype above bf16 leaves the floor at bf16); else its framework's (verl's
    fp32 FSDP parameters), else bf16."""
    dtype = run.param_dtype
    loaded = DTYPE_BYTES.get(str(dtype.value).lower()) if plain is not None else None
    if loaded is None:
        return facts.fsdp_param_bytes if backend == "fsdp" else PLAIN_PARAM_BYTES
    if dtype.origin is Origin.FRAMEWORK_DEFAULT and loaded > PLAIN_PARAM_BYTES:
        floor_values.append(("param_bytes", PLAIN_PARAM_BYTES))
    return loaded


def _defaulted_facts(run: Run, facts: Vocabulary, backend: str, plain: Found[int] | None) -> list[str]:
    """The settings outside :data:`READ` that the framework's defaults decided (its backend, its engine,
    its ZeRO stage, the bytes its trainer keeps per parameter, its fused kernel's chunk, its
    activation offload).  A default of plain PyTorch is named by what it decides: no sharding and no
    master copy."""
    settings = [("engine", run.engine), ("zero_stage", plain or run.zero_stage)]
    settings += (
        [("master_weights", plain), ("param_bytes", run.param_dtype)]
        if plain
        else [("train_backend", run.train_backend)]
    )
    found = [name for name, said in settings if said.origin is Origin.FRAMEWORK_DEFAULT and said.value is not None]
    if backend == "fsdp" and facts.fsdp_param_bytes != PLAIN_PARAM_BYTES:
        found.append("param_bytes")
    if facts.logit_chunk is not None:
        found.append("logit_chunk")
    if run.activation_offload.value is None and _offloads_activations(run, facts, backend):
        found.append("activation_offload")
    return found


def _generation_offload(values: dict[str, Any], facts: Vocabulary, assumed: list[str]) -> list[str]:
    """A colocated run of a framework that moves its states off the GPU to generate
    (:attr:`Vocabulary.generation_offload`) offloads both by phase when no switch offloads them:
    the settings it decided (no longer assumed), for the output to name."""
    if not facts.generation_offload or values["param_offload"] or values["optimizer_offload"]:
        return []
    decided = {"param_offload": True, "optimizer_offload": True, "offload_mode": "phase"}
    values.update(decided)
    assumed[:] = [name for name in assumed if name not in decided]
    return list(decided)


def _log_prob_budget(run: Run, values: dict[str, Any], facts: Vocabulary, cap: Any, ignored: list[str]) -> int | None:
    """The log-prob passes' own token budget: as the run says it, else its framework's default where
    that is the sequence cap times the log-prob batch (:attr:`Vocabulary.log_prob_budget_per_sequence`,
    NeMo-RL's ``logprob_mb_tokens``); None: the update's budget."""
    said = run.log_prob_max_token_len_per_gpu.value
    if said is not None:
        if _fits("max_token_len_per_gpu", said):
            return int(said)
        ignored.append(f"log_prob_max_token_len_per_gpu={str(said)[:20]}")
    batch = values["log_prob_micro_batch_per_gpu"]
    if not (facts.log_prob_budget_per_sequence and values["dynamic_batch"] and cap and batch):
        return None
    return int(cap) * int(batch)


def _offloads_activations(run: Run, facts: Vocabulary, backend: str) -> bool:
    """Whether the FSDP trainer keeps its recomputation inputs in host memory: as the run says
    (prime-rl's ``model.ac_offloading``), else as its framework does by default (prime-rl's today)."""
    said = run.activation_offload.value
    offloads = said if said is not None else facts.activation_offload
    return bool(offloads) and backend == "fsdp"


PLAIN_PARAM_BYTES = 2
"""bf16 parameters: what a trainer keeps unless its framework's vocabulary says more (verl's fp32)."""
ANY_TRAINER = Vocabulary("", {})
"""The facts of a trainer no named framework's vocabulary describes: a :class:`Vocabulary`'s own
defaults (bf16 parameters, fp32 Megatron gradients, entropy in the log-prob pass, no fused head,
no activation offload), so a plan reads its facts from one vocabulary whether a framework is named
or not."""


def framework_defaults(run: Run, words: Vocabulary | None) -> Run:
    """The run with its framework's own defaults (:class:`Vocabulary`) where nothing says a setting.

    The one rule for a silent setting of a named framework -- a script its adapter read,
    ``estimate --framework``, a validation row: the framework's default, marked as one, so
    the expected peak takes it and the floor keeps the least-memory value.  A setting written
    but unknown (``$OFFLOAD`` unresolved) is left unknown."""
    if words is None:
        return run
    given = {"offload_mode": words.offload_mode, "memory_fraction": words.memory_fraction, **words.defaults}
    filled: dict[str, Any] = {
        name: Found(value, Origin.FRAMEWORK_DEFAULT, 0, f"{words.framework}'s default")
        for name, value in given.items()
        if value is not None and (found := getattr(run, name)).value is None and not found.line
    }
    return dataclasses.replace(run, **filled) if filled else run


def _fits(name: str, value: object) -> bool:
    bounds = BOUNDS.get(name)
    return bounds is None or _within(value, bounds)


_NUMBERS = (int, float)
"""What a bounded setting may be (a bool is neither here)."""


def _within(value: object, bounds: tuple[float, float]) -> bool:
    """A number (a bool is none here) within the bounds."""
    return type(value) in _NUMBERS and bounds[0] <= value <= bounds[1]  # type: ignore[operator]


def _rollout_gpus(run: Run, gpus: int) -> int:
    """The engine's own GPUs when the run places it apart from the trainer (0: colocated or unknown)."""
    if run.colocated.value is not False:
        return 0
    return _own_gpus(run, "rollout", gpus)


def _own_gpus(run: Run, name: str, gpus: int) -> int:
    """The GPUs of a role the run places apart from the trainer, fewer than ``gpus`` (0: shared or unknown).

    A reference model counts only where one is loaded, a critic only where one is trained; its
    role says where (OpenRLHF's ``--ref.num_nodes`` x ``--ref.num_gpus_per_node`` without
    ``colocate_actor_ref``, ``--critic.num_nodes`` x ``--critic.num_gpus_per_node`` without
    ``colocate_all``)."""
    if (name == "reference" and run.use_kl.value is False) or (name == "critic" and run.critic.value is False):
        return 0
    for role in run.roles:
        if role.name == name and not role.colocated_with:
            count = role.gpus.value
            if count is not None and _fits("rollout_gpus", count) and 0 < count < gpus:
                return int(count)
    return 0
