"""``rlresources inspect``: what does this script ask for?

The reader behind every check, shown to contributors and reviewers: for each launch
script or recipe config, the framework and every setting a row is checked against,
each with the line that wrote it and whether it is written there, a default the script
documents, the row's environment, the framework's own default, or decided only at run
time.  ``--env KEY=VALUE`` layers an environment over the script's defaults, as a row's
``env:`` does.  The text is for people; ``--format json`` is for programs: a list of
objects whose keys are the :class:`~sphinx_rlresources.scripts.run.Run` fields, with
whether the file was recognised (and why not), its GPU pools, and where each value
comes from.

Exit status: 0 every file was read, 1 a file was read but has mistakes of its own, 2
the command could not run, 3 a file is not recognised (a kind no reader reads, or no
launch or config any reader knows) -- kept apart from 1 so that a program can tell
"read, with a problem" from "not read at all".
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from sphinx_rlresources.cli.common import EXIT_FINDINGS, EXIT_OK, CliError, Lines, load_project, repository_root
from sphinx_rlresources.core import rowscript
from sphinx_rlresources.core.diagnostics import relpath
from sphinx_rlresources.core.loader import MAX_PER_FILE
from sphinx_rlresources.core.paths import is_within, read_regular, real_path
from sphinx_rlresources.safe.text import MAX_LOCATION, json_text, one_line, safe_start
from sphinx_rlresources.scripts.frameworks import file_kind, unread_kind
from sphinx_rlresources.scripts.frameworks.pools import own_pools
from sphinx_rlresources.scripts.run import Found, Origin, Role, Run

_ENV = re.compile(r"^([A-Za-z_][A-Za-z0-9_]{0,63})=(.{0,500})$", re.DOTALL)
ORIGIN_WORDS = {
    Origin.SET: "set",
    Origin.SCRIPT_DEFAULT: "script default",
    Origin.ENV: "env",
    Origin.FRAMEWORK_DEFAULT: "framework default",
    Origin.DERIVED: "derived",
    Origin.RUNTIME: "run time",
    Origin.UNKNOWN: "unknown",
}
HEADLINE = ("gpus", "nodes", "gpus_per_node", "engine", "train_backend", "model", "lora_rank")
"""The keys every JSON object has (``null`` when unknown), and the first lines of the text."""
EXIT_UNRECOGNISED = 3
WHOLE_RUN = "run"
"""The one pool of a run whose roles share their GPUs (or that names no roles)."""


def env_pair(text: str) -> tuple[str, str]:
    """An argparse type: ``KEY=VALUE``."""
    match = _ENV.match(text)
    if not match or not match.group(2).isprintable():
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE (a variable name, '=', a one-line value)")
    return match.group(1), match.group(2)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", metavar="PATH", nargs="+", help="launch scripts (.sh, .bash, .slurm, .sbatch), recipe configs (.yaml)"
    )
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="text for people, json for tools (default text)"
    )
    parser.add_argument(
        "--env",
        metavar="KEY=VALUE",
        type=env_pair,
        action="append",
        default=[],
        help="an environment variable over the scripts' documented defaults, as a row's env: (repeatable)",
    )
    parser.add_argument(
        "--root",
        metavar="DIR",
        help="the repository root: sourced files are read inside it (default: root in [tool.rlresources], else .)",
    )


def value_of(found: Found[Any]) -> Any:
    """The value as JSON shows it (only what is known)."""
    return found.value if found.origin not in (Origin.UNKNOWN, Origin.RUNTIME) else None


def recognised(run: Run) -> bool:
    """Whether a reader read the file: a framework's adapter, or a launcher whose entry point is known."""
    return not run.unrecognised and (run.framework is not None or run.launch_line > 0)


def why_not(run: Run) -> str | None:
    """Why the file was not recognised (None when it was)."""
    if recognised(run):
        return None
    if run.unrecognised:
        return run.unrecognised
    error = next((p.message for p in run.problems if p.severity == "error"), "")
    return error or "no reader knows this file"


def where(found: Found[Any], run: Run) -> dict[str, Any]:
    """Where a value comes from: its origin, file and line (0: written nowhere), and how it is written."""
    return {"origin": found.origin.value, "file": found.file or run.path, "line": found.line, "written": found.written}


def pools(run: Run) -> list[dict[str, Any]]:
    """The GPU pools of the run: each role with GPUs of its own, and the roles that share them."""
    own = own_pools(run) or (Role(WHOLE_RUN, run.gpus, run.nodes, run.gpus_per_node),)
    found = []
    for pool in own:
        parts = {"gpus": pool.gpus, "nodes": pool.nodes, "gpus_per_node": pool.gpus_per_node}
        found.append(
            {
                "name": pool.name,
                **{name: value_of(part) for name, part in parts.items()},
                "shared_by": [role.name for role in run.roles if role.colocated_with == pool.name],
                "detail": {name: where(part, run) for name, part in parts.items()},
            }
        )
    return found


