"""Check, before writing, that the build can hold the copies of the tuning scripts.

Without ``rlresources_script_url`` the Link column links copies of the scripts that
Sphinx writes to ``<outdir>/_downloads/``.  When that folder cannot be written (a file
in its place, a read-only output folder, a full disk), Sphinx stops in the middle of the
write phase with a bare ``FileExistsError`` traceback.  Checking once, after reading and
before writing, turns that into one sentence that names the folder and the way out.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from sphinx.errors import SphinxError

from sphinx_rlresources.sphinxext.store import store_of

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment


class ScriptCopyError(SphinxError):
    """The output folder cannot hold the script copies the Link column points at."""

    category = "rlresources error"


def download_folder_problem(folder: Path) -> str | None:
    """Why ``folder`` cannot receive files (None when it can), found by trying."""
    try:
        if folder.exists() and not folder.is_dir():
            return "a file stands where the folder should be"
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".rlresources-write-check-"):
            pass
    except OSError as err:
        return err.strerror or str(err)
    return None


def check_download_folder(app: Sphinx, env: BuildEnvironment) -> None:
    """At ``env-updated``: fail clearly when script copies are due but cannot be written."""
    builder = app.builder
    if not hasattr(builder, "copy_download_files") or not getattr(env, "dlfiles", None):
        return  # this builder copies no downloads, or nothing links a copy
    if app.config.rlresources_script_url:
        return  # the Link column points at the repository, not at copies
    dataset = store_of(env).dataset
    if dataset is None or not dataset.scripts:
        return  # no row links a script: whatever else fails to copy is Sphinx's to report
    folder = Path(builder.outdir) / "_downloads"
    problem = download_folder_problem(folder)
    if problem:
        msg = (
            f"the build output folder {os.fspath(folder)} cannot hold the copies of the tuning scripts "
            f"({problem}); make it a writable folder (or build into another output folder), or set "
            "rlresources_script_url so that the Link column points at the repository instead of copies"
        )
        raise ScriptCopyError(msg)
