"""A lower bound of GPU and host memory for a colocated RL run, term by term and phase by phase.

A colocated run (verl's hybrid engine) keeps a trainer and a rollout engine on the same
GPUs and alternates two phases.  Some memory stays on the GPU across both (the actor's
sharded parameters and optimizer states unless offloaded, a reference model, a critic);
the training phase adds gradients, activations, the log-prob logits and one gathered
layer; the rollout phase adds the engine's weights and at least one sequence's KV cache.
The engine claims a fixed budget of the device when it starts (and frees its cache when
training starts): the rest of that budget is cache it would use, not memory the run
needs, so it is a condition (the budget must hold the weights, and fit beside what stays
resident), not a term.  The peak is therefore the larger phase plus what
stays resident, not the sum of everything.

Every term is a floor: what the arithmetic says must be there, with nothing for
allocator fragmentation, CUDA graphs, communication buffers or weight synchronisation,
which measured peaks always add.  Sources: the ZeRO paper (Rajbhandari et al.,
arXiv:1910.02054) for 16 bytes of model state per trainable parameter with
mixed-precision Adam; Korthikanti et al. (arXiv:2205.05198) for activations, 34 bytes
per token and hidden unit and layer with FlashAttention, 2 with full recomputation;
vLLM's ``gpu_memory_utilization`` (the engine's share of the whole device) and SGLang's
``mem_fraction_static`` (its share for weights and KV cache).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sphinx_rlresources.estimator.architectures import Architecture

GIB = float(2**30)
MARGIN = 0.10
"""``tight`` when the peak is within this fraction of the device's memory."""
LOGIT_BYTES = 7
"""Bytes per token per vocabulary entry for the log-prob and entropy pass (bf16 logits,
their fp32 copy and the softmax), as the framework's performance-tuning guide puts it."""
ACTIVATION_BYTES = 34
RECOMPUTED_BYTES = 2
MIN_KV_SEQUENCES = 1

#: algorithm -> (uses a reference model for KL, trains a critic), as verl's recipes run them
ALGORITHMS: dict[str, tuple[bool, bool]] = {
    "grpo": (True, False),
    "ppo": (True, True),
    "gae": (True, True),
    "rloo": (True, False),
    "reinforce++": (True, False),
    "remax": (True, False),
    "dapo": (False, False),
    "dr-grpo": (False, False),
    "gspo": (False, False),
}
ENGINES = ("vllm", "sglang")


@dataclass(frozen=True)
class Plan:
    """A run's settings.  ``assumed`` names the ones that were not given but defaulted."""

    task: str
    gpus: int
    device: str
    device_gib: float
    lora_rank: int = 0
    train: str = "fsdp"
    param_offload: bool = False
    optimizer_offload: bool = False
    ref_offload: bool | None = None
    """None: as ``param_offload``."""
    gradient_checkpointing: bool = True
    prompt_length: int = 512
    response_length: int = 1024
    micro_batch: int = 1
    rollout_tp: int | None = None
    """None: the largest the heads allow within the GPUs (the least memory per GPU)."""
    train_tp: int = 1
    sequence_parallel: int = 1
    engine: str = "vllm"
    memory_fraction: float = 0.5
    use_kl: bool | None = None
    """None: as the algorithm's recipe does (:data:`ALGORITHMS`)."""
    gpus_per_node: int = 8
    assumed: tuple[str, ...] = ()

    @property
    def algorithm(self) -> str:
        return "-".join(p for p in self.task.lower().split("-") if p != "lora")

    @property
    def kl(self) -> bool:
        return self.use_kl if self.use_kl is not None else ALGORITHMS.get(self.algorithm, (False, False))[0]

    @property
    def critic(self) -> bool:
        return ALGORITHMS.get(self.algorithm, (False, False))[1]


@dataclass(frozen=True)
class Term:
    phase: str
    """``resident`` (on the GPU in both phases), ``train``, ``rollout`` or ``host`` (per node)."""
    name: str
    bytes: float

    @property
    def gib(self) -> float:
        return self.bytes / GIB


@dataclass
class Estimate:
    arch: Architecture
    plan: Plan
    rollout_tp: int
    terms: list[Term] = field(default_factory=list)
    engine_budget: float = 0.0
    """Bytes the rollout engine claims when it starts (its fraction of the device); 0: not known."""
    problems: list[str] = field(default_factory=list)
    """Why the run cannot start as set up (the engine's budget cannot hold its weights, or
    cannot be claimed beside what stays resident)."""

    def total(self, phase: str) -> float:
        return sum(t.bytes for t in self.terms if t.phase == phase)

    @property
    def train_gib(self) -> float:
        return (self.total("resident") + self.total("train")) / GIB

    @property
    def rollout_gib(self) -> float:
        return (self.total("resident") + self.total("rollout")) / GIB

    @property
    def peak_gib(self) -> float:
        return max(self.train_gib, self.rollout_gib)

    @property
    def host_gib(self) -> float:
        return self.total("host") / GIB

    @property
    def verdict(self) -> str:
        capacity = self.plan.device_gib
        if self.problems or self.peak_gib > capacity:
            return "does-not-fit"
        return "tight" if self.peak_gib > capacity * (1 - MARGIN) else "fits"


