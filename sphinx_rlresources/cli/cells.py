"""Reading one cell of a hand-written table: links, resources, engines, contributors.

A cell is either read whole or reported (:class:`CellError`); nothing is guessed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote, urlsplit

from sphinx_rlresources.cli.pageread import Cell, Finding, Page, norm_ref
from sphinx_rlresources.core.paths import is_file

_LINK = re.compile(r"^`(?P<text>[^`<]*?)\s*<(?P<target>[^<>`]+)>`__?$")
_REF = re.compile(r"^(?:`(?P<quoted>[^`<]+)`|(?P<word>[\w.+-]+))__?$")
_DOWNLOAD = re.compile(r"^:download:`(?:(?P<text>[^`<]*?)\s*<(?P<target>[^<>`]+)>|(?P<plain>[^`<>]+))`$")
_RESOURCE = re.compile(r"^(\d+)\s*[*x×]\s*([A-Za-z0-9][A-Za-z0-9.+-]*)$")
_INFER = re.compile(r"^([A-Za-z][A-Za-z-]*?[A-Za-z])-?v?(\d[0-9A-Za-z.+-]*)?$")
_EMAIL_PART = re.compile(r"[^@\s<>\"():;,]+")
MAX_CELL = 4096
"""A longer cell is not read: no value of a row is that long, and every pattern stays linear."""
_COMMIT = re.compile(r"[0-9a-f]{7,40}")
_GITHUB_USER = re.compile(r"^https?://github\.com/([A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38})/?$")


class CellError(Exception):
    """Why one cell could not be carried over."""


def is_email(text: str) -> bool:
    """``name@host.tld``, checked part by part: a single pattern over the whole text backtracks
    quadratically on ``a@a.a.a…@``."""
    local, at, domain = text.partition("@")
    if not at or not _EMAIL_PART.fullmatch(local) or not _EMAIL_PART.fullmatch(domain):
        return False
    host, dot, tld = domain.rpartition(".")
    return bool(dot and host and tld)


@dataclass
class Link:
    text: str
    target: str | None


_MD_LINK = re.compile(r"^\[(?P<text>[^\[\]]*)\]\((?P<target>[^()\s<>]+|<[^<>\n]+>)(?:\s+\"[^\"]*\")?\)$")
_MD_REF = re.compile(r"^\[(?P<text>[^\[\]]+)\]\[(?P<ref>[^\[\]]*)\]$")
_MD_AUTOLINK = re.compile(r"^<(?P<target>(?:https?|mailto):[^<>\s]+)>$")


def read_md_link(text: str, targets: dict[str, str]) -> Link:
    """The text and target of a Markdown cell that holds one link (``[text](url)``, ``[text][ref]``,
    ``<url>``), or plain text."""
    match = _MD_LINK.match(text)
    if match:
        return Link(match.group("text").strip() or match.group("target"), match.group("target").strip("<>"))
    match = _MD_REF.match(text)
    if match:
        name = match.group("ref") or match.group("text")
        target = targets.get(norm_ref(name))
        if target is None:
            raise CellError(f"the link '{text}' names no link definition on the page")
        return Link(match.group("text").strip(), target)
    match = _MD_AUTOLINK.match(text)
    if match:
        return Link(match.group("target"), match.group("target"))
    shortcut = targets.get(norm_ref(text[1:-1])) if text.startswith("[") and text.endswith("]") else None
    if shortcut is not None:
        return Link(text[1:-1].strip(), shortcut)
    if re.match(r"^https?://\S+$", text):
        return Link(text, text)
    if "](" in text:
        raise CellError(f"'{text}' is not one link this command can read")
    return Link(_MD_CODE.sub(r"\1", text), None)


_MD_CODE = re.compile(r"`([^`]+)`")


def link_of(text: str, page: Page) -> Link:
    """The one link (or plain text) of a cell, in the page's markup."""
    return read_md_link(text, page.targets) if page.markup == "markdown" else read_link(text, page.targets)


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
        target = targets.get(norm_ref(name))
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
    if page.markup == "markdown":
        return _md_plain_text(text, page)
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


_MD_INLINE = re.compile(r"`([^`]+)`|\*\*(.+?)\*\*|__(.+?)__|\*(.+?)\*|(?<!\w)_(.+?)_(?!\w)")


