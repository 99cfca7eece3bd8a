project = "RL resources"
author = "Builders test"
copyright = "2026, Builders test"
version = release = "1.0"
extensions = ["sphinx_rlresources"]
rlresources_data_dir = "data"
rlresources_root = "."
rlresources_contributing = "contributing"
exclude_patterns = ["_build"]
nitpicky = True
man_pages = [("index", "rlresources", "RL resources", ["Builders test"], 7)]
latex_documents = [("index", "rlresources.tex", "RL resources", "Builders test", "manual")]
numfig = True
