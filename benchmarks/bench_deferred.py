#!/usr/bin/env python3
"""What parking a table's rows buys (``sphinxext/deferred.py``): the same build with it on and off.

For each ``--rows`` count it reuses ``bench.py``'s synthetic repository and builds the
one-page site drawn by the directive (``sphinx-build -E`` as a whole process),
alternating the variants, ``--reps`` times each: once as it is and once with
``RLRESOURCES_NO_DEFERRED_ROWS=1``, which draws every table in place.  It prints the
medians and the ratio on / off (below 1: parking saves time), and checks that both
variants wrote the same files byte for byte (exit 1 if not).

    python benchmarks/bench_deferred.py --rows 100 2000 --reps 5
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import onoff
from onoff import bench

SWITCH = "RLRESOURCES_NO_DEFERRED_ROWS"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="+", default=[100, 2000], help="row counts to generate")
    parser.add_argument("--reps", type=int, default=5, help="builds per variant (medians are reported)")
    args = parser.parse_args(argv)
    bench.WORK.mkdir(exist_ok=True)
    print(f"machine: {bench.machine()}; {args.reps} alternated builds per variant, medians; off = {SWITCH}=1")
    print(onoff.HEADER)
    same = True
    for total in args.rows:
        base = bench.generate(total, "url", prefix="deferred")
        src = base / "docs-directive"
        outs = {"on": base / "out-on", "off": base / "out-off"}

        def build(env: dict[str, str], src: Path = src, outs: dict[str, Path] = outs) -> bench.Run:
            return bench.sphinx(src, outs["off" if env else "on"], "-E", env=env)

        print(onoff.line(f"directive page build, {total} rows", onoff.compare(args.reps, build, SWITCH)))
        differ = bench.differences(outs["on"], outs["off"])
        if differ:
            same = False
            print(f"  the variants wrote different files: {', '.join(differ[:5])}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
