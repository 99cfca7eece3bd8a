"""Where a Markdown file keeps its tables: the blocks between ``rl-resource-table`` markers.

::

    <!-- rl-resource-table 7b :columns: tag, model, resource :sort: -resource -->
    ...the table, written by rlresources sync...
    <!-- /rl-resource-table -->

HTML comments, because GitHub, MkDocs and Docusaurus all hide them, so the markers
never show.  The file is read line by line, not through a Markdown parser: nothing
outside a block may change by a byte, so the file's own text (line endings, a missing
final newline, a byte-order mark) is kept as offsets into it, and only the text between
a block's two marker lines is ever replaced.  Fenced code is followed, because a marker
inside a fence is an example, not a place to write; it is reported, never synced.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sphinx_rlresources.safe.text import shown

NAME = "rl-resource-table"
OPEN_HINT = f"<!-- {NAME} SIZE :option: value -->"
CLOSE = f"<!-- /{NAME} -->"

_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
_MARKER = re.compile(r"(?P<indent>[ \t]*)<!--\s*(?P<slash>/?)" + re.escape(NAME) + r"(?=\s|-->|$)")
_FENCE = re.compile(r"(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)")
_COMMENT_WORD = re.compile(r"[ \t]*<!--\s*/?\s*(?P<word>[A-Za-z][\w.:/-]{0,40})")
NEAR = 2
"""How many letters a comment's first word may differ from the marker's name and still be a marker mistyped."""
_OPTION = re.compile(r"(?:(?<=\s)|^):(?P<name>[A-Za-z][\w-]*):(?=\s|$)")


@dataclass(frozen=True)
class Problem:
    """A marker that cannot be synced, at its 1-based line and column."""

    line: int
    column: int
    message: str
    kind: str = "marker"
    """``marker`` (pairing, fences, syntax) or ``option`` (an option's name or value)."""


@dataclass(frozen=True)
class Value:
    """A word of the opening marker: the size or an option's value, with where it starts."""

    text: str
    line: int
    column: int


@dataclass(frozen=True)
class Option:
    """``:columns: tag, model``: the option's name as written and its value (words joined by a space)."""

    name: Value
    value: Value


@dataclass
class Block:
    """One pair of markers: what the opening one asks for and the span of text between them."""

    line: int
    """The opening marker's line (1-based), where every finding about the block points."""
    size: Value | None
    options: dict[str, Option] = field(default_factory=dict)
    """By the option's name without its colons (``columns``)."""
    start: int = 0
    """Offset of the first character after the opening marker's line (and its line ending)."""
    end: int = 0
    """Offset of the closing marker's line: the block's text is ``text[start:end]``."""
    newline: str = "\n"
    """The opening marker line's ending, which the written table uses too (CRLF stays CRLF)."""


@dataclass
class Scan:
    """Every block of a file, and every marker that is not usable."""

    blocks: list[Block] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


@dataclass
class _Line:
    number: int
    start: int
    text: str
    """Without its line ending."""
    ending: str


def lines_of(text: str) -> list[_Line]:
    """The file's lines with their offsets; only ``\\n`` ends a line (a ``\\r`` before it is its ending)."""
    found = []
    for number, match in enumerate(_LINE.finditer(text), start=1):
        raw = match.group()
        body = raw[:-1] if raw.endswith("\n") else raw
        ending = raw[len(body) :]
        if body.endswith("\r") and ending:
            body, ending = body[:-1], "\r\n"
        found.append(_Line(number, match.start(), body, ending))
    return found


def _distance(one: str, other: str) -> int:
    """Edits (insert, delete, replace) between two short words; only called on words of 60 characters or less."""
    before = list(range(len(other) + 1))
    for i, char in enumerate(one, start=1):
        now = [i]
        for j, wanted in enumerate(other, start=1):
            now.append(min(before[j] + 1, now[j - 1] + 1, before[j - 1] + (char != wanted)))
        before = now
    return before[-1]


def near_miss(text: str) -> tuple[int, str] | None:
    """A comment that is almost a marker (``RL-Resource-Table``, ``rl-resource-tabel``): its column and the fix.

    Silence would be worse than a false start: a block whose marker is mistyped is never
    synced, so ``sync --check`` would pass over a table edited by hand.
    """
    found = _COMMENT_WORD.match(text)
    if found is None:
        return None
    word = found.group("word").rstrip(":/")
    if abs(len(word) - len(NAME)) > NEAR or _distance(word.lower(), NAME) > NEAR:
        return None
    what = (
        f"this comment names {NAME} but is no marker (a space after '/', or a character right after the name)"
        if word == NAME
        else f"{shown(word)} is not the marker name {NAME}, so this comment is no marker"
    )
    return found.start("word") + 1, (
        f"{what}: its table is never synced or checked; write {OPEN_HINT} and {CLOSE} exactly "
        "(lowercase, no space after '/')"
    )


def _fence_closes(line: str, fence: str) -> bool:
    """Whether ``line`` closes ``fence``: the same character, at least as many, and no info string."""
    match = _FENCE.fullmatch(line.rstrip())
    return bool(
        match
        and not match.group("info").strip()
        and match.group("fence")[0] == fence[0]
        and len(match.group("fence")) >= len(fence)
    )


def _fence_opens(line: str) -> str | None:
    match = _FENCE.fullmatch(line)
    if match is None or (match.group("fence")[0] == "`" and "`" in match.group("info")):
        return None
    return match.group("fence")


def scan(text: str) -> Scan:  # noqa: C901 - a line scanner: one state machine over the file
    """The blocks of a Markdown file, and a located problem for each marker that cannot be used."""
    result = Scan()
    lines = lines_of(text)
    first = lines[0].text if lines else ""
    if first.startswith("\ufeff"):  # a byte-order mark stays in the file but is no part of the first line
        lines[0].text = first[1:]
        lines[0].start += 1
    fence: tuple[str, int] | None = None  # the open fence and its line
    current: Block | None = None
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if current is None and fence is not None:
            if _fence_closes(line.text, fence[0]):
                fence = None
            elif _MARKER.match(line.text.lstrip()):
                result.problems.append(
                    Problem(
                        line.number,
                        len(line.text) - len(line.text.lstrip()) + 1,
                        f"an {NAME} marker inside the code fence opened at line {fence[1]} is never synced "
                        "(Markdown shows it as code); move it out of the fence",
                    )
                )
            continue
        marker = _MARKER.match(line.text)
        if marker is None:
            if current is None and (opened := _fence_opens(line.text)):
                fence = (opened, line.number)
            elif (miss := near_miss(line.text)) is not None:
                result.problems.append(Problem(line.number, miss[0], miss[1]))
            continue
        column = len(marker.group("indent")) + 1
        if len(marker.group("indent").expandtabs(4)) > 3:
            result.problems.append(
                Problem(
                    line.number,
                    column,
                    f"an {NAME} marker indented by 4 or more spaces is code to Markdown and is never synced; "
                    "start it at the beginning of the line",
                )
            )
            continue
        if marker.group("slash"):
            if current is None:
                result.problems.append(
                    Problem(line.number, column, f"{CLOSE} closes no block; add {OPEN_HINT} above it, or delete it")
                )
            else:
                current.end = line.start
                result.blocks.append(current)
                current = None
            continue
        if current is not None:
            result.problems.append(
                Problem(
                    current.line,
                    1,
                    f"the block opened here is not closed before the next {NAME} marker at line {line.number}; "
                    f"add {CLOSE} after its table",
                )
            )
        current, index = _opening(lines, index - 1, marker.end(), result.problems)
    if current is not None:
        result.problems.append(
            Problem(current.line, 1, f"the block opened here is never closed; add {CLOSE} after its table")
        )
    return result  # an unclosed fence runs to the end of the file, as in CommonMark: no error on its own


def _opening(lines: list[_Line], at: int, after: int, problems: list[Problem]) -> tuple[Block | None, int]:
    """The block an opening marker starts (its comment may span lines), and the index of the line after it."""
    pieces: list[tuple[_Line, int, str]] = []  # (line, column offset, text) of the comment's words
    index = at
    offset = after
    while index < len(lines):
        line = lines[index]
        end = line.text.find("-->", offset)
        pieces.append((line, offset, line.text[offset:] if end < 0 else line.text[offset:end]))
        index += 1
        if end >= 0:
            trailing = line.text[end + 3 :].strip()
            if trailing:
                problems.append(
                    Problem(
                        line.number,
                        end + 4,
                        f"text after the marker's '-->' ({shown(trailing)}) would be lost; put it on a line of its own",
                    )
                )
                return None, index
            block = _parse_words(lines[at].number, pieces, problems)
            if block is not None:
                block.start = line.start + len(line.text) + len(line.ending)
                block.newline = line.ending or "\n"
            return block, index
        offset = 0
    problems.append(Problem(lines[at].number, 1, f"the {NAME} marker's comment is never closed with '-->'"))
    return None, len(lines)


def _parse_words(number: int, pieces: list[tuple[_Line, int, str]], problems: list[Problem]) -> Block | None:  # noqa: C901 - one marker comment's grammar, word by word
    """The size and the ``:option: value`` pairs of an opening marker, each with its place."""
    words: list[Value] = []  # the comment's text, word by word, to find options across lines
    for line, offset, text in pieces:
        for match in re.finditer(r"\S+", text):
            words.append(Value(match.group(), line.number, offset + match.start() + 1))
    if not words or _OPTION.fullmatch(words[0].text):
        where = words[0] if words else Value("", number, 1)
        problems.append(
            Problem(where.line, where.column, f"the marker names no size; write {OPEN_HINT} (a size, or all)")
        )
        return None
    block = Block(number, words[0])
    name: Value | None = None
    values: list[Value] = []
    ok = True
    for word in [*words[1:], None]:
        if word is not None and not _OPTION.fullmatch(word.text):
            if name is None:
                problems.append(
                    Problem(
                        word.line,
                        word.column,
                        f"{shown(word.text)} follows the size but is no :option:; a marker takes one size, "
                        "then options such as :columns: tag, model",
                        "option",
                    )
                )
                return None
            values.append(word)
            continue
        if name is not None:
            key = name.text.strip(":").lower()
            if key in block.options:
                problems.append(Problem(name.line, name.column, f"{name.text} is given twice", "option"))
                ok = False
            elif not values:
                problems.append(Problem(name.line, name.column, f"{name.text} has no value", "option"))
                ok = False
            else:
                value = Value(" ".join(v.text for v in values), values[0].line, values[0].column)
                block.options[key] = Option(name, value)
        if word is not None:
            name, values = word, []
    return block if ok else None
