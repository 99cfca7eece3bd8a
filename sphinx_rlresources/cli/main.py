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
import importlib
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from sphinx_rlresources import __version__
from sphinx_rlresources.cli import estimate as estimate_command
from sphinx_rlresources.cli import inspect as inspect_command
from sphinx_rlresources.cli import lint as lint_command
from sphinx_rlresources.cli.common import (
    EXIT_ERROR,
    EXIT_OK,
    PROG,
    CliError,
    Lines,
    add_data_flags,
    add_load_arguments,
    tell,
)
from sphinx_rlresources.core.diagnostics import relpath
from sphinx_rlresources.safe.text import MAX_LOCATION, one_line, shown

DOCS_URL = "https://sphinx-rlresources.readthedocs.io/en/latest/cli.html"
"""The command-line reference, whose help blocks are generated from this parser."""


class _Formatter(argparse.HelpFormatter):
    """Descriptions wrap as usual, but each line of an epilog stays a line.

    The "exit status" lines are a list; argparse would run them into one paragraph.
    A line too long for the terminal wraps under its own text.
    """

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        lines = []
        for line in text.splitlines():
            lead = len(line) - len(line.lstrip())
            hanging = " " * (lead + 3 if lead else 0)
            lines.append(
                textwrap.fill(
                    line.strip(), width, initial_indent=indent + " " * lead, subsequent_indent=indent + hanging
                )
            )
        return "\n".join(lines)


