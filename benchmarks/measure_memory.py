#!/usr/bin/env python3
"""Measured against estimated: the device's peak in each moment of one RL step, beside the estimator's figures.

Needs a CUDA GPU, ``torch`` and ``transformers`` (``peft`` for the LoRA rows, ``vllm`` for
the engine, ``pynvml`` optional); nothing is downloaded.  The test suite never runs it.
For each bundled model and LoRA rank it:

1. builds the model from the estimator's shape (a transformers config, randomly
   initialised, parameters in fp32 as verl's FSDP actor keeps them);
2. runs the moments the estimator models, on one GPU: the log-prob pass (forward only,
   log-probs and entropy over the vocabulary-wide logits) and the update (bf16 autocast,
   gradient checkpointing unless ``--no-gradient-checkpointing``, ``--micro-batch``
   sequences of ``--prompt-length + --response-length`` tokens, AdamW's step);
3. with ``--engine-fraction`` (and vLLM installed) starts the engine with dummy weights
   at that ``gpu_memory_utilization`` and generates one batch;
4. reads the **device's** peak -- NVML's used memory, or ``total - free`` from
   ``torch.cuda.mem_get_info`` -- from a thread that samples it every millisecond while
   each moment runs.  ``torch.cuda.max_memory_allocated`` is printed beside it but not
   used: it misses the engine's pool (vLLM allocates it outside torch's caching
   allocator), CUDA contexts and the allocator's fragments.

It prints the floor and expected figures of the same plan (one GPU, nothing offloaded,
no reference model) beside the measured peak.  ``--csv`` writes each run as a row of
``memory_points.csv``'s format: ``benchmarks/measured_gpu.csv`` is that output from one
H200, which docs/estimator.rst draws and tests/test_memory_points.py checks.

    python benchmarks/measure_memory.py --models Qwen2.5-0.5B Qwen3-0.6B --lora-rank 0 32
    python benchmarks/measure_memory.py --models Qwen2.5-0.5B --lora-rank 0 --engine-fraction 0.3
    python benchmarks/measure_memory.py --dry-run --models Qwen2.5-0.5B   # the steps at 16+16 tokens on the CPU

A moment's device figure includes what the caching allocator kept from the moment
before (the step's peak, which ``--csv`` writes, is their maximum).  A run that does not
fit is recorded as ``oom`` (an outcome, like the OOM reports of
``memory_points.csv``) and the next one goes on.  ``context`` is what the device held
before the model was built (the CUDA context and torch's kernels): it is part of every
measured peak and of no estimate.
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

from estimator_validation import check, point

from sphinx_rlresources.estimator.architectures import Architecture, bundled
from sphinx_rlresources.estimator.devices import DEVICES
from sphinx_rlresources.estimator.memory import GIB, Result


class DevicePeak:
    """The most memory the device had in use while the block ran, sampled from NVML (or CUDA) in a thread."""

    def __init__(self, index: int = 0, every: float = 0.001, *, cpu: bool = False) -> None:
        self.every = every
        self.peak = 0
        self.cpu = cpu
        self._stop = threading.Event()
        self._used = (lambda: 0) if cpu else self._reader(index)

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

    def synchronize(self) -> None:
        if not self.cpu:
            import torch

            torch.cuda.synchronize()

    def used(self) -> int:
        self.synchronize()
        return self._used()

    @contextmanager
    def watching(self) -> Iterator[DevicePeak]:
        self.peak = self.used()
        self._stop.clear()
        thread = threading.Thread(target=self._sample, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self.synchronize()
            self.peak = max(self.peak, self._used())
            self._stop.set()
            thread.join()


@dataclass
class Measured:
    model: str
    rank: int
    micro_batch: int
    moment: str
    floor_gib: float
    expected_gib: float
    device_gib: float | None
    """None: the run did not fit (``oom``)."""
    torch_gib: float | None
    context_gib: float

    @property
    def ratio(self) -> float | None:
        return self.expected_gib / self.device_gib if self.device_gib else None

    def line(self) -> str:
        def gib(value: float | None) -> str:
            return "oom" if value is None else f"{value:.2f}"

        ratio = "-" if self.ratio is None else f"{self.ratio:.2f}"
        return (
            f"{self.model:<14}{self.rank:>5}{self.micro_batch:>4}  {self.moment:<28}{self.floor_gib:>8.2f}"
            f"{self.expected_gib:>10.2f}{gib(self.device_gib):>9}{gib(self.torch_gib):>8}{self.context_gib:>9.2f}{ratio:>9}"
        )


HEADER = (
    f"{'model':<14}{'LoRA':>5}{'mb':>4}  {'moment':<28}{'floor':>8}{'expected':>10}{'device':>9}{'torch':>8}"
    f"{'context':>9}{'exp/dev':>9}"
)


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
    if arch.experts:
        return moe_config(arch, common)
    if arch.qk_norm:
        return transformers.Qwen3Config(head_dim=arch.dim, **common)
    if arch.qkv_bias:
        return transformers.Qwen2Config(**common)
    return transformers.LlamaConfig(**common)


def moe_config(arch: Architecture, common: dict[str, Any]) -> Any:
    """Qwen3-MoE, Qwen2-MoE or OLMoE, every layer sparse, as their config.json files have it."""
    import transformers

    routed = {"num_experts": arch.experts, "num_experts_per_tok": arch.experts_per_token}
    if arch.qk_norm_whole:  # OLMoE: its experts are intermediate_size wide
        return transformers.OlmoeConfig(**{**common, "intermediate_size": arch.moe_intermediate}, **routed)
    # Qwen's MoE configs: every layer sparse (decoder_sparse_step 1, no mlp_only_layers)
    sparse = {"moe_intermediate_size": arch.moe_intermediate, "decoder_sparse_step": 1, "mlp_only_layers": []}
    if arch.shared_gate:
        shared = arch.shared_experts * arch.moe_intermediate
        return transformers.Qwen2MoeConfig(
            shared_expert_intermediate_size=shared, norm_topk_prob=False, **sparse, **routed, **common
        )
    if not arch.qk_norm or arch.shared_experts or arch.mla:
        raise SystemExit(f"measure_memory: {arch.name}: only Qwen3-MoE, Qwen2-MoE and OLMoE shapes are built")
    return transformers.Qwen3MoeConfig(head_dim=arch.dim, norm_topk_prob=True, **sparse, **routed, **common)


def moment_figures(found: Result, name: str) -> tuple[float, float]:
    """The floor's and the expected figure of one moment (resident included, the engine's claim not)."""
    figures = []
    for figure in (found.floor, found.expected):  # an update of one micro-batch is two moments (its parts)
        parts = [m for m in figure.moments if m.name == name or m.name.startswith(f"{name}: ")]
        figures.append(max((m.total(figure.resident_bytes) - m.engine_bytes) / GIB for m in parts))
    return figures[0], figures[1]


MOMENTS = ("the actor's log-prob pass", "the actor's update")


ENTROPY_CHUNK = 2048
"""Tokens per chunk of ``entropy_from_logits_with_chunking`` (verl's chunk size)."""


def _entropy(logits: Any) -> Any:
    import torch

    probabilities = torch.softmax(logits, dim=-1)
    return torch.logsumexp(logits, dim=-1) - torch.sum(probabilities * logits, dim=-1)


def score_verl(logits: Any, ids: Any, responses: int, entropy: str) -> tuple[Any, Any]:
    """Log-probs (and the entropy) of the response tokens, as verl's FSDP actor scores a padded batch.

    The idiom of verl's ``dp_actor._forward_micro_batch`` (without padding removal) and of
    ``verl/utils/torch_functional.py`` when flash-attn's fused cross-entropy is absent: the
    bf16 logits of the responses, log-probs one sequence at a time (``logprobs_from_logits_v2``)
    and the entropy as ``logsumexp - sum(softmax * logits)`` (``entropy_from_logits``), or
    that over 2,048 tokens at a time (``entropy_from_logits_with_chunking``).  ``entropy``:
    ``full``, ``chunked`` or ``none`` (an update whose ``entropy_coeff`` is 0).
    """
    import torch

    logits = logits[:, -responses - 1 : -1, :]
    targets = ids[:, -responses:]
    rows = [
        torch.log_softmax(row, dim=-1).gather(-1, t.unsqueeze(-1)).squeeze(-1)
        for row, t in zip(logits, targets, strict=True)
    ]
    if entropy == "none":
        return torch.stack(rows), None
    if entropy == "chunked":
        flat = logits.reshape(-1, logits.shape[-1])
        parts = [_entropy(flat[i : i + ENTROPY_CHUNK].float()) for i in range(0, flat.shape[0], ENTROPY_CHUNK)]
        return torch.stack(rows), torch.cat(parts).reshape(logits.shape[:-1])
    return torch.stack(rows), _entropy(logits)


def score_fp32(logits: Any, ids: Any, responses: int, entropy: str) -> tuple[Any, Any]:
    """Every token scored over an fp32 copy of the logits: the naive way, an upper reference."""
    import torch

    logprobs = torch.log_softmax(logits.float(), dim=-1)
    found = None if entropy == "none" else -(logprobs.exp() * logprobs).sum(-1)
    return logprobs.gather(-1, ids.unsqueeze(-1)).squeeze(-1), found


def released() -> None:
    import torch

    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def measure_trainer(
    arch: Architecture, rank: int, micro_batch: int, args: argparse.Namespace, peak: DevicePeak
) -> dict[str, tuple[float, float] | None]:
    """The device's and torch's peak in the log-prob pass and in the update, in GiB (None: out of memory)."""
    import torch

    where = "cpu" if peak.cpu else "cuda"
    found: dict[str, tuple[float, float] | None] = dict.fromkeys(MOMENTS)
    released()
    try:
        step(arch, rank, micro_batch, args, peak, where, found)
    except torch.OutOfMemoryError:
        pass  # the moments not reached stay None: this run does not fit
    released()
    return found


def step(
    arch: Architecture,
    rank: int,
    micro_batch: int,
    args: argparse.Namespace,
    peak: DevicePeak,
    where: str,
    found: dict[str, tuple[float, float] | None],
) -> None:
    import torch
    import transformers

    with torch.device(where):
        model = transformers.AutoModelForCausalLM.from_config(
            transformers_config(arch), dtype=torch.float32, attn_implementation="sdpa"
        )
    if args.gradient_checkpointing:
        model.gradient_checkpointing_enable()
    if rank:
        import peft

        target = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
        model = peft.get_peft_model(model, peft.LoraConfig(r=rank, target_modules=target))
    trained = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trained, lr=1e-6, fused=where == "cuda")
    tokens = args.prompt_length + args.response_length
    ids = torch.randint(0, arch.vocab, (micro_batch, tokens), device=where)
    allocated = torch.cuda.max_memory_allocated if where == "cuda" else (lambda: 0)

    scored = score_fp32 if args.scoring == "fp32" else score_verl
    # Optimizer states exist from the first step on: take one before measuring, as a run would.
    with torch.autocast(where, dtype=torch.bfloat16):
        model(input_ids=ids[:, :8]).logits.float().mean().backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    for name, train in zip(MOMENTS, (False, True), strict=True):
        if where == "cuda":
            torch.cuda.reset_peak_memory_stats()
        with peak.watching():
            context = torch.enable_grad() if train else torch.no_grad()
            with context, torch.autocast(where, dtype=torch.bfloat16):
                mode = "chunked" if args.entropy_chunking and not train else "full"
                mode = "none" if train and not args.update_entropy else mode
                logprobs, entropy = scored(model(input_ids=ids).logits, ids, args.response_length, mode)
                loss = -logprobs.mean() if entropy is None else -(logprobs.mean() + 0.001 * entropy.mean())
            if train:
                loss.backward()
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
            del logprobs, entropy, loss
        found[name] = (peak.peak / GIB, allocated() / GIB)


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
            prompts = [{"prompt_token_ids": [1] * args.prompt_length} for _ in range(args.micro_batch[0])]
            engine.generate(prompts, vllm.SamplingParams(max_tokens=args.response_length, ignore_eos=True))
        del engine
    gc.collect()
    torch.cuda.empty_cache()
    return peak.peak / GIB, torch.cuda.max_memory_allocated() / GIB


