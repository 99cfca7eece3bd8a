"""``rlresources lint``: the build's loader and checks, plus scripts that no row links to.

Exit status: 0 nothing found, 1 findings, 2 the command could not run.
"""

from __future__ import annotations

import argparse
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sphinx_rlresources.cli.common import EXIT_FINDINGS, EXIT_OK, PROG, CliError, Lines, load, plural, tell
from sphinx_rlresources.core.checks import real_script
from sphinx_rlresources.core.diagnostics import Diagnostic, Subtype, relpath
from sphinx_rlresources.core.globs import Scope, compile_scope
from sphinx_rlresources.core.model import DataSet
from sphinx_rlresources.core.naming import PRESETS, NamingRule, naming_rule
from sphinx_rlresources.core.paths import exists, is_within, real_path, status, what_is
from sphinx_rlresources.core.project import Project
from sphinx_rlresources.core.settings import cli_default
from sphinx_rlresources.safe.text import json_text, one_line


def launch_scope(project: Project, rule: NamingRule) -> Scope | None:
    """The ``launch_files`` setting, else the naming preset's own folders; None: the ``scripts`` folders decide."""
    globs = project.launch_files if project.launch_files is not None else list(rule.scope)
    return compile_scope(globs) if globs else None


def script_folders(
    args: argparse.Namespace, project: Project, dataset: DataSet, scope: Scope | None = None
) -> list[Path]:
    """Where scripts live: ``--scripts``; else pyproject's (unless ``--root`` is given); else the folders the
    launch-file globs start in; else ``examples/tuning``.

    The folders of the rows' scripts are always added.
    """
    if args.scripts:
        folders = [Path(s) for s in args.scripts]
    elif project.scripts and not getattr(args, "root", None):
        folders = list(project.scripts)
    else:
        bases = scope.bases if scope is not None else tuple(cli_default("scripts"))
        folders = [dataset.root / folder for folder in bases]
        folders = [f for f in folders if f.is_dir()]
    root = real_path(dataset.root)
    for folder in folders:
        if not folder.is_dir():
            raise CliError(
                f"the scripts folder '{relpath(folder)}' is not a folder; fix --scripts or tool.rlresources.scripts"
            )
        if not is_within(real_path(folder), root):
            raise CliError(
                f"the scripts folder '{relpath(folder)}' lies outside the repository root (or is a symbolic "
                "link that leads out); fix --scripts or tool.rlresources.scripts"
            )
    folders.extend(path.parent for path in dataset.scripts.values())
    unique: dict[Path, None] = {}
    for folder in dict.fromkeys(folders):  # thousands of rows share a few folders: resolve each once
        unique[real_path(folder)] = None
    return list(unique)


def find_scripts(
    folders: Sequence[Path], root: Path, suffixes: tuple[str, ...] = (".sh",)
) -> tuple[list[Path], list[Diagnostic]]:
    """Every script (``*.sh``, or the naming rule's suffixes) under the folders, and a finding for each one
    that may not be read.

    Hidden folders and symbolic links to folders are skipped.  A ``*.sh`` that leads out
    of the root, or that is not a regular file (a pipe, a device), is reported where it
    lies and never listed, so no later step opens it or suggests a command for it.
    """
    found: dict[Path, None] = {}
    refused: dict[str, Diagnostic] = {}  # by the path shown
    known: dict[Path, Path] = {}  # folder -> real path: one lookup per folder, not per script
    walked: set[str] = set()  # the rows' folders lie inside the scripts folder: each is listed once
    real_root = real_path(root)
    for folder in folders:
        for current, dirs, files in os.walk(folder):
            if current in walked:
                dirs[:] = []
                continue
            walked.add(current)
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and str(Path(current, d)) not in walked)
            for name in sorted(files):
                if not name.endswith(suffixes) or name.startswith("."):
                    continue
                path = Path(current) / name
                real = real_script(path, known)
                inside = is_within(real, real_root)
                what = status(real) if inside else None  # one stat: a regular file, something else, or nothing
                if what is not None and stat.S_ISREG(what.st_mode):
                    found[real] = None
                    continue
                shown = f"{relpath(Path(current))}/{name}"  # the link itself, not where it leads
                if not exists(real):
                    message = "this is a symbolic link that leads nowhere (or in a loop); delete it"
                    refused[shown] = Diagnostic(shown, 0, 0, Subtype.SCRIPT_FILE, message)
                elif not is_within(real, real_root):
                    message = "this script is a symbolic link to a place outside the repository root; " + (
                        "replace it with the script itself, or delete it"
                    )
                    refused[shown] = Diagnostic(shown, 0, 0, Subtype.SCRIPT_PATH, message)
                else:
                    message = f"this is {what_is(real)}, not a script file; delete it, or replace it with the script"
                    refused[shown] = Diagnostic(shown, 0, 0, Subtype.SCRIPT_FILE, message)
    return sorted(found), list(refused.values())


