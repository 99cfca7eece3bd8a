#!/usr/bin/env python3
"""``rlresources lint`` (or the directive page's build) of two checkouts of this package, alternated.

"Is ``lint`` still as fast as at commit X?" needs both trees timed in one sitting, on
one machine whose speed drifts: this runs ``python -m sphinx_rlresources lint`` as a
whole process over ``bench.py``'s synthetic repository of ``--rows`` rows, with
``PYTHONPATH`` pointing at one tree and then the other (A B, B A, ...), and prints the
medians, the fastest runs and their ratios.  Both trees' modules are compiled to
bytecode first, so neither pays for compiling in every process (a shell with
``PYTHONDONTWRITEBYTECODE=1`` would otherwise charge it to the tree whose files changed).
Both runs must print the same findings.

``--build`` times ``sphinx-build -E`` of ``bench.py``'s directive page instead (the
page of ``make bench``'s first row), and reports peak memory too; the two trees may
draw different tables, so their pages are not compared.

    git worktree add /tmp/before d8e97b2
    python benchmarks/bench_trees.py /tmp/before . --rows 10000 --reps 20
    python benchmarks/bench_trees.py /tmp/before . --rows 10000 --reps 4 --build
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

import bench


def two_trees(parser: argparse.ArgumentParser) -> None:
    """The two checkouts every before/after benchmark compares."""
    parser.add_argument("before", type=Path, help="the checkout to compare against (its sphinx_rlresources folder)")
    parser.add_argument("after", type=Path, help="the checkout measured")


def compiled_trees(parser: argparse.ArgumentParser, before: Path, after: Path) -> dict[str, Path]:
    """Both checkouts, each compiled to bytecode first so neither pays it in its first run."""
    trees = {"before": before.resolve(), "after": after.resolve()}
    for tree in trees.values():
        if not (tree / "sphinx_rlresources").is_dir():
            parser.error(f"{tree} holds no sphinx_rlresources folder")
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "sphinx_rlresources")], check=True)
    bench.WORK.mkdir(exist_ok=True)
    return trees


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    two_trees(parser)
    parser.add_argument("--rows", type=int, default=10000, help="rows of the generated repository")
    parser.add_argument("--reps", type=int, default=10, help="processes per tree (medians are reported)")
    parser.add_argument("--build", action="store_true", help="time the directive page's HTML build, not lint")
    args = parser.parse_args(argv)
    trees = compiled_trees(parser, args.before, args.after)
    base = bench.generate(args.rows, "download" if args.build else "url", prefix="trees")  # download: make bench's
    times: dict[str, list[float]] = {name: [] for name in trees}
    memory: dict[str, list[float]] = {name: [] for name in trees}
    outputs: dict[str, set[str]] = {name: set() for name in trees}
    work = "the directive page's build" if args.build else "lint"
    print(f"machine: {bench.machine()}; {work}, {args.rows} rows, {args.reps} alternated runs per tree")
    for rep in range(args.reps):
        for name in list(trees) if rep % 2 == 0 else list(trees)[::-1]:
            env = {**os.environ, "PYTHONPATH": str(trees[name])}
            if args.build:
                result = bench.sphinx(base / "docs-directive", bench.WORK / f"trees-build-{name}", "-E", env=env)
            else:
                result = bench.run([sys.executable, "-m", "sphinx_rlresources", "lint"], base, env)
                outputs[name].add(result.out)
            times[name].append(result.cpu)
            memory[name].append(result.rss_mb)
    if outputs["before"] != outputs["after"]:
        print("the two trees' findings differ: compare their lint output first", file=sys.stderr)
        return 1
    for name, found in times.items():
        print(
            f"{name:6}  median {statistics.median(found):6.2f} s  fastest {min(found):6.2f} s  (CPU)"
            f"  peak memory {statistics.median(memory[name]):.0f} MB"
        )
    median = statistics.median(times["after"]) / statistics.median(times["before"])
    fastest = min(times["after"]) / min(times["before"])
    pairs = " ".join(f"{after / before:.3f}" for after, before in zip(times["after"], times["before"], strict=True))
    print(f"after / before: medians {median:.3f}, fastest runs {fastest:.3f}; run by run {pairs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
