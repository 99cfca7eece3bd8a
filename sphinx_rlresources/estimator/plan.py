"""The records of a memory estimate: a run's settings, its terms and moments, and the verdict.

:class:`Plan` holds every setting decided (:mod:`.fromscript` fills what a script or the
flags leave silent); :mod:`.phases` turns it into two :class:`Estimate` figures -- the
floor, with the fewest tokens a step can have, and the expected peak, at the stated
lengths -- each a list of :class:`Moment`, tensors on a GPU at the same time.  A
:class:`~.memory.Result` pairs them and gives the verdict, by one rule each:

* ``does-not-fit``: the floor is above the device, the engine cannot start, or host
  memory (when known) cannot hold the floor's offloaded states;
* ``likely-oom``: the floor fits, the expected peak (or its host memory) does not;
* ``tight``: the expected peak of the moments where something sits beside the engine's
  claim (or no engine is there) is above ``1 - MARGIN`` (90%) of the device: an engine on
  GPUs of its own that takes the share it was told to take is a setting, not a risk;
* ``fits``: anything else.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, NamedTuple

from sphinx_rlresources.estimator.architectures import ALL_LINEAR

GIB = float(2**30)
MARGIN = 0.10
"""``tight``: the expected peak is above ``1 - MARGIN`` of the device and at most all of it."""

#: algorithm -> whether it trains a critic (PPO's value model, verl's ``gae``)
ALGORITHMS: dict[str, bool] = {
    "grpo": False,
    "ppo": True,
    "gae": True,
    "rloo": False,
    "reinforce++": False,
    "remax": False,
    "dapo": False,
    "dr-grpo": False,
    "gspo": False,
}
ENGINES = ("vllm", "sglang")
NO_ENGINE = "none"
"""A plan's ``engine`` when no engine sits on the GPUs: a trainer-only run, or a trainer that
generates in its own process (TRL without vLLM: transformers' ``generate``)."""
TRAINER_GENERATES = frozenset({NO_ENGINE, "hf"})
"""What a run's ``engine`` says when no engine is started (the TRL and ROLL readers say ``hf``)."""
TRAIN_BACKENDS = ("fsdp", "megatron")
OFFLOAD_MODES = ("phase", "compute", "step")
"""``phase``: states wait in host memory between phases and come back for their own (verl's
FSDP and Megatron offload); ``compute``: they stay in host memory while the GPU computes
(FSDP2's ``offload_policy``, DeepSpeed ZeRO-Offload, OpenRLHF's ``--adam_offload``);
``step``: offloaded optimizer states come back for the optimizer's ``step()`` alone, after
the backward pass has freed the activations (prime-rl's ``optim_cpu_offload``); offloaded
parameters stay in host memory as in ``compute``."""
VERDICTS = ("fits", "tight", "likely-oom", "does-not-fit")
BUDGETS = ("device", "free", "free-after-weights")


def algorithm_of(task: str) -> str:
    """``GRPO-LoRA`` -> ``grpo``: the task without its LoRA ending, lowercased."""
    return "-".join(p for p in task.lower().split("-") if p != "lora")


def known_task(task: str) -> bool:
    return algorithm_of(task) in ALGORITHMS


@dataclass(frozen=True)
class Plan:
    """A run's settings, every one decided (:mod:`.fromscript` fills what a script leaves silent).

    ``assumed`` names the settings that were not given but filled with the silent default.
    """

    task: str
    gpus: int
    device: str
    device_gib: float
    lora_rank: int = 0
    lora_targets: str = ALL_LINEAR
    train_backend: str = "fsdp"
    param_bytes: int = 4
    """Bytes per parameter of the trained model as the trainer keeps it: 4 for verl's FSDP
    actor and critic (fp32 parameters, bf16 compute), 2 for bf16 parameters (Megatron with
    fp32 gradients and a distributed optimizer)."""
    megatron_grad_bytes: int = 4
    """Bytes per gradient in Megatron's data-parallel buffer: 4 where the framework reduces in fp32
    (verl: ``"grad_reduce_in_fp32": True``, ``verl/utils/megatron_utils.py``), 2 where it reduces
    in bf16 (NeMo-RL's ``grad_reduce_in_fp32: false``)."""
    zero_stage: int = 3
    """How the ``fsdp`` backend shards the trainer's states (DeepSpeed's ZeRO stages): 3 shards
    parameters, gradients and optimizer states over the trainer's GPUs (FSDP, ZeRO-3); 2 keeps
    a full parameter copy on each GPU; 1 full gradients too; 0 shards nothing (DeepSpeed's stage 0,
    or DDP, which keeps no master copy either: :attr:`master_weights`)."""
    master_weights: bool = True
    """Whether the optimizer keeps fp32 master weights beside 16-bit parameters, as DeepSpeed's bf16
    optimizer and mixed-precision FSDP do.  Plain PyTorch (DDP, one process) keeps none: Adam's
    moments take the parameters' dtype (a bf16 model under TRL's default ``dtype="auto"``)."""
    param_offload: bool = True
    optimizer_offload: bool = True
    ref_param_offload: bool | None = True
    """None: as ``param_offload``."""
    offload_mode: str = "compute"
    gradient_checkpointing: bool = True
    prompt_length: int = 512
    response_length: int = 1024
    mean_prompt_length: int | None = None
    """The real mean, when known (the expected peak with padding removed); None: the maximum."""
    mean_response_length: int | None = None
    max_total_length: int | None = None
    """The framework's cap on one sequence, prompt and response together (NeMo-RL's
    ``policy.max_total_sequence_length``); None: no cap below their sum."""
    micro_batch_per_gpu: int = 1
    """Sequences per GPU (per sequence-parallel group) in one forward and backward pass."""
    log_prob_micro_batch_per_gpu: int | None = None
    """Sequences per GPU in the forward-only log-prob passes; None: as ``micro_batch_per_gpu``."""
    dynamic_batch: bool = False
    max_token_len_per_gpu: int | None = None
    """With dynamic batching, the token budget of one micro-batch per GPU."""
    log_prob_max_token_len_per_gpu: int | None = None
    """With dynamic batching, the forward-only log-prob passes' own token budget (NeMo-RL's
    ``logprob_mb_tokens``); None: as ``max_token_len_per_gpu``."""
    remove_padding: bool = True
    rollout_n: int = 1
    train_batch_size: int | None = None
    """Prompts per step: caps the sequences a log-prob pass and the engine can have per GPU."""
    mini_batch_size: int | None = None
    """Prompts per update (PPO mini-batch): caps the sequences one update micro-batch can have per GPU."""
    rollout_tp: int | None = None
    """None: the largest the heads allow within the engine's GPUs (the least memory per GPU)."""
    train_tp: int = 1
    train_pp: int = 1
    train_ep: int = 1
    train_cp: int = 1
    ulysses_sp: int = 1
    """Ulysses sequence parallelism: each GPU of a group holds 1/n of every sequence."""
    engine: str = "vllm"
    """:data:`ENGINES`, or :data:`NO_ENGINE`: nothing is claimed for generation and the weight sync
    has nothing to copy into (the KV cache of a trainer's own ``generate`` is not counted)."""
    memory_fraction: float | None = None
    """vLLM's ``gpu_memory_utilization`` or SGLang's ``mem_fraction_static``; None: not stated."""
    budget_of: str = "device"
    """What the fraction is of (:data:`BUDGETS`): ``device`` (vLLM 0.7 and later: its weights
    and KV cache within that share of the whole device), ``free`` (SGLang: weights and KV pool
    within that share of what is free when it starts), ``free-after-weights`` (verl's patched
    vLLM 0.6.3: the KV cache is that share of what is free once its weights are loaded)."""
    free_cache_engine: bool = True
    """Whether the engine sleeps (frees its claim) while the trainer runs."""
    max_num_seqs: int | None = None
    fp8_rollout: bool = False
    use_kl: bool = False
    """Whether a reference model is loaded (KL in the loss or the reward)."""
    critic: bool | None = None
    """None: as the algorithm (:data:`ALGORITHMS`)."""
    update_entropy: bool = False
    """Whether the update computes the entropy over the logits (an entropy bonus in the loss)."""
    pass_entropy: bool = True
    """Whether the actor's log-prob pass computes the entropy too (verl's ``compute_log_prob``
    does; OpenRLHF's experience pass does not)."""
    vocab_parallel: bool = False
    """Whether the FSDP backend's tensor parallelism (``train_tp``) shards the output head on the
    vocabulary, so each GPU scores its share of it (NeMo-RL's DTensor plans); Megatron's always does."""
    logits_fp32: bool = False
    """Whether the actor casts its logits to fp32 before scoring them (OpenRLHF's actor does)."""
    entropy_checkpointing: bool = False
    entropy_chunking: bool = False
    fused_kernels: bool = False
    logit_chunk: tuple[int, int] | None = None
    """(tokens, vocabulary entries) one step of the fused log-prob kernel holds, when the
    framework's kernel says (prime-rl's fused LM head); None: verl's chunk of tokens over the
    whole vocabulary."""
    activation_offload: bool = False
    """Whether the layer inputs kept for recomputation wait in host memory until the backward
    pass brings each back (prime-rl's ``model.ac_offloading``)."""
    compute_copy: bool = False
    """Whether offloaded parameters leave a bf16 compute copy on the GPU (prime-rl's
    ``full_offload``: fp32 masters, gradients and Adam's moments on the host, the optimizer on
    the CPU, the bf16 weights the GPU computes with kept there)."""
    rollout_gpus: int = 0
    """0: colocated (the engine shares the trainer's GPUs); otherwise the GPUs of the engine
    alone, and the trainer has the other ``gpus - rollout_gpus``."""
    ref_gpus: int = 0
    """0: a reference model, when one is loaded, shares the trainer's GPUs; otherwise the GPUs of
    its own (OpenRLHF without ``colocate_actor_ref``), which hold it and its log-prob pass alone
    and are not the trainer's."""
    critic_gpus: int = 0
    """0: a critic, when one is trained, shares the actor's GPUs; otherwise the GPUs of its own
    (OpenRLHF's ``--critic.num_nodes`` x ``--critic.num_gpus_per_node`` without
    ``colocate_all``), which hold its states and its update alone and are not the actor's."""
    reward_gpus: int = 0
    """GPUs of a reward model of its own (OpenRLHF's ``--reward.num_nodes`` x
    ``--reward.num_gpus_per_node`` without ``colocate_critic_reward`` or ``colocate_all``);
    0: none there (a rule or a remote reward, or one sharing another role's GPUs)."""
    reward_with_critic: bool = False
    """A reward model on the critic's own GPUs (OpenRLHF's ``colocate_critic_reward``): its
    weights sit beside the critic's update."""
    gpus_per_node: int = 8
    host_memory_gib: float | None = None
    """Host memory per node; None: not checked."""
    assumed: tuple[str, ...] = ()
    framework: str | None = None
    """The framework whose defaults filled what the script or the flags left unsaid (None: none)."""
    framework_defaults: tuple[str, ...] = ()
    """The settings that framework's own defaults gave (its config, its argparse, its vocabulary):
    neither given nor :attr:`assumed`; the output names them apart."""
    ignored: tuple[str, ...] = ()
    """Settings given outside their bounds, estimated as if not given (``name=value``)."""
    floor_values: tuple[tuple[str, Any], ...] = ()
    """Settings only the framework's default gives, with the least-memory value the floor takes
    instead: a default changes between releases (verl's rollout TP, its engine budget) and a
    script does not say which release it ran with, so the floor -- what decides "cannot
    have run" -- never rests on one; the expected peak keeps the default."""

    @property
    def algorithm(self) -> str:
        return algorithm_of(self.task)

    @property
    def lengths(self) -> tuple[int, int]:
        """(prompt, response) tokens one sequence can hold: as stated, or within the framework's cap.

        Under a cap below their sum each keeps its share of the cap: NeMo-RL's recipes set the
        prompt's maximum and ``max_new_tokens`` both to the cap, so neither is the real split.
        """
        prompt, response = self.prompt_length, self.response_length
        cap = self.max_total_length
        if cap is None or cap >= prompt + response:
            return prompt, response
        capped = max(1, min(cap - 1, round(cap * response / (prompt + response))))
        return max(cap - capped, 1), capped

    @property
    def at_maximum_lengths(self) -> bool:
        """Whether the expected peak takes every sequence at its maximum length: padding removed (or
        batches of a token budget) and no mean given.  A step's real lengths usually stay well below,
        so a ``likely-oom`` then says "at full length", and the means settle it."""
        unpadded = self.remove_padding or self.dynamic_batch
        return unpadded and self.mean_prompt_length is None and self.mean_response_length is None

    @property
    def sequence_shards(self) -> int:
        """How many GPUs hold one sequence between them: Ulysses sequence parallelism times context
        parallelism (a group of them shares its sequences, each holding its share of every one)."""
        return max(self.ulysses_sp, 1) * max(self.train_cp, 1)

    @property
    def has_critic(self) -> bool:
        return self.critic if self.critic is not None else ALGORITHMS.get(self.algorithm, False)

    @property
    def reference(self) -> bool:
        """A reference model of its own: KL is on and the model is trained whole (LoRA's reference is its base)."""
        return self.use_kl and not self.lora_rank

    @property
    def colocated(self) -> bool:
        return self.rollout_gpus == 0

    @property
    def own_gpus(self) -> int:
        """The GPUs of the roles placed apart from the actor: the engine's, the reference's, the critic's,
        the reward model's."""
        return self.rollout_gpus + self.ref_gpus + self.critic_gpus + self.reward_gpus

    @property
    def train_gpus(self) -> int:
        """The actor's GPUs: the run's less those of the roles placed apart."""
        return self.gpus - self.own_gpus

    @property
    def engine_gpus(self) -> int:
        return self.rollout_gpus or self.gpus

    def with_gpus(self, gpus: int) -> Plan:
        return replace(self, gpus=gpus)


class Term(NamedTuple):
    """One amount of memory: where it sits and what it is (a named tuple: an estimate has dozens)."""

    phase: str
    """``resident`` (on the trainer's GPUs in every moment), ``train``, ``rollout``, ``engine``
    (the rollout engine's claim), ``runtime`` (the CUDA context and the allocator's reserve:
    memory no tensor holds, which torch's counters do not see) or ``host`` (per node)."""
    name: str
    bytes: float

    @property
    def gib(self) -> float:
        return self.bytes / GIB


class Moment(NamedTuple):
    """Tensors on a GPU at the same time, beside what is resident."""

    phase: str
    """``train`` or ``rollout``."""
    name: str
    terms: tuple[Term, ...]
    with_resident: bool = True
    """False on GPUs of the engine alone (disaggregated placement), which hold no trainer state."""

    def total(self, resident: float) -> float:
        return (resident if self.with_resident else 0.0) + sum([t.bytes for t in self.terms])

    @property
    def engine_bytes(self) -> float:
        return sum(t.bytes for t in self.terms if t.phase == "engine")

    @property
    def runtime_bytes(self) -> float:
        """What no tensor holds (the CUDA context, the allocator's reserve): torch's counters leave it out."""
        return sum(t.bytes for t in self.terms if t.phase == "runtime")


@dataclass
class Estimate:
    """One figure (the floor or the expected peak): what is resident, each moment, host memory."""

    kind: str
    """``floor`` or ``expected``."""
    resident: list[Term] = field(default_factory=list)
    moments: list[Moment] = field(default_factory=list)
    host: list[Term] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Why the run cannot start as set up (the engine's claim cannot hold its weights, or
    cannot be claimed beside what stays resident)."""
    engine_claim: float = 0.0
    """Bytes the rollout engine holds on each of its GPUs while it generates."""

    # An estimate is complete when phases.build returns it; its totals are asked for many times
    # (the verdict, the column, the text), so each is computed once.
    @cached_property
    def resident_bytes(self) -> float:
        return sum(t.bytes for t in self.resident)

    def largest(self, phase: str) -> Moment | None:
        found = self._largest.get(phase)
        return found[0] if found else None

    @cached_property
    def _largest(self) -> dict[str, tuple[Moment, float]]:
        """Each phase's largest moment with its total, each total summed once (lint asks for every row's)."""
        resident = self.resident_bytes
        found: dict[str, tuple[Moment, float]] = {}
        for moment in self.moments:
            total = moment.total(resident)
            known = found.get(moment.phase)
            if known is None or total > known[1]:
                found[moment.phase] = (moment, total)
        return found

    def phase_gib(self, phase: str) -> float:
        found = self._largest.get(phase)
        return (found[1] if found else self.resident_bytes) / GIB

    @cached_property
    def train_gib(self) -> float:
        return self.phase_gib("train")

    @cached_property
    def rollout_gib(self) -> float:
        return self.phase_gib("rollout")

    @cached_property
    def peak(self) -> Moment | None:
        return max(self.moments, key=lambda m: m.total(self.resident_bytes), default=None)

    @cached_property
    def peak_gib(self) -> float:
        return max(self.train_gib, self.rollout_gib)

    @cached_property
    def host_gib(self) -> float:
        return sum(t.bytes for t in self.host) / GIB

    @cached_property
    def trainer_gib(self) -> float:
        """The peak of what the trainer itself allocates: every moment without the engine's memory.

        What a trainer-only counter measures (verl's ``max_memory_allocated`` when the
        engine runs in processes of its own, as SGLang and verl's separate vLLM servers do).
        """
        resident = self.resident_bytes
        own = [m.total(resident) - m.engine_bytes for m in self.moments if m.with_resident]
        return max(own, default=resident) / GIB

    @cached_property
    def shared_gib(self) -> float:
        """The peak of the moments where the engine's claim is not alone on the GPU.

        The claim is a setting: an engine given ``gpu_memory_utilization=0.95`` of GPUs of its
        own takes 95% of each by design, and starts or does not (a ``problems`` entry).  What
        can run out is the claim *with* what sits beside it -- the trainer's resident states
        on a shared GPU, the parameters brought back for the weight sync -- so "tight" is
        decided on these moments (and the trainer's own), not on the engine alone.
        """
        resident = self.resident_bytes
        totals = [
            m.total(resident) for m in self.moments if not m.engine_bytes or m.total(resident) - m.engine_bytes > 0
        ]
        return max(totals, default=resident) / GIB

    def limiting(self) -> Term | None:
        """The largest single term of the peak moment (resident terms included)."""
        moment = self.peak
        if moment is None:
            return max(self.resident, key=lambda t: t.bytes, default=None)
        terms = [*(self.resident if moment.with_resident else []), *moment.terms]
        return max(terms, key=lambda t: t.bytes, default=None)
