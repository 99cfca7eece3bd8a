"""The ``rlresources_*`` configuration values: registered from :mod:`core.settings`, checked once.

Names, types, defaults and rules are declared once in
:data:`~sphinx_rlresources.core.settings.SETTINGS`; this module only hands them to
Sphinx and, at ``config-inited``, replaces an unusable value by its default with one
``rlresources.config`` warning, so the rest of the build can trust every value.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sphinx_rlresources.core.settings import CONF_SETTINGS
from sphinx_rlresources.sphinxext.warnings import warn_config

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config


def check_config(app: Sphinx, config: Config) -> None:
    """Validate the values once; a bad value is reported and replaced by its default."""
    confdir = Path(app.confdir)
    for name in ("rlresources_data_dir", "rlresources_root"):
        if not isinstance(getattr(config, name), str):
            continue  # reported below
        folder = (confdir / getattr(config, name)).resolve()
        if not folder.is_dir():
            warn_config(
                f"{name} = {getattr(config, name)!r} is not a folder (resolved to {folder}); "
                "set it relative to the conf directory"
            )
    for name, setting in CONF_SETTINGS.items():
        value = getattr(config, name)
        problem = setting.check(value)
        if problem:
            warn_config(f"{name} = {value!r} {problem}; {setting.on_invalid}")
            setattr(config, name, setting.default)


def add_config_values(app: Sphinx) -> None:
    for name, setting in CONF_SETTINGS.items():
        # Every value changes what is read, so every change re-reads the pages ("env").
        app.add_config_value(name, setting.default, "env", types=setting.types)