def as_json(run: Run) -> dict[str, Any]:
    """The object ``--format json`` prints for one file."""
    settings = run.settings()
    out: dict[str, Any] = {
        "path": run.path,
        "recognised": recognised(run),
        "why_not": why_not(run),
        "framework": run.framework,
        "entry_point": run.entry_point,
        "launch_line": run.launch_line,
    }
    out.update({name: value_of(found) for name, found in settings.items()})
    out["detail"] = {
        name: {"value": value_of(found), **where(found, run)}
        for name, found in settings.items()
        if name in HEADLINE or found.origin is not Origin.UNKNOWN or found.line
    }
    out["pools"] = pools(run) if recognised(run) else []
    out["roles"] = [
        {
            "name": role.name,
            "gpus": value_of(role.gpus),
            "nodes": value_of(role.nodes),
            "gpus_per_node": value_of(role.gpus_per_node),
        }
        for role in run.roles
    ]
    out["problems"] = [
        {"line": p.line, "kind": p.kind, "severity": p.severity, "message": p.message}
        for p in run.problems[:MAX_PER_FILE]
    ]
    out["problems_not_shown"] = max(0, len(run.problems) - MAX_PER_FILE)
    out["deprecated"] = list(run.deprecated)
    return out


def as_text(run: Run) -> list[str]:
    """The lines the text format prints for one file."""
    path = safe_start(one_line(run.path, MAX_LOCATION))
    if not recognised(run):
        head = f"{path}: not recognised: {one_line(why_not(run) or '', 300)}"
    elif run.framework is None:
        entry = f" ({one_line(run.entry_point or '', 80)}, line {run.launch_line})"
        head = f"{path}: framework unknown, launched{entry}"
    else:
        entry = f" ({one_line(run.entry_point, 80)}, line {run.launch_line})" if run.entry_point else ""
        head = f"{path}: {run.framework}{entry}"
    lines = [head]
    if not recognised(run):  # every setting would read unknown: only why, and the script's own mistakes
        return lines + problem_lines(run)
    settings = run.settings()
    order = [*HEADLINE, *(name for name in settings if name not in HEADLINE)]
    for name in order:
        found = settings[name]
        if name not in HEADLINE and found.origin is Origin.UNKNOWN and not found.line:
            continue  # nothing at all is known of it: not worth a line
        shown = "unknown" if value_of(found) is None else one_line(str(found.value), 80)
        where = f"line {found.line}" if found.line else ""
        if found.file and found.file != run.path:
            where = f"{one_line(found.file, 120)}:{found.line}"
        how = one_line(found.written, 120) if found.written else ""
        lines.append(f"  {name:<30} {shown:<24} {ORIGIN_WORDS[found.origin]:<18} {where or '-':<9} {how}".rstrip())
    for role in run.roles[1:] if len(run.roles) > 1 else ():
        lines.append(f"  role {role.name}: {value_of(role.gpus) or 'unknown'} GPUs")
    return lines + problem_lines(run)


def problem_lines(run: Run) -> list[str]:
    """The file's problems, the first :data:`MAX_PER_FILE` of them, then how many more."""
    lines = [f"  {p.severity}: line {p.line}: {one_line(p.message)}" for p in run.problems[:MAX_PER_FILE]]
    if len(run.problems) > MAX_PER_FILE:  # a recipe that names thousands of missing parents: a count, not a flood
        more = len(run.problems) - MAX_PER_FILE
        lines.append(f"  {more} more problems in this file are not shown (the first {MAX_PER_FILE} are)")
    return lines


def read(path: Path, root: Path, env: dict[str, str]) -> Run:
    """One file, read the way a row's script is read (bounded, sourced files inside the root)."""
    real_root, real = real_path(root), real_path(path)
    if not is_within(real, real_root):
        raise CliError(f"'{relpath(path)}' is outside the repository root '{relpath(root)}'; pass --root DIR")
    try:
        data = read_regular(real, rowscript.MAX_SCRIPT_BYTES)
    except FileNotFoundError:
        raise CliError(f"'{relpath(path)}' does not exist") from None
    except OSError as err:
        raise CliError(f"'{relpath(path)}' cannot be read ({err.strerror or err})") from None
    relative = real.relative_to(real_root).as_posix()
    if file_kind(relative) is None:
        return Run(path=relative, unrecognised=unread_kind(relative))
    return rowscript.run_of(data, relative, env, rowscript.TreeFiles(root))


def run(args: argparse.Namespace, out: Lines) -> int:
    root = repository_root(args, load_project())
    env = dict(args.env)
    found = [read(Path(path), root, env) for path in args.paths]
    if args.format == "json":
        out.write(json_text([as_json(item) for item in found]))
        out.write("\n")
    else:
        for item in found:
            out.write("\n".join(as_text(item)) + "\n")
    if not all(recognised(item) for item in found):
        return EXIT_UNRECOGNISED
    troubled = any(p.severity == "error" for item in found for p in item.problems)
    return EXIT_FINDINGS if troubled else EXIT_OK
