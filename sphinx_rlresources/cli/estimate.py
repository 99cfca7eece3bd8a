"""``rlresources estimate``: a lower bound of the memory an RL run needs, before anyone runs it.

Either a run described by flags (``--model``, ``--task``, ``--gpus``, ``--device`` and
the settings that matter), or a row of the data (``--row data/7b.yaml:LINE``) with the
settings its script sets.  The text format shows every term per phase, so a reader sees
where the memory goes; ``--format json`` gives the same as data.  The arithmetic lives
in :mod:`sphinx_rlresources.estimator`; docs/estimator.rst explains it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path, PurePosixPath
from typing import Any, TextIO

from sphinx_rlresources.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    PROG,
    CliError,
    data_and_root,
    load_options,
    load_project,
    positive,
)
from sphinx_rlresources.core import git, plausibility, rowscript
from sphinx_rlresources.core.diagnostics import relpath
from sphinx_rlresources.core.loader import load_dataset
from sphinx_rlresources.core.model import Entry
from sphinx_rlresources.core.paths import read_regular
from sphinx_rlresources.estimator.architectures import BUNDLED, Architecture, ConfigError, bundled, from_config
from sphinx_rlresources.estimator.devices import DEVICES, canonical, device_memory
from sphinx_rlresources.estimator.memory import ENGINES, Estimate, Plan, estimate, minimum_gpus
from sphinx_rlresources.scripts.reader import read_script
from sphinx_rlresources.scripts.settings import ScriptSettings

DEFAULT_PROMPT = 512
DEFAULT_RESPONSE = 1024

PHASES = (
    ("resident", "resident on each GPU in both phases"),
    ("train", "training phase adds"),
    ("rollout", "rollout phase adds"),
    ("host", "host memory, per node"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    run = parser.add_argument_group(
        "a run described by flags", "--model and --device are needed together; the rest have defaults"
    )
    run.add_argument(
        "--model",
        metavar="MODEL",
        help="a bundled model name (Qwen2.5-7B, Llama-3.1-8B, ...) or a config.json path; needed, with "
        "--device, unless --row (a name read as another bundled one is said on stderr)",
    )
    run.add_argument(
        "--device",
        metavar="DEVICE",
        help=f"one of {', '.join(DEVICES)}; needed, with --model, unless --row (A100 is A100-80G: a name "
        "read as another is said on stderr)",
    )
    run.add_argument("--task", metavar="TASK", default="GRPO", help="GRPO, GRPO-LoRA, PPO, DAPO, ... (default GRPO)")
    run.add_argument("--gpus", metavar="N", type=positive(), help="GPUs in all (default 8; with --min-gpus, searched)")
    run.add_argument(
        "--lora-rank",
        metavar="RANK",
        type=positive(),
        help="LoRA rank (default: 32 for a task ending in -LoRA, else none)",
    )
    offload = run.add_mutually_exclusive_group()
    offload.add_argument(
        "--offload", dest="offload", action="store_true", default=None, help="offload parameters and optimizer to host"
    )
    offload.add_argument("--no-offload", dest="offload", action="store_false", help="keep them on the GPUs (default)")
    run.add_argument("--prompt-length", metavar="TOKENS", type=positive(), help="prompt tokens (default 512)")
    run.add_argument("--response-length", metavar="TOKENS", type=positive(), help="response tokens (default 1024)")
    run.add_argument("--micro-batch", metavar="SEQS", type=positive(), help="sequences per GPU per step (default 1)")
    run.add_argument(
        "--rollout-tp",
        metavar="TP",
        type=positive(),
        help="rollout tensor parallelism (default: the one that fits best)",
    )
    run.add_argument(
        "--gpu-memory-utilization",
        metavar="FRACTION",
        type=_fraction,
        default=0.5,
        help="the engine's share of the device (vLLM's gpu_memory_utilization, SGLang's mem_fraction_static; "
        "default 0.5, verl's)",
    )
    run.add_argument("--engine", choices=ENGINES, default="vllm", help="the rollout engine (default vllm)")
    run.add_argument(
        "--no-gradient-checkpointing",
        dest="checkpointing",
        action="store_false",
        help="keep every activation (default: gradient checkpointing on)",
    )
    run.add_argument("--min-gpus", action="store_true", help="search the fewest GPUs of the device that fit")
    row = parser.add_argument_group("a row of the data")
    row.add_argument(
        "--row",
        metavar="FILE:LINE",
        help="estimate the row at (or starting before) LINE of a data file, with its script's settings; "
        "needed instead of --model and --device",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text", help="the output format (default text)")


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{value} is not a fraction between 0 and 1")
    return value


def said_as(flag: str, given: str, name: str) -> None:
    """Say on stderr when a name was read as another (``A100`` is A100-80G), so no one is surprised later.

    Case alone is not worth a line; any other difference is, since the output then
    describes a different device or model than the one typed.
    """
    if given.strip().lower() != name.lower():
        print(f"{PROG}: note: {flag} '{given}' is read as {name}", file=sys.stderr)


def architecture(name: str) -> Architecture:
    found = bundled(name)
    if found is not None:
        said_as("--model", name, found.name)
        return found
    if name.endswith(".json") or ("/" in name and Path(name).exists()):
        try:
            return from_config(Path(name))
        except ConfigError as err:
            raise CliError(str(err)) from None
    known = ", ".join(a.name for a in BUNDLED.values())
    raise CliError(f"--model '{name}' is neither a bundled model ({known}) nor a config.json file")


def plan_from_flags(args: argparse.Namespace, arch: Architecture) -> Plan:
    if not args.device:
        raise CliError("--device is needed, e.g. --device H100")
    gib = device_memory(args.device)
    if gib is None:
        raise CliError(f"--device '{args.device}' is not one of {', '.join(DEVICES)}")
    lora = args.lora_rank or (32 if "lora" in args.task.lower() else 0)
    defaults = {"param_offload": args.offload, "optimizer_offload": args.offload, "gpus": args.gpus}
    defaults.update(prompt_length=args.prompt_length, response_length=args.response_length)
    defaults.update(micro_batch=args.micro_batch, rollout_tp=args.rollout_tp)
    assumed = [name for name, given in defaults.items() if given is None]
    gpus = args.gpus or 8
    if args.rollout_tp and not args.min_gpus and (args.rollout_tp > gpus or gpus % args.rollout_tp):
        raise CliError(f"--rollout-tp {args.rollout_tp} must divide --gpus {gpus}")
    device = canonical(args.device) or args.device
    said_as("--device", args.device, device)
    return Plan(
        task=args.task,
        gpus=gpus,
        device=device,
        device_gib=gib,
        lora_rank=lora,
        param_offload=bool(args.offload),
        optimizer_offload=bool(args.offload),
        gradient_checkpointing=args.checkpointing,
        prompt_length=args.prompt_length or DEFAULT_PROMPT,
        response_length=args.response_length or DEFAULT_RESPONSE,
        micro_batch=args.micro_batch or 1,
        rollout_tp=args.rollout_tp,
        engine=args.engine,
        memory_fraction=args.gpu_memory_utilization,
        assumed=tuple(assumed),
    )


def row_estimate(spec: str, args: argparse.Namespace) -> tuple[Entry, Estimate]:
    """The row at FILE:LINE (any line of the row), estimated with its script's settings."""
    path_text, _, line_text = spec.rpartition(":")
    if not path_text or not line_text.isdigit():
        raise CliError(f"--row '{spec}' must be FILE:LINE, e.g. data/7b.yaml:5")
    path, line = Path(path_text), int(line_text)
    if not path.is_file():
        raise CliError(f"--row: the data file '{path_text}' does not exist")
    project = load_project()
    args.data = str(path.parent)
    data_dir, root = data_and_root(args, project)
    dataset = load_dataset(data_dir, root, load_options(args, project))
    wanted = path.resolve()
    rows = [e for e in dataset.entries if (data_dir / Path(e.source.path).name).resolve() == wanted]
    rows = [e for e in rows if e.source.line <= line]
    if not rows:
        raise CliError(f"--row: no row of {relpath(path)} starts at or before line {line}")
    entry = max(rows, key=lambda e: e.source.line)
    settings = _script_settings(entry, dataset.scripts.get(entry.script), root)
    found = plausibility.estimate_row(entry, settings)
    if found is None:
        raise CliError(f"the row's device '{entry.device}' is not in the device table ({', '.join(DEVICES)})")
    return entry, found


