"""SkyPilot task files (``*.sky.yaml``): the ``run:`` script, read with the variables SkyPilot gives it.

A SkyPilot task asks for ``num_nodes`` nodes (1 unless said), each with the
``resources.accelerators`` it names (``A100:8``; a name alone is one), and runs its
``run:`` script on every node with ``SKYPILOT_NUM_NODES`` and
``SKYPILOT_NUM_GPUS_PER_NODE`` set from them, and the task's ``envs:`` (SkyPilot's
documented environment variables, docs.skypilot.co "Environment variables and secrets").
Those are the only values taken from the task: the ``run:`` script is then read as any
launch script is, by the framework adapter or the launcher layer that claims its
launch (AReaL's ``examples/skypilot/ray_cluster.sky.yaml`` at inclusionAI/AReaL@4aef98d
passes ``cluster.n_nodes=$SKYPILOT_NUM_NODES`` to its trainer).  Accelerators given as a
choice (a list or a mapping of names) count only when every choice has the same count.
``SKYPILOT_NODE_RANK`` and the node addresses are known only where it runs.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from sphinx_rlresources.safe.yamlsafe import YamlDocument

_ACCELERATOR = re.compile(r"^\s*[A-Za-z0-9_.-]+\s*(?::\s*([0-9]{1,4})\s*)?$")
MAX_ENVS = 200
"""``envs:`` entries taken (a task's few dozen at most); a longer list is not read."""


class Task(NamedTuple):
    """A SkyPilot task's ``run:`` script, placed at its lines in the file, and the variables it runs with."""

    script: str
    env: dict[str, str]


def claims(document: YamlDocument) -> bool:
    """A SkyPilot task: a ``run:`` script beside ``resources:`` or ``num_nodes:``."""
    value = document.value
    return (
        isinstance(value, dict) and isinstance(value.get("run"), str) and ("resources" in value or "num_nodes" in value)
    )


def task(document: YamlDocument, text: str) -> Task:
    """The task's ``run:`` script (blank lines before it, so each line is the file's) and its variables.

    ``text`` is the file's: a block scalar (``run: |``) starts on the line after its key.
    """
    value: dict[Any, Any] = document.value
    env = _envs(value.get("envs"))
    nodes = value.get("num_nodes", 1)
    if isinstance(nodes, int) and not isinstance(nodes, bool) and nodes > 0:
        env["SKYPILOT_NUM_NODES"] = str(nodes)
    resources = value.get("resources")
    count = accelerators(resources.get("accelerators") if isinstance(resources, dict) else None)
    if count is not None:
        env["SKYPILOT_NUM_GPUS_PER_NODE"] = str(count)
    line, column = document.mark(("run",))
    rows = text.split("\n", line)
    block = line <= len(rows) and rows[line - 1][column - 1 : column][:1] in ("|", ">")
    return Task("\n" * (line if block else line - 1) + str(value["run"]), env)


def accelerators(value: object) -> int | None:
    """GPUs per node: ``A100:8`` is 8, ``H100`` is 1; a choice only when every option agrees; else None."""
    if isinstance(value, str):
        match = _ACCELERATOR.match(value)
        if match is None:
            return None
        return int(match.group(1)) if match.group(1) else 1
    if isinstance(value, dict):  # {A100: 8, H100: 8}
        counts = {c if isinstance(c, int) and not isinstance(c, bool) else None for c in value.values()}
        return counts.pop() if len(counts) == 1 else None
    if isinstance(value, list):  # [A100:8, H100:8]
        found = {accelerators(item) for item in value}
        return found.pop() if len(found) == 1 else None
    return None


def _envs(value: object) -> dict[str, str]:
    """The task's ``envs:`` that have a value (an empty one must be given at launch: unknown)."""
    if not isinstance(value, dict) or len(value) > MAX_ENVS:
        return {}
    return {
        str(name): str(item).lower() if isinstance(item, bool) else str(item)
        for name, item in value.items()
        if isinstance(item, (str, int, float)) and str(item) != ""
    }


__all__ = ["Task", "accelerators", "claims", "task"]
