"""Sphinx glue: the extension's domain, which loads the data once per build and tracks which pages draw what.

What a build remembers lives in :class:`RLResourcesDomain`, where Sphinx expects an
extension's per-document state (``sphinx.ext.todo`` keeps its todos the same way):
Sphinx pickles it, forgets a page's entry when the page is read again or removed, and
merges the entries back from parallel readers.

The data is loaded in the main process at ``env-get-outdated``, before Sphinx picks the
pages to read and forks its parallel readers, so every reader shares one loaded and
checked data set and each problem is reported once per build, not once per page or per
process.

A drawn row shows more than its data file says: whether its script exists (a link or a
plain name), whether its pinned ref is in the repository, its markers and its estimate.
Sphinx only sees the files a page notes as dependencies, and a script that does not
exist yet cannot be one, nor can a git ref or the day.  So each build keeps a digest of
what every size's rows show (:func:`shown`), and the next build re-reads the pages of
each size whose digest changed: adding a missing script, fetching a pinned ref or
changing ``[tool.rlresources]`` makes the page outdated, as editing the data does.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Set
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from sphinx.domains import Domain

from sphinx_rlresources.core import freshness
from sphinx_rlresources.core.loader import LoadOptions, data_files, load_dataset
from sphinx_rlresources.core.model import DataSet, RowEstimate
from sphinx_rlresources.core.naming import naming_rule
from sphinx_rlresources.sphinxext.warnings import info, warn

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

ALL = "*"
"""The key a page that draws every size (``all``) is recorded under."""


class RLResourcesDomain(Domain):
    """Where the extension keeps what a build must remember, as ``sphinx.ext.todo`` does.

    ``data`` lives in ``env.domaindata``, which Sphinx pickles with the environment,
    clears per page (:meth:`clear_doc`) and merges back from parallel readers
    (:meth:`merge_domaindata`): ``uses`` (docname -> size keys it draws), ``files`` (the
    data files seen) and ``shown`` (size key -> digest of what its rows show) let an
    added or removed data file, or a change no dependency sees, re-read exactly the
    pages it concerns.  The loaded data set belongs to one build: it is an attribute of
    the domain object, which Sphinx makes afresh for every environment and never
    pickles, and which the parallel readers inherit when they fork.
    """

    name = "rlresources"
    label = "RL resources"
    initial_data: ClassVar[dict[str, Any]] = {"uses": {}, "files": (), "shown": {}}
    data_version = 1

    def __init__(self, env: BuildEnvironment) -> None:
        super().__init__(env)
        self.dataset: DataSet | None = None
        self.reported = False

    @property
    def uses(self) -> dict[str, set[str]]:
        return cast("dict[str, set[str]]", self.data["uses"])

    @property
    def files(self) -> tuple[str, ...]:
        return cast("tuple[str, ...]", self.data["files"])

    @files.setter
    def files(self, names: tuple[str, ...]) -> None:
        self.data["files"] = names

    @property
    def shown(self) -> dict[str, str]:
        return cast("dict[str, str]", self.data["shown"])

    @shown.setter
    def shown(self, digests: dict[str, str]) -> None:
        self.data["shown"] = digests

    def clear_doc(self, docname: str) -> None:
        self.uses.pop(docname, None)

    def merge_domaindata(self, docnames: Set[str], otherdata: dict[str, Any]) -> None:
        theirs = otherdata["uses"]
        for docname in docnames:
            if docname in theirs:
                self.uses[docname] = theirs[docname]


def store_of(env: BuildEnvironment) -> RLResourcesDomain:
    """This environment's :class:`RLResourcesDomain` (registered by :func:`register`)."""
    return cast("RLResourcesDomain", env.get_domain(RLResourcesDomain.name))


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
    dataset = store_of(env).dataset
    if dataset is None:  # pragma: no cover - only when a page is read outside a build
        msg = "rlresources data requested before it was loaded"
        raise RuntimeError(msg)
    return dataset


def _figures(found: RowEstimate | None) -> float | None:
    """The floor an estimate cell shows.  The expected peak depends on nothing else the floor
    does not (the row, and its script, a noted dependency), so it is not computed here: a
    build that draws no estimate never pays for it."""
    return None if found is None else round(found.floor_gib, 3)


def shown(dataset: DataSet, max_age_days: int | None) -> dict[str, str]:
    """Size key -> a digest of what its drawn rows show beyond their data file.

    Per row: the script file it links (None: missing, refused, or pinned), whether it
    is linked at all (a pinned ref the repository has), whether it is stale or older
    than ``max_age_days`` today, and its estimate.  The data file itself is a noted
    dependency, and a changed setting re-reads every page, so neither is repeated here.
    """
    day = freshness.today()
    found = {}
    for key, size in dataset.sizes.items():
        facts = [
            (
                str(dataset.scripts.get(entry.script)),
                entry.script in dataset.linkable,
                entry.source in dataset.stale,
                freshness.is_older(entry.tested, max_age_days, day),
                _figures(dataset.estimates.get(entry.source)),
            )
            for entry in size.entries
        ]
        found[key] = hashlib.sha256(repr((size.readable, facts)).encode("utf-8")).hexdigest()
    return found


def load(app: Sphinx, env: BuildEnvironment) -> DataSet:
    """Load this build's data set (once) and report its problems (once)."""
    data_dir, root = paths(app)
    kept = store_of(env)
    if kept.dataset is None:
        if not data_dir.is_dir():
            kept.dataset = DataSet(data_dir=data_dir, root=root)  # reported at config-inited
        else:
            kept.dataset = load_dataset(data_dir, root, load_options(app), display=str)
    return kept.dataset


def on_env_before_read_docs(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    kept = store_of(env)
    dataset = load(app, env)
    if kept.reported:
        return
    kept.reported = True
    for diagnostic in dataset.diagnostics:
        warn(diagnostic)
    for note in dataset.notes:
        info(f"rlresources: {note}")


def on_env_get_outdated(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Re-read the pages whose drawing changed though none of their dependencies did.

    An edited data file or script is already handled by ``note_dependency``.  A new or
    deleted data file changes what ``all`` draws and whether a size is known; a script
    that appears, a pinned ref that is fetched, a setting or the day can change what a
    size's rows show (:func:`shown`).  Neither is a file the page could depend on.
    """
    data_dir, _root = paths(app)
    kept = store_of(env)
    kept.dataset = None  # a new build (an app may build twice): load afresh
    kept.reported = False
    try:
        now = tuple(p.name for p in data_files(data_dir)) if data_dir.is_dir() else ()
    except OSError:
        now = ()
    before, kept.shown = kept.shown, shown(load(app, env), app.config.rlresources_max_age_days)
    if now != kept.files:
        kept.files = now
        wanted = set(kept.uses)
    else:
        moved = {key for key in before.keys() | kept.shown.keys() if before.get(key) != kept.shown.get(key)}
        if not moved:
            return []
        wanted = {doc for doc, keys in kept.uses.items() if keys & moved or ALL in keys}
    return sorted(doc for doc in wanted if doc in env.found_docs and doc not in changed)


def note_use(env: BuildEnvironment, key: str) -> None:
    store_of(env).uses.setdefault(env.docname, set()).add(key)


def register(app: Sphinx) -> None:
    app.add_domain(RLResourcesDomain)
    app.connect("env-get-outdated", on_env_get_outdated)
    app.connect("env-before-read-docs", on_env_before_read_docs)
