#!/usr/bin/env python3
"""What the hand-written SVG chart costs (``sphinxext/svgchart.py``), per row and against the table's build.

The chart replaced nothing: it is written as SVG text rather than drawn with a plotting
library (whose import alone takes a large part of a second on every build).  So this
measures what it costs, for each ``--rows`` count of ``bench.py``'s synthetic repository:

* in this process, the median of ``--reps`` renderings of the wide chart
  (``render_svg``) and of the tall one for phones (``render_tall_svg``), in ms and in
  µs per row;
* as whole processes, alternated, a clean HTML build of a page drawing
  ``rl-resource-table:: all`` against the same page with ``rl-resource-chart`` added:
  the ratio chart / table is what the chart adds to a build.

    python benchmarks/bench_svgchart.py --rows 100 2000 10000 --reps 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

from onoff import bench

from sphinx_rlresources.core.loader import LoadOptions, load_dataset
from sphinx_rlresources.core.model import Entry
from sphinx_rlresources.sphinxext.svgchart import render_svg, render_tall_svg

PAGES = {
    "table": ".. rl-resource-table:: all\n",
    "chart": ".. rl-resource-table:: all\n\n.. rl-resource-chart::\n",
}


def render_ms(
    draw: Callable[[list[str], list[Entry]], str], labels: list[str], entries: list[Entry], reps: int
) -> float:
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        draw(labels, entries)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="+", default=[100, 2000, 10000], help="row counts to generate")
    parser.add_argument("--reps", type=int, default=5, help="renderings and builds per variant (medians)")
    parser.add_argument("--build-max", type=int, default=2000, help="no page build above this many rows")
    args = parser.parse_args(argv)
    bench.WORK.mkdir(exist_ok=True)
    print(f"machine: {bench.machine()}; medians of {args.reps}")
    print(
        f"{'rows':>6} {'wide ms':>8} {'tall ms':>8} {'µs/row wide':>12} {'µs/row tall':>12} "
        f"{'table s':>8} {'+chart s':>9} {'ratio':>6}"
    )
    conf = bench.CONF_BASE + bench.CONF_EXT + f"rlresources_script_url = {bench.URL_TEMPLATE!r}\n"
    for total in args.rows:
        base = bench.generate(total, "url", prefix="svgchart")
        dataset = load_dataset(base / "data", base, LoadOptions(cross_check=False))
        labels = [s.label for s in dataset.sizes.values()]
        entries = list(dataset.entries)
        wide = render_ms(render_svg, labels, entries, args.reps)
        tall = render_ms(render_tall_svg, labels, entries, args.reps)
        builds = "-"
        if total <= args.build_max:
            sites = {}
            for name, body in PAGES.items():
                src = base / f"docs-{name}"
                src.mkdir()
                (src / "conf.py").write_text(conf, encoding="utf-8")
                (src / "index.rst").write_text(f"Chart\n=====\n\n{body}", encoding="utf-8")
                sites[name] = (src, base / f"out-{name}")
            runs = bench.alternate(
                args.reps, {name: (lambda s=s, o=o: bench.sphinx(s, o, "-E")) for name, (s, o) in sites.items()}
            )
            table_s = statistics.median(r.wall for r in runs["table"])
            chart_s = statistics.median(r.wall for r in runs["chart"])
            builds = f"{table_s:>8.2f} {chart_s:>9.2f} {chart_s / table_s:>6.2f}"
        print(
            f"{total:>6} {wide:>8.2f} {tall:>8.2f} {wide / total * 1000:>12.2f} {tall / total * 1000:>12.2f} {builds}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
