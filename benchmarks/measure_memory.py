#!/usr/bin/env python3
"""Measured against estimated: one training step's peak GPU memory next to the estimator's.

Needs a CUDA GPU, ``torch`` and ``transformers`` (``peft`` for the LoRA rows); nothing is
downloaded.  For each bundled model and LoRA rank it:

1. builds the model from the estimator's shape (a transformers config, randomly
   initialised, parameters in fp32 as the master copy);
2. runs one training step as the estimator models it on one GPU: bf16 autocast,
   gradient checkpointing on, ``--micro-batch`` sequences of ``--prompt-length +
   --response-length`` tokens, the log-probs over the vocabulary, AdamW;
3. reads ``torch.cuda.max_memory_allocated`` and prints it beside the estimator's
   training phase for the same plan (one GPU, no offload, no reference model).

The estimate is a lower bound, so the ratio measured / estimated should be at least 1;
docs/estimator.rst publishes the table when a GPU was available.

    python benchmarks/measure_memory.py --models Qwen2.5-0.5B Qwen3-0.6B --lora-rank 0 32
"""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sphinx_rlresources.estimator.architectures import Architecture, bundled
from sphinx_rlresources.estimator.memory import GIB, Plan, estimate


def transformers_config(arch: Architecture) -> object:
    import transformers

    common = {
        "hidden_size": arch.hidden,
        "num_hidden_layers": arch.layers,
        "num_attention_heads": arch.heads,
        "num_key_value_heads": arch.kv_heads,
        "intermediate_size": arch.intermediate,
        "vocab_size": arch.vocab,
        "tie_word_embeddings": arch.tied,
    }
    if arch.qk_norm:
        return transformers.Qwen3Config(head_dim=arch.dim, **common)
    if arch.qkv_bias:
        return transformers.Qwen2Config(**common)
    return transformers.LlamaConfig(**common)


def measure(arch: Architecture, rank: int, tokens: int, micro: int) -> float:
    import torch
    import transformers

    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    with torch.device("cuda"):
        model = transformers.AutoModelForCausalLM.from_config(
            transformers_config(arch), torch_dtype=torch.float32, attn_implementation="sdpa"
        )
    model.gradient_checkpointing_enable()
    if rank:
        import peft

        target = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
        model = peft.get_peft_model(model, peft.LoraConfig(r=rank, target_modules=target))
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-6, fused=True)
    ids = torch.randint(0, arch.vocab, (micro, tokens), device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(input_ids=ids).logits
        logprobs = torch.log_softmax(logits.float(), dim=-1).gather(-1, ids.unsqueeze(-1))
        loss = -logprobs.mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    peak = torch.cuda.max_memory_allocated() / GIB
    del model, optimizer, logits, logprobs, loss
    gc.collect()
    return peak


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="+", default=["Qwen2.5-0.5B", "Qwen2.5-1.5B", "Qwen3-0.6B"])
    parser.add_argument("--lora-rank", nargs="+", type=int, default=[0, 32])
    parser.add_argument("--prompt-length", type=int, default=512)
    parser.add_argument("--response-length", type=int, default=1024)
    parser.add_argument("--micro-batch", type=int, default=1)
    parser.add_argument("--device", default="H100", help="the device table entry the GPU is (for the plan)")
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("measure_memory: torch is not installed; this script needs a CUDA GPU", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("measure_memory: no CUDA GPU here; the estimator's table stays unmeasured", file=sys.stderr)
        return 2
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"{'model':<16}{'LoRA':>6}{'estimated GiB':>15}{'measured GiB':>14}{'ratio':>8}")
    tokens = args.prompt_length + args.response_length
    for name in args.models:
        arch = bundled(name)
        if arch is None:
            print(f"{name}: not a bundled model", file=sys.stderr)
            continue
        for rank in args.lora_rank:
            plan = Plan(
                task="DAPO-LoRA" if rank else "DAPO",  # no reference model: one model, as measured
                gpus=1,
                device=args.device,
                device_gib=torch.cuda.get_device_properties(0).total_memory / GIB,
                lora_rank=rank,
                prompt_length=args.prompt_length,
                response_length=args.response_length,
                micro_batch=args.micro_batch,
            )
            estimated = estimate(arch, plan).train_gib
            measured = measure(arch, rank, tokens, args.micro_batch)
            print(f"{name:<16}{rank:>6}{estimated:>15.2f}{measured:>14.2f}{measured / estimated:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
