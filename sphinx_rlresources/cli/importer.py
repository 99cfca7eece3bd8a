"""``rlresources import``: move a hand-written page's tables onto data files.

Hand-written pages are not the tidy reST we would write: headings whose underline is
shorter than the title (docutils then reads them as paragraphs), rows with fewer cells
than the header, ``list-table`` and simple tables side by side.  So the page is read
line by line here, not through docutils, and every table found under a heading is
turned into rows.

What counts as certain: a value is written only when it could be read from its own
cell.  A row with fewer cells than its header (the seed page's ``GRPO-LoRA`` stands in
the Model column) is read by what its cells hold (:mod:`.rowalign`) when that places
every cell in one way only; the fields of the columns it lacks are written as ``TODO``
placeholders, which lint names until a person fills them in.  A row whose cells could
be placed in more than one way, or with more cells than its header, is skipped and each
of its cells is reported with its line.  Nothing is ever filled in that the page did
not say; the report lists every cell that was not carried over.
"""

from __future__ import annotations

import argparse
import collections
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from sphinx_rlresources.cli.cells import ScriptLink, read_cells
from sphinx_rlresources.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    CliError,
    Lines,
    check_targets,
    load_project,
    plural,
    repository_root,
    write_file,
)
from sphinx_rlresources.cli.mdread import parse_markdown
from sphinx_rlresources.cli.pageread import (
    REQUIRED,
    Cell,
    Finding,
    Page,
    Table,
    header_key,
    parse_page,
)
from sphinx_rlresources.cli.rowalign import place
from sphinx_rlresources.cli.yamlwrite import render_file, schema_ref
from sphinx_rlresources.core import git
from sphinx_rlresources.core.diagnostics import Subtype, relpath
from sphinx_rlresources.core.loader import LoadOptions, load_dataset
from sphinx_rlresources.core.placeholders import TODO
from sphinx_rlresources.core.settings import cli_default
from sphinx_rlresources.core.validation import SCHEMA_FILE, path_text, validator
from sphinx_rlresources.safe.sizes import size_key, size_order, size_word
from sphinx_rlresources.safe.text import MAX_LOCATION, json_text, one_line, safe_start, shown


