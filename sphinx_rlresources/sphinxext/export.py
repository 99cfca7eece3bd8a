"""The validated rows as JSON, for tools and pages other than the tables.

The format is a promise to other programs, so it is versioned: ``schema_version``
changes only when a key is removed or changes meaning (adding a key does not bump
it).  Every key is always present (``null`` when a row leaves it out), rows come in
size order and then file order, and nothing in the output depends on the clock, the
machine or the build folder, so two builds of the same data are byte-identical.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import encode_basestring
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx_rlresources.core.columns import COLUMNS, CellContext
from sphinx_rlresources.core.gcpause import without_gc
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
        "source": {"path": source_path, "line": entry.source.line},
        "cells": {key: cell.text for key, cell in cells.items() if cell.text},
        "links": {key: {"url": cell.url, "title": cell.title} for key, cell in cells.items() if cell.url},
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


@without_gc  # an object per cell of every row, all alive until dumped: see gcpause
def dataset_json(dataset: DataSet, template: str | None = None, ref: str = "main") -> str:
    """The file's text: UTF-8 JSON, two-space indents, a final newline."""
    return json_escaped(indented_json(dataset_object(dataset, template, ref))) + "\n"


_CONSTANTS = {None: "null", True: "true", False: "false"}


def indented_json(value: Any) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)``, byte for byte, in two thirds of the time.

    Python writes indented JSON in pure Python, through a generator per nesting level
    (its C encoder does not indent): 0.26 s for the export of 10,000 rows, where this
    takes 0.17 s.  Strings go through the standard library's own (C) escaping.  A value
    other than a dict, list, tuple, str, int, bool, float or None raises ``TypeError``,
    as ``json.dumps`` does, and so does a key that is not a string (the export has none;
    ``json.dumps`` would write it as one).
    """
    out: list[str] = []
    _put(value, "", out.append)
    return "".join(out)


def _put(item: Any, indent: str, write: Callable[[str], object]) -> None:
    kind = type(item)
    if kind is str:
        write(encode_basestring(item))
    elif kind is dict or kind is list:
        _put_members(item, indent, write)
    elif item is None or kind is bool:
        write(_CONSTANTS[item])
    elif kind is int:
        write(int.__repr__(item))
    elif isinstance(item, str):  # a subclass, written as its text (as json.dumps does)
        write(encode_basestring(item))
    elif isinstance(item, (dict, list, tuple)):  # a subclass, or a tuple: as json.dumps does
        _put_members(dict(item) if isinstance(item, dict) else list(item), indent, write)
    else:  # floats, and the TypeError of anything JSON cannot hold
        write(json.dumps(item))


def _put_members(item: dict[Any, Any] | list[Any], indent: str, write: Callable[[str], object]) -> None:
    mapping = type(item) is dict
    if not item:
        write("{}" if mapping else "[]")
        return
    inner = indent + "  "
    lead = ("{\n" if mapping else "[\n") + inner
    if isinstance(item, dict):
        for key, member in item.items():
            if type(key) is not str:
                raise TypeError(f"keys must be str, not {type(key).__name__}")
            write(lead + encode_basestring(key) + ": ")
            lead = ",\n" + inner
            _put(member, inner, write)
    else:
        for member in item:
            write(lead)
            lead = ",\n" + inner
            _put(member, inner, write)
    write("\n" + indent + ("}" if mapping else "]"))


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
