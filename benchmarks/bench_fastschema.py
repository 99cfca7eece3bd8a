#!/usr/bin/env python3
"""What the compiled schema check buys (``core/fastschema.py``) over asking jsonschema for every file.

For each ``--rows`` count it reuses ``bench.py``'s synthetic repository (valid data, as
a build almost always reads) and measures, in this process, the median over ``--reps``
rounds of checking every data file:

* ``fastschema``: the packaged schema compiled once into closures (``quick_check()``),
  which is what the loader asks first;
* ``jsonschema``: the same strict Draft 2020-12 validator the loader falls back on
  (``validator().is_valid``), as if every file went to it.

Both see the same values, and must give the same answers (exit 1 if not).  Then, in
fresh processes, the cost that valid data never pays: importing jsonschema and building
the validator, against importing the loader alone (seconds and resident memory).

    python benchmarks/bench_fastschema.py --rows 2000 10000 --reps 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from onoff import bench

from sphinx_rlresources.core.loader import data_files
from sphinx_rlresources.core.validation import quick_check, validator
from sphinx_rlresources.safe.yamlsafe import decode, load

LOADER_ONLY = "import sphinx_rlresources.core.loader"
WITH_JSONSCHEMA = LOADER_ONLY + "; from sphinx_rlresources.core.validation import validator; validator()"
#: Run in a fresh process: the statement's seconds, then the process's resident memory after it
#: (VmRSS: the peak counters of a process started from this one also count this one's memory).
CHILD = """\
import time
start = time.perf_counter()
{statement}
took = time.perf_counter() - start
rss = next(l for l in open("/proc/self/status") if l.startswith("VmRSS:")).split()[1]
print(took, int(rss) / 1024)
"""


def child(statement: str) -> tuple[float, float]:
    """(seconds, MB) of ``statement`` in a fresh interpreter."""
    done = bench.run([sys.executable, "-c", CHILD.format(statement=statement)], bench.HERE)
    took, rss = done.out.split()
    return float(took), float(rss)


def seconds(check: Callable[[Any], bool], documents: list[Any], reps: int) -> tuple[float, list[bool]]:
    times, answers = [], []
    for _ in range(reps):
        start = time.perf_counter()
        answers = [check(doc) for doc in documents]
        times.append(time.perf_counter() - start)
    return statistics.median(times), answers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="+", default=[2000, 10000], help="row counts to generate")
    parser.add_argument("--reps", type=int, default=5, help="rounds per variant (medians are reported)")
    args = parser.parse_args(argv)
    bench.WORK.mkdir(exist_ok=True)
    print(f"machine: {bench.machine()}; medians of {args.reps} rounds")
    quick = quick_check()
    if quick is None:
        sys.exit("the packaged schema does not compile: every file goes to jsonschema")
    strict = validator()
    print(f"{'rows':>6} {'fastschema ms':>14} {'jsonschema ms':>14} {'ratio':>6} {'µs/row fast':>12} {'µs/row js':>10}")
    agree = True
    for total in args.rows:
        base = bench.generate(total, "url", prefix="fastschema")
        documents = [load(decode(path.read_bytes())).value for path in data_files(base / "data")]
        fast, fast_answers = seconds(quick, documents, args.reps)
        slow, slow_answers = seconds(strict.is_valid, documents, args.reps)
        agree = agree and fast_answers == slow_answers and all(fast_answers)
        print(
            f"{total:>6} {fast * 1000:>14.1f} {slow * 1000:>14.1f} {fast / slow:>6.3f} "
            f"{fast / total * 1e6:>12.1f} {slow / total * 1e6:>10.1f}"
        )
    costs: dict[str, list[tuple[float, float]]] = {"loader": [], "jsonschema": []}
    for index in range(args.reps):  # alternated, as the other variants
        for name in ("loader", "jsonschema") if index % 2 == 0 else ("jsonschema", "loader"):
            costs[name].append(child(LOADER_ONLY if name == "loader" else WITH_JSONSCHEMA))
    wall = {name: statistics.median(t for t, _ in found) for name, found in costs.items()}
    rss = {name: statistics.median(m for _, m in found) for name, found in costs.items()}
    print(
        f"importing the loader: {wall['loader']:.3f} s, {rss['loader']:.1f} MB resident; and building the "
        f"jsonschema validator too: {wall['jsonschema']:.3f} s, {rss['jsonschema']:.1f} MB "
        f"(+{wall['jsonschema'] - wall['loader']:.3f} s, +{rss['jsonschema'] - rss['loader']:.1f} MB)"
    )
    if not agree:
        print("the two checks disagree, or the generated data is not valid")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
