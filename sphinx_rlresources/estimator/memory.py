"""The memory of an RL run, per GPU and per node: a floor that must fit, and an expected peak.

:func:`estimate` gives both figures for a :class:`~.plan.Plan` (the records are in
:mod:`.plan`, the terms and their sources in :mod:`.phases`); :func:`minimum_gpus`
searches the fewest GPUs.  docs/estimator.rst explains the model and its validation.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

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
    "Kept",
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


@dataclass
class Result:
    """The floor and the expected peak of one plan, and the verdict they give.

    The expected peak is built when first asked for: lint and the build check every row
    against its floor alone (:attr:`impossible`), so they never pay for it.
    """

    arch: Architecture
    plan: Plan
    rollout_tp: int
    floor: Estimate

    @cached_property
    def expected(self) -> Estimate:
        """The expected peak with every term (what the ``estimate`` command lists)."""
        return self.kept().expected()

    @property
    def impossible(self) -> bool:
        """``does-not-fit``, from the floor alone."""
        floor = self.floor
        return bool(floor.problems) or floor.peak_gib > self.plan.device_gib or _host_over(self.plan, floor)

    def kept(self) -> Kept:
        """What a table keeps of this result for a row: its figures, without the floor's terms.

        The one place the expected peak and the verdict are made, for the result and the table alike.
        """
        return self._kept

    @cached_property
    def _kept(self) -> Kept:
        return Kept(self.arch, self.plan, self.rollout_tp, self.floor_gib, self.impossible)

    @property
    def floor_gib(self) -> float:
        return self.floor.peak_gib

    @property
    def expected_gib(self) -> float:
        return self.kept().expected_gib

    @property
    def peak_gib(self) -> float:
        """The floor's peak: the figure a row is checked against (the ``estimate`` column's ``≥``)."""
        return self.floor.peak_gib

    @property
    def host_gib(self) -> float:
        return self.expected.host_gib

    @property
    def trainer_gib(self) -> float:
        return self.kept().trainer_gib

    @property
    def engine_gib(self) -> float:
        return self.kept().engine_gib

    @property
    def problems(self) -> list[str]:
        return self.floor.problems

    @property
    def verdict(self) -> str:
        return self.kept().verdict

    def limiting(self) -> tuple[str, Term | None]:
        """What limits the verdict: (the phase or ``host``, its largest term)."""
        figure = self.floor if self.verdict == "does-not-fit" else self.expected
        if _host_over(self.plan, figure):
            return "host", max(figure.host, key=lambda t: t.bytes, default=None)
        moment = figure.peak
        return (moment.name if moment else "resident"), figure.limiting()


@dataclass(frozen=True)
class Figures:
    """What a table keeps of an expected peak, in GiB per GPU (host: per node)."""

    peak: float
    host: float
    shared: float
    """The peak of the moments where the engine's claim is not alone (:attr:`.Estimate.shared_gib`)."""
    trainer: float
    claim: float


@dataclass
class Kept:
    """A row's estimate as the data set keeps it for the tables: the floor's figure and verdict, and
    the expected peak's figures, built when first asked for.

    Only figures are kept, never an estimate's terms (some thirty objects each): a load
    keeps every row's, so keeping the terms would multiply the memory lint and the build
    hold, and the work of the collector's full scans of that heap.
    """

    arch: Architecture
    plan: Plan
    rollout_tp: int
    floor_gib: float
    impossible: bool

    figures: Figures | None = field(default=None, init=False, repr=False, compare=False)
    """The expected peak's figures, once the peak has been built."""

    def expected(self) -> Estimate:
        """The expected peak with every term, built anew (:attr:`Result.expected` keeps it for the command).

        Its figures are kept, so the verdict read after it builds nothing more.
        """
        found = build(self.arch, self.plan, self.rollout_tp, expected=True)
        self.figures = Figures(
            found.peak_gib, found.host_gib, found.shared_gib, found.trainer_gib, found.engine_claim / GIB
        )
        return found

    def _expected_figures(self) -> Figures:
        if self.figures is None:
            self.expected()
        assert self.figures is not None
        return self.figures

    @property
    def expected_gib(self) -> float:
        return self._expected_figures().peak

    @property
    def trainer_gib(self) -> float:
        """The trainer's own expected peak, without the engine's memory."""
        return self._expected_figures().trainer

    @property
    def engine_gib(self) -> float:
        """The engine's claim on each of its GPUs while it generates: a setting, or what it uses when none is stated."""
        return self._expected_figures().claim

    @property
    def verdict(self) -> str:
        """The one rule for a verdict: the floor decides ``does-not-fit``, the expected peak the others."""
        device = self.plan.device_gib
        if self.impossible:
            return "does-not-fit"
        figures = self._expected_figures()
        if figures.peak > device or _host_over(self.plan, figures.host):
            return "likely-oom"
        return "tight" if figures.shared > device * (1 - MARGIN) else "fits"


def _host_over(plan: Plan, found: Estimate | float) -> bool:
    """Whether a figure's host memory per node (an estimate's, or in GiB) is over the node's, when that is given."""
    limit = plan.host_memory_gib
    if limit is None:
        return False
    return (found if isinstance(found, float) else found.host_gib) > limit


def rollout_tp(arch: Architecture, plan: Plan) -> int:
    """The engine's tensor parallelism: as given, or the largest the heads allow within its GPUs."""
    if plan.rollout_tp is not None:
        return plan.rollout_tp
    # Across nodes too: vLLM and SGLang run one engine over several nodes for the largest models.
    if arch.size_only:  # heads unknown: the largest power of two that divides the GPUs
        return plan.engine_gpus & -plan.engine_gpus
    choices = arch.tp_choices(plan.engine_gpus)
    return max(choices) if choices else 1


def estimate(arch: Architecture, plan: Plan) -> Result:
    """The floor and the expected peak of ``plan`` (see the module docstring).

    The floor is built with :attr:`~.plan.Plan.floor_values` in place of the framework's
    defaults, the expected peak with the plan as it is.
    """
    tp = rollout_tp(arch, plan)
    least = replace(plan, **dict(plan.floor_values)) if plan.floor_values else plan
    return Result(arch, plan, tp, build(arch, least, rollout_tp(arch, least), expected=False))


SEARCHED = (1, 2, 4, 8, *range(16, 4097, 8))
"""GPU counts ``--min-gpus`` tries: 1, 2, 4, 8, then whole nodes of 8."""


def minimum_gpus(arch: Architecture, plan: Plan, by: str = "expected", limit: int = 4096) -> tuple[int, Result] | None:
    """The fewest GPUs of ``plan.device`` that hold the run, with their result, or None.

    ``by="expected"``: the verdict is ``fits``, the expected peak below the margin (what
    ``--suggest`` asks of its settings, so the two agree); ``by="floor"``: the floor fits
    (anything but ``does-not-fit``), the fewest the lower bound allows.  The first is
    never fewer than the second.  The counts tried are :data:`SEARCHED` and the plan's own.
    """
    allowed = ("fits",) if by == "expected" else ("fits", "tight", "likely-oom")
    for gpus in sorted({*SEARCHED, plan.gpus}):
        if gpus > limit:
            break
        if gpus <= plan.own_gpus:
            continue
        engine = plan.rollout_gpus or gpus
        if plan.rollout_tp is not None and (plan.rollout_tp > engine or engine % plan.rollout_tp):
            continue
        found = estimate(arch, plan.with_gpus(gpus))
        if found.verdict in allowed:
            return gpus, found
    return None
