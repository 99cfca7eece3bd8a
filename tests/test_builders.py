"""Every builder people publish with draws the tables cleanly (``-W``: no warning at all).

``tests/roots/test-builders`` has a captioned, referenced 70B table, an empty size
(the "contribute one" sentence) and the ``all`` table.  Each builder's output is then
checked for what that format needs: the rows, the links, a page-splitting
``longtable`` in LaTeX (compiled to PDF where a LaTeX toolchain is installed), a
``tbl`` table in man pages, the caption in the gettext catalog, and the script URLs
in linkcheck's report.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import defusedxml.ElementTree
import pytest
from conftest import REPO, TESTS, unbroken, warning_lines
from helpers import built, serving

BUILDERS = ["html", "dirhtml", "singlehtml", "epub", "latex", "text", "man", "gettext"]
ROWS = ["Qwen2-70B", "Qwen2.5-72B", "Qwen2.5-0.5B", "Qwen2.5-32B"]


def _builder_params() -> list[Any]:
    return [
        pytest.param(name, marks=pytest.mark.sphinx(name, testroot="builders", srcdir=f"builders-{name}"))
        for name in BUILDERS
    ]


def _read(outdir: Path, pattern: str) -> str:
    files = sorted(Path(outdir).glob(pattern))
    assert files, f"no {pattern} in {outdir}"
    return unbroken("\n".join(f.read_text(encoding="utf-8") for f in files))


def _read_raw(outdir: Path, pattern: str) -> str:
    return "\n".join(f.read_text(encoding="utf-8") for f in sorted(Path(outdir).glob(pattern)))


def check_environments(tex: str) -> list[str]:
    r"""The ``\begin``/``\end`` pairs of a LaTeX file, checked like brackets; returns the envs seen."""
    stack: list[str] = []
    seen = []
    for kind, name in re.findall(r"\\(begin|end)\{([^}]+)\}", tex):
        if kind == "begin":
            stack.append(name)
            seen.append(name)
        else:
            assert stack, f"\\end{{{name}}} without \\begin"
            assert stack.pop() == name, f"\\end{{{name}}} closes another environment"
    assert not stack, f"unclosed environments: {stack}"
    return seen


@pytest.mark.parametrize("builder", _builder_params())
def test_builder_draws_the_tables_without_warnings(app: Any, builder: str) -> None:
    app.build()
    assert warning_lines(app) == []
    outdir = Path(app.outdir)
    if builder in ("html", "dirhtml", "singlehtml"):
        html = _read(outdir, "**/index.html")
        assert html.count('class="rlresources-table') >= 2
        assert all(row in html for row in ROWS)
        assert "_downloads/" in html and "qwen2-70b_grpo_32_h20_fsdp_vllm.sh" in html
        assert "No configuration has been verified for 405B yet." in html
        # the Link cell shows a short label, the file name in its title and for screen readers
        raw = _read_raw(outdir, "**/index.html")
        assert 'title="qwen2-70b_grpo_32_h20_fsdp_vllm.sh">script</span>' in raw
        # long names may wrap where a reader expects, and the table stylesheet is linked and shipped
        assert "Qwen2.5-<wbr/>" in raw
        assert 'href="_static/rlresources-table.css' in html or 'href="../_static/rlresources-table.css' in html
        assert (outdir / "_static" / "rlresources-table.css").is_file()
    elif builder == "epub":
        xhtml = _read(outdir, "index.xhtml")
        defusedxml.ElementTree.fromstring(xhtml.encode())  # EPUB pages must be well-formed XML
        assert all(row in xhtml for row in ROWS)
        assert (outdir / "RLresources.epub").is_file()
    elif builder == "latex":
        tex = _read(outdir, "rlresources.tex")
        envs = check_environments(tex)
        # every directive table splits across pages and has wrapping, content-sized columns
        assert envs.count("longtable") == 2
        assert "tabulary" not in envs
        assert re.search(r"\\begin\{longtable\}\{(\\X\{\d+\}\{\d+\}){9}\}", tex)
        assert re.search(r"\\begin\{longtable\}\{(\\X\{\d+\}\{\d+\}){10}\}", tex)
        assert r"\caption{What 70B models need" in tex
        assert r"qwen2\sphinxhyphen{}70b\_\allowbreak{}grpo" in tex
        assert all(row.replace("-", r"\sphinxhyphen{}") in tex for row in ROWS)
    elif builder == "text":
        text = _read(outdir, "index.txt")
        assert "| Tag " in text and "| Qwen2.5-72B " in text
        # columns sized to their content (not equal widths), and no value cut in two
        assert '| "qwen2.5-72b_grpo-lora_8_h100_fsdp_vllm.sh" |' in text
        border = next(line for line in text.splitlines() if line.startswith("+-"))
        assert len(set(border.strip("+").split("+"))) > 3
    elif builder == "man":
        man = _read(outdir, "rlresources.7")
        assert man.count(".TS") == 2 and man.count(".TE") == 2
        assert all(row.replace("-", "\\-") in man for row in ROWS)
    elif builder == "gettext":
        pot = _read(outdir, "index.pot")
        # the page author's caption is the page's to translate; the data and the headers are not
        assert 'msgid "What 70B models need"' in pot
        assert "Qwen2-70B" not in pot
        assert 'msgid "Tag"' not in pot


# -- PDF: a table of many rows really splits across pages ------------------------------

BIG_ROWS = 70


def _make_big_root(srcdir: Path) -> None:
    """A root whose 8B table has :data:`BIG_ROWS` rows, each with a consistent script."""
    shutil.copytree(TESTS / "roots" / "test-builders", srcdir)
    conf = srcdir / "conf.py"
    conf.write_text(
        conf.read_text(encoding="utf-8").replace('"manual")', '"howto")'),
        encoding="utf-8",
    )
    scripts = srcdir / "examples" / "tuning" / "8b"
    scripts.mkdir(parents=True)
    lines = ["size: 8B", "entries:"]
    # From 2 GPUs: verl's update needs Qwen3-8B's 16 bytes per parameter on the GPUs, more than one H100 holds.
    for gpus in range(2, BIG_ROWS + 2):
        name = f"qwen3-8b_grpo_{gpus}_h100_fsdp_vllm.sh"
        (scripts / name).write_text(
            "#!/usr/bin/env bash\n"
            "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo \\\n"
            "    actor_rollout_ref.model.path=Qwen/Qwen3-8B actor_rollout_ref.rollout.name=vllm \\\n"
            f"    trainer.n_gpus_per_node={gpus} trainer.nnodes=1\n",
            encoding="utf-8",
        )
        lines += [
            "  - tag: RECOMMENDED",
            "    model: Qwen3-8B",
            "    task: GRPO",
            f"    gpus: {gpus}",
            "    device: H100",
            "    max_batch: null",
            "    train: fsdp",
            "    infer: vllm",
            '    infer_version: "0.8.3"',
            f"    script: examples/tuning/8b/{name}",
            "    contributor: Builders",
        ]
    (srcdir / "data" / "8b.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (srcdir / "index.rst").write_text(
        "Resources\n=========\n\n.. toctree::\n\n   contributing\n\n"
        ".. rl-resource-table:: 8b\n   :name: table-big\n   :caption: Many rows\n\n"
        ".. _after-big:\n\nAfter the table.\n",
        encoding="utf-8",
    )


def _label_page(aux: str, label: str) -> int:
    match = re.search(r"\\newlabel\{" + re.escape(label) + r"\}\{\{[^}]*\}\{(\d+)\}", aux)
    assert match, f"label {label} not in the .aux file"
    return int(match.group(1))


def test_latex_table_of_many_rows_splits_across_pages(make_app: Any, tmp_path: Path) -> None:
    srcdir = tmp_path / "big"
    _make_big_root(srcdir)
    app = built(make_app, srcdir, "latex")
    assert warning_lines(app) == []
    outdir = Path(app.outdir)
    tex = (outdir / "rlresources.tex").read_text(encoding="utf-8")
    check_environments(tex)
    assert tex.count(r"\begin{longtable}") == 1
    # a longtable repeats its header on every page it continues on
    assert r"\endfirsthead" in tex and r"\endhead" in tex
    assert tex.count(r"qwen3\sphinxhyphen{}8b\_") == BIG_ROWS
    if shutil.which("latexmk") is None or shutil.which("pdflatex") is None:
        pytest.skip("no LaTeX toolchain (latexmk, pdflatex): the .tex structure was checked, the PDF was not made")
    result = subprocess.run(
        ["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", "rlresources.tex"],
        cwd=outdir,
        capture_output=True,
        text=True,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stdout[-3000:]
    assert (outdir / "rlresources.pdf").stat().st_size > 0
    aux = (outdir / "rlresources.aux").read_text(encoding="utf-8")
    assert _label_page(aux, "index:after-big") > _label_page(aux, "index:table-big")


# -- linkcheck sees the script URLs -------------------------------------------------------


@pytest.fixture
def local_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """An HTTP server on 127.0.0.1 serving a folder (the network is never needed)."""
    served = tmp_path / "served"
    served.mkdir()
    with serving(served) as base:
        yield base, served


def test_linkcheck_checks_the_script_urls(make_app: Any, tmp_path: Path, local_server: tuple[str, Path]) -> None:
    base, served = local_server
    srcdir = tmp_path / "linkcheck"
    shutil.copytree(TESTS / "roots" / "test-builders", srcdir)
    # the "repository host" serves the scripts under the ref, except one that was never pushed
    shutil.copytree(srcdir / "examples", served / "v1" / "examples")
    missing = served / "v1" / "examples" / "tuning" / "70b" / "qwen2-70b_grpo_32_h20_fsdp_vllm.sh"
    missing.unlink()
    app = built(
        make_app,
        srcdir,
        "linkcheck",
        confoverrides={
            "rlresources_script_url": base + "/{ref}/{path}",
            "rlresources_script_ref": "v1",
            "linkcheck_timeout": 10,
            "linkcheck_retries": 1,
        },
    )
    report = [json.loads(line) for line in (Path(app.outdir) / "output.json").read_text().splitlines()]
    status = {item["uri"]: item["status"] for item in report}
    scripts = {uri for uri in status if uri.startswith(base + "/v1/examples/tuning/")}
    assert len(scripts) == 12  # every row of every size, each URL once
    assert status[base + "/v1/examples/tuning/70b/qwen2-70b_grpo_32_h20_fsdp_vllm.sh"] == "broken"
    assert sorted(s for uri, s in status.items() if uri in scripts).count("working") == 11
    broken = (Path(app.outdir) / "output.txt").read_text().splitlines()
    assert len(broken) == 1 and "[broken]" in broken[0] and "qwen2-70b_grpo_32_h20_fsdp_vllm.sh" in broken[0]


# -- the project's own docs as a PDF (Read the Docs builds it: .readthedocs.yaml) -------------


@pytest.mark.slow
def test_the_project_docs_make_a_pdf(tmp_path: Path) -> None:
    if shutil.which("latexmk") is None or shutil.which("pdflatex") is None:
        pytest.skip("no LaTeX toolchain (latexmk, pdflatex)")
    out = tmp_path / "latex"
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "latex",
         "-d", str(tmp_path / "doctrees"), str(REPO / "docs"), str(out)],
        capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    (tex,) = out.glob("*.tex")
    result = subprocess.run(
        ["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", tex.name],
        cwd=out, capture_output=True, check=False, stdin=subprocess.DEVNULL,
        encoding="utf-8", errors="replace",  # pdflatex wraps its output inside multi-byte characters
    )  # fmt: skip
    log = tex.with_suffix(".log")
    errors = [line for line in log.read_text(errors="replace").splitlines() if line.startswith("!")]
    assert result.returncode == 0, errors or result.stdout[-3000:]
    assert tex.with_suffix(".pdf").stat().st_size > 0
