"""The ``rlresources`` command line: its parser and :func:`main`; each command is a module beside this one.

Contributors run ``rlresources lint`` before pushing and CI runs it after; both go
through :func:`~sphinx_rlresources.core.loader.load_dataset`, the code path the Sphinx build uses, so the
command can never pass data that the build would warn about.  Nothing here imports
Sphinx, which keeps the command fast enough for a pre-commit hook.

Exit status: 0 nothing found, 1 findings, 2 the command could not run.  Every failure
is a one-line ``rlresources: error: ...`` on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from sphinx_rlresources import __version__
from sphinx_rlresources.cli import estimate as estimate_command
from sphinx_rlresources.cli import importer as import_command
from sphinx_rlresources.cli import inspect as inspect_command
from sphinx_rlresources.cli import lint as lint_command
from sphinx_rlresources.cli import new as new_command
from sphinx_rlresources.cli import render as render_command
from sphinx_rlresources.cli import schema as schema_command
from sphinx_rlresources.cli import sync as sync_command
from sphinx_rlresources.cli.common import EXIT_ERROR, EXIT_OK, PROG, CliError, add_data_flags, add_load_arguments
from sphinx_rlresources.core.diagnostics import relpath
from sphinx_rlresources.safe.text import MAX_LOCATION, one_line, shown


class _Parser(argparse.ArgumentParser):
    """Argparse that raises instead of exiting, so :func:`main` returns the status."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        self.print_usage(sys.stderr)
        raise CliError(f"{self.prog.split(' ', 1)[-1] + ': ' if ' ' in self.prog else ''}{message}")


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
    add_data_flags(lint)
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
    lint.set_defaults(func=lint_command.run)

    schema = commands.add_parser(
        "schema",
        help="print the JSON Schema of a data file, or write it into the repository",
        description="Print the packaged JSON Schema, or write it to a file of the repository (--out), where the "
        "yaml-language-server modeline of each data file can point.",
    )
    schema.add_argument(
        "--out",
        metavar="PATH",
        help="write the schema to PATH inside the repository: a .json file, or a folder (created if missing) "
        "to hold rlresources.schema.json",
    )
    schema.set_defaults(func=schema_command.run)

    render = commands.add_parser(
        "render",
        help="print a size's table as reST or Markdown",
        description="Print the table the directive draws for SIZE (or 'all') as a reST list-table or a "
        "GitHub-flavoured Markdown table.",
    )
    render.add_argument("size", metavar="SIZE", help="the size label (70B), case-insensitive, or 'all'")
    add_data_flags(render)
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
    render.set_defaults(func=render_command.run)

    sync = commands.add_parser(
        "sync",
        help="rewrite the tables between rl-resource-table markers of Markdown files",
        description="Rewrite every block between <!-- rl-resource-table SIZE [:option: value ...] --> and "
        "<!-- /rl-resource-table --> in each FILE with the table that render --format markdown draws, chosen "
        "with the directive's options; everything outside the blocks stays byte for byte. Exit status: 0 every "
        "block synced (with --check: up to date), 1 findings (a block out of date with --check, a marker that "
        "cannot be used, the data's own problems for the rows drawn), 2 the command could not run.",
    )
    sync.add_argument("files", metavar="FILE", nargs="+", help="the Markdown files (README.md, docs/*.md)")
    sync.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 naming each block that is out of date"
    )
    sync.add_argument(
        "--format", choices=("text", "github"), default="text", help="the findings' format (default text)"
    )
    add_data_flags(sync)
    sync.add_argument(
        "--script-url",
        metavar="TEMPLATE",
        help="link the Link column, as for render (default: script_url in [tool.rlresources])",
    )
    sync.add_argument(
        "--ref", metavar="REF", help="what fills {ref} (default: script_ref in [tool.rlresources], else main)"
    )
    add_load_arguments(sync)
    sync.set_defaults(func=sync_command.run)

    inspect = commands.add_parser(
        "inspect",
        help="show what a launch script or recipe config asks for",
        description="Read each launch script or recipe config the way the checks do (never running it) and show "
        "its framework and every setting a row is checked against, with the line that wrote it and where the "
        "value comes from: set in the file, a default the script documents, --env, the framework's default, "
        "or run time. Exit status: 0 every file was read, 1 a file has no launch this reader knows or has "
        "mistakes of its own, 2 the command could not run.",
    )
    inspect_command.add_arguments(inspect)
    inspect.set_defaults(func=inspect_command.run)

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
    imp.set_defaults(func=import_command.run)

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
    add_data_flags(new)
    new.add_argument(
        "--size", metavar="LABEL", help="the size the row belongs to (default: the script's folder name, e.g. 7b)"
    )
    new.add_argument("--tag", choices=("MIN", "RECOMMENDED"), help="the row's tag (default: TODO, to fill in)")
    new.add_argument("--contributor", metavar="NAME", help="who measured it (default: TODO, to fill in)")
    new.add_argument("--dry-run", action="store_true", help="print the row instead of writing it")
    add_load_arguments(new)
    new.set_defaults(func=new_command.run)
    estimate = commands.add_parser(
        "estimate",
        help="the GPU and host memory an RL run needs: a floor and an expected peak",
        description="Estimate the per-GPU and host memory of an RL run, moment by moment, from the model's shape: "
        "a floor (what must be resident whatever the data) and an expected peak (at the stated lengths); or for "
        "a row of the data (--row FILE:LINE) with its script's settings. A flag left out assumes what a silent "
        "script assumes, and the output names each. Verdicts: fits, tight (expected peak above 90%% of the "
        "device), likely-oom (the floor fits, the expected peak does not), does-not-fit (the floor does not). "
        "Exit status: 0 fits, tight or likely-oom, 1 does-not-fit, 2 the command could not run.",
    )
    estimate_command.add_arguments(estimate)
    add_data_flags(estimate, root=True)
    estimate.set_defaults(func=estimate_command.run)
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
    except CliError as err:  # its text may quote a file name or a value: one line, escaped
        print(f"{PROG}: error: {one_line(str(err))}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. piped into head
        return EXIT_OK
    except OSError as err:
        name = f" {shown(relpath(Path(err.filename)), MAX_LOCATION)}" if err.filename else ""
        print(f"{PROG}: error:{name} {one_line(str(err.strerror or err))}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as err:  # noqa: BLE001 - a bug must end in a message, not a traceback
        print(
            f"{PROG}: error: internal error ({type(err).__name__}: {one_line(str(err), 200)}); please report this",
            file=sys.stderr,
        )
        return EXIT_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
