"""``rlresources import``: move a hand-written page's tables onto data files.

Hand-written pages are not the tidy reST we would write: headings whose underline is
shorter than the title (docutils then reads them as paragraphs), rows with fewer cells
than the header, ``list-table`` and simple tables side by side.  So the page is read
line by line here, not through docutils, and every table found under a heading is
turned into rows.

What counts as certain: a row is written only when every required field could be read
from its own cell.  A row with fewer (or more) cells than its header cannot be trusted
at all (which cell is missing cannot be told: the seed page's ``GRPO-LoRA`` stands in
the Model column), so it is skipped and each of its cells is reported with its line.
Nothing is ever filled in that the page did not say; the report lists every cell that
was not carried over, so a person can finish the migration by hand.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, TextIO
from urllib.parse import unquote, urlsplit

from .diagnostics import relpath
from .model import size_key, size_order
from .validation import SCHEMA_FILE, validator
from .yamlsafe import YamlDate, YamlError, load

# -- reading the page ----------------------------------------------------------------

_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+\s*$")
_SIZE_IN_TEXT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?([BMKT])(?![\w])", re.IGNORECASE)
_SIZE_LABEL = re.compile(r"^(\d+(?:\.\d+)?)([BMKT])$", re.IGNORECASE)
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
    unknown column), ``part`` (part of a cell, such as a link, was dropped) or ``note``
    (nothing lost).  Everything but a note makes the exit status 1."""

    @property
    def lost(self) -> bool:
        return self.kind != "note"


@dataclass
class Page:
    lines: list[str]
    headings: list[Heading] = field(default_factory=list)
    tables: list[tuple[Table, list[Heading]]] = field(default_factory=list)
    targets: dict[str, str] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)


def size_label(text: str) -> str | None:
    """``7B`` from a heading such as ``7B``, ``Qwen2.5-7B models`` or ``7 b``; None if none or several."""
    found = {f"{m.group(1)}{m.group(2).upper()}" for m in _SIZE_IN_TEXT.finditer(text)}
    return found.pop() if len(found) == 1 else None


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


def _list_table(lines: list[str], start: int, indent: int, page: Page) -> tuple[Table, int]:
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
    known = sum(1 for c in cells if _header_key(c.text) is not None)
    return known >= max(2, len(cells) // 2)


def _header_key(text: str) -> str | None:
    return HEADER_FIELDS.get(re.sub(r"[^a-z]", "", text.lower()))


def _columns_of(border: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"=+", border)]


def _split_simple(line: str, spans: list[tuple[int, int]]) -> list[str]:
    cells = []
    for index, (begin, _end) in enumerate(spans):
        stop = spans[index + 1][0] if index + 1 < len(spans) else len(line)
        cells.append(line[begin:stop] if begin < len(line) else "")
    return cells


def _simple_table(lines: list[str], start: int) -> tuple[Table, int]:
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


def _grid_table(lines: list[str], start: int, page: Page) -> tuple[Table, int]:
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


def parse_page(text: str) -> Page:
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
            page.targets[_norm_ref(target.group(1).strip("`"))] = target.group(2)
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
            if style not in styles:
                styles.append(style)
            level = styles.index(style)
            while stack and stack[-1].level >= level:
                stack.pop()
            found = Heading(title, i + 1 + (1 if style[1] else 0), level, size_label(title))
            page.headings.append(found)
            stack.append(found)
            i += consumed
            continue
        directive = _DIRECTIVE.match(line)
        if directive:
            name = directive.group(2).lower()
            indent = len(directive.group(1))
            if name == "list-table":
                table, i = _list_table(lines, i + 1, indent, page)
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


# -- reading cells ---------------------------------------------------------------------

