"""Checks that need more than one value: script paths, names, duplicates.

None of this imports Sphinx: the build and ``rlresources lint`` call the same functions,
so a contributor sees the same findings before pushing as CI does after.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import os
import re
import stat
from pathlib import Path, PurePosixPath, PureWindowsPath

from sphinx_rlresources.core import crosscheck, git, history, plausibility, requirements, rowscript
from sphinx_rlresources.core.diagnostics import Diagnostic, Subtype
from sphinx_rlresources.core.model import DataSet, Entry
from sphinx_rlresources.core.namecheck import check_naming, row_diagnostic
from sphinx_rlresources.core.naming import PRESETS, NamingRule, model_field
from sphinx_rlresources.core.paths import is_folder, is_link, is_within, kind_of, read_regular, real_path, status
from sphinx_rlresources.safe.models import model_words
from sphinx_rlresources.safe.text import one_line
from sphinx_rlresources.scripts.run import Requirement, Run

MAX_HINT_CANDIDATES = 100
"""The most names one "did you mean" compares: a folder of thousands of scripts must not
make every missing script cost thousands of comparisons."""


_WORD_BREAK = re.compile(r"[-_/\s]+")


def holds_model(filename: str, key: tuple[str, ...]) -> bool:
    """Whether the words of ``filename`` (split at ``-`` and ``_``) hold ``key``'s words in a row."""
    words = _WORD_BREAK.split(filename.lower().removesuffix(".sh"))
    return any(tuple(words[start : start + len(key)]) == key for start in range(len(words) - len(key) + 1))


class Hints:
    """ "Did you mean" for missing scripts: each folder listed once per load, each hint bounded.

    Names are grouped by their model field (the text before the first ``_``), and then by
    model and task, so a hint compares the missing name with the few scripts of its own
    kind; a group larger than :data:`MAX_HINT_CANDIDATES` is not searched, and the message
    says so instead of taking time in proportion to the folder.
    """

    def __init__(self) -> None:
        self.folders: dict[Path, dict[str, list[str]]] = {}

    @staticmethod
    def _keys(name: str) -> tuple[str, str]:
        parts = name.lower().split("_")
        return parts[0], "_".join(parts[:2])

    def names(self, folder: Path) -> list[str]:
        """Every ``*.sh`` of the folder, listed once per load."""
        return self._groups(folder)[""]

    def _groups(self, folder: Path) -> dict[str, list[str]]:
        if folder not in self.folders:
            try:
                with os.scandir(folder) as entries:
                    names = sorted(e.name for e in entries if e.name.endswith(".sh"))
            except OSError:
                names = []
            self.folders[folder] = self._grouped(names)
        return self.folders[folder]

    def _grouped(self, names: list[str]) -> dict[str, list[str]]:
        groups: dict[str, list[str]] = {"": []}
        for name in names:
            groups[""].append(name)
            for key in self._keys(name):
                groups.setdefault("/" + key, []).append(name)
        return groups

    @classmethod
    def closest_in(cls, names: list[str], name: str, model: str = "") -> tuple[str | None, int]:
        """The nearest of ``names`` to ``name`` (a folder listed by git at a ref, say), bounded the same way."""
        hints = cls()
        hints.folders[Path("/")] = hints._grouped(sorted(names))
        return hints.closest(Path("/"), name, model)

    def closest(self, folder: Path, name: str, model: str = "") -> tuple[str | None, int]:
        """The nearest existing name, and how many scripts were too many to search (0: none).

        ``model`` (the row's): only a name that holds a model and its size as the row or the
        missing name itself gives them is offered.  A near name of another model is another
        configuration, and "did you mean" would send the reader to link the wrong script
        (Qwen2-7B's missing script is not Qwen2.5-7B's).
        """
        keys = {model_words(model), model_words(model_field(name, model))} if model else set()
        groups = self._groups(folder)
        model, model_task = self._keys(name)
        too_many = 0
        best: tuple[float, str] | None = None
        # Every group small enough is searched and the nearest name wins: the narrow groups
        # only bound the cost.  Taking the first group with any match would answer verl's
        # misspelled 'qwen2-14b_grpo_4_h800_…' with the LoRA script of the same model field
        # instead of 'qwen2_14b_grpo_4_h800_…', one character away.
        for group in (groups.get("/" + model_task, []), groups.get("/" + model, []), groups[""]):
            if len(group) > MAX_HINT_CANDIDATES:
                too_many = max(too_many, len(group))
                continue
            others = [g for g in group if g != name and (not keys or any(holds_model(g, key) for key in keys))]
            for close in difflib.get_close_matches(name, others, n=1, cutoff=0.6):
                ratio = difflib.SequenceMatcher(None, name, close).ratio()
                if best is None or ratio > best[0]:
                    best = (ratio, close)
        if best is not None:
            return best[1], 0
        return None, too_many


