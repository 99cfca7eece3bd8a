"""What a row's script asks for: the one way to read it, checked out or pinned at a commit.

Lint, the build, ``estimate --row`` and ``new`` all read a row's script here, so they
agree on the size bound, the decoding, the reader and the environment layered over
the script's defaults (the row's ``env``).  A script that sources another file (slime's
model settings, a shared ``common.sh``) is given a :class:`~sphinx_rlresources.scripts.files.Files`
that reads only regular files inside the repository, bounded -- or, for a pinned row,
the same files as git stores them at the row's ref.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from sphinx_rlresources.core import git
from sphinx_rlresources.core.paths import is_within, read_regular, real_path
from sphinx_rlresources.scripts.frameworks import read_file
from sphinx_rlresources.scripts.run import Problem, Run
from sphinx_rlresources.scripts.shell import MAX_SCRIPT_CHARS

MAX_SCRIPT_BYTES = MAX_SCRIPT_CHARS
"""The most bytes of a script read; a larger script is reported, not checked."""
MAX_SOURCED = 32
"""The most files one reading may source (a launcher sources one or two)."""


class TreeFiles:
    """Files of the working tree: inside the root, regular, bounded; a missing one is None."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.real_root: Path | None = None  # resolved at the first read: most scripts source nothing
        self.left = MAX_SOURCED

    def read(self, path: str) -> str | None:
        if self.left <= 0:
            return None
        self.left -= 1
        if self.real_root is None:
            self.real_root = real_path(self.root)
        real = real_path(self.real_root.joinpath(*PurePosixPath(path).parts))
        if not is_within(real, self.real_root):
            return None
        try:
            data = read_regular(real, MAX_SCRIPT_BYTES)
        except OSError:
            return None
        return None if len(data) > MAX_SCRIPT_BYTES else data.decode("utf-8", errors="replace")


class RefFiles:
    """Files as git stores them at one ref (for a pinned row), read through the run's one :class:`~.git.Repo`."""

    def __init__(self, repo: git.Repo, ref: str) -> None:
        self.repo = repo
        self.ref = ref
        self.left = MAX_SOURCED

    def read(self, path: str) -> str | None:
        if self.left <= 0:
            return None
        self.left -= 1
        try:
            found = self.repo.read([(self.ref, path)], MAX_SCRIPT_BYTES)
        except git.GitUnavailable:
            return None
        blob = found.files.get((self.ref, path))
        return None if blob is None or blob.data is None else blob.data.decode("utf-8", errors="replace")


def run_of(data: bytes, path: str, env: Mapping[str, str], files: TreeFiles | RefFiles | None) -> Run:
    """What a script's bytes ask for, bounded, with ``env`` over its defaults."""
    if len(data) > MAX_SCRIPT_BYTES:
        problem = Problem(
            0,
            f"the script is more than {MAX_SCRIPT_BYTES} bytes long; it was not read, so nothing in it was checked",
            kind="too-large",
        )
        return Run(path=path, problems=(problem,))
    return read_file(data.decode("utf-8", errors="replace"), path, env, files)


@dataclass(frozen=True)
class RowScript:
    """A row's script as read: what it asks for, or why it could not be read."""

    run: Run | None
    missing: str = ""
    """Why there is no run ('' when there is one): the script does not exist, git cannot read it..."""


def row_script(
    script: str, ref: str | None, root: Path, env: Mapping[str, str], repo: git.Repo | None = None
) -> RowScript:
    """Read one row's script (``script`` from the root, at ``ref`` when pinned): for the commands that read one row.

    The build and lint read every row's script through the same :func:`run_of`, but
    fetch all pinned scripts with one git process (:func:`sphinx_rlresources.core.checks.check_entries`);
    ``repo``, the run's own, answers what that process already read.
    """
    path = PurePosixPath(script).as_posix()
    if ref is not None:
        repo = repo or git.Repo(root)
        try:
            found = repo.read([(ref, path)], MAX_SCRIPT_BYTES)
        except git.GitUnavailable as err:
            return RowScript(None, f"git cannot read it at {ref} ({err})")
        if not found.refs.get(ref):
            return RowScript(None, f"this clone does not have {ref} (git fetch origin {ref})")
        blob = found.files.get((ref, path))
        if blob is None:
            return RowScript(None, f"it does not exist at {ref}")
        if blob.data is None:
            return RowScript(None, f"it is {blob.size} bytes at {ref}, more than the {MAX_SCRIPT_BYTES} read")
        return RowScript(run_of(blob.data, path, env, RefFiles(repo, ref)))
    real_root = real_path(root)
    real = real_path(real_root.joinpath(*PurePosixPath(path).parts))
    if not is_within(real, real_root):
        return RowScript(None, "it leads outside the repository root")
    try:
        data = read_regular(real, MAX_SCRIPT_BYTES)
    except FileNotFoundError:
        return RowScript(None, "it does not exist")
    except OSError as err:
        return RowScript(None, f"it cannot be read ({err.strerror or err})")
    return RowScript(run_of(data, path, env, TreeFiles(root)))