def parser() -> argparse.ArgumentParser:
    found = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    found.add_argument("--models", nargs="+", default=["Qwen2.5-0.5B", "Qwen2.5-1.5B", "Qwen3-0.6B"])
    found.add_argument("--lora-rank", nargs="+", type=int, default=[0, 32])
    found.add_argument("--prompt-length", type=int, default=512)
    found.add_argument("--response-length", type=int, default=1024)
    found.add_argument("--micro-batch", type=int, nargs="+", default=[1], help="sequences per pass (one run each)")
    found.add_argument("--engine-fraction", type=float, help="also start vLLM at this gpu_memory_utilization")
    found.add_argument("--device", help="the device table entry the GPU is (default: from the GPU's name)")
    found.add_argument("--json", type=Path, help="also write the rows to this file")
    found.add_argument("--csv", type=Path, help="also write each run as a row of memory_points.csv's format")
    found.add_argument("--commit", default="not recorded", help="the commit measured (and its date), for the citation")
    found.add_argument(
        "--scoring",
        choices=["verl", "fp32"],
        default="verl",
        help="verl: the responses' log-probs and entropy as verl's actor computes them (default);"
        " fp32: every token over an fp32 copy of the logits",
    )
    found.add_argument(
        "--no-update-entropy",
        dest="update_entropy",
        action="store_false",
        help="the update computes log-probs only (verl's entropy_coeff=0)",
    )
    found.add_argument(
        "--entropy-chunking",
        action="store_true",
        help="the log-prob pass computes the entropy 2,048 tokens at a time (entropy_from_logits_with_chunking)",
    )
    found.add_argument(
        "--no-gradient-checkpointing",
        dest="gradient_checkpointing",
        action="store_false",
        help="keep every layer's activations for the backward pass (TinyZero's PPO recipe)",
    )
    found.add_argument("--dry-run", action="store_true", help="run the steps on the CPU at 16+16 tokens; no figures")
    return found


