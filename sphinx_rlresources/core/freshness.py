"""Freshness: when rows were last verified, and which rows outlived their scripts.

A row's ``tested`` date says when its configuration was last run.  If the row's
script was changed after that day, the row may claim what an older script did (a
batch size, a GPU count, an engine version that is no longer there), so the
staleness check reports it.  Rows without ``tested`` are compared with the last
commit that touched their data file instead: that is when the row was last looked at.

Git is read through its command line, never a shell: one ``git log`` walk for every
row together, so thousands of rows cost one process.  Paths from the data are
untrusted; they are passed after ``--`` as literal pathspecs (``*`` or ``:(magic)``
in a path means nothing to git).  Where git cannot answer (not installed, not a
repository, a shallow clone whose history is cut), the check is skipped with a note:
a missing history is not a problem of the data.

Nothing here imports Sphinx: the build and ``rlresources lint --stale`` share it.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from sphinx_rlresources.core import checks
from sphinx_rlresources.core.diagnostics import Diagnostic, Subtype
from sphinx_rlresources.core.git import GitUnavailable, clean_text, run_git
from sphinx_rlresources.core.model import Commit, DataSet, Entry, SourceRef, Staleness

MAX_PATHSPEC_CHARS = 16000
"""Above this many characters of folder pathspecs, walk the whole root instead
(command lines are limited, on Windows to about 32000 characters)."""

_RECORD = "\x1e\x1frlresources\x1f"
"""Starts each commit in the ``git log`` output; no real subject holds it."""

_CHANGED = ("M", "T")
"""The name-status letters that count as a change to a script.  Adding the script
(``A``) is not a change: a configuration is usually run before its script is
committed.  Deleting it (``D``) is reported by the script checks instead."""


@dataclass
class History:
    """What one walk found: per path (relative to the checkout's top), its commits, newest first."""

    toplevel: Path
    changes: dict[str, list[tuple[Commit, str]]] = field(default_factory=dict)

    def key(self, path: Path, resolved: bool = False) -> str | None:
        """``path`` as git names it (relative to the top, ``/``-separated), or None if outside.

        ``resolved`` says the path is already real (no symbolic link left), which spares
        a ``realpath`` per row: thousands of those cost more than the whole git walk.
        """
        try:
            return (path if resolved else path.resolve()).relative_to(self.toplevel).as_posix()
        except (ValueError, OSError):
            return None


def checkout(root: Path) -> Path:
    """The top folder of the full (not shallow) git checkout holding ``root``.

    Raises :class:`GitUnavailable` with the reason the history cannot be used.
    """
    if shutil.which("git") is None:
        raise GitUnavailable("git is not installed (or not on PATH)")
    root = root.resolve()  # name the folder in full in the note, not as "."
    try:
        out = run_git(["rev-parse", "--show-toplevel", "--is-shallow-repository"], root)
    except GitUnavailable as err:
        if "not a git repository" in str(err):
            raise GitUnavailable(f"{root} is not inside a git checkout") from err
        raise
    lines = out.splitlines()
    if not lines:
        raise GitUnavailable(f"{root} is not inside a git checkout")
    if len(lines) > 1 and lines[1].strip() == "true":
        raise GitUnavailable(
            f"{root} is a shallow clone, whose history is cut; fetch the whole history "
            "(git fetch --unshallow, or a CI checkout with full depth) to run it"
        )
    return Path(lines[0]).resolve()


def _pathspecs(keys: Iterable[str], root_key: str) -> list[str]:
    """The folders (and files) to walk: one pathspec per folder, or the whole root if too many."""
    specs = sorted({str(PurePosixPath(k).parent) if PurePosixPath(k).parent.parts else k for k in keys})
    if sum(len(s) + 1 for s in specs) > MAX_PATHSPEC_CHARS:
        return [root_key or "."]
    return specs or [root_key or "."]


def parse_log(text: str) -> dict[str, list[tuple[Commit, str]]]:
    """Parse ``git log -z --name-status --format=<_RECORD>%H%x1f%ad%x1f%s``."""
    changes: dict[str, list[tuple[Commit, str]]] = {}
    for order, record in enumerate(text.split(_RECORD)[1:]):
        header, _, rest = record.partition("\0")
        parts = header.split("\x1f", 2)
        if len(parts) != 3:
            continue
        commit = Commit(parts[0], parts[1], clean_text(parts[2]), order)
        tokens = [t for t in rest.lstrip("\n").split("\0") if t]
        for status, path in zip(tokens[::2], tokens[1::2], strict=False):
            changes.setdefault(path.lstrip("\n"), []).append((commit, status.strip()[:1]))
    return changes


def walk(root: Path, paths: Iterable[Path], resolved: bool = False) -> History:
    """One ``git log`` over every path that matters; raises :class:`GitUnavailable`."""
    top = checkout(root)
    history = History(top)
    keys = [k for k in (history.key(p, resolved) for p in paths) if k is not None]
    if not keys:
        return history
    root_key = history.key(root) or ""
    args = [
        "log",
        "-z",
        "--no-renames",
        "--no-textconv",
        "--no-ext-diff",
        "--name-status",
        "--no-color",
        "--date=short",
        f"--format={_RECORD}%H%x1f%ad%x1f%s",
        "--",
        *_pathspecs(keys, "" if root_key == "." else root_key),
    ]
    wanted = set(keys)
    changes = parse_log(run_git(args, top))
    history.changes = {path: found for path, found in changes.items() if path in wanted}
    return history


def staleness(entry: Entry, script_key: str | None, data_key: str | None, history: History) -> Staleness | None:
    """Whether the row's script changed after the row was last verified."""
    if script_key is None:
        return None
    edits = [c for c, status in history.changes.get(script_key, []) if status in _CHANGED]
    if entry.tested is not None:
        since, basis = entry.tested, "tested"
        after = [c for c in edits if c.date > entry.tested]
    else:
        touched = history.changes.get(data_key, []) if data_key else []
        if not touched:
            return None  # the data file was never committed: the row is newer than any commit
        last = touched[0][0]
        since, basis = last.date, "data"
        after = [c for c in edits if c.order < last.order]
    if not after:
        return None
    return Staleness(len(after), after[0], since, basis)


def check_staleness(dataset: DataSet) -> None:
    """Report every row whose script changed after it was last verified.

    Fills ``dataset.stale`` (row -> why) for the table's marker, adds one ``stale``
    warning per row, and adds a note instead when git cannot answer.
    """
    root = dataset.root
    scripts: dict[SourceRef, Path] = {}
    for entry in dataset.entries:
        if entry.script_ref is not None:
            continue  # read at a pinned commit: that script cannot change after the row
        path = dataset.scripts.get(entry.script)
        if path is None:  # the script checks were off, or refused it (and said why)
            path, _problem = checks.resolve_script(entry, root)
        if path is not None:
            scripts[entry.source] = path
    if not scripts:
        return
    data_paths = {size.display_path: size.path.resolve() for size in dataset.sizes.values()}
    try:
        history = walk(root, [*scripts.values(), *data_paths.values()], resolved=True)
    except GitUnavailable as err:
        dataset.notes.append(f"the staleness check is skipped: {err}")
        return
    for entry in dataset.entries:
        script = scripts.get(entry.source)
        if script is None:
            continue
        data = data_paths.get(entry.source.path)
        data_key = history.key(data, resolved=True) if data else None
        found = staleness(entry, history.key(script, resolved=True), data_key, history)
        if found is None:
            continue
        dataset.stale[entry.source] = found
        field = "tested" if entry.tested else "script"
        line, column = entry.at(field)
        dataset.diagnostics.append(
            Diagnostic(
                entry.source.path,
                line,
                column,
                Subtype.STALE,
                found.message(),
                severity="warning",
                json_path=f"{entry.source.json_path}.{field}",
            )
        )


def last_commit_date(root: Path, paths: Sequence[Path]) -> str | None:
    """The day of the newest commit touching ``paths`` (None where git cannot tell)."""
    try:
        top = checkout(root)
    except GitUnavailable:
        return None
    history = History(top)
    keys = [k for k in (history.key(p) for p in paths) if k is not None]
    if not keys:
        return None
    try:
        out = run_git(["log", "-1", "--no-color", "--date=short", "--format=%ad", "--", *keys], top)
    except GitUnavailable:
        return None
    return out.strip() or None


def newest_tested(entries: Iterable[Entry]) -> str | None:
    """The latest ``tested`` date among the rows (dates as YYYY-MM-DD sort as text)."""
    return max((e.tested for e in entries if e.tested), default=None)


def last_updated(entries: Sequence[Entry], root: Path, files: Sequence[Path]) -> tuple[str | None, str]:
    """The "last updated" day of some rows and where it came from.

    The newest ``tested`` date first: that is when the data was last verified.  With no
    dated row, the data files' last commit; without git, their modification time.
    """
    tested = newest_tested(entries)
    if tested:
        return tested, "tested"
    committed = last_commit_date(root, files)
    if committed:
        return committed, "git"
    times = []
    for path in files:
        try:
            times.append(path.stat().st_mtime)
        except OSError:
            continue
    if times:
        return dt.datetime.fromtimestamp(max(times), tz=dt.timezone.utc).date().isoformat(), "mtime"
    return None, "none"


def today() -> dt.date:
    """The build's day: ``SOURCE_DATE_EPOCH`` when set (reproducible builds), else today (UTC)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch.isdigit():
        return dt.datetime.fromtimestamp(int(epoch), tz=dt.timezone.utc).date()
    return dt.datetime.now(tz=dt.timezone.utc).date()


def is_older(tested: str | None, max_age_days: int | None, today: dt.date) -> bool:
    """Whether a row's ``tested`` date is more than ``max_age_days`` before ``today``.

    Rows without a date are not judged by age (the unverified marker covers them).
    """
    if tested is None or max_age_days is None:
        return False
    try:
        day = dt.date.fromisoformat(tested)
    except ValueError:
        return False
    return (today - day).days > max_age_days
