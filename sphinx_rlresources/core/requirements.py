"""What a repository's package metadata requires of the rollout engines: ``vllm>=0.8.5`` in ``setup.py``.

A row's engine version older than every version the framework accepts at the row's
commit cannot be what ran (the package refuses to install beside it), so the row is
out of date.  The metadata is read as text -- ``setup.py`` is never run -- from the
working tree, or from git at a pinned row's ref: ``setup.py``, ``pyproject.toml`` and
``requirements*.txt`` at the top of the repository.  Where several places state a
lower bound (extras for different backends), the loosest one counts, so a finding
means no declared extra accepts the row's version.
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinx_rlresources.core import git
from sphinx_rlresources.core.paths import read_regular, real_path
from sphinx_rlresources.scripts.run import Requirement

MAX_METADATA_BYTES = 1_000_000
_FILES = re.compile(r"setup\.py|pyproject\.toml|requirements[A-Za-z0-9_.-]*\.txt")
_BOUND = re.compile(
    r"\b(vllm|sglang)\b(?:\[[^\]\n]{0,80}\])?\s*(?:>=|~=|==)\s*([0-9]+(?:\.[0-9]+){1,3})", re.IGNORECASE
)


def parse(text: str, source: str) -> list[Requirement]:
    """Every lower bound on vLLM or SGLang the text states, with its line."""
    found = []
    for number, line in enumerate(text.splitlines()[:20_000], start=1):
        stripped = line.lstrip()
        if stripped.startswith("#"):
            continue
        for match in _BOUND.finditer(line[:1000]):
            found.append(Requirement(match.group(1).lower(), match.group(2), number, source))
    return found


def loosest(found: list[Requirement]) -> tuple[Requirement, ...]:
    """Per engine, the lowest of the lower bounds: the only one every declared setup must meet."""
    best: dict[str, Requirement] = {}
    for item in found:
        key = tuple(int(p) for p in item.version.split("."))
        current = best.get(item.engine)
        if current is None or key < tuple(int(p) for p in current.version.split(".")):
            best[item.engine] = item
    return tuple(best[engine] for engine in sorted(best))


def declared(root: Path, ref: str | None, repo: git.Repo | None = None) -> tuple[Requirement, ...]:
    """The loosest engine bounds the repository's metadata declares, in the working tree or at ``ref``."""
    found: list[Requirement] = []
    if ref is None:
        top = real_path(root)
        try:
            names = sorted(p.name for p in top.iterdir() if _FILES.fullmatch(p.name))
        except OSError:
            return ()
        for name in names[:20]:
            try:
                data = read_regular(top / name, MAX_METADATA_BYTES)
            except OSError:
                continue
            if len(data) <= MAX_METADATA_BYTES:
                found += parse(data.decode("utf-8", errors="replace"), name)
        return loosest(found)
    try:
        repo = repo or git.Repo(root)
        names = [name for name in repo.list_folder(ref, "") if _FILES.fullmatch(name)][:20]
        blobs = repo.read([(ref, name) for name in names], MAX_METADATA_BYTES) if names else None
    except git.GitUnavailable:
        return ()
    for name in names:
        blob = blobs.files.get((ref, name)) if blobs else None
        if blob is not None and blob.data is not None:
            found += parse(blob.data.decode("utf-8", errors="replace"), f"{name} at {ref}")
    return loosest(found)
