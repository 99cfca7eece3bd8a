"""What a launch script or recipe config asks for, in one framework-neutral record.

Every framework spells its settings its own way (verl's ``trainer.n_gpus_per_node=8``,
OpenRLHF's ``--actor.num_gpus_per_node 8``, slime's ``--actor-num-gpus-per-node 8``,
NeMo-RL's ``cluster.gpus_per_node: 8``).  Each adapter in :mod:`.frameworks` maps its
own spelling onto a :class:`Run`, and everything downstream -- the row cross-check,
the plausibility check, ``rlresources inspect``, ``estimate --row`` and ``new`` --
reads only a :class:`Run`.  So a row that contradicts a slime script gets the same
findings as one that contradicts a verl script, and supporting another framework is
one adapter, not a change in every check.

Each setting is a :class:`Found`: its value (``None``: unknown), where it came from
(the line, and how it was written) and whether the script set it, defaulted it, took
it from the row's environment, or leaves it to run time.  Unknown is honest: no
consumer treats an unknown value as a mismatch.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, fields
from typing import Any, Generic, TypeVar

T = TypeVar("T", covariant=True)


class Origin(str, enum.Enum):
    """How a value came to be what it is."""

    SET = "set"
    """Written in the script or config itself."""
    SCRIPT_DEFAULT = "script-default"
    """A default the script documents for its environment: ``${NNODES:-1}``, ``: "${N:=4}"``."""
    ENV = "env"
    """From the environment the row (or ``--env``) names, over the script's default."""
    FRAMEWORK_DEFAULT = "framework-default"
    """Not written anywhere: the framework's own default for it."""
    DERIVED = "derived"
    """Computed from other settings (the total GPUs from nodes and GPUs per node)."""
    RUNTIME = "runtime"
    """Decided only when the script runs (``$(nproc)``, ``nvidia-smi``, an unset variable)."""
    UNKNOWN = "unknown"
    """Not known at all."""


@dataclass(frozen=True)
class Found(Generic[T]):
    """One setting: its value, where it came from, and how.

    ``value`` is None when it cannot be known.  ``line`` is 1-based in ``file`` (the
    script itself when ``file`` is empty; an inherited config or a sourced file
    otherwise), 0 when no line says it.  ``written`` is how it was written there
    (``trainer.nnodes=$NNODES``), for messages.
    """

    value: T | None = None
    origin: Origin = Origin.UNKNOWN
    line: int = 0
    written: str = ""
    file: str = ""
    tail: str = ""
    """When the value is unknown: its known end (``$ROOT/models/Qwen2.5-7B`` keeps ``/models/Qwen2.5-7B``)."""

    @property
    def known(self) -> bool:
        return self.value is not None

    @property
    def explicit(self) -> bool:
        """Whether the script (or its env) says it, rather than a framework default or a derivation."""
        return self.value is not None and self.origin in EXPLICIT


UNKNOWN: Found[Any] = Found()
EXPLICIT = (Origin.SET, Origin.SCRIPT_DEFAULT, Origin.ENV)
"""The origins of a value the script (or its env) says, for :attr:`Found.explicit`."""


@dataclass(frozen=True)
class Problem:
    """A mistake in the script itself, at a 1-based line (0: the script as a whole).

    ``key`` is the setting it concerns (empty for none), so a value already blamed here
    is not reported a second time as a mismatch with the row.  ``kind`` sorts problems
    for the checks: ``unset`` (a variable the script never sets), ``missing-dollar``,
    ``duplicate`` (the same setting twice; ``severity`` says whether the values differ),
    ``deprecated``, ``machine-path`` (an absolute path of one machine), ``zero-advantage``
    (a group-relative estimator with one sample per prompt), ``too-large``, ``other``.
    """

    line: int
    message: str
    key: str = ""
    kind: str = "other"
    severity: str = "error"


@dataclass(frozen=True)
class BatchLog:
    """A batch search the script records beside a value: ``nproc_per_gpu=45 # 32√ → 64× → 45×``."""

    variable: str
    line: int
    value: int
    """The value the line sets."""
    attempts: tuple[tuple[int, bool], ...]
    """Each value tried, in order, and whether it ran (False: it ran out of memory)."""


@dataclass(frozen=True)
class Requirement:
    """An engine version something demands: ``vllm >= 0.8.3``, from a script's comment or a package's metadata."""

    engine: str
    version: str
    line: int
    source: str


