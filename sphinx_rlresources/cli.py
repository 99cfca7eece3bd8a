"""The ``rlresources`` command: check, import, scaffold and render data without Sphinx.

Contributors run ``rlresources lint`` before pushing and CI runs it after; both go
through :func:`~.loader.load_dataset`, the code path the Sphinx build uses, so the
command can never pass data that the build would warn about.  Nothing here imports
Sphinx, which keeps the command fast enough for a pre-commit hook.

Exit status: 0 nothing found, 1 findings, 2 the command could not run.  Every failure
is a one-line ``rlresources: error: ...`` on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from . import __version__
from .checks import real_script
from .diagnostics import Diagnostic, Subtype, relpath
from .loader import DEFAULT_MAX_FILE_BYTES, LoadOptions, load_dataset
from .model import DataSet

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

PROG = "rlresources"
EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


class CliError(Exception):
    """A problem that stops the command (bad flag value, missing folder): exit status 2."""


# -- [tool.rlresources] ------------------------------------------------------------


@dataclass
class Project:
    """The defaults of ``[tool.rlresources]``, with paths made absolute.

    Paths in ``pyproject.toml`` are relative to the folder that holds it, so a plain
    ``rlresources lint`` gives the same answer from any subfolder of the repository.
    """

    base: Path
    pyproject: Path | None = None
    data: Path | None = None
    root: Path | None = None
    scripts: list[Path] = field(default_factory=list)
    script_url: str | None = None
    script_ref: str = "main"
    max_file_size: int | None = None


def find_pyproject(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest ``pyproject.toml`` (here or above) with a ``[tool.rlresources]`` table."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if not candidate.is_file():
            continue
        try:
            with open(candidate, "rb") as handle:
                content = tomllib.load(handle)
        except tomllib.TOMLDecodeError as err:
            raise CliError(
                f"{relpath(candidate)} is not valid TOML ({err}); fix it or run from another folder"
            ) from None
        except OSError as err:
            raise CliError(f"{relpath(candidate)} cannot be read ({err.strerror or err})") from None
        tool = content.get("tool", {})
        table = tool.get("rlresources") if isinstance(tool, dict) else None
        if table is not None:
            if not isinstance(table, dict):
                raise CliError(f"{relpath(candidate)}: [tool.rlresources] must be a table")
            return candidate, table
    return None


def _string(table: dict[str, Any], key: str, where: Path) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise CliError(f'{relpath(where)}: tool.rlresources.{key} must be a non-empty string, e.g. {key} = "data"')
    return value


KNOWN_KEYS = ("data", "root", "scripts", "script_url", "script_ref", "max_file_size")


def load_project(start: Path | None = None) -> Project:
    """Read ``[tool.rlresources]`` from the nearest ``pyproject.toml`` that has it."""
    start = (start or Path.cwd()).resolve()
    found = find_pyproject(start)
    if found is None:
        return Project(base=start)
    path, table = found
    base = path.parent
    unknown = sorted(set(table) - set(KNOWN_KEYS))
    if unknown:
        raise CliError(
            f"{relpath(path)}: unknown key(s) in [tool.rlresources]: {', '.join(unknown)}; "
            f"the keys are: {', '.join(KNOWN_KEYS)}"
        )
    project = Project(base=base, pyproject=path)
    data = _string(table, "data", path)
    root = _string(table, "root", path)
    project.data = base / data if data else None
    project.root = base / root if root else None
    scripts = table.get("scripts", [])
    if isinstance(scripts, str):
        scripts = [scripts]
    if not isinstance(scripts, list) or not all(isinstance(s, str) and s for s in scripts):
        raise CliError(
            f'{relpath(path)}: tool.rlresources.scripts must be a list of folders, e.g. scripts = ["examples/tuning"]'
        )
    project.scripts = [base / s for s in scripts]
    project.script_url = _string(table, "script_url", path)
    project.script_ref = _string(table, "script_ref", path) or "main"
    size = table.get("max_file_size")
    if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size < 1):
        raise CliError(f"{relpath(path)}: tool.rlresources.max_file_size must be a positive number of bytes")
    project.max_file_size = size
    return project


def data_and_root(args: argparse.Namespace, project: Project) -> tuple[Path, Path]:
    """The data folder and the root: flags first, then pyproject, then ./data and ."""
    data = Path(args.data) if getattr(args, "data", None) else project.data or project.base / "data"
    root = Path(args.root) if getattr(args, "root", None) else project.root or project.base
    if not data.is_dir():
        hint = "" if data.exists() else "; pass --data DIR or set data in [tool.rlresources] of pyproject.toml"
        raise CliError(
            f"the data folder '{relpath(data)}' {'is not a folder' if data.exists() else 'does not exist'}{hint}"
        )
    if not root.is_dir():
        raise CliError(f"the root '{relpath(root)}' is not a folder; pass --root DIR")
    return data, root


# -- loader options (other checks add their flags here) -----------------------------


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number of bytes") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a positive number of bytes")
    return value


def add_load_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags that fill :class:`~.loader.LoadOptions`, shared by every command that loads data.

    A check that adds a loader option adds its flag here and reads it in
    :func:`load_options`, so ``lint``, ``render`` and ``new`` accept it alike.
    """
    parser.add_argument(
        "--max-file-size",
        type=_positive_int,
        metavar="BYTES",
        help=f"the largest data file read, in bytes (default {DEFAULT_MAX_FILE_BYTES}, as rlresources_max_file_size)",
    )
    parser.add_argument(
        "--stale",
        action="store_true",
        help="also report rows whose script changed in git after the row was tested (as rlresources_stale_check)",
    )
    parser.add_argument(
        "--no-cross-check",
        dest="cross_check",
        action="store_false",
        help="do not compare rows with what their scripts run (as rlresources_cross_check = False)",
    )