_LINK = re.compile(r"^`(?P<text>[^`<]*?)\s*<(?P<target>[^<>`]+)>`__?$")
_REF = re.compile(r"^(?:`(?P<quoted>[^`<]+)`|(?P<word>[\w.+-]+))__?$")
_DOWNLOAD = re.compile(r"^:download:`(?:(?P<text>[^`<]*?)\s*<(?P<target>[^<>`]+)>|(?P<plain>[^`<>]+))`$")
_RESOURCE = re.compile(r"^(\d+)\s*[*x×]\s*([A-Za-z0-9][A-Za-z0-9.+-]*)$")
_INFER = re.compile(r"^([A-Za-z][A-Za-z-]*?[A-Za-z])-?v?(\d[0-9A-Za-z.+-]*)?$")
_EMAIL = re.compile(r"^[^@\s<>\"():;,]+@[^@\s<>\"():;,]+\.[^@\s<>\"():;,]+$")
_GITHUB_USER = re.compile(r"^https?://github\.com/([A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38})/?$")


def _norm_ref(name: str) -> str:
    return " ".join(name.lower().split())


class CellError(Exception):
    """Why one cell could not be carried over."""


@dataclass
class Link:
    text: str
    target: str | None


def read_link(text: str, targets: dict[str, str]) -> Link:
    """The text and target of a cell that holds one hyperlink (or plain text)."""
    match = _LINK.match(text)
    if match:
        return Link(match.group("text").strip() or match.group("target"), match.group("target").strip())
    match = _DOWNLOAD.match(text)
    if match:
        target = (match.group("target") or match.group("plain")).strip()
        return Link((match.group("text") or "").strip() or PurePosixPath(target).name, "download:" + target)
    match = _REF.match(text)
    if match:
        name = match.group("quoted") or match.group("word")
        target = targets.get(_norm_ref(name))
        if target is None:
            raise CellError(f"the link '{text}' names no target defined on the page")
        return Link(name, target)
    if re.match(r"^https?://\S+$", text):
        return Link(text, text)
    if "`" in text or "<" in text:
        raise CellError(f"'{text}' is not one link this command can read")
    return Link(text, None)


_INLINE = re.compile(r"``(.+?)``|\*\*(.+?)\*\*|\*(.+?)\*")


def plain_text(text: str, page: Page) -> tuple[str, list[str]]:
    """A plain-text cell's words: emphasis and literals unwrapped, a link's target reported as lost."""
    lost = []
    if ("`" in text and "<" in text) or _REF.match(text):
        try:
            link = read_link(text, page.targets)
        except CellError as err:
            raise CellError(f"{err}; this column holds plain text") from None
        if link.target:
            lost.append(f"the link to '{link.target}' in '{text}' is not carried over (this column holds plain text)")
        text = link.text
    text = _INLINE.sub(lambda m: next(g for g in m.groups() if g is not None), text)
    if "`" in text or "|" in text:
        raise CellError(f"'{text}' holds reST markup this column cannot keep")
    return text, lost


@dataclass
class ScriptLink:
    path: str
    template: str | None = None
    ref: str | None = None


def _github_path(url: str, root: Path | None) -> ScriptLink:
    parts = urlsplit(url)
    segments = [unquote(s) for s in parts.path.split("/") if s]
    if parts.netloc == "raw.githubusercontent.com" and len(segments) >= 4:
        owner, repo, rest = segments[0], segments[1], segments[2:]
    elif (
        parts.netloc in ("github.com", "www.github.com")
        and len(segments) >= 5
        and segments[2] in ("blob", "tree", "raw")
    ):
        owner, repo, rest = segments[0], segments[1], segments[3:]
    else:
        raise CellError(f"'{url}' is not a link to a file in a GitHub repository (…/blob/REF/PATH or …/tree/REF/PATH)")
    # A branch may contain '/', so the ref is as many segments as make the path exist.
    split = 1
    if root is not None:
        for k in range(1, len(rest)):
            if (root.joinpath(*rest[k:])).is_file():
                split = k
                break
    ref, path = "/".join(rest[:split]), "/".join(rest[split:])
    return ScriptLink(path, f"https://github.com/{owner}/{repo}/blob/{{ref}}/{{path}}", ref)


