"""Shared by the speed-up benchmarks: one build or command, with a speed-up on and off, alternated.

A speed-up that has a switch (an environment variable) is measured by running the
same whole process with the switch unset and set, alternating the order every round
(on off, off on, ...), and comparing the medians of that one run: the ratio holds on
a shared machine where the seconds drift.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import bench  # noqa: E402


def compare(reps: int, run: Callable[[dict[str, str]], bench.Run], switch: str) -> dict[str, Any]:
    """Median wall and CPU seconds of ``run`` with the speed-up on (``switch`` unset) and off (set to 1)."""
    runs = bench.alternate(reps, {"on": lambda: run({}), "off": lambda: run({switch: "1"})})
    result: dict[str, Any] = {}
    for name, found in runs.items():
        result[f"{name}_s"] = statistics.median(r.wall for r in found)
        result[f"{name}_cpu"] = statistics.median(r.cpu for r in found)
        result[f"{name}_mb"] = max(r.rss_mb for r in found)
    result["ratio"] = result["on_s"] / result["off_s"]
    result["cpu_ratio"] = result["on_cpu"] / result["off_cpu"]
    return result


def line(label: str, r: dict[str, Any]) -> str:
    return (
        f"{label:<34} {r['on_s']:>7.2f} {r['off_s']:>7.2f} {r['ratio']:>6.2f} "
        f"{r['on_cpu']:>7.2f} {r['off_cpu']:>7.2f} {r['cpu_ratio']:>6.2f} {r['on_mb']:>6.0f} {r['off_mb']:>6.0f}"
    )


HEADER = (
    f"{'':<34} {'on s':>7} {'off s':>7} {'ratio':>6} {'on cpu':>7} {'off cpu':>7} {'ratio':>6} "
    f"{'on MB':>6} {'off MB':>6}"
)
