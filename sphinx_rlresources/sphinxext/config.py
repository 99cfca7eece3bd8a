"""The ``rlresources_*`` configuration values: registered from :mod:`core.settings`, checked once.

Names, types, defaults and rules are declared once in
:data:`~sphinx_rlresources.core.settings.SETTINGS`; this module only hands them to
Sphinx and, at ``config-inited``, replaces an unusable value by its default with one
``rlresources.config`` warning, so the rest of the build can trust every value.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from sphinx_rlresources.core.diagnostics import relpath
from sphinx_rlresources.core.project import SettingsError, find_pyproject, load_project, outside, repository_of
from sphinx_rlresources.core.settings import CONF_SETTINGS, PATH_KEYS, Setting
from sphinx_rlresources.sphinxext.warnings import warn_config

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config


CONF_SETTINGS_BY_KEY = {s.key: name for name, s in CONF_SETTINGS.items()}
"""``[tool.rlresources]`` key -> its conf.py name."""


def _set_in_conf(config: Config, name: str) -> bool:
    """Whether conf.py (or ``-D``) gave ``name``, rather than its default."""
    return name in getattr(config, "_raw_config", {}) or name in getattr(config, "overrides", {})


def _comparable(setting: Setting, value: object, base: Path) -> object:
    """A value as the build would use it: a path setting as the folder it names."""
    if setting.key in PATH_KEYS and isinstance(value, str):
        return os.path.normpath(base / value)
    return value


def apply_pyproject(app: Sphinx, config: Config) -> None:
    """``[tool.rlresources]`` of the nearest ``pyproject.toml`` above the conf dir, as defaults.

    A repository states its layout once, for the build, ``rlresources lint`` and every
    command; a conf.py value overrides it for the build, and when both are given and
    differ the build says so once.
    """
    confdir = Path(app.confdir)
    try:
        found = find_pyproject(confdir.resolve())
        project = load_project(confdir.resolve()) if found else None
    except SettingsError as err:
        warn_config(f"{err}; [tool.rlresources] is not used by the build")
        return
    if found is None or project is None:
        return
    path, table = found
    for name, setting in CONF_SETTINGS.items():
        if not setting.in_pyproject or setting.key not in table:
            continue
        value = table[setting.key]
        if not _set_in_conf(config, name):
            # paths in pyproject.toml are relative to its folder; make them absolute
            setattr(config, name, os.path.normpath(path.parent / value) if setting.key in PATH_KEYS else value)
            continue
        mine = getattr(config, name)
        if _comparable(setting, mine, confdir) != _comparable(setting, value, path.parent):
            warn_config(
                f"{name} = {mine!r} in conf.py and {setting.key} = {value!r} in [tool.rlresources] of "
                f"{relpath(path)} differ; the build uses conf.py's value and rlresources lint uses "
                "pyproject.toml's: state it once, in pyproject.toml"
            )


def confine(confdir: Path, config: Config) -> None:
    """Keep the root inside the repository and the data folder inside the root, as the command line does.

    conf.py is Python that the build runs, so this guards against a mistake more than an
    attack; ``[tool.rlresources]`` values reach here only after the same check passed.
    """
    repository = repository_of(confdir.resolve(), confdir.resolve().parent)
    root = Path(os.path.normpath(confdir / config.rlresources_root))
    data = Path(os.path.normpath(confdir / config.rlresources_data_dir))
    for key, problem in outside(repository, root, data):
        name = CONF_SETTINGS_BY_KEY[key]
        value = getattr(config, name)
        if key == "root":
            warn_config(f"{name} = {value!r} {problem}; the repository's top is used")
            config.rlresources_root = os.fspath(repository)
            confine(confdir, config)  # the data folder, against the root now used
            return
        warn_config(f"{name} = {value!r} {problem}; the root's data folder is used")
        config.rlresources_data_dir = os.fspath(root / "data")


def check_config(app: Sphinx, config: Config) -> None:
    """Validate the values once; a bad value is reported and replaced by its default."""
    apply_pyproject(app, config)
    confdir = Path(app.confdir)
    for name, setting in CONF_SETTINGS.items():
        value = getattr(config, name)
        problem = setting.check(value)
        if problem:
            warn_config(f"{name} = {value!r} {problem}; {setting.on_invalid}")
            setattr(config, name, setting.default)
    confine(confdir, config)
    for name in ("rlresources_data_dir", "rlresources_root"):
        if not isinstance(getattr(config, name), str):
            continue  # reported above
        folder = (confdir / getattr(config, name)).resolve()
        if not folder.is_dir():
            warn_config(
                f"{name} = {getattr(config, name)!r} is not a folder (resolved to {folder}); "
                "set it relative to the conf directory"
            )


def add_config_values(app: Sphinx) -> None:
    for name, setting in CONF_SETTINGS.items():
        # Every value changes what is read, so every change re-reads the pages ("env").
        app.add_config_value(name, setting.default, "env", types=setting.types)
