"""Reading git without a shell: one way to run it, and one process for every pinned script.

Paths and refs from the data are untrusted.  Git is run with an argument list (never a
shell), literal pathspecs, no prompts, and the variables that git hooks set removed so
that ``-C`` decides which repository is read.  A ref must match
:data:`REF_PATTERN` before it is used: no ``:``, ``^``, ``~``, ``@{`` or whitespace,
so it can only name a commit, tag or branch.
"""

from __future__ import annotations

import datetime
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

    The one function every git call goes through (:func:`run_git`, :func:`read_pinned`).
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


def run_git(args: Sequence[str], cwd: Path) -> str:
    """Run ``git -C cwd ARGS`` (an argument list, no shell) and return its output."""
    command = [*git_command(cwd), *args]
    try:
        done = subprocess.run(  # an argument list with a resolved git, no shell
            command,
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


def read_pinned(root: Path, wanted: Iterable[tuple[str, str]], limit: int) -> PinnedFiles:
    """Read each (ref, path) -- ``path`` relative to ``root`` -- from git's objects in one process.

    Nothing is checked out and nothing is run.  Raises :class:`GitUnavailable` when git
    is missing or ``root`` is not in a repository.
    """
    asked = sorted(set(wanted))
    # The batch protocol is one question per line: a ref that is not plainly a ref (``HEAD:x``,
    # ``a^{tree}``) or a path holding a line break would ask git something else.  Neither is
    # asked; both read as missing.
    pairs: list[tuple[str, str]] = []
    refused: list[tuple[str, str]] = []
    for ref, path in asked:  # one pass: a build asks for every pinned row at once
        (pairs if REF_PATTERN.fullmatch(ref) and path.isprintable() else refused).append((ref, path))
    top = Path(run_git(["rev-parse", "--show-toplevel"], root).strip()).resolve()
    try:
        prefix = root.resolve().relative_to(top).as_posix()
    except ValueError as err:  # pragma: no cover - rev-parse ran inside root
        raise GitUnavailable(f"{root} is not inside its git checkout") from err
    prefix = "" if prefix == "." else prefix + "/"
    refs = sorted({ref for ref, _ in pairs})
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

    answers = _batch(root, questions, keep)
    found = PinnedFiles({ref: False for ref, _path in refused}, dict.fromkeys(refused))
    for ref, answer in zip(refs, answers, strict=False):
        found.refs[ref] = answer is not None and answer[0] == "commit"
    for pair, answer in zip(pairs, answers[blobs_from:], strict=False):
        found.files[pair] = Blob(answer[1], answer[2]) if answer is not None and answer[0] == "blob" else None
    trees = dict(zip(folders, answers[trees_from:], strict=False))  # (ref, folder) -> its answer
    for ref, path in pairs:
        tree = trees.get((ref, posixpath.dirname(prefix + path)))
        if (
            tree is not None
            and tree[2] is not None
            and tree_mode(tree[2], posixpath.basename(path), tree[3]) == LINK_MODE
        ):
            found.links.add((ref, path))
    return found


def _batch(root: Path, questions: list[str], keep: Callable[[int, str, int], bool]) -> list[Answer | None]:
    """Ask one ``git cat-file --batch`` every question; ``keep`` says whose bytes are worth reading."""
    process = subprocess.Popen(  # an argument list with a resolved git, no shell
        [*git_command(root), "cat-file", "--batch"],
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
    folder, name = real.parent, real.name
    if is_shallow(folder):
        raise GitUnavailable(
            "this is a shallow clone, so git would give every line the date of the one commit it has; "
            "fetch the history (git fetch --unshallow) and import again"
        )
    committed = read_pinned(folder, [("HEAD", name)], MAX_BLAMED_BYTES).files.get(("HEAD", name))
    try:
        current = real.read_bytes()
    except OSError as err:
        raise GitUnavailable(f"the page cannot be read ({err.strerror or err})") from err
    if committed is None or committed.data != current:
        raise GitUnavailable(
            "the page has changes that are not committed, so its lines have no commit date yet; commit it (or "
            "import from a committed copy) to get tested dates"
        )
    out = run_git(["blame", "--porcelain", "--no-textconv", "HEAD", "--", name], folder)
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


MAX_LISTED = 10_000
"""The most names one listing returns (a folder of scripts holds dozens)."""


def list_folder(root: Path, ref: str, folder: str) -> list[str]:
    """The names of the files in ``folder`` (a path from ``root``) as git stores them at ``ref``.

    For "did you mean" on a pinned row and for the files a framework declares its
    requirements in.  ``ref`` must be plainly a ref (:data:`REF_PATTERN`); raises
    :class:`GitUnavailable` when git cannot answer.
    """
    if not REF_PATTERN.fullmatch(ref) or not folder.isprintable():
        return []
    top = Path(run_git(["rev-parse", "--show-toplevel"], root).strip()).resolve()
    try:
        prefix = root.resolve().relative_to(top).as_posix()
    except ValueError:  # pragma: no cover - rev-parse ran inside root
        return []
    path = "/".join(p for p in (prefix if prefix != "." else "", folder.strip("/")) if p)
    spec = f"{ref}:{path}" if path else f"{ref}:"
    try:
        out = run_git(["ls-tree", "--name-only", "-z", spec], root)
    except GitUnavailable:
        return []  # no such folder at that ref
    return [name for name in out.split("\0") if name][:MAX_LISTED]


@dataclass(frozen=True)
class Change:
    """One commit that changed a file: its hash, day and subject (cleaned)."""

    sha: str
    date: str
    subject: str


def changes(root: Path, ref: str, path: str, before: str | None = None, limit: int = 30) -> list[Change]:
    """The commits up to ``ref`` that changed ``path`` (from ``root``), newest first; ``before``: on or before that day.

    One ``git log`` with literal pathspecs; ``ref`` must be plainly a ref.
    """
    if not REF_PATTERN.fullmatch(ref) or not path.isprintable():
        return []
    args = ["log", f"-{limit}", "--no-renames", "--no-textconv", "--no-ext-diff", "--date=short"]
    args.append("--format=%H%x1f%ad%x1f%s")
    if before is not None:
        args.append(f"--until={before}T23:59:59Z")
    out = run_git([*args, ref, "--", path], root)
    found = []
    for line in out.splitlines():
        parts = line.split("\x1f", 2)
        if len(parts) == 3 and re.fullmatch(r"[0-9a-f]{40}", parts[0]):
            found.append(Change(parts[0], parts[1], clean_text(parts[2])))
    return found


def is_shallow(root: Path) -> bool:
    """Whether the checkout holding ``root`` is a shallow clone (its history is cut)."""
    return run_git(["rev-parse", "--is-shallow-repository"], root).strip() == "true"