def read_script(cell: Cell, page: Page, page_dir: Path, root: Path | None) -> tuple[ScriptLink, str]:
    """The repo-relative script path of a Link cell, and the text the page shows."""
    link = read_link(cell.text, page.targets)
    target = link.target
    if target is None:
        if not link.text:
            raise CellError("the Link cell is empty")
        found = ScriptLink(link.text)
    elif target.startswith("download:"):
        if root is None:
            raise CellError(f"the :download: link '{cell.text}' is relative to the page; pass --root to resolve it")
        real = (page_dir / target[len("download:") :]).resolve()
        try:
            found = ScriptLink(real.relative_to(root.resolve()).as_posix())
        except ValueError:
            raise CellError(f"the :download: link '{cell.text}' leads outside the root") from None
    elif target.startswith(("http://", "https://")):
        found = _github_path(target, root)
    else:
        found = ScriptLink(target)
    path = found.path
    if path.startswith("/") or ".." in PurePosixPath(path).parts or not path.endswith(".sh"):
        raise CellError(f"the link leads to '{path}', which is not a .sh script inside the repository")
    return found, link.text


def read_contributor(cell: Cell, page: Page) -> tuple[Any, list[str]]:
    """A name, or ``{name, email|github|url}``, and the parts that could not be kept."""
    link = read_link(cell.text, page.targets)
    if not link.text:
        raise CellError("the Contributor cell is empty")
    if link.target is None:
        return link.text, []
    target = link.target
    name = link.text
    if target.startswith("mailto:"):
        target = target[len("mailto:") :]
    if _EMAIL.match(target):
        return {"name": name, "email": target}, []
    user = _GITHUB_USER.match(target)
    if user:
        return {"name": name, "github": user.group(1)}, []
    if target.startswith(("http://", "https://")):
        return {"name": name, "url": target}, []
    return name, [f"the contributor link '{link.target}' is not an http(s) or mailto link; only the name is kept"]


def read_cells(
    cells: dict[str, Cell], page: Page, page_dir: Path, root: Path | None
) -> tuple[dict[str, Any], list[Finding], list[Finding], ScriptLink | None]:
    """Read one row: (values, failures that lose the row, notes and partial losses, script link)."""
    values: dict[str, Any] = {}
    failed: list[Finding] = []
    notes: list[Finding] = []
    link: ScriptLink | None = None
    for key, cell in cells.items():
        text = cell.text
        try:
            if key in ("tag", "resource", "max_batch", "infer"):
                text, partial = plain_text(text, page)
                notes.extend(Finding(cell.line, message) for message in partial)
            if key == "tag":
                if text.upper() not in ("MIN", "RECOMMENDED"):
                    raise CellError(f"Tag '{text}' is neither MIN nor RECOMMENDED")
                values["tag"] = text.upper()
                if text != text.upper():
                    notes.append(Finding(cell.line, f"Tag '{text}' is written as {text.upper()}", "note"))
            elif key in ("model", "task", "train"):
                text, partial = plain_text(text, page)
                notes.extend(Finding(cell.line, message) for message in partial)
                if not text:
                    raise CellError(f"the {key.capitalize()} cell is empty")
                values[key] = text
            elif key == "resource":
                match = _RESOURCE.match(text)
                if not match:
                    raise CellError(f"Resource '{text}' is not in the form N*DEVICE (8*H100)")
                values["gpus"], values["device"] = int(match.group(1)), match.group(2)
            elif key == "max_batch":
                if text in ("", "-", "\\", "—", "–"):
                    values["max_batch"] = None
                elif text.isdigit():
                    values["max_batch"] = int(text)
                else:
                    raise CellError(f"MaxBatch '{text}' is not a whole number (or empty, '-', '\\')")
            elif key == "infer":
                match = _INFER.match(text.replace(" ", ""))
                if not match:
                    raise CellError(f"Infer '{text}' is not an engine name with an optional version (vllm0.8.3)")
                values["infer"] = match.group(1)
                if match.group(2):
                    values["infer_version"] = match.group(2)
                if text.replace(" ", "") != text:
                    notes.append(
                        Finding(
                            cell.line, f"Infer '{text}' is drawn as '{match.group(1)}{match.group(2) or ''}'", "note"
                        )
                    )
            elif key == "script":
                link, shown = read_script(cell, page, page_dir, root)
                values["script"] = link.path
                name = PurePosixPath(link.path).name
                if shown and shown not in (name, name[: -len(".sh")]):
                    notes.append(
                        Finding(
                            cell.line,
                            f"the link text '{shown}' is not the script's file name; the table will show '{name}'",
                            "note",
                        )
                    )
            elif key == "contributor":
                values["contributor"], partial = read_contributor(cell, page)
                notes.extend(Finding(cell.line, message) for message in partial)
        except CellError as err:
            failed.append(Finding(cell.line, str(err)))
    return values, failed, notes, link