def _md_plain_text(text: str, page: Page) -> tuple[str, list[str]]:
    """A Markdown cell's words: code spans and emphasis unwrapped, a link's target reported as lost."""
    lost = []
    if text.startswith(("[", "<")):
        link = read_md_link(text, page.targets)
        if link.target:
            lost.append(f"the link to '{link.target}' in '{text}' is not carried over (this column holds plain text)")
        text = link.text
    text = _MD_INLINE.sub(lambda m: next(g for g in m.groups() if g is not None), text)
    if "](" in text or "<" in text:
        raise CellError(f"'{text}' holds Markdown links or HTML this column cannot keep")
    return text, lost


@dataclass
class ScriptLink:
    path: str
    template: str | None = None
    ref: str | None = None
    tree: bool = False
    """The URL used GitHub's folder view (``/tree/``) for a file."""
    line: int = 0
    """The page line of the cell the link is in."""

    @property
    def pinned(self) -> str | None:
        """The ref, when it is a commit (7 to 40 hex digits) rather than a branch or tag."""
        return self.ref if self.ref and _COMMIT.fullmatch(self.ref) else None


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
            if is_file(root.joinpath(*rest[k:])):  # a segment over 255 bytes is simply no file
                split = k
                break
    ref, path = "/".join(rest[:split]), "/".join(rest[split:])
    tree = parts.netloc != "raw.githubusercontent.com" and segments[2] == "tree"
    return ScriptLink(path, f"https://github.com/{owner}/{repo}/blob/{{ref}}/{{path}}", ref, tree=tree)


def read_script(cell: Cell, page: Page, page_dir: Path, root: Path | None) -> tuple[ScriptLink, str]:
    """The repo-relative script path of a Link cell, and the text the page shows."""
    link = link_of(cell.text, page)
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
    elif page.markup == "markdown":  # relative to the page, as GitHub and every Markdown renderer read it
        found = ScriptLink(_from_page(target, page_dir, root, cell.text))
    else:
        found = ScriptLink(target)
    path = found.path
    if path.startswith("/") or ".." in PurePosixPath(path).parts or not path.endswith(".sh"):
        raise CellError(f"the link leads to '{path}', which is not a .sh script inside the repository")
    return found, link.text


def _from_page(target: str, page_dir: Path, root: Path | None, text: str) -> str:
    """A Markdown page's relative link as a path from the root (``./x.sh`` in ``docs/`` is ``docs/x.sh``)."""
    if target.startswith("/"):
        return target.lstrip("/")  # GitHub reads /path as from the repository's root
    parts: list[str] = []
    for part in (page_dir.absolute() / unquote(target)).parts:  # '..' and '.' resolved as text, no link followed
        if part == "..":
            if len(parts) > 1:
                parts.pop()
        elif part != ".":
            parts.append(part)
    try:
        return Path(*parts).relative_to((root if root is not None else Path()).absolute()).as_posix()
    except ValueError:
        raise CellError(f"the link '{text}' leads outside the root") from None


def read_contributor(cell: Cell, page: Page) -> tuple[Any, list[str]]:
    """A name, or ``{name, email|github|url}``, and the parts that could not be kept."""
    link = link_of(cell.text, page)
    if not link.text:
        raise CellError("the Contributor cell is empty")
    if link.target is None:
        return link.text, []
    target = link.target
    name = link.text
    if target.startswith("mailto:"):
        target = target[len("mailto:") :]
    if is_email(target):
        return {"name": name, "email": target}, []
    user = _GITHUB_USER.match(target)
    if user:
        return {"name": name, "github": user.group(1)}, []
    if target.startswith(("http://", "https://")):
        return {"name": name, "url": target}, []
    return name, [f"the contributor link '{link.target}' is not an http(s) or mailto link; only the name is kept"]


@dataclass
class _Row:
    """What reading one row's cells has found so far; each column's parser adds to it."""

    page: Page
    page_dir: Path
    root: Path | None
    values: dict[str, Any] = field(default_factory=dict)
    notes: list[Finding] = field(default_factory=list)
    link: ScriptLink | None = None

    def plain(self, cell: Cell) -> str:
        """The cell as plain text, a dropped link noted as a partial loss."""
        text, partial = plain_text(cell.text, self.page)
        self.notes.extend(Finding(cell.line, message) for message in partial)
        return text


