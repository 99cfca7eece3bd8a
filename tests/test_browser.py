"""The filters in a real browser: headless Chromium (Debian's) driven by Selenium.

The page is built from ``tests/roots/test-browser`` over the repository's own data,
served on 127.0.0.1 by a thread of this test, and opened in a Chromium that never
reaches the network.  What the rows should be is worked out independently, from the
data files through the loader, never read back from the page.

Set ``RLRESOURCES_SCREENSHOTS=1`` to refresh the screenshots the docs and the README
show (``docs/_static/screenshots/``); otherwise they are written to a temporary folder.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, TESTS
from helpers import save_screenshot, serving

from sphinx_rlresources.core.loader import LoadOptions, load_dataset

pytestmark = pytest.mark.browser

ROOT = TESTS / "roots" / "test-browser"


def _build(theme: str, out: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-E", "-b", "html", "-D", f"html_theme={theme}",
         "-d", str(out / ".doctrees"), str(ROOT), str(out / "html")],
        check=True,
    )  # fmt: skip
    return out / "html"


@pytest.fixture(scope="module")
def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """``serve(theme)`` -> the base URL of that theme's build, served on 127.0.0.1."""
    urls: dict[str, str] = {}
    servers = contextlib.ExitStack()

    def start(theme: str) -> str:
        if theme not in urls:
            site = _build(theme, tmp_path_factory.mktemp(f"site-{theme}"))
            urls[theme] = servers.enter_context(serving(site)) + "/"
        return urls[theme]

    with servers:
        yield start


