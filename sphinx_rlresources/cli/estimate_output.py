"""What ``rlresources estimate`` prints: every term of the expected peak beside its floor, and a verdict.

The per-GPU headline adds up: for each phase, resident + the phase's own terms + the
engine's claim = the total, and every term of each is listed above it.  The verdict
names the term that limits it.  The JSON carries the same figures, every size key ending
in its unit (``_gib``).
"""

from __future__ import annotations

import textwrap
from typing import Any

from sphinx_rlresources.estimator.fromscript import SILENT
from sphinx_rlresources.estimator.memory import GIB, MARGIN, Estimate, Moment, Result, Term
from sphinx_rlresources.safe.text import one_line

WIDTH = 76
PHASES = (("train", "training phase"), ("rollout", "rollout phase"))


def _named(found: Estimate, name: str) -> Moment | None:
    return next((m for m in found.moments if m.name == name), None)


def _floor_of(result: Result, moment: Moment | None, term: Term) -> float | None:
    """The same term in the floor's moment of the same name (None where the floor has no such term)."""
    if moment is None:
        source = result.floor.resident
    else:
        same = _named(result.floor, moment.name)
        source = list(same.terms) if same else []
    return next((t.gib for t in source if t.name == term.name), None)


def _line(name: str, floor: float | None, expected: float, indent: int = 4) -> str:
    text = one_line(name, WIDTH - indent)
    shown_floor = f"{floor:>9.2f}" if floor is not None else f"{'':>9}"
    return f"{'':<{indent}}{text:<{WIDTH - indent}}{shown_floor}{expected:>10.2f}"


def headline(found: Estimate, phase: str) -> dict[str, Any]:
    """resident + phase + engine = total for the phase's largest moment (GiB)."""
    moment = found.largest(phase)
    resident = found.resident_bytes if moment is None or moment.with_resident else 0.0
    engine = moment.engine_bytes if moment else 0.0
    own = sum(t.bytes for t in moment.terms) - engine if moment else 0.0
    return {
        "moment": moment.name if moment else None,
        "resident_gib": round(resident / GIB, 3),
        "phase_gib": round(own / GIB, 3),
        "engine_gib": round(engine / GIB, 3),
        "total_gib": round((resident + own + engine) / GIB, 3),
    }


def assumptions(found: Result) -> dict[str, Any]:
    """Each setting the estimate used: its value, whether it was assumed (the silent default) and whether
    the named framework's own default gave it (neither is a setting given)."""
    plan = found.plan
    values: dict[str, Any] = {name: getattr(plan, name) for name in SILENT}
    values.update(
        lora_rank=plan.lora_rank,
        train_backend=plan.train_backend,
        param_bytes=plan.param_bytes,
        logit_chunk=plan.logit_chunk,
        activation_offload=plan.activation_offload,
        zero_stage=plan.zero_stage,
        master_weights=plan.master_weights,
        engine=plan.engine,
        rollout_tp=found.rollout_tp,
        reference_model=plan.reference,
        critic=plan.has_critic,
        gpus=plan.gpus,
        rollout_gpus=plan.rollout_gpus,
        ref_gpus=plan.ref_gpus,
        critic_gpus=plan.critic_gpus,
        reward_gpus=plan.reward_gpus,
        host_memory_gib=plan.host_memory_gib,
        mean_prompt_length=plan.mean_prompt_length,
        mean_response_length=plan.mean_response_length,
    )
    defaulted = plan.framework_defaults
    return {
        name: {"value": value, "assumed": name in plan.assumed, "framework_default": name in defaulted}
        for name, value in values.items()
    }


def _figure(found: Estimate) -> dict[str, Any]:
    def terms(items: list[Term] | tuple[Term, ...]) -> list[dict[str, Any]]:
        return [{"phase": t.phase, "name": t.name, "gib": round(t.gib, 3)} for t in items]

    return {
        "peak_gib": round(found.peak_gib, 3),
        "train_gib": round(found.train_gib, 3),
        "rollout_gib": round(found.rollout_gib, 3),
        "trainer_gib": round(found.trainer_gib, 3),
        "host_gib": round(found.host_gib, 3),
        "resident": terms(found.resident),
        "moments": [
            {
                "phase": m.phase,
                "name": m.name,
                "total_gib": round(m.total(found.resident_bytes) / GIB, 3),
                "with_resident": m.with_resident,
                "terms": terms(m.terms),
            }
            for m in found.moments
        ],
        "host": terms(found.host),
        "per_gpu": {phase: headline(found, phase) for phase, _title in PHASES},
    }


def as_json(found: Result, minimum: tuple[int | None, int | None] | None) -> dict[str, Any]:
    plan, arch = found.plan, found.arch
    moment, term = found.limiting()
    result: dict[str, Any] = {
        "model": arch.name,
        "task": plan.task,
        "device": plan.device,
        "params": arch.params(),
        "trainable_params": arch.lora_params(plan.lora_rank, plan.lora_targets) if plan.lora_rank else arch.params(),
        "kv_bytes_per_token": arch.kv_bytes_per_token(1),
        "kv_bytes_per_token_per_gpu": arch.kv_bytes_per_token(found.rollout_tp),
        "device_memory_gib": round(plan.device_gib, 3),
        "tight_above_gib": round(plan.device_gib * (1 - MARGIN), 3),
        "gpus": plan.gpus,
        "rollout_tp": found.rollout_tp,
        "floor_gib": round(found.floor_gib, 3),
        "expected_gib": round(found.expected_gib, 3),
        "host_gib": round(found.host_gib, 3),
        "host_memory_gib": plan.host_memory_gib,
        "engine_claim_gib": round(found.engine_gib, 3),
        "trainer_gib": round(found.trainer_gib, 3),
        "verdict": found.verdict,
        "expected_lengths": "maximum" if plan.at_maximum_lengths else "stated",
        "limiting": {"moment": moment, "term": term.name if term else None, "gib": round(term.gib, 3) if term else 0},
        "problems": found.problems,
        "floor": _figure(found.floor),
        "expected": _figure(found.expected),
        "framework": plan.framework,
        "assumptions": assumptions(found),
        "ignored": list(plan.ignored),
    }
    if minimum is not None:
        result["min_gpus"], result["min_gpus_floor"] = minimum
    return result


