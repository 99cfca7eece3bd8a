"""What every ``rlresources`` command shares: exit codes, errors, settings and loading the data.

A command loads data only through :func:`load`, which calls
:func:`~sphinx_rlresources.core.loader.load_dataset` -- the code path of the Sphinx
build -- with the paths and options from the flags, then ``[tool.rlresources]``
(:mod:`sphinx_rlresources.core.project`), then the defaults.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from sphinx_rlresources.core.diagnostics import relpath
from sphinx_rlresources.core.loader import LoadOptions, load_dataset
from sphinx_rlresources.core.model import DataSet
from sphinx_rlresources.core.naming import naming_rule
from sphinx_rlresources.core.paths import WriteRefused, check_writable, write_inside
from sphinx_rlresources.core.project import Project, SettingsError
from sphinx_rlresources.core.project import load_project as read_project
from sphinx_rlresources.core.settings import cli_default
from sphinx_rlresources.safe.text import output_line

PROG = "rlresources"
EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


class CliError(Exception):
    """A problem that stops the command (bad flag value, missing folder): exit status 2."""


class Lines:
    """A text stream every line of which passes :func:`~sphinx_rlresources.safe.text.output_line`.

    A CI runner reads each line a command prints and acts on the workflow commands in
    it; a terminal acts on the control characters.  Whatever a command writes (a table,
    a diff, a row, JSON) reaches standard output only through here, so the rule holds
    for text no message quoted; a line is written when it is complete, since a command
    may write one in pieces.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._pending: list[str] = []

    def write(self, text: str, /) -> int:
        if "\n" not in text:
            if text:  # an empty write starts no line
                self._pending.append(text)
            return len(text)
        head, _, tail = text.rpartition("\n")
        lines = ("".join(self._pending) + head).split("\n")
        self._pending = [tail] if tail else []
        self._stream.write("".join(output_line(line) + "\n" for line in lines))
        return len(text)

    def annotation(self, line: str) -> None:
        """One workflow command of ours (``--format github``'s ``::error file=…::message``).

        Its leading ``::`` is kept, and the rule holds for the rest: a ``##[`` or a control
        character in the message is escaped as on any other line.
        """
        if self._pending:
            self.write("\n")
        self._stream.write("::" + output_line(line.removeprefix("::")) + "\n")

    def flush(self) -> None:
        """Write a last line that has no line break, as it is (the rule applied)."""
        if self._pending:
            self._stream.write(output_line("".join(self._pending)))
            self._pending = []
        self._stream.flush()


def tell(text: str) -> None:
    """A line for the user on standard error (a note, an error), under the same rule as :class:`Lines`."""
    print(output_line(text), file=sys.stderr)


def plural(count: int, word: str) -> str:
    """``1 row``, ``2 rows``: the counts in summary lines."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def load_project(start: Path | None = None) -> Project:
    """``[tool.rlresources]`` of the nearest ``pyproject.toml``; an unusable one stops the command."""
    try:
        return read_project(start)
    except SettingsError as err:
        raise CliError(str(err)) from None


def add_data_flags(parser: argparse.ArgumentParser, root: bool = True) -> None:
    """``--data`` (and ``--root``), for every command that reads the data folder."""
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


def data_and_root(args: argparse.Namespace, project: Project) -> tuple[Path, Path]:
    """The data folder and the root: flags first, then pyproject, then ./data and ."""
    data = Path(args.data) if getattr(args, "data", None) else project.data or project.base / cli_default("data")
    root = Path(args.root) if getattr(args, "root", None) else project.root or project.base / cli_default("root")
    if not data.is_dir():
        hint = "" if data.exists() else "; pass --data DIR or set data in [tool.rlresources] of pyproject.toml"
        raise CliError(
            f"the data folder '{relpath(data)}' {'is not a folder' if data.exists() else 'does not exist'}{hint}"
        )
    if not root.is_dir():
        raise CliError(f"the root '{relpath(root)}' is not a folder; pass --root DIR")
    return data, root


def positive(unit: str = "") -> Callable[[str], int]:
    """An argparse type: a whole number of at least 1 (``unit`` names what it counts, for messages)."""
    of = f" of {unit}" if unit else ""

    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a whole number{of}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"{value} is not a positive number{of}")
        return value

    return convert


def add_load_arguments(parser: argparse.ArgumentParser, stale: str | None, cross_check: str) -> None:
    """The flags that fill :class:`~.loader.LoadOptions`, shared by every command that loads data.

    A check that adds a loader option adds its flag here and reads it in
    :func:`load_options`, so ``lint``, ``render`` and ``new`` accept it alike.  Each
    command says what ``--stale`` and ``--no-cross-check`` change in *its* output, since
    that differs (``lint`` reports, ``render`` prints a table); ``stale=None`` accepts
    the flag without offering it, for a command whose output it does not change.
    """
    parser.add_argument(
        "--max-file-size",
        type=positive("bytes"),
        metavar="BYTES",
        help="the largest data file read, in bytes (default: max_file_size in [tool.rlresources], "
        f"else {cli_default('max_file_size')}), as rlresources_max_file_size",
    )
    parser.add_argument("--stale", action="store_true", help=stale if stale else argparse.SUPPRESS)
    parser.add_argument("--no-cross-check", dest="cross_check", action="store_false", help=cross_check)


def load_options(args: argparse.Namespace, project: Project) -> LoadOptions:
    """The loader options from the flags, then ``[tool.rlresources]``, then the defaults."""
    size = getattr(args, "max_file_size", None) or project.max_file_size or cli_default("max_file_size")
    return LoadOptions(
        max_file_bytes=size,
        stale=getattr(args, "stale", False),
        cross_check=getattr(args, "cross_check", True),
        naming=naming_rule(project.naming),
    )


def load(args: argparse.Namespace) -> tuple[DataSet, Project]:
    """Load the data set the way the build does, with the command's paths and options."""
    project = load_project()
    data, root = data_and_root(args, project)
    return load_dataset(data, root, load_options(args, project)), project


def repository_root(args: argparse.Namespace, project: Project) -> Path:
    """The folder a command may write in: ``--root``, else ``root`` in ``[tool.rlresources]``, else the project's."""
    root = Path(args.root) if getattr(args, "root", None) else project.root or project.base / cli_default("root")
    if not root.is_dir():
        raise CliError(f"the root '{relpath(root)}' is not a folder; pass --root DIR")
    return root


def check_targets(root: Path, targets: list[Path], overwrite: bool) -> None:
    """Refuse (exit 2, nothing written) unless every target can be written by :func:`write_file`."""
    for target in targets:
        try:
            check_writable(root, target, overwrite, create_folders=True)
        except WriteRefused as err:
            raise CliError(f"{err}; nothing was written") from None


def write_file(root: Path, target: Path, text: str, overwrite: bool, read: bytes | None = None) -> None:
    """Write a command's output file the one safe way (:func:`~sphinx_rlresources.core.paths.write_inside`).

    ``read``: the bytes the command read from the file it replaces; a file that no longer
    holds them was edited meanwhile and is left as it is.
    """
    try:
        write_inside(root, target, text.encode("utf-8"), overwrite=overwrite, create_folders=True, expected=read)
    except WriteRefused as err:
        raise CliError(f"{err}; nothing was written") from None