# -- turning tables into rows ----------------------------------------------------------


@dataclass
class Result:
    sizes: dict[str, str] = field(default_factory=dict)
    """size key -> label, in page order"""
    rows: dict[str, list[tuple[int, dict[str, Any]]]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    links: list[ScriptLink] = field(default_factory=list)

    def add_size(self, label: str) -> str:
        key = size_key(label)
        self.sizes.setdefault(key, label)
        self.rows.setdefault(key, [])
        return key


def _shown(cell: Cell) -> str:
    text = cell.text if len(cell.text) <= 60 else cell.text[:57] + "..."
    return f"'{text}'"


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
    match = _SIZE_LABEL.match(parent)
    return f"{match.group(1)}{match.group(2).upper()}" if match else None


def import_page(text: str, page_dir: Path, root: Path | None) -> Result:
    """Turn the page's tables into rows per size; every loss is a finding."""
    page = parse_page(text)
    result = Result(findings=list(page.findings))
    for heading in page.headings:
        if heading.size:
            result.add_size(heading.size)
    for table, parents in page.tables:
        heading_size = next((h.size for h in reversed(parents) if h.size), None)
        where = f"the {table.kind} at line {table.line}"
        if table.header is None:
            for row in table.rows:
                _lose_row(row, f"{where} has no header row, so its columns are unknown", result, None)
            continue
        names = [c.text for c in table.header]
        keys = [_header_key(c.text) for c in table.header]
        missing = [k for k in REQUIRED if k not in keys]
        header_text = ", ".join(names)
        for row in table.rows:
            if all(not c.text for c in row):
                result.findings.append(
                    Finding(row[0].line if row else table.line, f"an empty row in {where} is skipped", "note")
                )
                continue
            if len(row) != len(table.header):
                _lose_row(
                    row,
                    f"it has {len(row)} cells but the header at line {table.header[0].line} has "
                    f"{len(table.header)} ({header_text}); which column each cell belongs to cannot be told",
                    result,
                    None,
                )
                continue
            if missing:
                _lose_row(
                    row, f"{where} has no column for {', '.join(missing)}, which every row needs", result, table.header
                )
                continue
            cells: dict[str, Cell] = {}
            for index, (key, cell) in enumerate(zip(keys, row, strict=True)):
                if key is None or key in cells:
                    if cell.text:
                        result.findings.append(
                            Finding(
                                cell.line,
                                f"cell {index + 1} ({names[index]}) {_shown(cell)} not carried over: the data "
                                f"has no field for the column '{names[index]}'",
                                "cell",
                            )
                        )
                    continue
                cells[key] = cell
            values, failed, notes, link = read_cells(cells, page, page_dir, root)
            result.findings.extend(notes)
            if "max_batch" not in cells:
                values["max_batch"] = None
            size = heading_size or (_folder_size(values["script"]) if "script" in values else None)
            if failed or size is None:
                reasons = [f.message for f in failed] or [
                    "no size: neither the heading above the table nor the script's folder names one"
                ]
                _lose_row(row, "; ".join(reasons), result, table.header)
                continue
            folder = _folder_size(values["script"])
            if heading_size and folder and size_key(folder) != size_key(heading_size):
                result.findings.append(
                    Finding(
                        row[0].line,
                        f"the script's folder says {folder} but the heading says {heading_size}; "
                        f"the row goes to {heading_size}",
                        "note",
                    )
                )
            entry = {k: values[k] for k in ENTRY_ORDER if k in values}
            problems = _schema_problems(size, entry)
            if problems:
                _lose_row(row, f"the row breaks the data format ({problems[0]})", result, table.header)
                continue
            key = result.add_size(size)
            result.rows[key].append((row[0].line, entry))
            if link is not None:
                result.links.append(link)
    result.findings.sort(key=lambda f: (f.line, ("row", "cell", "part", "note").index(f.kind)))
    return result


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
    "contributor",
)


