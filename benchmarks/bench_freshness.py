#!/usr/bin/env python3
"""Benchmark the staleness check: one ``git log`` walk against one git process per row.

Generates, under ``benchmarks/_work/freshness-<rows>/``, a git repository with
``--rows`` rows (one data file per size, one script per row, every row dated) and a
history of ``--commits`` dated commits that each edit a few scripts (a comment), every
10th also changing one script's GPU count. Then, in the same run and alternating the
variants, it measures:

1. loading the data with the staleness check (``LoadOptions(stale=True)``: the one
   walk, and the two versions of every touched script read and compared) against
   loading without it: the check's own cost;
2. the naive way: one ``git log`` per row's script, as a per-row implementation would,
   which finds the rows whose script was touched.

It checks that every stale row is among the touched ones (a touch is not a change of
what the row states: far fewer rows are stale), and prints medians and ratios; compare
the ratios, not the seconds (a shared machine's timings drift).

    python benchmarks/bench_freshness.py --rows 100 1000 3000
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from sphinx_rlresources.core.loader import LoadOptions, load_dataset  # noqa: E402

WORK = HERE / "_work"
SIZES = ["0.5b", "1.5b", "3b", "7b", "14b", "32b", "70b", "405b", "671b"]
DEVICES = ["h100", "h800", "h20", "a100"]


def git(root: Path, *args: str, date: str | None = None) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    if date:
        env.update(GIT_AUTHOR_DATE=f"{date}T12:00:00+00:00", GIT_COMMITTER_DATE=f"{date}T12:00:00+00:00")
    subprocess.run(["git", "-C", str(root), *args], env=env, check=True, capture_output=True)


def script_name(size: str, index: int) -> str:
    return f"qwen2-{size}_grpo_{index + 1}_{DEVICES[index % len(DEVICES)]}_fsdp_vllm.sh"


def generate(rows: int, commits: int, seed: int = 7) -> Path:
    root = WORK / f"freshness-{rows}"
    if root.exists():
        shutil.rmtree(root)
    (root / "data").mkdir(parents=True)
    rng = random.Random(seed)
    scripts: list[str] = []
    per_size: dict[str, list[str]] = {size: [] for size in SIZES}
    for i in range(rows):
        size = SIZES[i % len(SIZES)]
        index = len(per_size[size])
        path = f"examples/tuning/{size}/{script_name(size, index)}"
        script = root / path
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text(
            f"#!/usr/bin/env bash\n# row {i}\npython3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo \\\n"
            f"    trainer.n_gpus_per_node={index + 1} trainer.nnodes=1\n"
        )
        scripts.append(path)
        per_size[size].append(
            f"  - tag: MIN\n    model: Qwen2-{size.upper()}\n    task: GRPO\n    gpus: {index + 1}\n"
            f"    device: {DEVICES[index % len(DEVICES)].upper()}\n    max_batch: null\n    train: fsdp\n"
            f"    infer: vllm\n    script: {path}\n    tested: 2025-03-01\n    contributor: Bench\n"
        )
    for size, entries in per_size.items():
        body = "".join(entries) if entries else ""
        (root / "data" / f"{size}.yaml").write_text(f"size: {size.upper()}\nentries:{'' if entries else ' []'}\n{body}")
    git(root, "init", "-q")
    git(root, "config", "user.name", "Bench")
    git(root, "config", "user.email", "bench@example.org")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "add every row", date="2025-01-15")
    for n in range(commits):
        day = f"2025-{1 + n * 11 // max(commits, 1):02d}-{1 + n % 28:02d}"
        for path in rng.sample(scripts, min(5, len(scripts))):
            with open(root / path, "a") as handle:
                handle.write(f"# edit {n}\n")
        if n % 10 == 0:
            changed = root / rng.choice(scripts)
            changed.write_text(changed.read_text().replace("n_gpus_per_node=", "n_gpus_per_node=1"))
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"edit {n}", date=day)
    return root


def naive(root: Path, dataset_rows: list[tuple[str, str]]) -> set[str]:
    """One git process per row: whether its script was touched after its tested day."""
    stale = set()
    for script, tested in dataset_rows:
        out = subprocess.run(
            ["git", "-C", str(root), "log", f"--after={tested}T23:59:59", "--format=%H", "--", script],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        if out:
            stale.add(script)
    return stale


def timed(func, *args):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = func(*args)
    return time.perf_counter() - start, result


def bench(rows: int, commits: int, repeat: int) -> None:
    root = generate(rows, commits)

    def with_check():  # type: ignore[no-untyped-def]
        return load_dataset(root / "data", root, LoadOptions(stale=True))

    def without_check():  # type: ignore[no-untyped-def]
        return load_dataset(root / "data", root, LoadOptions(stale=False))

    first = with_check()
    rows_dated = [(e.script, e.tested or "") for e in first.entries]
    scripts = {e.source: e.script for e in first.entries}
    found_walk = {scripts[source] for source in first.stale}
    found_naive = naive(root, rows_dated)
    variants = {
        "load": without_check,
        "load+stale": with_check,
        "per-row git": lambda: naive(root, rows_dated),
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    for i in range(repeat):
        order = list(variants) if i % 2 == 0 else list(reversed(variants))
        for name in order:
            seconds, _ = timed(variants[name])
            times[name].append(seconds)
    same = found_walk <= found_naive
    med = {name: statistics.median(values) for name, values in times.items()}
    check_cost = med["load+stale"] - med["load"]
    print(
        f"rows={rows} commits={commits} stale={len(found_walk)} touched={len(found_naive)} stale_among_touched={same}\n"
        f"  load              median {med['load']:.3f}s\n"
        f"  load + stale      median {med['load+stale']:.3f}s  (check alone {check_cost:.3f}s)\n"
        f"  per-row git log   median {med['per-row git']:.3f}s\n"
        f"  per-row / check alone = {med['per-row git'] / max(check_cost, 1e-6):.1f}x"
    )
    if not same:
        print(f"  MISMATCH: stale but never touched: {sorted(found_walk - found_naive)[:5]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--commits", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for rows in args.rows:
        bench(rows, args.commits, args.repeat)


if __name__ == "__main__":
    main()