def _real(path: Path, known: dict[Path, Path]) -> Path:
    """``path.resolve()``, remembered for the folders that many rows share."""
    if path not in known:
        known[path] = real_path(path)
    return known[path]


def real_script(candidate: Path, known: dict[Path, Path]) -> Path:
    """``candidate.resolve()`` from its folder's real path when the file is no symlink.

    The real path of ``folder/name`` is the folder's real path plus ``name`` unless
    ``name`` itself is a link, so a load of many rows resolves each folder once instead
    of every component of every script path.
    """
    try:
        is_link = candidate.is_symlink()
    except OSError:
        is_link = True
    if is_link or candidate.name in ("", ".", ".."):
        return real_path(candidate)
    return _real(candidate.parent, known) / candidate.name


def script_path(text: str) -> PurePosixPath:
    """A row's ``script`` as a path: parsed once though four checks of the row read it."""
    return PurePosixPath(text)


def path_problem(entry: Entry) -> Diagnostic | None:
    """Why a row's ``script`` path is refused on its text alone (absolute, ``..``), or None."""
    text = entry.script
    posix = script_path(text)
    windows = PureWindowsPath(text) if ":" in text or "\\" in text else None  # a drive needs one of them
    if (
        posix.is_absolute()
        or (windows is not None and (windows.is_absolute() or windows.drive))
        or text.startswith("~")
    ):
        return row_diagnostic(
            entry,
            "script",
            Subtype.SCRIPT_PATH,
            f"script '{text}' is an absolute path; give it relative to the repository root, "
            "e.g. examples/tuning/70b/NAME.sh",
        )
    if ".." in posix.parts:
        return row_diagnostic(
            entry,
            "script",
            Subtype.SCRIPT_PATH,
            f"script '{text}' uses '..'; give the path from the repository root without '..'",
        )
    return None


def resolve_script(
    entry: Entry, root: Path, known: dict[Path, Path] | None = None, hints: Hints | None = None
) -> tuple[Path | None, Diagnostic | None]:
    """The script's real path inside ``root``, or the reason it may not be used.

    Nothing outside the root is ever opened: absolute paths and ``..`` are refused on
    their text, and symlinks are resolved and must land inside the root.  ``known``
    (folder -> real path) lets a caller checking many rows share the folder lookups.
    """
    known = {} if known is None else known
    text = entry.script
    posix = script_path(text)
    refused = path_problem(entry)
    if refused is not None:
        return None, refused
    real_root = _real(root, known)
    candidate = real_root.joinpath(*posix.parts)
    real = real_script(candidate, known)
    if not is_within(real, real_root):
        return None, row_diagnostic(
            entry,
            "script",
            Subtype.SCRIPT_PATH,
            f"script '{text}' leads through a symbolic link to a place outside the repository "
            "root; link a file that lives inside the repository",
        )
    found = status(real)  # one stat answers: a regular file, something else, or nothing
    if found is not None and not stat.S_ISREG(found.st_mode):
        return None, row_diagnostic(
            entry,
            "script",
            Subtype.SCRIPT_FILE,
            f"script '{text}' is {kind_of(found.st_mode)}, not a regular file; link the script file itself",
        )
    if found is None and is_link(candidate):
        return None, row_diagnostic(
            entry,
            "script",
            Subtype.SCRIPT_FILE,
            f"script '{text}' is a symbolic link that leads nowhere (or in a loop); link the script file itself",
        )
    if found is None:
        hint = _missing_hint(entry, candidate, real_root, known, hints)
        return None, row_diagnostic(
            entry,
            "script",
            Subtype.SCRIPT_MISSING,
            f"script '{text}' does not exist under the repository root{hint}",
        )
    unreadable = _unreadable(entry, real, found.st_size)
    return (None, unreadable) if unreadable is not None else (real, None)


