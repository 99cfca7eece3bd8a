extensions = ["sphinx_rlresources"]
rlresources_data_dir = "data"
rlresources_root = "."
exclude_patterns = ["_build", "spare"]
