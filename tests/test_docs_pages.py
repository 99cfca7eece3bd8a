"""Every page of the docs, in each of the three themes, fits a phone: nothing scrolls sideways.

The measure is the whole page (``document.documentElement.scrollWidth`` against the
width the page is laid out in), not only our tables: a literal in prose, a code block or
a theme's own table can push a page wider than the screen as surely as a resource table.
The docs are built once per theme for the session, and each page is opened at 400
pixels, the width of a small phone.  The estimator's guide is also held to "a few
screens" at a laptop's width, and its estimate blocks on the seed page to the height of
the measured tables they complete.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO
from helpers import save_screenshot, serving

pytestmark = pytest.mark.browser

THEMES = ["alabaster", "sphinx_rtd_theme", "furo"]
PHONE = 400
LAPTOP = 1280
SKIPPED = {"genindex.html", "search.html", "py-modindex.html"}  # the builder's own, not written pages

SETTLED = """
const done = arguments[arguments.length - 1];
const settled = () => requestAnimationFrame(() => requestAnimationFrame(() => done()));
const wait = () => document.readyState === 'complete' ? document.fonts.ready.then(settled) : setTimeout(wait, 20);
wait();
"""

WIDTH = """
const page = document.documentElement;
return {scroll: page.scrollWidth, client: page.clientWidth, inner: window.innerWidth};
"""


@pytest.fixture(scope="session")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """``docs(theme)`` -> (the base URL of the docs built in that theme, the pages it holds)."""
    import contextlib

    built: dict[str, tuple[str, list[str]]] = {}
    servers = contextlib.ExitStack()

    def start(theme: str) -> tuple[str, list[str]]:
        if theme not in built:
            if theme == "sphinx_rtd_theme":
                pytest.importorskip("sphinx_rtd_theme")
            out = tmp_path_factory.mktemp(f"docs-{theme}")
            subprocess.run(
                [sys.executable, "-m", "sphinx", "-q", "-b", "html", "-D", f"html_theme={theme}",
                 "-d", str(out / ".doctrees"), str(REPO / "docs"), str(out / "html")],
                check=True,
            )  # fmt: skip
            pages = sorted(
                str(page.relative_to(out / "html"))
                for page in (out / "html").glob("*.html")
                if page.name not in SKIPPED
            )
            built[theme] = (servers.enter_context(serving(out / "html")), pages)
        return built[theme]

    with servers:
        yield start


def _open(browser: Any, url: str, width: int) -> None:
    browser.set_window_size(width, 1000)
    browser.get(url)
    browser.set_script_timeout(60)
    browser.execute_async_script(SETTLED)


@pytest.mark.parametrize("theme", THEMES)
def test_no_page_scrolls_sideways_on_a_phone(browser: Any, docs: Any, theme: str) -> None:
    base, pages = docs(theme)
    assert {"index.html", "hardware.html", "estimator.html", "estimator-reference.html", "readers.html"} <= set(pages)
    wider = {}
    for page in pages:
        _open(browser, f"{base}/{page}", PHONE)
        found = browser.execute_script(WIDTH)
        assert found["inner"] == PHONE, found  # the window really is a phone's width
        # clientWidth: the width without a scrollbar, which is stricter than innerWidth
        if found["scroll"] > found["client"]:
            wider[page] = found["scroll"] - found["client"]
    assert wider == {}, f"pages wider than {PHONE} pixels in {theme}, by so many pixels: {wider}"


@pytest.mark.parametrize("theme", THEMES)
def test_the_estimator_guide_and_the_estimates_are_short(browser: Any, docs: Any, theme: str) -> None:
    base, _pages = docs(theme)
    _open(browser, f"{base}/estimator.html", LAPTOP)
    if theme == "furo":  # the docs' own theme: a newcomer's few screens
        assert browser.execute_script("return document.documentElement.scrollHeight") < 6000
    # no code block or table of the guide or the reference scrolls sideways at a laptop's width
    for page in ("estimator.html", "estimator-reference.html"):
        _open(browser, f"{base}/{page}", LAPTOP)
        scrolling = browser.execute_script(
            "return Array.from(document.querySelectorAll('pre, table, .table-wrapper, .wy-table-responsive'))"
            ".filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent.trim().slice(0, 60))"
        )
        assert scrolling == [], (page, scrolling)
    # the seed page: the estimate blocks take no more height than the measured tables they complete
    for width in (LAPTOP, PHONE):
        _open(browser, f"{base}/hardware.html", width)
        heights = browser.execute_script(
            "const h = s => Array.from(document.querySelectorAll(s))"
            "  .reduce((sum, e) => sum + e.getBoundingClientRect().height, 0);"
            "return [h('table.rlresources-estimate') + h('.rlresources-estimate-legend'),"
            "        h('table.rlresources-table:not(.rlresources-estimate)')];"
        )
        estimates, measured = heights
        assert 0 < estimates <= measured, (width, heights)


def test_the_seed_chart_marks_its_estimates(browser: Any, docs: Any, tmp_path: Path) -> None:
    """The sizes nobody measured show the estimate blocks' counts, as hollow dashed estimates."""
    from selenium.webdriver.common.by import By

    base, _pages = docs("furo")
    _open(browser, f"{base}/hardware.html", LAPTOP)
    figure = browser.find_element(By.CSS_SELECTOR, "figure.rlresources-chart")
    titles = browser.execute_script(
        "return Array.from(arguments[0].querySelectorAll('.rlresources-chart-wide g.rl-estimated > title'))"
        ".map(t => t.textContent)",
        figure,
    )
    assert sorted(t.split(",")[0] for t in titles) == ["405B", "405B", "671B", "671B"], titles
    assert all(t.endswith("estimated, not measured") for t in titles)
    save_screenshot(figure, "chart.png", tmp_path)
