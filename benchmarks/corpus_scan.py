#!/usr/bin/env python3
"""How much of real launch scripts the framework adapters read, and whether any value they give is wrong.

    python benchmarks/corpus_scan.py DIR [DIR...] [--json] [--truth FILE.jsonl ...]

Each DIR is a repository's tree (``git -C MIRROR archive HEAD | tar -x -C DIR``; never a
checkout of this project).  Every ``*.sh``, ``*.yaml``/``*.yml`` and ``*.toml`` under it
(``.git`` skipped) is read with :func:`~sphinx_rlresources.scripts.frameworks.read_file`,
with a :class:`TreeFiles` that answers for files of the same tree (what the script
``source``\\ s, the accelerate config it names).  A file counts once some adapter claims
it (or the generic launcher layer reads it: the ``(launcher)`` group); per framework the
scan reports the files read and the share whose GPUs, engine,
train backend and model are known.

``--truth`` compares with rows a careful reader wrote (``path``, ``gpus``, ``engine``,
``train_backend``, ``model``, optionally ``nodes`` and ``gpus_per_node``; the research files'
``total_gpus``, ``rollout_engine`` and ``model_path`` are read too; ``null`` = the file does
not settle it, not scored).  A row
with ``repo`` (``owner/name`` or ``owner/name@tag``) applies to the DIR named
``owner+name`` (``owner+name@tag``); without one, to any DIR holding its path.  Every
value given that differs from the row is listed as WRONG: the target is none at all.  A
row with ``repo`` whose file no adapter claims counts the values it settles as "not read"
(in the share's denominator), so a file the reader skips is never left out of the figure.
Totals are printed overall and per DIR.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from sphinx_rlresources.scripts.docstring import command_lines  # noqa: E402
from sphinx_rlresources.scripts.files import inside  # noqa: E402
from sphinx_rlresources.scripts.frameworks import read_file  # noqa: E402
from sphinx_rlresources.scripts.run import Run  # noqa: E402

MAX_BYTES = 1_000_000
LAUNCHER = "(launcher)"
"""The group of files read by the generic launcher layer alone: GPUs known, the framework not."""
FIELDS = ("gpus", "engine", "train_backend", "model")
SCORED = (*FIELDS, "nodes", "gpus_per_node")
"""What a truth row may settle: the four fields the summary counts, and a run's nodes and GPUs per node."""
TRUTH_KEYS = {
    "nodes": ("nodes",),
    "gpus_per_node": ("gpus_per_node",),
    "gpus": ("gpus", "total_gpus"),
    "engine": ("engine", "rollout_engine"),
    "train_backend": ("train_backend",),
    "model": ("model", "model_path"),
}
TALLY = (("right", "right"), ("unknown", "unknown"), ("not read", "not_read"), ("WRONG", "wrong"))
"""The outcomes a truth row's value can have, as printed."""
SUFFIXES = (".sh", ".yaml", ".yml", ".toml")
FENCE = re.compile(r"^\s*```(?:bash|sh|shell|console)?\s*$")


