"""Incremental builds: a rebuild reads only the pages whose data or scripts changed.

Each test builds a copy of ``roots/test-incremental`` (an intro page without tables, a
page per size, an ``all`` page and a filtered ``all`` page), changes one thing, builds
again in the same folder and compares the documents Sphinx read with the expected ones.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import TESTS, _root_path, unbroken, warning_lines

EVERY_PAGE = ["all", "index", "intro", "min", "size-14b", "size-70b", "size-7b"]
DRAWING_PAGES = ["all", "min", "size-14b", "size-70b", "size-7b"]


@pytest.fixture
def site(tmp_path: Path) -> Path:
    src = tmp_path / "site"
    shutil.copytree(TESTS / "roots" / "test-incremental", src)
    return src


def build(make_app: Any, srcdir: Path) -> tuple[list[str], Any]:
    """Build ``srcdir`` (reusing its saved environment); the documents read, sorted."""
    app = make_app("html", srcdir=_root_path(str(srcdir)))
    read: list[str] = []
    app.connect("env-before-read-docs", lambda _app, _env, docnames: read.extend(docnames), priority=900)
    try:
        app.build()
    finally:
        app.cleanup()  # unregister its nodes and directives, so the next app starts clean
    assert warning_lines(app) == []
    return sorted(read), app


def touch(path: Path) -> None:
    """Mark ``path`` changed now, clearly after the last build read its pages.

    The pause outlasts coarse file-system clocks, so the new time is later than the
    time Sphinx recorded for its last read (a time in the future would look changed to
    every later build too).
    """
    time.sleep(0.05)
    os.utime(path)


def test_a_rebuild_with_nothing_changed_reads_no_document(make_app: Any, site: Path) -> None:
    assert build(make_app, site)[0] == EVERY_PAGE
    assert build(make_app, site)[0] == []


def test_editing_one_size_rereads_only_the_pages_that_draw_it(make_app: Any, site: Path) -> None:
    build(make_app, site)
    data = site / "data" / "70b.yaml"
    text = data.read_text(encoding="utf-8")
    data.write_text(text.replace("contributor: SimonHuang", "contributor: Simon Huang"), encoding="utf-8")
    touch(data)
    read, app = build(make_app, site)
    assert read == ["all", "min", "size-70b"]  # not size-7b, size-14b, intro or index
    html = unbroken((Path(app.outdir) / "size-70b.html").read_text(encoding="utf-8"))
    assert "<td><p>Simon Huang</p></td>" in html
    assert build(make_app, site)[0] == []


def test_editing_a_script_rereads_only_the_pages_that_link_it(make_app: Any, site: Path) -> None:
    build(make_app, site)
    touch(site / "examples" / "tuning" / "7b" / "qwen2-7b_grpo_2_h800_fsdp_vllm.sh")
    assert build(make_app, site)[0] == ["all", "min", "size-7b"]


def test_adding_or_removing_a_data_file_rereads_every_page_that_draws_sizes(make_app: Any, site: Path) -> None:
    # A new size changes what `all` draws, which sizes exist and the suggestions for an
    # unknown one, so every page using the directive is read again; the others are not.
    build(make_app, site)
    added = site / "data" / "32b.yaml"
    shutil.copy(site / "spare" / "32b.yaml", added)
    read, app = build(make_app, site)
    assert read == DRAWING_PAGES
    assert "qwen2-32b_grpo_8_h20_megatron_vllm.sh" in unbroken(
        (Path(app.outdir) / "all.html").read_text(encoding="utf-8")
    )
    added.unlink()
    read, app = build(make_app, site)
    assert read == DRAWING_PAGES
    assert "qwen2-32b" not in unbroken((Path(app.outdir) / "all.html").read_text(encoding="utf-8"))
    assert build(make_app, site)[0] == []
