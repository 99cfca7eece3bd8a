#!/usr/bin/env python3
"""The estimator against the published runs of benchmarks/memory_points.csv, as a table and a distribution.

The same figures docs/estimator.rst draws at build time and tests/test_memory_points.py
asserts, for a terminal:

    python benchmarks/memory_points.py            # every run: outcome, verdict, floor, expected, measured
    python benchmarks/memory_points.py --measured # only the runs with a published figure
    python benchmarks/memory_points.py --set benchmarks/measured_gpu.csv   # the runs measured on a GPU
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from estimator_validation import checked, distribution

POINTS = Path(__file__).resolve().parent / "memory_points.csv"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--measured", action="store_true", help="only the runs with a published memory figure")
    parser.add_argument("--set", type=Path, default=POINTS, help="a validation set (default: memory_points.csv)")
    args = parser.parse_args(argv)
    rows = checked(args.set)
    print(
        f"{'run':<52}{'outcome':<8}{'verdict':<14}{'counter':<15}{'floor':>7}{'expected':>9}{'measured':>9}{'ratio':>7}"
    )
    for c in rows:
        measured = c.point.measured_gib
        if args.measured and measured is None:
            continue
        tail = f"{measured:>9.1f}{c.ratio or 0:>7.2f}" if measured is not None else ""
        print(
            f"{c.point.id:<52}{c.point.outcome:<8}{c.result.verdict:<14}{c.point.counter:<15}"
            f"{c.floor_gib:>7.1f}{c.expected_gib:>9.1f}{tail}"
        )
    spread = distribution(rows)
    ran = [c for c in rows if c.point.outcome == "ran"]
    oom = [c for c in rows if c.point.outcome == "oom"]
    above = [c.point.id for c in rows if c.point.measured_gib is not None and c.floor_gib > c.point.measured_gib]
    print(
        f"\n{len(rows)} runs; ran and called does-not-fit: {sum(c.result.verdict == 'does-not-fit' for c in ran)} "
        f"of {len(ran)}; floors above a measured figure: {len(above)}; out of memory and called likely-oom or "
        f"does-not-fit: {sum(c.result.verdict in ('likely-oom', 'does-not-fit') for c in oom)} of {len(oom)}"
    )
    if spread["points"]:
        print(
            f"expected / measured over {spread['points']:.0f} measured runs: min {spread['min']:.2f}, "
            f"q1 {spread['q1']:.2f}, median {spread['median']:.2f}, q3 {spread['q3']:.2f}, max {spread['max']:.2f}; "
            f"{spread['within_30_percent']:.0%} within 30%"
        )
    return 1 if above or any(c.result.verdict == "does-not-fit" for c in ran) else 0


if __name__ == "__main__":
    sys.exit(main())
