"""What a text value from the data may hold, and how one that slipped past is shown.

Readers must see what the data says.  Line and paragraph separators (which reST and
docutils treat as line breaks), bidirectional overrides and isolates (``U+202E`` shows
``gnp.exe`` as ``exe.png``), zero-width and other invisible characters are therefore
refused in every text field of a data file: the JSON Schema's text patterns hold
exactly :data:`UNSEEN_CLASS` (``tests/test_untrusted_text.py`` checks that they agree),
and :func:`unseen_character` explains a refusal.  As a second line of defence every
output that writes text itself (``rlresources render``, the drawn table) passes it
through :func:`visible`, which shows any such character as its code point.
"""

from __future__ import annotations

import json
import re
import unicodedata

_BEYOND_C0 = "\\u007f-\\u009f\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u206f\\ufeff\\ufff9-\\ufffb"
UNSEEN_CLASS = "\\u0000-\\u001f" + _BEYOND_C0
"""C0 and C1 controls, the soft hyphen, the Arabic letter mark, zero-width characters and
direction marks, line and paragraph separators, bidi embeddings, overrides and
isolates, invisible operators, the byte-order mark and the interlinear annotations,
as a regular-expression character class (the schema's patterns spell the same)."""

_UNSEEN = re.compile("[" + UNSEEN_CLASS + "]")
_BREAKS = "\x0a\x0b\x0c\x0d\x1c\x1d\x1e\x85\u2028\u2029"


def unseen_character(value: str) -> str | None:
    """Why ``value`` would read differently from what it holds (its first such character), or None."""
    found = _UNSEEN.search(value)
    if found is None:
        return None
    char = found.group()
    where = f"U+{ord(char):04X} ({unicodedata.name(char, 'a control character')}) at character {found.start() + 1}"
    if char in _BREAKS or ord(char) < 32 or ord(char) == 127:
        return f"contains a line break or another control character, {where}; keep it on one line"
    return (
        f"holds {where}, an invisible or direction-changing character that makes the text show differently "
        "from what it says; delete it (retype the value if you cannot see it)"
    )


def visible(text: str) -> str:
    """``text`` with every unseen character shown as ``<U+202E>``: what it holds, never how it would render."""
    if not _UNSEEN.search(text):
        return text
    return _UNSEEN.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)


MAX_SHOWN = 60
"""The most characters of a name or value one message quotes (docs/security.rst promises it)."""
MAX_LOCATION = 300
"""The most characters of a file path shown as a message's location."""


IGNORABLE_CLASS = (
    "\\u034f\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u3164\\ufe00-\\ufe0f\\uffa0\\ufff0-\\ufff8"
    "\\U0001bca0-\\U0001bca3\\U0001d173-\\U0001d17a\\U000e0000-\\U000e0fff"
)
"""The default-ignorable characters :data:`UNSEEN_CLASS` leaves out (variation selectors,
fillers, tags): a comparison by culture, as the CI runner's may be, skips them, so
``#<U+FE0F>#[`` can read as ``##[`` to it."""

_SKIP = "[" + UNSEEN_CLASS + IGNORABLE_CLASS + "]"
_LEGACY_COMMAND = re.compile(f"#{_SKIP}*#{_SKIP}*\\[")
_LEADING_COMMAND = re.compile(f"^(?:\\s|{_SKIP})*:{_SKIP}*:")
_HIDDEN = re.compile(f"{_SKIP}|[^\\S\\t ]")


def _escaped(char: str) -> str:
    """One character as its escape: ``\\x1b``, ``\\u202e``, ``\\U000e0041``; ``#`` and ``:`` as ``\\x23``, ``\\x3a``."""
    if char in "#:":
        return f"\\x{ord(char):02x}"
    return char.encode("unicode_escape").decode("ascii")


def _defused(found: re.Match[str], key: str) -> str:
    """A workflow command's marker, its ``key`` character (the second ``#``, the first ``:``) escaped,
    and every blank or ignorable character inside it that is not a plain space."""
    text = found.group()
    at = text.index(key, 1 if key == "#" else 0)
    return "".join(_escaped(c) if i == at or (c != " " and _HIDDEN.match(c)) else c for i, c in enumerate(text))