def claimed(script: Path, root: Path, rule: NamingRule, scope: Scope | None) -> bool:
    """Whether a file is a launch file: inside the scope (when one is set) and claimed by the naming rule.

    Both must agree: a file the rule does not claim could not get a row from ``new``, and
    one outside the scope (a CI launcher, an SFT script) was excluded on purpose.
    """
    if not rule.claims(script.name):
        return False
    if scope is None:
        return True
    try:
        relative = script.relative_to(real_path(root)).as_posix()
    except ValueError:
        return False
    return scope.contains(relative)


def orphan_scripts(
    dataset: DataSet, scripts: Sequence[Path], rule: NamingRule = PRESETS["seed"], scope: Scope | None = None
) -> list[Diagnostic]:
    """A finding for every launch file (as the scope and the rule say) that no row links to.

    Only a file the repository calls a launch file can lack a row: verl's
    ``run_<model>_<backend>.sh`` examples are not missing rows under the seed rule, and a
    ``new`` command that then refused them would be no help.
    """
    linked = set(dataset.scripts.values())  # already real paths: resolve_script returned them
    # A row pinned at a commit links its path too: the checkout's file of that name is the
    # script the row names (read at the pin), not one that lacks a row.
    linked.update(real_path(dataset.root / e.script) for e in dataset.entries if e.script_ref is not None)
    found = []
    for script in scripts:
        if script in linked or not claimed(script, dataset.root, rule, scope):
            continue
        found.append(
            Diagnostic(
                relpath(script),
                1,
                1,
                Subtype.ORPHAN_SCRIPT,
                f"no row links to this script; add its row with 'rlresources new {relpath(script)}', "
                "or delete the script if it is not a verified configuration (or leave it out with a '!' glob "
                "in tool.rlresources.launch_files)",
                severity="warning",
            )
        )
    return found


def _github_escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def format_github(diag: Diagnostic) -> str:
    """A GitHub Actions workflow command that annotates the file and line."""
    props = [f"file={_github_escape(diag.path, True)}"]
    if diag.line > 0:
        props.append(f"line={diag.line}")
        if diag.column > 0:
            props.append(f"col={diag.column}")
    props.append(f"title={_github_escape(diag.subtype.code, True)}")
    return f"::{diag.severity} {','.join(props)}::{_github_escape(diag.message)}"


def report(out: Lines, diag: Diagnostic, github: bool) -> None:
    """One finding as its line: a workflow command of ours (``--format github``) or the compiler-style line."""
    if github:
        out.annotation(format_github(diag))
    else:
        out.write(diag.format() + "\n")


def as_json(diag: Diagnostic) -> dict[str, Any]:
    return {
        "file": diag.path,
        "line": diag.line,
        "column": diag.column,
        "severity": diag.severity,
        "code": diag.subtype.code,
        "message": diag.message,
        "json_path": diag.json_path,
    }


def summary(found: Sequence[Diagnostic], dataset: DataSet, scripts: int, note: str = "") -> str:
    files = plural(len(dataset.sizes), "data file")
    rows = plural(len(dataset.entries), "row")
    checked = f"{files} ({rows}) and {plural(scripts, 'script')}"
    if not found:
        return f"{PROG}: no problems in {checked}{note}"
    errors = sum(1 for d in found if d.severity == "error")
    warnings = len(found) - errors
    parts = [plural(errors, "error")] if errors else []
    if warnings:
        parts.append(plural(warnings, "warning"))
    return f"{PROG}: {' and '.join(parts)} in {checked}{note}"


def run(args: argparse.Namespace, out: Lines) -> int:
    dataset, project = load(args)
    for skipped in dataset.notes:  # a check that could not run (no git history): not a finding
        tell(f"{PROG}: note: {one_line(skipped)}")
    found = list(dataset.diagnostics)
    note = ""
    rule = naming_rule(project.naming)
    scope = launch_scope(project, rule)
    folders = script_folders(args, project, dataset, scope)
    scripts, refused = find_scripts(folders, dataset.root, rule.suffixes)
    found.extend(refused)
    if project.launch_files == []:
        note = "; the orphan check is off (launch_files = [])"
    elif any(not size.readable for size in dataset.sizes.values()):
        note = "; scripts without a row are checked once every data file can be read"
    else:
        found.extend(orphan_scripts(dataset, scripts, rule, scope))
    found.sort()
    if args.format == "json":
        out.write(json_text([as_json(d) for d in found]))
        out.write("\n")
    else:
        for diag in found:
            report(out, diag, args.format == "github")
        out.write(summary(found, dataset, len(scripts), note) + "\n")
    return EXIT_FINDINGS if found else EXIT_OK