@dataclass(frozen=True)
class Role:
    """The GPUs of one role of the run (trainer, rollout, reference, critic, reward)."""

    name: str
    gpus: Found[int] = UNKNOWN
    nodes: Found[int] = UNKNOWN
    gpus_per_node: Found[int] = UNKNOWN
    colocated_with: str = ""
    """The role whose GPUs this one shares (``trainer``), or empty for GPUs of its own."""


@dataclass(frozen=True)
class Run:
    """What one launch script or recipe config asks for, as far as it can be known.

    Field names are the JSON keys of ``rlresources inspect --format json``.
    """

    path: str = ""
    framework: str | None = None
    """``verl``, ``verl-recipe``, ``openrlhf``, ``slime``, ``nemo-rl``, ``skyrl``, ``trl``... or None."""
    entry_point: str | None = None
    launch_line: int = 0
    """The line of the command that starts the trainer (0: none found)."""
    unrecognised: str = ""
    """Why no reader read the file (no launch it knows, a config no adapter claims); empty when one did."""
    # -- hardware -----------------------------------------------------------------------
    gpus: Found[int] = UNKNOWN
    """The whole run, all roles together."""
    nodes: Found[int] = UNKNOWN
    gpus_per_node: Found[int] = UNKNOWN
    roles: tuple[Role, ...] = ()
    """Per role where roles have GPUs of their own (disaggregated placement)."""
    colocated: Found[bool] = UNKNOWN
    """Whether the rollout engine shares the trainer's GPUs (verl's hybrid engine: yes)."""
    # -- the trainer --------------------------------------------------------------------
    train_backend: Found[str] = UNKNOWN
    """``fsdp`` (FSDP and FSDP2), ``megatron``, ``deepspeed``, ``dtensor``..."""
    train_tp: Found[int] = UNKNOWN
    train_pp: Found[int] = UNKNOWN
    train_ep: Found[int] = UNKNOWN
    train_cp: Found[int] = UNKNOWN
    ulysses_sp: Found[int] = UNKNOWN
    lora_rank: Found[int] = UNKNOWN
    """0 when the whole model is trained."""
    lora_targets: Found[str] = UNKNOWN
    model: Found[str] = UNKNOWN
    """The checkpoint trained, as the script names it (a hub id or a path)."""
    algorithm: Found[str] = UNKNOWN
    """The advantage estimator or algorithm as the framework names it (``grpo``, ``gae``)."""
    use_kl: Found[bool] = UNKNOWN
    """Whether a reference model is needed (KL in the loss or in the reward)."""
    critic: Found[bool] = UNKNOWN
    dynamic_sampling: Found[bool] = UNKNOWN
    """Whether groups whose rewards are all equal are filtered out and sampled again (DAPO's
    dynamic sampling; OpenRLHF's ``--dynamic_filtering``): GRPO with it on is DAPO."""
    # -- lengths and batches ----------------------------------------------------------------
    prompt_length: Found[int] = UNKNOWN
    response_length: Found[int] = UNKNOWN
    zero_stage: Found[int] = UNKNOWN
    """DeepSpeed's ZeRO stage: 3 shards parameters, gradients and optimizer states (as FSDP
    does), 2 keeps a full parameter copy on every GPU, 1 full gradients too, 0 (DDP) shards
    nothing (OpenRLHF's ``--ds.zero_stage``, default 2)."""
    max_total_length: Found[int] = UNKNOWN
    """The most tokens one sequence holds, prompt and response together, where the framework caps
    it below their sum (NeMo-RL's ``policy.max_total_sequence_length``: its rollout stops a
    response there, and its recipes set ``max_new_tokens`` and ``max_input_seq_length`` to it)."""
    train_batch_size: Found[int] = UNKNOWN
    """Prompts per step."""
    mini_batch_size: Found[int] = UNKNOWN
    micro_batch_per_gpu: Found[int] = UNKNOWN
    log_prob_micro_batch_per_gpu: Found[int] = UNKNOWN
    dynamic_batch: Found[bool] = UNKNOWN
    max_token_len_per_gpu: Found[int] = UNKNOWN
    log_prob_max_token_len_per_gpu: Found[int] = UNKNOWN
    """The forward-only log-prob passes' own token budget, where the framework has one apart from the
    update's (NeMo-RL's ``logprob_mb_tokens``); unknown: as the update's, unless the framework's
    vocabulary derives it."""
    remove_padding: Found[bool] = UNKNOWN
    """Whether sequences are packed without padding (verl's ``use_remove_padding``): only then
    does a micro-batch hold as few tokens as its real lengths, which the memory floor assumes
    unless this says otherwise."""
    rollout_n: Found[int] = UNKNOWN
    """Responses sampled per prompt."""
    # -- memory savings -------------------------------------------------------------------
    param_offload: Found[bool] = UNKNOWN
    optimizer_offload: Found[bool] = UNKNOWN
    ref_param_offload: Found[bool] = UNKNOWN
    offload_mode: Found[str] = UNKNOWN
    """``phase`` (states on the host between phases, back on the GPU for their own: verl's
    FSDP offload) or ``compute`` (kept on the host while computing: FSDP2's
    ``offload_policy``, DeepSpeed ZeRO-Offload, ``--adam_offload``)."""
    compute_copy: Found[bool] = UNKNOWN
    """Whether offloaded parameters leave a bf16 compute copy on the GPU (prime-rl's
    ``full_offload``: the fp32 masters, gradients and optimizer states in host memory)."""
    param_dtype: Found[str] = UNKNOWN
    """The dtype the trainer loads the model in (TRL's ``--dtype``, formerly ``--torch_dtype``).  Plain
    PyTorch (DDP, one process) trains the parameters as loaded, with Adam's moments in their dtype;
    DeepSpeed's bf16 engine and FSDP's mixed precision keep a master copy of their own whatever it is."""
    gradient_checkpointing: Found[bool] = UNKNOWN
    activation_offload: Found[bool] = UNKNOWN
    """Whether the checkpointed layers' inputs wait in host memory (prime-rl's ``model.ac_offloading``),
    as ``estimate --activation-offload`` or a validation row says it; unknown: the framework's default.
    No reader sets it: a prime-rl config can only switch it on, which is its default today."""
    update_entropy: Found[bool] = UNKNOWN
    """Whether the actor's update computes the entropy over the vocabulary-wide logits: when
    the loss has an entropy bonus (verl's ``entropy_coeff`` other than 0), and always in verl
    before its PR #1100 (April 2025).  Those logits are the update's largest tensor."""
    entropy_checkpointing: Found[bool] = UNKNOWN
    entropy_chunking: Found[bool] = UNKNOWN
    """Whether the forward-only log-prob pass computes the entropy in chunks of tokens
    (verl's ``entropy_from_logits_with_chunking``) instead of over the whole vocabulary-wide
    logits at once, the largest single tensor of that pass."""
    fused_kernels: Found[bool] = UNKNOWN
    """Whether log-probs and entropy come from a fused kernel that never holds the full logits
    (verl's ``use_fused_kernels``)."""
    # -- the rollout engine ----------------------------------------------------------------
    engine: Found[str] = UNKNOWN
    """``vllm``, ``sglang``, ``hf``..."""
    rollout_tp: Found[int] = UNKNOWN
    memory_fraction: Found[float] = UNKNOWN
    """vLLM's ``gpu_memory_utilization`` or SGLang's ``mem_fraction_static``."""
    free_cache_engine: Found[bool] = UNKNOWN
    """Whether the engine frees its memory (sleeps) while the trainer runs."""
    max_num_seqs: Found[int] = UNKNOWN
    fp8_rollout: Found[bool] = UNKNOWN
    # -- what reading found ------------------------------------------------------------------
    problems: tuple[Problem, ...] = ()
    batch_logs: tuple[BatchLog, ...] = ()
    """Batch searches the script records in its comments (:mod:`.records`)."""
    requires: tuple[Requirement, ...] = ()
    """Engine versions the script's comments demand."""
    deprecated: tuple[str, ...] = ()
    """Deprecated keys the script uses (read, and reported)."""
    variables: dict[str, str | None] = field(default_factory=dict, compare=False)
    """The script's top-level variables at its end (None: unknown), for adapters and ``new``."""

    def settings(self) -> dict[str, Found[Any]]:
        """Every :class:`Found` field by name, in declaration order."""
        return {f.name: getattr(self, f.name) for f in fields(self) if isinstance(getattr(self, f.name), Found)}
