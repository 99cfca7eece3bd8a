"""Settings that fit: the largest micro-batch and engine share, and the offload, parallelism and GPUs needed.

``rlresources estimate --suggest`` answers "what should I set to run this on my GPUs".
Every answer is the estimator's own verdict (:attr:`.memory.Result.verdict`) read as
"fits": a setting is suggested only where the run, with it, is neither ``tight`` nor
worse, so the margin the verdict keeps for the allocator and the runtime is kept here
too, and a change to that margin changes the suggestions with it.

The search, in order:

1. **What is needed.** The run with its least-memory batch (one sequence per
   micro-batch, the shortest token budget that holds one sequence) is tried on its GPUs.
   When it does not fit, the helpers of :data:`HELPERS` are taken one after another
   until it does (the engine's sleep mode, offload, recomputation, the reference
   offloaded, ZeRO-3, the engine's tensor parallelism, Ulysses sequence parallelism or,
   for OpenRLHF, ring attention, a smaller engine share), then each taken helper the fit
   does not need is given back: a helper is suggested only where it is needed.
2. **The fewest GPUs.** When nothing fits on the run's GPUs, the GPU counts of
   :data:`.memory.SEARCHED` above them are tried with every helper.
3. **The largest that fits.** On those GPUs, the micro-batch (or the token budget under
   dynamic batching), then the log-prob micro-batch, by bisection over whole numbers up
   to a cap; then the engine's share on a grid of :data:`FRACTION_STEP`, up to
   ``1 - MARGIN``: the claim itself leaves the margin free.

Bisection needs the verdict to be monotone in the batch: more sequences per pass never
use less memory.  The estimate is built that way (every per-token term grows with the
tokens), ``tests/test_suggest.py`` checks it over the seed rows and the published runs,
and each search probes above its answer: a larger value that fits after a smaller one
did not is reported (:attr:`Suggestion.notes`), never silently taken or dropped.

The GPUs reported are :func:`.memory.minimum_gpus` of the suggested plan, the same search
``--min-gpus`` runs, so the two always agree.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from typing import Any

from sphinx_rlresources.estimator.architectures import Architecture
from sphinx_rlresources.estimator.memory import SEARCHED, Result, estimate, minimum_gpus, rollout_tp
from sphinx_rlresources.estimator.plan import MARGIN, NO_ENGINE, Plan

FITS = "fits"
"""The verdict a suggestion must reach: the expected peak below the margin (:data:`.plan.MARGIN`)."""
MICRO_CAP = 4096
"""The largest micro-batch searched when no mini-batch bounds what one pass can hold."""
TOKEN_CAP = 1 << 22
"""The largest token budget searched when no mini-batch bounds it."""
FRACTION_STEP = 0.05
"""The grid of engine shares searched."""


def _with(plan: Plan, **settings: Any) -> Plan:
    """The plan with some settings changed, by name (a search changes one it names at run time)."""
    return replace(plan, **settings)


@dataclass(frozen=True)
class Setting:
    """One suggested setting: its name (the ``Run``'s), the value to set, the value the run had, and why."""

    name: str
    value: Any
    was: Any
    why: str


@dataclass(frozen=True)
class Suggestion:
    """What to set, the plan with it, and its estimate (verdict ``fits``)."""

    settings: tuple[Setting, ...]
    plan: Plan
    result: Result
    gpus: int
    """The fewest GPUs that hold the suggested settings (:func:`.memory.minimum_gpus`)."""
    notes: tuple[str, ...] = ()
    """What the search found that a reader should know (a batch the estimate is not monotone in)."""


def fits(arch: Architecture, plan: Plan) -> bool:
    """The one test every step of the search makes: the estimator's verdict is ``fits``."""
    return estimate(arch, plan).verdict == FITS


@dataclass(frozen=True)
class Helper:
    """A change that lowers the memory a run needs, and whether it can apply to a plan."""

    setting: str
    applies: Callable[[Architecture, Plan], list[Any]]
    """The values to try, least memory last (empty: the helper cannot change this plan)."""
    why: str


def _switch_on(setting: str) -> Callable[[Architecture, Plan], list[Any]]:
    return lambda arch, plan: [] if getattr(plan, setting) else [True]


def _sleep(arch: Architecture, plan: Plan) -> list[Any]:
    """Sleep mode, for an engine in the trainer's GPUs that keeps its claim (OpenRLHF's and TRL's default)."""
    return [True] if plan.colocated and plan.engine != NO_ENGINE and not plan.free_cache_engine else []


def _ref_offload(arch: Architecture, plan: Plan) -> list[Any]:
    return [True] if plan.reference and plan.ref_param_offload is False else []


def _zero3(arch: Architecture, plan: Plan) -> list[Any]:
    return [3] if plan.train_backend == "fsdp" and plan.zero_stage < 3 else []


def _rollout_tp(arch: Architecture, plan: Plan) -> list[Any]:
    """Larger engine tensor parallelism than the plan's, as far as the heads and the engine's GPUs allow."""
    now = rollout_tp(arch, plan)
    if arch.size_only:
        return []
    return [t for t in arch.tp_choices(plan.engine_gpus) if t > now]


RING_ATTENTION = "openrlhf"
"""The framework that splits sequences by ring attention (``--ds.ring_attn_size``), not by Ulysses groups."""


def _ulysses(arch: Architecture, plan: Plan) -> list[Any]:
    """Ulysses groups that divide the trainer's GPUs and the attention heads (verl asserts both)."""
    if plan.train_backend != "fsdp" or arch.size_only or plan.framework == RING_ATTENTION:
        return []
    now = plan.ulysses_sp
    return [s for s in (2, 4, 8, 16) if s > now and plan.train_gpus % s == 0 and arch.heads % s == 0]


def _ring(arch: Architecture, plan: Plan) -> list[Any]:
    """OpenRLHF's ring attention: groups that divide the trainer's GPUs.

    Its DeepSpeed mesh is ``(world // ring // tp, ring, tp)`` (OpenRLHF/OpenRLHF@3c3be62
    ``openrlhf/utils/deepspeed/deepspeed.py:104-106``), and a ring group splits each packed
    sequence's tokens, which the estimate divides by ``train_cp`` as it does by a Ulysses group.
    """
    if plan.framework != RING_ATTENTION:
        return []
    return [s for s in (2, 4, 8, 16) if s > plan.train_cp and plan.train_gpus % s == 0]


HELPERS: tuple[Helper, ...] = (
    Helper("free_cache_engine", _sleep, "the engine sleeps, giving its claim back while the trainer runs"),
    Helper("param_offload", _switch_on("param_offload"), "the parameters in host memory between their phases"),
    Helper("optimizer_offload", _switch_on("optimizer_offload"), "the optimizer states in host memory"),
    Helper("gradient_checkpointing", _switch_on("gradient_checkpointing"), "activations recomputed, not kept"),
    Helper("ref_param_offload", _ref_offload, "the reference model in host memory between its passes"),
    Helper("zero_stage", _zero3, "ZeRO-3: parameters sharded over the trainer's GPUs too"),
    Helper("rollout_tp", _rollout_tp, "the engine's weights and KV cache split over more GPUs"),
    Helper("ulysses_sp", _ulysses, "each sequence's activations and logits split over a sequence-parallel group"),
    Helper("train_cp", _ring, "each sequence's tokens split over a ring-attention group"),
)
"""In the order they are tried: the cheapest in speed first."""


def _least(plan: Plan, knobs: Collection[str]) -> Plan:
    """The plan with its least-memory batch: one sequence per pass, the shortest budget that holds one."""
    least: dict[str, Any] = {}
    if plan.dynamic_batch and "max_token_len_per_gpu" in knobs:
        least["max_token_len_per_gpu"] = sum(plan.lengths)
    if not plan.dynamic_batch and "micro_batch_per_gpu" in knobs:
        least["micro_batch_per_gpu"] = 1
    if "log_prob_micro_batch_per_gpu" in knobs and not plan.dynamic_batch:
        least["log_prob_micro_batch_per_gpu"] = 1
    return replace(plan, **least)


def _needed(
    arch: Architecture, plan: Plan, knobs: Collection[str], batches: dict[str, Any]
) -> tuple[Plan, list[Setting]] | None:
    """The helpers the least plan needs to fit on its GPUs, each only where needed; None if all are not enough."""
    taken: list[Setting] = []
    current = plan
    for helper in HELPERS:
        if fits(arch, current):
            break
        if helper.setting not in knobs:
            continue
        for value in helper.applies(arch, current):
            trial = _changed(current, plan, **{helper.setting: value})
            taken = [s for s in taken if s.name != helper.setting]
            taken.append(Setting(helper.setting, value, getattr(plan, helper.setting), helper.why))
            current = trial
            if fits(arch, current):
                break
    if not fits(arch, current):
        lowered = _lower_fraction(arch, current, knobs, batches)
        if lowered is None:
            return None
        current = lowered
    # give back what the fit does not need, the last taken first
    for setting in reversed(list(taken)):
        back = _changed(current, plan, **{setting.name: setting.was})
        if fits(arch, back):
            current = back
            taken.remove(setting)
    return current, taken


def _changed(current: Plan, plan: Plan, **settings: Any) -> Plan:
    """``current`` with ``settings`` changed; a plan of plain PyTorch (no master copy) that now shards or
    offloads has left it for DeepSpeed or FSDP, which keep an fp32 master copy."""
    trial = replace(current, **settings)
    if plan.master_weights:
        return trial
    plain = (trial.zero_stage, trial.param_offload, trial.optimizer_offload) == (
        plan.zero_stage,
        plan.param_offload,
        plan.optimizer_offload,
    )
    return replace(trial, master_weights=not plain)


def _lower_fraction(arch: Architecture, plan: Plan, knobs: Collection[str], batches: dict[str, Any]) -> Plan | None:
    """The largest engine share on the grid, up to the plan's (or the margin's), that lets it fit; None if none does.

    Where the engine keeps its claim while the trainer runs, the two compete: the share is
    first lowered to what leaves room for the run's own batches (``batches``), and only
    where none does, to what leaves room for one sequence per pass.
    """
    if "memory_fraction" not in knobs:
        return None
    most = 1 - MARGIN if plan.memory_fraction is None else plan.memory_fraction  # unstated: what the engine uses
    for trial_plan in (replace(plan, **batches), plan):
        for fraction in reversed(_grid(most)):
            trial = replace(trial_plan, memory_fraction=fraction)
            if fits(arch, trial):
                return replace(plan, memory_fraction=fraction)
    return None


def _grid(most: float) -> list[float]:
    """Engine shares from one step up to ``most``, on the grid."""
    steps = math.floor(most / FRACTION_STEP + 1e-9)
    return [round(FRACTION_STEP * k, 2) for k in range(1, steps + 1)]


def _on_gpus(
    arch: Architecture, plan: Plan, knobs: Collection[str], batches: dict[str, Any]
) -> tuple[Plan, list[Setting]] | None:
    """The needed helpers on the plan's GPUs, or on the fewest more (:data:`SEARCHED`) where every helper fits."""
    found = _needed(arch, plan, knobs, batches)
    if found is not None:
        return found
    for gpus in SEARCHED:
        if gpus <= plan.gpus or gpus <= plan.own_gpus:
            continue
        engine = plan.rollout_gpus or gpus
        if plan.rollout_tp is not None and engine % plan.rollout_tp:
            continue
        found = _needed(arch, plan.with_gpus(gpus), knobs, batches)
        if found is not None:
            return found
    return None


@dataclass(frozen=True)
class Searched:
    """The largest whole value that fits, and whether a larger one fitting was seen above it."""

    value: int
    capped: bool
    """Whether the cap itself fits: a larger value changes nothing the estimate counts, or was not searched."""
    above: int | None
    """A value above the first that did not fit that fits again (the estimate not monotone), or None."""


def largest(test: Callable[[int], bool], low: int, cap: int) -> Searched:
    """The largest ``n`` in ``low..cap`` with ``test(n)``, by doubling then bisection; ``test(low)`` must hold.

    ``test`` is assumed monotone (true up to some value, false after); the values probed
    above the answer check that, and one that fits again is reported in ``above``.
    """
    good, step = low, 1
    bad: int | None = None
    while bad is None:  # doubling: at most log2(cap) estimates
        trial = min(good + step, cap)
        if trial == good:
            return Searched(good, True, None)
        if test(trial):
            good, step = trial, step * 2
        else:
            bad = trial
    while bad - good > 1:  # bisection
        middle = (good + bad) // 2
        if test(middle):
            good = middle
        else:
            bad = middle
    probes = sorted({p for p in (bad + 1, 2 * bad, cap) if bad < p <= cap})
    above = next((p for p in probes if test(p)), None)
    return Searched(good, False, above)


def _cap(plan: Plan, prompts: int | None, per_sequence: float) -> int | None:
    """The most a pass can hold per GPU: the sequences (or tokens) of ``prompts`` spread over the trainer's GPUs."""
    if not prompts:
        return None
    shards = plan.sequence_shards
    sequences = max(1.0, prompts * plan.rollout_n * shards / max(plan.train_gpus, 1))
    return max(1, math.ceil(sequences * per_sequence / shards))


BATCHES: tuple[tuple[str, str, str], ...] = (
    ("max_token_len_per_gpu", "mini_batch_size", "the largest token budget per GPU that fits"),
    ("micro_batch_per_gpu", "mini_batch_size", "the largest micro-batch per GPU that fits"),
    ("log_prob_micro_batch_per_gpu", "train_batch_size", "the largest log-prob micro-batch per GPU that fits"),
)
"""(setting, the Plan field of the prompts that bound it, why) for the batches searched, in order."""


def _batch(arch: Architecture, plan: Plan, setting: str, bound: str, why: str) -> tuple[Plan, Setting, str | None]:
    """The largest value of one batch setting that fits, the setting, and a note when the search saw something odd."""
    tokens = setting == "max_token_len_per_gpu"
    per_sequence = float(sum(plan.lengths)) if tokens else 1.0
    cap = _cap(plan, getattr(plan, bound), per_sequence) or (TOKEN_CAP if tokens else MICRO_CAP)
    low = int(getattr(plan, setting) or 1)
    cap = max(cap, low)

    def test(value: int) -> bool:
        return fits(arch, _with(plan, **{setting: value}))

    found = largest(test, low, cap)
    note = None
    reason = why
    if found.capped:
        reason = (
            f"{why}: a whole mini-batch in one pass, more would change nothing"
            if _cap(plan, getattr(plan, bound), per_sequence)
            else f"{why}, up to the search's cap of {cap:,}"
        )
    if found.above is not None:
        note = (
            f"{setting}: {found.value} fits and {found.value + 1} does not, yet {found.above} fits again "
            "by the estimate: it is not monotone here, and the smaller value is suggested"
        )
    was = getattr(plan, setting)
    return _with(plan, **{setting: found.value}), Setting(setting, found.value, was, reason), note


def _fraction(arch: Architecture, plan: Plan) -> tuple[Plan, Setting] | None:
    """The largest engine share on the grid that fits, at the plan's batches."""
    most = 1 - MARGIN  # the claim itself keeps the margin free, whatever sits beside it
    best = next((f for f in reversed(_grid(most)) if fits(arch, replace(plan, memory_fraction=f))), None)
    if best is None:
        return None
    why = "the largest share of each GPU the engine can claim with the margin kept"
    return replace(plan, memory_fraction=best), Setting("memory_fraction", best, plan.memory_fraction, why)


def suggest(arch: Architecture, plan: Plan, knobs: Collection[str] | None = None) -> Suggestion | None:
    """What to set so ``plan`` fits with the margin (see the module docstring); None when nothing fits.

    ``knobs``: the settings that may change (the framework's adapter has a key for each);
    None: every one the estimator knows.
    """
    knobs = _every_knob() if knobs is None else frozenset(knobs)
    if plan.engine == NO_ENGINE:  # no engine claims a share: there is none to suggest
        knobs -= {"memory_fraction"}
    start = _least(plan, knobs)
    given = {
        name: getattr(plan, name) for name in (b[0] for b in BATCHES) if getattr(start, name) != getattr(plan, name)
    }
    found = _on_gpus(arch, start, knobs, given)
    if found is None:
        return None
    current, taken = found
    notes: list[str] = []
    batches: list[Setting] = []
    for setting, bound, why in BATCHES:
        if setting not in knobs or (setting == "max_token_len_per_gpu") != plan.dynamic_batch:
            continue
        current, chosen, note = _batch(arch, current, setting, bound, why)
        was = getattr(plan, setting)
        if setting == "log_prob_micro_batch_per_gpu" and was is None:
            was = plan.micro_batch_per_gpu  # verl's and the estimator's: as the update's
        batches.append(replace(chosen, was=was))
        notes += [note] if note else []
    engine: list[Setting] = []
    if "memory_fraction" in knobs:
        raised = _fraction(arch, current)
        if raised is not None:
            current, chosen = raised
            engine.append(replace(chosen, was=plan.memory_fraction))
    gpus = minimum_gpus(arch, current)
    fewest = gpus[0] if gpus else current.gpus
    return Suggestion((*taken, *batches, *engine), current, estimate(arch, current), fewest, tuple(notes))


def _every_knob() -> frozenset[str]:
    return frozenset({h.setting for h in HELPERS} | {b[0] for b in BATCHES} | {"memory_fraction"})