def _missing_hint(entry: Entry, candidate: Path, real_root: Path, known: dict[Path, Path], hints: Hints | None) -> str:
    """How to fix a missing script's path: the closest script of its folder for the row's model.

    Only when the folder exists inside the root; else the reader is told to check the path.
    """
    folder = candidate.parent
    if is_folder(folder) and is_within(_real(folder, known), real_root):
        close, too_many = (hints or Hints()).closest(folder, candidate.name, entry.model)
        if close:
            return f"; did you mean '{(PurePosixPath(entry.script).parent / close).as_posix()}'?"
        if too_many:
            return f"; check the path (its folder has {too_many} scripts like it, too many to suggest one)"
    return "; check the path, or add the script"


def _unreadable(entry: Entry, real: Path, size: int) -> Diagnostic | None:
    """Why an existing script of ``size`` bytes may not be read: over the size bound, or not readable."""
    if size > rowscript.MAX_SCRIPT_BYTES:
        return row_diagnostic(
            entry,
            "script",
            Subtype.SCRIPT_FILE,
            f"script '{entry.script}' is {size} bytes, more than the {rowscript.MAX_SCRIPT_BYTES} a tuning script "
            "may have; it is neither read nor copied into the build: link the launcher, not its data",
        )
    if not os.access(real, os.R_OK):
        return row_diagnostic(
            entry, "script", Subtype.SCRIPT_MISSING, f"script '{entry.script}' cannot be read; check its permissions"
        )
    return None


def check_entries(
    dataset: DataSet, cross_check: bool = True, rule: NamingRule = PRESETS["seed"], repo: git.Repo | None = None
) -> dict[str, Path]:
    """Run the row checks over every readable row; return the scripts that may be used.

    With ``cross_check``, each row is also compared with what its script runs
    (:mod:`.crosscheck`).  A row with ``script_ref`` is checked against the script as
    git stores it at that ref (:func:`check_pinned`), with no checkout, through ``repo``
    (the run's one :class:`~.git.Repo`).
    """
    scripts: dict[str, Path] = {}
    first: dict[str, Entry] = {}
    known: dict[Path, Path] = {}  # folder -> real path, shared by the rows of one load
    hints = Hints()  # each folder listed once, however many rows miss their script
    pinned: list[Entry] = []
    declared = functools.cache(lambda: requirements.declared(dataset.root, None))  # read once, if a row needs it
    for entry in dataset.entries:
        duplicate = _second_row(entry, first)
        if duplicate is not None:
            dataset.diagnostics.append(duplicate)
            continue
        if entry.script_ref is not None:
            refused = path_problem(entry)
            dataset.diagnostics.extend([refused] if refused is not None else [])
            pinned.extend([entry] if refused is None else [])
            continue
        path, problem = resolve_script(entry, dataset.root, known, hints)
        meant = _checked_out_candidate(dataset.root, entry, known, hints) if cross_check and missing(problem) else None
        if problem is not None and meant is not None:  # the one script the link surely means: checked in its place
            dataset.diagnostics.extend(_on_candidate_here(problem, entry, meant, rule, declared()))
            continue
        if problem is not None:
            dataset.diagnostics.append(problem)
            if problem.subtype is Subtype.SCRIPT_PATH:
                continue
        if path is not None:
            scripts[entry.script] = path
            dataset.linkable.add(entry.script)
        run = _read_checked_out(entry, path, dataset.root) if cross_check and path is not None else None
        dataset.diagnostics.extend(check_naming(entry, run, rule))
        if run is not None:
            dataset.diagnostics.extend(crosscheck.cross_check(entry, run, entry.script, declared()))
        check_plausible(dataset, entry, run)
    if pinned:
        check_pinned(dataset, pinned, cross_check, rule, repo or git.Repo(dataset.root))
    return scripts