class TreeFiles:
    """Reads a file of one tree by its path from the tree's root: regular files inside it, bounded."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def read(self, path: str) -> str | None:
        relative = inside(path)
        if relative is None:
            return None
        target = self.root / relative
        try:
            resolved = target.resolve()
            if not resolved.is_relative_to(self.root) or not resolved.is_file():
                return None
            if resolved.stat().st_size > MAX_BYTES:
                return None
            return resolved.read_text("utf-8", errors="replace")
        except OSError:
            return None


def walk(root: Path, suffixes: tuple[str, ...] = SUFFIXES) -> list[str]:
    """Every candidate file under ``root`` (``.git`` skipped), as paths from the root, sorted."""
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in names:
            if name.endswith(suffixes):
                found.append(str((Path(folder) / name).relative_to(root)))
    return sorted(found)


def snippets(path: str, text: str) -> list[tuple[str, str]]:
    """``--snippets``: the commands of a Markdown file's shell blocks, each block one script.

    TRL ships no launch scripts: its commands live in its docs (here) and its examples'
    docstrings (a ``.py`` file is read whole by ``read_file``, through its docstring).
    Only command lines (and the lines they continue with ``\\``) are kept
    (:func:`~sphinx_rlresources.scripts.docstring.command_lines`), so prose never reaches
    the reader; each block is one script named ``path#L<first>-<last>``, blank lines kept
    so its line numbers are the file's.
    """
    blocks: list[tuple[int, list[str]]] = []
    lines = text.splitlines()
    start, shell = None, False
    for number, line in enumerate(lines, 1):
        if not line.strip().startswith("```"):
            continue
        if start is None:
            start, shell = number, bool(FENCE.match(line))
            continue
        if shell:
            blocks.append((start + 1, lines[start : number - 1]))
        start = None
    found = []
    for first, block in blocks:
        kept = command_lines(block)
        if any(kept):
            found.append((f"{path}#L{first}-{first + len(block) - 1}", "\n" * (first - 1) + "\n".join(kept)))
    return found


def value(run: Run, name: str) -> Any:
    return getattr(run, name).value


def scan(root: Path, with_snippets: bool = False) -> dict[str, Run]:
    """The runs of every file some adapter claims, by path."""
    files = TreeFiles(root)
    runs = {}
    for path in walk(root, SUFFIXES + ((".md", ".py") if with_snippets else ())):
        full = root / path
        if full.is_symlink() or full.stat().st_size > MAX_BYTES:
            continue
        text = full.read_text("utf-8", errors="replace")
        items = snippets(path, text) if path.endswith(".md") else [(path, text)]
        for name, item in items:
            run = read_file(item, name.split("#", 1)[0] if "#" in name else name, None, files)
            if run.framework is not None or run.launch_line:  # an adapter's, or a launcher's (framework unknown)
                runs[name] = run
    return runs


def summary(runs: dict[str, Run]) -> dict[str, dict[str, Any]]:
    by_framework: dict[str, list[Run]] = defaultdict(list)
    for run in runs.values():
        by_framework[run.framework or LAUNCHER].append(run)
    out = {}
    for name, items in sorted(by_framework.items()):
        known = {f: sum(value(r, f) is not None for r in items) for f in FIELDS}
        out[name] = {"files": len(items), "known": known, "share": {f: known[f] / len(items) for f in FIELDS}}
    return out


def normal(field: str, item: Any) -> Any:
    """One spelling for comparing: ``fsdp2`` is fsdp, ``DDP`` ddp, ``none`` one process, a path without its ``/``."""
    if item is None:
        return None
    if field in ("engine", "train_backend"):
        text = str(item).lower().split()[0] if str(item).strip() else ""
        text = text.split("_")[0] if text.startswith(("deepspeed", "megatron")) else text  # megatron_lite, zero3
        return {"fsdp2": "fsdp", "none": "single", "hf_generate": "hf"}.get(text, text)
    if field == "model":
        return str(item).rstrip("/")
    return item


def truth_rows(paths: list[Path]) -> list[dict[str, Any]]:
    rows = []
    for path in paths:
        for line in path.read_text("utf-8").splitlines():
            if line.strip():
                rows.append(json.loads(line))
    return rows


def expected_value(row: dict[str, Any], field: str) -> Any:
    """The row's value for ``field`` under any of its spellings (``None``: the row leaves it unsettled)."""
    return next((row[k] for k in TRUTH_KEYS[field] if k in row), None)


