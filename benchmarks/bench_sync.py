#!/usr/bin/env python3
"""What keeping a README in sync costs: ``sync --check`` on 9 blocks against ``render`` of the same 9 tables.

Reuses ``bench.py``'s synthetic repository (``--rows`` rows over the 9 sizes, one
consistent script per row, so every check runs) with its own work folder, writes a
README with one ``rl-resource-table`` block per size and prose between them, syncs it
once, and then measures, as whole processes of the installed command and alternating
the variants:

* ``sync --check README.md``: one load of the data, 9 tables, 9 comparisons;
* ``render SIZE --format markdown`` for each of the 9 sizes: what a CI job or a
  maintainer would run to draw the same tables without ``sync`` (one load each);
* one ``render`` alone, for scale.

It checks that every rendered table is in the synced README, and prints the medians
and the ratios of medians taken in the same run.  Compare the ratios, not the seconds
(a shared machine's timings drift).

    python benchmarks/bench_sync.py --rows 2000 --reps 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import bench  # noqa: E402

COMMAND = [sys.executable, "-m", "sphinx_rlresources"]


def readme(sizes: list[str]) -> str:
    parts = ["# Hardware\n\nWhat each size needs, drawn from the checked data.\n"]
    for size in sizes:
        parts.append(f"\n## {size}\n\n<!-- rl-resource-table {size.lower()} -->\n<!-- /rl-resource-table -->\n")
        parts.append("\nSome prose a maintainer wrote between the tables.\n")
    return "".join(parts)


def timed(cmd: list[str], cwd: Path, expect: int = 0) -> tuple[float, str]:
    start = time.perf_counter()
    result = bench.run(cmd, cwd)
    wall = time.perf_counter() - start
    if result.code != expect:
        sys.exit(f"{' '.join(cmd)} exited {result.code}:\n{result.out[-2000:]}{result.err[-2000:]}")
    return wall, result.out


def bench_rows(total: int, reps: int) -> dict[str, float]:
    base = bench.generate(total, "url", prefix="sync")
    (base / "README.md").write_text(readme(bench.SIZES), encoding="utf-8")
    timed([*COMMAND, "sync", "README.md"], base)
    synced = (base / "README.md").read_text(encoding="utf-8")

    def render_all() -> float:
        total_time = 0.0
        for size in bench.SIZES:
            wall, out = timed([*COMMAND, "render", size.lower(), "--format", "markdown"], base)
            assert out in synced, f"render {size} differs from the synced block"
            total_time += wall
        return total_time

    variants = {
        "sync --check (9 blocks)": lambda: timed([*COMMAND, "sync", "--check", "README.md"], base)[0],
        "render x 9": render_all,
        "render x 1": lambda: timed([*COMMAND, "render", "7b", "--format", "markdown"], base)[0],
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    for i in range(reps):
        for name in list(variants) if i % 2 == 0 else reversed(list(variants)):
            times[name].append(variants[name]())
    return {name: statistics.median(values) for name, values in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rows", type=int, nargs="+", default=[2000], help="row counts (default 2000)")
    parser.add_argument("--reps", type=int, default=5, help="runs of each variant (default 5)")
    args = parser.parse_args(argv)
    print(bench.machine())
    for total in args.rows:
        medians = bench_rows(total, args.reps)
        check = medians["sync --check (9 blocks)"]
        print(f"\n{total} rows, 9 blocks, median of {args.reps} runs each (whole processes):")
        for name, value in medians.items():
            print(f"  {name:<26} {value:7.2f} s")
        print(f"  sync --check / render x 9  {check / medians['render x 9']:7.2f}")
        print(f"  sync --check / render x 1  {check / medians['render x 1']:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
