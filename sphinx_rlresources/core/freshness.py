"""Freshness: when rows were last verified, and which rows outlived their scripts.

A row's ``tested`` date says when its configuration was last run.  If the row's
script changed after that day in what the row states (a batch size, a GPU count, an
engine), the row may claim what an older script did, so the staleness check reports
it; the rule is :mod:`.history`'s, the same for pinned rows.  Rows without ``tested``
are compared with the last commit that touched their data file instead: that is when
the row was last looked at.

Git is read through its command line, never a shell: one ``git log`` walk for every
row together and one ``git cat-file`` for the versions compared, so thousands of rows
cost a few processes.  Where git cannot answer (not installed, not a repository, a
shallow clone whose history is cut), the check is skipped with a note: a missing
history is not a problem of the data.

Nothing here imports Sphinx: the build and ``rlresources lint --stale`` share it.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from sphinx_rlresources.core import checks, git, history
from sphinx_rlresources.core.history import Question
from sphinx_rlresources.core.model import Commit, DataSet, Entry
from sphinx_rlresources.core.paths import real_path


def check_staleness(dataset: DataSet, repo: git.Repo | None = None) -> None:
    """Report every row read from the checkout whose script changed what the row states after it was verified.

    Fills ``dataset.stale`` (row -> why) for the table's marker, adds one ``stale``
    warning per row, and adds a note instead when git cannot answer.  Pinned rows are
    judged by the same rule where their scripts are read (:func:`.history.check_pinned_history`).
    """
    repo = repo or git.Repo(dataset.root)
    scripts: dict[int, Path] = {}
    for index, entry in enumerate(dataset.entries):
        if entry.script_ref is not None:
            continue  # read at a pinned commit: judged with the pinned checks
        path = dataset.scripts.get(entry.script)
        if path is None:  # the script checks were off, or refused it (and said why)
            path, _problem = checks.resolve_script(entry, dataset.root)
        if path is not None:
            scripts[index] = path
    if not scripts:
        return
    data_paths = {size.display_path: real_path(size.path) for size in dataset.sizes.values()}
    try:
        walked = history.walk(repo, [*scripts.values(), *data_paths.values()], resolved=True)
        asked = [
            question
            for index, entry in enumerate(dataset.entries)
            if index in scripts
            for question in _question(entry, scripts[index], data_paths.get(entry.source.path), walked)
        ]
        history.report(dataset, history.stale_rows(repo, walked, asked))
    except git.GitUnavailable as err:
        dataset.notes.append(f"the staleness check is skipped: {err}")


def _question(entry: Entry, script: Path, data: Path | None, walked: history.History) -> list[Question]:
    """The row as a question for the rule: since its tested day, or, undated, since its data file last changed."""
    key = walked.key(script, resolved=True)
    if key is None:
        return []
    if entry.tested is not None:
        return [Question(entry, key, history.after_day(entry.tested), entry.tested, "tested")]
    data_key = walked.key(data, resolved=True) if data else None
    touched = walked.changes.get(data_key, []) if data_key else []
    if not touched:
        return []  # the data file was never committed: the row is newer than any commit
    last = touched[0].commit
    return [Question(entry, key, _newer_than(last), last.date, "data")]


def _newer_than(last: Commit) -> history.After:
    return lambda commit: commit.order < last.order


def last_commit_date(root: Path, paths: Sequence[Path]) -> str | None:
    """The day of the newest commit touching ``paths`` (None where git cannot tell)."""
    repo = git.Repo(root)
    try:
        where = history.checkout(repo)
        keys = [k for k in (history.History(where.top).key(p) for p in paths) if k is not None]
        if not keys:
            return None
        # -C again: the keys are paths from the top, and the root may be a folder below it
        out = repo.run(["-C", str(where.top), "log", "-1", "--no-color", "--date=short", "--format=%ad", "--", *keys])
    except git.GitUnavailable:
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
