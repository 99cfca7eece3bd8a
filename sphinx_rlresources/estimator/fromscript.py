"""A run's :class:`~.memory.Plan` from what its launch script sets, with lower-bound defaults.

Every setting the estimate needs is read from the script's overrides (verl's keys).  A
setting the script does not settle is filled with the choice that needs the *least*
memory -- offload on, recomputation on, the largest rollout tensor parallelism the
heads allow, no reference model unless KL is switched on -- so the estimate stays a
lower bound of what the script can have run, and a row is called implausible only when
even that does not fit.  Each such choice is named in ``Plan.assumed``.
"""

from __future__ import annotations

from dataclasses import dataclass

from sphinx_rlresources.estimator.architectures import Architecture, bundled, by_size
from sphinx_rlresources.estimator.memory import Plan
from sphinx_rlresources.scripts.settings import ScriptSettings

ACTOR = "actor_rollout_ref.actor"
ROLLOUT = "actor_rollout_ref.rollout"
STOCK_FRACTION = 0.5
"""verl's default ``gpu_memory_utilization`` in its stock trainer configs."""


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


def architecture_for(row: Row, settings: ScriptSettings | None) -> Architecture | None:
    """The row's model shape: bundled by hub id, script model path or name; else its size label alone."""
    for name in (row.model_id, settings.model_path if settings else None, row.model):
        if name:
            found = bundled(name)
            if found is not None:
                return found
    return by_size(row.size)


def _flag(settings: ScriptSettings, *keys: str) -> bool | None:
    for key in keys:
        value = settings.text(key)
        if value is not None:
            lowered = value.strip().lower()
            if lowered in ("true", "1", "yes"):
                return True
            if lowered in ("false", "0", "no"):
                return False
    return None


def _number(settings: ScriptSettings, key: str) -> float | None:
    value = settings.text(key)
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def plan_for_row(row: Row, settings: ScriptSettings | None, device: str, device_gib: float) -> Plan:
    """The least demanding plan consistent with the row and what its script sets."""
    assumed: list[str] = []
    s = settings or ScriptSettings()

    def pick(name: str, found: object, lower_bound: object) -> object:
        if found is None:
            assumed.append(name)
            return lower_bound
        return found

    backend = "megatron" if row.train.lower() == "megatron" else "fsdp"
    config = "megatron" if backend == "megatron" else "fsdp_config"
    param_offload = pick("param_offload", _flag(s, f"{ACTOR}.{config}.param_offload"), True)
    optimizer_offload = pick("optimizer_offload", _flag(s, f"{ACTOR}.{config}.optimizer_offload"), True)
    ref_offload = pick("ref_offload", _flag(s, f"actor_rollout_ref.ref.{config}.param_offload"), True)
    checkpointing = pick(
        "gradient_checkpointing", _flag(s, "actor_rollout_ref.model.enable_gradient_checkpointing"), True
    )
    prompt = pick("prompt_length", s.integer("data.max_prompt_length"), 0)
    response = pick("response_length", s.integer("data.max_response_length"), 0)
    micro = pick("micro_batch", s.integer(f"{ACTOR}.ppo_micro_batch_size_per_gpu"), 1)
    tp = s.integer(f"{ROLLOUT}.tensor_model_parallel_size")
    if tp is None:
        assumed.append("rollout_tp")
    fraction = _number(s, f"{ROLLOUT}.gpu_memory_utilization") or _number(s, f"{ROLLOUT}.mem_fraction_static")
    if fraction is None:
        assumed.append("memory_fraction")
        fraction = STOCK_FRACTION if s.stock_config else 0.0
    use_kl = _flag(s, f"{ACTOR}.use_kl_loss", "algorithm.use_kl_in_reward")
    if use_kl is None:
        assumed.append("use_kl")
        use_kl = False
    lora_rank = s.lora_rank if s.lora_rank is not None else (32 if "lora" in row.task.lower() else 0)
    if s.lora_rank is None:
        assumed.append("lora_rank")
    return Plan(
        task=row.task,
        gpus=row.gpus,
        device=device,
        device_gib=device_gib,
        lora_rank=lora_rank,
        train=backend,
        param_offload=bool(param_offload),
        optimizer_offload=bool(optimizer_offload),
        ref_offload=bool(ref_offload),
        gradient_checkpointing=bool(checkpointing),
        prompt_length=int(prompt),  # type: ignore[call-overload]
        response_length=int(response),  # type: ignore[call-overload]
        micro_batch=int(micro),  # type: ignore[call-overload]
        rollout_tp=tp if tp and tp > 0 and tp <= row.gpus else None,
        train_tp=s.integer(f"{ACTOR}.megatron.tensor_model_parallel_size") or 1,
        sequence_parallel=s.integer(f"{ACTOR}.ulysses_sequence_parallel_size") or 1,
        engine="sglang" if row.infer.lower().startswith("sglang") else "vllm",
        memory_fraction=fraction,
        use_kl=use_kl,
        gpus_per_node=s.n_gpus_per_node or 8,
        assumed=tuple(assumed),
    )
