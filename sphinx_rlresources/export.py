"""The validated rows as JSON, for tools and pages other than the tables.

The format is a promise to other programs, so it is versioned: ``schema_version``
changes only when a key is removed or changes meaning (adding a key does not bump
it).  Every key is always present (``null`` when a row leaves it out), rows come in
size order and then file order, and nothing in the output depends on the clock, the
machine or the build folder, so two builds of the same data are byte-identical.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .model import DataSet, Entry

SCHEMA_VERSION = 1
OUTPUT_PATH = "_static/rlresources/data.json"
"""Where HTML builds write the file, relative to the output folder."""


def _shown_path(path: Path, root: Path) -> str:
    """A path relative to the repository root; only the file name when it lies outside."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        return path.name


def row_object(entry: Entry, source_path: str, script_url: str | None) -> dict[str, Any]:
    """One row: the data file's fields, plus where it was written and the script's URL."""
    contributor = entry.contributor
    return {
        "size": entry.size,
        "tag": entry.tag,
        "model": entry.model,
        "task": entry.task,
        "gpus": entry.gpus,
        "device": entry.device,
        "max_batch": entry.max_batch,
        "train": entry.train,
        "infer": entry.infer,
        "infer_version": entry.infer_version,
        "script": entry.script,
        "script_url": script_url,
        "contributor": {
            "name": contributor.name,
            "github": contributor.github,
            "url": contributor.url,
            "email": contributor.email,
        },
        "model_id": entry.model_id,
        "tested": entry.tested,
        "evidence": entry.evidence,
        "notes": entry.notes,
        "source": {"path": source_path, "line": entry.source.line},
    }


def script_url(entry: Entry, template: str | None, ref: str) -> str | None:
    """The URL the Link column uses when a template is configured."""
    if not template:
        return None
    url = template.format(ref=ref, path=Path(entry.script).as_posix())
    return url if url.startswith(("http://", "https://")) and not any(c.isspace() for c in url) else None


def dataset_object(dataset: DataSet, template: str | None = None, ref: str = "main") -> dict[str, Any]:
    """The whole data set: one object per size (readable or not) and the flat list of rows."""
    sizes: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    for size in dataset.sizes.values():
        source = _shown_path(size.path, dataset.root)
        sizes.append(
            {
                "size": size.label,
                "source": source,
                "readable": size.readable,
                "rows": len(size.entries) if size.readable else 0,
            }
        )
        if size.readable:
            rows.extend(row_object(e, source, script_url(e, template, ref)) for e in size.entries)
    return {
        "schema_version": SCHEMA_VERSION,
        "generator": "sphinx-rlresources",
        "sizes": sizes,
        "rows": rows,
    }


def dataset_json(dataset: DataSet, template: str | None = None, ref: str = "main") -> str:
    """The file's text: UTF-8 JSON, two-space indents, a final newline."""
    return json.dumps(dataset_object(dataset, template, ref), indent=2, ensure_ascii=False) + "\n"
