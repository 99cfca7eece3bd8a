"""Incremental builds: a rebuild reads only the pages whose data or scripts changed.

Each test builds a copy of ``roots/test-incremental`` (an intro page without tables, a
page per size, an ``all`` page and a filtered ``all`` page), changes one thing, builds
again in the same folder and compares the documents Sphinx read with the expected ones.
Some changes are no file a page depends on (a script that appears, a ref that is
fetched, a setting in ``pyproject.toml``, the day); they must make the page outdated
all the same, or the site keeps showing what is no longer true.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import TESTS, unbroken, warning_lines
from helpers import built, git

from sphinx_rlresources.sphinxext.store import store_of

EVERY_PAGE = ["all", "index", "intro", "min", "size-14b", "size-70b", "size-7b"]
DRAWING_PAGES = ["all", "min", "size-14b", "size-70b", "size-7b"]


@pytest.fixture
def site(tmp_path: Path) -> Path:
    src = tmp_path / "site"
    shutil.copytree(TESTS / "roots" / "test-incremental", src)
    return src


def build(make_app: Any, srcdir: Path, warned: str = "", **overrides: Any) -> tuple[list[str], Any]:
    """Build ``srcdir`` (reusing its saved environment); the documents read, sorted.

    ``warned`` is the one warning subtype the build must report (none by default);
    ``overrides`` are conf values.
    """
    read: list[str] = []

    def listen(app: Any) -> None:
        app.connect("env-before-read-docs", lambda _app, _env, docnames: read.extend(docnames), priority=900)

    app = built(make_app, srcdir, prepare=listen, confoverrides=overrides)
    lines = warning_lines(app)
    if warned:
        assert lines and all(f"[rlresources.{warned}]" in line for line in lines), lines
    else:
        assert lines == []
    return sorted(read), app


def page(app: Any, name: str) -> str:
    return unbroken((Path(app.outdir) / f"{name}.html").read_text(encoding="utf-8"))


def touch(path: Path) -> None:
    """Mark ``path`` changed now, after the last build read its pages.

    The time is given rather than left to the file system, whose clock is coarse (a
    tick behind the one Sphinx recorded its last read with); a time in the future
    would look changed to every later build too.
    """
    now = time.time_ns()
    os.utime(path, ns=(now, now))


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


SCRIPT = "examples/tuning/7b/qwen2-7b_grpo_2_h800_fsdp_vllm.sh"
SEVEN_B = ["all", "min", "size-7b"]


def test_a_script_that_appears_rereads_the_pages_that_draw_its_row(make_app: Any, site: Path) -> None:
    # The row's script is missing: reported, and the Link cell shows the name unlinked.
    # Adding the script changes no file the page depends on (it had none to depend on).
    script = site / SCRIPT
    kept = script.read_bytes()
    script.unlink()
    _read, app = build(make_app, site, warned="script_missing")
    link = '/qwen2-7b_grpo_2_h800_fsdp_vllm.sh"><span'  # the end of a download link's href
    assert link not in page(app, "size-7b")
    script.write_bytes(kept)
    read, app = build(make_app, site)
    assert read == SEVEN_B
    assert link in page(app, "size-7b")
    assert build(make_app, site)[0] == []


def test_a_pinned_ref_that_is_fetched_rereads_the_pages_that_draw_its_row(make_app: Any, site: Path) -> None:
    # A row pinned at a tag the clone does not have yet: reported, and not linked (a link
    # would lead nowhere). Fetching the tag changes no file at all.
    url = "https://example.org/repo/blob/{ref}/{path}"
    data = site / "data" / "7b.yaml"
    data.write_text(
        data.read_text(encoding="utf-8").replace(f"script: {SCRIPT}", f"script: {SCRIPT}\n    script_ref: v2"),
        encoding="utf-8",
    )
    git(site, "init", "-q")
    git(site, "add", "-A")
    git(site, "commit", "-q", "-m", "site")
    _read, app = build(make_app, site, warned="script_ref", rlresources_script_url=url)
    assert f"https://example.org/repo/blob/v2/{SCRIPT}" not in page(app, "size-7b")
    git(site, "tag", "v2")
    read, app = build(make_app, site, rlresources_script_url=url)
    assert read == SEVEN_B
    assert f"https://example.org/repo/blob/v2/{SCRIPT}" in page(app, "size-7b")
    assert build(make_app, site, rlresources_script_url=url)[0] == []


def test_a_setting_in_pyproject_rereads_the_pages(make_app: Any, site: Path) -> None:
    settings = site / "pyproject.toml"
    settings.write_text('[tool.rlresources]\nscript_url = "https://example.org/a/{path}"\n', encoding="utf-8")
    _read, app = build(make_app, site)
    assert f"https://example.org/a/{SCRIPT}" in page(app, "size-7b")
    settings.write_text('[tool.rlresources]\nscript_url = "https://example.org/b/{path}"\n', encoding="utf-8")
    read, app = build(make_app, site)
    assert set(DRAWING_PAGES) <= set(read)
    assert f"https://example.org/b/{SCRIPT}" in page(app, "size-7b")
    assert build(make_app, site)[0] == []


def test_a_row_that_grows_old_rereads_the_pages_that_draw_it(
    make_app: Any, site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The (outdated) marker depends on the day of the build, which no file records.
    data = site / "data" / "7b.yaml"
    data.write_text(
        data.read_text(encoding="utf-8").replace(f"script: {SCRIPT}", f"script: {SCRIPT}\n    tested: 2025-01-01"),
        encoding="utf-8",
    )
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")  # 2026-01-01: under a year
    _read, app = build(make_app, site, rlresources_max_age_days=365)
    assert "(outdated)" not in page(app, "size-7b")
    assert build(make_app, site, rlresources_max_age_days=365)[0] == []  # the same day: nothing to read
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1769904000")  # 2026-02-01: over a year
    read, app = build(make_app, site, rlresources_max_age_days=365)
    assert read == SEVEN_B
    assert "(outdated)" in page(app, "size-7b")


def test_a_page_that_stops_drawing_a_size_forgets_it(make_app: Any, site: Path) -> None:
    # The page's record of the sizes it draws is cleared when it is read again or removed,
    # so editing a size it no longer draws does not read it again.
    build(make_app, site)
    (site / "size-70b.rst").write_text("Seventy\n=======\n\n.. rl-resource-table:: 7b\n", encoding="utf-8")
    _read, app = build(make_app, site)
    assert store_of(app.env).uses["size-70b"] == {"7b"}
    data = site / "data" / "70b.yaml"
    data.write_text(data.read_text(encoding="utf-8").replace("SimonHuang", "Simon Huang"), encoding="utf-8")
    touch(data)
    assert build(make_app, site)[0] == ["all", "min"]
    (site / "size-14b.rst").unlink()
    (site / "index.rst").write_text(
        (site / "index.rst").read_text(encoding="utf-8").replace("   size-14b\n", ""), encoding="utf-8"
    )
    read, app = build(make_app, site)
    assert read == ["index"]
    assert "size-14b" not in store_of(app.env).uses
    shutil.copy(site / "spare" / "32b.yaml", site / "data" / "32b.yaml")
    assert build(make_app, site)[0] == ["all", "min", "size-70b", "size-7b"]
