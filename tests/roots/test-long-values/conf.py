# A page with the values real framework pages have: RECOMMENDED, long model names,
# engine versions with a post-release suffix, 16 GPUs and long script names.
extensions = ["sphinx_rlresources"]
project = "long values"
rlresources_data_dir = "data"
rlresources_root = "."
rlresources_cross_check = False
html_theme = "furo"
exclude_patterns = ["_build"]
