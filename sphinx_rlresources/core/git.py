"""Reading git without a shell: one way to run it, and one :class:`Repo` per run that asks each question once.

Paths and refs from the data are untrusted.  Git is run with an argument list (never a
shell), literal pathspecs, no prompts, and the variables that git hooks set removed so
that ``-C`` decides which repository is read.  A ref must match
:data:`REF_PATTERN` before it is used: no ``:``, ``^``, ``~``, ``@{`` or whitespace,
so it can only name a commit, tag or branch.
"""

from __future__ import annotations

import datetime
import functools
import os
import posixpath
import re
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

GIT_TIMEOUT = 120.0
"""Seconds one git process may take before the caller gives up (with a note)."""

REF_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,199}")
"""A commit, tag or branch as the data may name it (the schema's ``script_ref`` pattern)."""


class GitUnavailable(Exception):
    """Git cannot answer for this root; the message is the note shown to the user."""


def clean_text(text: str, limit: int = 100) -> str:
    """Text from git (a subject, an error) made safe to quote in one line: no control characters, bounded."""
    text = "".join(c if c.isprintable() else " " for c in text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def git_env() -> dict[str, str]:
    env = dict(os.environ)
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY"):
        env.pop(name, None)  # set inside git hooks; -C must decide which repository is read
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_LITERAL_PATHSPECS": "1", "LC_ALL": "C"})
    return env


#: Configuration that makes git run a command, switched off for every call.  A
#: repository we read may come from anyone, and its ``.git/config`` (or a file it
#: includes) can name a program: an fsmonitor, a pager, a credential helper, a
#: transport.  Filters and diff drivers are named per repository, so they are switched
#: off by name (:func:`_driver_overrides`), and ``--no-textconv``/``--no-ext-diff`` go on
#: every command that would diff.
SAFE_CONFIG = (
    "core.fsmonitor=false",
    "core.untrackedCache=false",
    "core.pager=cat",
    "core.sshCommand=false",
    "core.askPass=",
    "credential.helper=",
    "protocol.allow=never",
    "log.showSignature=false",
    "gpg.program=false",
    "diff.external=",
    "core.alternateRefsCommand=",
    "uploadpack.packObjectsHook=",
)


def _driver_overrides(git: str, cwd: Path) -> list[str]:
    """``-c`` pairs that empty every filter and diff driver the repository's config names.

    Reading the configuration runs nothing; a driver with an empty command does nothing.
    """
    try:
        done = subprocess.run(  # an argument list with a resolved git, no shell
            [git, "--no-pager", "-C", str(cwd), "-c", "core.fsmonitor=false", "config", "--name-only", "--list"],
            capture_output=True,
            env=git_env(),
            timeout=GIT_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    found: list[str] = []
    for name in done.stdout.decode("utf-8", "replace").splitlines()[:10_000]:
        section, _, rest = name.partition(".")
        driver, _, key = rest.rpartition(".")
        if section.lower() == "filter" and driver and key.lower() in ("clean", "smudge", "process"):
            found += ["-c", f"filter.{driver}.{key}=", "-c", f"filter.{driver}.required=false"]
        elif section.lower() == "diff" and driver and key.lower() in ("textconv", "command"):
            found += ["-c", f"diff.{driver}.{key}="]
    return found


def git_command(cwd: Path) -> list[str]:
    """The start of every git command line: git itself, the folder, and nothing that can run code.

    The one function every git call goes through (:class:`Repo`), built once per run.
    """
    git = shutil.which("git")
    if git is None:
        raise GitUnavailable("git is not installed (or not on PATH)")
    safety = [part for pair in SAFE_CONFIG for part in ("-c", pair)]
    return [
        git,
        "--no-pager",
        "-C",
        str(cwd),
        "--literal-pathspecs",
        *safety,
        "-c",
        f"core.hooksPath={os.devnull}",  # a path that holds no hook: none of the repository's can run
        *_driver_overrides(git, cwd),
    ]


def _run(command: list[str], args: Sequence[str]) -> str:
    try:
        done = subprocess.run(  # an argument list with a resolved git, no shell
            [*command, *args],
            capture_output=True,
            env=git_env(),
            timeout=GIT_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as err:
        raise GitUnavailable(f"git took more than {GIT_TIMEOUT:.0f} seconds") from err
    except OSError as err:
        raise GitUnavailable(f"git could not be run ({err.strerror or err})") from err
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        first = clean_text(reason[0], 200) if reason else f"exit status {done.returncode}"
        raise GitUnavailable(f"git failed: {first}")
    return done.stdout.decode("utf-8", "surrogateescape")


@dataclass(frozen=True)
class Blob:
    """A file as stored at a ref: its bytes (None when larger than the limit) and its size."""

    size: int
    data: bytes | None


@dataclass
class PinnedFiles:
    """What one ``git cat-file --batch`` found for every (ref, path) asked.

    ``refs`` maps each ref to whether the repository has it as a commit; ``files`` maps
    (ref, path) to the blob there, or None when the path is not a file at that ref.
    """

    refs: dict[str, bool]
    files: dict[tuple[str, str], Blob | None]
    links: set[tuple[str, str]] = field(default_factory=set)
    """The (ref, path) pairs that git stores as a symbolic link there: the blob is the link's target, no script."""


MAX_TREE_BYTES = 4_000_000
"""The largest folder listing (git tree) read to learn whether a pinned path is a symbolic link."""
LINK_MODE = b"120000"
"""The mode git gives a symbolic link in a tree."""


def tree_mode(tree: bytes, name: str, hash_bytes: int) -> bytes | None:
    """The mode of ``name`` in a raw git tree (``mode SP name NUL hash`` entries), or None."""
    wanted = name.encode("utf-8", "surrogateescape")
    at = 0
    while at < len(tree):
        space = tree.find(b" ", at)
        nul = tree.find(b"\0", space + 1)
        if space < 0 or nul < 0:
            return None
        if tree[space + 1 : nul] == wanted:
            return tree[at:space]
        at = nul + 1 + hash_bytes
    return None


@dataclass(frozen=True)
class Where:
    """Where a root sits in its checkout: the top folder, the root's path from it, whether the history is cut."""

    top: Path
    prefix: str
    """``''`` at the top, else the root's path from the top with a trailing ``/``."""
    shallow: bool


class Repo:
    """One repository as one run reads it: the safe command line built once, each answer asked once.

    Lint, the build and ``estimate --row`` make one for the data's root and hand it to
    every check that reads git, so the repository's configuration is listed once (for
    the driver overrides of :func:`git_command`), its layout is asked once, and every
    file at a ref is fetched once, in one ``git cat-file --batch`` for all the rows.
    Nothing is kept beyond the run: a later run lists the configuration again.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.blobs: dict[tuple[str, str], Blob | None] = {}
        self.refs: dict[str, bool] = {}
        self.folders: dict[tuple[str, str], list[str]] = {}
        self.links: set[tuple[str, str]] = set()

    @functools.cached_property
    def command(self) -> list[str]:
        return git_command(self.root)

    @functools.cached_property
    def where(self) -> Where:
        """The checkout's layout, from one ``rev-parse``; raises :class:`GitUnavailable`."""
        lines = self.run(["rev-parse", "--show-toplevel", "--show-prefix", "--is-shallow-repository"]).split("\n")
        if len(lines) < 3 or not lines[0]:
            raise GitUnavailable(f"{self.root.resolve()} is not inside a git checkout")
        return Where(Path(lines[0]).resolve(), lines[1], lines[2].strip() == "true")

    def run(self, args: Sequence[str]) -> str:
        """Run ``git -C root ARGS`` (an argument list, no shell) and return its output."""
        return _run(self.command, args)

    def read(self, wanted: Iterable[tuple[str, str]], limit: int) -> PinnedFiles:
        """Each (ref, path) -- ``path`` from the root -- as git stores it; what was read before is not asked again.

        Nothing is checked out and nothing is run.  Raises :class:`GitUnavailable` when git
        is missing or the root is not in a repository.
        """
        asked = set(wanted)
        # The batch protocol is one question per line: a ref that is not plainly a ref (``HEAD:x``,
        # ``a^{tree}``) or a path holding a line break would ask git something else.  Neither is
        # asked; both read as missing.
        for ref, path in asked:
            if not (REF_PATTERN.fullmatch(ref) and path.isprintable()):
                self.refs.setdefault(ref, False)
                self.blobs[(ref, path)] = None
        new = sorted(
            (ref, path) for ref, path in asked if (ref, path) not in self.blobs or _cut(self.blobs[(ref, path)], limit)
        )
        if new:
            self._batch(sorted({ref for ref, _ in new} - set(self.refs)), new, limit)
        files = {pair: _within(self.blobs.get(pair), limit) for pair in asked}
        links = {pair for pair in asked if pair in self.links}
        return PinnedFiles({ref: self.refs.get(ref, False) for ref, _ in asked}, files, links)

    def _batch(self, refs: list[str], pairs: list[tuple[str, str]], limit: int) -> None:
        """One ``git cat-file --batch``: each new ref, each file, and each file's folder (is it a symbolic link?)."""
        prefix = self.where.prefix
        folders = sorted({(ref, posixpath.dirname(prefix + path)) for ref, path in pairs})
        questions = (
            [f"{ref}^{{commit}}" for ref in refs]
            + [f"{ref}:{prefix}{path}" for ref, path in pairs]
            + [f"{ref}:{folder}" for ref, folder in folders]
        )
        blobs_from, trees_from = len(refs), len(refs) + len(pairs)

        def keep(index: int, kind: str, size: int) -> bool:
            if index >= trees_from:
                return kind == "tree" and size <= MAX_TREE_BYTES
            return index >= blobs_from and kind == "blob" and size <= limit

        answers = cat_file(self.command, questions, keep)
        for ref, answer in zip(refs, answers, strict=False):
            self.refs[ref] = answer is not None and answer[0] == "commit"
        for pair, answer in zip(pairs, answers[blobs_from:], strict=False):
            self.blobs[pair] = Blob(answer[1], answer[2]) if answer is not None and answer[0] == "blob" else None
        trees = dict(zip(folders, answers[trees_from:], strict=False))  # (ref, folder) -> its answer
        for ref, path in pairs:
            tree = trees.get((ref, posixpath.dirname(prefix + path)))
            if (
                tree is not None
                and tree[2] is not None
                and tree_mode(tree[2], posixpath.basename(path), tree[3]) == LINK_MODE
            ):
                self.links.add((ref, path))

    def list_folder(self, ref: str, folder: str) -> list[str]:
        """The names of the files in ``folder`` (a path from the root) as git stores them at ``ref``.

        ``ref`` must be plainly a ref (:data:`REF_PATTERN`); a folder that does not exist
        there lists nothing.  Raises :class:`GitUnavailable` when git cannot answer.
        """
        if not REF_PATTERN.fullmatch(ref) or not folder.isprintable():
            return []
        if (ref, folder) not in self.folders:
            path = (self.where.prefix + folder.strip("/")).strip("/")
            try:
                out = self.run(["ls-tree", "--name-only", "-z", f"{ref}:{path}"])
            except GitUnavailable:
                out = ""  # no such folder at that ref
            self.folders[(ref, folder)] = [name for name in out.split("\0") if name][:MAX_LISTED]
        return self.folders[(ref, folder)]


def _cut(blob: Blob | None, limit: int) -> bool:
    """Whether a blob was read with a smaller limit than ``limit`` asks (so its bytes must be read now)."""
    return blob is not None and blob.data is None and blob.size <= limit


def _within(blob: Blob | None, limit: int) -> Blob | None:
    if blob is None or blob.data is None or blob.size <= limit:
        return blob
    return Blob(blob.size, None)


def _read_exactly(stream: IO[bytes], size: int, keep: bool) -> bytes | None:
    """Read ``size`` bytes (and git's newline after them); keep them only if asked."""
    chunks: list[bytes] = []
    left = size
    while left > 0:
        chunk = stream.read(min(left, 1 << 20))
        if not chunk:
            break
        if keep:
            chunks.append(chunk)
        left -= len(chunk)
    stream.read(1)
    return b"".join(chunks) if keep else None


Answer = tuple[str, int, "bytes | None", int]
"""What git says of one object: its kind, size, bytes (when kept) and the length of its hash in bytes."""


def _answer(
    stream: IO[bytes], index: int, keep: Callable[[int, str, int], bool]
) -> tuple[str, int, bytes | None, int] | None:
    """One answer of ``git cat-file --batch``: (kind, size, the bytes if kept, the hash's length in bytes), or None."""
    line = stream.readline().decode("utf-8", "replace").rstrip("\n")
    header = line.rsplit(" ", 2)
    if line.endswith((" missing", " ambiguous")) or len(header) != 3 or not header[2].isdigit():
        return None
    sha, kind, size_text = header
    size = int(size_text)
    return kind, size, _read_exactly(stream, size, keep(index, kind, size)), len(sha) // 2


def cat_file(command: list[str], questions: list[str], keep: Callable[[int, str, int], bool]) -> list[Answer | None]:
    """Ask one ``git cat-file --batch`` every question; ``keep`` says whose bytes are worth reading."""
    process = subprocess.Popen(  # an argument list with a resolved git, no shell
        [*command, "cat-file", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=git_env(),
    )
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout

    def ask() -> None:  # a thread: git stops reading while its answers fill the pipe
        try:
            stdin.write("".join(q + "\n" for q in questions).encode("utf-8", "surrogateescape"))
            stdin.close()
        except OSError:
            pass  # git ended early; the answers say what is missing

    asking = threading.Thread(target=ask, daemon=True)
    asking.start()
    try:
        answers = [_answer(stdout, index, keep) for index in range(len(questions))]
        process.wait(timeout=GIT_TIMEOUT)
        asking.join(GIT_TIMEOUT)
    except (OSError, ValueError, subprocess.TimeoutExpired) as err:
        process.kill()
        raise GitUnavailable(f"git cat-file failed ({err})") from err
    return answers


def read_pinned(root: Path, wanted: Iterable[tuple[str, str]], limit: int) -> PinnedFiles:
    """Read each (ref, path) -- ``path`` relative to ``root`` -- from git's objects in one process.

    For one question; a run that asks several keeps one :class:`Repo`.
    """
    return Repo(root).read(wanted, limit)


MAX_LISTED = 10_000
"""The most names one listing returns (a folder of scripts holds dozens)."""


def list_folder(root: Path, ref: str, folder: str) -> list[str]:
    """The names of the files in ``folder`` (a path from ``root``) as git stores them at ``ref``.

    For one question; a run that asks several keeps one :class:`Repo`.
    """
    return Repo(root).list_folder(ref, folder)


MAX_BLAMED_BYTES = 4_000_000
"""A page larger than this gets no dates (its blame would cost more than the import)."""

_BLAME_HEADER = re.compile(r"([0-9a-f]{40}) \d+ (\d+)(?: \d+)?")


def blame_dates(path: Path) -> dict[int, str]:
    """Each line of ``path`` -> the day (UTC, ``YYYY-MM-DD``) of the commit that last changed it.

    The file as committed at ``HEAD`` is blamed (``--no-textconv``), never the working
    file, which git would pass through the repository's clean filter; so the file must
    be committed as it is.  Raises :class:`GitUnavailable` with what to do when git is
    missing, the file is not in a repository, the history is shallow (its dates would be
    the clone's, not the lines'), or the file has uncommitted changes.
    """
    real = path.resolve()
    repo, name = Repo(real.parent), real.name
    if repo.where.shallow:
        raise GitUnavailable(
            "this is a shallow clone, so git would give every line the date of the one commit it has; "
            "fetch the history (git fetch --unshallow) and import again"
        )
    committed = repo.read([("HEAD", name)], MAX_BLAMED_BYTES).files.get(("HEAD", name))
    try:
        current = real.read_bytes()
    except OSError as err:
        raise GitUnavailable(f"the page cannot be read ({err.strerror or err})") from err
    if committed is None or committed.data != current:
        raise GitUnavailable(
            "the page has changes that are not committed, so its lines have no commit date yet; commit it (or "
            "import from a committed copy) to get tested dates"
        )
    out = repo.run(["blame", "--porcelain", "--no-textconv", "HEAD", "--", name])
    times: dict[str, int] = {}
    dates: dict[int, str] = {}
    sha = ""
    line = 0
    for text in out.splitlines():
        if text.startswith("\t"):
            if sha in times:
                day = datetime.datetime.fromtimestamp(times[sha], tz=datetime.timezone.utc).date()
                dates[line] = day.isoformat()
            continue
        header = _BLAME_HEADER.fullmatch(text)
        if header:
            sha, line = header.group(1), int(header.group(2))
        elif text.startswith("committer-time "):
            times[sha] = int(text.split()[1])
    return dates
