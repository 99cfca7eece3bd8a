#!/usr/bin/env python3
"""What the readers' features cost a build: filters, chart and coverage against the bare table.

For each ``--rows`` count it reuses ``bench.py``'s synthetic repository (data files
across the usual sizes, one consistent script per row) and builds, alternating the
variants, two one-page sites with ``sphinx-build -E`` as whole processes:

* ``table``: ``.. rl-resource-table:: all``;
* ``readers``: the same table with ``:filter:``, then ``rl-resource-chart`` and
  ``rl-resource-coverage`` (and the JSON file every HTML build writes).

It prints the medians (wall time, peak RSS, the page's size) and the ratio, then the
in-process medians of drawing the chart and writing the JSON.  Compare the ratios,
not the seconds: a shared machine's timings drift.

    python benchmarks/bench_readers.py --rows 100 2000
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import bench  # noqa: E402

from sphinx_rlresources.core.loader import LoadOptions, load_dataset  # noqa: E402
from sphinx_rlresources.sphinxext import export  # noqa: E402
from sphinx_rlresources.sphinxext import svgchart as chart  # noqa: E402

PAGES = {
    "table": ".. rl-resource-table:: all\n",
    "readers": ".. rl-resource-table:: all\n   :filter:\n\n.. rl-resource-chart::\n\n.. rl-resource-coverage::\n",
}


def in_process_ms(fn: Callable[[], object], reps: int) -> float:
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def bench_rows(total: int, reps: int) -> dict[str, float]:
    base = bench.generate(total, "url")
    conf = bench.CONF_BASE + bench.CONF_EXT + f"rlresources_script_url = {bench.URL_TEMPLATE!r}\n"
    sites = {}
    for name, body in PAGES.items():
        src = base / f"docs-{name}"
        src.mkdir()
        (src / "conf.py").write_text(conf, encoding="utf-8")
        (src / "index.rst").write_text(f"Readers\n=======\n\n{body}", encoding="utf-8")
        sites[name] = (src, base / f"out-{name}")
    runs = bench.alternate(
        reps, {name: (lambda s=src, o=out: bench.sphinx(s, o, "-E")) for name, (src, out) in sites.items()}
    )
    for name, results in runs.items():
        found = bench.warnings_of(results[-1])
        if found:
            sys.exit(f"{name}: the build warned:\n" + "\n".join(found))
    dataset = load_dataset(base / "data", base, LoadOptions())
    labels = [s.label for s in dataset.sizes.values()]
    result = {
        "rows": total,
        "table_s": statistics.median(r.wall for r in runs["table"]),
        "readers_s": statistics.median(r.wall for r in runs["readers"]),
        "table_mb": statistics.median(r.rss_mb for r in runs["table"]),
        "readers_mb": statistics.median(r.rss_mb for r in runs["readers"]),
        "table_kb": (sites["table"][1] / "index.html").stat().st_size / 1024,
        "readers_kb": (sites["readers"][1] / "index.html").stat().st_size / 1024,
        "svg_ms": in_process_ms(lambda: chart.render_svg(labels, dataset.entries), 20),
        "json_ms": in_process_ms(lambda: export.dataset_json(dataset), 20),
    }
    result["ratio"] = result["readers_s"] / result["table_s"]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="+", default=[100, 2000], help="row counts to generate")
    parser.add_argument("--reps", type=int, default=3, help="builds per variant (medians are reported)")
    args = parser.parse_args(argv)
    bench.WORK.mkdir(exist_ok=True)
    print(f"machine: {bench.machine()}; {args.reps} alternated builds per variant, medians")
    header = (
        f"{'rows':>6} {'table s':>8} {'readers s':>10} {'ratio':>6} {'table MB':>9} {'readers MB':>11} "
        f"{'table KiB':>10} {'readers KiB':>12} {'svg ms':>7} {'json ms':>8}"
    )
    print(header)
    for total in args.rows:
        r = bench_rows(total, args.reps)
        print(
            f"{total:>6} {r['table_s']:>8.2f} {r['readers_s']:>10.2f} {r['ratio']:>6.2f} {r['table_mb']:>9.0f} "
            f"{r['readers_mb']:>11.0f} {r['table_kb']:>10.0f} {r['readers_kb']:>12.0f} {r['svg_ms']:>7.1f} "
            f"{r['json_ms']:>8.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
