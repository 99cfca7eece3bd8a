"""``rlresources estimate``: the memory an RL run needs -- a floor that must fit, and an expected peak.

Either a run described by flags (``--model``, ``--task``, ``--gpus``, ``--device`` and
the settings that matter), or a row of the data (``--row data/7b.yaml:LINE``) with the
settings its script sets.  The flags become the same framework-neutral ``Run`` a script
reader fills, so a flag left out and a script that is silent assume the same value (the
output names each).  The text shows every term, moment by moment, so a reader sees where
the memory goes; ``--format json`` gives the same as data (:mod:`.estimate_output`).
The arithmetic lives in :mod:`sphinx_rlresources.estimator`; docs/estimator.rst explains it.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from sphinx_rlresources.cli import estimate_suggest
from sphinx_rlresources.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    PROG,
    CliError,
    Lines,
    data_and_root,
    load_options,
    load_project,
    tell,
)
from sphinx_rlresources.cli.estimate_output import as_json, as_text
from sphinx_rlresources.core import git, plausibility, rowscript
from sphinx_rlresources.core.diagnostics import Subtype, relpath
from sphinx_rlresources.core.loader import load_dataset
from sphinx_rlresources.core.model import Entry
from sphinx_rlresources.estimator.architectures import (
    BUNDLED,
    Architecture,
    ConfigError,
    bundled,
    from_config,
    unknown_targets,
)
from sphinx_rlresources.estimator.devices import DEVICES, canonical, device_memory, node_memory
from sphinx_rlresources.estimator.fromscript import BOUNDS, ENGINE_SETTINGS, REPLICATED_BACKENDS, Row, plan_for_row
from sphinx_rlresources.estimator.memory import (
    ALGORITHMS,
    ENGINES,
    OFFLOAD_MODES,
    TRAIN_BACKENDS,
    Plan,
    Result,
    algorithm_of,
    estimate,
    known_task,
    minimum_gpus,
)
from sphinx_rlresources.estimator.plan import NO_ENGINE, TRAINER_GENERATES
from sphinx_rlresources.safe.text import json_text, shown
from sphinx_rlresources.scripts.frameworks import vocabulary_of
from sphinx_rlresources.scripts.run import Found, Origin, Role, Run

POOLS = (
    ("--rollout-gpus", "rollout", "GPUs of the engine alone (default: colocated, none)"),
    ("--ref-gpus", "reference", "GPUs of the reference model alone, with --kl (default: on the trainer's)"),
    ("--critic-gpus", "critic", "GPUs of the critic alone, for a task that trains one (default: on the trainer's)"),
    (
        "--reward-gpus",
        "reward",
        "GPUs of a reward model of the actor's shape, alone (default: none, a rule or remote reward)",
    ),
)
"""The roles a run places on GPUs of their own: each one's flag, its role in a ``Run``, its help."""
MAX_GPUS = 1 << 20
MAX_DEVICE_GIB = 16384.0
MAX_HOST_GIB = 1 << 24
FRAMEWORKS = ("verl", "trl", "prime-rl", "openrlhf", "nemo-rl")
"""Frameworks whose defaults the flags can stand for, each from its adapter's vocabulary
(``--framework verl``: fp32 FSDP parameters, no offload, offload by phase when asked, a 0.5
engine budget; ``--framework trl``: no offload and no engine, transformers' ``generate``
inside the trainer, as ``use_vllm`` defaults to false; ``--framework prime-rl``: fp32 parameters, the
optimizer states in host memory, a 0.9 engine budget; ``--framework openrlhf``: bf16 parameters
that never leave the GPU, no Adam offload, ZeRO-2, no recomputation, a 0.95 engine budget;
``--framework nemo-rl``: fp32 DTensor parameters, bf16 Megatron gradients, the states off the
GPU while a colocated engine generates, a 0.6 engine budget)."""


