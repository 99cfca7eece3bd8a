"""The terms of an RL step's memory, moment by moment, and where each figure comes from.

Model states (Rajbhandari et al., ZeRO, arXiv:1910.02054): mixed-precision Adam needs
16 bytes per trainable parameter.  verl's FSDP actor keeps its parameters in fp32
(``torch_dtype = torch.float32 if self._is_actor`` in ``verl/workers/fsdp_workers.py``)
with bf16 compute: 4 bytes of parameter, 4 of gradient, 8 of Adam moments.  Megatron
keeps bf16 parameters, fp32 gradients and a distributed optimizer's 12 bytes of fp32
master copy and moments sharded over the GPUs ("6 + 12/d" bytes per parameter,
Megatron-LM's distributed-optimizer guide).  A frozen LoRA base costs its parameter
bytes only; a reference model is bf16 (2 bytes).  Plain PyTorch (DDP, one process) keeps
no master copy: parameters, gradients, Adam's moments and the reference model all take
the dtype the model was loaded in, 8 bytes per parameter in bf16 and 16 in fp32.

Offload, as the framework does it (``plan.offload_mode``):

* ``phase`` (verl's ``param_offload``/``optimizer_offload``): the states wait in host
  memory between phases and come back for their own -- ``load_fsdp_model_to_gpu`` and
  ``load_fsdp_optimizer`` before ``update_actor``, the parameters alone for the log-prob
  passes and for the weight sync before rollout.  The update still needs all 16 bytes
  per parameter on the GPUs, so full fine-tuning of a 7B model does not fit one 80 GB GPU
  with offload on;
* ``compute`` (FSDP2's ``offload_policy``, DeepSpeed ZeRO-Offload, ``--adam_offload``):
  they stay in host memory while the GPU computes; the GPU holds the layer in use.

Tokens, activations and logits: :mod:`~sphinx_rlresources.estimator.pertoken`.

The engine claims ``gpu_memory_utilization`` of the whole device (vLLM 0.7 and later, as
verl's guide says) or ``mem_fraction_static`` of what is free when it starts (SGLang),
physically, while it generates; with sleep mode (``free_cache_engine``) it gives it back
for training, otherwise it keeps it.  It must hold its weights and one sequence's KV cache
(``2 * layers * kv_heads * head_dim`` bytes per token in bf16).
"""

from __future__ import annotations

from sphinx_rlresources.estimator.architectures import Architecture
from sphinx_rlresources.estimator.pertoken import (
    OFFLOADED_INPUTS,
    RECOMPUTED_BYTES,
    activations,
    forward,
    log_prob_tokens,
    logits,
    split,
    tokens,
)
from sphinx_rlresources.estimator.plan import NO_ENGINE, Estimate, Moment, Plan, Term

DEFAULT_MAX_NUM_SEQS = 256
"""vLLM's default ``max_num_seqs``: the most sequences an engine batches when nothing says."""
DEFAULT_SHARE = {"vllm": 0.9, "sglang": 0.88}
"""The share of the device an engine claims when nothing sets it: vLLM's ``gpu_memory_utilization``
default (``CacheConfig``, vllm/config.py) and SGLang's ``mem_fraction_static`` where it cannot size
itself (``server_args.py``: ``else 0.88``; on a GPU it measures it keeps a reserve of 10 GiB or
more).  The KV cache of more sequences than that pool holds is not claimed: the engine schedules
them in turn, so an unstated budget claims at most this share."""
ADAM_BYTES = 16
"""Parameter, gradient and optimizer bytes per trainable parameter with mixed-precision Adam."""
CUDA_CONTEXT = 1.12 * 2**30
"""The CUDA context of a trainer process, before any tensor: 1.12 GiB measured by
``benchmarks/measure_memory.py`` on an H200 (torch 2.11, CUDA 13; every row of
``benchmarks/measured_gpu.csv`` notes it).  No torch counter sees it; NVML does."""
ALLOCATOR_RESERVE = 0.46
"""What PyTorch's caching allocator holds beyond the live tensors at a moment's peak, per byte
of the moment's per-token tensors (activations and logits): freed blocks it keeps cached
and cannot reuse for a tensor of another size.  ``benchmarks/measured_gpu.csv`` gives the
reserve of 76 runs (NVML's peak less ``max_memory_allocated`` and the context: 0.3 to
21 GiB); over the per-token terms the estimate then had it was 0.46 at the lower quartile.
Since the eager entropy term counts much of that working set, the same gaps are 0.22 to
0.34 of today's terms; 0.46 is kept as the value at which the table's whole steps are
closest (docs/estimator-reference.rst, "What no tensor holds")."""