def _open(browser: Any, url: str) -> Any:
    """Load ``url`` and wait until the script has built the controls; return the filter block."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        browser.get(url)
    except TimeoutException:  # a renderer starved by a busy machine: one more try
        browser.get(url)
    WebDriverWait(browser, 30).until(
        expected_conditions.presence_of_element_located((By.CSS_SELECTOR, ".rlresources-filter-status"))
    )
    return browser.find_element(By.CSS_SELECTOR, ".rlresources-filter")


def _visible(block: Any) -> list[tuple[str, str]]:
    """(Size, Resource) of the rows a reader sees."""
    from selenium.webdriver.common.by import By

    headers = [th.text for th in block.find_elements(By.CSS_SELECTOR, "thead th")]
    size, resource = headers.index("Size"), headers.index("Resource")
    seen = []
    for row in block.find_elements(By.CSS_SELECTOR, "tbody tr"):
        if row.is_displayed():
            cells = row.find_elements(By.TAG_NAME, "td")
            seen.append((cells[size].text, cells[resource].text))
    return seen


def _status(block: Any) -> str:
    from selenium.webdriver.common.by import By

    return str(block.find_element(By.CSS_SELECTOR, ".rlresources-filter-status").text)


def _errors(browser: Any) -> list[str]:
    return [
        entry["message"]
        for entry in browser.get_log("browser")
        if entry["level"] == "SEVERE" and "favicon.ico" not in entry["message"]
    ]


ENTRIES = load_dataset(REPO / "data", REPO, LoadOptions(check_scripts=False)).entries


def _expected(keep: Any) -> list[tuple[str, str]]:
    return [(e.size, e.resource) for e in ENTRIES if keep(e)]


def test_filter_by_gpus_and_device(browser: Any, serve: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    block = _open(browser, serve("furo") + "index.html")
    total = len(ENTRIES)
    assert total > 5
    assert _status(block) == f"{total} of {total} configurations match."
    assert sorted(_visible(block)) == sorted(_expected(lambda e: True))

    gpus = block.find_element(By.CSS_SELECTOR, "input[name=gpus]")
    gpus.send_keys("2")
    Select(block.find_element(By.CSS_SELECTOR, "select[name=device]")).select_by_visible_text("H100")
    want = _expected(lambda e: e.gpus <= 2 and e.device == "H100")
    assert want and len(want) < total
    assert sorted(_visible(block)) == sorted(want)
    assert _status(block) == f"{len(want)} of {total} configurations match."
    save_screenshot(block, "filter.png", tmp_path)

    # a filter that leaves nothing says so
    gpus.clear()
    gpus.send_keys("1")
    Select(block.find_element(By.CSS_SELECTOR, "select[name=device]")).select_by_visible_text("H20")
    nothing = _expected(lambda e: e.gpus <= 1 and e.device == "H20")
    assert nothing == []
    assert _visible(block) == []
    assert _status(block).startswith(f"0 of {total} configurations match. No configuration matches")
    assert _errors(browser) == []


def test_controls_are_labelled_and_work_from_the_keyboard(browser: Any, serve: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    block = _open(browser, serve("furo") + "index.html?gpus=8&tag=MIN&task=GRPO")
    want = _expected(lambda e: e.gpus <= 8 and e.tag == "MIN" and e.task == "GRPO")
    assert sorted(_visible(block)) == sorted(want)  # a link can open the page filtered
    controls = block.find_elements(By.CSS_SELECTOR, "form input, form select")
    names = [c.get_attribute("name") for c in controls]
    assert names == ["gpus", "size", "tag", "task", "device", "train", "infer"]
    for control in controls:
        label = block.find_element(By.CSS_SELECTOR, f"label[for='{control.get_attribute('id')}']")
        assert label.text.strip()
    status = block.find_element(By.CSS_SELECTOR, ".rlresources-filter-status")
    assert status.get_attribute("role") == "status" and status.get_attribute("aria-live") == "polite"
    # Tab from the last select reaches the reset button; Enter on it shows every row again.
    infer = block.find_element(By.CSS_SELECTOR, "select[name=infer]")
    infer.send_keys(Keys.TAB)
    focused = browser.switch_to.active_element
    assert focused.get_attribute("class") == "rlresources-filter-reset"
    focused.send_keys(Keys.ENTER)
    assert len(_visible(block)) == len(ENTRIES)
    assert _status(block) == f"{len(ENTRIES)} of {len(ENTRIES)} configurations match."


def test_chart_marks_carry_their_rows(browser: Any, serve: Any) -> None:
    _open(browser, serve("furo") + "index.html")
    for plot in ("wide", "tall"):  # the tall chart, for narrow screens, draws the same marks
        titles = browser.execute_script(
            f"return Array.from(document.querySelectorAll('figure.rlresources-chart .rlresources-chart-{plot} "
            "g.rl-mark > title')).map(t => t.textContent)"
        )
        assert len(titles) == len(ENTRIES)
        assert sorted(t.split(" · ")[-1] for t in titles) == sorted(e.script_name for e in ENTRIES)
    # docs/_static/screenshots/chart.png is the seed page's chart, with its estimates (test_docs_pages.py)


@pytest.mark.parametrize(
    ("theme", "dark"), [("furo", False), ("furo", True), ("sphinx_rtd_theme", False), ("alabaster", False)]
)
def test_controls_follow_the_theme_colours(browser: Any, serve: Any, theme: str, dark: bool) -> None:
    from selenium.webdriver.common.by import By

    if theme == "sphinx_rtd_theme":
        pytest.importorskip("sphinx_rtd_theme")
    block = _open(browser, serve(theme) + "index.html")
    if dark:
        browser.execute_script("document.body.dataset.theme = 'dark'")
    colours = browser.execute_script(
        """
        const block = arguments[0];
        const style = (el) => getComputedStyle(el);
        const select = block.querySelector('select[name=device]');
        return {text: style(block).color, select: style(select).color,
                background: style(select).backgroundColor, chart: style(document.querySelector(
                'figure.rlresources-chart')).color};
        """,
        block,
    )
    # The controls and the chart take the page's text colour, whatever the theme.
    assert colours["select"] == colours["text"]
    assert colours["chart"] == colours["text"]
    red, green, blue = (int(float(v)) for v in re.findall(r"[\d.]+", colours["text"])[:3])
    if dark:
        assert red + green + blue > 3 * 160, colours  # light text on a dark page
        assert colours["background"] not in ("rgb(255, 255, 255)", "rgba(0, 0, 0, 0)"), colours
    else:
        assert red + green + blue < 3 * 110, colours
    assert block.find_element(By.CSS_SELECTOR, "input[name=gpus]").is_displayed()