def _rollout_tp(arch: Architecture, plan: Plan) -> int:
    if plan.rollout_tp is not None:
        return plan.rollout_tp
    # Across nodes too: vLLM and SGLang run one engine over several nodes for the largest models.
    if arch.size_only:  # heads unknown: the largest power of two the GPUs allow
        return 1 << (plan.gpus.bit_length() - 1)
    choices = arch.tp_choices(plan.gpus)
    return max(choices) if choices else 1


def estimate(arch: Architecture, plan: Plan) -> Estimate:  # noqa: C901 - the terms of each phase, summed in one place (issue 23 rewrites it)
    """Every term of the lower bound for ``plan``; see the module docstring for the model."""
    tp = _rollout_tp(arch, plan)
    result = Estimate(arch, plan, tp)
    add = result.terms.append
    n = plan.gpus
    params = arch.params()
    lora = plan.lora_rank > 0
    trainable = arch.lora_params(plan.lora_rank) if lora else params
    per_node = min(n, plan.gpus_per_node)
    ref_offload = plan.param_offload if plan.ref_offload is None else plan.ref_offload

    def placed(name: str, total: float, offloaded: bool, phase: str = "resident") -> None:
        """A sharded term: on the GPU, or in host memory (for the GPUs of one node)."""
        if offloaded:
            add(Term("host", name, total / n * per_node))
        else:
            add(Term(phase, name, total / n))

    # -- the actor's model states (ZeRO: 2 parameters + 2 gradients + 12 optimizer bytes)
    if lora:
        placed("frozen base weights (bf16, sharded)", 2 * params, plan.param_offload)
        placed("adapter parameters (bf16)", 2 * trainable, plan.param_offload)
    else:
        placed("parameters (bf16, sharded)", 2 * params, plan.param_offload)
    placed("optimizer states (fp32 master, Adam m and v; sharded)", 12 * trainable, plan.optimizer_offload)
    placed("gradients (bf16, sharded)", 2 * trainable, plan.param_offload, phase="train")
    if plan.kl and not lora:
        placed("reference model (bf16, sharded)", 2 * params, ref_offload)
    if plan.critic:
        placed("critic parameters (bf16, sharded)", 2 * params, plan.param_offload)
        placed("critic optimizer states (sharded)", 12 * params, plan.optimizer_offload)
    # -- what training adds
    if plan.train == "fsdp":
        add(Term("train", "one gathered layer (bf16, FSDP all-gather)", 2 * arch.largest_layer_params()))
    tokens = plan.micro_batch * (plan.prompt_length + plan.response_length) / max(plan.sequence_parallel, 1)
    split = max(plan.train_tp, 1)
    if plan.gradient_checkpointing:
        kept = RECOMPUTED_BYTES * tokens * arch.hidden * arch.layers / split
        add(Term("train", "activations: layer inputs kept for recomputation", kept))
        add(Term("train", "activations: the layer being recomputed", ACTIVATION_BYTES * tokens * arch.hidden / split))
    else:
        add(
            Term(
                "train", "activations (no recomputation)", ACTIVATION_BYTES * tokens * arch.hidden * arch.layers / split
            )
        )
    responses = plan.micro_batch * plan.response_length / max(plan.sequence_parallel, 1)
    add(Term("train", "logits for log-probs and entropy", LOGIT_BYTES * responses * arch.vocab / split))
    if arch.size_only:  # an unknown shape: no per-token term can be known
        result.terms[:] = [t for t in result.terms if not t.name.startswith(("activations", "logits", "one gathered"))]
    # -- the rollout engine: weights and the least KV cache it accepts, inside its budget
    weights = 2 * params / tp
    min_kv = arch.kv_bytes_per_token(tp) * (plan.prompt_length + plan.response_length) * MIN_KV_SEQUENCES
    add(Term("rollout", f"rollout weights (bf16, TP={tp})", weights))
    add(Term("rollout", "KV cache for one sequence (the least the engine accepts)", min_kv))
    budget = plan.memory_fraction * plan.device_gib * GIB
    result.engine_budget = budget
    label = "gpu_memory_utilization" if plan.engine == "vllm" else "mem_fraction_static"
    setting = f"{label}={plan.memory_fraction:g} of {plan.device_gib:.1f} GiB = {budget / GIB:.1f} GiB"
    if budget and budget < weights + min_kv:
        result.problems.append(
            f"the engine's budget ({setting}) cannot hold its weights and one sequence's KV cache "
            f"({(weights + min_kv) / GIB:.1f} GiB at TP={tp}): raise the rollout's tensor parallelism or {label}"
        )
    resident = result.total("resident")
    if budget and resident + budget > plan.device_gib * GIB:
        result.problems.append(
            f"the engine claims its budget ({setting}) while {resident / GIB:.1f} GiB of model state stays on "
            f"each GPU, more than the device holds: offload the states or lower {label}"
        )
    add(Term("host", "rollout weights kept in host memory while training (vLLM/SGLang sleep)", weights * per_node))
    return result


def minimum_gpus(arch: Architecture, plan: Plan, limit: int = 4096) -> tuple[int, Estimate] | None:
    """The fewest GPUs of ``plan.device`` whose lower bound fits, with its estimate, or None."""
    counts = [1, 2, 4, 8, *range(16, limit + 1, 8)]
    for gpus in counts:
        if plan.rollout_tp is not None and (plan.rollout_tp > gpus or gpus % plan.rollout_tp):
            continue
        candidate = Plan(**{**plan.__dict__, "gpus": gpus})
        found = estimate(arch, candidate)
        if found.verdict != "does-not-fit":
            return gpus, found
    return None
