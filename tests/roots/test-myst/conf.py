extensions = ["myst_parser", "sphinx_rlresources"]
rlresources_data_dir = "data"
rlresources_root = "."
exclude_patterns = ["_build"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
