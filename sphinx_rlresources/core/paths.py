"""The one rule for opening a path that a pull request can choose: inside the root, a regular file, bounded.

Data files, scripts and the folders they sit in come from strangers.  Every path is
resolved (following every symbolic link) and must land inside the repository root;
only a regular file is opened, and never read past a limit.  A folder, a named pipe
(which would block the build until killed), a device (``/dev/zero`` never ends) or a
socket is refused with a message that says what the path is.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path


class NotRegular(OSError):
    """The path exists but is not a regular file; ``what`` says what it is ("a folder")."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


def real_path(path: Path) -> Path:
    """``path`` with every symbolic link followed, as far as they lead: never raises.

    ``Path.resolve`` raises on a link loop (``RuntimeError`` before Python 3.13) and a
    name over 255 bytes can raise on the way; a pull request may hold either.  A loop
    ends where it loops, and the caller's checks then find no regular file there.
    """
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):  # pragma: no cover - realpath is not strict; a NUL byte is refused earlier
        return Path(os.path.abspath(path))


def exists(path: Path) -> bool:
    """Whether ``path`` leads to something, without raising on a loop or an over-long name."""
    return os.path.exists(path)


def is_link(path: Path) -> bool:
    """Whether ``path`` is a symbolic link, without raising on an over-long name."""
    return os.path.islink(path)


def is_file(path: Path) -> bool:
    """Whether ``path`` leads to a regular file, without raising on a loop or an over-long name."""
    return os.path.isfile(path)


def is_folder(path: Path) -> bool:
    """Whether ``path`` leads to a folder, without raising on a loop or an over-long name."""
    return os.path.isdir(path)


def is_within(path: Path, root: Path) -> bool:
    """Whether ``path`` lies inside ``root`` (both already resolved, so their text says it).

    Compared as text, name by name: ``/repo-other`` is not inside ``/repo``.  The same
    answer as ``path.relative_to(root)`` for resolved POSIX paths, without building two
    ``Path`` objects per script on lint's per-row path.
    """
    inner, outer = os.fspath(path), os.fspath(root)
    if os.name != "posix":  # pragma: no cover - case and drive rules differ: let pathlib decide
        try:
            path.relative_to(root)
        except ValueError:
            return False
        return True
    return inner == outer or inner.startswith(outer if outer.endswith("/") else outer + "/")


def kind_of(mode: int) -> str:
    """What a file of this mode is, in words, for messages."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISREG(mode):
        return "a regular file"
    return "not a regular file"  # pragma: no cover - no other kind exists on Linux or macOS


def status(path: Path) -> os.stat_result | None:
    """What ``os.stat`` says of ``path`` (following links), or None when nothing is there (or a loop)."""
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


def what_is(path: Path) -> str | None:
    """What a path that is not a regular file is ("a folder"), or None for a regular file or nothing."""
    found = status(path)
    return None if found is None or stat.S_ISREG(found.st_mode) else kind_of(found.st_mode)


def read_regular(path: Path, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of ``path``, which must be a regular file.

    The file is opened without blocking and checked on the open handle, so a named pipe
    cannot stall the reader even if it replaced the file after a check by name.
    Raises :class:`NotRegular` for anything else, ``OSError`` when it cannot be read.
    """
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    return _read_open(descriptor, limit)


def _read_open(descriptor: int, limit: int) -> bytes:
    """At most ``limit + 1`` bytes from an open descriptor of a regular file; closes it."""
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(kind_of(mode))
        chunks = []
        left = limit + 1
        while left > 0:
            chunk = os.read(descriptor, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(descriptor)


class WriteRefused(OSError):
    """A command may not write (or read back) this path; the message says why and what to do."""


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def inside_parts(root: Path, target: Path) -> tuple[Path, tuple[str, ...]]:
    """The real root and ``target``'s path below it, as names, without following a link below the root.

    The path above the root may pass through links (that is how the user reached the
    repository); below it, every name is walked later with ``O_NOFOLLOW``.  ``..`` is
    collapsed on the text first, so ``data/../../x`` is outside.
    """
    real_root = root.resolve()
    candidate = Path(os.path.normpath(target.absolute()))
    for ancestor in (candidate.parent, *candidate.parent.parents):
        try:
            same = ancestor.resolve() == real_root
        except (OSError, RuntimeError):  # a link loop on the way: not the root
            same = False
        if same:
            return real_root, candidate.relative_to(ancestor).parts
    raise WriteRefused(f"'{target}' lies outside the repository root '{root}'; write inside the repository")


def _folder(real_root: Path, names: tuple[str, ...], create: bool, shown: str) -> int:
    """A descriptor of the folder ``real_root/names``, opened one name at a time, never through a link."""
    fd = os.open(real_root, os.O_RDONLY | _DIRECTORY)
    try:
        for name in names:
            try:
                child = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise WriteRefused(f"the folder of '{shown}' does not exist; create it first") from None
                os.mkdir(name, 0o777, dir_fd=fd)
                child = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=fd)
            except OSError:
                raise WriteRefused(
                    f"'{shown}' passes through '{name}', which is a symbolic link or not a folder; nothing is "
                    "written through a link: replace the link with a real folder"
                ) from None
            os.close(fd)
            fd = child
        return fd
    except BaseException:
        os.close(fd)
        raise


