"""The terms of a step's memory that grow with its tokens: activations and the vocabulary-wide logits.

Tokens: with padding removed a micro-batch holds only its real tokens (and the floor
counts the fewest, one prompt and one response token per sequence); dynamic batching
caps it at the token budget.  Activations follow Korthikanti et al. (arXiv:2205.05198):
34 bytes per token, hidden unit and layer with FlashAttention, of which only each layer's
input (2 bytes) is kept under full recomputation, plus the layer being recomputed; a
layer kept whole counts its gated MLP's own tensors for GPT's MLP share
(:func:`dense_layer_bytes`).  The log-prob and entropy pass over a vocabulary-wide tensor
holds about 7 bytes per token and vocabulary entry (4 for the fp32 logits, 2 for softmax
and logsumexp under autocast, 1 for the softmax output: verl's performance-tuning guide,
"Memory optimization for entropy calculation from logits"); entropy recomputation in the
update keeps the fp32 logits only, chunking (``entropy_from_logits_with_chunking``) and
fused kernels hold a chunk.
"""

from __future__ import annotations

from dataclasses import dataclass

from sphinx_rlresources.estimator.architectures import Architecture
from sphinx_rlresources.estimator.plan import Plan, Term

LOGIT_BYTES = 7
"""Bytes per token per vocabulary entry of a log-prob and entropy pass (verl's guide)."""
LOGIT_BYTES_RECOMPUTED = 4
"""With entropy recomputed in the backward pass only the fp32 logits are kept."""
LOGPROB_BYTES = 4
"""Log-probs without entropy: the bf16 logits and their gradient (or, forward only, the fp32 copy)."""
UPCAST_PASS_BYTES = 6
"""Per token and vocabulary entry where the actor casts its logits to fp32 before scoring them
(OpenRLHF: ``output["logits"] = output["logits"].to(torch.float32)``, ``openrlhf/models/actor.py:267``
at OpenRLHF/OpenRLHF@3c3be62, :226 in March 2025): the bf16 logits and their fp32 copy in a
forward-only pass, over every token the model sees."""
UPCAST_UPDATE_BYTES = 10
"""The same in the update: the fp32 copy, its fp32 gradient and the bf16 gradient it is cast back
to (the bf16 logits themselves are dropped once replaced; no autograd node keeps them)."""
EAGER_ENTROPY_UPDATE_BYTES = 22
"""Per response token and vocabulary entry where the update takes the entropy's gradient eagerly:
verl's padded path calls ``verl_F.entropy_from_logits(logits)`` uncompiled (``dp_actor.py:240``
at volcengine/verl@49b08e9; only the padding-removed path goes through ``torch.compile``,
``:75-78``), and autocast runs its softmax and logsumexp in fp32.  ``benchmarks/measure_memory.py``
measured 18 to 22 bytes per entry more than the log-probs alone (29 pairs with and without
``entropy_coeff``, ``benchmarks/measured_gpu.csv``); this is the log-probs' 4 and the upper end."""
LOGIT_CHUNK_TOKENS = 2048
"""Tokens per chunk when the entropy is chunked or the kernel is fused (verl's chunk size)."""
ACTIVATION_BYTES = 34
DENSE_MLP_BYTES = 19
"""Of :data:`ACTIVATION_BYTES`, the MLP block's (Korthikanti et al., section 4.1: 19 of the 34
bytes per token and hidden unit; attention and the layer norms keep the other 15)."""
GATED_MLP_HIDDEN = 1
GATED_MLP_INTERMEDIATE = 4
"""What a gated MLP's backward keeps per token, in bf16: its input (one hidden-wide tensor, shared
by the gate and up projections) and four as wide as the MLP -- the gate's and up's outputs, the
activation and the product the down projection reads."""

RECOMPUTED_BYTES = 2
FLOOR_TOKENS_PER_SEQUENCE = 2
"""The fewest tokens a sequence can have: one prompt token and one response token."""

OFFLOADED_INPUTS = "activations: layer inputs kept for recomputation"


@dataclass(frozen=True)
class Tokens:
    """Tokens one GPU holds in one micro-batch: all of them, and those of the responses."""

    all: float
    responses: float
    padded: bool