def build(arch: Architecture, plan: Plan, tp: int, expected: bool) -> Estimate:  # noqa: C901 - every term of one figure, in one place
    """Every term of one figure (the floor, or with ``expected`` the expected peak)."""
    found = Estimate("expected" if expected else "floor")
    trainer = max(plan.train_gpus, 1)
    if plan.train_gpus < 1:
        found.problems.append(
            f"the engine's {plan.rollout_gpus} GPUs leave none of the {plan.gpus} for the trainer: "
            "give more GPUs or fewer to the engine"
        )
    parallel = plan.train_tp * plan.train_pp * plan.train_cp if plan.train_backend == "megatron" else 1
    if trainer % max(parallel, 1):
        found.problems.append(
            f"the trainer's parallelism (TP {plan.train_tp} x PP {plan.train_pp} x CP {plan.train_cp} = {parallel}) "
            f"does not divide its {trainer} GPUs"
        )
    per_node = min(plan.gpus, plan.gpus_per_node)
    states = _States(arch, plan, trainer)

    def place(name: str, per_gpu: float, offloaded: bool, by_phase: bool = False) -> list[Term]:
        """A state: resident, or in host memory; what comes back to the GPU for its own moments (phase mode)."""
        if not offloaded:
            found.resident.append(Term("resident", name, per_gpu))
            return []
        return _offloaded(found, plan, name, per_gpu, per_node, by_phase)

    # Megatron computes with its parameters on the GPU: offloaded, they come back for their phase
    # even where its optimizer steps on the host (optimizer_cpu_offload, the ``compute`` mode).
    megatron = plan.train_backend == "megatron"
    params_back = place(states.actor_name, states.actor_params, plan.param_offload, by_phase=megatron)
    if plan.param_offload and plan.compute_copy:  # prime-rl's full_offload: bf16 weights stay to compute with
        found.resident.append(Term("resident", COMPUTE_COPY_TERM, 2 * states.actor_params / plan.param_bytes))
    optimizer_back = place(states.optimizer_name, states.optimizer, plan.optimizer_offload)
    ref_back: list[Term] = []
    if plan.reference and not plan.ref_gpus:
        ref_offload = plan.param_offload if plan.ref_param_offload is None else plan.ref_param_offload
        ref_back = place(states.ref_name, states.ref, ref_offload)
    critic_back: list[Term] = []
    shares_critic = plan.has_critic and not plan.critic_gpus
    if shares_critic:
        critic_back = place("critic parameters (sharded)", states.critic_params, plan.param_offload)
        critic_back += place("critic optimizer states (sharded)", states.critic_optimizer, plan.optimizer_offload)
    gradients: list[Term] = []
    if plan.offload_mode != "phase" and plan.param_offload and not megatron:  # FSDP2's CPU offload: gradients too
        found.host.append(Term("host", f"{states.gradient_name}, offloaded", states.gradients * per_node))
    else:
        gradients = [Term("train", states.gradient_name, states.gradients)]

    micro = tokens(plan, plan.micro_batch_per_gpu, expected, plan.mini_batch_size)
    log_prob = log_prob_tokens(plan, expected)
    gathered = _gathered(arch, plan)
    later: list[tuple[str, list[Term]]] = []  # (moment, terms) of the training phase
    states_back = [*params_back, *optimizer_back]
    update_activations = activations(arch, plan, micro, expected)  # the critic has the actor's shape: its too
    layers = [*gathered, *update_activations]
    scored = logits(arch, plan, micro, expected, entropy=plan.update_entropy, chunked=False, grad=True)
    if _one_micro_batch(plan):  # no gradient yet while the loss's backward runs through the logits
        later.append(("the actor's update: the backward through the logits", [*states_back, *layers, *scored]))
        later.append(("the actor's update: the backward through the layers", [*states_back, *gradients, *layers]))
    else:
        later.append(("the actor's update", [*states_back, *gradients, *layers, *scored]))
    actor_pass = forward(arch, plan, log_prob, expected, entropy=plan.pass_entropy)
    if plan.offload_mode == "step" and plan.optimizer_offload and not plan.param_offload:
        # prime-rl's CPUOffloadOptimizer: the states come back for step() once backward has freed the activations
        later.append(
            ("the optimizer step", [*gradients, Term("train", f"{states.optimizer_name} <- host", states.optimizer)])
        )
    if plan.activation_offload and plan.gradient_checkpointing and not arch.size_only:
        inputs = RECOMPUTED_BYTES * arch.hidden * micro.all / split(plan) * arch.layers
        found.host.append(Term("host", f"{OFFLOADED_INPUTS}, offloaded", inputs * per_node))
    later.append(("the actor's log-prob pass", [*params_back, *gathered, *actor_pass]))
    if plan.reference and not plan.ref_gpus:
        ref_pass = forward(arch, plan, log_prob, expected, entropy=False)
        later.append(("the reference model's log-prob pass", [*ref_back, *gathered, *ref_pass]))
    if shares_critic:
        critic_update = [*critic_back, *gathered, *update_activations]
        critic_update.append(Term("train", "critic gradients (sharded)", states.critic_gradients))
        later.append(("the critic's update", critic_update))
    if arch.size_only:  # an unknown shape: no per-token or per-layer term can be known
        later = [(m, [t for t in terms if not _shaped(t)]) for m, terms in later]
    if expected:  # what no tensor holds; the floor leaves it out, as torch's counters do
        later = [(m, [*terms, _runtime(terms)]) for m, terms in later]
    if plan.ref_gpus and plan.use_kl:
        found.moments.append(_own_reference(arch, plan, expected, found))
    if plan.critic_gpus and plan.has_critic:
        found.moments.append(_own_critic(arch, plan, expected, found))
    if plan.reward_gpus:
        found.moments.append(_own_reward(arch, plan, expected))

    if plan.engine == NO_ENGINE:  # the trainer alone: its moments, nothing beside them
        found.moments.extend(Moment("train", name, tuple(terms)) for name, terms in later)
        return found
    # -- the rollout engine
    weights, claim, claim_name = _engine(arch, plan, tp, expected, found, _unborn(plan, states))
    found.engine_claim = claim
    engine_term = Term("engine", claim_name, claim)
    sleeping = plan.colocated and plan.free_cache_engine
    kept = [] if sleeping or not plan.colocated else [engine_term]
    found.moments.extend(Moment("train", name, (*terms, *kept)) for name, terms in later)
    # colocated, the trainer's process keeps its CUDA context beside the engine's claim while it generates
    beside = (Term("runtime", TRAINER_CONTEXT_TERM, CUDA_CONTEXT),) if plan.colocated and expected else ()
    found.moments.append(Moment("rollout", "generation", (engine_term, *beside), with_resident=plan.colocated))
    if plan.colocated:  # the actor's parameters come back to be copied into the woken engine
        back = [Term("rollout", t.name, t.bytes) for t in params_back]
        sync = (*back, Term("engine", f"rollout weights (TP={tp})", weights))
        found.moments.append(Moment("rollout", "the weight sync before generation", sync))
        if plan.free_cache_engine:
            asleep = "rollout weights kept in host memory while the engine sleeps"
            found.host.append(Term("host", asleep, weights * per_node))
    return found