class _Parser(argparse.ArgumentParser):
    """Argparse that raises instead of exiting, so :func:`main` returns the status."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> Any:
        self.print_usage(sys.stderr)
        raise CliError(f"{self.prog.split(' ', 1)[-1] + ': ' if ' ' in self.prog else ''}{message}")


COULD_NOT_RUN = "the command could not run: a bad flag, a missing folder or file (one line on stderr)"


def exit_statuses(ok: str, findings: str | None, *more: tuple[int, str]) -> str:
    """A command's epilog: what each of its exit statuses means (``more``: a command's own, after 2)."""
    lines = ["exit status:", f"  0  {ok}"]
    if findings:
        lines.append(f"  1  {findings}")
    lines.append(f"  2  {COULD_NOT_RUN}")
    lines.extend(f"  {code}  {meaning}" for code, meaning in more)
    return "\n".join(lines)


def _run_of(module: str) -> Callable[[argparse.Namespace, Lines], int]:
    """A command's ``run``, its module imported when the command runs.

    ``lint`` runs in every pre-commit hook and CI job: it need not import, at every
    start, what only ``render``, ``sync``, ``import``, ``new`` or ``schema`` use.
    ``inspect`` and ``estimate`` define their own flags, so their modules are imported
    with the parser.
    """

    def run(args: argparse.Namespace, out: Lines) -> int:
        found: int = importlib.import_module(f"sphinx_rlresources.cli.{module}").run(args, out)
        return found

    return run


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Check, import, scaffold and render sphinx-rlresources data without a docs build.",
        epilog=f"Run '{PROG} COMMAND --help' for a command's options, their defaults and its exit statuses.\n"
        f"Documentation: {DOCS_URL}",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    lint = commands.add_parser(
        "lint",
        help="check the data and the scripts the way the build does",
        description="Run the loader and checks of the Sphinx build, plus scripts without a row.",
        epilog=exit_statuses("nothing found", "findings, one a line"),
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
        "--format",
        choices=("text", "json", "github"),
        default="text",
        help="text (path:line:col lines), json, or github (workflow annotations); default text",
    )
    add_load_arguments(
        lint,
        stale="also report rows whose script changed in git after the row was tested (rlresources.stale), "
        "as rlresources_stale_check does in the build; needs the git history; off by default",
        cross_check="do not compare rows with what their scripts run (no rlresources.script_* findings), "
        "as rlresources_cross_check = False",
    )
    lint.set_defaults(func=lint_command.run)

    schema = commands.add_parser(
        "schema",
        help="print the JSON Schema of a data file, or write it into the repository",
        description="Print the packaged JSON Schema, or write it to a file of the repository (--out), where the "
        "yaml-language-server modeline of each data file can point.",
        epilog=exit_statuses("the schema was printed or written", None),
    )
    schema.add_argument(
        "--out",
        metavar="PATH",
        help="write the schema to PATH inside the repository: a .json file, or a folder (created if missing) "
        "to hold rlresources.schema.json (default: print it to standard output)",
    )
    schema.set_defaults(func=_run_of("schema"))

    render = commands.add_parser(
        "render",
        help="print a size's table as reST or Markdown",
        description="Print the table the directive draws for SIZE (or 'all') as a reST list-table or a "
        "GitHub-flavoured Markdown table.",
        epilog=exit_statuses(
            "the table was printed", "a data file of the size could not be read (its rows are left out)"
        ),
    )
    render.add_argument("size", metavar="SIZE", help="the size label (70B), case-insensitive, or 'all'")
    add_data_flags(render)
    render.add_argument("--format", choices=("rst", "markdown"), default="rst", help="the output format (default rst)")
    render.add_argument(
        "--columns",
        metavar="LIST",
        help="comma list of columns, as the directive's :columns: (default: tag, model, task, resource, "
        "maxbatch, train, infer, link, contributor; with 'all', size first)",
    )
    render.add_argument(
        "--script-url",
        metavar="TEMPLATE",
        help="link the Link column: a URL template with {path} and {ref} (default: script_url in [tool.rlresources]; "
        "without one the Link column is plain text)",
    )
    render.add_argument(
        "--ref", metavar="REF", help="what fills {ref} (default: script_ref in [tool.rlresources], else main)"
    )
    add_load_arguments(
        render,
        stale="also print, on standard error, the shown rows whose script changed in git after they were "
        "tested; the table and the exit status stay the same; off by default",
        cross_check="leave out, on standard error, the findings of comparing the shown rows with their scripts; "
        "the table stays the same",
    )
    render.set_defaults(func=_run_of("render"))

    sync = commands.add_parser(
        "sync",
        help="rewrite the tables between rl-resource-table markers of Markdown files",
        description="Rewrite every block between <!-- rl-resource-table SIZE [:option: value ...] --> and "
        "<!-- /rl-resource-table --> in each FILE with the table that render --format markdown draws, chosen "
        "with the directive's options; everything outside the blocks stays byte for byte.",
        epilog=exit_statuses(
            "every block synced (with --check: every block up to date)",
            "findings: a block out of date (--check), a marker that cannot be used, the data's own problems "
            "for the rows drawn",
        ),
    )
    sync.add_argument("files", metavar="FILE", nargs="+", help="the Markdown files (README.md, docs/*.md)")
    sync.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 naming each block that is out of date"
    )
    sync.add_argument(
        "--format",
        choices=("text", "github"),
        default="text",
        help="text (path:line lines) or github (workflow annotations); default text",
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
    sync.add_argument(
        "--relative-links",
        action="store_true",
        help="link each script of the working tree relatively from the file (./examples/x.sh), as a README "
        "links its repository's files; pinned rows keep --script-url's links (default: off)",
    )
    add_load_arguments(
        sync,
        stale="also report the drawn rows whose script changed in git after they were tested; the tables "
        "stay the same; off by default",
        cross_check="do not compare the drawn rows with their scripts (no rlresources.script_* findings); the "
        "tables stay the same",
    )
    sync.set_defaults(func=_run_of("sync"))

    inspect = commands.add_parser(
        "inspect",
        help="show what a launch script or recipe config asks for",
        description="Read each launch script or recipe config the way the checks do (never running it) and show "
        "its framework and every setting a row is checked against, with the line that wrote it and where the "
        "value comes from: set in the file, a default the script documents, --env, the framework's default, "
        "or run time.",
        epilog=exit_statuses(
            "every file was read",
            "a file was read but has mistakes of its own (an error among its problems)",
            (inspect_command.EXIT_UNRECOGNISED, "a file is not recognised (no reader knows it; the JSON says why)"),
        ),
    )
    inspect_command.add_arguments(inspect)
    inspect.set_defaults(func=inspect_command.run)

    imp = commands.add_parser(
        "import",
        help="turn a hand-written page's tables into data files",
        description="Read every table under a size heading of a hand-written page (reST; Markdown, GitHub "
        "tables or MyST, for a .md, .markdown or .mdx page) and write one data file per size. Every cell that "
        "cannot be carried over is reported with its page line; nothing is guessed: the fields a row short of "
        "cells lacks are written as TODO, which lint names.",
        epilog=exit_statuses("every cell was carried over", "some cells were not (each is reported)"),
    )
    imp.add_argument("page", metavar="PAGE", help="the hand-written page (.rst, or .md for Markdown)")
    imp.add_argument(
        "--out", metavar="DIR", required=True, help="the folder to write the data files to (created if missing)"
    )
    imp.add_argument(
        "--root",
        metavar="DIR",
        help="the repository root; used to pick the script path out of a link whose branch name has a '/', "
        "and what a Markdown page's relative links are read against (default: none, such links are reported; "
        "relative links are read against the working folder)",
    )
    imp.add_argument("--force", action="store_true", help="overwrite data files that already exist in --out")
    imp.set_defaults(func=_run_of("importer"))

    new = commands.add_parser(
        "new",
        help="append a row for a new script to its size's data file",
        description="Scaffold a row for SCRIPT from its file name and settings, appended to the size's data "
        "file without touching the rest of it. What cannot be known is left as TODO, which lint reports "
        "until it is filled in.",
        epilog=exit_statuses(
            "the row was written (or printed, with --dry-run)",
            "the script's name breaks the naming rule, or the script already has a row",
        ),
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
    add_load_arguments(
        new,
        stale=None,  # the row written is the same; accepted so that a lint command line still works
        cross_check="skip comparing the other rows with their scripts while looking for SCRIPT's row "
        "(faster; the row written is the same)",
    )
    new.set_defaults(func=_run_of("new"))
    estimate = commands.add_parser(
        "estimate",
        help="the GPU and host memory an RL run needs: a floor and an expected peak",
        usage=f"{PROG} estimate --model MODEL --device DEVICE [options]\n"
        f"       {PROG} estimate --row FILE:LINE [--root DIR] [--mean-response-length TOKENS] [--host-memory GIB] "
        "[--min-gpus] [--suggest] [--format {text,json}]",
        description="Estimate the per-GPU and host memory of an RL run, moment by moment, from the model's shape: "
        "a floor (what must be resident whatever the data) and an expected peak (at the stated lengths); or for "
        "a row of the data (--row FILE:LINE) with its script's settings. --model and --device go together; --row "
        "replaces both. A flag left out assumes what a silent script assumes, and the output names each. "
        "Verdicts: fits, tight (expected peak above 90% of the device), likely-oom (the floor fits, the expected "
        "peak does not), does-not-fit (the floor does not). --suggest answers the settings that fit instead, as "
        "the framework's own overrides.",
        epilog=exit_statuses(
            "it fits, is tight or is likely to run out of memory (likely-oom); with --suggest, settings that fit "
            "were found",
            "its floor does not fit; with --suggest, nothing fits",
        ),
    )
    estimate_command.add_arguments(estimate)
    add_data_flags(estimate, root=True)
    estimate.set_defaults(func=estimate_command.run)
    return parser


def command_parsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Each command's name and parser, in the order of ``--help``: what the docs generate their help from."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status instead of exiting."""
    parser = build_parser()
    out = Lines(sys.stdout)
    try:
        try:
            args = parser.parse_args(list(argv) if argv is not None else None)
        except SystemExit as done:  # --help and --version
            return done.code if isinstance(done.code, int) else EXIT_OK
        func: Callable[[argparse.Namespace, Lines], int] = args.func
        return func(args, out)
    except CliError as err:  # its text may quote a file name or a value: one line, escaped
        tell(f"{PROG}: error: {one_line(str(err))}")
        return EXIT_ERROR
    except KeyboardInterrupt:
        tell(f"{PROG}: interrupted")
        return 130
    except BrokenPipeError:  # e.g. piped into head
        return EXIT_OK
    except OSError as err:
        name = f" {shown(relpath(Path(err.filename)), MAX_LOCATION)}" if err.filename else ""
        tell(f"{PROG}: error:{name} {one_line(str(err.strerror or err))}")
        return EXIT_ERROR
    except Exception as err:  # noqa: BLE001 - a bug must end in a message, not a traceback
        tell(f"{PROG}: error: internal error ({type(err).__name__}: {one_line(str(err), 200)}); please report this")
        return EXIT_ERROR
    finally:
        _finish(out)


def _finish(out: Lines) -> None:
    """Write what the command left without a line break; a reader gone away (``| head``) is no error."""
    try:
        out.flush()
    except (BrokenPipeError, ValueError):  # ValueError: the stream is closed
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
