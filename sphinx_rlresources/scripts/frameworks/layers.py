"""A recipe config merged from the files it inherits, key by key, remembering where each value was written.

NeMo-RL recipes inherit through ``defaults:`` (a chain of files, each relative to the
file naming it) and ROLL configs through Hydra's ``defaults:`` list; both then refer to
their own values with OmegaConf interpolation (``${policy.model_name}``).  A reader must
merge the chain as the framework does -- later files win, ``_override_: true`` replaces a
whole mapping -- and must stay honest when a parent cannot be read: whatever that parent
would set, and everything it could have overridden, becomes unknown rather than taken
from a grandparent.  Values stay plain (``safe.yamlsafe``): nothing is constructed and
nothing is evaluated beyond OmegaConf's references and the integer resolvers NeMo-RL
registers (``mul``, ``add``, ``max``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from sphinx_rlresources.safe.yamlsafe import Path_, YamlDocument
from sphinx_rlresources.scripts.frameworks.base import as_int
from sphinx_rlresources.scripts.run import UNKNOWN, Found, Origin

T = TypeVar("T")
MAX_INHERITANCE = 8
"""The deepest ``defaults:`` chain read (NeMo-RL's deepest is 5); deeper parents are unknown."""
MAX_REFERENCE_DEPTH = 8
"""How many ``${a}`` -> ``${b}`` hops are followed before the value is called unknown."""
_INNERMOST = re.compile(r"\$\{([^${}]*)\}")
_REFERENCE = re.compile(r"\.*[A-Za-z_][A-Za-z0-9_\-]*(?:\.[A-Za-z0-9_\-]+)*")
#: OmegaConf resolvers NeMo-RL registers (NVIDIA-NeMo/RL@7ea279a nemo_rl/utils/config.py:198-204), integers only here.
_RESOLVERS: dict[str, Callable[[int, int], int]] = {"mul": lambda a, b: a * b, "add": lambda a, b: a + b, "max": max}
_MAX_RESOLVED = 10**15
MAX_RESOLVED_CHARS = 65_536
"""A value whose references expand beyond this is unknown (``a: ${b}${b}``, ``b: ${c}${c}``... double each level)."""


@dataclass(frozen=True)
class Entry:
    """One leaf of the merged config: its plain value and where it was written.

    ``origin`` is ``SET`` for a value written in a config file, ``UNKNOWN`` when a parent
    that could not be read may have replaced it, or a script's origin for a value a
    launch command passes (``cluster.num_nodes=$NUM_NODES``).
    """

    value: Any
    origin: Origin = Origin.SET
    line: int = 0
    file: str = ""
    written: str = ""


class Merged:
    """The merged config of a recipe: each dotted key's :class:`Entry`, most recent layer last."""

    def __init__(self) -> None:
        self.entries: dict[str, Entry] = {}
        self.unread: list[str] = []
        """Files named as parents that could not be read, in the order they were met."""
        self.files: list[str] = []
        """Every file merged, parents first."""
        self.below: dict[str, set[str]] = {}
        """The keys under each mapping (``a`` -> ``a.b``, ``a.b.c``), so a replaced mapping's keys are found at once."""
        self.fresh: list[str] = []
        """Keys merged since the last unreadable parent: the only ones the next one must cover."""

    # -- building ---------------------------------------------------------------------
    def apply(self, layer: dict[str, Entry], replaced: list[str]) -> None:
        """Merge one file over what is there; ``replaced`` are mappings marked ``_override_: true``.

        The index of keys under each mapping keeps this linear in the keys merged: a scan
        of every key merged so far for each new one made a few hundred KB take minutes.
        """
        for prefix in replaced:
            self._drop(prefix)
            for key in list(self.below.get(prefix, ())):
                self._drop(key)
        for key, entry in layer.items():
            for stale in list(self.below.get(key, ())):
                self._drop(stale)  # a scalar replaces a whole mapping
            for cut in _parents(key):
                self._drop(cut)  # a mapping replaces a scalar
            if key not in self.entries:
                for mapping in _parents(key):
                    self.below.setdefault(mapping, set()).add(key)
            self.entries[key] = entry
            self.fresh.append(key)

    def _drop(self, key: str) -> None:
        if self.entries.pop(key, None) is not None:
            for mapping in _parents(key):
                self.below.get(mapping, set()).discard(key)

    def cover(self, name: str) -> None:
        """A parent that could not be read: anything merged before it may have been replaced by it.

        What an earlier unreadable parent covered is unknown already; only the keys merged
        since are covered now, so many unreadable parents do not each walk every key.
        """
        self.unread.append(name)
        for key in self.fresh:
            if key in self.entries:
                self.entries[key] = Entry(
                    None, Origin.UNKNOWN, 0, name, f"{key} (may be set by {name}, which was not read)"
                )
        self.fresh = []

    # -- reading ---------------------------------------------------------------------------
    def has(self, key: str) -> bool:
        return key in self.entries or bool(self.below.get(key))

    def entry(self, key: str) -> Entry | None:
        """The entry at ``key`` with its references resolved; None when no layer read sets it."""
        found = self.entries.get(key)
        if found is None:
            return None
        return self._resolved(key, found, 0, {})

    def found(self, key: str, convert: Callable[[Any], T | None]) -> Found[T]:
        """A setting as the merged config gives it: unknown when absent or when an unread parent may set it."""
        entry = self.entry(key)
        if entry is None:
            if self.unread:
                return Found(None, Origin.UNKNOWN, 0, f"{key} (may be set by {self.unread[-1]}, which was not read)")
            return UNKNOWN
        if entry.origin is Origin.UNKNOWN:
            return Found(None, Origin.UNKNOWN, 0, entry.written, entry.file)
        value = convert(entry.value) if entry.value is not None else None
        origin = entry.origin if value is not None or entry.origin is Origin.ENV else Origin.UNKNOWN
        if entry.origin is Origin.RUNTIME:
            origin = Origin.RUNTIME
        return Found(value, origin, entry.line, entry.written, entry.file)

    @property
    def complete(self) -> bool:
        """Whether every file of the chain was read (so an absent key is truly absent)."""
        return not self.unread

    # -- references -----------------------------------------------------------------------
    def _resolved(self, key: str, entry: Entry, depth: int, memo: Resolutions) -> Entry:
        value = entry.value
        if not isinstance(value, str) or "${" not in value:
            return entry
        resolved = self._interpolate(key, value, depth, memo)
        if resolved is _UNRESOLVED:
            return Entry(None, Origin.RUNTIME, entry.line, entry.file, entry.written)
        return Entry(resolved, entry.origin, entry.line, entry.file, f"{entry.written} = {resolved}")

    def _interpolate(self, key: str, text: str, depth: int, memo: Resolutions) -> Any:
        """``${a.b}``, ``${.sibling}`` and ``${mul:${a}, 4}`` inside ``text``; ``_UNRESOLVED`` when not known.

        ``memo`` holds each (key, depth) already resolved in this resolution: references
        that fan out (``a: ${b} ${b}``, ``b: ${c} ${c}``...) are each resolved once, not
        once per path to them.
        """
        if depth >= MAX_REFERENCE_DEPTH or len(text) > MAX_RESOLVED_CHARS:
            return _UNRESOLVED
        typed: Any = _UNRESOLVED
        for _ in range(64):  # one innermost ${...} at a time; a value has a handful
            match = _INNERMOST.search(text)
            if match is None:
                break
            value = self._one(key, match.group(1).strip(), depth, memo)
            if value is _UNRESOLVED or isinstance(value, (dict, list)):
                return _UNRESOLVED
            if match.start() == 0 and match.end() == len(text):
                typed = value
            text = text[: match.start()] + _shown(value) + text[match.end() :]
            if len(text) > MAX_RESOLVED_CHARS:
                return _UNRESOLVED
        else:
            return _UNRESOLVED
        if "${" in text:
            return _UNRESOLVED
        return typed if typed is not _UNRESOLVED else text

    def _one(self, key: str, inner: str, depth: int, memo: Resolutions) -> Any:
        name, colon, args = inner.partition(":")
        if colon:
            resolver = _RESOLVERS.get(name.strip())
            numbers = [as_int(a) for a in args.split(",")]
            if resolver is None or len(numbers) != 2 or any(n is None for n in numbers):
                return _UNRESOLVED  # ${oc.env:HOME} and kin: decided where it runs
            result = resolver(numbers[0] or 0, numbers[1] or 0)
            return result if abs(result) < _MAX_RESOLVED else _UNRESOLVED
        if not _REFERENCE.fullmatch(inner):
            return _UNRESOLVED
        target = _absolute(key, inner)
        if target is None:
            return _UNRESOLVED
        found = self.entries.get(target)
        if found is None or found.origin is Origin.UNKNOWN or found.origin is Origin.RUNTIME:
            return _UNRESOLVED
        if isinstance(found.value, str) and "${" in found.value:
            if (target, depth + 1) not in memo:
                memo[target, depth + 1] = self._interpolate(target, found.value, depth + 1, memo)
            return memo[target, depth + 1]
        return found.value


Resolutions = dict[tuple[str, int], Any]
"""Each (key, depth) resolved so far in one resolution, with what it resolved to."""


class _Unresolved:
    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return "<unresolved>"


_UNRESOLVED: Any = _Unresolved()


def _shown(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _parents(key: str) -> Iterator[str]:
    parts = key.split(".")
    for end in range(1, len(parts)):
        yield ".".join(parts[:end])


def _absolute(key: str, reference: str) -> str | None:
    """OmegaConf's reference: ``a.b`` from the root, ``.x`` beside ``key``, ``..x`` one level up."""
    dots = len(reference) - len(reference.lstrip("."))
    if not dots:
        return reference
    parts = key.split(".")[:-1]  # the mapping holding key
    up = dots - 1
    if up > len(parts):
        return None
    base = parts[: len(parts) - up]
    return ".".join([*base, reference[dots:]])


def flatten(
    document: YamlDocument, file: str, skip: frozenset[str] = frozenset()
) -> tuple[dict[str, Entry], list[str]]:
    """Every leaf of a YAML document as ``dotted.key -> Entry``, and the mappings marked ``_override_: true``.

    ``file`` is the path shown for an inherited file ('' for the config itself); ``skip``
    names top-level keys that are not settings (``defaults``).
    """
    layer: dict[str, Entry] = {}
    replaced: list[str] = []
    stack: list[tuple[Path_, Any]] = [((), document.value)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            if path and value.get("_override_") is True:
                replaced.append(".".join(str(p) for p in path))
            for name, item in value.items():
                if (not path and name in skip) or name == "_override_" or "." in name:
                    continue
                stack.append(((*path, name), item))
            continue
        key = ".".join(str(p) for p in path)
        line = document.mark(path)[0]
        source = document.source.get(path)
        shown = source if source is not None else _short(value)
        layer[key] = Entry(value, Origin.SET, line, file, f"{key}: {shown}")
    return layer, replaced


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
