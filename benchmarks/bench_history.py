#!/usr/bin/env python3
"""``rlresources lint`` of a repository with real history, two checkouts of this package alternated.

Lint reads git for the rows pinned at a commit (the script at ``script_ref``, the
repository's metadata there, whether the script changed what the row states since its
``tested`` day), and ``lint --stale`` for rows read from the checkout.  Its cost is the
number of git processes, so this generates, under ``benchmarks/_work/history-<rows>/``,
a repository of ``--rows`` rows (``bench.py``'s rows and launchers) and a history of
``--commits`` dated commits: each touches a few launchers (a comment, a reformat) and a
file elsewhere, and every 25th changes a launcher's batch size, so some rows are stale.
The rows are tested in the middle of the history and pinned at its last commit
(``--checkout``: not pinned, and linted with ``--stale``).

Then, as ``bench_trees.py`` does, it runs ``python -m sphinx_rlresources lint`` as a
whole process with ``PYTHONPATH`` at one tree and then the other (A B, B A, ...), both
compiled to bytecode first, and prints the medians of the wall time (git runs in child
processes) and of the CPU time, the fastest runs and their ratios, with how many stale
rows each tree found.  The trees may judge staleness differently (what counts as a
change is the subject of issue 38), so their findings are compared, not required equal.

    git worktree add /tmp/before 9d68577
    python benchmarks/bench_history.py /tmp/before . --rows 24 --commits 400 --reps 10
    python benchmarks/bench_history.py /tmp/before . --rows 24 --commits 400 --reps 10 --checkout
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

import bench
from bench_trees import compiled_trees, two_trees


def git(root: Path, *args: str, date: str | None = None) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    env.update(GIT_AUTHOR_NAME="Bench", GIT_AUTHOR_EMAIL="bench@example.org")
    env.update(GIT_COMMITTER_NAME="Bench", GIT_COMMITTER_EMAIL="bench@example.org")
    if date:
        env.update(GIT_AUTHOR_DATE=f"{date}T12:00:00+00:00", GIT_COMMITTER_DATE=f"{date}T12:00:00+00:00")
    return subprocess.run(["git", "-C", str(root), *args], env=env, check=True, capture_output=True, text=True).stdout


def touch(path: Path, number: int) -> None:
    """A sweep: a comment and a reformat that change nothing a row states."""
    text = path.read_text(encoding="utf-8")
    if number % 2:
        text = text.replace("set -x\n", f"set -x\n# sweep {number}: logging settings reviewed\n", 1)
    else:
        text = text.replace("    trainer.total_epochs=1", "    trainer.total_epochs=1 ", 1)
    path.write_text(text, encoding="utf-8")


def change_batch(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    start = text.index("data.train_batch_size=") + len("data.train_batch_size=")
    end = text.index(" ", start)
    path.write_text(text[:start] + str(int(text[start:end]) * 2) + text[end:], encoding="utf-8")


def generate(rows: int, commits: int, pinned: bool, seed: int = 7) -> Path:
    """The repository: ``bench.py``'s rows, ``commits`` dated commits, the rows tested halfway and pinned at the end."""
    base = bench.generate(rows, "url", prefix=f"history-{'pinned' if pinned else 'checkout'}")
    (base / "src").mkdir()
    by_size = bench.make_rows(rows)
    scripts = [r.script for size_rows in by_size.values() for r in size_rows]
    rng = random.Random(seed)
    git(base, "init", "-q", "-b", "main")
    day = dt.date(2024, 1, 1)
    git(base, "add", "-A")
    git(base, "commit", "-qm", "add the launchers", date=day.isoformat())
    tested = (day + dt.timedelta(days=commits // 2)).isoformat()
    for number in range(1, commits + 1):
        day += dt.timedelta(days=1)
        for script in rng.sample(scripts, min(3, len(scripts))):
            touch(base / script, number)
        if number % 25 == 0:
            change_batch(base / rng.choice(scripts))
        (base / "src" / f"module_{number % 40}.py").write_text(f"VERSION = {number}\n", encoding="utf-8")
        git(base, "add", "-A")
        git(base, "commit", "-qm", f"sweep {number}", date=day.isoformat())
    ref = git(base, "rev-parse", "HEAD").strip()
    for size, size_rows in by_size.items():
        text = bench.yaml_text(size, size_rows)
        for r in size_rows:
            extra = (f"    script_ref: {ref}\n" if pinned else "") + f"    tested: {tested}\n"
            text = text.replace(f"    script: {r.script}\n", f"    script: {r.script}\n{extra}")
        (base / "data" / f"{size.lower()}.yaml").write_text(text, encoding="utf-8")
    git(base, "add", "-A")
    git(base, "commit", "-qm", "date and pin the rows", date=(day + dt.timedelta(days=1)).isoformat())
    return base


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    two_trees(parser)
    parser.add_argument("--rows", type=int, default=24, help="rows of the generated repository")
    parser.add_argument("--commits", type=int, default=400, help="commits of its history")
    parser.add_argument("--reps", type=int, default=10, help="processes per tree (medians are reported)")
    parser.add_argument("--checkout", action="store_true", help="rows not pinned, linted with --stale")
    args = parser.parse_args(argv)
    trees = compiled_trees(parser, args.before, args.after)
    base = generate(args.rows, args.commits, pinned=not args.checkout)
    command = [sys.executable, "-m", "sphinx_rlresources", "lint", *(["--stale"] if args.checkout else [])]
    walls: dict[str, list[float]] = {name: [] for name in trees}
    cpus: dict[str, list[float]] = {name: [] for name in trees}
    outputs: dict[str, set[str]] = {name: set() for name in trees}
    how = "read from the checkout, lint --stale" if args.checkout else "pinned at the last commit, lint"
    print(f"machine: {bench.machine()}")
    print(f"{args.rows} rows {how}; {args.commits} commits; {args.reps} alternated runs per tree")
    for rep in range(args.reps):
        for name in list(trees) if rep % 2 == 0 else list(trees)[::-1]:
            result = bench.run(command, base, {"PYTHONPATH": str(trees[name])})
            walls[name].append(result.wall)
            cpus[name].append(result.cpu)
            outputs[name].add(result.out)
    for name in trees:
        stale = {line for out in outputs[name] for line in out.splitlines() if line.endswith("[rlresources.stale]")}
        print(
            f"{name:6}  wall median {statistics.median(walls[name]):6.3f} s  fastest {min(walls[name]):6.3f} s"
            f"  CPU median {statistics.median(cpus[name]):6.3f} s  stale rows {len(stale)}"
        )
    median = statistics.median(walls["after"]) / statistics.median(walls["before"])
    fastest = min(walls["after"]) / min(walls["before"])
    pairs = " ".join(f"{a / b:.3f}" for a, b in zip(walls["after"], walls["before"], strict=True))
    print(f"after / before (wall): medians {median:.3f}, fastest runs {fastest:.3f}; run by run {pairs}")
    same = outputs["before"] == outputs["after"]
    print("the two trees' findings are " + ("the same" if same else "different (compare their lint output)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
