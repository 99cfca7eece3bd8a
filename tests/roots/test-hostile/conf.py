project = "Hostile data"
author = "Hostile test"
copyright = "2026, Hostile test"
version = release = "1.0"
extensions = ["sphinx_rlresources"]
rlresources_data_dir = "data"
rlresources_root = "."
exclude_patterns = ["_build"]
man_pages = [("index", "hostile", "Hostile data", ["Hostile test"], 7)]
latex_documents = [("index", "hostile.tex", "Hostile data", "Hostile test", "manual")]