def compare(trees: dict[str, dict[str, Run]], rows: list[dict[str, Any]], snippets: bool = False) -> dict[str, Any]:
    """Right, unknown and wrong values, overall and per tree.

    A row naming its repository whose file no adapter claims in that tree counts every
    value it settles as ``not_read``: left out, the share would only measure the files the
    reader already knows.  A snippet row (``x.py#L3-9``) is looked for only when the
    trees were scanned with ``snippets``.
    """
    counts: Counter[str] = Counter()
    by_tree: dict[str, Counter[str]] = defaultdict(Counter)
    wrong: list[dict[str, Any]] = []
    unknown: list[str] = []
    unmatched: list[str] = []
    for row in rows:
        repo = row.get("repo")
        names = [repo.replace("/", "+")] if repo else list(trees)
        # a docstring's row may name its lines (``x.py#L27-63``): the file is read whole, through its docstring;
        # a row of a later command (``x.py#docstring-cmd2``, ``-option2``) is not what the reader reads (its first)
        whole, _, fragment = row["path"].partition("#")
        numbered = re.fullmatch(r"docstring-(?:cmd|option)([0-9]+)", fragment)
        later = numbered is not None and int(numbered.group(1)) > 1
        paths = (row["path"], whole) if whole.endswith(".py") and not later else (row["path"],)
        found = [(name, trees[name][p]) for p in paths for name in names if name in trees and p in trees[name]]
        if not found:
            if any(name in trees for name in names) and (snippets or "#" not in row["path"]):
                unmatched.append(row["path"])
                if repo:
                    settled = sum(expected_value(row, field) is not None for field in SCORED)
                    counts["not_read"] += settled
                    by_tree[names[0]]["not_read"] += settled
            continue
        tree, run = found[0]
        for field in SCORED:
            expected = expected_value(row, field)
            if expected is None:
                continue
            got = value(run, field)
            if got is None:
                outcome = "unknown"
                unknown.append(f"{tree}:{row['path']} {field}")
            elif normal(field, got) == normal(field, expected):
                outcome = "right"
            else:
                outcome = "wrong"
                wrong.append({"tree": tree, "path": row["path"], "field": field, "got": got, "expected": expected})
            counts[outcome] += 1
            by_tree[tree][outcome] += 1
    return {
        "counts": dict(counts),
        "by_tree": {name: dict(items) for name, items in sorted(by_tree.items())},
        "wrong": wrong,
        "unknown": unknown,
        "not_claimed": unmatched,
    }


def share(counts: dict[str, int]) -> float:
    """Right values among those the truth settles (unknown and not-read ones count against, wrong ones more so)."""
    total = sum(counts.values())
    return counts.get("right", 0) / total if total else 0.0


def tally(label: str, counts: dict[str, int]) -> str:
    outcomes = "  ".join(f"{name} {counts.get(key, 0)}" for name, key in TALLY)
    return f"{label} {outcomes}  ({share(counts):.0%} of the values the rows settle)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", type=Path)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--truth", action="append", type=Path, default=[], help="ground-truth rows (JSON lines)")
    parser.add_argument("--snippets", action="store_true", help="also read shell blocks of *.md and *.py docstrings")
    args = parser.parse_args(argv)
    trees = {directory.resolve().name: scan(directory, args.snippets) for directory in args.dirs}
    report: dict[str, Any] = {"trees": {name: summary(runs) for name, runs in trees.items()}}
    if args.truth:
        report["truth"] = compare(trees, truth_rows(args.truth), args.snippets)
    if args.json:
        print(json.dumps(report, indent=1, sort_keys=True))
        return 1 if report.get("truth", {}).get("wrong") else 0
    for name, frameworks in report["trees"].items():
        print(name)
        for framework, item in frameworks.items():
            shares = "  ".join(f"{f} {item['known'][f]}/{item['files']} ({item['share'][f]:.0%})" for f in FIELDS)
            print(f"  {framework:12} {item['files']:4} files  {shares}")
    if "truth" in report:
        truth = report["truth"]
        print(tally("truth:", truth["counts"]))
        for name, counts in truth["by_tree"].items():
            print(tally(f"  {name}:", counts))
        for item in truth["wrong"]:
            where = f"{item['tree']}:{item['path']} {item['field']}"
            print(f"  WRONG {where}: got {item['got']!r}, expected {item['expected']!r}")
        for item in truth["unknown"]:
            print(f"  unknown {item}")
        for path in truth["not_claimed"]:
            print(f"  not claimed: {path}")
    return 1 if report.get("truth", {}).get("wrong") else 0


if __name__ == "__main__":
    sys.exit(main())
