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
from typing import TYPE_CHECKING, Any

from sphinx_rlresources.core.columns import COLUMNS, CellContext
from sphinx_rlresources.core.model import DataSet, Entry
from sphinx_rlresources.core.paths import real_path
from sphinx_rlresources.core.query import select
from sphinx_rlresources.safe.text import json_escaped
from sphinx_rlresources.sphinxext.store import store_of
from sphinx_rlresources.sphinxext.warnings import warn_file

if TYPE_CHECKING:
    from sphinx.application import Sphinx

SCHEMA_VERSION = 1
OUTPUT_PATH = "_static/rlresources/data.json"
"""Where HTML builds write the file, relative to the output folder."""


def _shown_path(path: Path, root: Path) -> str:
    """A path relative to the repository root; only the file name when it lies outside (or loops)."""
    try:
        return real_path(path).relative_to(real_path(root)).as_posix()
    except ValueError:
        return path.name


def row_object(entry: Entry, source_path: str, context: CellContext) -> dict[str, Any]:
    """One row: the data file's fields, where it was written, and every column's cell as the table shows it.

    ``cells`` holds each column's text (empty ones left out: the file is read by
    programs, and a 2,000-row site would carry thousands of empty strings) and
    ``links`` the target and title of each linked cell, so a column added to
    :data:`~sphinx_rlresources.core.columns.COLUMNS` reaches readers of the file
    without a change here.
    """
    contributor = entry.contributor
    cells = {key: column.cell(entry, context) for key, column in COLUMNS.items()}
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
        "script_ref": entry.script_ref,
        "script_url": cells["link"].url,
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
        "seq_len": dict(entry.seq_len) or None,
        "global_batch": entry.global_batch,
        "parallelism": dict(entry.parallelism) or None,
        "throughput": entry.throughput,
        "step_time": entry.step_time,
        "peak_memory": entry.peak_memory,
        "description": entry.description,
        "source": {"path": source_path, "line": entry.source.line},
        "cells": {key: cell.text for key, cell in cells.items() if cell.text},
        "links": {key: {"url": cell.url, "title": cell.title} for key, cell in cells.items() if cell.url},
        "runs": {key: [[run.text, run.url] for run in cell.runs] for key, cell in cells.items() if cell.runs},
    }


def dataset_object(dataset: DataSet, template: str | None = None, ref: str = "main") -> dict[str, Any]:
    """The whole data set: one object per size (readable or not) and the flat list of rows."""
    sizes: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    chosen = select(dataset, "all")
    context = CellContext(dataset, template, ref)
    for size in chosen.sizes:
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
            rows.extend(row_object(e, source, context) for e in size.entries)
    return {
        "schema_version": SCHEMA_VERSION,
        "generator": "sphinx-rlresources",
        "sizes": sizes,
        "rows": rows,
    }


def dataset_json(dataset: DataSet, template: str | None = None, ref: str = "main") -> str:
    """The file's text: UTF-8 JSON, two-space indents, a final newline."""
    return json_escaped(json.dumps(dataset_object(dataset, template, ref), indent=2, ensure_ascii=False)) + "\n"


def write_json(app: Sphinx, exception: BaseException | None) -> None:
    """Write the validated rows for HTML sites (EPUB's manifest is closed by now, so not there)."""
    if exception is not None or app.builder.format != "html" or app.builder.name.startswith("epub"):
        return
    dataset = store_of(app.env).dataset
    if dataset is None:  # pragma: no cover - env-before-read-docs always runs first
        return
    path = Path(app.outdir) / OUTPUT_PATH
    text = dataset_json(dataset, app.config.rlresources_script_url, app.config.rlresources_script_ref)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    except OSError as err:
        warn_file(f"cannot write {path} ({err.strerror or err}); the JSON copy of the data is missing from the site")


def register(app: Sphinx) -> None:
    app.connect("build-finished", write_json)
