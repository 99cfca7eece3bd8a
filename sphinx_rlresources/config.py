"""The ``rlresources_*`` configuration values, declared with types and checked once."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx.util import logging

from .diagnostics import WARNING_TYPE, Subtype
from .loader import DEFAULT_MAX_FILE_BYTES
from .urltemplate import url_template_problem

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config

logger = logging.getLogger(__name__)

#: name -> (default, rebuild, types, what it is for)
CONFIG_VALUES: dict[str, tuple[Any, str, tuple[type, ...], str]] = {
    "rlresources_data_dir": (
        "../data",
        "env",
        (str,),
        "The folder of data files (one YAML file per size), relative to the conf directory.",
    ),
    "rlresources_root": (
        "..",
        "env",
        (str,),
        "The repository root, relative to the conf directory: row ``script`` paths are "
        "relative to it, and nothing outside it is read.",
    ),
    "rlresources_script_url": (
        None,
        "env",
        (str, type(None)),
        "A URL template for the Link column, with ``{path}`` (the script's path from the "
        "root) and optionally ``{ref}``; e.g. ``https://github.com/org/repo/blob/{ref}/{path}``. "
        "``None`` copies each script into the build and links the copy.",
    ),
    "rlresources_script_ref": (
        "main",
        "env",
        (str,),
        "The branch, tag or commit that fills ``{ref}`` in the URL template.",
    ),
    "rlresources_max_file_size": (
        DEFAULT_MAX_FILE_BYTES,
        "env",
        (int,),
        "The largest data file read, in bytes; a larger one is reported and not read.",
    ),
    "rlresources_contributing": (
        None,
        "env",
        (str, type(None)),
        "Where readers learn to contribute a row: a document name or an http(s) URL, linked "
        "from the sentence drawn for a size with no rows. ``None`` links nothing.",
    ),
    "rlresources_filter": (
        False,
        "env",
        (bool,),
        "Give every ``rl-resource-table`` reader-side filter controls in HTML, as its ``:filter:`` "
        "option does; ``:filter: no`` turns them off for one table.",
    ),
    "rlresources_stale_check": (
        False,
        "env",
        (bool,),
        "Run the staleness check in the build: rows whose script changed in git after they "
        "were tested are reported (``rlresources.stale``) and marked. Off by default: a code "
        "commit should not fail a ``-W`` docs build unasked; ``rlresources lint --stale`` "
        "runs the same check.",
    ),
    "rlresources_stale_marker": (
        "(stale)",
        "env",
        (str,),
        "The text added to a stale row (with the staleness check on); ``''`` adds none.",
    ),
    "rlresources_mark_unverified": (
        False,
        "env",
        (bool,),
        "Add ``(unverified)`` to rows that have no ``evidence`` link.",
    ),
    "rlresources_max_age_days": (
        None,
        "env",
        (int, type(None)),
        "Add ``(outdated)`` to rows whose ``tested`` date is more than this many days old "
        "(``SOURCE_DATE_EPOCH`` sets the day for reproducible builds). ``None``: no age marker.",
    ),
    "rlresources_cross_check": (
        True,
        "env",
        (bool,),
        "Compare each row with what its script runs (GPUs, inference engine, backend, LoRA, "
        "algorithm, model, batch) and report disagreements as ``rlresources.script_*`` "
        "warnings. ``False`` skips reading the scripts.",
    ),
}


def _warn(message: str) -> None:
    logger.warning(message, type=WARNING_TYPE, subtype=Subtype.CONFIG.value)


def check_config(app: Sphinx, config: Config) -> None:
    """Validate the values once; a bad value is reported and replaced by its default."""
    confdir = Path(app.confdir)
    for name in ("rlresources_data_dir", "rlresources_root"):
        folder = (confdir / getattr(config, name)).resolve()
        if not folder.is_dir():
            _warn(
                f"{name} = {getattr(config, name)!r} is not a folder (resolved to {folder}); "
                "set it relative to the conf directory"
            )
    template = config.rlresources_script_url
    if template is not None:
        problem = url_template_problem(template)
        if problem:
            _warn(f"rlresources_script_url = {template!r} {problem}; scripts are copied into the build instead")
            config.rlresources_script_url = None
    if config.rlresources_max_file_size < 1:
        _warn(
            f"rlresources_max_file_size = {config.rlresources_max_file_size} must be a positive number of bytes; "
            f"using {DEFAULT_MAX_FILE_BYTES}"
        )
        config.rlresources_max_file_size = DEFAULT_MAX_FILE_BYTES
    contributing = config.rlresources_contributing
    if contributing is not None and ":" in contributing and not contributing.startswith(("http://", "https://")):
        _warn(f"rlresources_contributing = {contributing!r} must be a document name or an http(s) URL; ignored")
        config.rlresources_contributing = None


def add_config_values(app: Sphinx) -> None:
    for name, (default, _rebuild, types, _doc) in CONFIG_VALUES.items():
        # Every value changes what is read, so every change re-reads the pages ("env").
        app.add_config_value(name, default, "env", types=types)
