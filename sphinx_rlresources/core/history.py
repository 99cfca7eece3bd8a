"""Rows whose script changed, after the row was verified, in what the row states.

One rule for every row, pinned at a commit or read from the checkout: being touched is
not enough -- repository-wide sweeps change every script (a logger flag, an environment
line, a reformat, a rename) without changing anything a row states -- so the script is
read as it was when the row was verified and as it is now (at the row's ``script_ref``,
or the last commit of the checkout), and the row is stale only when a setting it states
differs (GPUs, batch, model, engine, backend, LoRA, lengths, offload), naming the commit
that changed it.  A rename git finds (``-M``) is followed to the script's old name.

Git is asked once per repository and ref, never once per row: one ``git log`` over every
script's folder gives each script's commits, and one ``git cat-file --batch`` reads every
version the rule compares (:class:`~sphinx_rlresources.core.git.Repo`).  Paths from the
data are untrusted; they are passed after ``--`` as literal pathspecs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from sphinx_rlresources.core import git, rowscript
from sphinx_rlresources.core.crosscheck import known
from sphinx_rlresources.core.diagnostics import Diagnostic, Subtype
from sphinx_rlresources.core.model import Commit, DataSet, Entry, Staleness
from sphinx_rlresources.core.paths import real_path
from sphinx_rlresources.safe.text import one_line
from sphinx_rlresources.scripts.run import Run

After = Callable[[Commit], bool]
"""Whether a commit was made after the row was last verified."""

#: The settings a row states; a change in any other one is not the row's business.
WATCHED = (
    "gpus",
    "train_batch_size",
    "model",
    "engine",
    "train_backend",
    "lora_rank",
    "prompt_length",
    "response_length",
    "param_offload",
    "optimizer_offload",
)
MAX_ROWS = 200
"""Above this many pinned rows the history is not walked (a note says so)."""
MAX_RENAMES = 20
"""The most renames followed back from one script."""
MAX_PATHSPEC_CHARS = 16000
"""Above this many characters of folder pathspecs, walk the whole root instead
(command lines are limited, on Windows to about 32000 characters)."""

RECORD = "\x1e\x1frlresources\x1f"
"""Starts each commit in the ``git log`` output; no real subject holds it."""

_CHANGED = ("M", "T", "R")
"""The name-status letters that can change what a script runs.  Adding it (``A``) is
not a change: a configuration is usually run before its script is committed.  Deleting
it (``D``) is reported by the script checks instead."""


@dataclass(frozen=True)
class Step:
    """One commit that changed a file: git's status letter, the file's path after it and before it."""

    commit: Commit
    status: str
    path: str
    old: str


@dataclass
class History:
    """What one walk found: per path (relative to the checkout's top), its commits, newest first."""

    toplevel: Path
    prefix: str = ""
    """The data root's path from the top (``''`` or ending in ``/``)."""
    changes: dict[str, list[Step]] = field(default_factory=dict)

    def key(self, path: Path, resolved: bool = False) -> str | None:
        """``path`` as git names it (relative to the top, ``/``-separated), or None if outside.

        ``resolved`` says the path is already real (no symbolic link left), which spares
        a ``realpath`` per row: thousands of those cost more than the whole git walk.
        """
        try:
            return (path if resolved else real_path(path)).relative_to(self.toplevel).as_posix()
        except (ValueError, OSError):
            return None

    def lineage(self, key: str) -> list[Step]:
        """The commits that changed the file now at ``key``, newest first, through the renames git found."""
        steps: list[Step] = []
        path, after = key, -1
        for _ in range(MAX_RENAMES):
            older = [s for s in self.changes.get(path, []) if s.commit.order > after]
            renamed = next((i for i, s in enumerate(older) if s.status == "R"), None)
            if renamed is None:
                return steps + older
            steps += older[: renamed + 1]
            path, after = older[renamed].old, older[renamed].commit.order
        return steps


def checkout(repo: git.Repo) -> git.Where:
    """Where the data root sits in its full (not shallow) checkout.

    Raises :class:`~sphinx_rlresources.core.git.GitUnavailable` with the reason the history cannot be used.
    """
    root = repo.root.resolve()  # name the folder in full in the note, not as "."
    try:
        where = repo.where
    except git.GitUnavailable as err:
        if "not a git repository" in str(err):
            raise git.GitUnavailable(f"{root} is not inside a git checkout") from err
        raise
    if where.shallow:
        raise git.GitUnavailable(
            f"{root} is a shallow clone, whose history is cut; fetch the whole history "
            "(git fetch --unshallow, or a CI checkout with full depth) to run it"
        )
    return where


def _pathspecs(keys: Iterable[str], root_key: str) -> list[str]:
    """The folders (and files) to walk: one pathspec per folder, or the whole root if too many."""
    specs = sorted({str(PurePosixPath(k).parent) if PurePosixPath(k).parent.parts else k for k in keys})
    if sum(len(s) + 1 for s in specs) > MAX_PATHSPEC_CHARS:
        return [root_key or "."]
    return specs or [root_key or "."]


def parse_log(text: str) -> dict[str, list[Step]]:
    """Parse ``git log -z -M --name-status --format=<RECORD>%H%x1f%ad%x1f%s``."""
    changes: dict[str, list[Step]] = {}
    for order, record in enumerate(text.split(RECORD)[1:]):
        header, _, rest = record.partition("\0")
        parts = header.split("\x1f", 2)
        if len(parts) != 3:
            continue
        commit = Commit(parts[0], parts[1], git.clean_text(parts[2]), order)
        tokens = [t for t in rest.lstrip("\n").split("\0") if t]
        index = 0
        while index + 1 < len(tokens):
            status = tokens[index].strip()[:1]
            paths = tokens[index + 1 : index + (3 if status in ("R", "C") else 2)]
            index += 1 + len(paths)
            new, old = paths[-1].lstrip("\n"), paths[0].lstrip("\n")
            changes.setdefault(new, []).append(Step(commit, status, new, old))
    return changes


def walk(repo: git.Repo, paths: Iterable[Path], resolved: bool = False, ref: str | None = None) -> History:
    """One ``git log`` (at ``ref``, else ``HEAD``) over the folders of every path; raises GitUnavailable."""
    where = checkout(repo)
    history = History(where.top, where.prefix)
    keys = [k for k in (history.key(p, resolved) for p in paths) if k is not None]
    if not keys or (ref is not None and not git.REF_PATTERN.fullmatch(ref)):
        return history
    args = ["log", "-z", "-M", "--no-textconv", "--no-ext-diff", "--name-status", "--no-color", "--date=short"]
    args += [f"--format={RECORD}%H%x1f%ad%x1f%s", *([ref] if ref else []), "--"]
    args += _pathspecs(keys, where.prefix.rstrip("/"))
    history.changes = parse_log(repo.run(args))
    return history


def _settings(run: Run) -> dict[str, object]:
    found = run.settings()
    return {name: found[name].value for name in WATCHED if known(found[name])}


def _differences(before: dict[str, object], after: dict[str, object]) -> list[str]:
    return [
        f"{name} {one_line(str(after.get(name)), 60)} (was {one_line(str(before.get(name)), 60)})"
        for name in WATCHED
        if name in before and name in after and before[name] != after[name]
    ]


@dataclass(frozen=True)
class Versions:
    """The versions of one row's script the rule compares: as verified, then each change after, oldest first."""

    base: Step
    newer: list[Step]


def versions(lineage: list[Step], after: After) -> Versions | None:
    """Split a script's commits at the moment its row was verified; None when nothing changed it since.

    ``after`` tells a commit made after that moment.  The version as verified is the
    last one before it, or -- for a script committed after its row was run -- the one
    first committed.
    """
    # the newest commits, up to the first one made before: that one's version was in the tree then
    cut = next((index for index, step in enumerate(lineage) if not after(step.commit)), len(lineage))
    newer, older = lineage[:cut], lineage[cut:]
    base = older[0] if older else (newer.pop() if newer else None)
    if base is None or not any(s.status in _CHANGED for s in newer):
        return None
    return Versions(base, newer[::-1])


def wanted(steps: Iterable[Step], prefix: str) -> list[tuple[str, str]]:
    """The (commit, path from the root) pairs to read for ``steps``."""
    return [(s.commit.sha, s.path[len(prefix) :]) for s in steps if s.path.startswith(prefix)]


def _run_at(repo: git.Repo, entry: Entry, step: Step, prefix: str) -> Run | None:
    """The script as it was after ``step`` (read before, in the batch), or None where git cannot give it."""
    if not step.path.startswith(prefix):
        return None
    path = step.path[len(prefix) :]
    blob = repo.read([(step.commit.sha, path)], rowscript.MAX_SCRIPT_BYTES).files.get((step.commit.sha, path))
    if blob is None or blob.data is None:
        return None
    return rowscript.run_of(blob.data, path, entry.env, rowscript.RefFiles(repo, step.commit.sha))


def judge(repo: git.Repo, row: Question, found: Versions, prefix: str) -> tuple[dict[str, object], str] | None:
    """The settings the row was verified with, and what differs in the newest version; None if nothing does.

    Both versions were read before (:func:`wanted`, one batch); a version git cannot
    give is no evidence, so the row is not judged.
    """
    base = _run_at(repo, row.entry, found.base, prefix)
    now = row.now if row.now is not None else _run_at(repo, row.entry, found.newer[-1], prefix)
    if base is None or now is None:
        return None
    before = _settings(base)
    what = _differences(before, _settings(now))
    if not what:
        return None  # touched, but nothing the row states changed (a sweep, a reformat, a rename)
    return before, "; ".join(what)


def culprit(repo: git.Repo, row: Question, found: Versions, prefix: str, before: dict[str, object]) -> Commit | None:
    """A commit whose version differs from ``before`` where the one before it does not, found by halving.

    The newest version differs and the verified one does not, so such a commit exists;
    halving reads a handful of versions of a script changed hundreds of times.  Where a
    change was undone and made again, one of the commits that made it is named.
    """
    low, high = -1, len(found.newer) - 1  # newer[high] differs; newer[low] (the base at -1) does not
    while high - low > 1:
        middle = (low + high) // 2
        version = _run_at(repo, row.entry, found.newer[middle], prefix)
        if version is None:
            return None
        if _differences(before, _settings(version)):
            high = middle
        else:
            low = middle
    return found.newer[high].commit


@dataclass(frozen=True)
class Question:
    """One row to judge: its script as git names it, and when (and by what) the row was last verified."""

    entry: Entry
    key: str
    after: After
    since: str
    basis: str
    """``tested`` (the row's date) or ``data`` (the last commit of its data file)."""
    now: Run | None = None
    """The script as the checks read it at the row's ref, if they did (so it is not read twice)."""


def stale_rows(repo: git.Repo, history: History, rows: list[Question]) -> list[tuple[Entry, Staleness]]:
    """Judge every row: one read for the versions compared, one for the versions between of the rows that changed."""
    plans = []
    for row in rows:
        found = versions(history.lineage(row.key), row.after)
        if found is not None:
            plans.append((row, found))
    prefix, limit = history.prefix, rowscript.MAX_SCRIPT_BYTES
    repo.read([pair for row, found in plans for pair in wanted((found.base, found.newer[-1]), prefix)], limit)
    judged = [(row, found, judge(repo, row, found, prefix)) for row, found in plans]
    changed = [(row, found, verdict) for row, found, verdict in judged if verdict is not None]
    repo.read([pair for _row, found, _verdict in changed for pair in wanted(found.newer, prefix)], limit)
    return [
        (
            row.entry,
            Staleness(what, culprit(repo, row, found, prefix, before), row.since, row.basis, row.entry.script_ref),
        )
        for row, found, (before, what) in changed
    ]


def check_pinned_history(dataset: DataSet, rows: list[tuple[Entry, Run]], repo: git.Repo) -> None:
    """Report every pinned, tested row whose script runs, at its ref, something else than on its tested day.

    ``rows`` pairs each pinned row with its script as the checks read it at its ref, so it
    is not read twice.  One ``git log`` per ref for all of them, one ``git cat-file`` for
    the versions compared.
    """
    rows = [(e, run) for e, run in rows if e.tested and e.script_ref]
    if not rows:
        return
    if len(rows) > MAX_ROWS:
        dataset.notes.append(f"the history of pinned scripts is not read for {len(rows)} rows (at most {MAX_ROWS})")
        return
    try:
        where = repo.where
        if where.shallow:
            dataset.notes.append(
                "the history of pinned scripts is not read: this is a shallow clone, whose history is cut; fetch "
                "it (git fetch --unshallow) to check that no pinned script changed after its row was tested"
            )
            return
        for ref in sorted({e.script_ref or "" for e, _run in rows}):
            at_ref = [(e, run) for e, run in rows if e.script_ref == ref]
            keys = [where.prefix + PurePosixPath(e.script).as_posix() for e, _run in at_ref]
            walked = walk(repo, [where.top / key for key in keys], resolved=True, ref=ref)
            asked = [
                Question(e, k, after_day(e.tested or ""), e.tested or "", "tested", run)
                for (e, run), k in zip(at_ref, keys, strict=True)
            ]
            report(dataset, stale_rows(repo, walked, asked))
    except git.GitUnavailable as err:
        dataset.notes.append(f"the history of pinned scripts is not read: {err}")


def after_day(day: str) -> After:
    return lambda commit: commit.date > day


def report(dataset: DataSet, found: list[tuple[Entry, Staleness]]) -> None:
    """Mark each stale row and warn at its ``tested`` (or, undated, its ``script``)."""
    for entry, why in found:
        dataset.stale[entry.source] = why
        name = "tested" if entry.tested else "script"
        line, column = entry.at(name)
        dataset.diagnostics.append(
            Diagnostic(
                entry.source.path,
                line,
                column,
                Subtype.STALE,
                why.message(),
                severity="warning",
                json_path=f"{entry.source.json_path}.{name}",
            )
        )
