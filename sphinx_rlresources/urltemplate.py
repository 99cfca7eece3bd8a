"""The script URL template (``rlresources_script_url``, ``render --script-url``), checked once.

Kept apart from :mod:`.config` so that the command line can check a template without
importing Sphinx.
"""

from __future__ import annotations

import string


def url_template_problem(template: str) -> str | None:
    """Why a script URL template is unusable, or None."""
    if not template.startswith(("https://", "http://")):
        return "must start with https:// or http://"
    try:
        fields = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    except ValueError as err:
        return f"is not a valid template ({err})"
    unknown = fields - {"path", "ref"}
    if unknown:
        return f"uses {', '.join('{' + f + '}' for f in sorted(unknown))}; only {{path}} and {{ref}} are filled"
    if "path" not in fields:
        return "has no {path}"
    return None
