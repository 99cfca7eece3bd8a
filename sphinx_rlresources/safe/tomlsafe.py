"""Read untrusted TOML into plain values, remembering the line each key was written on.

A framework's TOML config (prime-rl's ``rl.toml``) comes from a repository the tool does
not trust, as its YAML does (:mod:`.yamlsafe`): the text is bounded in size and nesting
before the standard parser sees it (``tomllib``, or ``tomli`` on Python 3.10, which
recurse into nested arrays and inline tables), and a syntax error becomes a
:class:`TomlError` with its line and column, never a traceback.  TOML's parser keeps no
positions, so a line scan beside it records where each table header and each
``key = value`` stands; a value it cannot place (a key inside a multi-line array or
string) keeps the line of the nearest key above it that it can.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10: the same parser, packaged as tomli
    import tomli as tomllib

MAX_CHARS = 1_000_000
"""Longer text is not a config anyone writes by hand."""
MAX_DEPTH = 64
"""Deeper nesting (arrays, inline tables, dotted header parts) is never a config, and would exhaust the stack."""
Path_ = tuple[str, ...]
_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


@dataclass(frozen=True)
class TomlError(Exception):
    """Why a text is not TOML this reader reads: where (1-based; 0 for the text as a whole) and what."""

    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}, column {self.column}: {self.message}"


@dataclass(frozen=True)
class TomlDocument:
    """The parsed tables and the line of each table header and key, by its dotted path."""

    value: dict[str, Any]
    lines: dict[Path_, int] = field(default_factory=dict)

    def line(self, path: Path_) -> int:
        """The line that writes ``path`` (its own key, else the nearest enclosing key or header); 0 if none."""
        for end in range(len(path), 0, -1):
            found = self.lines.get(path[:end])
            if found:
                return found
        return 0


def _parts(text: str) -> Path_ | None:
    """``a."b.c".d`` -> (``a``, ``b.c``, ``d``); None when it is not a plain dotted key.

    A plain loop, linear in the text: a regular expression with nested repetition can
    take quadratic time on a long line of spaces, and this text is untrusted.
    """
    parts: list[str] = []
    index, size = 0, len(text)
    while True:
        while index < size and text[index] in " \t":
            index += 1
        if index < size and text[index] in "\"'":
            close = text.find(text[index], index + 1)
            if close < 0:
                return None
            parts.append(text[index + 1 : close])
            index = close + 1
        else:
            begin = index
            while index < size and text[index] in _BARE:
                index += 1
            if index == begin:
                return None
            parts.append(text[begin:index])
        while index < size and text[index] in " \t":
            index += 1
        if index == size:
            return tuple(parts)
        if text[index] != ".":
            return None
        index += 1


def _nesting(text: str) -> int:
    """The deepest nesting of ``[``/``{`` outside strings and comments, a bound checked before parsing."""
    depth = deepest = 0
    quote = ""
    comment = False
    for char in text:
        if comment:
            comment = char != "\n"
        elif quote:
            quote = "" if char == quote or char == "\n" else quote
        elif char in "\"'":
            quote = char
        elif char == "#":
            comment = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth = max(0, depth - 1)
    return deepest


def _positions(text: str) -> dict[Path_, int]:
    """Each table header's path and each ``key =``'s full path, with its 1-based line."""
    lines: dict[Path_, int] = {}
    table: Path_ = ()
    in_string = ""
    for number, line in enumerate(text.splitlines(), start=1):
        if in_string:
            if in_string in line:
                in_string = ""
            continue
        stripped = line.strip()
        if stripped.startswith("["):
            body = stripped.split("#", 1)[0].rstrip()
            depth = 2 if body.startswith("[[") and body.endswith("]]") else 1
            parts = _parts(body[depth:-depth]) if body.endswith("]") else None
            if parts is not None:
                table = parts
                lines.setdefault(table, number)
            continue
        key, sep, rest = line.partition("=")
        parts = _parts(key) if sep else None
        if parts is None:
            continue
        lines.setdefault((*table, *parts), number)
        for fence in ('"""', "'''"):
            if rest.count(fence) == 1:
                in_string = fence
    return lines


def load(text: str) -> TomlDocument:
    """Parse ``text``, bounded; raises :class:`TomlError` (with line and column) for anything else."""
    if len(text) > MAX_CHARS:
        raise TomlError(0, 0, f"the file is longer than {MAX_CHARS} characters; it was not read")
    deepest = _nesting(text)
    if deepest > MAX_DEPTH:
        raise TomlError(0, 0, f"arrays or inline tables nest {deepest} deep, more than {MAX_DEPTH}; it was not read")
    try:
        value = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        message = str(err)
        where = _POSITION.search(message)
        line, column = (int(where.group(1)), int(where.group(2))) if where else (0, 0)
        if where is None and "end of document" in message:
            line, column = text.count("\n") + 1, len(text) - text.rfind("\n")
        shown = _POSITION.sub("", message).replace("(at end of document)", "at the end of the file").strip()
        raise TomlError(line, column, shown) from None
    except RecursionError:  # pragma: no cover - bounded by the nesting check above
        raise TomlError(0, 0, "nested too deep to read") from None
    lines = _positions(text)
    if any(len(path) > MAX_DEPTH for path in lines):
        raise TomlError(0, 0, f"a key nests more than {MAX_DEPTH} tables deep; it was not read")
    return TomlDocument(value, lines)


__all__ = ["MAX_CHARS", "MAX_DEPTH", "TomlDocument", "TomlError", "load"]
