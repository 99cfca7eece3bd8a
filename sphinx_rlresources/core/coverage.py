"""Which (size, task, tag) combinations have a verified row, and which are still wanted.

Kept apart from the directive so that the answer can be tested, and reused by other
front ends, without a Sphinx build.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sphinx_rlresources.core.model import Entry

TAGS = ("MIN", "RECOMMENDED")


@dataclass(frozen=True)
class Coverage:
    """``counts[(size_key, task_key, tag)]`` is how many rows exist for that combination."""

    sizes: tuple[str, ...]
    tasks: tuple[str, ...]
    counts: dict[tuple[str, str, str], int]

    def count(self, size: str, task: str, tag: str) -> int:
        return self.counts.get((size.lower(), task.lower(), tag), 0)

    def missing(self, tag: str) -> list[str]:
        """The sizes with no row of ``tag`` for any shown task (the most wanted contributions)."""
        return [s for s in self.sizes if not any(self.count(s, t, tag) for t in self.tasks)]

    def gaps(self) -> int:
        """How many (size, task, tag) cells have no row."""
        return sum(1 for s in self.sizes for t in self.tasks for tag in TAGS if not self.count(s, t, tag))


def tasks_of(entries: Sequence[Entry]) -> list[str]:
    """The tasks the rows name, compared case-insensitively, spelled as first seen, sorted."""
    seen: dict[str, str] = {}
    for entry in entries:
        seen.setdefault(entry.task.lower(), entry.task)
    return [seen[key] for key in sorted(seen)]


def coverage(sizes: Sequence[str], entries: Sequence[Entry], tasks: Sequence[str] | None = None) -> Coverage:
    """Count the rows per size, task and tag; ``tasks`` defaults to every task the rows name."""
    counts: dict[tuple[str, str, str], int] = {}
    for entry in entries:
        key = (entry.size.lower(), entry.task.lower(), entry.tag)
        counts[key] = counts.get(key, 0) + 1
    shown = tuple(tasks) if tasks is not None else tuple(tasks_of(entries))
    return Coverage(sizes=tuple(sizes), tasks=shown, counts=counts)
