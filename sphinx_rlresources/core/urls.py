"""The one URL policy: which link targets any output may carry, and the script URL template.

Every front end (the HTML table, the JSON export, ``rlresources render`` for reST and
Markdown, and through the doctree the man, LaTeX and text builders) asks
:func:`safe_url` before it emits a link, and :func:`script_url` for the Link column.
Data files come from pull requests, so a rule kept in one place cannot drift: when
three copies existed they differed, and the laxest one decided what got through.
"""

from __future__ import annotations

import re
import string
from pathlib import PurePath
from typing import TYPE_CHECKING

from sphinx_rlresources.safe.text import one_line

if TYPE_CHECKING:
    from sphinx_rlresources.core.model import DataSet, Entry

SAFE_SCHEMES = ("http://", "https://", "mailto:")
"""The only schemes a link may use; ``javascript:``, ``data:`` and relative targets never are."""

WEB_SCHEMES = ("http://", "https://")
"""What a URL template (and any setting that names a web page) must start with."""

_UNSAFE = re.compile(r"[\s<>`\"'|\\]")
"""Characters no real URL needs that are markup somewhere: ``<>`` end a reST or HTML link,
a backtick ends reST inline markup, quotes end an attribute, ``|`` is a Markdown cell
border, a backslash is a roff escape in man pages, and whitespace splits a target."""


_MAILTO = re.compile(r"mailto:[A-Za-z0-9._+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
"""A ``mailto:`` link holds one address and nothing else: no ``?subject=``/``&body=`` that
would fill in a reader's mail, no ``%``-escapes, no second recipient."""


def safe_url(url: str | None) -> str | None:
    """``url`` when every output may link it, else None (the text is then shown unlinked)."""
    if not url or not url.startswith(SAFE_SCHEMES) or not url.isprintable() or _UNSAFE.search(url):
        return None
    if url.startswith("mailto:") and not _MAILTO.fullmatch(url):
        return None
    return url


TEMPLATE_FIELDS = ("path", "ref")
"""The fields a URL template may name, each written plainly: ``{path}``, ``{ref}``."""

_RELATIVE = re.compile(r"^\.\.?/[A-Za-z0-9._+/-]+$")
"""A relative link as ``sync --relative-links`` writes it: ``./`` or ``../`` first (so no part can read as
a scheme), then only characters no markup gives a meaning to."""


def safe_relative(path: str | None) -> str | None:
    """``path`` when it is a plain relative link (``./examples/x.sh``, ``../x.sh``), else None."""
    if not path or not _RELATIVE.match(path) or "//" in path:
        return None
    return path


def relative_link(from_folder: str, path: str) -> str | None:
    """The link from a file in ``from_folder`` to ``path`` (both from the root, POSIX), as GitHub reads it."""
    here = [part for part in from_folder.split("/") if part]
    there = [part for part in path.split("/") if part]
    common = 0
    while common < min(len(here), len(there) - 1) and here[common] == there[common]:
        common += 1
    steps = [".."] * (len(here) - common) or ["."]
    return safe_relative("/".join(steps + there[common:]))


def url_template_problem(template: str) -> str | None:
    """Why a script URL template is unusable, or None.

    Checked once at start-up (``config-inited``, the CLI's flags), so a template that
    could only ever produce refused URLs is reported, not silently dropped per row.
    """
    if not template.startswith(WEB_SCHEMES):
        return "must start with https:// or http://"
    bad = _UNSAFE.search(template) or (None if template.isprintable() else True)
    if bad:
        shown = repr(bad.group(0)) if isinstance(bad, re.Match) else "a control character"
        return f"holds {shown}, which no link may contain (every URL it made would be dropped)"
    try:
        parts = [(name, spec, conversion) for _, name, spec, conversion in string.Formatter().parse(template)]
    except ValueError as err:
        return f"is not a valid template ({err})"
    fields = {name for name, _, _ in parts if name is not None}
    unknown = fields - set(TEMPLATE_FIELDS)
    if unknown:
        return f"uses {', '.join('{' + f + '}' for f in sorted(unknown))}; only {{path}} and {{ref}} are filled"
    styled = next(
        (f"{{{name}{'!' + c if c else ''}{':' + spec if spec else ''}}}" for name, spec, c in parts if spec or c), None
    )
    if styled:
        return (
            f"formats a field ({one_line(styled, 40)}); write {{path}} and {{ref}} plainly, without '!' or ':' "
            "(a format could pad every link to any length, or fail on a path)"
        )
    if "path" not in fields:
        return "has no {path}"
    return None


def script_url(template: str | None, ref: str, script: str) -> str | None:
    """The Link column's target for a script path at ``ref``: the filled template, if it is safe."""
    if not template:
        return None
    return safe_url(template.format(ref=ref, path=PurePath(script).as_posix()))


def row_script_url(
    dataset: DataSet, entry: Entry, template: str | None, ref: str, link_from: str | None = None
) -> str | None:
    """A row's script link: at the row's ``script_ref`` (else ``ref``), and only if the script exists.

    With ``link_from`` (the folder, from the root, of the Markdown file being written), a
    script in the working tree is linked relatively, as a README links its own files.
    """
    if entry.script not in dataset.linkable:
        return None  # reported by the checks; a link would lead to a missing file
    if link_from is not None and entry.script_ref is None and entry.script in dataset.scripts:
        return relative_link(link_from, entry.script)  # a file of this tree, linked from a file beside it
    return script_url(template, entry.script_ref or ref, entry.script)
