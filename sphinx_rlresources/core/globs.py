"""Globs from the repository root (``examples/configs/recipes/**/*.yaml``), matched in linear time.

The ``launch_files`` setting comes from ``pyproject.toml``, which arrives in pull
requests like any file, so no glob may make matching slow.  A path is split at ``/``;
each name is matched against its glob segment by :func:`fnmatch.fnmatchcase`'s
translation, which since Python 3.9 emulates atomic groups so that its ``*`` never
backtracks; a segment with no wildcard is compared as text; ``**`` segments are handled
by a table over (segment, path name) pairs, one row kept at a time.

The syntax is the usual one: ``*`` any run of characters within a name, ``?`` one
character, ``[abc]``, ``[a-z]`` and ``[!abc]`` one character of (or not of) a class,
and a whole segment ``**`` any number of folders (none included).  An unclosed ``[`` is
refused, not read as a literal, so a typo does not silently match nothing.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from sphinx_rlresources.core.naming import MAX_PATTERN

Segment = re.Pattern[str] | str | None
"""A compiled segment: a pattern with wildcards, a plain name, or None for ``**``."""


def _closed(segment: str, offset: int) -> None:
    """ValueError when a ``[`` of the segment has no ``]`` (``offset``: where the segment starts, for messages)."""
    index = 0
    while index < len(segment):
        if segment[index] == "[":
            end = index + 1
            end += end < len(segment) and segment[end] == "!"
            end += end < len(segment) and segment[end] == "]"  # a ']' first is a member: '[]a]'
            close = segment.find("]", end)
            if close < 0:
                raise ValueError(f"has a '[' at character {offset + index + 1} without its ']'")
            index = close
        index += 1


def _segment(part: str, offset: int) -> Segment:
    if part == "**":
        return None
    _closed(part, offset)
    if not any(char in part for char in "*?["):
        return part
    return re.compile(fnmatch.translate(re.sub(r"\*\*+", "*", part)))


@dataclass(frozen=True)
class Glob:
    """A compiled glob: one entry per segment."""

    text: str
    segments: tuple[Segment, ...]

    def matches(self, path: str) -> bool:
        """Whether a ``/``-separated path from the root matches the whole glob."""
        names = path.split("/")
        # reach[j]: the segments so far can match the first j names (the table's row, kept one at a time).
        reach = [True] + [False] * len(names)
        for seg in self.segments:
            if seg is None:  # '**': any number of names, none included
                seen = False
                for j, here in enumerate(reach):
                    seen = seen or here
                    reach[j] = seen
            else:
                reach = [False] + [reach[j] and _one(seg, name) for j, name in enumerate(names)]
            if not any(reach):
                return False
        return reach[-1]

    @property
    def base(self) -> str:
        """The folder the glob's literal leading segments name (``examples/configs/recipes``), or ``""``."""
        fixed: list[str] = []
        for seg in self.segments[:-1]:
            if not isinstance(seg, str):
                break
            fixed.append(seg)
        return "/".join(fixed)


def _one(seg: re.Pattern[str] | str, name: str) -> bool:
    return seg == name if isinstance(seg, str) else seg.match(name) is not None


def compile_glob(text: str) -> Glob:
    """A glob from the root, compiled; ValueError says what is wrong with it."""
    if not text or len(text) > MAX_PATTERN:
        raise ValueError(f"must be a glob of 1 to {MAX_PATTERN} characters")
    if text.startswith("/") or ".." in text.split("/") or "\\" in text:
        raise ValueError("must be a glob from the repository root with '/' between folders and no '..'")
    parts = text.split("/")
    if "" in parts:
        raise ValueError("has an empty folder name ('//' or a trailing '/')")
    starts = [sum(len(p) + 1 for p in parts[:i]) for i in range(len(parts))]
    return Glob(text, tuple(_segment(part, start) for part, start in zip(parts, starts, strict=True)))


@dataclass(frozen=True)
class Scope:
    """Which files are launch files: included by a glob and not excluded by a ``!glob``."""

    include: tuple[Glob, ...]
    exclude: tuple[Glob, ...]

    def contains(self, path: str) -> bool:
        return any(g.matches(path) for g in self.include) and not any(g.matches(path) for g in self.exclude)

    @property
    def bases(self) -> tuple[str, ...]:
        """The folders the include globs start in, where the files are looked for."""
        return tuple(dict.fromkeys(g.base for g in self.include))


def compile_scope(items: list[str] | tuple[str, ...]) -> Scope:
    """``["examples/**/*.sh", "!examples/debug/**"]`` as a :class:`Scope`; ValueError names the item that is wrong."""
    include: list[Glob] = []
    exclude: list[Glob] = []
    for item in items:
        if not isinstance(item, str):
            raise ValueError("must be a list of globs (strings)")
        negated = item.startswith("!")
        try:
            glob = compile_glob(item[1:] if negated else item)
        except ValueError as err:
            raise ValueError(f"item '{item[:80]}' {err}") from None
        (exclude if negated else include).append(glob)
    if exclude and not include:
        raise ValueError("has only '!' exclusions; name the launch files too, e.g. 'examples/**/*.sh'")
    return Scope(tuple(include), tuple(exclude))


def scope_problem(value: object) -> str | None:
    """Why a ``launch_files`` setting is unusable, or None (the settings table's rule)."""
    if value is None:
        return None
    if not isinstance(value, list):
        return "must be a list of globs, e.g. ['examples/**/*.sh', '!examples/debug/**'], or [] to turn the check off"
    try:
        compile_scope(value)
    except ValueError as err:
        return f"{err}; e.g. ['examples/configs/recipes/**/*.yaml', '!**/*-quick*.yaml']"
    return None
