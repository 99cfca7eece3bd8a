"""``rlresources sync``: the tables of Markdown files that Sphinx never builds, kept true to the data.

Half the frameworks that publish hardware tables write their docs in Markdown for
other tools (MkDocs, Docusaurus, doc-builder, Mintlify) or in a README, and a copy
pasted from ``render`` drifts the moment a row changes.  ``sync`` rewrites the text
between ``rl-resource-table`` markers (:mod:`.blocks`) with what ``render --format
markdown`` draws, asking :func:`~sphinx_rlresources.core.query.select` with the
directive's own options, and ``--check`` turns a drifted block into a CI failure.

A file is written whole or not at all, and only through
:func:`~sphinx_rlresources.cli.common.write_file` (inside the root, a regular file, never
through a link); a file with any problem is left as it is, since half-synced blocks
would look true.
"""

from __future__ import annotations

import argparse
import bisect
import difflib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sphinx_rlresources.cli.blocks import NAME, Block, scan
from sphinx_rlresources.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    PROG,
    CliError,
    Lines,
    check_targets,
    load,
    plural,
    repository_root,
    tell,
    write_file,
)
from sphinx_rlresources.cli.lint import report
from sphinx_rlresources.cli.render import Renderer, drawn, link_settings
from sphinx_rlresources.core import columns as cols
from sphinx_rlresources.core.diagnostics import Diagnostic, Subtype, relpath
from sphinx_rlresources.core.model import DataSet
from sphinx_rlresources.core.paths import NotRegular, WriteRefused, read_inside
from sphinx_rlresources.core.query import Selection, select
from sphinx_rlresources.safe.text import one_line, shown

ROW_OPTIONS = ("columns", "sort", *cols.FILTERS)
"""The directive's options that choose rows, columns and order: all a Markdown table can use."""
SPHINX_ONLY = ("caption", "name", "class", "widths", "align", "filter", "markers")
"""The directive's other options, which style or name a Sphinx table and mean nothing in Markdown."""
MAX_PAGE_BYTES = 10 * 1024 * 1024
"""The largest Markdown file read: a README is a few KiB, and the whole file is held to rewrite it."""
DIFF_LINES = 12
"""The most lines of a drifted block's diff shown under its finding."""
REPORT_DIFF_LINES = 200
"""The most diff lines ``--check`` prints in all: past them, a block's finding comes without its diff."""


@dataclass
class Page:
    """One Markdown file: its text, the text it should have, and what was found in it."""

    path: Path
    shown: str
    text: str
    new: str = ""
    blocks: int = 0
    problems: list[Diagnostic] = field(default_factory=list)
    """Why the file cannot be synced (markers, sizes, options): it is then left as it is."""
    outdated: list[tuple[Block, list[str]]] = field(default_factory=list)
    """Each block whose text differs from its table, with the short diff."""
    held: bool = False
    """A row a block draws has an error (as lint reports it): the file is left as it is too."""

    @property
    def refused(self) -> bool:
        """Whether the file is left as it is: a problem of its own, or an error of a row it draws."""
        return bool(self.problems) or self.held


def read_page(root: Path, path: Path) -> str:
    """The file's text, opened the way it will be written (inside the root, never through a link)."""
    name = shown(relpath(path), 300)
    try:
        data = read_inside(root, path, MAX_PAGE_BYTES)
    except WriteRefused as err:
        raise CliError(f"{err}; nothing was written") from None
    except NotRegular as err:
        raise CliError(f"{name} is {err.what}, not a Markdown file; nothing was written") from None
    except FileNotFoundError:
        raise CliError(f"{name} does not exist; nothing was written") from None
    except OSError as err:
        raise CliError(f"{name} cannot be read ({err.strerror or err}); nothing was written") from None
    if len(data) > MAX_PAGE_BYTES:
        raise CliError(f"{name} is larger than {MAX_PAGE_BYTES} bytes; nothing was written")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CliError(f"{name} is not UTF-8 text (byte {err.start + 1}); nothing was written") from None


def row_findings(dataset: DataSet, chosen: Selection) -> list[Diagnostic]:
    """What lint reports about the rows a block draws, and about their files as a whole.

    A finding belongs to the row whose entry starts at or above its line; one above
    every row, or about the whole file, belongs to every block that draws the file.
    """
    files = {size.display_path: size for size in chosen.sizes}
    drawn_rows = {(e.source.path, e.source.line) for e in chosen.entries}
    starts = {path: [e.source.line for e in size.entries] for path, size in files.items()}
    found = []
    for diag in dataset.diagnostics:
        if diag.path not in files:
            continue
        lines = starts[diag.path]
        at = bisect.bisect_right(lines, diag.line) - 1
        if at < 0 or (diag.path, lines[at]) in drawn_rows:
            found.append(diag)
    return found


