"""``rlresources estimate --suggest``: the settings that fit, as the framework's own overrides, in text and JSON.

The search is :func:`sphinx_rlresources.estimator.suggest.suggest`; the keys come from
the adapter of the run's framework (:func:`~sphinx_rlresources.scripts.frameworks.override_keys`),
so the overrides printed are the ones its reader reads.  A run no adapter read (or
``--model`` without ``--framework``) gets the estimator's own setting names, and is told so.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sphinx_rlresources.estimator.memory import MARGIN, Result
from sphinx_rlresources.estimator.suggest import Setting, Suggestion, suggest
from sphinx_rlresources.safe.text import one_line
from sphinx_rlresources.scripts.frameworks import Overrides, override_keys
from sphinx_rlresources.scripts.run import Found, Origin, Run

STYLES = {"hydra": "Hydra overrides", "flags": "flags", "yaml": "recipe keys"}
GPU_KEYS = ("gpus_per_node", "nodes")


def advise(result: Result, run: Run) -> tuple[Suggestion | None, Overrides | None]:
    """The suggestion for the run as estimated, searched over the settings its framework has keys for."""
    plan = result.plan
    # the passes the estimate counts decide the keys (a critic's, a reference's), whatever the run left unsaid
    counted = replace(
        run,
        critic=Found(plan.has_critic, Origin.DERIVED),
        use_kl=Found(plan.reference, Origin.DERIVED),
        lora_rank=Found(plan.lora_rank, Origin.DERIVED),
    )
    keys = override_keys(counted)
    knobs = None if keys is None else frozenset(keys.keys)
    return suggest(result.arch, result.plan, knobs), keys


def _gpu_settings(found: Suggestion, given: int, keys: Overrides | None) -> list[Setting]:
    """The GPUs, when the suggestion needs more than the run has: as nodes and GPUs per node where the framework
    has keys for them, else as the estimator's ``gpus``."""
    gpus = found.plan.gpus
    if gpus <= given:
        return _engines_for(found, keys) if any(s.name == "rollout_tp" for s in found.settings) else []
    why = f"the run's {given} GPUs do not hold it with any of these settings"
    if keys is not None and all(k in keys.keys for k in ROLE_KEYS):
        roles = _role_gpus(found, why)
        if roles:
            return roles
    per_node = min(gpus, found.plan.gpus_per_node)
    if keys is None or any(k not in keys.keys for k in GPU_KEYS) or gpus % per_node:
        return [Setting("gpus", gpus, given, why)]
    return [Setting("gpus_per_node", per_node, None, why), Setting("nodes", gpus // per_node, None, why)]


ROLE_KEYS = ("actor_nodes", "actor_gpus_per_node")
"""A framework that sizes each role apart (OpenRLHF): the actor's GPUs are what a suggestion grows."""


def _role_gpus(found: Suggestion, why: str) -> list[Setting]:
    """More GPUs as the actor's nodes and GPUs per node; with them the engines that fill the actor's GPUs when
    they share them (``colocate_all``), and the reference's sizes when it shares them (it must match the actor's).

    The engine's own GPUs and a reference's own stay as they were: the search grows the trainer's."""
    plan = found.plan
    actor = plan.train_gpus
    per_node = min(actor, plan.gpus_per_node)
    if actor % per_node:
        return []
    nodes = actor // per_node
    settings = [Setting("actor_gpus_per_node", per_node, None, why), Setting("actor_nodes", nodes, None, why)]
    if plan.reference and not plan.ref_gpus:
        shared = "the reference shares the actor's GPUs, so it takes the actor's sizes"
        settings += [Setting("ref_gpus_per_node", per_node, None, shared), Setting("ref_nodes", nodes, None, shared)]
    return settings + _engines_for(found, None)


def _engines_for(found: Suggestion, keys: Overrides | None) -> list[Setting]:
    """The engines that fill the actor's GPUs at the suggested tensor parallelism, where they share them
    (OpenRLHF's ``colocate_all`` asserts engines x TP = the actor's GPUs, train_ppo_ray.py:55-63 @3c3be62)."""
    plan = found.plan
    if keys is not None and "vllm_engines" not in keys.keys:
        return []
    actor, tp = plan.train_gpus, found.result.rollout_tp
    if not plan.colocated or plan.engine == "none" or actor % tp:
        return []
    fill = f"the engines fill the actor's {actor} GPUs at tensor parallelism {tp}"
    return [Setting("vllm_engines", actor // tp, None, fill)]


def _overrides(found: Suggestion, keys: Overrides | None, given: int) -> tuple[list[str], list[str]]:
    """(the lines to paste, the settings the framework has no key for)."""
    pasted: list[str] = []
    missing: list[str] = []
    for setting in (*found.settings, *_gpu_settings(found, given, keys)):
        if keys is None:
            pasted.append(f"{setting.name}={_shown(setting.value)}")
            continue
        lines = keys.lines(setting.name, setting.value)
        if not lines:
            missing.append(f"{setting.name}={_shown(setting.value)}")
        pasted += [line for line in lines if line not in pasted]
    return pasted, missing


def _shown(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def as_json(found: Suggestion | None, keys: Overrides | None, given: Result) -> dict[str, Any]:
    """The ``suggest`` object of ``--format json``: each setting with its value, the framework's keys, and why."""
    if found is None:
        return {"fits": False, "why": _none_fits(given), "settings": [], "gpus": None}
    settings = []
    for setting in (*found.settings, *_gpu_settings(found, given.plan.gpus, keys)):
        lines = keys.lines(setting.name, setting.value) if keys is not None else []
        settings.append(
            {
                "setting": setting.name,
                "value": setting.value,
                "was": setting.was,
                "keys": list(keys.keys.get(setting.name, ())) if keys is not None else [],
                "overrides": lines,
                "why": setting.why,
            }
        )
    result = found.result
    return {
        "fits": True,
        "framework": keys.framework if keys is not None else None,
        "style": keys.style if keys is not None else "estimator",
        "settings": settings,
        "overrides": _overrides(found, keys, given.plan.gpus)[0],
        "gpus": found.gpus,
        "searched_gpus": found.plan.gpus,
        "verdict": result.verdict,
        "floor_gib": round(result.floor_gib, 3),
        "expected_gib": round(result.expected_gib, 3),
        "notes": list(found.notes),
    }


def _none_fits(given: Result) -> str:
    return (
        f"nothing fits: with every offload, the least batch and the smallest engine share, no count of "
        f"{given.plan.device} up to 4096 GPUs holds the run below the margin"
    )


def as_text(found: Suggestion | None, keys: Overrides | None, given: Result) -> str:
    """The answer: the run as given, the overrides to paste, why each, and the verdict and GPUs with them."""
    plan = given.plan
    device = plan.device_gib
    lines = [
        f"{given.arch.name}: {plan.task} on {plan.gpus}*{plan.device} ({device:.1f} GiB each)",
        f"as given: {given.verdict} (floor {given.floor_gib:.1f}, expected {given.expected_gib:.1f} GiB per GPU; "
        f"tight above {device * (1 - MARGIN):.1f})",
        "",
    ]
    if found is None:
        return "\n".join([*lines, _none_fits(given)]) + "\n"
    pasted, missing = _overrides(found, keys, plan.gpus)
    if keys is None:
        lines.append("settings that fit, in the estimator's own names (no framework's adapter read this run):")
    else:
        lines.append(f"settings that fit, as {keys.framework}'s {STYLES[keys.style]} (ready to paste):")
    lines += [f"  {line}" for line in pasted]
    if missing:
        lines.append(f"  (no {keys.framework if keys else ''} key for: {', '.join(missing)})")
    lines += ["", "why:"]
    for setting in (*found.settings, *_gpu_settings(found, plan.gpus, keys)):
        change = _shown(setting.value)
        if setting.was is not None:
            change = f"{_shown(setting.was)} -> {change}"
        lines.append(f"  {one_line(setting.name)} {change}: {one_line(setting.why)}")
    lines.extend(f"  note: {one_line(note)}" for note in found.notes)
    result = found.result
    lines += [
        "",
        f"with them: {result.verdict} (floor {result.floor_gib:.1f}, expected {result.expected_gib:.1f} of "
        f"{device:.1f} GiB per GPU: the trainer's own {result.trainer_gib:.1f}, the engine's claim "
        f"{result.engine_gib:.1f})",
        f"fewest GPUs with them: {found.gpus}*{plan.device} (--min-gpus answers the same for them)",
    ]
    return "\n".join(lines) + "\n"