def _one_micro_batch(plan: Plan) -> bool:
    """Whether each optimizer step takes one micro-batch per GPU, so no gradient exists while the
    backward pass starts at the logits: ``zero_grad()`` frees them before each mini-batch
    (``set_to_none`` by default since torch 2.0; verl's ``update_policy`` calls it per mini-batch),
    and only a second micro-batch's backward would add to gradients already there.  Unknown
    (no mini-batch stated, or token budgets): more than one."""
    if not plan.mini_batch_size or plan.dynamic_batch:
        return False
    sequences = plan.mini_batch_size * plan.rollout_n * max(plan.ulysses_sp, 1) / max(plan.train_gpus, 1)
    return sequences <= plan.micro_batch_per_gpu


def _own_reference(arch: Architecture, plan: Plan, expected: bool, found: Estimate) -> Moment:
    """The reference model on GPUs of its own: its bf16 weights and its log-prob pass, nothing of the trainer's.

    OpenRLHF gives the reference ``--ref.num_nodes`` x ``--ref.num_gpus_per_node`` GPUs of
    its own unless ``colocate_actor_ref`` (or ``colocate_all``) places it with the actor
    (``openrlhf/cli/train_ppo_ray.py:41-103`` at 3c3be62), sharded as :func:`_frozen` says,
    and ``--ref.offload`` keeps it in host memory.  A LoRA run's reference there is a whole
    model too.
    """
    sharded, weights = _frozen(arch, plan, plan.ref_gpus)
    name = f"reference model (bf16, {_shard(sharded)} over its {plan.ref_gpus} GPUs)"
    offloaded = plan.param_offload if plan.ref_param_offload is None else plan.ref_param_offload
    per_node = min(plan.ref_gpus, plan.gpus_per_node)
    terms = _offloaded(found, plan, name, weights, per_node) if offloaded else [Term("train", name, weights)]
    count = log_prob_tokens(plan, expected, plan.ref_gpus)
    terms += [*_gathered(arch, plan), *forward(arch, plan, count, expected, entropy=False)]
    return _pool("the reference model's log-prob pass, on its own GPUs", arch, terms, expected)


