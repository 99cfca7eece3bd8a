#!/usr/bin/env python3
"""Measured against estimated: the device's peak in each moment of one RL step, beside the estimator's figures.

Needs a CUDA GPU, ``torch`` and ``transformers`` (``peft`` for the LoRA rows, ``vllm`` for
the engine, ``pynvml`` optional); nothing is downloaded.  The test suite never runs it.
For each bundled model and LoRA rank it:

1. builds the model from the estimator's shape (a transformers config, randomly
   initialised, parameters in fp32 as verl's FSDP actor keeps them);
2. runs the moments the estimator models, on one GPU: the log-prob pass (forward only,
   log-probs and entropy over the vocabulary-wide logits) and the update (bf16 autocast,
   gradient checkpointing, ``--micro-batch`` sequences of ``--prompt-length +
   --response-length`` tokens, AdamW's step);
3. with ``--engine-fraction`` (and vLLM installed) starts the engine with dummy weights
   at that ``gpu_memory_utilization`` and generates one batch;
4. reads the **device's** peak -- NVML's used memory, or ``total - free`` from
   ``torch.cuda.mem_get_info`` -- from a thread that samples it every millisecond while
   each moment runs.  ``torch.cuda.max_memory_allocated`` is printed beside it but not
   used: it misses the engine's pool (vLLM allocates it outside torch's caching
   allocator), CUDA contexts and the allocator's fragments.

It prints the floor and expected figures of the same plan (one GPU, nothing offloaded,
no reference model) beside the measured peak; docs/estimator.rst publishes the table
when a GPU was available.

    python benchmarks/measure_memory.py --models Qwen2.5-0.5B Qwen3-0.6B --lora-rank 0 32
    python benchmarks/measure_memory.py --models Qwen2.5-0.5B --lora-rank 0 --engine-fraction 0.3
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sphinx_rlresources.estimator.architectures import Architecture, bundled
from sphinx_rlresources.estimator.memory import GIB, Plan, Result, estimate


class DevicePeak:
    """The most memory the device had in use while the block ran, sampled from NVML (or CUDA) in a thread."""

    def __init__(self, index: int = 0, every: float = 0.001) -> None:
        self.every = every
        self.peak = 0
        self._stop = threading.Event()
        self._used = self._reader(index)

    @staticmethod
    def _reader(index: int) -> Callable[[], int]:
        try:
            import pynvml

            pynvml.nvmlInit()
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            return lambda: int(pynvml.nvmlDeviceGetMemoryInfo(handle).used)
        except Exception:  # noqa: BLE001 - no NVML: CUDA's own count of free memory, which sees every process too
            import torch

            def used() -> int:
                free, total = torch.cuda.mem_get_info(index)
                return int(total - free)

            return used

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._used())
            time.sleep(self.every)

    @contextmanager
    def watching(self) -> Iterator[DevicePeak]:
        import torch

        torch.cuda.synchronize()
        self.peak = self._used()
        self._stop.clear()
        thread = threading.Thread(target=self._sample, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            torch.cuda.synchronize()
            self.peak = max(self.peak, self._used())
            self._stop.set()
            thread.join()


@dataclass
class Measured:
    model: str
    rank: int
    moment: str
    floor_gib: float
    expected_gib: float
    device_gib: float
    torch_gib: float

    @property
    def ratio(self) -> float:
        return self.expected_gib / self.device_gib if self.device_gib else 0.0


def transformers_config(arch: Architecture) -> Any:
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


def plan(arch: Architecture, rank: int, args: argparse.Namespace, device_gib: float) -> Plan:
    """The estimator's plan for what this script runs: one GPU, no offload, no reference model."""
    return Plan(
        task="DAPO-LoRA" if rank else "DAPO",  # no reference model: one model, as measured
        gpus=1,
        device=args.device,
        device_gib=device_gib,
        lora_rank=rank,
        param_bytes=4,
        prompt_length=args.prompt_length,
        response_length=args.response_length,
        micro_batch=args.micro_batch,
        remove_padding=False,  # every sequence at full length, as the batch below is
        update_entropy=True,
        memory_fraction=args.engine_fraction,
    )


def moment_figures(found: Result, name: str) -> tuple[float, float]:
    """The floor's and the expected figure of one moment (resident included, the engine's claim not)."""
    figures = []
    for figure in (found.floor, found.expected):
        moment = next(m for m in figure.moments if m.name == name)
        figures.append((moment.total(figure.resident_bytes) - moment.engine_bytes) / GIB)
    return figures[0], figures[1]


