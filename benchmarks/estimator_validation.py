"""The estimator held against real runs: ``benchmarks/memory_points.csv``, read, estimated and compared.

Each row of that file is one published run -- its settings exactly as its script or log
states them, what happened (``ran`` or ``oom``), and, where it was published, the memory
it measured, with the counter that measured it and a citation.  The settings become the
same :class:`~sphinx_rlresources.scripts.run.Run` a script reader fills, so a row is
estimated exactly as ``rlresources estimate --row`` would estimate it.

A measured figure is compared with the part of the estimate its counter sees:

* ``torch+engine`` -- verl's ``perf/max_memory_allocated_gb`` with vLLM inside the
  trainer's process (verl up to January 2026): torch counts vLLM's pool, and keeps
  counting it while the engine sleeps, so it is compared with the estimate of the same
  run whose engine never gives its claim back.  This counter over-states the physical
  peak by what sleep mode frees.  The pool is the claim less what vLLM keeps for its own
  activations and context, which torch does not count, so the floor it is held to
  counts the engine at its least: its weights and one sequence's KV cache;
* ``torch-trainer`` -- the same counter with the engine in processes of its own (SGLang,
  verl's separate vLLM servers): the trainer's own peak, without the engine;
* ``reserved-trainer`` -- ``torch.cuda.max_memory_reserved`` of the trainer alone (prime-rl's
  logged ``peak_memory``): what torch's caching allocator holds, its reserve included, not the CUDA
  context; compared with the trainer's own expected peak less the context;
* ``device`` -- NVML or ``torch.cuda.mem_get_info``: the physical peak, every process;
* ``device-trainer`` -- the same physical peak on a GPU that holds the trainer alone (no
  engine started on it, as ``benchmarks/measure_memory.py`` runs the trainer's moments):
  compared with the trainer's own figures, like ``torch-trainer``;
* ``unstated`` -- a published figure whose counter is not named: the physical peak.

``benchmarks/measured_gpu.csv``, the runs ``benchmarks/measure_memory.py`` measured on a
GPU, has the same format and is read by the same code.  docs/estimator.rst draws both
tables from :func:`checked`, and ``tests/test_memory_points.py`` asserts the two promises
on both: no floor above a measured peak, and no run that ran
called ``does-not-fit``.
"""

from __future__ import annotations

import csv
import statistics
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sphinx_rlresources.estimator.architectures import bundled
from sphinx_rlresources.estimator.devices import canonical, device_memory
from sphinx_rlresources.estimator.fromscript import Row, plan_for_row
from sphinx_rlresources.estimator.memory import BUDGETS, GIB, Estimate, Result, estimate
from sphinx_rlresources.estimator.phases import CUDA_CONTEXT
from sphinx_rlresources.scripts.run import Found, Origin, Role, Run

COUNTERS = ("torch+engine", "torch-trainer", "reserved-trainer", "device", "device-trainer", "unstated")
OUTCOMES = ("ran", "oom")
CITATION = ("repository", "source", "commit")
"""Columns every row must fill: where the figure or outcome was published, and at which commit or date."""