def the_gpu(args: argparse.Namespace, peak: DevicePeak) -> tuple[float, str]:
    """The device's memory in GiB and its name; ``args.device`` set to its table entry."""
    import torch

    if args.dry_run:
        args.device = args.device or "H100"
        return 80.0, "the CPU (dry run)"
    torch.cuda.init()
    torch.empty(1, device="cuda")  # the context and torch's kernels, before any model
    name = torch.cuda.get_device_name()
    longest_first = sorted(DEVICES, key=len, reverse=True)  # an "H200" is no "H20"
    args.device = args.device or next((d for d in longest_first if d.lower() in name.lower()), "H100")
    return torch.cuda.get_device_properties(0).total_memory / GIB, name


#: memory_points.csv's settings for what measure_trainer runs (one GPU, verl's FSDP actor
#: keeping fp32 parameters, no engine on the GPU, no reference model, nothing offloaded).
RUN_SETTINGS = {
    "outcome": "ran", "counter": "none", "gpus": "1", "framework": "verl", "train": "fsdp",
    "dynamic_batch": "false", "remove_padding": "false", "rollout_n": "1", "param_offload": "false",
    "optimizer_offload": "false",
    "fused_kernels": "false", "use_kl": "false", "critic": "false", "repository": "this repository",
    "source": "benchmarks/measure_memory.py",
}  # fmt: skip