def short_diff(old: str, new: str) -> list[str]:
    """The changed lines of a block, ``-`` as it is and ``+`` as it should be, cut to :data:`DIFF_LINES`."""
    changes = [
        line
        for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0)
        if line[:1] in "-+" and not line.startswith(("---", "+++"))
    ]
    cut = [f"    {one_line(line, 200)}" for line in changes[:DIFF_LINES]]  # indented: no line starts with data
    if len(changes) > DIFF_LINES:
        cut.append(f"    ... {plural(len(changes) - DIFF_LINES, 'more changed line')}")
    return cut


def _check_options(block: Block, problem: Callable[[int, int, Subtype, str], None]) -> None:
    """Report each option a block may not take: a Sphinx-only one, or one the directive does not know."""
    for key, option in block.options.items():
        if key in SPHINX_ONLY:
            problem(
                option.name.line,
                option.name.column,
                Subtype.OPTION,
                f"{option.name.text} styles or names a Sphinx table and means nothing in Markdown; "
                f"a block takes {', '.join(f':{o}:' for o in ROW_OPTIONS)}",
            )
        elif key not in ROW_OPTIONS:
            problem(
                option.name.line,
                option.name.column,
                Subtype.OPTION,
                f"unknown option {shown(option.name.text)}; a block takes "
                f"{', '.join(f':{o}:' for o in ROW_OPTIONS)}, as the directive does",
            )


class Syncer:
    """Works out each block's table against one loaded data set, with the command's link settings."""

    def __init__(self, dataset: DataSet, renderer: Renderer, root: Path | None = None) -> None:
        self.dataset = dataset
        self.renderer = renderer
        self.root = root
        """With a root, each file links the repository's scripts relatively from its own folder."""
        self.findings: dict[tuple[Diagnostic, str, str], Diagnostic] = {}
        """The data's findings for the rows drawn, once each (a diagnostic compares by its place alone)."""

    def page(self, path: Path, text: str) -> Page:
        page = Page(path, relpath(path), text)
        found = scan(text)
        for problem in found.problems:
            subtype = Subtype.OPTION if problem.kind == "option" else Subtype.MARKER
            page.problems.append(Diagnostic(page.shown, problem.line, problem.column, subtype, problem.message))
        pieces = []
        done = 0
        renderer = self.renderer if self.root is None else self.renderer.linked_from(_folder(self.root, path))
        for block in found.blocks:
            table = self.table(page, block, renderer)
            page.blocks += 1
            if table is None:
                continue
            newline = block.newline
            body = newline + "".join(line + newline for line in table.splitlines()) + newline
            old = text[block.start : block.end]
            if old != body:
                page.outdated.append((block, short_diff(old, body)))
            pieces += [text[done : block.start], body]
            done = block.end
        page.new = "".join([*pieces, text[done:]])
        size = len(page.new.encode("utf-8"))
        if size > MAX_PAGE_BYTES and found.blocks:
            page.problems.append(
                Diagnostic(
                    page.shown,
                    found.blocks[0].line,
                    0,
                    Subtype.OUTDATED_BLOCK,
                    f"with its tables the file would be {size} bytes, more than the {MAX_PAGE_BYTES} {PROG} sync "
                    "reads, so it is not written: draw fewer rows or columns in its blocks, or split the file",
                )
            )
        return page

    def table(self, page: Page, block: Block, renderer: Renderer | None = None) -> str | None:
        """The block's table as ``render --format markdown`` draws it, or None after adding why not."""
        problems = len(page.problems)

        def problem(line: int, column: int, subtype: Subtype, message: str) -> None:
            page.problems.append(Diagnostic(page.shown, line, column, subtype, message))

        _check_options(block, problem)
        size = block.size
        if size is None or len(page.problems) > problems:
            return None
        values = {key: option.value.text for key, option in block.options.items()}
        chosen = select(
            self.dataset,
            size.text,
            columns=values.get("columns"),
            sort=values.get("sort"),
            filters={key: value for key, value in values.items() if key in cols.FILTERS},
        )
        if chosen.unknown is not None:
            problem(size.line, size.column, Subtype.UNKNOWN_SIZE, chosen.unknown.message)
            return None
        for wrong in chosen.problems:
            where = block.options[wrong.option].value
            problem(where.line, where.column, Subtype.OPTION, wrong.for_directive())
        for diag in row_findings(self.dataset, chosen):
            self.findings.setdefault((diag, diag.subtype.code, diag.message), diag)
            page.held = page.held or diag.severity == "error"
        for unreadable in chosen.unreadable:
            problem(
                block.line,
                1,
                Subtype.DATA_UNREADABLE,
                f"the data for size '{unreadable.label}' could not be read ({unreadable.display_path}); "
                "the block is left as it is: fix the problems reported for that file",
            )
        if len(page.problems) > problems:
            return None
        return drawn(chosen, renderer or self.renderer, chosen.label or "All sizes")