def _second_row(entry: Entry, first: dict[str, Entry]) -> Diagnostic | None:
    """A row whose script an earlier row already links (``first``: script -> that row, updated here)."""
    key = script_path(entry.script).as_posix()
    other = first.setdefault(key, entry)
    if other is entry:
        return None
    return row_diagnostic(
        entry,
        "script",
        Subtype.DUPLICATE_ROW,
        f"script '{entry.script}' is already linked by the row at {other.source.path}:"
        f"{other.source.line}; each row needs its own script (remove one row, or "
        "give it the script it was measured with)",
    )


def _read_checked_out(entry: Entry, path: Path, root: Path) -> Run | None:
    try:
        data = read_regular(path, rowscript.MAX_SCRIPT_BYTES)
    except OSError:
        return None  # already reported as script_missing by the path check
    return rowscript.run_of(data, script_path(entry.script).as_posix(), entry.env, rowscript.TreeFiles(root))


def check_plausible(dataset: DataSet, entry: Entry, run: Run | None) -> None:
    """Estimate the row's memory (kept for the ``estimate`` column) and report it if it cannot fit.

    ``run`` is the one reading of the row's script that the other checks used (None when
    the script was not read), so the estimate and the cross-check never disagree on what
    the script asks for.
    """
    unknown = plausibility.check_device(entry)
    if unknown is not None:
        dataset.diagnostics.append(unknown)
        return
    found = plausibility.estimate_row(entry, run)
    if found is None:
        return
    dataset.estimates[entry.source] = found.kept()  # the figures, not every term: 10,000 rows are kept
    problem = plausibility.check_row(entry, found)
    if problem is not None:
        dataset.diagnostics.append(problem)


