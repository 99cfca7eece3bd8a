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
  (src/prime_rl/trainer/optim/state_offload.py:10-16); ``fsdp_cpu_offload`` is off (trainer.py:197);
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
    memory_fraction=0.9,
    defaults={"param_offload": False, "optimizer_offload": True},
)