def measure_trainer(
    arch: Architecture, rank: int, args: argparse.Namespace, peak: DevicePeak
) -> dict[str, tuple[float, float]]:
    """The device's and torch's peak in the log-prob pass and in the update, in GiB."""
    import torch
    import transformers

    gc.collect()
    torch.cuda.empty_cache()
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
    tokens = args.prompt_length + args.response_length
    ids = torch.randint(0, arch.vocab, (args.micro_batch, tokens), device="cuda")
    found: dict[str, tuple[float, float]] = {}

    def scored(logits: Any, targets: Any) -> Any:
        logprobs = torch.log_softmax(logits.float(), dim=-1)
        entropy = -(logprobs.exp() * logprobs).sum(-1)
        return logprobs.gather(-1, targets.unsqueeze(-1)).squeeze(-1), entropy

    # Optimizer states exist from the first step on: take one before measuring, as a run would.
    with torch.autocast("cuda", dtype=torch.bfloat16):
        model(input_ids=ids[:, :8]).logits.float().mean().backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    for name, train in (("the actor's log-prob pass", False), ("the actor's update", True)):
        torch.cuda.reset_peak_memory_stats()
        with peak.watching():
            context = torch.enable_grad() if train else torch.no_grad()
            with context, torch.autocast("cuda", dtype=torch.bfloat16):
                logprobs, entropy = scored(model(input_ids=ids).logits, ids)
                loss = -(logprobs.mean() + 0.001 * entropy.mean())
            if train:
                loss.backward()
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
            del logprobs, entropy, loss
        found[name] = (peak.peak / GIB, torch.cuda.max_memory_allocated() / GIB)
    del model, optimizer, ids
    gc.collect()
    torch.cuda.empty_cache()
    return found


def measure_engine(arch: Architecture, args: argparse.Namespace, peak: DevicePeak) -> tuple[float, float]:
    """The device's peak while vLLM (dummy weights) starts and generates one batch, in GiB."""
    import torch
    import vllm

    with tempfile.TemporaryDirectory() as folder:
        config = transformers_config(arch)
        config.architectures = [type(config).__name__.replace("Config", "ForCausalLM")]
        (Path(folder) / "config.json").write_text(json.dumps(config.to_dict()), "utf-8")
        with peak.watching():
            engine = vllm.LLM(
                model=folder,
                load_format="dummy",
                skip_tokenizer_init=True,
                gpu_memory_utilization=args.engine_fraction,
                max_model_len=args.prompt_length + args.response_length,
                enforce_eager=True,
            )
            prompts = [{"prompt_token_ids": [1] * args.prompt_length} for _ in range(args.micro_batch)]
            engine.generate(prompts, vllm.SamplingParams(max_tokens=args.response_length, ignore_eos=True))
        del engine
    gc.collect()
    torch.cuda.empty_cache()
    return peak.peak / GIB, torch.cuda.max_memory_allocated() / GIB


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="+", default=["Qwen2.5-0.5B", "Qwen2.5-1.5B", "Qwen3-0.6B"])
    parser.add_argument("--lora-rank", nargs="+", type=int, default=[0, 32])
    parser.add_argument("--prompt-length", type=int, default=512)
    parser.add_argument("--response-length", type=int, default=1024)
    parser.add_argument("--micro-batch", type=int, default=1)
    parser.add_argument("--engine-fraction", type=float, help="also start vLLM at this gpu_memory_utilization")
    parser.add_argument("--device", default="H100", help="the device table entry the GPU is (for the plan)")
    parser.add_argument("--json", type=Path, help="also write the rows to this file")
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("measure_memory: torch is not installed; this script needs a CUDA GPU", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("measure_memory: no CUDA GPU here; the estimator's table stays unmeasured", file=sys.stderr)
        return 2
    total = torch.cuda.get_device_properties(0).total_memory / GIB
    peak = DevicePeak()
    print(f"GPU: {torch.cuda.get_device_name()} ({total:.1f} GiB), torch {torch.__version__}")
    print(
        f"{'model':<14}{'LoRA':>5}  {'moment':<28}{'floor':>8}{'expected':>10}{'device':>9}{'torch':>8}{'exp/dev':>9}"
    )
    rows: list[Measured] = []
    for name in args.models:
        arch = bundled(name)
        if arch is None:
            print(f"{name}: not a bundled model", file=sys.stderr)
            continue
        for rank in args.lora_rank:
            found = estimate(arch, plan(arch, rank, args, total))
            for moment, (device, allocated) in measure_trainer(arch, rank, args, peak).items():
                floor, expected = moment_figures(found, moment)
                rows.append(Measured(name, rank, moment, floor, expected, device, allocated))
        if args.engine_fraction:
            found = estimate(arch, plan(arch, 0, args, total))
            device, allocated = measure_engine(arch, args, peak)
            rows.append(Measured(name, 0, "generation", found.floor.engine_claim / GIB,
                                 found.expected.engine_claim / GIB, device, allocated))  # fmt: skip
    for r in rows:
        print(
            f"{r.model:<14}{r.rank:>5}  {r.moment:<28}{r.floor_gib:>8.2f}{r.expected_gib:>10.2f}"
            f"{r.device_gib:>9.2f}{r.torch_gib:>8.2f}{r.ratio:>9.2f}"
        )
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in rows], indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