def _tag(cell: Cell, row: _Row) -> None:
    text = row.plain(cell)
    if text.upper() not in ("MIN", "RECOMMENDED"):
        raise CellError(f"Tag '{text}' is neither MIN nor RECOMMENDED")
    row.values["tag"] = text.upper()
    if text != text.upper():
        row.notes.append(Finding(cell.line, f"Tag '{text}' is written as {text.upper()}", "note"))


def _words(key: str) -> Callable[[Cell, _Row], None]:
    """The parser of a column of plain words that may not be empty (model, task, train)."""

    def parse(cell: Cell, row: _Row) -> None:
        text = row.plain(cell)
        if not text:
            raise CellError(f"the {key.capitalize()} cell is empty")
        row.values[key] = text

    return parse


def _resource(cell: Cell, row: _Row) -> None:
    text = row.plain(cell)
    match = _RESOURCE.match(text)
    if not match:
        raise CellError(f"Resource '{text}' is not in the form N*DEVICE (8*H100)")
    row.values["gpus"], row.values["device"] = int(match.group(1)), match.group(2)


def _max_batch(cell: Cell, row: _Row) -> None:
    text = row.plain(cell)
    if text in ("", "-", "\\", "—", "–"):
        row.values["max_batch"] = None
    elif text.isdigit():
        row.values["max_batch"] = int(text)
    else:
        raise CellError(f"MaxBatch '{text}' is not a whole number (or empty, '-', '\\')")


def _infer(cell: Cell, row: _Row) -> None:
    text = row.plain(cell)
    match = _INFER.match(text.replace(" ", ""))
    if not match:
        raise CellError(f"Infer '{text}' is not an engine name with an optional version (vllm0.8.3)")
    row.values["infer"] = match.group(1)
    if match.group(2):
        row.values["infer_version"] = match.group(2)
    if text.replace(" ", "") != text:
        row.notes.append(
            Finding(cell.line, f"Infer '{text}' is drawn as '{match.group(1)}{match.group(2) or ''}'", "note")
        )


def _script(cell: Cell, row: _Row) -> None:
    link, shown = read_script(cell, row.page, row.page_dir, row.root)
    row.link = link
    link.line = cell.line
    row.values["script"] = link.path
    if link.pinned:
        row.values["script_ref"] = link.pinned
    name = PurePosixPath(link.path).name
    if shown.endswith(".sh") and PurePosixPath(shown).name != name:
        row.notes.append(
            Finding(
                cell.line,
                f"the link text '{shown}' names another file than its target '{name}'; the row keeps "
                "the target: fix the text or the link on the page",
                "defect",
            )
        )
    elif shown and shown not in (name, name[: -len(".sh")]):
        row.notes.append(
            Finding(
                cell.line,
                f"the link text '{shown}' is not the script's file name; the table will show '{name}'",
                "note",
            )
        )
    if link.tree:
        row.notes.append(
            Finding(
                cell.line,
                f"the link to '{name}' uses /tree/, GitHub's folder view, for a file; use /blob/",
                "defect",
            )
        )


def _contributor(cell: Cell, row: _Row) -> None:
    row.values["contributor"], partial = read_contributor(cell, row.page)
    row.notes.extend(Finding(cell.line, message) for message in partial)


PARSERS: dict[str, Callable[[Cell, _Row], None]] = {
    "tag": _tag,
    "model": _words("model"),
    "task": _words("task"),
    "resource": _resource,
    "max_batch": _max_batch,
    "train": _words("train"),
    "infer": _infer,
    "script": _script,
    "contributor": _contributor,
}
"""One parser per column key: it reads the cell into the row, or raises :class:`CellError`."""


def read_cells(
    cells: dict[str, Cell], page: Page, page_dir: Path, root: Path | None
) -> tuple[dict[str, Any], list[Finding], list[Finding], ScriptLink | None]:
    """Read one row: (values, failures that lose the row, notes and partial losses, script link)."""
    row = _Row(page, page_dir, root)
    failed: list[Finding] = []
    for key, cell in cells.items():
        if len(cell.text) > MAX_CELL:
            failed.append(
                Finding(cell.line, f"the cell is {len(cell.text)} characters long, more than the {MAX_CELL} read")
            )
            continue
        parse = PARSERS.get(key)
        if parse is None:
            continue
        try:
            parse(cell, row)
        except CellError as err:
            failed.append(Finding(cell.line, str(err)))
    return row.values, failed, row.notes, row.link