def tokens(
    plan: Plan, micro: int, expected: bool, prompts: int | None, gpus: int | None = None, *, log_prob: bool = False
) -> Tokens:
    """The fewest tokens a micro-batch can hold (the floor), or the expected number.

    ``prompts`` (the mini-batch or the step's batch) caps the sequences a GPU can have:
    ``prompts * rollout_n`` sequences spread over the data-parallel groups of ``gpus``
    (the trainer's, unless a pass runs on GPUs of its own).  ``log_prob``: a forward-only
    pass, which takes the log-prob passes' own token budget where the plan has one.
    """
    budget = (log_prob and plan.log_prob_max_token_len_per_gpu) or plan.max_token_len_per_gpu
    shards = plan.sequence_shards
    prompt, response = plan.lengths
    full = prompt + response
    padded = not plan.remove_padding and not plan.dynamic_batch
    share = response / full
    # padded: every sequence at full length; packed: the fewest tokens a sequence can have
    per_sequence = full if padded else FLOOR_TOKENS_PER_SEQUENCE
    floor = (1 if plan.dynamic_batch else micro) * per_sequence / shards
    if not expected:
        return Tokens(floor, floor * share, padded)
    sequence = float(full)
    if not padded:
        mean = (plan.mean_prompt_length or prompt) + (plan.mean_response_length or response)
        sequence = min(mean, full)
        share = min(plan.mean_response_length or response, response) / max(sequence, 1)
    available = None
    if prompts:  # sequences per data-parallel group (a sequence-parallel group shares its sequences)
        available = max(1.0, prompts * plan.rollout_n * shards / max(gpus or plan.train_gpus, 1))
    if plan.dynamic_batch and budget:
        count = float(budget)  # verl's budget is per GPU: the group's is budget x SP, split SP ways
        if available is not None:
            count = min(count, available * sequence / shards)
        count = max(count, sequence / shards)  # a longer sequence still makes a micro-batch of its own
    else:
        sequences = micro if available is None else min(micro, available)
        count = sequences * sequence / shards
    count = max(count, floor)
    return Tokens(count, count * share, padded)


def log_prob_tokens(plan: Plan, expected: bool, gpus: int | None = None) -> Tokens:
    """The tokens of one micro-batch of a forward-only pass (the actor's or reference's log-probs, a
    reward model's scores): its own micro-batch (else the update's), the step's prompts, and the
    log-prob passes' own token budget where the plan has one."""
    micro = plan.log_prob_micro_batch_per_gpu or plan.micro_batch_per_gpu
    return tokens(plan, micro, expected, plan.train_batch_size, gpus, log_prob=True)


def split(plan: Plan) -> int:
    """Megatron's tensor parallelism splits activations (sequence parallel) and the vocabulary."""
    return max(plan.train_tp, 1) if plan.train_backend == "megatron" else 1


def _vocab_split(plan: Plan) -> int:
    """How many ways tensor parallelism splits the vocabulary: Megatron's, and an FSDP backend's whose
    output head is sharded on the vocabulary (``Plan.vocab_parallel``: NeMo-RL's DTensor plans)."""
    return max(plan.train_tp, 1) if plan.train_backend == "megatron" or plan.vocab_parallel else 1


def dense_layer_bytes(arch: Architecture) -> int:
    """Bytes per token a dense layer keeps for its backward pass when no layer is recomputed.

    Korthikanti et al.'s 19 bytes per hidden unit for the MLP are a GeLU MLP four times as
    wide as the model, which keeps three tensors; the models here have gated MLPs (SwiGLU,
    ``down(act(gate(x)) * up(x))``), whose autograd keeps the input and four tensors of the
    MLP's width (:data:`GATED_MLP_INTERMEDIATE`): ``2·d + 8·f`` bytes for the 19·d.  The
    GPU-measured runs without recomputation (``benchmarks/measured_gpu.csv``, ids ending
    ``-nockpt``) fell further below their peaks the larger their batch with Korthikanti's
    share, and do not with this one.  The layer being recomputed and a forward pass's layer
    keep Korthikanti's 34 (:data:`ACTIVATION_BYTES`): the caching allocator's reserve
    (:data:`.phases.ALLOCATOR_RESERVE`) was matched with it on the recomputed runs.
    """
    mlp = 2 * (GATED_MLP_HIDDEN * arch.hidden + GATED_MLP_INTERMEDIATE * arch.intermediate)
    return (ACTIVATION_BYTES - DENSE_MLP_BYTES) * arch.hidden + mlp


def activations(arch: Architecture, plan: Plan, count: Tokens, expected: bool) -> list[Term]:
    """Korthikanti et al.'s activations; the floor keeps only what must exist, each layer's bf16 input."""
    width = arch.hidden * count.all / split(plan)
    whole = ACTIVATION_BYTES if expected else RECOMPUTED_BYTES
    if plan.gradient_checkpointing:
        kept = (
            Term("train", "activations: one layer's input, brought back from host memory", RECOMPUTED_BYTES * width)
            if plan.activation_offload
            else Term("train", OFFLOADED_INPUTS, RECOMPUTED_BYTES * width * arch.layers)
        )
        return [
            kept,
            Term("train", "activations: the layer being recomputed", whole * width),
            *routed(arch, plan, count, expected, 1),
        ]
    routed_layers = arch.layers - arch.dense_layers if arch.experts else 0
    dense = dense_layer_bytes(arch) * count.all / split(plan) if expected else whole * width
    # a routed layer has no dense MLP: its experts' copies (routed) stand for the MLP's share
    routed_kept = (whole - DENSE_MLP_BYTES if expected else whole) * width
    every_layer = dense * (arch.layers - routed_layers) + routed_kept * routed_layers
    return [
        Term("train", "activations (no recomputation)", every_layer),
        *routed(arch, plan, count, expected, routed_layers),
    ]


