"""Readers see the whole table: every column, without scrolling sideways, in the themes people use.

Two sites are built per theme (furo, sphinx-rtd-theme, alabaster) and opened in
headless Chromium (the set-up of ``tests/test_browser.py``): our seed page, and a page
with the values real framework pages have (``RECOMMENDED``, ``Qwen2.5-Coder-32B-Instruct``,
``sglang0.4.6.post1``, 16 GPUs, long script names, ``tests/roots/test-long-values``).
At 1280 and 1440 pixels, light and dark, every cell of every drawn table lies inside
the text column, no scroll box around a table hides any width, and cell text stays at
85% of the body's size or more; at 400 pixels each row is a card.  axe-core (from npm)
finds no WCAG 2 AA violation inside the extension's own elements.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import REPO, TESTS
from test_browser import _Quiet, browser  # noqa: F401 - the browser fixture is shared

pytestmark = pytest.mark.browser

THEMES = ["alabaster", "sphinx_rtd_theme", "furo"]
SITES = {"seed": TESTS / "roots" / "test-browser", "long": TESTS / "roots" / "test-long-values"}
TABLES = "table.rlresources-table, table.rlresources-chart-table, table.rlresources-coverage"
OURS = [
    "table.rlresources-table",
    ".rlresources-filter-controls",
    ".rlresources-filter-status",
    "figure.rlresources-chart",
    "table.rlresources-coverage",
    ".rlresources-marker",
    ".rlresources-shared-markers",
]
AXE = REPO / ".venv" / "axe-core" / "node_modules" / "axe-core" / "axe.min.js"

LAYOUT = """
const tables = Array.from(document.querySelectorAll(arguments[0]));
const main = document.querySelector('[role=main], .body, article, main') || document.body;
const body = parseFloat(getComputedStyle(main).fontSize);
const found = {tables: tables.length, outside: [], hidden: [], smallest: 9, cards: [],
               text: getComputedStyle(main).color, cell: null,
               overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth};