def as_text(found: Result, minimum: tuple[int | None, int | None] | None) -> str:
    plan, arch = found.plan, found.arch
    trainable = (
        f", {arch.lora_params(plan.lora_rank, plan.lora_targets):,} trainable (LoRA rank {plan.lora_rank})"
        if plan.lora_rank
        else ""
    )
    placement = _placement(found)
    lines = [
        f"{arch.name}: {arch.params():,} parameters{trainable}; {plan.task} on {plan.gpus}*{plan.device} "
        f"({plan.device_gib:.1f} GiB each){placement}",
        "The floor counts the fewest tokens a step can have; the expected peak, "
        + (AT_MAXIMUM if plan.at_maximum_lengths else "the stated lengths."),
        "",
        f"{'':<{WIDTH}}{'floor':>9}{'expected':>10}",
    ]
    expected = found.expected
    if expected.resident:
        lines.append(f"  resident on each GPU in every moment{'':<{WIDTH - 38}}{'GiB':>9}{'GiB':>10}")
        lines.extend(_line(t.name, _floor_of(found, None, t), t.gib) for t in expected.resident)
    for phase, title in PHASES:
        moment = expected.largest(phase)
        if moment is None:
            continue
        lines.append(f"  {title} adds ({one_line(moment.name, 50)})")
        lines.extend(_line(t.name, _floor_of(found, moment, t), t.gib) for t in moment.terms)
    if expected.host:
        lines.append("  host memory, per node")
        lines.extend(_line(t.name, t.gib, t.gib) for t in expected.host)
    lines.append("")
    for phase, title in PHASES:
        head = headline(expected, phase)
        floor = found.floor.phase_gib(phase)
        lines.append(
            f"  {title}, per GPU: resident {head['resident_gib']:.2f} + phase {head['phase_gib']:.2f} "
            f"+ engine {head['engine_gib']:.2f} = {head['total_gib']:.2f} GiB (floor {floor:.2f})"
        )
    limit = plan.host_memory_gib
    of = f" of {limit:,.0f}" if limit is not None else " (not checked: --host-memory GIB)"
    lines.append(f"  host memory per node: {found.host_gib:.2f} GiB{of}")
    lines += ["", _verdict_line(found)]
    lines.extend(f"  {one_line(problem)}" for problem in found.problems)
    if minimum is not None:
        lines.append(_minimum_line(found, minimum))
    settings = assumptions(found)
    defaulted = [f"{k}={_value(v['value'])}" for k, v in settings.items() if v["framework_default"]]
    if defaulted:
        said = (
            f"{plan.framework}'s defaults (not given; the floor takes the least memory where a release may differ): "
            + ", ".join(defaulted)
        )
        lines.extend(textwrap.wrap(said, WIDTH + 19, subsequent_indent="  ", break_on_hyphens=False))
    taken = [f"{k}={_value(v['value'])}" for k, v in settings.items() if v["assumed"]]
    if taken:
        said = "assumed (not given; a script that is silent assumes the same): " + ", ".join(taken)
        lines.extend(textwrap.wrap(said, WIDTH + 19, subsequent_indent="  ", break_on_hyphens=False))
    if plan.ignored:
        lines.append(f"ignored (outside their bounds, estimated as not given): {', '.join(plan.ignored)}")
    return "\n".join(lines) + "\n"


AT_MAXIMUM = "every sequence at its maximum length (no mean given)."


def _placement(found: Result) -> str:
    """The GPUs of the engine, the reference model, the critic and the reward model, where they have their own."""
    plan = found.plan
    placement = f", the engine on {plan.rollout_gpus} of them" if plan.rollout_gpus else ""
    if plan.ref_gpus and plan.use_kl:
        placement += f", the reference model on {plan.ref_gpus} of them"
    if plan.critic_gpus and plan.has_critic:
        beside = " with the reward model" if plan.reward_with_critic else ""
        placement += f", the critic{beside} on {plan.critic_gpus} of them"
    if plan.reward_gpus:
        placement += f", the reward model on {plan.reward_gpus} of them"
    return placement


def _value(value: object) -> str:
    return "not stated" if value is None else str(value)


def _verdict_line(found: Result) -> str:
    device = found.plan.device_gib
    moment, term = found.limiting()
    limit = f"; limited by {term.name} ({term.gib:.1f} GiB) in {moment}" if term else ""
    if moment == "host" and term:
        limit = f"; limited by host memory: {term.name} ({term.gib:.1f} GiB per node)"
    return (
        f"verdict: {found.verdict} (floor {found.floor_gib:.1f}, expected {found.expected_gib:.1f} of "
        f"{device:.1f} GiB per GPU: the trainer's own {found.trainer_gib:.1f}, the engine's claim "
        f"{found.engine_gib:.1f}; tight above {device * (1 - MARGIN):.1f}){limit}"
    )


def _minimum_line(found: Result, minimum: tuple[int | None, int | None]) -> str:
    expected, floor = minimum
    device = found.plan.device
    if expected is None and floor is None:
        return f"fewest GPUs: none up to 4096 {device} hold it"
    told = f"{expected}*{device} (expected peak fits, rollout TP={found.rollout_tp})" if expected else "none"
    return f"fewest GPUs: {told}; the floor allows no fewer than {floor}"