@dataclass
class Result:
    sizes: dict[str, str] = field(default_factory=dict)
    """size key -> label, in page order"""
    rows: dict[str, list[tuple[int, dict[str, Any]]]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    links: list[ScriptLink] = field(default_factory=list)
    cell_lines: dict[int, list[int]] = field(default_factory=dict)
    """id(row values) -> the page lines of the row's cells, the Link cell left out (for ``tested``)."""

    def add_size(self, label: str) -> str:
        key = size_key(label)
        self.sizes.setdefault(key, label)
        self.rows.setdefault(key, [])
        return key


def _shown(cell: Cell) -> str:
    return shown(cell.text)


def _lose_row(row: list[Cell], reason: str, result: Result, header: list[Cell] | None) -> None:
    """Report a skipped row once with the reason, then each of its non-empty cells."""
    if row:
        result.findings.append(Finding(row[0].line, f"row not carried over: {reason}", "row"))
    for index, cell in enumerate(row):
        if not cell.text:
            continue
        column = f" ({header[index].text})" if header and index < len(header) and header[index].text else ""
        result.findings.append(Finding(cell.line, f"cell {index + 1}{column} {_shown(cell)} not carried over", "cell"))


def _folder_size(path: str) -> str | None:
    parent = PurePosixPath(path).parent.name
    return size_word(parent)


MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")
"""Pages read as Markdown (GitHub tables, MyST); every other page is read as reST."""


def import_page(text: str, page_dir: Path, root: Path | None, markdown: bool = False) -> Result:
    """Turn the page's tables into rows per size; every loss is a finding."""
    page = parse_markdown(text) if markdown else parse_page(text)
    result = Result(findings=list(page.findings))
    for heading in page.headings:
        if heading.size:
            result.add_size(heading.size)
    result.findings.extend(_odd_headers(page))
    for table, parents in page.tables:
        heading_size = next((h.size for h in reversed(parents) if h.size), None)
        where = f"the {table.kind} at line {table.line}"
        if table.header is None:
            for row in table.rows:
                _lose_row(row, f"{where} has no header row, so its columns are unknown", result, None)
            continue
        reading = _TableReading(page, page_dir, root, table, where, heading_size, result)
        for row in table.rows:
            reading.row(row)
    result.findings.sort(key=lambda f: (f.line, ("row", "cell", "part", "defect", "note").index(f.kind)))
    return result


@dataclass
class _TableReading:
    """Reading the rows of one table that has a header, into ``result``."""

    page: Page
    page_dir: Path
    root: Path | None
    table: Table
    where: str
    """How findings name the table: ``the list-table at line 12``."""
    heading_size: str | None
    """The size the nearest heading above the table names, if any."""
    result: Result

    @property
    def header(self) -> list[Cell]:
        assert self.table.header is not None  # only tables with a header are read row by row
        return self.table.header

    def row(self, row: list[Cell]) -> None:
        """One row: written to its size, or lost with the reason; an empty row is only noted."""
        header = self.header
        keys = [header_key(c.text) for c in header]
        missing = [k for k in REQUIRED if k not in keys]
        if all(not c.text for c in row):
            self._empty(row)
        elif missing:
            _lose_row(
                row, f"{self.where} has no column for {', '.join(missing)}, which every row needs", self.result, header
            )
        elif len(row) == len(header):
            self._read(row, self._cells(row, keys))
        else:
            self._short(row, keys)

    def _short(self, row: list[Cell], keys: list[str | None]) -> None:
        """A row with more or fewer cells than the header: read by content when that is certain."""
        header = self.header
        columns = place(row, keys)
        counted = f"it has {len(row)} cells but the header at line {header[0].line} has {len(header)}"
        if columns is None:
            why = "which column each cell belongs to cannot be told"
            if len(row) < len(header):
                why += ", by position or by what the cells hold"
            _lose_row(row, f"{counted} ({', '.join(c.text for c in header)}); {why}", self.result, None)
            return
        lacking = [i for i in range(len(header)) if i not in columns]
        names = ", ".join(header[i].text for i in lacking)
        shifted = next((i for i, column in enumerate(columns) if column != i), None)
        seen = "" if shifted is None else f"readers see '{row[shifted].text}' under {header[shifted].text}; "
        self.result.findings.append(
            Finding(
                row[0].line,
                f"{counted}: {seen}read by what each cell holds, it lacks {names}, written as TODO "
                "placeholders that lint names until you fill them in; add the missing cells on the page",
                "defect",
            )
        )
        cells = {}
        for cell, column in zip(row, columns, strict=True):
            key = keys[column]
            if key is not None:
                cells[key] = cell
        todo = [key for i in lacking if (key := keys[i]) is not None]
        self._read(row, cells, todo)

    def _empty(self, row: list[Cell]) -> None:
        line = row[0].line if row else self.table.line
        if any(self.page.lines[c.line - 1].rstrip().endswith("\\") for c in row if c.line):
            self.result.findings.append(
                Finding(
                    line,
                    f"a row of placeholders ('\\') in {self.where} shows readers an empty row; remove it "
                    "from the page (it is not imported)",
                    "defect",
                )
            )
        else:
            self.result.findings.append(Finding(line, f"an empty row in {self.where} is skipped", "note"))

    def _cells(self, row: list[Cell], keys: list[str | None]) -> dict[str, Cell]:
        """The row's cells by field; a cell of a column the data has no field for (or a repeated one) is lost."""
        names = [c.text for c in self.header]
        cells: dict[str, Cell] = {}
        for index, (key, cell) in enumerate(zip(keys, row, strict=True)):
            if key is not None and key not in cells:
                cells[key] = cell
            elif cell.text:
                self.result.findings.append(
                    Finding(
                        cell.line,
                        f"cell {index + 1} ({names[index]}) {_shown(cell)} not carried over: the data "
                        f"has no field for the column '{names[index]}'",
                        "cell",
                    )
                )
        return cells

    def _read(self, row: list[Cell], cells: dict[str, Cell], todo: Sequence[str] = ()) -> None:
        values, failed, notes, link = read_cells(cells, self.page, self.page_dir, self.root)
        self.result.findings.extend(notes)
        if "max_batch" not in cells:
            values["max_batch"] = None
        for key in todo:  # the columns a short row lacks: placeholders that lint names
            values.update(dict.fromkeys(("gpus", "device") if key == "resource" else (key,), TODO))
        size = self.heading_size or (_folder_size(values["script"]) if "script" in values else None)
        if failed or size is None:
            reasons = [f.message for f in failed] or [
                "no size: neither the heading above the table nor the script's folder names one"
            ]
            _lose_row(row, "; ".join(reasons), self.result, self.header)
            return
        self._note_folder(row, values["script"])
        entry = {k: values[k] for k in ENTRY_ORDER if k in values}
        problems = _schema_problems(size, entry)
        if problems:
            _lose_row(row, f"the row breaks the data format ({problems[0]})", self.result, self.header)
            return
        key = self.result.add_size(size)
        self.result.rows[key].append((row[0].line, entry))
        self.result.cell_lines[id(entry)] = sorted({cell.line for k, cell in cells.items() if k != "script"})
        if link is not None:
            self.result.links.append(link)

    def _note_folder(self, row: list[Cell], script: str) -> None:
        """Note a script folder that names another size than the heading (the heading wins)."""
        folder = _folder_size(script)
        if self.heading_size and folder and size_key(folder) != size_key(self.heading_size):
            self.result.findings.append(
                Finding(
                    row[0].line,
                    f"the script's folder says {folder} but the heading says {self.heading_size}; "
                    f"the row goes to {self.heading_size}",
                    "note",
                )
            )


def _odd_headers(page: Page) -> list[Finding]:
    """A table whose header differs from the page's usual one: readers see two kinds of table on one page.

    The usual header is the one most tables share; a table with other spelling
    (``tag`` for ``Tag``) or fewer columns (no Contributor) is a defect of the page.
    """
    headers = [tuple(c.text for c in table.header) for table, _parents in page.tables if table.header]
    if len(headers) < 2:
        return []
    usual, count = collections.Counter(headers).most_common(1)[0]
    if count < 2:
        return []
    found = []
    for table, _parents in page.tables:
        if not table.header or tuple(c.text for c in table.header) == usual:
            continue
        mine = [c.text for c in table.header]
        missing = [name for name in usual if name.lower() not in {m.lower() for m in mine}]
        cased = [m for m in mine if m not in usual and m.lower() in {u.lower() for u in usual}]
        why = []
        if cased:
            why.append(f"spelled {', '.join(repr(c) for c in cased)}")
        if missing:
            why.append(f"without {', '.join(missing)}")
        if why:
            found.append(
                Finding(
                    table.line,
                    f"the {table.kind}'s header ({', '.join(mine)}) differs from the page's other tables "
                    f"({', '.join(usual)}): {'; '.join(why)}; write it like the others",
                    "defect",
                )
            )
    return found


ENTRY_ORDER = (
    "tag",
    "model",
    "task",
    "gpus",
    "device",
    "max_batch",
    "train",
    "infer",
    "infer_version",
    "script",
    "script_ref",
    "contributor",
    "tested",
)


def _schema_problems(label: str, entry: dict[str, Any]) -> list[str]:
    """What breaks the data format, a placeholder left out: lint names it as one to fill in."""
    errors = validator().iter_errors({"size": label, "entries": [entry]})
    return [
        f"{path_text(tuple(e.absolute_path)[2:]) or 'size'}: {e.message}"
        for e in errors
        if not (len(e.absolute_path) > 2 and entry.get(str(e.absolute_path[2])) == TODO)
    ]


def url_suggestion(links: Sequence[ScriptLink]) -> tuple[str, str, list[str]] | None:
    """The most common (template, ref), and a note for every link that differs."""
    pairs = collections.Counter((link.template, link.ref) for link in links if link.template)
    if not pairs:
        return None
    (template, ref), _count = pairs.most_common(1)[0]
    assert template is not None and ref is not None
    others = [f"{t.format(ref=r, path='…')}" for (t, r) in pairs if (t, r) != (template, ref) and t and r]
    return template, ref, others


def run(args: argparse.Namespace, out: Lines) -> int:  # noqa: C901 - the command's steps in order, each a guard that ends it
    page_path = Path(args.page)
    try:
        text = page_path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise CliError(f"the page '{args.page}' does not exist") from None
    except IsADirectoryError:
        raise CliError(f"'{args.page}' is a folder; give the page (.rst, or .md for Markdown)") from None
    except UnicodeDecodeError as err:
        raise CliError(f"the page '{args.page}' is not UTF-8 text ({err.reason} at byte {err.start})") from None
    root = Path(args.root) if args.root else None
    if root is not None and not root.is_dir():
        raise CliError(f"the root '{args.root}' is not a folder")
    out_dir = Path(args.out)
    if out_dir.exists() and not out_dir.is_dir():
        raise CliError(f"--out '{args.out}' exists and is not a folder")
    markdown = page_path.suffix.lower() in MARKDOWN_SUFFIXES
    result = import_page(text, page_path.parent, root, markdown)
    if not result.sizes:
        kind = "Markdown" if markdown else "reST"
        raise CliError(
            f"the page '{args.page}', read as {kind} (by its suffix), has no heading that names a size (7B, 70B) "
            "and no table whose scripts do"
        )
    keys = sorted(result.sizes, key=lambda k: size_order(result.sizes[k]))
    targets = {key: out_dir / f"{key}.yaml" for key in keys}
    existing = [p for p in targets.values() if p.exists() or p.is_symlink()]
    if existing and not args.force:
        raise CliError(
            f"{', '.join(relpath(p) for p in existing)} already exist; pass --force to overwrite, "
            "or import into an empty folder"
        )
    project = load_project()
    write_root = repository_root(args, project)
    check_targets(write_root, list(targets.values()), overwrite=True)  # every file, before any is written
    result.findings.extend(_check_links_at_their_refs(result, root or page_path.parent))
    result.findings.extend(_add_tested(result, page_path))
    result.findings.sort(key=lambda f: (f.line, ("row", "cell", "part", "defect", "note").index(f.kind)))
    shown_page = safe_start(one_line(relpath(page_path), MAX_LOCATION))
    for finding in result.findings:  # cells quote the page, which may hold ESC or BEL: one line, escaped
        kind = "note" if finding.kind == "note" else "warning"
        out.write(f"{shown_page}:{finding.line}: {kind}: {one_line(finding.message)}\n")
    modeline = schema_ref(out_dir)
    if modeline is None:
        out.write(
            f"note: no yaml-language-server modeline was written: no schema lies in this repository; run "
            f"'rlresources schema --out {relpath(out_dir / SCHEMA_FILE)}' and import again to give editors the schema\n"
        )
    limit = project.max_file_size or cli_default("max_file_size")
    texts = {
        key: render_file(result.sizes[key], [entry for _line, entry in result.rows[key]], modeline, page_path.name)
        for key in keys
    }
    for key, text in texts.items():  # a file the loader would refuse is not written (nor is any other)
        size = len(text.encode("utf-8"))
        if size > limit:
            raise CliError(
                f"{relpath(targets[key])} would be {size} bytes, more than the {limit} a data file may have; nothing "
                "was written: split the size's table on the page, or raise max_file_size in [tool.rlresources]"
            )
    for key in keys:
        write_file(write_root, targets[key], texts[key], True)
        count = len(result.rows[key])
        out.write(f"wrote {relpath(targets[key])} ({plural(count, 'row')})\n")
    _check_written([targets[key] for key in keys], limit)
    suggestion = url_suggestion(result.links)
    if suggestion:
        template, ref, others = suggestion
        out.write(
            "The links were GitHub URLs; to keep linking them, put this in pyproject.toml (the build and every "
            "command read it):\n"
        )
        out.write("    [tool.rlresources]\n")
        out.write(f"    script_url = {json_text(template, None)}\n")
        out.write(f"    script_ref = {json_text(ref, None)}\n")
        for other in others:
            out.write(f"  (some links used another repository or ref: {other})\n")
    rows = sum(len(r) for r in result.rows.values())
    counts = collections.Counter(f.kind for f in result.findings)
    losses = [
        plural(counts[kind], word)
        for kind, word in (("row", "row"), ("cell", "cell"), ("part", "link or markup part"))
        if counts[kind]
    ]
    todo = sum(list(entry.values()).count(TODO) for found in result.rows.values() for _line, entry in found)
    out.write(
        f"rlresources: {plural(rows, 'row')} in {plural(len(keys), 'size')} imported; "
        + (f"not carried over: {', '.join(losses)} (see above)" if losses else "every cell carried over")
        + (f"; {plural(todo, 'placeholder')} (TODO) to fill in, named by rlresources lint" if todo else "")
        + "\n"
    )
    return EXIT_FINDINGS if losses else EXIT_OK


def _check_links_at_their_refs(result: Result, where: Path) -> list[Finding]:
    """A finding for each pinned link whose file does not exist at its commit (one git process)."""
    links = [link for link in result.links if link.pinned]
    if not links:
        return []
    try:
        found = git.read_pinned(where, [(link.pinned or "", link.path) for link in links], 0)
    except git.GitUnavailable as err:
        return [Finding(links[0].line, f"the links pinned at commits were not checked against git: {err}", "note")]
    findings = []
    for link in links:
        ref = link.pinned or ""
        if not found.refs.get(ref):
            message = f"the link is pinned at {ref}, which this clone does not have; fetch it to check the link"
            findings.append(Finding(link.line, message, "note"))
        elif found.files.get((ref, link.path)) is None:
            findings.append(
                Finding(
                    link.line,
                    f"the link leads to '{link.path}', which does not exist at {ref}: readers get a 404; fix the link",
                    "defect",
                )
            )
    return findings


def _add_tested(result: Result, page: Path) -> list[Finding]:
    """Give each row ``tested``: the day its cells (the Link cell left out) last changed on the page.

    From one ``git blame`` of the page as committed.  A page outside git gets no dates
    and no note (there is no history to ask); a shallow clone, a page with uncommitted
    changes, or no git at all gets no dates and one note that says how to get them --
    a date that is not the row's own would be worse than none.
    """
    try:
        dates = git.blame_dates(page)
    except git.GitUnavailable as err:
        if "not a git repository" in str(err):
            return []
        return [Finding(1, f"the rows get no tested date: {err}", "note")]
    for rows in result.rows.values():
        for _line, entry in rows:
            days = [dates[line] for line in result.cell_lines.get(id(entry), []) if line in dates]
            if days:
                entry["tested"] = max(days)
    return []


def _check_written(paths: Sequence[Path], limit: int) -> None:
    """Read the written files back through the loader: what import writes must be valid data."""
    if not paths:
        return
    options = LoadOptions(max_file_bytes=limit, check_scripts=False)
    dataset = load_dataset(paths[0].parent, paths[0].parent, options)
    shown = {relpath(p) for p in paths}
    problems = [d.format() for d in dataset.diagnostics if d.path in shown and d.subtype is not Subtype.PLACEHOLDER]
    if problems:
        raise CliError(f"internal error: the written data does not read back ({problems[0]}); please report this")
