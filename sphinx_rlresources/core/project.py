"""``[tool.rlresources]`` in ``pyproject.toml``: a repository's settings, read without Sphinx.

Which keys exist, their types and rules come from :mod:`.settings`; this module only
finds the nearest table and makes its paths absolute.  Paths there are relative to the
folder that holds ``pyproject.toml``, so a command gives the same answer from any
subfolder of the repository.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sphinx_rlresources.core.diagnostics import relpath
from sphinx_rlresources.core.paths import is_within, real_path
from sphinx_rlresources.core.settings import PYPROJECT_SETTINGS
from sphinx_rlresources.safe.text import shown

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
    launch_files: list[str] | None = None


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


def repository_of(folder: Path, fallback: Path) -> Path:
    """The repository a settings file in ``folder`` belongs to: the paths it names must stay inside.

    The top of the git work tree (the nearest folder with ``.git``), else the nearest
    folder with a ``pyproject.toml``, else ``fallback``.  A pull request cannot add a
    ``.git`` entry (git refuses the name), so it cannot move this line.
    """
    for candidate in (folder, *folder.parents):
        if os.path.lexists(candidate / ".git"):
            return candidate
    for candidate in (folder, *folder.parents):
        if (candidate / "pyproject.toml").is_file():
            return candidate
    return fallback


def _leads_out(path: Path, real_outer: Path, outer: Path, what: str) -> str | None:
    """How ``path`` leaves ``outer`` (whose real path is ``real_outer``), or None when it stays inside."""
    if is_within(real_path(path), real_outer):
        return None
    if is_within(Path(os.path.normpath(path.absolute())), Path(os.path.normpath(outer.absolute()))):
        return f"is, or passes through, a symbolic link that leads outside the {what}"
    return f"leads outside the {what} ({real_outer})"


def outside(repository: Path, root: Path, data: Path | None, scripts: Sequence[Path] = ()) -> list[tuple[str, str]]:
    """Which folder settings lead out of where they must stay, as (key, what is wrong and the fix).

    The root may narrow the repository, never widen it; the data folder and the script
    folders lie inside the root.  Every path is compared with its links followed, so
    ``..``, ``/``, an absolute path and a link that leads out are all caught.
    """
    real_root = real_path(root)
    wide = _leads_out(root, real_path(repository), repository, "repository")
    if wide:
        return [("root", f"{wide}; the root may narrow the repository, never widen it: name '.' or a folder in it")]
    found = []
    out = None if data is None else _leads_out(data, real_root, root, "root")
    if out:
        found.append(("data", f"{out}; the data folder lives inside the root: name a real folder in it"))
    for folder in scripts:
        out = _leads_out(folder, real_root, root, "root")
        if out:
            found.append(("scripts", f"has {shown(folder.as_posix())}, which {out}; name real folders in the root"))
            break
    return found


def _refuse_script_glob(table: dict[str, Any], path: Path) -> None:
    """``script_glob`` (a string) became ``launch_files`` (a list): say the line to write instead."""
    if "script_glob" not in table:
        return
    glob = table["script_glob"]
    instead = json.dumps([glob] if isinstance(glob, str) else glob)  # escapes line breaks and control bytes
    instead = instead if len(instead) <= 120 else '["examples/**/*.sh"]'  # a stranger's long value is not echoed
    raise SettingsError(
        f"{relpath(path)}: tool.rlresources.script_glob was replaced by launch_files, a list of globs; "
        f"write launch_files = {instead} instead"
    )


def load_project(start: Path | None = None) -> Project:
    """Read ``[tool.rlresources]`` from the nearest ``pyproject.toml`` that has it."""
    start = (start or Path.cwd()).resolve()
    found = find_pyproject(start)
    if found is None:
        return Project(base=start)
    path, table = found
    base = path.parent
    _refuse_script_glob(table, path)
    unknown = sorted(set(table) - set(PYPROJECT_SETTINGS))
    if unknown:
        raise SettingsError(
            f"{relpath(path)}: unknown key(s) in [tool.rlresources]: {', '.join(unknown)}; "
            f"the keys are: {', '.join(PYPROJECT_SETTINGS)}"
        )
    values = {key: _checked(table, key, path) for key in PYPROJECT_SETTINGS}
    root = base / values["root"] if values["root"] else None
    data = base / values["data"] if values["data"] else None
    scripts = [base / s for s in values["scripts"] or []]
    for key, problem in outside(repository_of(base, base), root or base, data, scripts):
        value = "" if key == "scripts" else f" = {shown(table[key])}"
        raise SettingsError(f"{relpath(path)}: tool.rlresources.{key}{value} {problem}")
    return Project(
        base=base,
        data=data,
        root=root,
        scripts=scripts,
        script_url=values["script_url"],
        script_ref=values["script_ref"] or PYPROJECT_SETTINGS["script_ref"].default,
        max_file_size=values["max_file_size"],
        naming=values["naming"] or PYPROJECT_SETTINGS["naming"].default,
        launch_files=values["launch_files"],
    )
