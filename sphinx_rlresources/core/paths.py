"""The one rule for opening a path that a pull request can choose: inside the root, a regular file, bounded.

Data files, scripts and the folders they sit in come from strangers.  Every path is
resolved (following every symbolic link) and must land inside the repository root;
only a regular file is opened, and never read past a limit.  A folder, a named pipe
(which would block the build until killed), a device (``/dev/zero`` never ends) or a
socket is refused with a message that says what the path is.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class NotRegular(OSError):
    """The path exists but is not a regular file; ``what`` says what it is ("a folder")."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


def is_within(path: Path, root: Path) -> bool:
    """Whether ``path`` lies inside ``root`` (both already resolved)."""
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


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


def what_is(path: Path) -> str | None:
    """What a path that is not a regular file is ("a folder"), or None for a regular file or nothing."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else kind_of(mode)


def read_regular(path: Path, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of ``path``, which must be a regular file.

    The file is opened without blocking and checked on the open handle, so a named pipe
    cannot stall the reader even if it replaced the file after a check by name.
    Raises :class:`NotRegular` for anything else, ``OSError`` when it cannot be read.
    """
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
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
