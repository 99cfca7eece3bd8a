"""Reading a hand-written page for ``rlresources import``: headings, tables and their cells, with lines.

Hand-written pages are not the tidy reST we would write: headings whose underline is
shorter than the title (docutils then reads them as paragraphs), rows with fewer cells
than the header, ``list-table`` and simple tables side by side.  So the page is read
line by line here, not through docutils.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from sphinx_rlresources.safe.sizes import heading_size

_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+\s*$")
_SIMPLE_BORDER = re.compile(r"^\s*=+(?:\s+=+)+\s*$")
_GRID_BORDER = re.compile(r"^\s*\+(?:[-=]+\+)+\s*$")
_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+([\w:-]+)::\s*(.*)$")
_TARGET = re.compile(r"^\s*\.\.\s+_(`[^`]+`|[^:]+):\s*(\S+)\s*$")
_SKIPPED_DIRECTIVES = {
    "code-block",
    "code",
    "sourcecode",
    "literalinclude",
    "raw",
    "math",
    "parsed-literal",
    "csv-table",
}

HEADER_FIELDS = {
    "tag": "tag",
    "model": "model",
    "task": "task",
    "algorithm": "task",
    "resource": "resource",
    "resources": "resource",
    "gpus": "resource",
    "hardware": "resource",
    "maxbatch": "max_batch",
    "batch": "max_batch",
    "train": "train",
    "training": "train",
    "infer": "infer",
    "inference": "infer",
    "rollout": "infer",
    "link": "script",
    "script": "script",
    "contributor": "contributor",
    "contributors": "contributor",
}
REQUIRED = ("tag", "model", "task", "resource", "train", "infer", "script", "contributor")


@dataclass
class Cell:
    text: str
    line: int


@dataclass
class Table:
    line: int
    kind: str
    header: list[Cell] | None
    rows: list[list[Cell]]


@dataclass
class Heading:
    title: str
    line: int
    level: int
    size: str | None


@dataclass
class Finding:
    line: int
    message: str
    kind: str = "part"
    """``row`` (a row skipped, with the reason), ``cell`` (one of its cells, or a cell of an
    unknown column), ``part`` (part of a cell, such as a link, was dropped), ``defect`` (a
    defect of the page itself, such as a heading docutils does not read, reported so it is
    fixed there too; nothing lost) or ``note`` (nothing lost).  A loss makes the exit
    status 1."""

    @property
    def lost(self) -> bool:
        return self.kind in ("row", "cell", "part")


@dataclass
class Page:
    lines: list[str]
    headings: list[Heading] = field(default_factory=list)
    tables: list[tuple[Table, list[Heading]]] = field(default_factory=list)
    targets: dict[str, str] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    markup: str = "rst"
    """``rst`` or ``markdown``: which syntax the cells' links and inline markup are in."""


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_text(line: str) -> bool:
    return bool(line.strip()) and not _ADORNMENT.match(line) and not line.startswith((" ", "\t", ".. "))


def _block_end(lines: list[str], start: int, indent: int) -> int:
    """The index after the indented block that follows line ``start - 1``."""
    end = start
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > indent):
        end += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return end


def _unescape(text: str) -> str:
    text = text.strip()
    if text == "\\":
        return ""
    return re.sub(r"\\(.)", r"\1", text).strip()


