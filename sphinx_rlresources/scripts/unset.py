"""The finding for an argument built from a variable the script never sets, said the same way by every adapter.

A hostile word can name thousands of unset variables; the reader reports the first
:data:`~.shell.MAX_REPORTED_UNSET` uses and one more finding counts the rest, so the
report stays as short as a real script's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from sphinx_rlresources.safe.text import shown
from sphinx_rlresources.scripts.expand import MAX_MISSING, Field
from sphinx_rlresources.scripts.shell import MAX_REPORTED_UNSET


class More(NamedTuple):
    """The uses not listed: how many, the line of the first, and whether a value kept only some of its names."""

    uses: int = 0
    line: int = 0
    at_least: bool = False


def unset_uses(fields: Iterable[tuple[Field, str]]) -> tuple[list[tuple[Field, str, str]], More]:
    """(field, key, unset name) for each use to report, and the rest as one count."""
    listed: list[tuple[Field, str, str]] = []
    rest, rest_line, at_least = 0, 0, False
    for field, key in fields:
        if not field.missing:  # most fields use no unset variable
            continue
        at_least = at_least or len(field.missing) >= MAX_MISSING
        for name in sorted(field.missing):
            if len(listed) < MAX_REPORTED_UNSET:
                listed.append((field, key, name))
            else:
                rest_line = rest_line or field.line
                rest += 1
    return listed, More(rest, rest_line, at_least)


def unset_message(field: Field, missing: str) -> str:
    name = shown(missing, quote="")  # a script may name a 60 kB variable: quoted with the one cap
    return (
        f"{shown(field.word.raw)} uses ${name}, which the script does not set before this line "
        f"(nor is it a usual environment variable); set {name}=... in the script, "
        f"or write ${{{name}:-default}} if it is meant to come from the environment"
    )


def more_message(more: More) -> str:
    return (
        f"{'at least ' if more.at_least else ''}{more.uses} more uses of variables the script does not set are "
        f"not listed (the first {MAX_REPORTED_UNSET} are); set each in the script, or write "
        "${NAME:-default} where it is meant to come from the environment"
    )