def _offloaded(
    found: Estimate, plan: Plan, name: str, per_gpu: float, per_node: int, by_phase: bool = False
) -> list[Term]:
    """A state offloaded to host memory (each node holds its GPUs' shares), and what comes back to the
    GPU for its own moments: the state itself with offload by phase (or ``by_phase`` whatever the
    mode), nothing when the GPU computes from host memory (``compute``) or only the optimizer's
    step brings it back (``step``)."""
    found.host.append(Term("host", f"{name}, offloaded", per_gpu * per_node))
    return [Term("train", f"{name} <- host", per_gpu)] if by_phase or plan.offload_mode == "phase" else []


def _frozen(arch: Architecture, plan: Plan, gpus: int) -> tuple[bool, float]:
    """(sharded, bf16 bytes per GPU) of a model that is only run forward, on a pool of ``gpus``.

    OpenRLHF's DeepSpeed config shards an evaluated model with ZeRO-3 only when the actor
    trains with stage 3, else each GPU holds it whole (``get_ds_eval_config``:
    ``stage=self.stage if self.stage == 3 else 0``, ``openrlhf/utils/deepspeed/deepspeed.py:489-493``
    at OpenRLHF/OpenRLHF@3c3be62).
    """
    sharded = plan.zero_stage >= _ZERO["parameters"] and plan.train_backend == "fsdp"
    return sharded, 2 * arch.params() / (gpus if sharded else 1)


