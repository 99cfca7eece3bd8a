#!/usr/bin/env python3
"""What pausing the garbage collector buys (``core/gcpause.py``): the same processes with it on and off.

For each ``--rows`` count it reuses ``bench.py``'s synthetic repository and runs, as
whole processes, alternating the variants, ``--reps`` times each:

* ``rlresources lint`` over the data and scripts (the loader is paused);
* a clean HTML build of the one-page site drawn by the directive (the loader and
  every table are paused);

once as they are and once with ``RLRESOURCES_NO_GC_PAUSE=1``.  It prints the medians
and the ratio on / off (below 1: the pause saves time), with the peak memory of each.

    python benchmarks/bench_gcpause.py --rows 2000 10000 --reps 5
"""

from __future__ import annotations

import argparse
import sys

import onoff
from onoff import bench

SWITCH = "RLRESOURCES_NO_GC_PAUSE"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="+", default=[2000], help="row counts to generate")
    parser.add_argument("--reps", type=int, default=5, help="runs per variant (medians are reported)")
    parser.add_argument("--build-max", type=int, default=2000, help="no page build above this many rows")
    args = parser.parse_args(argv)
    bench.WORK.mkdir(exist_ok=True)
    print(f"machine: {bench.machine()}; {args.reps} alternated runs per variant, medians; off = {SWITCH}=1")
    print(onoff.HEADER)
    for total in args.rows:
        base = bench.generate(total, "url", prefix="gcpause")
        command, _name = bench.lint_command(base)
        lint = onoff.compare(args.reps, lambda env, c=command, b=base: bench.run(c, b, env), SWITCH)
        print(onoff.line(f"lint, {total} rows", lint))
        if total <= args.build_max:
            src, out = base / "docs-directive", base / "out"
            build = onoff.compare(args.reps, lambda env, s=src, o=out: bench.sphinx(s, o, "-E", env=env), SWITCH)
            print(onoff.line(f"directive page build, {total} rows", build))
    return 0


if __name__ == "__main__":
    sys.exit(main())
