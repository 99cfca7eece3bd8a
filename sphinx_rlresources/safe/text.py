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

import re
import unicodedata

UNSEEN_CLASS = (
    "\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u206f"
    "\\ufeff\\ufff9-\\ufffb"
)
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


def one_line(text: str, limit: int = 0) -> str:
    """``text`` with every control, line-break and unseen character escaped (``\\n``, ``\\x1b``, ``\\u202e``).

    What it returns is printable and holds no line break, so it can neither forge a log
    line nor move a terminal's cursor.  ``limit`` (0: none) cuts it to that many
    characters, ending in ``…``.
    """
    if not (text.isprintable() and not _UNSEEN.search(text)):
        text = "".join(
            c if c.isprintable() and not _UNSEEN.match(c) else c.encode("unicode_escape").decode("ascii") for c in text
        )
    if limit and len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def shown(value: object, limit: int = MAX_SHOWN) -> str:
    """A name or value from a data file, a script or a page, as every message quotes it: ``'value'``.

    The one way untrusted text enters a message: escaped by :func:`one_line` and cut to
    ``limit`` characters, so a 40,000-character cell costs a message 60.
    """
    return "'" + one_line(str(value), limit) + "'"


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
