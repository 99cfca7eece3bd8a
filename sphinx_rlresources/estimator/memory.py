"""The memory of an RL run, per GPU and per node: a floor that must fit, and an expected peak.

:func:`estimate` gives both figures for a :class:`~.plan.Plan` (the records are in
:mod:`.plan`, the terms and their sources in :mod:`.phases`); :func:`minimum_gpus`
searches the fewest GPUs.  docs/estimator.rst explains the model and its validation.
"""

from __future__ import annotations

from sphinx_rlresources.estimator.architectures import Architecture
from sphinx_rlresources.estimator.phases import build
from sphinx_rlresources.estimator.plan import (
    ALGORITHMS,
    BUDGETS,
    ENGINES,
    GIB,
    MARGIN,
    OFFLOAD_MODES,
    TRAIN_BACKENDS,
    VERDICTS,
    Estimate,
    Moment,
    Plan,
    Result,
    Term,
    algorithm_of,
    known_task,
)

__all__ = [
    "ALGORITHMS",
    "BUDGETS",
    "ENGINES",
    "GIB",
    "MARGIN",
    "OFFLOAD_MODES",
    "SEARCHED",
    "TRAIN_BACKENDS",
    "VERDICTS",
    "Estimate",
    "Moment",
    "Plan",
    "Result",
    "Term",
    "algorithm_of",
    "estimate",
    "known_task",
    "minimum_gpus",
    "rollout_tp",
]


def rollout_tp(arch: Architecture, plan: Plan) -> int:
    """The engine's tensor parallelism: as given, or the largest the heads allow within its GPUs."""
    if plan.rollout_tp is not None:
        return plan.rollout_tp
    # Across nodes too: vLLM and SGLang run one engine over several nodes for the largest models.
    if arch.size_only:  # heads unknown: the largest power of two the GPUs allow
        return 1 << (plan.engine_gpus.bit_length() - 1)
    choices = arch.tp_choices(plan.engine_gpus)
    return max(choices) if choices else 1


def estimate(arch: Architecture, plan: Plan) -> Result:
    """The floor and the expected peak of ``plan`` (see the module docstring)."""
    tp = rollout_tp(arch, plan)
    return Result(arch, plan, tp, build(arch, plan, tp, expected=False), build(arch, plan, tp, expected=True))


SEARCHED = (1, 2, 4, 8, *range(16, 4097, 8))
"""GPU counts ``--min-gpus`` tries: 1, 2, 4, 8, then whole nodes of 8."""


def minimum_gpus(arch: Architecture, plan: Plan, by: str = "expected", limit: int = 4096) -> tuple[int, Result] | None:
    """The fewest GPUs of ``plan.device`` that hold the run, with their result, or None.

    ``by="expected"``: the expected peak fits (``fits`` or ``tight``); ``by="floor"``: the
    floor fits (anything but ``does-not-fit``), the fewest the lower bound allows.  The
    first is never fewer than the second.
    """
    allowed = ("fits", "tight") if by == "expected" else ("fits", "tight", "likely-oom")
    for gpus in SEARCHED:
        if gpus > limit:
            break
        if gpus <= plan.rollout_gpus:
            continue
        engine = plan.rollout_gpus or gpus
        if plan.rollout_tp is not None and (plan.rollout_tp > engine or engine % plan.rollout_tp):
            continue
        found = estimate(arch, plan.with_gpus(gpus))
        if found.verdict in allowed:
            return gpus, found
    return None
