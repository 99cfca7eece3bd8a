"""``rlresources.implausible``: a row whose own hardware cannot hold even the floor of its run.

(And ``rlresources.unknown_device``: a device of no known memory, which nothing else would notice.)

The estimator (:mod:`sphinx_rlresources.estimator`) gives a floor of per-GPU memory
for the row's model, task and GPU count -- what must be resident whatever the data, with
the fewest tokens a step can have -- with the settings its script sets and, where the
script is silent, the least demanding choice.  A row is reported only when that floor is
above its device's memory (or its rollout engine cannot even hold its weights), so a
configuration that really ran is never flagged; an expected peak above the device is
``likely-oom``, which the command shows but the check does not report.  The floor is kept
for the table's optional ``estimate`` column.
"""

from __future__ import annotations

import difflib

from sphinx_rlresources.core.diagnostics import Diagnostic, Subtype
from sphinx_rlresources.core.model import Entry
from sphinx_rlresources.estimator.devices import ALIASES, DEVICES, canonical, device_memory
from sphinx_rlresources.estimator.fromscript import Row, architecture_for, plan_for_row
from sphinx_rlresources.estimator.memory import Result, estimate
from sphinx_rlresources.safe.text import one_line
from sphinx_rlresources.scripts.run import Run


def row_of(entry: Entry) -> Row:
    return Row(entry.model, entry.model_id, entry.size, entry.task, entry.gpus, entry.train, entry.infer)


def estimate_row(entry: Entry, run: Run | None) -> Result | None:
    """The row's floor and expected peak, or None when its device is not in the table.

    ``run`` is what the row's script asks for, as the framework adapters read it (None:
    the script was not read, and every setting takes the estimator's silent value).
    """
    device = canonical(entry.device)
    gib = device_memory(device) if device else None
    row = row_of(entry)
    arch = architecture_for(row, run)
    if gib is None or arch is None:
        return None
    return estimate(arch, plan_for_row(row, run, device or entry.device, gib))


def check_device(entry: Entry) -> Diagnostic | None:
    """A finding when the row's device is none the project knows (``H10O`` for ``H100``).

    Every other check takes the device as written, so a typo would pass unseen; the row's
    memory cannot be judged on a device of unknown size either.  The known devices are
    listed, the nearest first when one is near.
    """
    if canonical(entry.device) is not None:
        return None
    known = [*DEVICES, *ALIASES]
    close = difflib.get_close_matches(entry.device.upper(), [name.upper() for name in known], n=1, cutoff=0.6)
    near = next((name for name in known if close and name.upper() == close[0]), None)
    line, column = entry.at("device")
    return Diagnostic(
        entry.source.path,
        line,
        column,
        Subtype.UNKNOWN_DEVICE,
        f"device '{one_line(entry.device, 40)}' is no device the project knows"
        + (f"; did you mean {canonical(near)}?" if near else "")
        + f" The known devices are: {', '.join(DEVICES)} (also written {', '.join(ALIASES)}); write one of "
        "them (a device the list lacks gets no memory check: silence this with "
        "suppress_warnings = ['rlresources.unknown_device'])",
        json_path=f"{entry.source.json_path}.device",
        severity="warning",  # a real device the list lacks is no error in the data
    )


def check_row(entry: Entry, found: Result | None) -> Diagnostic | None:
    """A finding when the floor does not fit the row's own GPUs."""
    if found is None or not found.impossible:
        return None
    line, column = entry.at("gpus")
    where = f"{entry.source.path}:{entry.source.line}"
    if found.problems:
        why = found.problems[0]
    else:
        moment, term = found.limiting()
        largest = f", most of it {term.name} ({term.gib:.1f} GiB)" if term else ""
        why = (
            f"even the floor of {found.arch.name}'s {entry.task} run needs {found.floor_gib:.1f} GiB per GPU "
            f"({moment}{largest}) on {entry.gpus}*{entry.device} of {found.plan.device_gib:.1f} GiB"
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
