"""A row's description: plain text in which only ``[text](url)`` is a link.

Maintainers write descriptions the way their README does, with inline Markdown links
(``see [the recipe](https://...)``).  Data files come from pull requests, so nothing
else of Markdown means anything here: emphasis, images, raw HTML, autolinks and
reference links stay literal text, and a link whose target the one URL policy
(:func:`~sphinx_rlresources.core.urls.safe_url`) refuses stays literal too, brackets
and all, so the reader sees what was written.  Each front end draws the runs with its
own escaping; none re-parses the text.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from sphinx_rlresources.core.urls import WEB_SCHEMES, safe_url

_LINK = re.compile(r"\[([^\[\]\n]{1,200})\]\(([^()\s]{1,2000})\)")
"""``[text](url)``: no nested brackets in the text, no parentheses or spaces in the target
(no title); bounded, and linear: neither part can overlap the other."""


class Run(NamedTuple):
    """A stretch of a description: its text, and the target when it is a link."""

    text: str
    url: str | None = None


def runs(text: str) -> tuple[Run, ...]:
    """The description as runs of plain text and links, in order; adjacent plain runs are merged."""
    found: list[Run] = []
    plain = ""
    at = 0
    for match in _LINK.finditer(text):
        url = match.group(2)
        target = safe_url(url) if url.startswith(WEB_SCHEMES) else None
        if target is None:  # not a web link: the whole of it is shown as written
            continue
        plain += text[at : match.start()]
        if plain:
            found.append(Run(plain))
        found.append(Run(match.group(1), target))
        plain = ""
        at = match.end()
    plain += text[at:]
    if plain:
        found.append(Run(plain))
    return tuple(found)


def plain_text(text: str) -> str:
    """What the description reads as without its links' targets (the link texts stay)."""
    return "".join(run.text for run in runs(text))
