"""Hardware-resource tables for RL training, drawn from checked YAML data."""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

#: Bump when what the extension keeps on the build environment changes shape.
ENV_VERSION = 1


def setup(app: Sphinx) -> ExtensionMetadata:
    """Register the directive, the configuration values and the build events."""
    from . import config, deferred, extension, filtering, freshness_ext, layout, outputs, readers
    from .directive import RLResourceTable
    from .i18n import LOCALE_DIR, MESSAGE_CATALOG

    config.add_config_values(app)
    app.add_message_catalog(MESSAGE_CATALOG, str(LOCALE_DIR))
    app.connect("config-inited", config.check_config)
    app.connect("env-get-outdated", extension.on_env_get_outdated)
    app.connect("env-before-read-docs", extension.on_env_before_read_docs)
    app.connect("env-purge-doc", extension.on_env_purge_doc)
    app.connect("env-merge-info", extension.on_env_merge_info)
    app.connect("env-updated", outputs.check_download_folder)  # before writing the script copies
    app.connect("doctree-resolved", layout.on_doctree_resolved)
    app.add_node(layout.rlresources_breakable, html=(layout.visit_breakable, layout.depart_breakable))  # type: ignore[arg-type]
    app.connect("builder-inited", layout.on_builder_inited)
    app.add_directive("rl-resource-table", RLResourceTable)
    app.add_directive("rl-resource-chart", readers.RLResourceChart)
    app.add_directive("rl-resource-coverage", readers.RLResourceCoverage)
    filtering.register(app)  # filter nodes, their assets
    readers.register(app)  # chart and coverage nodes, the JSON file
    freshness_ext.setup(app)
    deferred.setup(app)  # table rows skip the read-phase transforms
    return {
        "version": __version__,
        "env_version": ENV_VERSION,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
