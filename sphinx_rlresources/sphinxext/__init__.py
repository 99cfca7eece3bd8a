"""The Sphinx layer: configuration values, the stored data set, the directives, role, nodes and writers.

Everything here turns what :mod:`sphinx_rlresources.core` answers into docutils nodes
and Sphinx warnings; no rule about the data lives here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sphinx_rlresources.sphinxext import (
    assets,
    chart,
    config,
    coverage,
    deferred,
    estimate,
    export,
    failon,
    filtering,
    freshness,
    layout,
    outputs,
    store,
)
from sphinx_rlresources.sphinxext.i18n import LOCALE_DIR, MESSAGE_CATALOG
from sphinx_rlresources.sphinxext.table import RLResourceTable

if TYPE_CHECKING:
    from sphinx.application import Sphinx


def register(app: Sphinx) -> None:
    """Register every configuration value, event handler, directive, role and node."""
    config.add_config_values(app)
    app.add_message_catalog(MESSAGE_CATALOG, str(LOCALE_DIR))
    app.connect("config-inited", config.check_config)
    store.register(app)  # load once per build; track which pages draw which sizes
    app.connect("env-updated", outputs.check_download_folder)  # before writing the script copies
    layout.register(app)
    assets.register(app)
    app.add_directive("rl-resource-table", RLResourceTable)
    chart.register(app)
    coverage.register(app)
    estimate.register(app)  # rl-resource-estimate
    filtering.register(app)  # filter nodes, their assets
    export.register(app)  # the JSON file
    freshness.register(app)  # the rl-last-updated role
    deferred.register(app)  # table rows skip the read-phase transforms
    failon.register(app)  # rlresources_fail_on: the exit status without -W