def _script_settings(entry: Entry, path: Path | None, root: Path) -> ScriptSettings | None:
    limit = rowscript.MAX_SCRIPT_BYTES
    if path is not None:
        try:
            return read_script(read_regular(path, limit).decode("utf-8", errors="replace"), entry.env)
        except OSError:
            return None
    if entry.script_ref:
        try:
            pinned = git.read_pinned(root, [(entry.script_ref, PurePosixPath(entry.script).as_posix())], limit)
        except git.GitUnavailable:
            return None
        blob = pinned.files.get((entry.script_ref, PurePosixPath(entry.script).as_posix()))
        if blob is not None and blob.data is not None:
            return read_script(blob.data.decode("utf-8", errors="replace"), entry.env)
    return None


def as_json(found: Estimate, minimum: int | None, searched: bool) -> dict[str, Any]:
    plan = found.plan
    result: dict[str, Any] = {
        "model": found.arch.name,
        "task": plan.task,
        "device": plan.device,
        "params": found.arch.params(),
        "trainable_params": found.arch.lora_params(plan.lora_rank) if plan.lora_rank else found.arch.params(),
        "kv_bytes_per_token": found.arch.kv_bytes_per_token(1),
        "kv_bytes_per_token_per_gpu": found.arch.kv_bytes_per_token(found.rollout_tp),
        "device_memory_gb": round(plan.device_gib, 3),
        "gpus": plan.gpus,
        "per_gpu_gb": {
            "train": round(found.train_gib, 3),
            "rollout": round(found.rollout_gib, 3),
            "peak": round(found.peak_gib, 3),
        },
        "host_gb": round(found.host_gib, 3),
        "engine_budget_gb": round(found.engine_budget / 2**30, 3),
        "verdict": found.verdict,
        "problems": found.problems,
        "terms": [{"phase": t.phase, "name": t.name, "gb": round(t.gib, 3)} for t in found.terms],
        "assumptions": assumptions(found),
        "lower_bound": True,
    }
    if searched:
        result["min_gpus"] = minimum
    return result