#: CSV column -> (the Run field it fills, its type)
SETTINGS: dict[str, tuple[str, type]] = {
    "train": ("train_backend", str),
    "engine": ("engine", str),
    "rollout_tp": ("rollout_tp", int),
    "gpu_memory_utilization": ("memory_fraction", float),
    "free_cache_engine": ("free_cache_engine", bool),
    "micro_batch": ("micro_batch_per_gpu", int),
    "log_prob_micro_batch": ("log_prob_micro_batch_per_gpu", int),
    "dynamic_batch": ("dynamic_batch", bool),
    "token_budget": ("max_token_len_per_gpu", int),
    "log_prob_token_budget": ("log_prob_max_token_len_per_gpu", int),
    "remove_padding": ("remove_padding", bool),
    "train_batch": ("train_batch_size", int),
    "mini_batch": ("mini_batch_size", int),
    "rollout_n": ("rollout_n", int),
    "prompt_length": ("prompt_length", int),
    "response_length": ("response_length", int),
    "lora_rank": ("lora_rank", int),
    "param_offload": ("param_offload", bool),
    "optimizer_offload": ("optimizer_offload", bool),
    "offload_mode": ("offload_mode", str),
    "compute_copy": ("compute_copy", bool),
    "param_dtype": ("param_dtype", str),
    "ref_offload": ("ref_param_offload", bool),
    "gradient_checkpointing": ("gradient_checkpointing", bool),
    "activation_offload": ("activation_offload", bool),
    "update_entropy": ("update_entropy", bool),
    "fused_kernels": ("fused_kernels", bool),
    "entropy_chunking": ("entropy_chunking", bool),
    "ulysses_sp": ("ulysses_sp", int),
    "train_tp": ("train_tp", int),
    "train_pp": ("train_pp", int),
    "train_ep": ("train_ep", int),
    "train_cp": ("train_cp", int),
    "use_kl": ("use_kl", bool),
    "critic": ("critic", bool),
    "gpus_per_node": ("gpus_per_node", int),
    "zero_stage": ("zero_stage", int),
    "max_total_length": ("max_total_length", int),
}


class PointError(ValueError):
    """A row of the validation set that cannot be read; the message names the row and the column."""


@dataclass(frozen=True)
class Point:
    """One published run."""

    id: str
    outcome: str
    measured_gib: float | None
    counter: str
    row: Row
    run: Run
    device: str
    values: dict[str, str]
    """The row as written, for the table and the citation."""

    @property
    def citation(self) -> str:
        return " ".join(self.values[c] for c in CITATION)


@dataclass(frozen=True)
class Checked:
    """A point with its estimate and the figures its counter sees."""

    point: Point
    result: Result
    floor_gib: float
    expected_gib: float

    @property
    def ratio(self) -> float | None:
        """Expected over measured (None without a measured figure)."""
        measured = self.point.measured_gib
        return self.expected_gib / measured if measured else None


def _value(text: str, kind: type, where: str) -> Any:
    if kind is bool:
        if text.lower() not in ("true", "false"):
            raise PointError(f"{where} must be true or false, not {text!r}")
        return text.lower() == "true"
    try:
        return kind(text)
    except ValueError:
        raise PointError(f"{where} must be a {kind.__name__}, not {text!r}") from None


def point(values: dict[str, str], line: int) -> Point:  # noqa: C901 - one check per column of a validation row
    """One CSV row as a Point (its settings as a Run, as a script reader would fill them)."""
    name = values.get("id", "")
    where = f"line {line} ({name})"
    for column in ("id", "outcome", "counter", "model", "task", "device", "gpus", *CITATION):
        if not values.get(column):
            raise PointError(f"{where}: '{column}' is empty; every row states it")
    if values["outcome"] not in OUTCOMES:
        raise PointError(f"{where}: outcome must be one of {', '.join(OUTCOMES)}")
    if values["counter"] not in (*COUNTERS, "none"):
        raise PointError(f"{where}: counter must be one of {', '.join(COUNTERS)} or none")
    measured = _value(values["measured_gib"], float, f"{where} measured_gib") if values.get("measured_gib") else None
    if (measured is None) != (values["counter"] == "none"):
        raise PointError(f"{where}: a measured figure needs its counter, and the counter 'none' no figure")
    if bundled(values["model"]) is None:
        raise PointError(f"{where}: model {values['model']!r} is not a bundled shape")
    if values.get("budget_of") and values["budget_of"] not in BUDGETS:
        raise PointError(f"{where}: budget_of must be one of {', '.join(BUDGETS)}")
    settings: dict[str, Any] = {}
    for column, (field, kind) in SETTINGS.items():
        if values.get(column):
            settings[field] = Found(_value(values[column], kind, f"{where} {column}"), Origin.SET)
    gpus = _value(values["gpus"], int, f"{where} gpus")
    rollout_gpus = _value(values["rollout_gpus"], int, f"{where} rollout_gpus") if values.get("rollout_gpus") else 0
    roles: list[Role] = []
    if rollout_gpus:
        settings["colocated"] = Found(False, Origin.SET)
        roles.append(Role("rollout", Found(rollout_gpus, Origin.SET)))
    if values.get("ref_gpus"):  # a reference model on GPUs of its own (OpenRLHF without colocate_actor_ref)
        roles.append(Role("reference", Found(_value(values["ref_gpus"], int, f"{where} ref_gpus"), Origin.SET)))
    if roles:
        settings["roles"] = tuple(roles)
    run = Run(framework=values.get("framework") or None, **settings)
    row = Row(values["model"], None, "", values["task"], gpus, values.get("train", ""), values.get("engine", ""))
    return Point(name, values["outcome"], measured, values["counter"], row, run, values["device"], values)


