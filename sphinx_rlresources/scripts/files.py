"""How the reader asks for another file of the repository: a sourced script, an inherited config.

The reader never opens a path itself.  Its caller passes a :class:`Files` that answers
for paths *relative to the repository root*, and keeps every rule about which files may
be read (inside the root, regular files, bounded, at a pinned commit from git) in one
place in the core.  Here only the candidates are worked out: bash resolves a relative
``source`` against the working folder (usually the repository root) and launchers write
``source "${SCRIPT_DIR}/models/x.sh"``, whose folder is the script's own.
"""

from __future__ import annotations

import posixpath
from typing import Protocol


class Files(Protocol):
    """Reads a repository file by its path from the root; None when it may not or cannot be read."""

    def read(self, path: str) -> str | None: ...


def inside(path: str) -> str | None:
    """``path`` normalised, when it stays inside the root (no leading ``/``, no ``..`` out)."""
    if not path or path.startswith("/"):
        return None
    normal = posixpath.normpath(path)
    if normal == ".." or normal.startswith("../") or normal == ".":
        return None
    return normal


def candidates(script: str, value: str | None, tail: str) -> list[str]:
    """Where ``source VALUE`` may lead, nearest first; ``tail`` is the known end of an unknown value."""
    folder = posixpath.dirname(script)
    found: list[str] = []
    if value is not None:
        found += [posixpath.join(folder, value), value]
    elif tail.startswith("/"):  # "${SCRIPT_DIR}/models/x.sh": the script's folder, or the root
        parts = tail.strip("/").split("/")
        found += [posixpath.join(folder, tail.lstrip("/"))]
        found += ["/".join(parts[i:]) for i in range(len(parts))]
    return [p for p in dict.fromkeys(inside(c) for c in found) if p]


def relative_to(including: str, target: str) -> str | None:
    """A path named inside a file (a config's ``defaults:``), from the root."""
    return inside(posixpath.join(posixpath.dirname(including), target))