def _own_critic(arch: Architecture, plan: Plan, expected: bool, found: Estimate) -> Moment:
    """The critic on GPUs of its own: its states and its update, nothing of the actor's.

    OpenRLHF gives the critic ``--critic.num_nodes`` x ``--critic.num_gpus_per_node`` GPUs
    of its own unless ``colocate_all`` places every model with the actor, trains it with
    the actor's DeepSpeed stage and offload, and with ``colocate_critic_reward`` keeps the
    reward model on the same GPUs (``openrlhf/cli/train_ppo_ray.py:41-103`` at
    OpenRLHF/OpenRLHF@3c3be62).  The critic has the actor's shape.
    """
    states = _States(arch, plan, plan.critic_gpus)
    per_node = min(plan.critic_gpus, plan.gpus_per_node)
    terms: list[Term] = []
    owned = (
        ("critic parameters", states.critic_params, plan.param_offload),
        ("critic optimizer states", states.critic_optimizer, plan.optimizer_offload),
    )
    for name, per_gpu, offloaded in owned:
        name = f"{name} (sharded over its {plan.critic_gpus} GPUs)"
        terms += _offloaded(found, plan, name, per_gpu, per_node) if offloaded else [Term("train", name, per_gpu)]
    terms.append(Term("train", "critic gradients (sharded)", states.critic_gradients))
    count = tokens(plan, plan.micro_batch_per_gpu, expected, plan.mini_batch_size, plan.critic_gpus)
    terms += [*_gathered(arch, plan), *activations(arch, plan, count, expected)]
    if plan.reward_with_critic:
        sharded, weights = _frozen(arch, plan, plan.critic_gpus)
        terms.append(Term("train", f"reward model beside it (bf16, {_shard(sharded)})", weights))
    return _pool("the critic's update, on its own GPUs", arch, terms, expected)


def _own_reward(arch: Architecture, plan: Plan, expected: bool) -> Moment:
    """A reward model on GPUs of its own: its bf16 weights and a forward pass with a scalar head
    (no vocabulary-wide logits).  It has the actor's shape."""
    sharded, weights = _frozen(arch, plan, plan.reward_gpus)
    name = f"reward model (bf16, {_shard(sharded)} over its {plan.reward_gpus} GPUs)"
    count = log_prob_tokens(plan, expected, plan.reward_gpus)
    terms = [Term("train", name, weights), *_gathered(arch, plan), *forward(arch, plan, count, expected, None)]
    return _pool("the reward model's forward pass, on its own GPUs", arch, terms, expected)


def _pool(name: str, arch: Architecture, terms: list[Term], expected: bool) -> Moment:
    """A moment on GPUs of a role's own: nothing of the actor's there, its runtime beside its own tensors."""
    if arch.size_only:
        terms = [t for t in terms if not _shaped(t)]
    if expected:
        terms = [*terms, _runtime(terms)]
    return Moment("train", name, tuple(terms), with_resident=False)


def _runtime(terms: list[Term]) -> Term:
    """The CUDA context and the caching allocator's reserve beside a trainer moment's tensors."""
    per_token = sum(t.bytes for t in terms if t.name.startswith(("activations", "logits")))
    return Term("runtime", RUNTIME_TERM, CUDA_CONTEXT + ALLOCATOR_RESERVE * per_token)


RUNTIME_TERM = "CUDA context and the caching allocator's reserve"
TRAINER_CONTEXT_TERM = "the trainer's CUDA context, beside the engine"
COMPUTE_COPY_TERM = "actor compute weights (bf16, sharded), kept on the GPU while the masters are offloaded"


def _shaped(term: Term) -> bool:
    return term.name.startswith(("activations", "logits", "one gathered", "the embeddings"))


