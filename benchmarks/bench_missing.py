#!/usr/bin/env python3
"""``rlresources lint`` when many rows miss their scripts beside thousands of scripts.

A row whose script is missing gets a "did you mean" hint.  Done naively, each hint
lists the folder and compares the name with every script in it, so the work grows as
rows x scripts (1,000 rows beside 6,500 scripts once took 172 s).  This benchmark
writes, in one run:

* **missing**: ``--rows`` rows whose scripts do not exist, beside ``--scripts`` scripts
  spread over the usual size folders (names like the rows', so every hint has real
  candidates);
* **present**: the same rows with their scripts there (the baseline: no hints at all);

and times ``rlresources lint`` (as a process, the installed command) on each,
alternated, ``--reps`` times, medians.  The target: missing stays within a small factor
of present, and under 10 s for 2,000 rows beside 5,000 scripts on a 2-core machine.

    python benchmarks/bench_missing.py --rows 2000 --scripts 5000
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work"
SIZES = ["0.5B", "1.5B", "3B", "7B", "14B", "32B", "70B", "405B", "671B"]
DEVICES = ["h100", "h800", "h20", "a100"]


def script_name(size: str, n: int) -> str:
    device = DEVICES[n % len(DEVICES)]
    return f"qwen2.5-{size.lower()}_grpo_{n + 1}_{device}_fsdp_vllm.sh"


def row(size: str, n: int, folder: str, suffix: str) -> str:
    device = DEVICES[n % len(DEVICES)].upper()
    name = script_name(size, n).replace(".sh", f"{suffix}.sh")
    return (
        f"  - tag: MIN\n    model: Qwen2.5-{size}\n    task: GRPO\n    gpus: {n + 1}\n    device: {device}\n"
        f"    max_batch: 64\n    train: fsdp\n    infer: vllm\n    script: {folder}/{name}\n"
        "    contributor: bench\n"
    )


def make(root: Path, rows: int, scripts: int, missing: bool) -> None:
    """A repository with ``rows`` rows; their scripts are absent (``missing``) or written."""
    shutil.rmtree(root, ignore_errors=True)
    (root / "data").mkdir(parents=True)
    body: dict[str, list[str]] = {size: [] for size in SIZES}
    for n in range(rows):
        size = SIZES[n % len(SIZES)]
        folder = f"examples/tuning/{size.lower()}"
        body[size].append(row(size, n, folder, "_x" if missing else ""))
        if not missing:
            path = root / folder / script_name(size, n)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("#!/bin/sh\n", "utf-8")
    for n in range(scripts):  # the crowd beside the rows
        size = SIZES[n % len(SIZES)]
        path = root / "examples" / "tuning" / size.lower() / script_name(size, rows + n)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/bin/sh\n", "utf-8")
    for size, lines in body.items():
        text = f"size: {size}\nentries:\n" + "".join(lines) if lines else f"size: {size}\nentries: []\n"
        (root / "data" / f"{size.lower()}.yaml").write_text(text, "utf-8")


def lint_seconds(root: Path) -> float:
    command = Path(sys.executable).parent / "rlresources"
    argv = [str(command)] if command.exists() else [sys.executable, "-m", "sphinx_rlresources"]
    start = time.perf_counter()
    subprocess.run(
        [*argv, "lint", "--data", "data", "--root", ".", "--no-cross-check"],
        cwd=root,
        stdout=subprocess.DEVNULL,
        check=False,
    )
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--scripts", type=int, default=5000)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args(argv)
    present, missing = WORK / "missing-baseline", WORK / "missing"
    make(present, args.rows, args.scripts, missing=False)
    make(missing, args.rows, args.scripts, missing=True)
    times: dict[str, list[float]] = {"present": [], "missing": []}
    for rep in range(args.reps):
        order = [("present", present), ("missing", missing)]
        for name, root in order if rep % 2 == 0 else reversed(order):
            times[name].append(lint_seconds(root))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load {load:.2f}")
    print(f"python {platform.python_version()}; {args.rows} rows beside {args.scripts} more scripts")
    med = {name: statistics.median(values) for name, values in times.items()}
    print(f"lint, scripts present: {med['present']:.2f} s (median of {args.reps})")
    print(f"lint, scripts missing: {med['missing']:.2f} s (median of {args.reps})")
    print(f"ratio missing / present: {med['missing'] / med['present']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
