"""Reading a hand-written Markdown page for ``rlresources import``: headings, tables, link definitions.

READMEs and MkDocs or MyST pages hold their tables as GitHub pipe tables, or, in MyST,
as a ``{list-table}`` directive in a fence.  This reader finds the same parts
:func:`~sphinx_rlresources.cli.pageread.parse_page` finds on a reST page (headings with
the size they name, each table under them with its page lines, the targets of
reference links), so the importer reads both alike.  Line by line and linear; fenced
code and HTML comments are skipped, as a reader never sees them as tables.
"""

from __future__ import annotations

import re

from sphinx_rlresources.cli.pageread import Cell, Heading, Page, Table, list_table, norm_ref
from sphinx_rlresources.safe.sizes import heading_size

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,}|:{3,})[ \t]*(?:\{([\w-]+)\})?")
_DELIMITER = re.compile(r"^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_DEFINITION = re.compile(r"^ {0,3}\[([^\]]{1,200})\]:[ \t]*<?([^\s<>]+)>?")
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def split_row(line: str) -> list[str]:
    """A pipe-table line's cells: split at each unescaped ``|``, the outer pipes dropped (GFM)."""
    cells: list[str] = []
    current: list[str] = []
    escaped = False
    for char in line.strip():
        if char == "|" and not escaped:
            cells.append("".join(current))
            current = []
        else:
            current.append(char)
        escaped = char == "\\" and not escaped
    cells.append("".join(current))
    if line.strip().startswith("|"):
        cells = cells[1:]
    if line.strip().endswith("|") and not line.strip().endswith("\\|") and cells:
        cells = cells[:-1]
    return [cell.strip() for cell in cells]


def unescape(text: str) -> str:
    """A cell's text with Markdown's backslash escapes resolved (``\\|`` is ``|``)."""
    return _ESCAPED.sub(r"\1", text.strip())


def _pipe_table(lines: list[str], start: int) -> tuple[Table, int] | None:
    """The pipe table whose header is line ``start`` (0-based), or None if none starts there."""
    if start + 1 >= len(lines) or "|" not in lines[start] + lines[start + 1]:
        return None
    if not _DELIMITER.match(lines[start + 1]):
        return None
    names = split_row(lines[start])
    if len(names) != len(split_row(lines[start + 1])):
        return None  # GFM: not a table when the delimiter row's cells differ from the header's
    header = [Cell(unescape(name), start + 1) for name in names]
    rows: list[list[Cell]] = []
    end = start + 2
    while end < len(lines) and lines[end].strip() and "|" in lines[end]:
        rows.append([Cell(unescape(text), end + 1) for text in split_row(lines[end])])
        end += 1
    return Table(start + 1, "pipe table", header, rows), end


def _fence_end(lines: list[str], start: int, marker: str) -> int:
    """The index of the line that closes the fence opened at ``start`` (or the page's end)."""
    closing = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$")
    end = start + 1
    while end < len(lines) and not closing.match(lines[end]):
        end += 1
    return end


def _heading(lines: list[str], i: int) -> tuple[str, int, int] | None:
    """(title, level, lines used) of an ATX or setext heading at line ``i``, or None."""
    atx = _ATX.match(lines[i])
    if atx:
        return (atx.group(2) or "").strip(), len(atx.group(1)), 1
    if (
        i + 1 < len(lines)
        and lines[i].strip()
        and not lines[i].startswith((" " * 4, "\t"))
        and "|" not in lines[i]
        and _SETEXT.match(lines[i + 1])
        and (i == 0 or not lines[i - 1].strip())
    ):
        return lines[i].strip(), 1 if lines[i + 1].strip()[0] == "=" else 2, 2
    return None


def parse_markdown(text: str) -> Page:
    """Find the headings (with their sizes), the tables under them and the reference-link targets."""
    lines = text.splitlines()
    page = Page(lines, markup="markdown")
    stack: list[Heading] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            end = _fence_end(lines, i, fence.group(1))
            if fence.group(2) == "list-table":  # MyST: the reST list-table's body in a fence
                fenced, _ = list_table(lines[:end], i + 1, -1, page)
                page.tables.append((fenced, list(stack)))
            i = end + 1
            continue
        if line.lstrip().startswith("<!--"):
            while i < len(lines) and "-->" not in lines[i]:
                i += 1
            i += 1
            continue
        definition = _DEFINITION.match(line)
        if definition:
            page.targets[norm_ref(definition.group(1))] = definition.group(2)
            i += 1
            continue
        piped = _pipe_table(lines, i)
        if piped is not None:
            page.tables.append((piped[0], list(stack)))
            i = piped[1]
            continue
        heading = _heading(lines, i)
        if heading is not None:
            title, level, used = heading
            while stack and stack[-1].level >= level:
                stack.pop()
            found = Heading(title, i + 1, level, heading_size(title))
            page.headings.append(found)
            stack.append(found)
            i += used
            continue
        i += 1
    return page