def check_pinned(dataset: DataSet, rows: list[Entry], cross_check: bool, rule: NamingRule, repo: git.Repo) -> None:
    """Check rows whose script is read from git at their ``script_ref``: one process for all."""
    limit = rowscript.MAX_SCRIPT_BYTES
    declared: dict[str, tuple[Requirement, ...]] = {}  # per ref: the metadata read once
    read_at_ref: list[tuple[Entry, Run]] = []
    try:
        found = repo.read([(e.script_ref or "", PurePosixPath(e.script).as_posix()) for e in rows], limit)
    except git.GitUnavailable as err:
        for entry in rows:
            dataset.diagnostics.append(
                row_diagnostic(
                    entry,
                    "script_ref",
                    Subtype.SCRIPT_REF,
                    f"script_ref '{entry.script_ref}' needs git to read the script at that commit, but {err}; "
                    "build from a git checkout with git installed",
                )
            )
        return
    for entry in rows:
        ref = entry.script_ref or ""
        if not found.refs.get(ref):
            dataset.diagnostics.append(
                row_diagnostic(
                    entry,
                    "script_ref",
                    Subtype.SCRIPT_REF,
                    f"script_ref '{ref}' is not a commit, tag or branch this repository has (a shallow clone "
                    f"lacks old commits); fetch it (git fetch origin {ref}), and on Read the Docs add that "
                    "command to build.jobs.post_checkout in .readthedocs.yaml",
                )
            )
            continue
        blob = found.files.get((ref, PurePosixPath(entry.script).as_posix()))
        if blob is None or (ref, PurePosixPath(entry.script).as_posix()) in found.links:
            candidate = _candidate(repo, ref, entry) if blob is None and cross_check else None
            dataset.diagnostics.append(_not_pinned(repo, entry, ref, blob is not None, candidate))
            if candidate is not None and candidate.run is not None:
                requires = _requires(declared, dataset, ref, repo)
                dataset.diagnostics.extend(_on_candidate(entry, candidate, rule, requires))
            else:
                dataset.diagnostics.extend(check_naming(entry, None, rule))
            continue
        dataset.linkable.add(entry.script)
        if blob.data is None:
            dataset.diagnostics.append(
                row_diagnostic(
                    entry,
                    "script",
                    Subtype.SCRIPT_FILE,
                    f"script '{entry.script}' is {blob.size} bytes at {ref}, more than the {limit} a tuning "
                    "script may have; it is not read",
                )
            )
        run = None
        if cross_check and blob.data is not None:
            files = rowscript.RefFiles(repo, ref)
            run = rowscript.run_of(blob.data, PurePosixPath(entry.script).as_posix(), entry.env, files)
        dataset.diagnostics.extend(check_naming(entry, run, rule))
        if run is not None:
            requires = _requires(declared, dataset, ref, repo)
            dataset.diagnostics.extend(crosscheck.cross_check(entry, run, entry.script, requires))
            read_at_ref.append((entry, run))
        check_plausible(dataset, entry, run)
    history.check_pinned_history(dataset, read_at_ref, repo)


def _requires(
    declared: dict[str, tuple[Requirement, ...]], dataset: DataSet, ref: str, repo: git.Repo
) -> tuple[Requirement, ...]:
    """The engine bounds the metadata declares at ``ref``, read once per ref however many rows pin it."""
    if ref not in declared:
        declared[ref] = requirements.declared(dataset.root, ref, repo)
    return declared[ref]


@dataclasses.dataclass(frozen=True)
class Candidate:
    """The one script a missing link surely means: its name differs only in ``-``/``_`` and case."""

    path: str
    run: Run | None


def _candidate(repo: git.Repo, ref: str, entry: Entry) -> Candidate | None:
    """The folder's one script whose name is the missing one but for its separators (verl's ``qwen2_14b_…``)."""
    folder = PurePosixPath(entry.script).parent.as_posix()
    folder = "" if folder == "." else folder
    try:
        names = [n for n in repo.list_folder(ref, folder) if n.endswith((".sh", ".yaml", ".yml"))]
    except git.GitUnavailable:
        return None
    same = [n for n in names if n != entry.script_name and _bare(n) == _bare(entry.script_name)]
    if len(same) != 1:
        return None  # none, or several: which one was meant is not sure
    path = f"{folder}/{same[0]}" if folder else same[0]
    return Candidate(path, rowscript.row_script(path, ref, repo.root, entry.env, repo).run)


def missing(problem: Diagnostic | None) -> bool:
    """Whether a row's script problem says it does not exist (the one a candidate may answer)."""
    return problem is not None and problem.subtype is Subtype.SCRIPT_MISSING


def _checked_out_candidate(root: Path, entry: Entry, known: dict[Path, Path], hints: Hints) -> Candidate | None:
    """The working tree's one script a missing link surely means, read through the same guards as a row's own."""
    folder = real_path(root).joinpath(*script_path(entry.script).parent.parts)
    if status(folder / entry.script_name) is not None:
        return None  # there, but unreadable: no other script is meant
    same = [n for n in hints.names(folder) if n != entry.script_name and _bare(n) == _bare(entry.script_name)]
    if len(same) != 1:
        return None
    text = (script_path(entry.script).parent / same[0]).as_posix()
    meant = dataclasses.replace(entry, script=text)
    path, problem = resolve_script(meant, root, known, hints)
    if path is None or problem is not None:
        return None
    return Candidate(text, _read_checked_out(meant, path, root))


