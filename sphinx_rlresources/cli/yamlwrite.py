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
from sphinx_rlresources.safe.yamlsafe import YamlDate, YamlError, load

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


def _project_top(folder: Path) -> Path:
    """The repository a folder belongs to: the nearest folder above with ``.git`` (else ``pyproject.toml``)."""
    folder = folder.resolve()
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    for candidate in (folder, *folder.parents):
        if (candidate / "pyproject.toml").is_file():
            return candidate
    return folder


def schema_ref(out: Path) -> str | None:
    """What a new data file's ``# yaml-language-server: $schema=`` line points at, or None.

    Only a schema inside the same repository, as a path relative to the data file, so the
    line works for anyone who clones it: a copy written by ``rlresources schema --out``
    in the data folder or a folder above it (up to the repository's top), or the packaged
    schema when the package itself lives in that repository (as in ours).  Never a path
    into one person's installed environment.
    """
    from importlib import resources

    top = _project_top(out)
    here = out.resolve()
    for folder in (here, *here.parents):
        if (folder / SCHEMA_FILE).is_file():
            return Path(os.path.relpath(folder / SCHEMA_FILE, here)).as_posix()
        if folder == top:
            break
    try:
        packaged = Path(str(resources.files("sphinx_rlresources").joinpath("schema").joinpath(SCHEMA_FILE))).resolve()
    except (ValueError, TypeError):  # pragma: no cover - a zipped install
        return None
    if not packaged.is_relative_to(top) or {"site-packages", "dist-packages"} & set(packaged.parts):
        return None
    return Path(os.path.relpath(packaged, here)).as_posix()