def load_options(args: argparse.Namespace, project: Project) -> LoadOptions:
    """The loader options from the flags, then ``[tool.rlresources]``, then the defaults."""
    size = getattr(args, "max_file_size", None) or project.max_file_size or DEFAULT_MAX_FILE_BYTES
    return LoadOptions(
        max_file_bytes=size,
        stale=getattr(args, "stale", False),
        cross_check=getattr(args, "cross_check", True),
    )


def load(args: argparse.Namespace) -> tuple[DataSet, Project]:
    """Load the data set the way the build does, with the command's paths and options."""
    project = load_project()
    data, root = data_and_root(args, project)
    return load_dataset(data, root, load_options(args, project)), project


# -- lint -------------------------------------------------------------------------


def script_folders(args: argparse.Namespace, project: Project, dataset: DataSet) -> list[Path]:
    """Where scripts live: ``--scripts``; else pyproject's (unless ``--root`` is given); else ``examples/tuning``.

    The folders of the rows' scripts are always added.
    """
    if args.scripts:
        folders = [Path(s) for s in args.scripts]
    elif project.scripts and not getattr(args, "root", None):
        folders = list(project.scripts)
    else:
        folders = [dataset.root / "examples" / "tuning"]
        folders = [f for f in folders if f.is_dir()]
    for folder in folders:
        if not folder.is_dir():
            raise CliError(
                f"the scripts folder '{relpath(folder)}' is not a folder; fix --scripts or tool.rlresources.scripts"
            )
    folders.extend(path.parent for path in dataset.scripts.values())
    unique: dict[Path, None] = {}
    for folder in dict.fromkeys(folders):  # thousands of rows share a few folders: resolve each once
        unique[folder.resolve()] = None
    return list(unique)


def find_scripts(folders: Sequence[Path]) -> list[Path]:
    """Every ``*.sh`` under the folders (hidden folders and symbolic links to folders skipped)."""
    found: dict[Path, None] = {}
    known: dict[Path, Path] = {}  # folder -> real path: one lookup per folder, not per script
    for folder in folders:
        for current, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                if name.endswith(".sh") and not name.startswith("."):
                    found[real_script(Path(current) / name, known)] = None
    return sorted(found)