def _on_candidate_here(
    problem: Diagnostic, entry: Entry, candidate: Candidate, rule: NamingRule, requires: tuple[Requirement, ...]
) -> list[Diagnostic]:
    """The missing-script finding, saying the candidate is checked in its place, then its checks."""
    said = f"script '{entry.script}' does not exist under the repository root; did you mean '{candidate.path}'?"
    missing = dataclasses.replace(problem, message=f"{said} The row's checks run on it in its place")
    return [missing, *_on_candidate(entry, candidate, rule, requires)]


def _bare(name: str) -> str:
    return _WORD_BREAK.sub("", name.lower())


def _on_candidate(
    entry: Entry, candidate: Candidate, rule: NamingRule, requires: tuple[Requirement, ...]
) -> list[Diagnostic]:
    """The row's checks on the script its link surely means, each saying so: what the broken link hides."""
    run = candidate.run
    if run is None:
        return []
    meant = dataclasses.replace(entry, script=candidate.path)
    found = check_naming(meant, run, rule) + crosscheck.cross_check(meant, run, candidate.path, requires)
    note = f" (checked on '{candidate.path}', which the broken link surely means)"
    return [dataclasses.replace(d, message=d.message + note) for d in found]


def _not_pinned(repo: git.Repo, entry: Entry, ref: str, link: bool, candidate: Candidate | None = None) -> Diagnostic:
    """Why a pinned row has no script to read at its ref: none is there, or git stores a symbolic link there."""
    if link:
        return row_diagnostic(
            entry,
            "script",
            Subtype.SCRIPT_FILE,
            f"script '{entry.script}' is a symbolic link at {ref}: git stores where it points, not a script, so it "
            "is not read; pin the script's own path",
        )
    return row_diagnostic(
        entry,
        "script",
        Subtype.SCRIPT_MISSING,
        f"script '{entry.script}' does not exist at {ref}{pinned_hint(repo, ref, entry, candidate)}",
    )


def pinned_hint(repo: git.Repo, ref: str, entry: Entry, candidate: Candidate | None = None) -> str:
    """ "Did you mean" for a script missing at its ref, with what the script it probably means runs.

    The same bounded comparison as for a checked-out script (:class:`Hints`), over the
    names git stores in that folder at the ref; the reader is told what the near name
    asks for, so a misspelled link that hides a wrong model or GPU count is found too.
    A ``candidate`` (the one name that differs only in separators) is the one meant, and
    the row's checks run on it.
    """
    if candidate is not None:
        path, asked = candidate.path, candidate.run
    else:
        folder = PurePosixPath(entry.script).parent.as_posix()
        folder = "" if folder == "." else folder
        try:
            names = [n for n in repo.list_folder(ref, folder) if n.endswith((".sh", ".yaml", ".yml"))]
        except git.GitUnavailable:
            names = []
        close, too_many = Hints.closest_in(names, entry.script_name, entry.model)
        if close is None:
            if too_many:
                return f"; check the path (its folder has {too_many} scripts like it at {ref}, too many to suggest one)"
            return "; check the path, or the script_ref"
        path = f"{folder}/{close}" if folder else close
        asked = rowscript.row_script(path, ref, repo.root, entry.env, repo).run
    hint = f"; did you mean '{path}'?"
    if asked is not None:
        said = [
            f"{asked.gpus.value} GPUs" if crosscheck.known(asked.gpus) else "",
            str(asked.train_backend.value) if crosscheck.known(asked.train_backend) else "",
            str(asked.engine.value) if crosscheck.known(asked.engine) else "",
            one_line(str(asked.model.value), 80) if crosscheck.known(asked.model) else "",
        ]
        if any(said):
            hint += f" It runs {', '.join(part for part in said if part)}"
    if candidate is not None:
        hint += "; the row's checks run on it in its place"
    return hint