def list_table(lines: list[str], start: int, indent: int, page: Page) -> tuple[Table, int]:  # noqa: C901 - a line scanner for one table syntax
    end = _block_end(lines, start, indent)
    header_rows = 0
    i = start
    while i < end and (not lines[i].strip() or lines[i].strip().startswith(":")):
        option = re.match(r"\s*:header-rows:\s*(\d+)", lines[i])
        if option:
            header_rows = int(option.group(1))
        i += 1
    rows: list[list[Cell]] = []
    row_indent = cell_indent = -1
    for index in range(i, end):
        line = lines[index]
        if not line.strip():
            continue
        stripped = line.lstrip(" ")
        depth = _indent(line)
        row = re.match(r"\*(?:\s+|$)(.*)$", stripped)
        if row and (row_indent < 0 or depth == row_indent):
            row_indent = depth
            rows.append([])
            rest = row.group(1)
            cell = re.match(r"-(?:\s+|$)(.*)$", rest)
            if cell:
                cell_indent = depth + len(stripped) - len(rest)
                rows[-1].append(Cell(cell.group(1), index + 1))
            else:
                cell_indent = -1
            continue
        cell = re.match(r"-(?:\s+|$)(.*)$", stripped)
        if rows and cell and (cell_indent < 0 or depth == cell_indent):
            cell_indent = depth
            rows[-1].append(Cell(cell.group(1), index + 1))
        elif rows and rows[-1]:
            rows[-1][-1].text += " " + stripped
        else:
            page.findings.append(
                Finding(index + 1, f"text '{stripped.strip()}' in a list-table is not in a row; not read")
            )
    for cells in rows:
        for item in cells:
            item.text = _unescape(item.text)
    header = rows[0] if rows and (header_rows >= 1 or _looks_like_header(rows[0])) else None
    if header is not None:
        if header_rows == 0:
            page.findings.append(
                Finding(
                    start,
                    "the list-table has no :header-rows:, but its first row names the columns; read it as the header",
                    "note",
                )
            )
        body = rows[max(header_rows, 1) :]
    else:
        body = rows
    return Table(start, "list-table", header, body), end


def _looks_like_header(cells: Sequence[Cell]) -> bool:
    known = sum(1 for c in cells if header_key(c.text) is not None)
    return known >= max(2, len(cells) // 2)


def header_key(text: str) -> str | None:
    return HEADER_FIELDS.get(re.sub(r"[^a-z]", "", text.lower()))


def _columns_of(border: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"=+", border)]


def _split_simple(line: str, spans: list[tuple[int, int]]) -> list[str]:
    cells = []
    for index, (begin, _end) in enumerate(spans):
        stop = spans[index + 1][0] if index + 1 < len(spans) else len(line)
        cells.append(line[begin:stop] if begin < len(line) else "")
    return cells


def _simple_table(lines: list[str], start: int) -> tuple[Table, int]:  # noqa: C901 - a line scanner for one table syntax
    border = lines[start].rstrip()
    spans = _columns_of(border)
    borders = [start]
    i = start + 1
    while i < len(lines) and len(borders) < 3:
        line = lines[i]
        if _SIMPLE_BORDER.match(line) and _columns_of(line.rstrip()) == spans:
            borders.append(i)
            if len(borders) == 2 and (i + 1 >= len(lines) or not lines[i + 1].strip()):
                break
        elif not line.strip() and (i + 1 >= len(lines) or not lines[i + 1].strip()):
            break
        i += 1
    end = borders[-1] + 1

    def rows_between(first: int, last: int) -> list[list[Cell]]:
        rows: list[list[Cell]] = []
        for index in range(first, last):
            line = lines[index].rstrip()
            if not line.strip():
                continue
            parts = _split_simple(line, spans)
            if rows and not parts[0].strip():  # a continuation line
                for cell, part in zip(rows[-1], parts, strict=False):
                    if part.strip():
                        cell.text = f"{cell.text} {part.strip()}".strip()
                continue
            rows.append([Cell(part.strip(), index + 1) for part in parts])
        for row in rows:
            for cell in row:
                cell.text = _unescape(cell.text)
        return rows

    if len(borders) == 3:
        header_rows = rows_between(borders[0] + 1, borders[1])
        return Table(
            start + 1, "simple table", header_rows[0] if header_rows else None, rows_between(borders[1] + 1, borders[2])
        ), end
    return Table(start + 1, "simple table", None, rows_between(borders[0] + 1, borders[-1])), end


def _grid_table(lines: list[str], start: int, page: Page) -> tuple[Table, int]:  # noqa: C901 - a line scanner for one table syntax
    top = lines[start].rstrip()
    bounds = [m.start() for m in re.finditer(r"\+", top)]
    end = start + 1
    while end < len(lines) and lines[end].strip().startswith(("|", "+")):
        end += 1
    rows: list[list[Cell]] = []
    header: list[Cell] | None = None
    current: list[Cell] | None = None
    for index in range(start + 1, end):
        line = lines[index].rstrip()
        if _GRID_BORDER.match(line):
            if current is not None and "=" in line:
                header = current
            elif current is not None:
                rows.append(current)
            current = None
            continue
        if any(b >= len(line) or line[b] not in "|+" for b in bounds):
            page.findings.append(
                Finding(index + 1, "a grid-table row with merged cells cannot be read; the table is skipped")
            )
            return Table(start + 1, "grid table", None, []), end
        parts = [line[bounds[k] + 1 : bounds[k + 1]].strip() for k in range(len(bounds) - 1)]
        if current is None:
            current = [Cell(part, index + 1) for part in parts]
        else:
            for cell, part in zip(current, parts, strict=False):
                if part:
                    cell.text = f"{cell.text} {part}".strip()
    for row in ([header] if header else []) + rows:
        for cell in row:
            cell.text = _unescape(cell.text)
    return Table(start + 1, "grid table", header, rows), end