def settings(model: str, rank: int, micro_batch: int, args: argparse.Namespace) -> dict[str, str]:
    """The run as a row of memory_points.csv: what the script estimates it by, and what ``--csv`` writes."""
    variant = ("" if args.update_entropy else "-noent") + ("-chunked" if args.entropy_chunking else "")
    variant += "" if args.gradient_checkpointing else "-nockpt"
    if (args.prompt_length, args.response_length) != (512, 1024):  # the defaults' rows keep their ids
        variant = f"-p{args.prompt_length}-r{args.response_length}{variant}"
    return {
        **RUN_SETTINGS,
        "id": f"{args.device.lower()}-{model.lower()}-{'lora' if rank else 'full'}-mb{micro_batch}{variant}",
        "model": model, "task": "GRPO-LoRA" if rank else "GRPO", "device": args.device,
        "engine": "vllm" if args.engine_fraction else "none",
        "gpu_memory_utilization": str(args.engine_fraction or ""),
        "update_entropy": str(args.update_entropy).lower(), "entropy_chunking": str(args.entropy_chunking).lower(),
        "gradient_checkpointing": str(args.gradient_checkpointing).lower(),
        "micro_batch": str(micro_batch), "log_prob_micro_batch": str(micro_batch),
        "train_batch": str(micro_batch), "mini_batch": str(micro_batch),
        "prompt_length": str(args.prompt_length), "response_length": str(args.response_length),
        "lora_rank": str(rank), "commit": args.commit,
    }  # fmt: skip


def estimated(values: dict[str, str]) -> Result:
    """The estimate of a run, by the same code that checks the validation sets."""
    return check(point(values, 0)).result