def load(path: Path) -> list[Point]:
    """Every row of the validation set, or :class:`PointError` naming the first bad one."""
    with path.open(encoding="utf-8", newline="") as stream:
        return [point(values, index + 2) for index, values in enumerate(csv.DictReader(stream))]


def check(found: Point) -> Checked:
    """The point's estimate and the figures its counter would see."""
    gib = device_memory(found.device)
    arch = bundled(found.row.model)
    if gib is None or arch is None:
        raise PointError(f"{found.id}: device {found.device!r} or model {found.row.model!r} is not known")
    plan = plan_for_row(found.row, found.run, canonical(found.device) or found.device, gib)
    values = found.values

    def mean(column: str) -> int | None:
        return int(_value(values[column], int, f"{found.id} {column}")) if values.get(column) else None

    plan = replace(
        plan,
        budget_of=values.get("budget_of") or plan.budget_of,
        mean_prompt_length=mean("mean_prompt_length"),
        mean_response_length=mean("mean_response_length"),
    )
    result = estimate(arch, plan)
    if found.counter == "torch+engine":  # torch keeps counting the sleeping engine's pool
        awake = replace(plan, free_cache_engine=False)
        expected = allocated(estimate(arch, awake).expected, trainer=False)
        # torch sees the pool (weights and KV cache), not the part of the claim the engine keeps
        # for its own activations and CUDA context: the least it can see is its weights and one
        # sequence's KV cache, the floor of an engine whose budget is not stated.
        floor = estimate(arch, replace(awake, memory_fraction=None)).floor.peak_gib
    elif found.counter == "torch-trainer":
        floor, expected = result.floor.trainer_gib, allocated(result.expected, trainer=True)
    elif found.counter == "device-trainer":
        floor, expected = result.floor.trainer_gib, result.expected.trainer_gib
    elif found.counter == "reserved-trainer":  # the allocator's reserve, not the context
        floor, expected = result.floor.trainer_gib, result.expected.trainer_gib - CUDA_CONTEXT / GIB
    else:
        floor, expected = result.floor.peak_gib, result.expected.peak_gib
    return Checked(found, result, floor, expected)


def allocated(found: Estimate, trainer: bool) -> float:
    """The peak torch's ``max_memory_allocated`` sees: every moment without what no tensor holds
    (the CUDA context, the allocator's reserve) and, for the trainer's own, without the engine."""
    resident = found.resident_bytes
    totals = [
        m.total(resident) - m.runtime_bytes - (m.engine_bytes if trainer else 0.0)
        for m in found.moments
        if m.with_resident or not trainer
    ]
    return max(totals, default=resident) / GIB


def checked(path: Path) -> list[Checked]:
    return [check(p) for p in load(path)]


def distribution(rows: list[Checked]) -> dict[str, float]:
    """Expected over measured for the measured points: quartiles, and the share within 30%."""
    ratios = sorted(r for c in rows if (r := c.ratio) is not None)
    if not ratios:
        return {"points": 0}
    quartiles = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
    return {
        "points": len(ratios),
        "min": ratios[0],
        "q1": quartiles[0],
        "median": statistics.median(ratios),
        "q3": quartiles[2],
        "max": ratios[-1],
        "within_30_percent": sum(0.7 <= r <= 1.3 for r in ratios) / len(ratios),
    }