def parse_page(text: str) -> Page:  # noqa: C901 - a line scanner: headings, targets and each table syntax
    """Find the headings (with their sizes), the tables under them and the link targets."""
    lines = text.splitlines()
    page = Page(lines)
    styles: list[tuple[str, bool]] = []
    stack: list[Heading] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        target = _TARGET.match(line)
        if target:
            page.targets[norm_ref(target.group(1).strip("`"))] = target.group(2)
            i += 1
            continue
        heading: tuple[str, tuple[str, bool], int] | None = None
        if (
            _ADORNMENT.match(line)
            and i + 2 < len(lines)
            and lines[i + 1].strip()
            and not _ADORNMENT.match(lines[i + 1])
            and lines[i + 2].strip() == line.strip()
        ):
            heading = (lines[i + 1].strip(), (line.strip()[0], True), 3)
        elif (
            _is_text(line)
            and i + 1 < len(lines)
            and _ADORNMENT.match(lines[i + 1])
            and (i == 0 or not lines[i - 1].strip() or _ADORNMENT.match(lines[i - 1]))
        ):
            heading = (line.strip(), (lines[i + 1].strip()[0], False), 2)
        if heading is not None:
            title, style, consumed = heading
            under = lines[i + consumed - 1].strip() if style[1] else lines[i + 1].strip()
            _check_heading(page, title, under, i + 1 + (1 if style[1] else 0))
            if style not in styles:
                if len(styles) > len(stack):
                    page.findings.append(
                        Finding(
                            i + 1,
                            f"the heading '{title}' uses a new adornment ('{style[0]}') below a level that is not "
                            "the deepest so far; docutils stops with 'Title level inconsistent': adorn it like "
                            "the other headings of its level",
                            "defect",
                        )
                    )
                styles.append(style)
            level = styles.index(style)
            while stack and stack[-1].level >= level:
                stack.pop()
            found = Heading(title, i + 1 + (1 if style[1] else 0), level, heading_size(title))
            page.headings.append(found)
            stack.append(found)
            i += consumed
            continue
        directive = _DIRECTIVE.match(line)
        if directive:
            name = directive.group(2).lower()
            indent = len(directive.group(1))
            if name == "list-table":
                table, i = list_table(lines, i + 1, indent, page)
                page.tables.append((table, list(stack)))
                continue
            if name in _SKIPPED_DIRECTIVES:
                if name == "csv-table":
                    page.findings.append(Finding(i + 1, "a csv-table is not read; turn it into a list-table first"))
                i = _block_end(lines, i + 1, indent)
                continue
            i += 1
            continue
        if _SIMPLE_BORDER.match(line):
            table, i = _simple_table(lines, i)
            page.tables.append((table, list(stack)))
            continue
        if _GRID_BORDER.match(line):
            table, i = _grid_table(lines, i, page)
            page.tables.append((table, list(stack)))
            continue
        i += 1
    return page


def _check_heading(page: Page, title: str, underline: str, line: int) -> None:
    """Report a heading whose underline docutils would not accept (too short for the title)."""
    if len(underline) >= len(title):
        return
    if len(underline) < 4:
        page.findings.append(
            Finding(
                line,
                f"'{title}' is not a heading to docutils: its underline ({len(underline)} '{underline[0]}') is "
                "shorter than the title and under 4 characters, so the page shows it as text and the "
                f"sidebar lacks it; underline it with at least {len(title)} '{underline[0]}'",
                "defect",
            )
        )
    else:
        page.findings.append(
            Finding(
                line,
                f"the underline of the heading '{title}' is shorter than the title; docutils warns "
                f"'Title underline too short': underline it with at least {len(title)} '{underline[0]}'",
                "defect",
            )
        )


def norm_ref(name: str) -> str:
    return " ".join(name.lower().split())
