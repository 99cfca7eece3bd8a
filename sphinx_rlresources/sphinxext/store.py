"""Sphinx glue: load the data once per build, report it once, track which pages draw what.

The data is loaded in the main process at ``env-before-read-docs``, before Sphinx forks
its parallel readers, so every reader shares one loaded and checked data set and each
problem is reported once per build, not once per page or per process.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx_rlresources.core.loader import LoadOptions, data_files, load_dataset
from sphinx_rlresources.core.model import DataSet
from sphinx_rlresources.core.naming import naming_rule
from sphinx_rlresources.sphinxext.warnings import info, warn

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

ALL = "*"
"""The key a page that draws every size (``all``) is recorded under."""


class Store:
    """What the extension keeps on the environment.

    ``uses`` (docname -> size keys it draws) and ``files`` (the data files seen) persist
    between builds so that an added or removed data file re-reads exactly the pages it
    concerns.  The loaded data set is rebuilt every build and never pickled.
    """

    def __init__(self) -> None:
        self.uses: dict[str, set[str]] = {}
        self.files: tuple[str, ...] = ()
        self.dataset: DataSet | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"uses": self.uses, "files": self.files}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.uses = state["uses"]
        self.files = state["files"]
        self.dataset = None


def store(env: BuildEnvironment) -> Store:
    existing = getattr(env, "rlresources", None)
    if not isinstance(existing, Store):
        existing = Store()
        env.rlresources = existing  # type: ignore[attr-defined]
    return existing


def paths(app: Sphinx) -> tuple[Path, Path]:
    """The data folder and the root, absolute but not resolved: the loader must see a link as a link."""
    confdir = Path(app.confdir)
    return (
        Path(os.path.normpath(confdir / app.config.rlresources_data_dir)),
        Path(os.path.normpath(confdir / app.config.rlresources_root)),
    )


def load_options(app: Sphinx) -> LoadOptions:
    """The loader options conf.py asks for (other issues' checks extend this)."""
    return LoadOptions(
        max_file_bytes=app.config.rlresources_max_file_size,
        stale=app.config.rlresources_stale_check,
        cross_check=app.config.rlresources_cross_check,
        naming=naming_rule(app.config.rlresources_naming),
    )


def get_dataset(env: BuildEnvironment) -> DataSet:
    """The data set of this build (loaded at env-before-read-docs)."""
    dataset = store(env).dataset
    if dataset is None:  # pragma: no cover - only when a page is read outside a build
        msg = "rlresources data requested before it was loaded"
        raise RuntimeError(msg)
    return dataset


def _display(path: Path) -> str:
    return str(path)


def on_env_before_read_docs(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    data_dir, root = paths(app)
    kept = store(env)
    if not data_dir.is_dir():
        kept.dataset = DataSet(data_dir=data_dir, root=root)
        return  # already reported at config-inited
    kept.dataset = load_dataset(data_dir, root, load_options(app), display=_display)
    for diagnostic in kept.dataset.diagnostics:
        warn(diagnostic)
    for note in kept.dataset.notes:
        info(f"rlresources: {note}")


def on_env_get_outdated(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Re-read the pages that draw sizes when data files appear or disappear.

    An edited file is already handled by ``note_dependency``; a new or deleted one
    changes what ``all`` draws and whether a size is known, which no dependency sees.
    """
    data_dir, _root = paths(app)
    kept = store(env)
    try:
        now = tuple(p.name for p in data_files(data_dir)) if data_dir.is_dir() else ()
    except OSError:
        now = ()
    if now == kept.files:
        return []
    kept.files = now
    return sorted(doc for doc in kept.uses if doc in env.found_docs and doc not in changed)


def on_env_purge_doc(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    store(env).uses.pop(docname, None)


def on_env_merge_info(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment) -> None:
    theirs = store(other).uses
    mine = store(env).uses
    for docname in docnames:
        if docname in theirs:
            mine[docname] = theirs[docname]


def note_use(env: BuildEnvironment, key: str) -> None:
    store(env).uses.setdefault(env.docname, set()).add(key)


def register(app: Sphinx) -> None:
    app.connect("env-get-outdated", on_env_get_outdated)
    app.connect("env-before-read-docs", on_env_before_read_docs)
    app.connect("env-purge-doc", on_env_purge_doc)
    app.connect("env-merge-info", on_env_merge_info)
