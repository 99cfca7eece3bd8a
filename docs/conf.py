"""Sphinx configuration for the sphinx-rlresources documentation."""

from __future__ import annotations

import sys
from pathlib import Path

import sphinx_rlresources

# Local helpers that generate tables from the package itself (schema, subtypes, config, the import map).
sys.path.insert(0, str(Path(__file__).parent / "_ext"))
# The estimator's validation against published runs: dev-only code, kept with the benchmarks.
sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))

project = "sphinx-rlresources"
author = "sphinx-rlresources developers"
copyright = "2026, sphinx-rlresources developers"
version = release = sphinx_rlresources.__version__

extensions = ["sphinx_rlresources", "rlr_docs", "rlr_architecture", "myst_parser"]
# Markdown (MyST) pages beside reStructuredText ones: see compatibility.rst.
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}

# The data and the scripts live at the repository root, beside docs/.
rlresources_data_dir = "../data"
rlresources_root = ".."
rlresources_contributing = "contributing"

# Freshness (see freshness.rst): mark rows whose script changed in git after they were
# tested, and rows tested more than a year ago. The staleness findings are shown as
# markers, not build failures: a code commit must not fail this -W build, and CI's
# shallow clone skips the check with a note anyway. `rlresources lint --stale` reports them.
rlresources_stale_check = True
rlresources_max_age_days = 365
suppress_warnings = ["rlresources.stale"]

html_theme = "furo"
html_title = "sphinx-rlresources"
html_static_path = ["_static"]
html_css_files = ["rlr-docs.css"]  # the reference tables of docs/_ext wrap in every theme
exclude_patterns = ["_build"]
nitpicky = True

# PDF (sphinx-build -M latexpdf, Read the Docs): characters pdflatex does not know by default.
latex_elements = {
    "preamble": r"""
\DeclareUnicodeCharacter{2190}{\ensuremath{\leftarrow}}
\DeclareUnicodeCharacter{2192}{\ensuremath{\rightarrow}}
\DeclareUnicodeCharacter{2194}{\ensuremath{\leftrightarrow}}
\DeclareUnicodeCharacter{2248}{\ensuremath{\approx}}
\DeclareUnicodeCharacter{2260}{\ensuremath{\neq}}
\DeclareUnicodeCharacter{2264}{\ensuremath{\leq}}
\DeclareUnicodeCharacter{2265}{\ensuremath{\geq}}
\DeclareUnicodeCharacter{2713}{\ensuremath{\checkmark}}
""",
}
