"""The ``TODO`` placeholders that ``rlresources new`` writes, and the findings they raise.

A scaffolded row must not pass as data until a person fills in what no script can
tell (the largest batch that ran, who ran it).  Writing the word ``TODO`` keeps the
file valid YAML that an editor shows plainly, and this module turns every ``TODO``
into one clear "fill this in" finding instead of the schema's less helpful
"'TODO' is text, but a whole number is expected".  The row's file stays unreadable
for the build until then, like any file that breaks the schema.
"""

from __future__ import annotations

from typing import Any

from sphinx_rlresources.core.diagnostics import Diagnostic, Subtype
from sphinx_rlresources.core.validation import field_example, field_schema, path_text
from sphinx_rlresources.safe.yamlsafe import Path_, YamlDocument

TODO = "TODO"


def _todo_paths(value: Any) -> list[Path_]:
    entries = value.get("entries") if isinstance(value, dict) else None
    if not isinstance(entries, list):
        return []
    found: list[Path_] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue
        for name, item in entry.items():
            if item == TODO:
                found.append(("entries", index, name))
            elif isinstance(item, dict):
                found.extend(("entries", index, name, key) for key, sub in item.items() if sub == TODO)
    return found


def replace_schema_errors(doc: YamlDocument, shown: str, schema_found: list[Diagnostic]) -> list[Diagnostic]:
    """``schema_found`` with each placeholder's schema error replaced by a placeholder finding."""
    paths = _todo_paths(doc.value)
    if not paths:
        return schema_found
    prefixes = tuple(path_text(path) + ":" for path in paths)
    kept = [d for d in schema_found if not d.message.startswith(prefixes)]
    for path in paths:
        line, column = doc.mark(path)
        description = field_schema(path).get("description", "")
        example = field_example(path)
        what = f" ({description.rstrip('.')})" if description else ""
        hint = f"; for example {example}" if example else ""
        kept.append(
            Diagnostic(
                shown,
                line,
                column,
                Subtype.PLACEHOLDER,
                f"{path_text(path)}: still TODO, a placeholder written by 'rlresources new' or 'import'; "
                f"fill it in{what}{hint}",
                json_path=path_text(path),
            )
        )
    return sorted(kept)
