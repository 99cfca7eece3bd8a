#!/usr/bin/env python3
"""Benchmark the directive against the hand-written tables it replaces.

One run generates, for each requested row count, a synthetic repository (data files
across the usual sizes, one consistent tuning script per row) under
``benchmarks/_work/`` and measures, in the same run and on the same machine:

1. a full HTML build (``sphinx-build -E`` as a whole process) of a page drawn by the
   directive against the same tables written by hand as ``list-table`` (links and all);
2. ``rlresources lint`` over the same data and scripts;
3. the peak memory (max RSS) of both builds;
4. a rebuild with nothing changed and a rebuild after editing one size's data file,
   recording which documents Sphinx reads again;
5. ``-j 2`` against ``-j 1``: wall time, and whether the written files are identical
   (and whether two clean builds are).

The variants are alternated (A B, B A, ...) and medians reported, because a shared
machine's timings drift; compare the ratios, not the seconds.

    python benchmarks/bench.py --rows 100 2000 10000
"""

from __future__ import annotations

import argparse
import compileall
import filecmp
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work"

SIZES = ["0.5B", "1.5B", "3B", "7B", "14B", "32B", "70B", "405B", "671B"]
#: (task as the row writes it, algorithm.adv_estimator, LoRA)
TASKS = [("GRPO", "grpo", False), ("GRPO-LoRA", "grpo", True), ("PPO", "gae", False)]
DEVICES = ["H100", "H800", "H20", "H200", "A100"]
TRAINS = ["fsdp", "megatron"]
INFERS = [("vllm", "0.8.3"), ("sglang", "0.4.6")]
URL_TEMPLATE = "https://example.org/org/repo/blob/{ref}/{path}"
EDITED_SIZE = "70b"

# A conf.py extension that records which documents a build reads, so the incremental
# step does not depend on the wording of Sphinx's progress output.
RECORDER = """
import json, os

def _record(app, env, docnames):
    target = os.environ.get("RLBENCH_READS")
    if target:
        with open(target, "w", encoding="utf-8") as handle:
            json.dump(sorted(docnames), handle)

def setup(app):
    app.connect("env-before-read-docs", _record, priority=900)
"""


# -- the synthetic repository -----------------------------------------------------------


@dataclass(frozen=True)
class Row:
    size: str
    tag: str
    model: str
    model_id: str
    task: str
    estimator: str
    lora: bool
    gpus: int
    device: str
    max_batch: int | None
    train: str
    infer: str
    infer_version: str
    contributor: str
    github: str | None

    @property
    def key(self) -> str:
        return self.size.lower()

    @property
    def script(self) -> str:
        name = "_".join(
            [self.model.lower(), self.task.lower(), str(self.gpus), self.device.lower(), self.train, self.infer]
        )
        return f"examples/tuning/{self.key}/{name}.sh"

    @property
    def script_name(self) -> str:
        return self.script.rsplit("/", 1)[-1]


