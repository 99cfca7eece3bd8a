"""Rows pinned at a commit whose script changed, after the row was tested, in what it runs.

A row read at ``script_ref`` cannot go stale through a later commit, but the commits
before the pin can still have changed the script after the row was measured: an
unrelated change may rewrite a launcher months after its row's ``tested`` date.  Being
touched is not enough -- repository-wide sweeps change every script (a logger flag, an
environment line) without changing anything a row states -- so the script is read as
it was on the ``tested`` day and as it is at the ref, and the row is reported only when
a setting that matters to it differs (GPUs, batch, model, engine, backend, LoRA,
lengths, offload), naming the commit that changed it.  Deterministic for a pinned ref,
so it runs by default.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from sphinx_rlresources.core import git, rowscript
from sphinx_rlresources.core.crosscheck import known
from sphinx_rlresources.core.diagnostics import Diagnostic, Subtype
from sphinx_rlresources.core.model import DataSet, Entry
from sphinx_rlresources.safe.text import one_line
from sphinx_rlresources.scripts.run import Run

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
"""Above this many pinned rows the history is not walked (a note says so): each costs a few git calls."""


def _settings(run: Run) -> dict[str, object]:
    found = run.settings()
    return {name: found[name].value for name in WATCHED if known(found[name])}


def _read(dataset: DataSet, entry: Entry, sha: str) -> Run | None:
    path = PurePosixPath(entry.script).as_posix()
    blob = git.read_pinned(dataset.root, [(sha, path)], rowscript.MAX_SCRIPT_BYTES).files.get((sha, path))
    if blob is None or blob.data is None:
        return None
    return rowscript.run_of(blob.data, path, entry.env, rowscript.RefFiles(dataset.root, sha))


def _differences(before: dict[str, object], after: dict[str, object]) -> list[str]:
    return [
        f"{name} {one_line(str(after.get(name)), 60)} (was {one_line(str(before.get(name)), 60)})"
        for name in WATCHED
        if name in before and name in after and before[name] != after[name]
    ]


def check_pinned_history(dataset: DataSet, rows: list[tuple[Entry, Run]]) -> None:
    """Report every pinned, tested row whose script runs something else at its ref than on its tested day.

    ``rows`` pairs each row with its script as read at its ref by the pinned checks, so
    the script is not fetched and read a second time here.
    """
    rows = [(e, run) for e, run in rows if e.tested and e.script_ref]
    if not rows:
        return
    if len(rows) > MAX_ROWS:
        dataset.notes.append(f"the history of pinned scripts is not read for {len(rows)} rows (at most {MAX_ROWS})")
        return
    try:
        shallow = git.is_shallow(dataset.root)
    except git.GitUnavailable as err:
        dataset.notes.append(f"the history of pinned scripts is not read: {err}")
        return
    if shallow:
        dataset.notes.append(
            "the history of pinned scripts is not read: this is a shallow clone, whose history is cut; fetch it "
            "(git fetch --unshallow) to check that no pinned script changed after its row was tested"
        )
        return
    for entry, now in rows:
        try:
            found = _changed(dataset, entry, now)
        except git.GitUnavailable as err:
            dataset.notes.append(f"the history of pinned scripts is not read: {err}")
            return
        if found is not None:
            line, column = entry.at("tested")
            dataset.diagnostics.append(
                Diagnostic(
                    entry.source.path,
                    line,
                    column,
                    Subtype.STALE,
                    found,
                    severity="warning",
                    json_path=f"{entry.source.json_path}.tested",
                )
            )


def _changed(dataset: DataSet, entry: Entry, now: Run) -> str | None:
    """Why the row's script at its ref (``now``, as read there) is not what was tested, or None."""
    ref, path, tested = entry.script_ref or "", PurePosixPath(entry.script).as_posix(), entry.tested or ""
    as_tested = git.changes(dataset.root, ref, path, before=tested, limit=1)
    since = git.changes(dataset.root, ref, path)
    if not as_tested or not since or since[0].sha == as_tested[0].sha:
        return None  # no version on the tested day (added later), or none since
    base = _read(dataset, entry, as_tested[0].sha)
    if base is None:
        return None
    before, after = _settings(base), _settings(now)
    if not _differences(before, after):
        return None  # touched, but nothing the row states changed (a sweep)
    newer = [c for c in since if c.date >= tested and c.sha != as_tested[0].sha][::-1]  # oldest first
    culprit = None
    for change in newer:
        version = _read(dataset, entry, change.sha)
        if version is not None and _differences(before, _settings(version)):
            culprit = change
            break
    what = "; ".join(_differences(before, after))
    by = f" (changed by {culprit.sha[:10]} on {culprit.date}: '{culprit.subject}')" if culprit else ""
    return (
        f"the script at {ref} runs {what} since this row was tested on {tested}{by}; run the configuration "
        "again and update the row and tested, or pin script_ref at the commit that was tested"
    )
