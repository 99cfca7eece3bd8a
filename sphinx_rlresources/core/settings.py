"""Every setting, declared once: its names, type, default, rule and meaning.

Two readers use this table: the Sphinx layer registers each ``conf_name`` as a
``rlresources_*`` configuration value (:mod:`sphinx_rlresources.sphinxext.config`), and
the command line reads each ``key`` from ``[tool.rlresources]`` in ``pyproject.toml``
(:mod:`sphinx_rlresources.core.project`).  Both check a value with the same ``problem``
function, so a value cannot pass one reader and fail the other, and the docs' table of
configuration values is generated from here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sphinx_rlresources.core.globs import scope_problem
from sphinx_rlresources.core.naming import rule_problem
from sphinx_rlresources.core.urls import WEB_SCHEMES, url_template_problem

DEFAULT_MAX_FILE_BYTES = 1024 * 1024
"""The largest data file read by default (``max_file_size``)."""


def _positive_bytes(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return "must be a positive number of bytes"
    return None


def _positive_days(value: Any) -> str | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        return "must be a positive number of days, or None"
    return None


def _template(value: Any) -> str | None:
    return None if value is None else url_template_problem(value)


def _document_or_url(value: Any) -> str | None:
    if value is not None and ":" in value and not value.startswith(WEB_SCHEMES):
        return "must be a document name or an http(s) URL"
    return None


def _folders(value: Any) -> str | None:
    if not all(isinstance(item, str) and item for item in value):
        return "must be a list of folders"
    return None


FAIL_ON = ("never", "error", "warning")


def _fail_on(value: Any) -> str | None:
    return None if value in FAIL_ON else f"must be one of {', '.join(repr(v) for v in FAIL_ON)}"


def _non_empty(value: Any) -> str | None:
    return "must be a non-empty string" if not value else None


@dataclass(frozen=True)
class Setting:
    """One setting.

    ``default`` is the conf.py default; paths there are relative to the conf directory.
    ``cli_default`` is what the command line uses without a ``[tool.rlresources]`` value
    (paths relative to the folder of ``pyproject.toml``), when it differs.
    """

    key: str
    """The name in ``[tool.rlresources]``; ``rlresources_<conf>`` in conf.py."""
    default: Any
    types: tuple[type, ...]
    doc: str
    conf: str | None = None
    """The conf.py name without ``rlresources_``; None for a command-line-only setting."""
    in_pyproject: bool = True
    problem: Callable[[Any], str | None] | None = None
    """Why a value of the right type is still unusable, or None."""
    cli_default: Any = None
    on_invalid: str = "using the default"
    """What the build does instead when the value is unusable (it falls back to ``default``)."""

    @property
    def conf_name(self) -> str | None:
        return f"rlresources_{self.conf}" if self.conf else None

    def check(self, value: Any) -> str | None:
        """Why ``value`` is unusable (wrong type or breaks the rule), or None."""
        if not isinstance(value, self.types) or (isinstance(value, bool) and bool not in self.types):
            return self.expected
        return self.problem(value) if self.problem else None

    @property
    def expected(self) -> str:
        """What a value of the wrong type is told it must be."""
        if self.problem is not None and (int in self.types or self.problem is scope_problem):
            return self.problem(0) or ""  # the rule says which number (or list) is wanted
        if list in self.types:
            return "must be a list of folders"
        if bool in self.types:
            return "must be True or False"
        return (
            "must be a non-empty string"
            if self.problem is _non_empty
            else "must be a string or None"
            if type(None) in self.types
            else "must be a string"
        )


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "data",
        "../data",
        (str,),
        "The folder of data files (one YAML file per size), relative to the conf directory.",
        conf="data_dir",
        problem=_non_empty,
        cli_default="data",
    ),
    Setting(
        "root",
        "..",
        (str,),
        "The repository root, relative to the conf directory: row ``script`` paths are "
        "relative to it, and nothing outside it is read.",
        conf="root",
        problem=_non_empty,
        cli_default=".",
    ),
    Setting(
        "scripts",
        [],
        (list,),
        "The folders whose ``*.sh`` files must each have a row (``rlresources lint``).",
        problem=_folders,
        cli_default=["examples/tuning"],
    ),
    Setting(
        "script_url",
        None,
        (str, type(None)),
        "A URL template for the Link column, with ``{path}`` (the script's path from the "
        "root) and optionally ``{ref}``; e.g. ``https://github.com/org/repo/blob/{ref}/{path}``. "
        "``None`` copies each script into the build and links the copy.",
        conf="script_url",
        problem=_template,
        on_invalid="scripts are copied into the build instead",
    ),
    Setting(
        "script_ref",
        "main",
        (str,),
        "The branch, tag or commit that fills ``{ref}`` in the URL template.",
        conf="script_ref",
        problem=_non_empty,
    ),
    Setting(
        "naming",
        "seed",
        (str,),
        "How the repository names its launch files: a preset -- ``seed`` (the seed page's "
        "``[model]_[task]_[gpunums]_[device]_[train]_[infer].sh``), ``verl`` (``run_<model>_<backend>.sh``), "
        "``nemo-rl`` (``<algo>-<model>[-<N>n<G>g][-variant].yaml`` recipes and their ``.sh`` test-suite "
        "launchers), ``openrlhf`` (``train_<algo>[_<variant>].sh``), ``slime`` (``run-<model>[-variant].sh``), "
        "``skyrl`` (``run_<what>.sh``), ``trl`` (``<trainer>[_variant].py`` or ``.sh``) -- or a pattern of "
        "named fields such as "
        "``'run_{model}_{train}.sh'`` (fields: ``{model}``, ``{task}``, ``{gpus}``, ``{device}``, ``{train}``, "
        "``{infer}``, ``{nodes}``, ``{gpus_per_node}``, ``{variant}``, ``{any}``; ``[...]`` is optional). Only the "
        "fields the rule names are compared with the row, and only files the rule claims can be scripts without "
        "a row.",
        conf="naming",
        problem=rule_problem,
        on_invalid="the seed rule is used",
    ),
    Setting(
        "launch_files",
        None,
        (list, type(None)),
        "Which files are launch files, each of which needs a row (``rlresources lint``'s orphan check): globs "
        "from the root (``*``, ``?``, ``[a-z]``, ``[!0-9]``, and ``**`` for any number of folders), a ``!`` "
        "before a glob to exclude what it matches, e.g. ``['examples/configs/recipes/**/*.yaml', "
        "'!**/*-quick*.yaml']``; ``[]`` turns the check off. Unset: the naming preset's folders (NeMo-RL: "
        "``examples/configs/recipes/**/*.yaml``; SkyRL: ``examples/train/**/*.sh``), "
        "else the ``scripts`` folders. Either way only a file the naming rule claims is a launch file.",
        problem=scope_problem,
    ),
    Setting(
        "max_file_size",
        DEFAULT_MAX_FILE_BYTES,
        (int,),
        "The largest data file read, in bytes; a larger one is reported and not read.",
        conf="max_file_size",
        problem=_positive_bytes,
        on_invalid=f"using {DEFAULT_MAX_FILE_BYTES}",
    ),
    Setting(
        "contributing",
        None,
        (str, type(None)),
        "Where readers learn to contribute a row: a document name or an http(s) URL, linked "
        "from the sentence drawn for a size with no rows. ``None`` links nothing.",
        conf="contributing",
        in_pyproject=False,
        problem=_document_or_url,
        on_invalid="ignored",
    ),
    Setting(
        "filter",
        False,
        (bool,),
        "Give every ``rl-resource-table`` reader-side filter controls in HTML, as its ``:filter:`` "
        "option does; ``:filter: no`` turns them off for one table.",
        conf="filter",
        in_pyproject=False,
    ),
    Setting(
        "stale_check",
        False,
        (bool,),
        "Run the staleness check in the build: rows whose script changed in git after they "
        "were tested are reported (``rlresources.stale``) and marked. Off by default: a code "
        "commit should not fail a ``-W`` docs build unasked; ``rlresources lint --stale`` "
        "runs the same check.",
        conf="stale_check",
        in_pyproject=False,
    ),
    Setting(
        "stale_marker",
        "(stale)",
        (str,),
        "The text added to a stale row (with the staleness check on); ``''`` adds none.",
        conf="stale_marker",
        in_pyproject=False,
    ),
    Setting(
        "mark_unverified",
        False,
        (bool,),
        "Add ``(unverified)`` to rows that have no ``evidence`` link.",
        conf="mark_unverified",
        in_pyproject=False,
    ),
    Setting(
        "max_age_days",
        None,
        (int, type(None)),
        "Add ``(outdated)`` to rows whose ``tested`` date is more than this many days old "
        "(``SOURCE_DATE_EPOCH`` sets the day for reproducible builds). ``None``: no age marker.",
        conf="max_age_days",
        in_pyproject=False,
        problem=_positive_days,
        on_invalid="no age marker is shown",
    ),
    Setting(
        "fail_on",
        "never",
        (str,),
        "Make ``sphinx-build`` exit non-zero, without ``-W``, when the build found a finding at or "
        "above this level: ``'error'`` (a data or script problem, an unknown size) or ``'warning'`` "
        "(any ``rlresources.*`` warning); ``'never'`` leaves the exit status to Sphinx. Every page is "
        "still written, and the log's last lines say how many findings failed the build.",
        conf="fail_on",
        in_pyproject=False,
        problem=_fail_on,
        on_invalid="the build's exit status is left to Sphinx",
    ),
    Setting(
        "cross_check",
        True,
        (bool,),
        "Compare each row with what its script runs (GPUs, inference engine, backend, LoRA, "
        "algorithm, model, batch) and report disagreements as ``rlresources.script_*`` "
        "warnings. ``False`` skips reading the scripts.",
        conf="cross_check",
        in_pyproject=False,
    ),
)

PATH_KEYS = frozenset({"data", "root"})
"""Settings that name a folder: relative to the conf dir in conf.py, to its folder in pyproject.toml."""

CONF_SETTINGS = {s.conf_name: s for s in SETTINGS if s.conf_name}
"""conf.py name -> setting."""

PYPROJECT_SETTINGS = {s.key: s for s in SETTINGS if s.in_pyproject}
"""``[tool.rlresources]`` key -> setting."""


def cli_default(key: str) -> Any:
    """What a command uses for ``key`` when neither a flag nor ``[tool.rlresources]`` gives it."""
    setting = PYPROJECT_SETTINGS[key]
    return setting.cli_default if setting.cli_default is not None else setting.default
