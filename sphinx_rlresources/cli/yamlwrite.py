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
from sphinx_rlresources.safe.text import one_line, visible
from sphinx_rlresources.safe.yamlsafe import YamlDate, YamlError, load

_PLAIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._+/@-]*$")
MAX_COMMENT = 160
"""The most characters of a ``#`` comment written beside a value (what a comment quotes is cut)."""
ALWAYS_QUOTED = frozenset({"infer_version"})
"""Fields written quoted whatever they hold: ``0.10`` must stay the text ``0.10``, not a number."""


def _quoted(text: str) -> str:
    """A YAML double-quoted scalar holding exactly ``text``, on one line whatever it holds.

    JSON's escapes are YAML's, but JSON leaves U+2028, U+0085 and other characters a
    YAML reader treats as line breaks (or a reader's eye skips) as they are; every
    character that is not plainly printable is written as an escape instead.
    """
    body = json.dumps(text, ensure_ascii=False)[1:-1]
    return '"' + "".join(c if c.isprintable() and c == visible(c) else f"\\u{ord(c):04x}" for c in body) + '"'


def yaml_scalar(value: Any, quoted: bool = False) -> str:
    """A YAML scalar that reads back as exactly ``value`` (quoted when in doubt, or when asked)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if not quoted and _PLAIN.match(text) and text == text.strip():
        try:  # plain only when YAML reads it back as this very text (not 7e3, yes, 2025-06-25)
            back = load(f"k: {text}\n").value
        except YamlError:
            back = None
        if back == {"k": text} and not isinstance(back["k"], YamlDate):
            return text
    return _quoted(text)


def yaml_comment(text: str) -> str:
    """``  # text`` for the end of a line: whatever ``text`` quotes from a script stays on that line."""
    return f"  # {one_line(text, MAX_COMMENT)}"


def entry_text(values: dict[str, Any], indent: str, comments: dict[str, str] | None = None) -> str:
    """One row of ``entries:`` as YAML lines, each value through :func:`yaml_scalar`, each comment through
    :func:`yaml_comment`: the one writer of rows, for ``import`` and ``new`` alike."""
    lines = []
    comments = comments or {}
    for index, (key, value) in enumerate(values.items()):
        prefix = f"{indent}- " if index == 0 else f"{indent}  "
        comment = yaml_comment(comments[key]) if key in comments else ""
        if isinstance(value, dict):
            lines.append(f"{prefix}{key}:{comment}")
            lines.extend(f"{indent}    {k}: {yaml_scalar(v)}" for k, v in value.items())
        else:
            lines.append(f"{prefix}{key}: {yaml_scalar(value, quoted=key in ALWAYS_QUOTED)}{comment}")
    return "\n".join(lines) + "\n"


def render_file(label: str, entries: Sequence[dict[str, Any]], schema_ref: str | None, source: str) -> str:
    lines = []
    if schema_ref:
        lines.append(f"# yaml-language-server: $schema={schema_ref}")
    lines.append(
        f"# Imported from {one_line(source, MAX_COMMENT)} by rlresources import; check it with rlresources lint."
    )
    lines.append(f"size: {yaml_scalar(label)}")
    lines.append("entries:" if entries else "entries: []")
    return "\n".join(lines) + "\n" + "".join(entry_text(entry, "  ") for entry in entries)


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