def _schema_problems(label: str, entry: dict[str, Any]) -> list[str]:
    from .validation import path_text

    errors = validator().iter_errors({"size": label, "entries": [entry]})
    return [f"{path_text(tuple(e.absolute_path)[2:]) or 'size'}: {e.message}" for e in errors]


# -- writing data files ----------------------------------------------------------------

_PLAIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._+/@-]*$")


def yaml_scalar(value: Any) -> str:
    """A YAML scalar that reads back as exactly ``value`` (JSON quoting when in doubt)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if _PLAIN.match(text) and text == text.strip():
        try:  # plain only when YAML reads it back as this very text (not 7e3, yes, 2025-06-25)
            back = load(f"k: {text}\n").value
        except YamlError:
            back = None
        if back == {"k": text} and not isinstance(back["k"], YamlDate):
            return text
    return json.dumps(text, ensure_ascii=False)


def render_file(label: str, entries: Sequence[dict[str, Any]], schema_ref: str | None, source: str) -> str:
    lines = []
    if schema_ref:
        lines.append(f"# yaml-language-server: $schema={schema_ref}")
    lines.append(f"# Imported from {source} by rlresources import; check it with rlresources lint.")
    lines.append(f"size: {yaml_scalar(label)}")
    if not entries:
        lines.append("entries: []")
    else:
        lines.append("entries:")
        for entry in entries:
            first = True
            for key, value in entry.items():
                prefix = "  - " if first else "    "
                first = False
                if key == "infer_version":
                    lines.append(f"{prefix}{key}: {json.dumps(str(value))}")
                elif isinstance(value, dict):
                    lines.append(f"{prefix}{key}:")
                    lines.extend(f"      {k}: {yaml_scalar(v)}" for k, v in value.items())
                else:
                    lines.append(f"{prefix}{key}: {yaml_scalar(value)}")
    return "\n".join(lines) + "\n"


def _schema_ref(out: Path) -> str | None:
    """What a new data file's ``# yaml-language-server: $schema=`` line should point at.

    A copy written by ``rlresources schema > DATA/rlresources.schema.json`` first; else
    the packaged schema when it lives in a source checkout (as in this repository); never
    a path into an installed environment, which would differ on every machine.
    """
    from importlib import resources

    if (out / SCHEMA_FILE).is_file():
        return SCHEMA_FILE
    try:
        packaged = Path(str(resources.files(__package__).joinpath("schema").joinpath(SCHEMA_FILE)))
        if {"site-packages", "dist-packages"} & set(packaged.parts):
            return None
        return Path(os.path.relpath(packaged, out.resolve())).as_posix()
    except (ValueError, TypeError):
        return None


def url_suggestion(links: Sequence[ScriptLink]) -> tuple[str, str, list[str]] | None:
    """The most common (template, ref), and a note for every link that differs."""
    pairs = collections.Counter((link.template, link.ref) for link in links if link.template)
    if not pairs:
        return None
    (template, ref), _count = pairs.most_common(1)[0]
    assert template is not None and ref is not None
    others = [f"{t.format(ref=r, path='…')}" for (t, r) in pairs if (t, r) != (template, ref) and t and r]
    return template, ref, others


def run(args: argparse.Namespace, out: TextIO) -> int:
    from .cli import EXIT_FINDINGS, EXIT_OK, CliError

    page_path = Path(args.page)
    try:
        text = page_path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise CliError(f"the page '{args.page}' does not exist") from None
    except IsADirectoryError:
        raise CliError(f"'{args.page}' is a folder; give the .rst page") from None
    except UnicodeDecodeError as err:
        raise CliError(f"the page '{args.page}' is not UTF-8 text ({err.reason} at byte {err.start})") from None
    root = Path(args.root) if args.root else None
    if root is not None and not root.is_dir():
        raise CliError(f"the root '{args.root}' is not a folder")
    out_dir = Path(args.out)
    if out_dir.exists() and not out_dir.is_dir():
        raise CliError(f"--out '{args.out}' exists and is not a folder")
    result = import_page(text, page_path.parent, root)
    if not result.sizes:
        raise CliError(
            f"the page '{args.page}' has no heading that names a size (7B, 70B) and no table whose scripts do"
        )
    keys = sorted(result.sizes, key=lambda k: size_order(result.sizes[k]))
    targets = {key: out_dir / f"{key}.yaml" for key in keys}
    existing = [p for p in targets.values() if p.exists()]
    if existing and not args.force:
        raise CliError(
            f"{', '.join(relpath(p) for p in existing)} already exist; pass --force to overwrite, "
            "or import into an empty folder"
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    shown_page = relpath(page_path)
    for finding in result.findings:
        kind = "warning" if finding.lost else "note"
        out.write(f"{shown_page}:{finding.line}: {kind}: {finding.message}\n")
    schema_ref = _schema_ref(out_dir)
    for key in keys:
        entries = [entry for _line, entry in result.rows[key]]
        targets[key].write_text(render_file(result.sizes[key], entries, schema_ref, page_path.name), encoding="utf-8")
        out.write(f"wrote {relpath(targets[key])} ({len(entries)} row{'' if len(entries) == 1 else 's'})\n")
    _check_written([targets[key] for key in keys])
    suggestion = url_suggestion(result.links)
    if suggestion:
        template, ref, others = suggestion
        out.write("The links were GitHub URLs; to keep linking them, put this in conf.py:\n")
        out.write(f"    rlresources_script_url = {template!r}\n")
        out.write(f"    rlresources_script_ref = {ref!r}\n")
        for other in others:
            out.write(f"  (some links used another repository or ref: {other})\n")
    rows = sum(len(r) for r in result.rows.values())
    counts = collections.Counter(f.kind for f in result.findings)
    losses = [
        _plural(counts[kind], word)
        for kind, word in (("row", "row"), ("cell", "cell"), ("part", "link or markup part"))
        if counts[kind]
    ]
    out.write(
        f"rlresources: {_plural(rows, 'row')} in {_plural(len(keys), 'size')} imported; "
        + (f"not carried over: {', '.join(losses)} (see above)" if losses else "every cell carried over")
        + "\n"
    )
    return EXIT_FINDINGS if losses else EXIT_OK


def _check_written(paths: Sequence[Path]) -> None:
    """Read the written files back through the loader: what import writes must be valid data."""
    from .cli import CliError
    from .loader import LoadOptions, load_dataset

    if not paths:
        return
    dataset = load_dataset(paths[0].parent, paths[0].parent, LoadOptions(check_scripts=False))
    shown = {relpath(p) for p in paths}
    problems = [d.format() for d in dataset.diagnostics if d.path in shown]
    if problems:
        raise CliError(f"internal error: the written data does not read back ({problems[0]}); please report this")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def iter_cells(table: Table) -> Iterator[Cell]:
    """Every cell of a table, header first (for tests and debugging)."""
    if table.header:
        yield from table.header
    for row in table.rows:
        yield from row