def gpu_counts(size: str, wanted: int) -> list[int]:
    """``wanted`` GPU counts (1..8, then whole nodes) from the least that fits the size.

    The least is the estimator's fewest GPUs for the hungriest row the generator writes
    (full PPO, nothing offloaded, 80 GB devices), so no synthetic row is implausible and
    every check runs and finds nothing.
    """
    from sphinx_rlresources.estimator.architectures import bundled, by_size
    from sphinx_rlresources.estimator.devices import device_memory
    from sphinx_rlresources.estimator.memory import Plan, minimum_gpus

    arch = bundled(f"Qwen2.5-{size}") or by_size(size)
    plan = Plan("PPO", 8, "H100", device_memory("H100") or 79.6)
    least = minimum_gpus(arch, plan) if arch else None
    start = least[0] if least else 1
    counts = [g for g in range(1, 9) if g >= start]
    node = max(16, -(-start // 8) * 8)
    while len(counts) < wanted:
        counts.append(node)
        node += 8
    return counts[:wanted]


def make_rows(total: int) -> dict[str, list[Row]]:
    """``total`` rows spread round-robin over the sizes; every script name is unique."""
    by_size: dict[str, list[Row]] = {s: [] for s in SIZES}
    per_size = -(-total // len(SIZES))
    counts = {size: gpu_counts(size, per_size) for size in SIZES}
    for i in range(total):
        size = SIZES[i % len(SIZES)]
        j = i // len(SIZES)
        task, estimator, lora = TASKS[j % len(TASKS)]
        infer, version = INFERS[j % len(INFERS)]
        gpus = counts[size][j]  # unique per size
        by_size[size].append(
            Row(
                size=size,
                tag="MIN" if j % 2 == 0 else "RECOMMENDED",
                model=f"Qwen2.5-{size}",
                model_id=f"Qwen/Qwen2.5-{size}-Instruct",
                task=task,
                estimator=estimator,
                lora=lora,
                gpus=gpus,
                device=DEVICES[j % len(DEVICES)],
                max_batch=None if j % 5 == 0 else 64 * (1 + j % 8),
                train=TRAINS[(j // 3) % len(TRAINS)],
                infer=infer,
                infer_version=version,
                contributor=f"Contributor {j % 17}",
                github=f"contributor{j % 17}" if j % 3 == 0 else None,
            )
        )
    return by_size


def yaml_text(size: str, rows: list[Row]) -> str:
    out = [f"# Synthetic benchmark data: {len(rows)} rows.", f"size: {size}", "entries:" if rows else "entries: []"]
    for r in rows:
        out += [
            f"  - tag: {r.tag}",
            f"    model: {r.model}",
            f"    model_id: {r.model_id}",
            f"    task: {r.task}",
            f"    gpus: {r.gpus}",
            f"    device: {r.device}",
            f"    max_batch: {'null' if r.max_batch is None else r.max_batch}",
            f"    train: {r.train}",
            f"    infer: {r.infer}",
            f'    infer_version: "{r.infer_version}"',
            f"    script: {r.script}",
        ]
        if r.github:
            out += ["    contributor:", f"      name: {r.contributor}", f"      github: {r.github}"]
        else:
            out.append(f"    contributor: {r.contributor}")
    return "\n".join(out) + "\n"


def script_text(r: Row) -> str:
    """A launcher whose settings agree with its row (GPUs, engine, backend, LoRA, ...)."""
    nnodes, per_node = (r.gpus // 8, 8) if r.gpus > 8 else (1, r.gpus)
    saving = "True" if r.tag == "MIN" else "False"
    lines = [
        "#!/usr/bin/env bash",
        f"# {r.tag}: {r.model} {r.task} on {r.gpus}*{r.device} ({r.train} + {r.infer} {r.infer_version}).",
        "set -x",
        "",
        f"MODEL_PATH={r.model_id}",
        f"nnodes={nnodes}",
        f"ngpu_per_node={per_node}",
        "",
        "python3 -m verl.trainer.main_ppo \\",
    ]
    if r.train == "megatron":
        lines.append("    --config-name=ppo_megatron_trainer \\")
    lines += [
        f"    algorithm.adv_estimator={r.estimator} \\",
        "    data.train_files=data/gsm8k/train.parquet \\",
        "    data.val_files=data/gsm8k/test.parquet \\",
        f"    data.train_batch_size={r.max_batch or 256} \\",
        "    actor_rollout_ref.model.path=$MODEL_PATH \\",
    ]
    if r.lora:
        lines.append("    actor_rollout_ref.model.lora_rank=32 \\")
    lines += [
        f"    actor_rollout_ref.model.enable_gradient_checkpointing={saving} \\",
        f"    actor_rollout_ref.actor.fsdp_config.param_offload={saving} \\",
        f"    actor_rollout_ref.actor.fsdp_config.optimizer_offload={saving} \\",
        f"    actor_rollout_ref.rollout.name={r.infer} \\",
        "    trainer.n_gpus_per_node=${ngpu_per_node} \\",
        "    trainer.nnodes=$nnodes \\",
        "    trainer.total_epochs=1 $@",
    ]
    return "\n".join(lines) + "\n"


def hand_table(rows: list[Row], links: str) -> list[str]:
    """The ``list-table`` a maintainer would write for these rows, links and all."""
    head = ["Tag", "Model", "Task", "Resource", "MaxBatch", "Train", "Infer", "Link", "Contributor"]
    out = [".. list-table::", "   :header-rows: 1", "   :widths: auto", ""]
    out.append("   * - " + "\n     - ".join(head))
    for r in rows:
        if links == "url":
            link = f"`{r.script_name} <{URL_TEMPLATE.format(ref='main', path=r.script)}>`__"
        else:
            link = f":download:`{r.script_name} <../{r.script}>`"
        who = f"`{r.contributor} <https://github.com/{r.github}>`__" if r.github else r.contributor
        cells = [
            r.tag,
            r.model,
            r.task,
            f"{r.gpus}*{r.device}",
            "" if r.max_batch is None else str(r.max_batch),
            r.train,
            f"{r.infer}{r.infer_version}",
            link,
            who,
        ]
        out.append("   * - " + "\n     - ".join(cells))
    return [line.rstrip() for line in "\n".join(out).splitlines()] + [""]


def page(sections: list[tuple[str, list[str]]]) -> str:
    out = ["Resources", "=========", ""]
    for title, body in sections:
        out += [title, "-" * len(title), "", *body, ""]
    return "\n".join(out)


CONF_BASE = 'project = "bench"\nexclude_patterns = ["_build"]\n'
CONF_EXT = 'extensions = ["sphinx_rlresources"]\nrlresources_data_dir = "../data"\nrlresources_root = ".."\n'


def generate(total: int, links: str, prefix: str = "rows") -> Path:
    """Write the repository for ``total`` rows into ``_work/PREFIX-TOTAL``; return it.

    Other benchmarks reuse this generator; each passes its own prefix so that runs in
    parallel never delete each other's folders.
    """
    base = WORK / f"{prefix}-{total}"
    if base.exists():
        shutil.rmtree(base)
    by_size = make_rows(total)
    (base / "data").mkdir(parents=True)
    for size, rows in by_size.items():
        (base / "data" / f"{size.lower()}.yaml").write_text(yaml_text(size, rows), encoding="utf-8")
        folder = base / "examples" / "tuning" / size.lower()
        folder.mkdir(parents=True)
        for r in rows:
            (base / r.script).write_text(script_text(r), encoding="utf-8")
    (base / "pyproject.toml").write_text(
        '[tool.rlresources]\ndata = "data"\nroot = "."\nscripts = ["examples/tuning"]\n', encoding="utf-8"
    )
    url_conf = f"rlresources_script_url = {URL_TEMPLATE!r}\n" if links == "url" else ""
    # 1. one page, drawn by the directive / written by hand
    directive = base / "docs-directive"
    directive.mkdir()
    (directive / "conf.py").write_text(CONF_BASE + CONF_EXT + url_conf, encoding="utf-8")
    (directive / "index.rst").write_text(
        page([(s, [f".. rl-resource-table:: {s.lower()}"]) for s in SIZES]), encoding="utf-8"
    )
    hand = base / "docs-hand"
    hand.mkdir()
    (hand / "conf.py").write_text(CONF_BASE, encoding="utf-8")
    (hand / "index.rst").write_text(page([(s, hand_table(by_size[s], links)) for s in SIZES]), encoding="utf-8")
    # 2. a site with a page per size, an ``all`` page and a page without tables
    pages = base / "docs-pages"
    (pages / "sizes").mkdir(parents=True)
    (pages / "conf.py").write_text(CONF_BASE + CONF_EXT + url_conf + RECORDER, encoding="utf-8")
    names = ["intro", *(f"sizes/{s.lower()}" for s in SIZES), "all"]
    (pages / "index.rst").write_text(
        "Bench\n=====\n\n.. toctree::\n\n" + "".join(f"   {n}\n" for n in names), encoding="utf-8"
    )
    (pages / "intro.rst").write_text("Intro\n=====\n\nA page without tables.\n", encoding="utf-8")
    for s in SIZES:
        (pages / "sizes" / f"{s.lower()}.rst").write_text(
            f"{s}\n{'=' * len(s)}\n\n.. rl-resource-table:: {s.lower()}\n", encoding="utf-8"
        )
    (pages / "all.rst").write_text("All\n===\n\n.. rl-resource-table:: all\n", encoding="utf-8")
    return base


# -- measuring ----------------------------------------------------------------------------


@dataclass
class Run:
    wall: float
    cpu: float
    rss_mb: float
    code: int
    out: str
    err: str


def run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> Run:
    """Run one process; wall time and its peak RSS (its own, via wait4, and its children's)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err, env={**os.environ, **(env or {})})
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        cpu = usage.ru_utime + usage.ru_stime
        return Run(wall, cpu, usage.ru_maxrss / 1024, proc.returncode, out.read().decode(), err.read().decode())


def sphinx(src: Path, out: Path, *extra: str, env: dict[str, str] | None = None, fresh: bool = True) -> Run:
    if fresh and out.exists():
        shutil.rmtree(out)
    result = run([sys.executable, "-m", "sphinx", "-q", "-b", "html", *extra, str(src), str(out)], src, env)
    if result.code != 0:
        sys.exit(f"sphinx-build failed for {src}:\n{result.err}")
    return result


def warnings_of(result: Run) -> list[str]:
    return [line for line in result.err.splitlines() if "WARNING" in line or "ERROR" in line]


def median(values: list[float]) -> float:
    return statistics.median(values)


def alternate(reps: int, variants: dict[str, Any]) -> dict[str, list[Run]]:
    """Run each variant ``reps`` times, alternating the order every round."""
    names = list(variants)
    results: dict[str, list[Run]] = {n: [] for n in names}
    for i in range(reps):
        for name in names if i % 2 == 0 else reversed(names):
            results[name].append(variants[name]())
    return results


def lint_command(base: Path) -> tuple[list[str], str]:
    """The real ``rlresources lint`` when the CLI is installed, else the loader it calls."""
    try:
        import sphinx_rlresources.cli.main  # noqa: F401
    except ImportError:
        code = (
            "import sys; from pathlib import Path; "
            "from sphinx_rlresources.core.loader import LoadOptions, load_dataset; "
            "d = load_dataset(Path('data'), Path('.'), LoadOptions()); "
            "[print(x.format()) for x in d.diagnostics]; sys.exit(1 if d.diagnostics else 0)"
        )
        return [sys.executable, "-c", code], "load_dataset (CLI not installed)"
    script = Path(sys.executable).with_name("rlresources")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "sphinx_rlresources"]
    return [*command, "lint"], "rlresources lint"


def tree_files(out: Path) -> dict[str, Path]:
    return {
        p.relative_to(out).as_posix(): p
        for p in out.rglob("*")
        if p.is_file() and ".doctrees" not in p.relative_to(out).parts
    }


def differences(a: Path, b: Path) -> list[str]:
    """The written files (doctrees aside) that differ between two output folders."""
    fa, fb = tree_files(a), tree_files(b)
    differ = sorted(set(fa) ^ set(fb))
    differ += [name for name in sorted(set(fa) & set(fb)) if not filecmp.cmp(fa[name], fb[name], shallow=False)]
    return differ


def bench_rows(total: int, args: argparse.Namespace) -> dict[str, Any]:
    base = generate(total, args.links, prefix="table")
    outs = base / "out"
    defines = [arg for value in args.define for arg in ("-D", value)]
    result: dict[str, Any] = {"rows": total}
    print(f"\n== {total} rows: {base}", flush=True)

    # 1 + 3: full build of the page, directive vs hand-written, alternated
    if total <= args.build_max:
        builds = alternate(
            args.reps,
            {
                "directive": lambda: sphinx(base / "docs-directive", outs / "directive", "-E", *defines),
                "hand": lambda: sphinx(base / "docs-hand", outs / "hand", "-E"),
            },
        )
        for name, runs in builds.items():
            result[f"build_{name}_s"] = median([r.wall for r in runs])
            result[f"build_{name}_cpu_s"] = median([r.cpu for r in runs])
            result[f"build_{name}_rss_mb"] = max(r.rss_mb for r in runs)
            result[f"build_{name}_warnings"] = warnings_of(runs[-1])
        result["build_ratio"] = result["build_directive_s"] / result["build_hand_s"]
        result["build_cpu_ratio"] = result["build_directive_cpu_s"] / result["build_hand_cpu_s"]
        result["rss_ratio"] = result["build_directive_rss_mb"] / result["build_hand_rss_mb"]
        rows_drawn = {n: (outs / n / "index.html").read_text(encoding="utf-8").count("<tr") for n in builds}
        result["table_rows_html"] = rows_drawn
        print(
            f"   build: directive {result['build_directive_s']:.2f}s / hand {result['build_hand_s']:.2f}s"
            f" = {result['build_ratio']:.2f} (cpu {result['build_cpu_ratio']:.2f});"
            f" rss {result['build_directive_rss_mb']:.0f} /"
            f" {result['build_hand_rss_mb']:.0f} MB; <tr> {rows_drawn}",
            flush=True,
        )
        for name in builds:
            for line in result[f"build_{name}_warnings"][:5]:
                print(f"   warning ({name}): {line}")

    # 2: lint over the same data and scripts
    cmd, what = lint_command(base)
    lints = [run(cmd, base) for _ in range(args.reps + 2)]
    result["lint_what"] = what
    result["lint_s"] = median([r.wall for r in lints])
    result["lint_cpu_s"] = median([r.cpu for r in lints])
    result["lint_rss_mb"] = max(r.rss_mb for r in lints)
    result["lint_findings"] = len([line for line in lints[-1].out.splitlines() if line.strip()])
    result["lint_exit"] = lints[-1].code
    print(f"   lint ({what}): {result['lint_s']:.2f}s, exit {lints[-1].code}, {result['lint_findings']} lines")

    # 4 + 5: incremental and parallel builds of the multi-page site
    if total in args.incremental:
        pages = base / "docs-pages"
        reads = base / "reads.json"
        env = {"RLBENCH_READS": str(reads)}

        def read_docs() -> list[str]:
            found: list[str] = json.loads(reads.read_text(encoding="utf-8"))
            return found

        inc = outs / "incremental"
        first = sphinx(pages, inc, env=env)
        result["clean_reads"] = read_docs()
        result["clean_s"] = first.wall
        again = sphinx(pages, inc, env=env, fresh=False)
        result["nochange_reads"] = read_docs()
        result["nochange_s"] = again.wall
        data_file = base / "data" / f"{EDITED_SIZE}.yaml"
        original = data_file.read_text(encoding="utf-8")
        edit = original.replace("contributor: Contributor 2\n", "contributor: Contributor 2b\n", 1)
        data_file.write_text(edit, encoding="utf-8")
        edited = sphinx(pages, inc, env=env, fresh=False)
        result["edit_reads"] = read_docs()
        result["edit_s"] = edited.wall
        data_file.write_text(original, encoding="utf-8")
        print(
            f"   rebuild: none changed {result['nochange_s']:.2f}s reads {result['nochange_reads']};"
            f" {EDITED_SIZE} edited {result['edit_s']:.2f}s reads {result['edit_reads']}",
            flush=True,
        )

        par = alternate(
            args.reps,
            {
                "j1": lambda: sphinx(pages, outs / "j1", "-E", "-j", "1"),
                "j2": lambda: sphinx(pages, outs / "j2", "-E", "-j", "2"),
            },
        )
        result["j1_s"] = median([r.wall for r in par["j1"]])
        result["j2_s"] = median([r.wall for r in par["j2"]])
        result["j2_vs_j1_differ"] = differences(outs / "j1", outs / "j2")
        shutil.copytree(outs / "j1", outs / "j1-first")
        sphinx(pages, outs / "j1", "-E", "-j", "1")
        result["clean_twice_differ"] = differences(outs / "j1-first", outs / "j1")
        print(
            f"   -j 2 {result['j2_s']:.2f}s vs -j 1 {result['j1_s']:.2f}s; files differing:"
            f" j2/j1 {result['j2_vs_j1_differ'] or 'none'}, two clean builds {result['clean_twice_differ'] or 'none'}",
            flush=True,
        )
    return result


# -- reporting ----------------------------------------------------------------------------


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    import sphinx as sphinx_module

    return (
        f"{cpu}, {os.cpu_count()} CPUs, load {load:.2f}; Python {platform.python_version()}, "
        f"Sphinx {sphinx_module.__version__}, {platform.system()} {platform.release()}"
    )


def table(results: list[dict[str, Any]]) -> str:
    def cell(r: dict[str, Any], key: str, fmt: str) -> str:
        return format(r[key], fmt) if key in r else "-"

    head = [
        "rows",
        "directive s",
        "hand s",
        "ratio",
        "cpu ratio",
        "dir MB",
        "hand MB",
        "MB ratio",
        "lint s",
        "lint cpu",
    ]
    lines = [head]
    for r in results:
        lines.append(
            [
                str(r["rows"]),
                cell(r, "build_directive_s", ".2f"),
                cell(r, "build_hand_s", ".2f"),
                cell(r, "build_ratio", ".2f"),
                cell(r, "build_cpu_ratio", ".2f"),
                cell(r, "build_directive_rss_mb", ".0f"),
                cell(r, "build_hand_rss_mb", ".0f"),
                cell(r, "rss_ratio", ".2f"),
                cell(r, "lint_s", ".2f"),
                cell(r, "lint_cpu_s", ".2f"),
            ]
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    text = ["  ".join(c.rjust(w) for c, w in zip(line, widths, strict=True)) for line in lines]
    text.insert(1, "  ".join("-" * w for w in widths))
    for r in results:
        if "nochange_reads" in r:
            text += [
                "",
                f"incremental ({r['rows']} rows, {len(r['clean_reads'])} documents):",
                f"  no change:          {r['nochange_s']:.2f}s, documents read: {r['nochange_reads'] or 'none'}",
                f"  {EDITED_SIZE}.yaml edited:    {r['edit_s']:.2f}s, documents read: {r['edit_reads']}",
                f"parallel ({r['rows']} rows): -j 1 {r['j1_s']:.2f}s, -j 2 {r['j2_s']:.2f}s;"
                f" -j 2 == -j 1: {'yes' if not r['j2_vs_j1_differ'] else r['j2_vs_j1_differ']};"
                f" two clean builds equal: {'yes' if not r['clean_twice_differ'] else r['clean_twice_differ']}",
            ]
    return "\n".join(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="+", default=[100, 2000, 10000], help="row counts to generate")
    parser.add_argument("--reps", type=int, default=3, help="builds per variant (medians are reported)")
    parser.add_argument(
        "--build-max", type=int, default=2000, help="skip the page builds above this many rows (lint still runs)"
    )
    parser.add_argument(
        "--incremental", type=int, nargs="*", default=[2000], help="row counts to run the rebuild and -j steps for"
    )
    parser.add_argument(
        "--links",
        choices=["download", "url"],
        default="download",
        help="link scripts as downloads copied into the build (default) or as URLs (rlresources_script_url)",
    )
    parser.add_argument(
        "--define",
        "-D",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a conf.py value for the directive builds (sphinx-build -D), e.g. rlresources_cross_check=0",
    )
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    args = parser.parse_args(argv)
    WORK.mkdir(exist_ok=True)
    # As installed: pip compiles the bytecode at install time, but an editable install run
    # with PYTHONDONTWRITEBYTECODE would compile the package from source in every process.
    import sphinx_rlresources

    compileall.compile_dir(Path(sphinx_rlresources.__file__).parent, quiet=1)
    print(f"machine: {machine()}")
    print(f"links: {args.links}; {args.reps} alternated runs per variant, medians; -D {args.define or 'none'}")
    started = time.perf_counter()
    results = [bench_rows(total, args) for total in args.rows]
    print()
    print(table(results))
    print(f"\ntotal {time.perf_counter() - started:.0f}s; machine after the run: {machine()}")
    if args.json:
        args.json.write_text(json.dumps({"machine": machine(), "links": args.links, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
