"""Every problem the package can report, in one place.

The build turns a :class:`Diagnostic` into a Sphinx warning of type ``rlresources``
with the subtype below, and ``rlresources lint`` prints the same diagnostic as a
``path:line:col: severity: message [rlresources.subtype]`` line.  Keeping the list
in one enum lets the docs enumerate every subtype and lets ``suppress_warnings``
silence exactly one kind.
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass, field
from pathlib import Path

from sphinx_rlresources.safe.text import MAX_LOCATION, one_line, safe_start

WARNING_TYPE = "rlresources"


class Subtype(str, enum.Enum):
    """The warning subtypes, each with the one-line summary the docs print."""

    def __new__(cls, value: str, summary: str) -> Subtype:
        obj = str.__new__(cls, value)
        obj._value_ = value
        obj.summary = summary
        return obj

    summary: str

    # -- reading a data file -------------------------------------------------
    FILE = ("file", "A data file cannot be read: missing, unreadable, too large or not UTF-8.")
    YAML = ("yaml", "A data file is not valid YAML, or uses YAML features that are refused.")
    SCHEMA = ("schema", "A value breaks the data format (wrong type, unknown or missing field).")
    SIZE_LABEL = ("size_label", "A file's ``size`` disagrees with its file name.")
    DUPLICATE_SIZE = ("duplicate_size", "Two data files declare the same size.")
    DUPLICATE_ROW = ("duplicate_row", "Two rows link the same script.")
    TOO_MANY = ("too_many", "A file has more findings than are listed; one line counts the rest.")
    URL = ("url", "A URL field uses a scheme other than http, https or mailto.")
    MODEL_ID = ("model_id", "A row's ``model`` and its own ``model_id`` name different models.")
    # -- the row's script ------------------------------------------------------
    SCRIPT_PATH = ("script_path", "A ``script`` path is absolute, uses ``..`` or leaves the root.")
    SCRIPT_MISSING = ("script_missing", "The script a row links to does not exist.")
    SCRIPT_REF = (
        "script_ref",
        "A row's ``script_ref`` names a commit the repository lacks, or git cannot be run to read it.",
    )
    SCRIPT_FILE = (
        "script_file",
        "A script is not a regular file (a folder, a named pipe, a device) or is too large to read or publish.",
    )
    NAMING = ("naming", "A script's file name breaks the naming rule or disagrees with the row.")
    STALE = ("stale", "A row's script changed (in git) after the row was last tested.")
    # -- the row against what its script runs (crosscheck) ---------------------
    SCRIPT_GPUS = ("script_gpus", "The row's ``gpus`` differs from the script's ``n_gpus_per_node × nnodes``.")
    SCRIPT_INFER = ("script_infer", "The row's ``infer`` differs from the script's ``rollout.name``.")
    SCRIPT_TRAIN = ("script_train", "The row's ``train`` is of another family (FSDP, Megatron...) than the script's.")
    SCRIPT_LORA = ("script_lora", "The task says LoRA but the script trains in full, or the other way round.")
    SCRIPT_ALGORITHM = ("script_algorithm", "The task is not what the script's algorithm (``adv_estimator``...) runs.")
    SCRIPT_MODEL = ("script_model", "The script trains another model than the row's ``model``/``model_id``.")
    SCRIPT_BATCH = ("script_batch", "The row's ``max_batch`` differs from the script's ``data.train_batch_size``.")
    SCRIPT_RECORD = (
        "script_record",
        "The row's ``max_batch`` disagrees with the batch search the script records in its comments.",
    )
    ENGINE_VERSION = (
        "engine_version",
        "The row's engine version is older than what the framework (or the script) requires.",
    )
    SCRIPT_SANITY = (
        "script_sanity",
        "A script mistake (a missing ``$``...), or a checked value given at run time that the row's ``env`` lacks.",
    )
    UNKNOWN_DEVICE = (
        "unknown_device",
        "A row's ``device`` is none of the GPUs the project knows (a typo such as ``H10O``).",
    )
    IMPLAUSIBLE = (
        "implausible",
        "Even the lower bound of the row's memory does not fit its own GPUs (``rlresources estimate``).",
    )
    ORPHAN_SCRIPT = (
        "orphan_script",
        "A launch file (``launch_files``, the naming rule's) has no row (``rlresources lint``).",
    )
    PLACEHOLDER = ("placeholder", "A field still holds the ``TODO`` that ``rlresources new`` wrote; fill it in.")
    # -- drawing a table -------------------------------------------------------
    UNKNOWN_SIZE = ("unknown_size", "A directive names a size that has no data file.")
    OPTION = ("option", "A directive option names no column, tag, task or similar.")
    DATA_UNREADABLE = ("data_unreadable", "A directive draws a size whose data could not be read.")
    CONFIG = ("config", "A ``rlresources_*`` configuration value is invalid.")
    # -- a Markdown file's blocks (rlresources sync) -------------------------------
    MARKER = (
        "marker",
        "An ``rl-resource-table`` marker in a Markdown file cannot be used: unpaired, in a code fence, malformed.",
    )
    OUTDATED_BLOCK = (
        "outdated_block",
        "A Markdown block between ``rl-resource-table`` markers differs from the table the data gives.",
    )
    INTERNAL = ("internal", "A bug in the extension; the page is built without the table.")

    @property
    def level(self) -> str:
        """``warning`` for findings that do not make data wrong (a stale row, a script without a
        row, an option that names nothing, a setting replaced by its default), else ``error``."""
        return "warning" if self.value in _WARNING_LEVEL else "error"

    @property
    def code(self) -> str:
        """The full warning code, as printed in brackets and used in ``suppress_warnings``."""
        return f"{WARNING_TYPE}.{self.value}"


_WARNING_LEVEL = frozenset({"stale", "orphan_script", "option", "config", "too_many", "unknown_device"})


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One located finding.

    ``line`` and ``column`` are 1-based, as editors count them; 0 means "the file as a
    whole".  ``path`` is whatever path the caller used to load the file, so messages
    read the same way the user named the folder.
    """

    path: str
    line: int
    column: int
    subtype: Subtype = field(compare=False)
    message: str = field(compare=False)
    severity: str = field(default="error", compare=False)
    json_path: str = field(default="", compare=False)
    """Where in the document the value sits (``entries[2].gpus``); empty for whole-file problems."""

    def __post_init__(self) -> None:
        # Messages quote untrusted text (keys, script lines, commit subjects): a line break
        # in one would forge a second "path:line:col: error:" line that CI annotates, and a
        # '##[' a workflow command, wherever the message is printed (lint, the build's log).
        message = one_line(self.message)
        if message != self.message:
            object.__setattr__(self, "message", message)

    @property
    def location(self) -> str:
        """``path:line:col`` (or less where the line is not known)."""
        # File names come from pull requests too: one line, bounded, and never the start
        # of a workflow command (a script named '::error file=…::x.sh').
        path = safe_start(one_line(self.path, MAX_LOCATION))
        if self.line <= 0:
            return path
        if self.column <= 0:
            return f"{path}:{self.line}"
        return f"{path}:{self.line}:{self.column}"

    def format(self) -> str:
        """The compiler-style line that editors and CI problem matchers read."""
        return f"{self.location}: {self.severity}: {self.message} [{self.subtype.code}]"


def relpath(path: Path, start: Path | None = None) -> str:
    """Show ``path`` relative to ``start`` (the working folder by default) when inside it."""
    base = start or Path.cwd()
    try:  # realpath, not resolve: a link loop or an over-long name must not raise here
        # The folders' links are followed, the file's own is not: a data file that links to a
        # named pipe is reported under its own name, where the reader must fix it.
        named = path.absolute()
        here = (
            Path(os.path.realpath(named))
            if path.name in ("", ".", "..")
            else Path(os.path.realpath(named.parent), named.name)
        )
        return here.relative_to(os.path.realpath(base)).as_posix()
    except (ValueError, OSError):
        return path.as_posix()
