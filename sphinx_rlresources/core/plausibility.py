"""``rlresources.implausible``: a row whose own hardware cannot hold even the lower bound of its run.

The estimator (:mod:`sphinx_rlresources.estimator`) gives a floor of per-GPU memory
for the row's model, task and GPU count, with the settings its script sets and, where
the script is silent, the least demanding choice.  A row is reported only when that
floor is above its device's memory (or its rollout engine cannot even hold its
weights), so a configuration that really ran is never flagged.  The estimate is kept
for the table's optional ``estimate`` column.
"""

from __future__ import annotations

from sphinx_rlresources.core.diagnostics import Diagnostic, Subtype
from sphinx_rlresources.core.model import Entry
from sphinx_rlresources.estimator.devices import canonical, device_memory
from sphinx_rlresources.estimator.fromscript import Row, architecture_for, plan_for_row
from sphinx_rlresources.estimator.memory import Estimate, estimate
from sphinx_rlresources.scripts.settings import ScriptSettings


def row_of(entry: Entry) -> Row:
    return Row(entry.model, entry.model_id, entry.size, entry.task, entry.gpus, entry.train, entry.infer)


def estimate_row(entry: Entry, settings: ScriptSettings | None) -> Estimate | None:
    """The row's lower bound, or None when its device is not in the table."""
    gib = device_memory(entry.device)
    arch = architecture_for(row_of(entry), settings)
    if gib is None or arch is None:
        return None
    device = canonical(entry.device) or entry.device
    return estimate(arch, plan_for_row(row_of(entry), settings, device, gib))


def check_row(entry: Entry, found: Estimate | None) -> Diagnostic | None:
    """A finding when the lower bound does not fit the row's own GPUs."""
    if found is None or found.verdict != "does-not-fit":
        return None
    line, column = entry.at("gpus")
    where = f"{entry.source.path}:{entry.source.line}"
    if found.problems:
        why = found.problems[0]
    else:
        phase = "training" if found.train_gib >= found.rollout_gib else "rollout"
        why = (
            f"even the lower bound of {found.arch.name}'s {entry.task} run needs {found.peak_gib:.1f} GiB per GPU "
            f"(the {phase} phase) on {entry.gpus}*{entry.device} of {found.plan.device_gib:.1f} GiB"
        )
    return Diagnostic(
        entry.source.path,
        line,
        column,
        Subtype.IMPLAUSIBLE,
        f"this row cannot have run as written: {why}; check gpus, device and the script's settings "
        f"(rlresources estimate --row {where} shows every term)",
        json_path=f"{entry.source.json_path}.gpus",
    )