def _target_problem(fd: int, name: str, shown: str, overwrite: bool, writing: bool = False) -> str | None:
    try:
        mode = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return None
    if writing and stat.S_ISREG(mode) and overwrite and not _may_write(fd, name, mode):
        return (
            f"'{shown}' is read-only (mode {stat.filemode(mode)}); it is not replaced: make it writable "
            "(chmod u+w) if it should be updated"
        )
    if stat.S_ISLNK(mode):
        return (
            f"'{shown}' is a symbolic link; nothing is written through a link (it could lead anywhere): delete the "
            "link, or write elsewhere"
        )
    if not stat.S_ISREG(mode):
        return f"'{shown}' is {kind_of(mode)}, not a regular file; remove it, or write elsewhere"
    if not overwrite:
        return f"'{shown}' already exists"
    return None


def _may_write(fd: int, name: str, mode: int) -> bool:
    """Whether the user could write the file in place: replacing it must not bypass a read-only mode.

    The mode's write bits decide for the superuser too, whom ``os.access`` always lets write.
    """
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        return False
    try:
        return os.access(name, os.W_OK, dir_fd=fd)
    except (NotImplementedError, OSError):  # pragma: no cover - a platform without dir_fd for access
        return True


def check_writable(root: Path, target: Path, overwrite: bool, create_folders: bool = False) -> None:
    """Raise :class:`WriteRefused` unless :func:`write_inside` could write ``target`` (nothing is changed)."""
    real_root, parts = inside_parts(root, target)
    shown = str(target)
    try:
        fd = _folder(real_root, parts[:-1], create=False, shown=shown)
    except WriteRefused as err:
        if create_folders and "does not exist" in str(err):
            return  # the folders will be created, one real folder at a time
        raise
    try:
        problem = _target_problem(fd, parts[-1], shown, overwrite, writing=True)
    finally:
        os.close(fd)
    if problem:
        raise WriteRefused(problem)


def _kept_mode(fd: int, name: str) -> int | None:
    """The permission bits of the file being replaced (None: there is none), without set-id bits."""
    try:
        return stat.S_IMODE(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode) & 0o777
    except FileNotFoundError:
        return None


def _unchanged(fd: int, name: str, shown: str, expected: bytes | None) -> None:
    """Refuse to replace a file whose bytes are no longer the ``expected`` ones read before (an edit since)."""
    if expected is None:
        return
    try:
        handle = os.open(name, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0), dir_fd=fd)
        now = _read_open(handle, len(expected))
    except OSError:
        now = None
    if now != expected:
        raise WriteRefused(f"'{shown}' changed after it was read; it is not replaced (the change is kept): run again")


def write_inside(
    root: Path, target: Path, data: bytes, overwrite: bool, create_folders: bool = False, expected: bytes | None = None
) -> None:
    """Write ``data`` to ``target`` inside ``root``: a regular file, never through a symbolic link, whole or not at all.

    The one way every command writes a file.  The folder is opened name by name from
    the root with ``O_NOFOLLOW``; the bytes go to a new temporary file beside the
    target (``O_CREAT | O_EXCL | O_NOFOLLOW``), which then replaces the target in one
    ``rename``, so a reader never sees half a file and a link planted as the target is
    refused before anything is written.  A file replaced keeps its permission bits (a
    private file stays private), and a read-only one is refused.  ``expected``: the
    bytes the command read from the target; if the file holds others just before the
    rename, someone edited it meanwhile, and it is left as it is.
    """
    real_root, parts = inside_parts(root, target)
    shown = str(target)
    fd = _folder(real_root, parts[:-1], create=create_folders, shown=shown)
    try:
        problem = _target_problem(fd, parts[-1], shown, overwrite, writing=True)
        if problem:
            raise WriteRefused(problem)
        temporary = f".{parts[-1]}.{os.getpid()}.rlresources-tmp"
        kept = _kept_mode(fd, parts[-1])  # private from the start when it replaces a file, so no copy is readable
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW
        out = os.open(temporary, flags, 0o666 if kept is None else 0o600, dir_fd=fd)
        try:
            with os.fdopen(out, "wb") as handle:
                if kept is not None:
                    os.fchmod(handle.fileno(), kept)
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            _unchanged(fd, parts[-1], shown, expected)
            os.replace(temporary, parts[-1], src_dir_fd=fd, dst_dir_fd=fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=fd)
            raise
    finally:
        os.close(fd)


def read_inside(root: Path, target: Path, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of ``target`` inside ``root``, opened as :func:`write_inside` opens it.

    For a command that reads a file it is about to rewrite (``new`` appends a row).
    """
    real_root, parts = inside_parts(root, target)
    shown = str(target)
    fd = _folder(real_root, parts[:-1], create=False, shown=shown)
    try:
        problem = _target_problem(fd, parts[-1], shown, overwrite=True)
        if problem:
            raise WriteRefused(problem)
        handle = os.open(parts[-1], os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0), dir_fd=fd)
    finally:
        os.close(fd)
    return _read_open(handle, limit)
