"""Writing data-file YAML as text, for ``rlresources import`` and ``rlresources new``.

Text, not a YAML dump: the files are meant to be read and edited by people, and every
scalar is written so that the safe reader gives back exactly the value (quoted when in
doubt).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sphinx_rlresources.core.validation import SCHEMA_FILE
from sphinx_rlresources.core.yamlsafe import YamlDate, YamlError, load

_PLAIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._+/@-]*$")


def yaml_scalar(value: Any) -> str:
    """A YAML scalar that reads back as exactly ``value`` (JSON quoting when in doubt)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if _PLAIN.match(text) and text == text.strip():
        try:  # plain only when YAML reads it back as this very text (not 7e3, yes, 2025-06-25)
            back = load(f"k: {text}\n").value
        except YamlError:
            back = None
        if back == {"k": text} and not isinstance(back["k"], YamlDate):
            return text
    return json.dumps(text, ensure_ascii=False)


def render_file(label: str, entries: Sequence[dict[str, Any]], schema_ref: str | None, source: str) -> str:
    lines = []
    if schema_ref:
        lines.append(f"# yaml-language-server: $schema={schema_ref}")
    lines.append(f"# Imported from {source} by rlresources import; check it with rlresources lint.")
    lines.append(f"size: {yaml_scalar(label)}")
    if not entries:
        lines.append("entries: []")
    else:
        lines.append("entries:")
        for entry in entries:
            first = True
            for key, value in entry.items():
                prefix = "  - " if first else "    "
                first = False
                if key == "infer_version":
                    lines.append(f"{prefix}{key}: {json.dumps(str(value))}")
                elif isinstance(value, dict):
                    lines.append(f"{prefix}{key}:")
                    lines.extend(f"      {k}: {yaml_scalar(v)}" for k, v in value.items())
                else:
                    lines.append(f"{prefix}{key}: {yaml_scalar(value)}")
    return "\n".join(lines) + "\n"


def schema_ref(out: Path) -> str | None:
    """What a new data file's ``# yaml-language-server: $schema=`` line should point at.

    A copy written by ``rlresources schema > DATA/rlresources.schema.json`` first; else
    the packaged schema when it lives in a source checkout (as in this repository); never
    a path into an installed environment, which would differ on every machine.
    """
    from importlib import resources

    if (out / SCHEMA_FILE).is_file():
        return SCHEMA_FILE
    try:
        packaged = Path(str(resources.files("sphinx_rlresources").joinpath("schema").joinpath(SCHEMA_FILE)))
        if {"site-packages", "dist-packages"} & set(packaged.parts):
            return None
        return Path(os.path.relpath(packaged, out.resolve())).as_posix()
    except (ValueError, TypeError):
        return None
