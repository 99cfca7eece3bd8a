#!/usr/bin/env python3
"""Two commands in one folder, alternated as whole processes: medians and their ratio.

For "is ``rlresources lint`` no slower than a schema check on the same files?" on a
real repository, where only the ratio of the two medians means something on a shared
machine.  CPU time (the process's and git's) is printed too: a busy machine moves it
less than the wall clock.  The commands are run without a shell (split like a shell would, with no
globbing: name the files), first, second, then second, first, and so on.

    python benchmarks/bench_versus.py --cwd /tmp/verl --reps 20 \\
        "rlresources lint" \\
        "check-jsonschema --schemafile rlresources.schema.json data/0.5b.yaml data/1.5b.yaml ..."
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
from pathlib import Path

import bench


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("first", help="the command measured (its median is the numerator)")
    parser.add_argument("second", help="the command it is compared with")
    parser.add_argument("--cwd", type=Path, default=Path.cwd(), help="the folder both run in")
    parser.add_argument("--reps", type=int, default=20, help="processes per command (medians are reported)")
    args = parser.parse_args(argv)
    commands = {"first": shlex.split(args.first), "second": shlex.split(args.second)}
    walls: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    print(f"machine: {bench.machine()}; {args.reps} alternated runs each, in {args.cwd}")
    for rep in range(args.reps):
        for name in list(commands) if rep % 2 == 0 else list(commands)[::-1]:
            result = bench.run(commands[name], args.cwd)
            walls[name].append(result.wall)
            cpus[name].append(result.cpu)  # the process's and its children's (git's)
    for name, command in commands.items():
        found = walls[name]
        print(
            f"{name:6}  wall median {statistics.median(found):6.3f} s  fastest {min(found):6.3f} s"
            f"  CPU median {statistics.median(cpus[name]):6.3f} s  {shlex.join(command)}"
        )
    median = statistics.median(walls["first"]) / statistics.median(walls["second"])
    pairs = " ".join(f"{a / b:.2f}" for a, b in zip(walls["first"], walls["second"], strict=True))
    cpu = statistics.median(cpus["first"]) / statistics.median(cpus["second"])
    fastest = min(walls["first"]) / min(walls["second"])
    print(f"first / second: wall medians {median:.3f}, fastest runs {fastest:.3f}; CPU medians {cpu:.3f}")
    print(f"run by run {pairs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
