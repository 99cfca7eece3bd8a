"""The table's columns and how rows are filtered and sorted.

Shared by the directive and ``rlresources render`` so both draw the same cells.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sphinx_rlresources.core.model import Entry, size_order


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    text: Callable[[Entry], str]
    sort_key: Callable[[Entry], Any]


def _missing_last(value: Any) -> tuple[int, Any]:
    return (1, 0) if value is None else (0, value)


COLUMNS: dict[str, Column] = {
    c.key: c
    for c in [
        Column("size", "Size", lambda e: e.size, lambda e: size_order(e.size)),
        Column("tag", "Tag", lambda e: e.tag, lambda e: (e.tag != "MIN", e.tag)),
        Column("model", "Model", lambda e: e.model, lambda e: e.model.lower()),
        Column("task", "Task", lambda e: e.task, lambda e: e.task.lower()),
        Column("resource", "Resource", lambda e: e.resource, lambda e: (e.gpus, e.device.lower())),
        Column(
            "maxbatch",
            "MaxBatch",
            lambda e: "" if e.max_batch is None else str(e.max_batch),
            lambda e: _missing_last(e.max_batch),
        ),
        Column("train", "Train", lambda e: e.train, lambda e: e.train.lower()),
        Column("infer", "Infer", lambda e: e.infer_label, lambda e: e.infer_label.lower()),
        Column("link", "Link", lambda e: e.script_name, lambda e: e.script_name),
        Column("contributor", "Contributor", lambda e: e.contributor.name, lambda e: e.contributor.name.lower()),
        Column("model_id", "Model ID", lambda e: e.model_id or "", lambda e: _missing_last(e.model_id)),
        Column("tested", "Tested", lambda e: e.tested or "", lambda e: _missing_last(e.tested)),
        Column("evidence", "Evidence", lambda e: e.evidence or "", lambda e: _missing_last(e.evidence)),
        Column("notes", "Notes", lambda e: e.notes or "", lambda e: _missing_last(e.notes)),
        # Filled from the data set's estimates by each front end (estimate_text), not from the row alone.
        Column("estimate", "Estimate", lambda e: "", lambda e: 0),
    ]
}

DEFAULT_COLUMNS = ("tag", "model", "task", "resource", "maxbatch", "train", "infer", "link", "contributor")
ALIASES = {"max_batch": "maxbatch", "gpus": "resource", "script": "link", "modelid": "model_id"}

_BY_HEADER = {column.header.lower(): key for key, column in COLUMNS.items()}
"""A column by its header as the table shows it (``Model ID``)."""

FILTERS: dict[str, Callable[[Entry], str]] = {
    "tags": lambda e: e.tag,
    "tasks": lambda e: e.task,
    "devices": lambda e: e.device,
    "trains": lambda e: e.train,
    "infers": lambda e: e.infer,
}
"""Directive option name -> the row value it filters on (compared case-insensitively)."""


def estimate_text(gib: float | None) -> str:
    """The ``estimate`` column's cell: the lower bound of per-GPU memory (``≥ 17 GiB/GPU``)."""
    if gib is None:
        return ""
    return f"≥ {gib:.1f} GiB/GPU" if gib < 10 else f"≥ {gib:.0f} GiB/GPU"


def column_key(name: str) -> str | None:
    """The column a user-written name means (``MaxBatch``, ``max_batch``), or None."""
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key in COLUMNS:
        return key
    return _BY_HEADER.get(key)


def split_list(value: str) -> list[str]:
    """A comma (or whitespace) separated option value, blanks dropped."""
    return [part.strip() for part in value.replace(",", " ").split() if part.strip()]


def vocabulary(entries: Iterable[Entry], option: str) -> list[str]:
    """The values an option may name: tags are fixed, the rest are what the data holds."""
    if option == "tags":
        return ["MIN", "RECOMMENDED"]
    get = FILTERS[option]
    return sorted({get(e) for e in entries}, key=str.lower)


def apply_filters(entries: Sequence[Entry], wanted: dict[str, set[str]]) -> list[Entry]:
    """Keep the rows whose value for every given option is one of the wanted ones."""
    return [e for e in entries if all(FILTERS[opt](e).lower() in values for opt, values in wanted.items())]


def sort_entries(entries: Sequence[Entry], keys: Sequence[tuple[str, bool]]) -> list[Entry]:
    """Stable sort by (column, descending) pairs; the first pair decides first."""
    result = list(entries)
    for key, descending in reversed(keys):
        result.sort(key=COLUMNS[key].sort_key, reverse=descending)
    return result