for (const table of tables) {
  const area = (table.closest('[role=main], .body, article, main') || document.body).getBoundingClientRect();
  for (const cell of table.querySelectorAll('tbody td')) {
    const box = cell.getBoundingClientRect();
    if (!box.width) continue;
    if (box.right > area.right + 0.5 || box.left < area.left - 0.5) found.outside.push(cell.textContent.trim());
    found.smallest = Math.min(found.smallest, parseFloat(getComputedStyle(cell).fontSize) / body);
    found.cell = found.cell || getComputedStyle(cell).color;
  }
  for (let box = table; box && box !== document.documentElement; box = box.parentElement) {
    if (getComputedStyle(box).overflowX !== 'visible' && box.scrollWidth > box.clientWidth + 1) {
      found.hidden.push(box.scrollWidth - box.clientWidth);
    }
  }
  if (table.matches('table.rlresources-table')) {
    found.cards.push(getComputedStyle(table.querySelector('tbody tr')).display);
  }
}
return found;
"""


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """``sites(theme, site)`` -> the URL of that site built in that theme, served on 127.0.0.1."""
    servers: list[http.server.ThreadingHTTPServer] = []
    urls: dict[tuple[str, str], str] = {}

    def start(theme: str, site: str) -> str:
        if (theme, site) not in urls:
            if theme == "sphinx_rtd_theme":
                pytest.importorskip("sphinx_rtd_theme")
            out = tmp_path_factory.mktemp(f"{site}-{theme}")
            subprocess.run(
                [sys.executable, "-m", "sphinx", "-q", "-E", "-b", "html", "-D", f"html_theme={theme}",
                 "-d", str(out / ".doctrees"), str(SITES[site]), str(out / "html")],
                check=True,
            )  # fmt: skip
            handler = functools.partial(_Quiet, directory=str(out / "html"))
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            servers.append(server)
            urls[(theme, site)] = f"http://127.0.0.1:{server.server_address[1]}/index.html"
        return urls[(theme, site)]

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _look(driver: Any, url: str, width: int, dark: bool = False) -> dict[str, Any]:
    driver.set_window_size(width, 1000)
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]},
    )
    try:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support import expected_conditions
        from selenium.webdriver.support.ui import WebDriverWait

        driver.get(url)
        WebDriverWait(driver, 30).until(
            expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "table.rlresources-table"))
        )
        # measure once the fonts are in and the layout has settled (themes animate their sidebars)
        driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "document.fonts.ready.then(() => requestAnimationFrame(() => requestAnimationFrame(() => done())));"
        )
        found: dict[str, Any] = driver.execute_script(LAYOUT, TABLES)
        if found["outside"] or found["hidden"]:
            found["detail"] = driver.execute_script(
                "return Array.from(document.querySelectorAll(arguments[0])).map(t => [t.className, "
                "Math.round(t.getBoundingClientRect().right), Math.round((t.closest('[role=main], .body, article, "
                "main') || document.body).getBoundingClientRect().right)])",
                TABLES,
            )
        return found
    finally:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
        driver.set_window_size(1280, 1000)


@pytest.mark.parametrize("site", sorted(SITES))
@pytest.mark.parametrize("width", [1280, 1440])
@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
@pytest.mark.parametrize("theme", THEMES)
def test_every_column_is_visible_without_scrolling_sideways(
    browser: Any,  # noqa: F811
    sites: Any,
    theme: str,
    dark: bool,
    width: int,
    site: str,
) -> None:
    found = _look(browser, sites(theme, site), width, dark)
    assert found["tables"] >= 1
    assert found["outside"] == [], f"cells outside the text column in {theme} at {width}px: {found}"
    assert found["hidden"] == [], f"a scroll box hides {found['hidden']}px in {theme} at {width}px"
    assert found["overflow"] <= 0
    assert found["smallest"] >= 0.85, f"cell text at {found['smallest']:.2f} of the body's size in {theme}"
    assert set(found["cards"]) == {"table-row"}
    # the theme's text colour, light or dark
    assert found["cell"] == found["text"], found
    red, green, blue = (int(float(v)) for v in re.findall(r"[\d.]+", found["cell"])[:3])
    if dark and theme == "furo":
        assert red + green + blue > 3 * 160, found  # furo follows the system: light text
    else:
        assert red + green + blue < 3 * 110, found  # dark text on the light page


@pytest.mark.parametrize("site", sorted(SITES))
@pytest.mark.parametrize("theme", THEMES)
def test_narrow_screens_show_each_row_as_a_card(browser: Any, sites: Any, theme: str, site: str) -> None:  # noqa: F811
    found = _look(browser, sites(theme, site), 400)
    assert set(found["cards"]) == {"block"}, found["cards"]
    assert found["outside"] == [] and found["hidden"] == [] and found["overflow"] <= 0, found
    browser.set_window_size(400, 1000)
    labels = browser.execute_script(
        "return Array.from(document.querySelectorAll('table.rlresources-table tbody tr:first-child td'))"
        ".map(td => getComputedStyle(td, '::before').content)"
    )
    assert '"Model"' in labels and '"Resource"' in labels  # "label: value" lines, from the headers
    # the markup is still a table: its header row is there for screen readers
    assert browser.execute_script("return document.querySelectorAll('table.rlresources-table thead th').length") > 0
    # the chart shrinks only so far: its text stays 9 pixels or more, and its figure scrolls instead of the page
    chart = browser.execute_script(
        """const svg = document.querySelector('figure.rlresources-chart svg');
           if (!svg) return null;
           return {text: svg.getBoundingClientRect().width / svg.viewBox.baseVal.width * svg.getAttribute('font-size'),
                   scrolls: svg.parentElement.scrollWidth > svg.parentElement.clientWidth};"""
    )
    if site == "seed":  # the page with a chart
        assert chart["text"] >= 9 and chart["scrolls"], chart
    browser.set_window_size(1280, 1000)


def _axe() -> str:
    """axe-core's script, installed from npm into .venv on first use (CI must have it)."""
    if not AXE.is_file():
        npm = shutil.which("npm")
        if npm:
            subprocess.run(
                [npm, "install", "--prefix", str(AXE.parents[2]), "axe-core@4", "--no-audit", "--no-fund", "--silent"],
                check=False,
                timeout=300,
            )
        if not AXE.is_file():
            reason = "the accessibility test needs axe-core from npm (npm install axe-core)"
            if os.environ.get("CI"):
                pytest.fail(f"{reason}; .ci/run installs npm in CI")
            pytest.skip(reason)
    return AXE.read_text(encoding="utf-8")


@pytest.mark.parametrize("site", sorted(SITES))
@pytest.mark.parametrize("theme", THEMES)
def test_no_wcag_aa_violation_inside_our_elements(browser: Any, sites: Any, theme: str, site: str) -> None:  # noqa: F811
    script = _axe()
    browser.set_window_size(1280, 1000)
    browser.get(sites(theme, site))
    browser.execute_script(script)
    browser.set_script_timeout(120)
    violations = browser.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        const include = arguments[0].filter(s => document.querySelector(s)).map(s => [s]);
        axe.run({include: include}, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})
          .then(r => done(r.violations.map(v => ({id: v.id, nodes: v.nodes.map(n => n.target.join(' '))}))))
          .catch(e => done([{id: 'axe failed', nodes: [String(e)]}]));
        """,
        OURS,
    )
    assert violations == [], json.dumps(violations, indent=1)[:2000]


def test_the_chart_has_a_text_alternative_and_the_filter_announces_its_count(browser: Any, sites: Any) -> None:  # noqa: F811
    browser.get(sites("furo", "seed"))
    found = browser.execute_script(
        """
        const svg = document.querySelector('figure.rlresources-chart svg');
        const ids = (svg.getAttribute('aria-labelledby') || '').split(' ');
        const status = document.querySelector('.rlresources-filter-status');
        return {role: svg.getAttribute('role'), named: ids.map(i => document.getElementById(i).textContent),
                table: !!document.querySelector('figure.rlresources-chart table'),
                live: status && status.getAttribute('aria-live'), text: status && status.textContent};
        """
    )
    assert found["role"] == "img" and all(found["named"])
    assert found["table"]  # the chart's data as a table, for whoever cannot see the chart
    assert found["live"] == "polite" and "configurations match" in found["text"]