class _States:
    """Per-GPU bytes of each model state, for the backend's sharding."""

    def __init__(self, arch: Architecture, plan: Plan, trainer: int) -> None:
        params = arch.params()
        lora = plan.lora_rank > 0
        trainable = arch.lora_params(plan.lora_rank, plan.lora_targets) if lora else params
        p = plan.param_bytes
        if plan.train_backend == "megatron":
            experts = arch.expert_params()
            model_split = max(plan.train_tp * plan.train_pp, 1)
            split_params = (params - experts) / model_split + experts / (model_split * max(plan.train_ep, 1))
            self.actor_params = p * split_params  # bf16, sharded by model parallelism only
            g = plan.megatron_grad_bytes
            self.gradients = g * (split_params if not lora else trainable / model_split)  # the DDP gradient buffer
            self.optimizer = 12 * trainable / trainer  # distributed optimizer: over every GPU
            self.ref = 2 * split_params
            self.ref_name = "reference model (bf16, sharded)"
            self.gradient_name = f"gradients ({_dtype(g)}, model-parallel shard)"
            self.optimizer_name = "optimizer states (fp32 master, Adam m and v; distributed)"
            self.critic_params = p * split_params
            self.critic_gradients = g * split_params
            self.critic_optimizer = 12 * params / trainer
        else:
            # ZeRO's stages: 1 shards the optimizer states, 2 the gradients too, 3 the parameters too
            sharded = {name: plan.zero_stage >= stage for name, stage in _ZERO.items()}
            split = {name: trainer if on else 1 for name, on in sharded.items()}
            self.actor_params = p * (params + (trainable if lora else 0)) / split["parameters"]
            self.gradients = p * trainable / split["gradients"]
            # Without a master copy (plain PyTorch) Adam's moments take the parameters' dtype.
            adam = ADAM_BYTES - 2 * p if plan.master_weights else 2 * p
            self.optimizer = adam * trainable / split["optimizer"]
            # Plain PyTorch loads the reference model as it loads the trained one; else it is bf16.
            ref_bytes = 2 if plan.master_weights else p
            self.ref = ref_bytes * params / split["parameters"]
            self.ref_name = f"reference model ({_dtype(ref_bytes)}, {_shard(sharded['parameters'])})"
            self.gradient_name = f"gradients ({_dtype(p)}, {_shard(sharded['gradients'])})"
            if p == 4:  # fp32 parameters are their own master
                moments = "Adam m and v"
            elif plan.master_weights:
                moments = "fp32 master, Adam m and v"
            else:
                moments = f"Adam m and v, {_dtype(p)}"
            self.optimizer_name = f"optimizer states ({moments}; {_shard(sharded['optimizer'])})"
            self.critic_params = p * params / split["parameters"]
            self.critic_gradients = p * params / split["gradients"]
            self.critic_optimizer = adam * params / split["optimizer"]
        base = "frozen base and adapters" if lora else "parameters"
        shard = (
            "model-parallel shard"
            if plan.train_backend == "megatron"
            else _shard(plan.zero_stage >= _ZERO["parameters"])
        )
        self.actor_name = f"actor {base} ({_dtype(p)}, {shard})"


_ZERO = {"optimizer": 1, "gradients": 2, "parameters": 3}
"""The ZeRO stage from which each state is sharded (Rajbhandari et al., arXiv:1910.02054)."""


def _shard(sharded: bool) -> str:
    return "sharded" if sharded else "a full copy per GPU"


def _dtype(bytes_per: int) -> str:
    return {4: "fp32", 2: "bf16", 1: "fp8"}.get(bytes_per, f"{bytes_per} bytes")


def _gathered(arch: Architecture, plan: Plan) -> list[Term]:
    """FSDP computes each layer gathered whole in bf16; its root unit (embeddings, head) stays gathered.

    Below ZeRO-3 every GPU holds the parameters whole already, and nothing is gathered.
    """
    if plan.train_backend != "fsdp" or arch.size_only or plan.zero_stage < _ZERO["parameters"]:
        return []
    return [
        Term("train", "one gathered layer (bf16, FSDP all-gather)", 2 * arch.largest_layer_params()),
        Term("train", "the embeddings and output head, gathered (FSDP's root unit)", 2 * arch.embedding_params()),
    ]


