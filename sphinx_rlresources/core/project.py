"""``[tool.rlresources]`` in ``pyproject.toml``: a repository's settings, read without Sphinx.

Which keys exist, their types and rules come from :mod:`.settings`; this module only
finds the nearest table and makes its paths absolute.  Paths there are relative to the
folder that holds ``pyproject.toml``, so a command gives the same answer from any
subfolder of the repository.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sphinx_rlresources.core.diagnostics import relpath
from sphinx_rlresources.core.settings import PYPROJECT_SETTINGS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


class SettingsError(Exception):
    """``pyproject.toml`` cannot be read, or a value in ``[tool.rlresources]`` is unusable."""


@dataclass
class Project:
    """The values of ``[tool.rlresources]`` (None where not given), with paths made absolute."""

    base: Path
    data: Path | None = None
    root: Path | None = None
    scripts: list[Path] = field(default_factory=list)
    script_url: str | None = None
    script_ref: str = PYPROJECT_SETTINGS["script_ref"].default
    max_file_size: int | None = None
    naming: str = PYPROJECT_SETTINGS["naming"].default
    script_glob: str | None = None


def find_pyproject(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest ``pyproject.toml`` (here or above) with a ``[tool.rlresources]`` table."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if not candidate.is_file():
            continue
        try:
            with open(candidate, "rb") as handle:
                content = tomllib.load(handle)
        except tomllib.TOMLDecodeError as err:
            raise SettingsError(
                f"{relpath(candidate)} is not valid TOML ({err}); fix it or run from another folder"
            ) from None
        except OSError as err:
            raise SettingsError(f"{relpath(candidate)} cannot be read ({err.strerror or err})") from None
        tool = content.get("tool", {})
        table = tool.get("rlresources") if isinstance(tool, dict) else None
        if table is not None:
            if not isinstance(table, dict):
                raise SettingsError(f"{relpath(candidate)}: [tool.rlresources] must be a table")
            return candidate, table
    return None


def _checked(table: dict[str, Any], key: str, where: Path) -> Any:
    """The table's value for ``key`` (None when absent), checked by the setting's rule."""
    value = table.get(key)
    if value is None:
        return None
    setting = PYPROJECT_SETTINGS[key]
    if key == "scripts" and isinstance(value, str):
        value = [value]  # one folder may be written without the list
    problem = setting.check(value)
    if problem:
        example = json.dumps(setting.cli_default if setting.cli_default is not None else setting.default)
        hint = f", e.g. {key} = {example}" if problem.startswith("must be") and example != "null" else ""
        raise SettingsError(f"{relpath(where)}: tool.rlresources.{key} {problem}{hint}")
    return value


def load_project(start: Path | None = None) -> Project:
    """Read ``[tool.rlresources]`` from the nearest ``pyproject.toml`` that has it."""
    start = (start or Path.cwd()).resolve()
    found = find_pyproject(start)
    if found is None:
        return Project(base=start)
    path, table = found
    base = path.parent
    unknown = sorted(set(table) - set(PYPROJECT_SETTINGS))
    if unknown:
        raise SettingsError(
            f"{relpath(path)}: unknown key(s) in [tool.rlresources]: {', '.join(unknown)}; "
            f"the keys are: {', '.join(PYPROJECT_SETTINGS)}"
        )
    values = {key: _checked(table, key, path) for key in PYPROJECT_SETTINGS}
    return Project(
        base=base,
        data=base / values["data"] if values["data"] else None,
        root=base / values["root"] if values["root"] else None,
        scripts=[base / s for s in values["scripts"] or []],
        script_url=values["script_url"],
        script_ref=values["script_ref"] or PYPROJECT_SETTINGS["script_ref"].default,
        max_file_size=values["max_file_size"],
        naming=values["naming"] or PYPROJECT_SETTINGS["naming"].default,
        script_glob=values["script_glob"],
    )
