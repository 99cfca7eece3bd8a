# The browser test builds this page in place (not a copy), over the repository's own
# data and scripts, so the screenshots in the docs show the real seed page's rows.
extensions = ["sphinx_rlresources"]
project = "sphinx-rlresources"
rlresources_data_dir = "../../../data"
rlresources_root = "../../.."
html_theme = "furo"
html_title = "sphinx-rlresources"
exclude_patterns = ["_build"]
# The sentence under an empty size links here, as on a real site (its contrast is tested).
rlresources_contributing = "https://example.org/contributing.html"