def _unborn(plan: Plan, states: _States) -> float:
    """Bytes of resident state that do not exist yet when an engine sizes itself from what is free.

    torch's optimizers make their moments in their first ``step()`` (``AdamW._init_group``:
    ``exp_avg`` and ``exp_avg_sq`` are created when a parameter's state is empty,
    torch/optim/adamw.py before torch 2.7, adam.py since), and verl on its patched vLLM
    0.6.3 sizes the KV cache as ``free_gpu_memory * gpu_memory_utilization`` when the engine starts
    (volcengine/verl@6d96fda ``verl/third_party/vllm/vllm_v_0_6_3/worker.py:201-210``),
    after the trainer's models and optimizers are built but before any step
    (``verl/trainer/ppo/ray_trainer.py:512-514`` builds the rollout last).  So the cache
    takes its share of memory the actor's and the critic's Adam states fill from the
    first update on, when they stay on the GPU.  Only for FSDP, whose optimizer is
    ``torch.optim.AdamW`` (``verl/workers/fsdp_workers.py:254,680`` at that commit).
    """
    if plan.budget_of != "free-after-weights" or plan.train_backend != "fsdp" or not plan.colocated:
        return 0.0
    if plan.optimizer_offload:
        return 0.0
    return states.optimizer + (states.critic_optimizer if plan.has_critic else 0.0)


def _engine(
    arch: Architecture, plan: Plan, tp: int, expected: bool, found: Estimate, unborn: float
) -> tuple[float, float, str]:
    """(the engine's weights, its claim on each of its GPUs, the claim's name), with its problems.

    ``unborn``: resident bytes that did not exist yet when the engine measured what is free (:func:`_unborn`).
    """
    params = arch.params()
    # fp8 rollout quantizes the linear layers to 1 byte; the embeddings and the head stay bf16
    weights = (params + arch.embedding_params()) / tp if plan.fp8_rollout else 2 * params / tp
    sequence = sum(plan.lengths)
    one = arch.kv_bytes_per_token(tp) * sequence
    label = "gpu_memory_utilization" if plan.engine == "vllm" else "mem_fraction_static"
    device = plan.device_gib * 2**30
    resident = sum(t.bytes for t in found.resident) if plan.colocated else 0.0  # not cached: still being built
    if plan.memory_fraction is None:
        batch = plan.max_num_seqs or DEFAULT_MAX_NUM_SEQS
        if plan.train_batch_size:
            batch = min(batch, max(1, plan.train_batch_size * plan.rollout_n * tp // max(plan.engine_gpus, 1)))
        sequences = batch if expected else 1
        claim = weights + one * sequences
        pool = DEFAULT_SHARE.get(plan.engine, 1.0) * device
        if claim > pool and pool > weights + one:  # more sequences than its default pool holds wait their turn
            return weights, pool, f"rollout engine: weights (TP={tp}) and its default pool ({pool / 2**30:.1f} GiB)"
        return weights, claim, f"rollout engine: weights (TP={tp}) and the KV cache of {sequences} sequences"
    free = max(device - resident + unborn, 0.0)
    if plan.budget_of == "free-after-weights":
        claim = weights + plan.memory_fraction * max(free - weights, 0.0)
        of = "what is free after its weights" + (", before the optimizer's first step" if unborn else "")
    elif plan.budget_of == "free":
        claim, of = plan.memory_fraction * free, "what is free"
    else:
        claim, of = plan.memory_fraction * device, "the device"
    name = f"rollout engine's claim ({label}={plan.memory_fraction:g} of {of}, TP={tp})"
    setting = f"{label}={plan.memory_fraction:g} of {of} = {claim / 2**30:.1f} GiB"
    if claim < weights + one:
        found.problems.append(
            f"the engine's claim ({setting}) cannot hold its weights and one sequence's KV cache "
            f"({(weights + one) / 2**30:.1f} GiB at TP={tp}): raise the rollout's tensor parallelism or {label}"
        )
    if plan.budget_of == "device" and resident + claim > device:
        found.problems.append(
            f"the engine claims {setting} while {resident / 2**30:.1f} GiB of model state stays on each GPU, "
            f"more than the device holds: offload the states or lower {label}"
        )
    return weights, claim, name