def assumptions(found: Estimate) -> dict[str, Any]:
    """Each setting the estimate used, and whether it was given or assumed."""
    plan = found.plan
    values: dict[str, Any] = {
        "lora_rank": plan.lora_rank,
        "train": plan.train,
        "param_offload": plan.param_offload,
        "optimizer_offload": plan.optimizer_offload,
        "gradient_checkpointing": plan.gradient_checkpointing,
        "prompt_length": plan.prompt_length,
        "response_length": plan.response_length,
        "micro_batch": plan.micro_batch,
        "rollout_tp": found.rollout_tp,
        "engine": plan.engine,
        "memory_fraction": plan.memory_fraction,
        "reference_model": plan.kl and not plan.lora_rank,
        "critic": plan.critic,
        "bytes_per_trainable_param": 16,
    }
    return {name: {"value": value, "assumed": name in plan.assumed} for name, value in values.items()}


def as_text(found: Estimate, minimum: int | None, searched: bool) -> str:
    plan, arch = found.plan, found.arch
    lines = [
        f"{arch.name}: {arch.params():,} parameters"
        + (f", {arch.lora_params(plan.lora_rank):,} trainable (LoRA rank {plan.lora_rank})" if plan.lora_rank else "")
        + f"; {plan.task} on {plan.gpus}*{plan.device} ({plan.device_gib:.1f} GiB each)",
        "A lower bound: measured peaks are higher (allocator, buffers, weight synchronisation).",
        "",
    ]
    for phase, title in PHASES:
        terms = [t for t in found.terms if t.phase == phase]
        if not terms:
            continue
        lines.append(f"  {title:<70}{'GiB':>9}")
        lines.extend(f"    {t.name:<68}{t.gib:>9.2f}" for t in terms)
    lines += [
        "",
        f"  training phase, per GPU{'':<47}{found.train_gib:>9.2f}",
        f"  rollout phase, per GPU{'':<48}{found.rollout_gib:>9.2f}",
        f"  peak per GPU (the larger phase){'':<39}{found.peak_gib:>9.2f}",
        f"  host memory per node{'':<50}{found.host_gib:>9.2f}",
        f"  the engine's budget ({plan.memory_fraction:g} of the device){'':<31}{found.engine_budget / 2**30:>9.2f}",
        "",
        f"verdict: {found.verdict} (>= {found.peak_gib:.1f} of {plan.device_gib:.1f} GiB per GPU)",
    ]
    lines.extend(f"  {problem}" for problem in found.problems)
    if searched:
        lines.append(
            f"fewest GPUs: {minimum}*{plan.device} (rollout TP={found.rollout_tp})"
            if minimum
            else f"fewest GPUs: none up to 4096 {plan.device} fit"
        )
    taken = [f"{k}={v['value']}" for k, v in assumptions(found).items() if v["assumed"]]
    if taken:
        lines.append(f"assumed (not given): {', '.join(taken)}")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace, out: TextIO) -> int:
    minimum: int | None = None
    if args.row:
        _entry, found = row_estimate(args.row, args)
    else:
        if not args.model:
            raise CliError("give --model (with --device), or --row FILE:LINE")
        arch = architecture(args.model)
        plan = plan_from_flags(args, arch)
        if args.min_gpus:
            searched = minimum_gpus(arch, plan)
            if searched is None:
                found = estimate(arch, plan)
            else:
                minimum, found = searched
        else:
            found = estimate(arch, plan)
    if args.format == "json":
        json.dump(as_json(found, minimum, args.min_gpus), out, indent=2)
        out.write("\n")
    else:
        out.write(as_text(found, minimum, args.min_gpus))
    return EXIT_FINDINGS if found.verdict == "does-not-fit" else EXIT_OK