def no_commands(text: str, starts_line: bool = True) -> str:
    """``text`` unable to hold a workflow command of a CI runner: the one rule for every output line.

    GitHub's runner reads a line as a command when, after its leading blanks, it starts
    with ``::`` (``::error file=…::``, ``::add-mask::``, ``::stop-commands::``), and also
    when ``##[`` stands *anywhere* in it (the legacy ``##[error]…``, ``##[set-output …]``).
    Both are escaped visibly, in the style of a control character: the second ``#`` of
    ``##[`` is shown as ``\\x23`` and the first ``:`` of a leading ``::`` as ``\\x3a``,
    with any ignorable character (:data:`IGNORABLE_CLASS`, :data:`UNSEEN_CLASS`) between
    them escaped too.  Text is never dropped.  ``starts_line=False`` is for text that
    goes after something else on its line (a quoted value, a path after :func:`safe_start`),
    where ``::`` is plain text and a path keeps naming its file.
    """
    if "#" in text:
        text = _LEGACY_COMMAND.sub(lambda found: _defused(found, "#"), text)
    if starts_line and ":" in text:
        text = _LEADING_COMMAND.sub(lambda found: _defused(found, ":"), text, count=1)
    return text


def output_line(line: str) -> str:
    """One line as it may leave the tool on a terminal or a CI log (the commands' output streams).

    Every control character but a tab, and every unseen one, is escaped (the line has
    no line break of its own, a terminal is given no ESC or BEL), then
    :func:`no_commands` holds.  Text already quoted through :func:`one_line` passes
    unchanged.
    """
    if not (line.isascii() and line.isprintable() and "##" not in line and "::" not in line):
        line = _UNSEEN.sub(lambda found: found.group() if found.group() == "\t" else _escaped(found.group()), line)
        line = no_commands(line)
    return line


def json_text(value: object, indent: int | None = 2) -> str:
    """``value`` as JSON, non-ASCII text as it is, but never a character a terminal acts on or hides.

    ``json.dumps(ensure_ascii=False)`` leaves DEL, the C1 controls, bidirectional
    overrides and other unseen characters raw (the text output escapes them); here each
    is written as its ``\\uXXXX`` escape, as is the second ``#`` of ``##[``
    (:func:`no_commands`).  A JSON reader gets back exactly the same value.
    """
    return json_escaped(json.dumps(value, indent=indent, ensure_ascii=False))


_JSON_HIDDEN = re.compile(f"[{_BEYOND_C0}{IGNORABLE_CLASS}]")
"""The characters :func:`json_escaped` escapes: not the C0 controls, which JSON escapes itself (a raw
line break in JSON text is its indentation's)."""


def json_escaped(dumped: str) -> str:
    """JSON text from ``json.dumps`` or the export's writer, with :func:`json_text`'s escapes.

    Every character it escapes can only stand inside a JSON string, so the result is
    JSON that reads back as the same value.
    """
    if "##[" in dumped:  # '#<U+200B>#[' becomes '#\\u200b#[' below: its escape keeps the two apart
        dumped = dumped.replace("##[", "#\\u0023[")
    if dumped.isascii():  # most data: only DEL can hide here, and one pass finds it
        return dumped.replace("\x7f", "\\u007f") if "\x7f" in dumped else dumped
    return _JSON_HIDDEN.sub(lambda found: _json_escape(found.group()), dumped)


def _json_escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def one_line(text: str, limit: int = 0) -> str:
    """``text`` with every control, line-break and unseen character escaped (``\\n``, ``\\x1b``, ``\\u202e``).

    What it returns is printable and holds no line break, so it can neither forge a log
    line nor move a terminal's cursor, nor hold a ``##[`` workflow command
    (:func:`no_commands`; a ``::`` at the start of a line is the line's business).
    ``limit`` (0: none) cuts it to that many characters, ending in ``…``.
    """
    if not (text.isprintable() and not _UNSEEN.search(text)):
        text = "".join(
            c if c.isprintable() and not _UNSEEN.match(c) else c.encode("unicode_escape").decode("ascii") for c in text
        )
    text = no_commands(text, starts_line=False)
    if limit and len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def shown(value: object, limit: int = MAX_SHOWN, quote: str = "'") -> str:
    """A name or value from a data file, a script or a page, as every message quotes it: ``'value'``.

    The one way untrusted text enters a message: escaped by :func:`one_line` and cut to
    ``limit`` characters, so a 40,000-character cell costs a message 60.  ``quote=""``
    is for a name a message shows bare (``$NAME``, ``NAME=...``), under the same cap.
    """
    return quote + one_line(str(value), limit) + quote


def safe_start(text: str) -> str:
    """``text`` made unable to begin a line that a machine reads as a command.

    A line of our output that starts with ``::`` is a GitHub Actions workflow command
    (``::error file=…::``), and one that starts with ``-``, ``+`` or ``@`` can read as a
    diff or an option.  A path or name that does not start with a letter, a digit, ``.``,
    ``_`` or ``/`` is shown as ``./NAME``, which names the same file.
    """
    if text and not (text[0].isalnum() or text[0] in "._/"):
        return "./" + text
    return text
