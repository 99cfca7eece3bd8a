"""Sphinx configuration for the sphinx-rlresources documentation."""

from __future__ import annotations

import sphinx_rlresources

project = "sphinx-rlresources"
author = "sphinx-rlresources developers"
copyright = "2026, sphinx-rlresources developers"
version = release = sphinx_rlresources.__version__

extensions = ["sphinx_rlresources"]

# The data and the scripts live at the repository root, beside docs/.
rlresources_data_dir = "../data"
rlresources_root = ".."
rlresources_contributing = "contributing"

html_theme = "furo"
html_title = "sphinx-rlresources"
html_static_path = ["_static"]
exclude_patterns = ["_build"]
nitpicky = True
