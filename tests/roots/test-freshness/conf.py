extensions = ["sphinx_rlresources"]
rlresources_data_dir = "data"
rlresources_root = "."
rlresources_stale_check = True
rlresources_mark_unverified = True
rlresources_max_age_days = 365
exclude_patterns = ["_build"]