def routed(arch: Architecture, plan: Plan, count: Tokens, expected: bool, layers: int) -> list[Term]:
    """A mixture of experts' own activations: each token copied to its top-k experts, and their intermediates.

    transformers' sparse MoE blocks (``Qwen3MoeSparseMoeBlock``, ``MixtralSparseMoeBlock``)
    gather each expert's tokens (``hidden_states[None, top_x]``), run the expert's gated MLP
    and scale its output by the routing weight: per routed copy the gathered input and the
    scaled output (``2·d``) and the gate, up, activation and product (``4·f_e``) are kept
    for the backward pass, in bf16; a shared expert (DeepSeek's, Qwen2-MoE's) sees every token,
    one copy more, as wide as it is.  A routed layer has no dense MLP, so with every layer's activations kept these
    copies replace Korthikanti et al.'s MLP share (:data:`DENSE_MLP_BYTES`); the layer being
    recomputed keeps the whole 34, the largest layer's.  The floor counts none: a step can
    route its few tokens anywhere.
    """
    if not expected or not arch.experts or arch.size_only or layers < 1:
        return []

    def copy(width: int) -> int:  # bf16: the hidden-wide and the expert-wide tensors kept
        return 2 * (MOE_COPY_HIDDEN * arch.hidden + MOE_COPY_INTERMEDIATE * width)

    shared = copy(arch.shared_experts * arch.moe_intermediate) if arch.shared_experts else 0
    per_token = (arch.experts_per_token * copy(arch.moe_intermediate) + shared) / split(plan)
    name = f"activations: tokens routed to their top-{arch.experts_per_token} experts"
    return [Term("train", name, per_token * count.all * layers)]


MOE_COPY_HIDDEN = 2
"""Hidden-wide tensors kept per routed copy of a token: the gathered input and the scaled output."""
MOE_COPY_INTERMEDIATE = 4
"""Expert-wide tensors kept per routed copy: the gate and up projections, the activation, their product."""


def forward(arch: Architecture, plan: Plan, count: Tokens, expected: bool, entropy: bool | None) -> list[Term]:
    """A forward-only pass: one layer's transient activations and the vocabulary-wide logits
    (``entropy`` None: a scalar head, a reward model's, and no logits)."""
    layer = (ACTIVATION_BYTES if expected else RECOMPUTED_BYTES) * arch.hidden * count.all / split(plan)
    found = [Term("train", "activations: one layer's forward pass", layer), *routed(arch, plan, count, expected, 1)]
    if entropy is not None:
        found += logits(arch, plan, count, expected, entropy=entropy, chunked=plan.entropy_chunking)
    return found


def logits(
    arch: Architecture, plan: Plan, count: Tokens, expected: bool, entropy: bool, chunked: bool, grad: bool = False
) -> list[Term]:
    """The logits (bf16) over every token, and the log-prob (and entropy) working set over those it scores.

    Padded sequences score only the responses; packed ones (padding removed) score every token.
    A framework that casts the logits to fp32 before scoring them (``Plan.logits_fp32``) holds
    the fp32 copy over every token, and in the update (``grad``) its fp32 gradient too.
    """
    vocab = arch.vocab / _vocab_split(plan)
    if plan.fused_kernels:
        chunk_tokens, entries = plan.logit_chunk or (LOGIT_CHUNK_TOKENS, arch.vocab)
        chunk = min(count.all, chunk_tokens) * min(vocab, entries)
        return [Term("train", "logits for log-probs and entropy (fused: one chunk)", 4 * chunk)]
    scored = count.responses if count.padded else count.all
    what = "log-probs and entropy" if entropy else "log-probs"
    if entropy and chunked:
        scored, what = min(scored, LOGIT_CHUNK_TOKENS), "log-probs, entropy in chunks"
    per = (LOGIT_BYTES_RECOMPUTED if plan.entropy_checkpointing else LOGIT_BYTES) if entropy else LOGPROB_BYTES
    if entropy and grad and count.padded and not plan.entropy_checkpointing:
        per, what = EAGER_ENTROPY_UPDATE_BYTES, f"{what}, the entropy's gradient taken eagerly"
    if not expected:  # what must exist: the bf16 logits themselves
        per = 2
    elif plan.logits_fp32:
        cast = UPCAST_UPDATE_BYTES if grad else UPCAST_PASS_BYTES
        own = (per - LOGPROB_BYTES) * scored * vocab  # the entropy's working set beside the fp32 logits
        return [Term("train", f"logits for {what} (cast to fp32)", cast * count.all * vocab + own)]
    return [Term("train", f"logits for {what}", 2 * count.all * vocab + (per - 2) * scored * vocab)]