def _whole(flag: str, low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high``, refused with both bounds named."""

    def convert(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{shown(text)} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{shown(value)} is outside {low}..{high:,} for {flag}")
        return value

    return convert


def _real(flag: str, low: float, high: float, open_low: bool = True) -> Callable[[str], float]:
    """An argparse type: a finite number in (``low``, ``high``] (1e400 and nan are refused)."""

    def convert(text: str) -> float:
        try:
            value = float(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{shown(text)} is not a number") from None
        if not math.isfinite(value) or value > high or value < low or (open_low and value == low):
            bound = f"above {low:g}" if open_low else f"at least {low:g}"
            raise argparse.ArgumentTypeError(f"{shown(text)} is not a number {bound} and at most {high:g} for {flag}")
        return value

    return convert


def _bounded(flag: str, field: str) -> Callable[[str], int]:
    low, high = BOUNDS[field]
    return _whole(flag, int(low), int(high))


def _switch(group: Any, name: str, dest: str, on: str, off: str) -> None:
    pair = group.add_mutually_exclusive_group()
    pair.add_argument(f"--{name}", dest=dest, action="store_true", default=None, help=on)
    pair.add_argument(f"--no-{name}", dest=dest, action="store_false", help=off)


SILENT_NOTE = "default: what a silent script assumes"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Every flag; docs/estimator.rst lists each with an example (and a test runs every example)."""
    run = parser.add_argument_group(
        "a run described by flags",
        "--model and --device are needed together; a flag left out assumes what a silent script assumes",
    )
    add = run.add_argument
    add(
        "--model",
        metavar="MODEL",
        help="a bundled model name (Qwen2.5-7B, Llama-3.1-8B, ...), a hub id or a config.json path; needed, with "
        "--device, unless --row (a name read as another bundled one is said on stderr)",
    )
    add(
        "--device",
        metavar="DEVICE",
        help=f"one of {', '.join(DEVICES)}, or any name with --device-memory; needed, with --model, unless --row "
        "(A100 is A100-80G: a name read as another is said on stderr)",
    )
    tasks = ", ".join(t.upper() for t in ALGORITHMS)
    add("--task", metavar="TASK", default="GRPO", help=f"{tasks}, each also with -LoRA (default GRPO: full training)")
    add("--gpus", metavar="N", type=_whole("--gpus", 1, MAX_GPUS), help="GPUs in all (default 8; --min-gpus searches)")
    add("--device-memory", metavar="GIB", type=_real("--device-memory", 0, MAX_DEVICE_GIB),
        help="GiB per GPU (default: the device table's)")  # fmt: skip
    add("--host-memory", metavar="GIB", type=_real("--host-memory", 0, MAX_HOST_GIB),
        help="host GiB per node (default: a DGX node's where standard, else not checked)")  # fmt: skip
    add("--gpus-per-node", metavar="N", type=_bounded("--gpus-per-node", "gpus_per_node"), help="(default 8)")
    add("--framework", choices=FRAMEWORKS,
        help="assume its defaults where a flag is left out, for the expected peak (default: none)")  # fmt: skip
    add("--train", choices=(*TRAIN_BACKENDS, *REPLICATED_BACKENDS),
        help="the training backend (default fsdp, ddp with --framework trl); ddp, or single for one process, is "
        "plain PyTorch: every state whole on each GPU in --dtype, nothing offloaded")  # fmt: skip
    add("--zero-stage", type=int, choices=range(4), metavar="{0,1,2,3}",
        help="how the fsdp backend shards the trainer's states, as DeepSpeed's ZeRO stages: 3 shards "
        "parameters, gradients and optimizer states; 2 and 1 fewer; 0 none (default 3; 2 with --framework "
        "openrlhf)")  # fmt: skip
    for flag, field, what in (
        ("--train-tp", "train_tp", "Megatron tensor parallelism"),
        ("--train-pp", "train_pp", "Megatron pipeline parallelism"),
        ("--train-ep", "train_ep", "Megatron expert parallelism"),
        ("--train-cp", "train_cp", "Megatron context parallelism"),
        ("--ulysses-sp", "ulysses_sp", "Ulysses sequence parallelism"),
    ):
        add(flag, metavar="N", type=_bounded(flag, field), help=f"{what} ({SILENT_NOTE})")
    add("--dtype", choices=("bfloat16", "float16", "float32"),
        help="the dtype the model is loaded in, TRL's --dtype: --train ddp keeps every state in it (default "
        "bfloat16; DeepSpeed and FSDP keep an fp32 master whatever it is)")  # fmt: skip
    add("--lora-rank", metavar="RANK", type=_bounded("--lora-rank", "lora_rank"),
        help="LoRA rank (default: 32 for a task ending in -LoRA, else none)")  # fmt: skip
    add("--lora-targets", metavar="MODULES", help="PEFT target_modules (default all-linear; or q_proj,v_proj,...)")
    _switch(
        run,
        "offload",
        "offload",
        "offload parameters and optimizer states (unsaid: --framework's default, else offloaded)",
        "keep them on the GPU",
    )
    add("--offload-mode", choices=OFFLOAD_MODES,
        help="phase (verl's), compute (FSDP2, ZeRO-Offload; the default without --framework) "
             "or step (the optimizer states back for step() alone: prime-rl's)")  # fmt: skip
    _switch(
        run,
        "ref-offload",
        "ref_offload",
        "offload the reference model (unsaid: --framework's default, else offloaded)",
        "keep it on the GPU",
    )
    _switch(run, "kl", "kl", "load a reference model for KL", "no reference model (the default)")
    _switch(run, "critic", "critic", "train a critic (PPO's default)", "no critic")
    tokens = ("--prompt-length", "prompt_length", "max prompt tokens (default 512)"), (
        "--response-length", "response_length", "max response tokens (default 1024)")  # fmt: skip
    for flag, field, what in tokens:
        add(flag, metavar="TOKENS", type=_bounded(flag, field), help=what)
    add("--mean-prompt-length", metavar="TOKENS", type=_bounded("--mean-prompt-length", "prompt_length"),
        help="the real mean, for the expected peak (default: the maximum)")  # fmt: skip
    add("--mean-response-length", metavar="TOKENS", type=_bounded("--mean-response-length", "response_length"),
        help="the real mean, for the expected peak (default: the maximum)")  # fmt: skip
    add("--micro-batch", metavar="SEQS", type=_bounded("--micro-batch", "micro_batch_per_gpu"),
        help="sequences per GPU per update pass (default 1)")  # fmt: skip
    add("--log-prob-micro-batch", metavar="SEQS",
        type=_bounded("--log-prob-micro-batch", "log_prob_micro_batch_per_gpu"),
        help="sequences per GPU per log-prob pass (default: as --micro-batch)")  # fmt: skip
    add("--token-budget", metavar="TOKENS", type=_bounded("--token-budget", "max_token_len_per_gpu"),
        help="dynamic batching's tokens per GPU (default: no dynamic batching)")  # fmt: skip
    add("--keep-padding", action="store_true", help="sequences are padded to the maximum lengths")
    add("--rollout-n", metavar="N", type=_bounded("--rollout-n", "rollout_n"), help="responses per prompt (default 1)")
    add("--train-batch", metavar="PROMPTS", type=_bounded("--train-batch", "train_batch_size"),
        help="prompts per step (default: not stated)")  # fmt: skip
    add("--rollout-tp", metavar="TP", type=_bounded("--rollout-tp", "rollout_tp"),
        help="rollout tensor parallelism (default: the largest the heads allow)")  # fmt: skip
    add("--gpu-memory-utilization", metavar="FRACTION", type=_real("--gpu-memory-utilization", 0, 1),
        help="the engine's claim, vLLM's gpu_memory_utilization or SGLang's mem_fraction_static (default: not "
        "stated, the weights and KV cache it uses; 0.5 with --framework verl)")  # fmt: skip
    add("--engine", choices=(*ENGINES, NO_ENGINE),
        help="the rollout engine (default vllm; none: no engine, the trainer generates or only trains; none with "
        "--framework trl)")  # fmt: skip
    add("--max-num-seqs", metavar="SEQS", type=_bounded("--max-num-seqs", "max_num_seqs"),
        help="the engine's batch limit (default 256, vLLM's)")  # fmt: skip
    add("--fp8-rollout", action="store_true", default=None, help="fp8 rollout weights")
    add("--free-cache-engine", dest="free_cache", action=argparse.BooleanOptionalAction, default=None,
        help="whether the engine sleeps, giving its claim back while the trainer runs (default: it sleeps; with "
        "--framework openrlhf or trl it does not)")  # fmt: skip
    for flag, _role, what in POOLS:
        add(flag, metavar="N", type=_bounded(flag, "rollout_gpus"), help=what)
    add("--entropy-checkpointing", action="store_true", default=None, help="recompute the entropy in the update")
    add("--entropy-chunking", action="store_true", default=None, help="chunked entropy in the log-prob pass")
    add("--fused-kernels", action="store_true", default=None, help="fused log-prob and entropy kernels")
    add("--no-gradient-checkpointing", dest="checkpointing", action="store_false", default=None,
        help="keep every activation (default: recomputation on)")  # fmt: skip
    _switch(run, "activation-offload", "activation_offload",
            "the recomputed layers' inputs wait in host memory (prime-rl's model.ac_offloading)",
            "they stay on the GPU (unsaid: --framework's default, else on the GPU)")  # fmt: skip
    answers = parser.add_argument_group("answers (with flags or --row)")
    answers.add_argument(
        "--min-gpus", action="store_true", help="search the fewest GPUs of the device on which the run fits"
    )
    answers.add_argument(
        "--suggest",
        action="store_true",
        help="the settings that fit: the largest micro-batch (or token budget) and engine share, the offload and "
        "parallelism needed, the fewest GPUs, as the framework's own overrides",
    )
    row = parser.add_argument_group("a row of the data")
    row.add_argument(
        "--row",
        metavar="FILE:LINE",
        help="estimate the row at (or starting before) LINE of a data file, with its script's settings; needed "
        "instead of --model and --device (only the mean lengths, --host-memory, --min-gpus, --suggest and --format "
        "may be added)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text", help="the output format (default text)")


def said_as(flag: str, given: str, name: str) -> None:
    """Say on stderr when a name was read as another (``A100`` is A100-80G), so no one is surprised later.

    Case alone is not worth a line; any other difference is, since the output then
    describes a different device or model than the one typed.
    """
    if given.strip().lower() != name.lower():
        tell(f"{PROG}: note: {flag} {shown(given)} is read as {name}")


#: flags that describe the data rather than a script's settings: they apply with --row too
FACT_FLAGS = ("mean_prompt_length", "mean_response_length", "host_memory", "format", "min_gpus", "suggest")


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
    raise CliError(f"--model {shown(name)} is neither a bundled model ({known}) nor a config.json file")


def _set(value: Any) -> Found[Any]:
    return Found(value, Origin.SET) if value is not None else Found()


def run_from_flags(args: argparse.Namespace) -> Run:
    """The flags as the ``Run`` a script reader would fill: a flag left out is a setting left unsaid."""
    offload = args.offload
    words = vocabulary_of(args.framework)
    fraction = _set(args.gpu_memory_utilization)
    if not fraction.known and words is not None and words.memory_fraction is not None:
        fraction = Found(words.memory_fraction, Origin.FRAMEWORK_DEFAULT)
    roles = tuple(Role(role, _set(count)) for flag, role, _what in POOLS if (count := _pool(args, flag)))
    return Run(
        framework=args.framework,
        train_backend=_set(args.train),
        zero_stage=_set(args.zero_stage),
        param_dtype=_set(args.dtype),
        train_tp=_set(args.train_tp),
        train_pp=_set(args.train_pp),
        train_ep=_set(args.train_ep),
        train_cp=_set(args.train_cp),
        ulysses_sp=_set(args.ulysses_sp),
        lora_rank=_set(args.lora_rank),
        lora_targets=_set(args.lora_targets),
        critic=_set(args.critic),
        use_kl=_set(args.kl),
        prompt_length=_set(args.prompt_length),
        response_length=_set(args.response_length),
        train_batch_size=_set(args.train_batch),
        micro_batch_per_gpu=_set(args.micro_batch),
        log_prob_micro_batch_per_gpu=_set(args.log_prob_micro_batch),
        dynamic_batch=_set(True if args.token_budget else None),
        max_token_len_per_gpu=_set(args.token_budget),
        remove_padding=_set(False if args.keep_padding else None),
        rollout_n=_set(args.rollout_n),
        param_offload=_set(offload),
        optimizer_offload=_set(offload),
        ref_param_offload=_set(args.ref_offload),
        offload_mode=_set(args.offload_mode),
        gradient_checkpointing=_set(args.checkpointing),
        activation_offload=_set(args.activation_offload),
        entropy_checkpointing=_set(args.entropy_checkpointing),
        entropy_chunking=_set(args.entropy_chunking),
        fused_kernels=_set(args.fused_kernels),
        engine=_set(args.engine),
        rollout_tp=_set(args.rollout_tp),
        memory_fraction=fraction,
        free_cache_engine=_set(args.free_cache),
        max_num_seqs=_set(args.max_num_seqs),
        fp8_rollout=_set(args.fp8_rollout),
        gpus_per_node=_set(args.gpus_per_node),
        colocated=Found(False, Origin.SET) if args.rollout_gpus else Found(),
        roles=roles,
    )


def _device(args: argparse.Namespace, name: str | None) -> tuple[str, float]:
    if not name:
        raise CliError("--device is needed, e.g. --device H100 (or any name with --device-memory 48)")
    device = canonical(name)
    if args.device_memory is not None:
        return device or name, args.device_memory
    gib = device_memory(name)
    if gib is None or device is None:
        raise CliError(
            f"--device {shown(name)} is not one of {', '.join(DEVICES)}; give its memory with --device-memory GIB"
        )
    said_as("--device", name, device)
    return device, gib


def _facts(plan: Plan, args: argparse.Namespace) -> Plan:
    """What the data says beyond the script: real mean lengths, the node's host memory."""
    host = args.host_memory
    assumed = plan.assumed
    if host is None:
        host = node_memory(plan.device)
        if host is not None:
            assumed = (*assumed, "host_memory_gib")
    return replace(
        plan,
        mean_prompt_length=args.mean_prompt_length,
        mean_response_length=args.mean_response_length,
        host_memory_gib=host,
        assumed=assumed,
    )


ENGINE_FLAGS = {
    "rollout_tp": "--rollout-tp",
    "memory_fraction": "--gpu-memory-utilization",
    "max_num_seqs": "--max-num-seqs",
    "fp8_rollout": "--fp8-rollout",
    "free_cache_engine": "--[no-]free-cache-engine",
}
"""The flag that sets each of the engine's settings (``fromscript.ENGINE_SETTINGS`` says which they are)."""


def _engine_flags(args: argparse.Namespace, settings: Run) -> None:
    """Refuse an engine's settings for a run without one, rather than estimate them away unsaid."""
    words = vocabulary_of(args.framework)
    engine = args.engine or (words.defaults.get("engine") if words is not None else None) or "vllm"
    if engine not in (*TRAINER_GENERATES, NO_ENGINE):
        return
    given = [flag for flag, role, _what in POOLS if role == "rollout" and _pool(args, flag)]
    given += [ENGINE_FLAGS[name] for name in ENGINE_SETTINGS if getattr(settings, name).origin is Origin.SET]
    if given:
        why = "--engine none" if args.engine else f"--framework {args.framework}'s default: no engine"
        verb = "describes" if len(given) == 1 else "describe"
        raise CliError(
            f"{', '.join(given)} {verb} a rollout engine, but the run has none ({why}); "
            "add --engine vllm (or sglang) for a run that generates with one"
        )


def plan_from_flags(args: argparse.Namespace, arch: Architecture, settings: Run) -> Plan:
    """The plan the flags give; ``settings`` is the ``Run`` they make (:func:`run_from_flags`), made once."""
    if not known_task(args.task):
        tasks = ", ".join(t.upper() for t in ALGORITHMS)
        raise CliError(f"--task {shown(args.task)} is not known; the tasks are {tasks}, each also with -LoRA")
    if args.lora_targets and (unknown := unknown_targets(args.lora_targets)):
        raise CliError(
            f"--lora-targets names {', '.join(shown(u) for u in unknown)}, no linear layer of the models counted "
            "here; give all-linear or names such as q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj"
        )
    device, gib = _device(args, args.device)
    gpus = args.gpus or 8
    _engine_flags(args, settings)
    if args.rollout_tp and not args.min_gpus:
        engine = args.rollout_gpus or gpus
        if args.rollout_tp > engine or engine % args.rollout_tp:
            raise CliError(f"--rollout-tp {args.rollout_tp} must divide the engine's {engine} GPUs")
    _check_pools(args, gpus)
    row = Row(arch.name, None, "", args.task, gpus, args.train or "fsdp", args.engine or "vllm")
    plan = plan_for_row(row, settings, device, gib)
    if args.gpus is None:
        plan = replace(plan, assumed=(*plan.assumed, "gpus"))
    return _facts(plan, args)


def _pool(args: argparse.Namespace, flag: str) -> int | None:
    """The GPUs a pool flag (``--ref-gpus``) gave, or None."""
    value: int | None = getattr(args, flag[2:].replace("-", "_"))
    return value


def _check_pools(args: argparse.Namespace, gpus: int) -> None:
    """Each role placed on GPUs of its own needs the model it places, and together they leave the actor some."""
    if args.ref_gpus and not args.kl:
        raise CliError("--ref-gpus places a reference model: add --kl, which loads one")
    critic = args.critic if args.critic is not None else ALGORITHMS.get(algorithm_of(args.task), False)
    if args.critic_gpus and not critic:
        raise CliError("--critic-gpus places a critic: add --critic, or give a task that trains one (PPO)")
    own = [(flag, count) for flag, _role, _what in POOLS if (count := _pool(args, flag))]
    if own and not args.min_gpus and sum(count for _, count in own) >= gpus:
        said = " + ".join(f"{flag} {count}" for flag, count in own)
        raise CliError(f"{said} {'leaves' if len(own) == 1 else 'leave'} none of --gpus {gpus} for the trainer")


def row_estimate(spec: str, args: argparse.Namespace) -> tuple[Entry, Result, Run]:
    """The row at FILE:LINE (any line of the row), estimated with its script's settings."""
    given = [k for k, v in vars(args).items() if v not in (None, False) and k not in (*FACT_FLAGS, "row", "func")]
    given = [k for k in given if k not in ("task", "data", "root", "command")]
    if given:
        flags = ", ".join("--" + k.replace("_", "-") for k in given)
        raise CliError(f"--row takes the run's settings from its script; {flags} cannot be given with it")
    path_text, _, line_text = spec.rpartition(":")
    if not path_text or not line_text.isdigit():
        raise CliError(f"--row {shown(spec)} must be FILE:LINE, e.g. data/7b.yaml:5")
    path, line = Path(path_text), int(line_text)
    if not path.is_file():
        raise CliError(f"--row: the data file {shown(path_text)} does not exist")
    project = load_project()
    args.data = str(path.parent)
    data_dir, root = data_and_root(args, project)
    repo = git.Repo(root)  # the lint's answers serve the row's own reading
    dataset = load_dataset(data_dir, root, load_options(args, project), repo=repo)
    wanted = path.resolve()
    rows = [e for e in dataset.entries if (data_dir / Path(e.source.path).name).resolve() == wanted]
    lines = _line_count(path)
    if line > lines:
        raise CliError(f"--row: {relpath(path)} has {lines} lines; line {line} is past its end")
    rows = [e for e in rows if e.source.line <= line]
    if not rows:
        raise CliError(f"--row: no row of {relpath(path)} starts at or before line {line}")
    entry = max(rows, key=lambda e: e.source.line)
    for problem in dataset.diagnostics:
        if problem.subtype in UNREAD_SCRIPT and problem.json_path.startswith(entry.source.json_path + "."):
            if problem.path != entry.source.path:
                continue
            # The row's script cannot be read: said as lint says it, and the estimate goes on without it.
            tell(replace(problem, severity="warning").format())
            tell(f"{PROG}: note: the estimate takes every setting as a silent script would")
    settings = rowscript.row_script(entry.script, entry.script_ref, root, entry.env, repo).run
    found = plausibility.estimate_row(entry, settings)
    if found is None:
        raise CliError(
            f"the row's device {shown(entry.device)} is not in the device table ({', '.join(DEVICES)}); "
            "rlresources estimate --model ... --device-memory GIB estimates any device"
        )
    plan = _facts(found.plan, args)
    return entry, estimate(found.arch, plan), settings or Run()


UNREAD_SCRIPT = frozenset({Subtype.SCRIPT_MISSING, Subtype.SCRIPT_PATH, Subtype.SCRIPT_FILE})
"""Findings that leave a row without a script to read."""


def _line_count(path: Path) -> int:
    """The lines of a data file the loader already read (and bounded), counted in one pass."""
    with path.open("rb") as handle:
        data = handle.read()
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


def run(args: argparse.Namespace, out: Lines) -> int:
    if args.row:
        _entry, found, settings = row_estimate(args.row, args)
    else:
        if not args.model:
            raise CliError("give --model (with --device), or --row FILE:LINE")
        arch = architecture(args.model)
        settings = run_from_flags(args)
        found = estimate(arch, plan_from_flags(args, arch, settings))
    given = found
    minimum: tuple[int | None, int | None] | None = None
    if args.min_gpus:
        by_expected = minimum_gpus(found.arch, found.plan)
        by_floor = minimum_gpus(found.arch, found.plan, by="floor")
        minimum = (by_expected[0] if by_expected else None, by_floor[0] if by_floor else None)
        if by_expected or by_floor:
            found = (by_expected or by_floor or (0, found))[1]
    if args.suggest:
        return _suggested(given, settings, minimum, args.format, out)
    if args.format == "json":
        out.write(json_text(as_json(found, minimum)))
        out.write("\n")
    else:
        out.write(as_text(found, minimum))
    return EXIT_FINDINGS if found.verdict == "does-not-fit" else EXIT_OK


def _suggested(
    given: Result, settings: Run, minimum: tuple[int | None, int | None] | None, form: str, out: Lines
) -> int:
    """``--suggest``: the settings that fit; with ``--format json`` the estimate of the run as given beside them."""
    found, keys = estimate_suggest.advise(given, settings)
    if form == "json":
        data = as_json(given, minimum)
        data["suggest"] = estimate_suggest.as_json(found, keys, given)
        out.write(json_text(data))
        out.write("\n")
    else:
        out.write(estimate_suggest.as_text(found, keys, given))
    return EXIT_FINDINGS if found is None else EXIT_OK
