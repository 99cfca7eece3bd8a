"""prime-rl's words: its algorithms as the tables' tasks, and the memory defaults its trainer keeps.

Kept beside :mod:`.primerl` (the reader) in a module of its own, as :mod:`.primeevals` is.
Lines at PrimeIntellect-ai/prime-rl@559b447:

* the trainer builds the model in ``model.optimization_dtype``, ``float32`` unless said
  (packages/prime-rl-configs/src/prime_rl/configs/trainer.py:233; src/prime_rl/trainer/model.py:1332),
  and FSDP2 computes in bf16 with fp32 reductions (``MixedPrecisionPolicy(param_dtype=torch.bfloat16,
  reduce_dtype=...)``, model.py:824; ``reduce_dtype`` ``float32``, trainer.py:236): fp32 parameters,
  fp32 gradients and fp32 Adam moments, 16 bytes per trained parameter, as verl's FSDP actor;
* ``optim_cpu_offload`` is on unless said (trainer.py:200): the optimizer states wait in host
  memory and come to the GPU for ``step()`` only, the weights staying there
  (src/prime_rl/trainer/optim/state_offload.py:10-16: "activations and optimizer states are
  never on GPU at the same time"): offload mode ``step``; ``fsdp_cpu_offload`` is off (trainer.py:197);
* ``full_offload`` (off unless said, trainer.py:203) keeps the fp32 masters, gradients and Adam's
  moments in host memory and runs AdamW on the CPU during backward, and casts the GPU's
  parameters to bf16 to compute with (``model.to(dtype=torch.bfloat16)``,
  src/prime_rl/trainer/optim/offload.py:1554; fp32 MoE routers, model.py:479-495): the reader
  says it as ``compute_copy`` with both states offloaded (:mod:`.primerl`);
* activation checkpointing of every block (``ac`` mode ``full``, freq 1, trainer.py:32-35,191;
  ``checkpoint_wrapper``, model.py:1161) with activation offloading on (``ac_offloading``,
  trainer.py:194): the forward runs under torchtune's ``OffloadActivations``
  (src/prime_rl/trainer/sft/train.py:304, rl/train.py:422), whose pack hook copies every saved
  CUDA tensor of 1 KiB or more -- the checkpointed blocks' inputs -- to pinned host memory
  (src/prime_rl/utils/act_offloading.py:116-160) and brings each back in backward;
* the LM head is fused and chunked (``fused_lm_head_token_chunk_size``, 8192 tokens, trainer.py:262;
  1024 at b8d9553, the commit of PR #3234's measurements): ``_SequenceChunkedLogProbEntropyFn``
  computes ``hidden_chunk @ weight_chunk.t()`` over at most 8192 vocabulary entries at a time
  (src/prime_rl/trainer/models/layers/lm_head.py:114,134-135, backward 169,186-187), so no
  tokens-by-vocabulary logits exist;
* vLLM's ``gpu_memory_utilization`` is 0.9 unless said (configs/inference.py:102), on GPUs of its own.
"""

from __future__ import annotations

from sphinx_rlresources.scripts.frameworks.vocabulary import Vocabulary

NAME = "prime-rl"
VOCABULARY = Vocabulary(
    NAME,
    {
        # orchestrator.algo.type (configs/algorithm.py:201, :345); its other algorithms (echo, max_rl,
        # rae, opd...) name no task of the tables, so they are not compared
        "grpo": ("GRPO",),
        "sft": ("SFT",),
    },
    fsdp_param_bytes=4,
    offload_mode="step",
    memory_fraction=0.9,
    logit_chunk=(8192, 8192),
    activation_offload=True,
    defaults={"param_offload": False, "optimizer_offload": True, "fused_kernels": True},
)
