"""A config's parents, read through :class:`~..files.Files`: chained, bounded, honest about those it cannot read.

NeMo-RL (``defaults: ../../grpo_math_1B.yaml``) and ROLL (Hydra's ``- ../config/envs@_here_``)
name their parents differently but merge them the same way: parents first, in order,
then the file itself (unless it says where ``_self_`` goes).  Each framework says which
parents a document names (:data:`Parents`); this module reads them, at most
:data:`~.layers.MAX_INHERITANCE` deep and never in a circle, and turns a parent it cannot
read into an unknown layer (:meth:`~.layers.Merged.cover`) rather than skipping it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from sphinx_rlresources.safe.text import shown
from sphinx_rlresources.safe.yamlsafe import YamlDocument, YamlError, load
from sphinx_rlresources.scripts.files import Files
from sphinx_rlresources.scripts.frameworks.layers import MAX_INHERITANCE, Entry, Merged, flatten
from sphinx_rlresources.scripts.run import Problem

SELF = "_self_"
MAX_CONFIG_CHARS = 1_000_000
"""A larger parent is not read (its settings become unknown): recipes are a few KiB."""
MAX_MERGED = 200_000
"""Keys and layers one config may merge in all, its parents' included (a recipe's chain merges a few
hundred): a parent named many times, by parents named many times, would otherwise merge exponentially often."""


class Parent(NamedTuple):
    """One entry of a ``defaults:`` list: as written, and the file it names (None: not one this reader can open)."""

    written: str
    path: str | None


Parents = Callable[[Any, str], list[Parent]]
"""What a document (its plain value, its path from the root) inherits, in merge order; ``SELF`` marks itself."""


def merge_chain(
    document: YamlDocument, path: str, files: Files | None, parents: Parents, skip: frozenset[str]
) -> tuple[Merged, list[Problem]]:
    """The document merged over everything it inherits, and the problems met reading its parents."""
    reader = _Chain(files, parents, skip, document.mark(("defaults",))[0] if _has_defaults(document) else 0)
    merged = Merged()
    reader.merge(merged, document, path, "", 0, (path,))
    return merged, reader.problems


def _has_defaults(document: YamlDocument) -> bool:
    return isinstance(document.value, dict) and "defaults" in document.value


class _Chain:
    def __init__(self, files: Files | None, parents: Parents, skip: frozenset[str], line: int) -> None:
        self.files = files
        self.parents = parents
        self.skip = skip
        self.line = line
        self.problems: list[Problem] = []
        self.loaded: dict[str, YamlDocument | None] = {}
        """Each parent read so far (None: it could not be): one named many times is read and parsed once."""
        self.layers: dict[tuple[str, str], tuple[dict[str, Entry], list[str]]] = {}
        self.left = MAX_MERGED
        self.said: set[str] = set()

    def merge(
        self, merged: Merged, document: YamlDocument, path: str, label: str, depth: int, seen: tuple[str, ...]
    ) -> None:
        named = self.parents(document.value, path)
        if not any(p.written == SELF for p in named):
            named.append(Parent(SELF, None))
        merged.files.append(path)
        for parent in named:
            if parent.written == SELF:
                layer = self._layer(document, path, label)
                if self._afford(len(layer[0]), path):
                    merged.apply(*layer)
                else:
                    merged.cover(path or "the config itself")
                continue
            loaded = self._load(parent, path, depth, seen) if self._afford(0, parent.written) else None
            if loaded is None:
                merged.cover(parent.path or parent.written)
                continue
            self.merge(merged, loaded, parent.path or "", parent.path or "", depth + 1, (*seen, parent.path or ""))

    def _layer(self, document: YamlDocument, path: str, label: str) -> tuple[dict[str, Entry], list[str]]:
        """The document's keys, flattened once however often it is merged."""
        key = (path, label)
        if key not in self.layers:
            self.layers[key] = flatten(document, label, self.skip)
        return self.layers[key]

    def _afford(self, keys: int, name: str) -> bool:
        """Charge one layer and its keys to the chain's budget; False (said once) once it is spent."""
        before, self.left = self.left, self.left - keys - 1
        if self.left >= 0:
            return True
        if before >= 0:
            self._problem(
                f"merging the config's parents took more than {MAX_MERGED} keys and layers (a parent named many "
                f"times, or many parents) by {shown(name)}; what it and the rest set is unknown"
            )
        return False

    def _load(self, parent: Parent, including: str, depth: int, seen: tuple[str, ...]) -> YamlDocument | None:
        where = f"{shown(including)} inherits {shown(parent.written)}"
        if self.files is None:
            return None  # the caller reads no other file: what the parent sets is unknown, and that is no mistake
        if parent.path is None:
            self._problem(
                f"{where}, which is outside the repository or not a file this reader opens; what it sets is unknown"
            )
            return None
        if parent.path in seen:
            self._problem(f"{where}, which inherits it back (a circle); the framework would fail to load it", "error")
            return None
        if depth + 1 > MAX_INHERITANCE:
            self._problem(f"{where}, more than {MAX_INHERITANCE} levels of inheritance deep; what it sets is unknown")
            return None
        if parent.path not in self.loaded:
            self.loaded[parent.path] = self._read(self.files, parent.path, where)
        return self.loaded[parent.path]

    def _read(self, files: Files, path: str, where: str) -> YamlDocument | None:
        text = files.read(path)
        if text is None or len(text) > MAX_CONFIG_CHARS:
            self._problem(f"{where}, which cannot be read; what it sets is unknown")
            return None
        try:
            loaded = load(text, merge_keys=True)
        except YamlError as err:
            self._problem(f"{where}, which is not valid YAML here ({err.problems[0].message}); what it sets is unknown")
            return None
        return loaded if isinstance(loaded.value, dict) else None

    def _problem(self, message: str, severity: str = "warning") -> None:
        """One finding at the ``defaults:`` line; the same one is said once, however often its parent is named."""
        if message not in self.said:
            self.said.add(message)
            self.problems.append(Problem(self.line, message, "defaults", kind="other", severity=severity))
