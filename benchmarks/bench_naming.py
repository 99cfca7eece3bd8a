#!/usr/bin/env python3
"""What matching the settings' patterns without backtracking costs, against the regular expressions it replaced.

The naming pattern from ``[tool.rlresources]`` is matched by
``sphinx_rlresources.safe.pattern``'s linear search, the ``launch_files`` globs by
``sphinx_rlresources.core.globs`` (a name walk per segment, a table for ``**``).  The baseline, in the same run, is
the backtracking expression the pattern used to compile into (text fields ``[^/]+?``,
numbers ``[0-9]+``, ``[...]`` as ``(?:...)?``; ``*`` as ``[^/]*``, ``**/`` as
``(?:[^/]+/)*``), on ordinary names, alternating the two, asking each name three
times as a row's checks do.  A hostile case (what the baseline cannot finish) is timed
for the new matcher alone.

    python benchmarks/bench_naming.py --names 10000 --reps 5
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sphinx_rlresources.core.globs import compile_glob
from sphinx_rlresources.core.naming import naming_rule

PATTERN = "{task}-{model}-{nodes}n{gpus_per_node}g[-{variant}].yaml"
BASELINE = re.compile(
    r"(?P<task>[^/]+?)-(?P<model>[^/]+?)-(?P<nodes>[0-9]+)n(?P<gpus_per_node>[0-9]+)g(?:-(?P<variant>[^/]+?))?\.yaml"
)
GLOB = "examples/tuning/**/*.yaml"
GLOB_BASELINE = re.compile(r"examples/tuning/(?:[^/]+/)*[^/]*\.yaml")


def names(count: int) -> list[str]:
    return [f"grpo-qwen2.5-{i}b-instruct-{i % 4 + 1}n8g-fsdp2tp{i % 8}.yaml" for i in range(count)]


def timed(work: object) -> float:
    start = time.perf_counter()
    work()  # type: ignore[operator]
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    rule, glob = naming_rule(PATTERN), compile_glob(GLOB)
    listed = names(args.names)
    paths = [f"examples/tuning/{i % 13}b/{name}" for i, name in enumerate(listed)]
    for name in listed[:100]:  # the same answers
        match = BASELINE.fullmatch(name)
        assert match and {k: v for k, v in match.groupdict().items() if v} == {
            k: v for k, v in (rule.parse(name) or {}).items() if k != "gpus"
        }
    runs: dict[str, list[float]] = {"pattern": [], "regex": [], "glob": [], "glob regex": []}
    for _ in range(args.reps):
        runs["regex"].append(timed(lambda: [BASELINE.fullmatch(n) for n in listed for _ in range(3)]))
        runs["pattern"].append(timed(lambda: [rule.parse(n) for n in listed for _ in range(3)]))
        runs["glob regex"].append(timed(lambda: [GLOB_BASELINE.fullmatch(p) for p in paths]))
        runs["glob"].append(timed(lambda: [glob.matches(p) for p in paths]))
    for key, values in runs.items():
        print(f"{key:>10}: median {statistics.median(values):.3f} s for {args.names} names")
    print(f"pattern / regex: {statistics.median(runs['pattern']) / statistics.median(runs['regex']):.1f}")
    print(f"glob / glob regex: {statistics.median(runs['glob']) / statistics.median(runs['glob regex']):.1f}")
    hostile = naming_rule("_".join(["{any}"] * 30) + ".sh")
    seconds = timed(lambda: hostile.parse("a_" * 127 + "a"))
    print(f"hostile: 30 fields against a 255-character name that fails: {seconds:.3f} s (the regex: C(127, 30) splits)")


if __name__ == "__main__":
    main()
