"""Reading one cell of a hand-written table: links, resources, engines, contributors.

A cell is either read whole or reported (:class:`CellError`); nothing is guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
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
    if is_email(target):
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
        if len(text) > MAX_CELL:
            failed.append(Finding(cell.line, f"the cell is {len(text)} characters long, more than the {MAX_CELL} read"))
            continue
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
                link.line = cell.line
                values["script"] = link.path
                if link.pinned:
                    values["script_ref"] = link.pinned
                name = PurePosixPath(link.path).name
                if shown.endswith(".sh") and PurePosixPath(shown).name != name:
                    notes.append(
                        Finding(
                            cell.line,
                            f"the link text '{shown}' names another file than its target '{name}'; the row keeps "
                            "the target: fix the text or the link on the page",
                            "defect",
                        )
                    )
                elif shown and shown not in (name, name[: -len(".sh")]):
                    notes.append(
                        Finding(
                            cell.line,
                            f"the link text '{shown}' is not the script's file name; the table will show '{name}'",
                            "note",
                        )
                    )
                if link.tree:
                    notes.append(
                        Finding(
                            cell.line,
                            f"the link to '{name}' uses /tree/, GitHub's folder view, for a file; use /blob/",
                            "defect",
                        )
                    )
            elif key == "contributor":
                values["contributor"], partial = read_contributor(cell, page)
                notes.extend(Finding(cell.line, message) for message in partial)
        except CellError as err:
            failed.append(Finding(cell.line, str(err)))
    return values, failed, notes, link