def validation_rows(
    rows: list[Measured], args: argparse.Namespace, source: str, environment: str = ""
) -> list[dict[str, str]]:
    """One memory_points.csv row per run: the device's peak over the step's moments, or ``oom``."""
    runs: dict[tuple[str, int, int], list[Measured]] = {}
    for r in rows:
        if r.moment in MOMENTS:
            runs.setdefault((r.model, r.rank, r.micro_batch), []).append(r)
    found = []
    for (model, rank, micro_batch), moments in runs.items():
        failed = next((m.moment for m in moments if m.device_gib is None), None)
        if failed is not None:  # out of memory: an outcome to call, no peak to compare
            found.append({
                **settings(model, rank, micro_batch, args), "outcome": "oom", "source": source,
                "note": f"out of memory in or before {failed}; CUDA context {moments[0].context_gib:.2f} GiB;"
                f" scoring {args.scoring}{environment}",
            })  # fmt: skip
            continue
        top = max(moments, key=lambda m: m.device_gib or 0.0)
        found.append({
            **settings(model, rank, micro_batch, args),
            "counter": "device-trainer", "measured_gib": f"{top.device_gib:.2f}", "source": source,
            "note": f"{top.moment}; torch's max_memory_allocated {top.torch_gib:.2f} GiB;"
            f" CUDA context {top.context_gib:.2f} GiB; scoring {args.scoring}{environment}",
        })  # fmt: skip
    return found


def write_csv(path: Path, found: list[dict[str, str]]) -> None:
    import csv

    columns = (Path(__file__).parent / "memory_points.csv").read_text("utf-8").splitlines()[0].split(",")
    with path.open("w", encoding="utf-8", newline="") as stream:
        writer = csv.DictWriter(stream, columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(found)


def measure(args: argparse.Namespace, peak: DevicePeak, context: float) -> list[Measured]:
    rows: list[Measured] = []
    for model in args.models:
        arch = bundled(model)
        if arch is None:
            print(f"{model}: not a bundled model", file=sys.stderr)
            continue
        for rank in args.lora_rank:
            if rank and arch.experts:  # transformers 5 keeps each layer's experts in fused tensors
                print(f"{model}: LoRA skipped: PEFT's target_modules reach no expert of a fused MoE", file=sys.stderr)
                continue
            for micro_batch in args.micro_batch:
                found = estimated(settings(model, rank, micro_batch, args))
                for moment, measured in measure_trainer(arch, rank, micro_batch, args, peak).items():
                    floor, expected = moment_figures(found, moment)
                    device, allocated = measured or (None, None)
                    rows.append(Measured(model, rank, micro_batch, moment, floor, expected, device, allocated, context))
                    print(rows[-1].line(), flush=True)
        if args.engine_fraction:
            found = estimated(settings(model, 0, args.micro_batch[0], args))
            device, allocated = measure_engine(arch, args, peak)
            rows.append(Measured(model, 0, args.micro_batch[0], "generation", found.floor.engine_claim / GIB,
                                 found.expected.engine_claim / GIB, device, allocated, context))  # fmt: skip
            print(rows[-1].line(), flush=True)
        if args.json:  # after each model: a run stopped at its time limit keeps what it measured
            args.json.write_text(json.dumps([r.__dict__ for r in rows], indent=1), "utf-8")
    return rows


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.dry_run:
        args.prompt_length = args.response_length = 16
    try:
        import torch
    except ImportError:
        print("measure_memory: torch is not installed; this script needs a CUDA GPU", file=sys.stderr)
        return 2
    if not (args.dry_run or torch.cuda.is_available()):
        print("measure_memory: no CUDA GPU here; the estimator's table stays unmeasured", file=sys.stderr)
        return 2
    peak = DevicePeak(cpu=args.dry_run)
    total, name = the_gpu(args, peak)
    context = peak.used() / GIB
    print(f"GPU: {name} ({total:.1f} GiB, planned as {args.device}; context {context:.2f} GiB)")
    print(
        f"torch {torch.__version__}, scoring {args.scoring}, update entropy {args.update_entropy},"
        f" chunked log-prob entropy {args.entropy_chunking}"
    )
    print(HEADER, flush=True)
    rows = measure(args, peak, context)
    if args.csv:
        import transformers

        environment = f"; torch {torch.__version__}, transformers {transformers.__version__}"
        source = f"benchmarks/measure_memory.py, {name}"
        write_csv(args.csv, validation_rows(rows, args, source, environment))
    return 0


if __name__ == "__main__":
    sys.exit(main())