def orphan_scripts(dataset: DataSet, scripts: Sequence[Path]) -> list[Diagnostic]:
    """A finding for every script that no row links to."""
    linked = set(dataset.scripts.values())  # already real paths: resolve_script returned them
    found = []
    for script in scripts:
        if script in linked:
            continue
        found.append(
            Diagnostic(
                relpath(script),
                1,
                1,
                Subtype.ORPHAN_SCRIPT,
                f"no row links to this script; add its row with 'rlresources new {relpath(script)}', "
                "or delete the script if it is not a verified configuration",
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


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary(found: Sequence[Diagnostic], dataset: DataSet, scripts: int, note: str = "") -> str:
    files = _plural(len(dataset.sizes), "data file")
    rows = _plural(len(dataset.entries), "row")
    checked = f"{files} ({rows}) and {_plural(scripts, 'script')}"
    if not found:
        return f"{PROG}: no problems in {checked}{note}"
    errors = sum(1 for d in found if d.severity == "error")
    warnings = len(found) - errors
    parts = [_plural(errors, "error")] if errors else []
    if warnings:
        parts.append(_plural(warnings, "warning"))
    return f"{PROG}: {' and '.join(parts)} in {checked}{note}"


def cmd_lint(args: argparse.Namespace, out: TextIO) -> int:
    dataset, project = load(args)
    for skipped in dataset.notes:  # a check that could not run (no git history): not a finding
        print(f"{PROG}: note: {skipped}", file=sys.stderr)
    found = list(dataset.diagnostics)
    note = ""
    folders = script_folders(args, project, dataset)
    scripts = find_scripts(folders)
    if any(not size.readable for size in dataset.sizes.values()):
        note = "; scripts without a row are checked once every data file can be read"
    else:
        found.extend(orphan_scripts(dataset, scripts))
    found.sort()
    if args.format == "json":
        json.dump([as_json(d) for d in found], out, indent=2, ensure_ascii=False)
        out.write("\n")
    else:
        line = format_github if args.format == "github" else Diagnostic.format
        for diag in found:
            out.write(line(diag) + "\n")
        out.write(summary(found, dataset, len(scripts), note) + "\n")
    return EXIT_FINDINGS if found else EXIT_OK


# -- schema -----------------------------------------------------------------------


def cmd_schema(args: argparse.Namespace, out: TextIO) -> int:
    from .validation import schema

    json.dump(schema(), out, indent=2, ensure_ascii=False)
    out.write("\n")
    return EXIT_OK


# -- the other commands live in their own modules ----------------------------------


def cmd_render(args: argparse.Namespace, out: TextIO) -> int:
    from .render import run

    return run(args, out)


def cmd_import(args: argparse.Namespace, out: TextIO) -> int:
    from .importer import run

    return run(args, out)


def cmd_new(args: argparse.Namespace, out: TextIO) -> int:
    from .scaffold import run

    return run(args, out)


# -- the parser -------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """Argparse that raises instead of exiting, so :func:`main` returns the status."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        self.print_usage(sys.stderr)
        raise CliError(f"{self.prog.split(' ', 1)[-1] + ': ' if ' ' in self.prog else ''}{message}")


def _data_flags(parser: argparse.ArgumentParser, root: bool = True) -> None:
    parser.add_argument(
        "--data", metavar="DIR", help="the folder of data files (default: data in [tool.rlresources], else ./data)"
    )
    if root:
        parser.add_argument(
            "--root",
            metavar="DIR",
            help="the repository root that row script paths are relative to "
            "(default: root in [tool.rlresources], else .)",
        )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Check, import, scaffold and render sphinx-rlresources data without a docs build.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    lint = commands.add_parser(
        "lint",
        help="check the data and the scripts the way the build does",
        description="Run the loader and checks of the Sphinx build, plus scripts without a row. "
        "Exit status: 0 nothing found, 1 findings, 2 the command could not run.",
    )
    _data_flags(lint)
    lint.add_argument(
        "--scripts",
        metavar="DIR",
        nargs="+",
        action="extend",
        help="folders whose *.sh files must each have a row (default: scripts in [tool.rlresources], "
        "else examples/tuning under the root); the rows' own folders are always added",
    )
    lint.add_argument(
        "--format", choices=("text", "json", "github"), default="text", help="the output format (default text)"
    )
    add_load_arguments(lint)
    lint.set_defaults(func=cmd_lint)

    schema = commands.add_parser(
        "schema", help="print the JSON Schema of a data file", description="Print the packaged JSON Schema."
    )
    schema.set_defaults(func=cmd_schema)

    render = commands.add_parser(
        "render",
        help="print a size's table as reST or Markdown",
        description="Print the table the directive draws for SIZE (or 'all') as a reST list-table or a "
        "GitHub-flavoured Markdown table.",
    )
    render.add_argument("size", metavar="SIZE", help="the size label (70B), case-insensitive, or 'all'")
    _data_flags(render)
    render.add_argument("--format", choices=("rst", "markdown"), default="rst", help="the output format (default rst)")
    render.add_argument("--columns", metavar="LIST", help="comma list of columns, as the directive's :columns:")
    render.add_argument(
        "--script-url",
        metavar="TEMPLATE",
        help="link the Link column: a URL template with {path} and {ref} (default: script_url in [tool.rlresources]; "
        "without one the Link column is plain text)",
    )
    render.add_argument(
        "--ref", metavar="REF", help="what fills {ref} (default: script_ref in [tool.rlresources], else main)"
    )
    add_load_arguments(render)
    render.set_defaults(func=cmd_render)

    imp = commands.add_parser(
        "import",
        help="turn a hand-written page's tables into data files",
        description="Read every table under a size heading of a hand-written reST page and write one data "
        "file per size. Every cell that cannot be carried over is reported with its page line; nothing is "
        "guessed. Exit status: 0 everything carried over, 1 some cells were not, 2 the command could not run.",
    )
    imp.add_argument("page", metavar="PAGE.rst", help="the hand-written page")
    imp.add_argument(
        "--out", metavar="DIR", required=True, help="the folder to write the data files to (created if missing)"
    )
    imp.add_argument(
        "--root",
        metavar="DIR",
        help="the repository root; used to pick the script path out of a link whose branch name has a '/'",
    )
    imp.add_argument("--force", action="store_true", help="overwrite data files that already exist in --out")
    imp.set_defaults(func=cmd_import)

    new = commands.add_parser(
        "new",
        help="append a row for a new script to its size's data file",
        description="Scaffold a row for SCRIPT from its file name and settings, appended to the size's data "
        "file without touching the rest of it. What cannot be known is left as TODO, which lint reports "
        "until it is filled in. Exit status: 0 row written, 1 the name breaks the rule or the script already "
        "has a row, 2 the command could not run.",
    )
    new.add_argument(
        "script", metavar="SCRIPT", help="the new script, e.g. examples/tuning/7b/qwen2-7b_grpo_8_h100_fsdp_vllm.sh"
    )
    _data_flags(new)
    new.add_argument(
        "--size", metavar="LABEL", help="the size the row belongs to (default: the script's folder name, e.g. 7b)"
    )
    new.add_argument("--tag", choices=("MIN", "RECOMMENDED"), help="the row's tag (default: TODO, to fill in)")
    new.add_argument("--contributor", metavar="NAME", help="who measured it (default: TODO, to fill in)")
    new.add_argument("--dry-run", action="store_true", help="print the row instead of writing it")
    add_load_arguments(new)
    new.set_defaults(func=cmd_new)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status instead of exiting."""
    parser = build_parser()
    out = sys.stdout
    try:
        try:
            args = parser.parse_args(list(argv) if argv is not None else None)
        except SystemExit as done:  # --help and --version
            return done.code if isinstance(done.code, int) else EXIT_OK
        func: Callable[[argparse.Namespace, TextIO], int] = args.func
        return func(args, out)
    except CliError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. piped into head
        return EXIT_OK
    except OSError as err:
        name = f" '{relpath(Path(err.filename))}'" if err.filename else ""
        print(f"{PROG}: error:{name} {err.strerror or err}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as err:  # noqa: BLE001 - a bug must end in a message, not a traceback
        print(f"{PROG}: error: internal error ({type(err).__name__}: {err}); please report this", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