def _folder(root: Path, path: Path) -> str:
    """The file's folder from the root, POSIX (``''`` for a README at the root)."""
    try:
        folder = path.absolute().parent.relative_to(root.absolute()).as_posix()
    except ValueError:  # outside the root: refused when written; linked as if at the root meanwhile
        return ""
    return "" if folder == "." else folder


def _pages(args: argparse.Namespace, root: Path, syncer: Syncer) -> list[Page]:
    unique: dict[Path, Path] = {}
    for name in args.files:
        path = Path(name)
        unique.setdefault(Path(os.path.normpath(path.absolute())), path)  # named twice: synced once, links unfollowed
    texts = [(path, read_page(root, path)) for path in unique.values()]  # every file read before any is written
    return [syncer.page(path, text) for path, text in texts]


def _summary(pages: list[Page], check: bool, written: list[Page]) -> str:
    blocks = sum(page.blocks for page in pages)
    where = f"{plural(blocks, 'block')} in {plural(len(pages), 'file')}"
    outdated = sum(len(page.outdated) for page in (pages if check else written))
    if blocks == 0:
        text = f"{PROG}: no {NAME} block in {plural(len(pages), 'file')} (a block starts with <!-- {NAME} SIZE -->)"
    elif check and outdated:
        text = f"{PROG}: {outdated} of {where} out of date; run {PROG} sync without --check to update them"
    elif outdated:
        text = f"{PROG}: updated {outdated} of {where} ({plural(len(written), 'file')} written)"
    else:
        text = f"{PROG}: {where}, all up to date" if not any(p.refused for p in pages) else f"{PROG}: {where}"
    refused = [page for page in pages if page.refused]
    if refused and not check:
        text += (
            f"; {plural(len(refused), 'file')} with a problem left as {'it was' if len(refused) == 1 else 'they were'}"
        )
    return text


def run(args: argparse.Namespace, out: Lines) -> int:
    dataset, project = load(args)
    template, ref = link_settings(args, project)
    root = repository_root(args, project)
    syncer = Syncer(dataset, Renderer("markdown", template, ref, dataset), root if args.relative_links else None)
    pages = _pages(args, root, syncer)
    for note in dataset.notes:  # a check that could not run (no git history): not a finding
        tell(f"{PROG}: note: {note}")
    found: list[tuple[Diagnostic, list[str]]] = [(d, []) for d in syncer.findings.values()]
    found += [(d, []) for page in pages for d in page.problems]
    for page in pages:
        for block, diff in page.outdated if args.check else []:
            message = f"the block differs from the table the data gives; run '{PROG} sync {one_line(page.shown)}'"
            found.append((Diagnostic(page.shown, block.line, 0, Subtype.OUTDATED_BLOCK, message), diff))
    _report(found, args.format == "github", out)
    written = []
    if not args.check:
        written = [page for page in pages if not page.refused and page.new != page.text]
        check_targets(root, [page.path for page in written], overwrite=True)  # all refused, or all tried
        _write(root, written)
    out.write(_summary(pages, args.check, written) + "\n")
    return EXIT_FINDINGS if found else EXIT_OK


def _report(found: list[tuple[Diagnostic, list[str]]], github: bool, out: Lines) -> None:
    """Every finding, each drifted block's diff under it until :data:`REPORT_DIFF_LINES` are shown in all."""
    budget = REPORT_DIFF_LINES
    left_out = 0
    for diag, diff in sorted(found, key=lambda item: item[0]):
        shown_now = diff if len(diff) <= budget else []
        budget -= len(shown_now)
        left_out += len(diff) - len(shown_now)
        report(out, diag, github)
        out.write("".join(f"{text}\n" for text in shown_now))
    if left_out:
        out.write(
            f"    ... {plural(left_out, 'diff line')} left out (at most {REPORT_DIFF_LINES} are shown); "
            f"run {PROG} sync to update the blocks, or git diff after it to see them all\n"
        )


def _write(root: Path, pages: list[Page]) -> None:
    """Write each page, unless it changed since it was read: an edit made meanwhile is never lost."""
    refused = []
    for page in pages:
        try:
            write_file(root, page.path, page.new, overwrite=True, read=page.text.encode("utf-8"))
        except CliError as err:
            refused.append(str(err))
    if refused:
        others = len(pages) - len(refused)
        raise CliError("; ".join(refused) + (f" ({plural(others, 'other file')} written)" if others else ""))
