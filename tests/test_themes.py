"""The table in each theme, in a real browser: it never widens the page, and it takes the theme's colours.

Uses the headless Chromium set-up of ``tests/test_browser.py`` (the same page, built
per theme and served on 127.0.0.1).  The nine-column ``all`` table is wider than the
text column of every theme at 1280 pixels; without the extension's table stylesheet
alabaster lets it run off the page.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from test_browser import _open, browser, serve  # noqa: F401 - fixtures shared with the browser test

pytestmark = pytest.mark.browser

THEMES = ["alabaster", "sphinx_rtd_theme", "furo"]


def _scheme(driver: Any, dark: bool) -> None:
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]},
    )


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
@pytest.mark.parametrize("theme", THEMES)
def test_the_table_fits_the_page_and_follows_the_theme(browser: Any, serve: Any, theme: str, dark: bool) -> None:  # noqa: F811
    if theme == "sphinx_rtd_theme":
        pytest.importorskip("sphinx_rtd_theme")
    _scheme(browser, dark)
    try:
        _open(browser, serve(theme) + "index.html")
        found = browser.execute_script(
            """
            const table = document.querySelector('table.rlresources-table');
            const page = document.documentElement;
            const cell = table.querySelector('tbody td');
            const body = document.querySelector('[role=main], .body, article, main') || document.body;
            let box = table.parentElement;
            while (box && getComputedStyle(box).overflowX === 'visible' && box !== document.body) {
                box = box.parentElement;
            }
            return {
                pageOverflow: page.scrollWidth - page.clientWidth,
                tableWider: table.scrollWidth > table.clientWidth || table.offsetWidth > body.clientWidth,
                scrolls: getComputedStyle(table).overflowX !== 'visible' || box !== document.body,
                sheet: Array.from(document.styleSheets).some(s => (s.href || '').includes('rlresources-table.css')),
                cell: getComputedStyle(cell).color,
                text: getComputedStyle(body).color,
                wbr: table.querySelectorAll('td code wbr').length,
            };
            """
        )
    finally:
        _scheme(browser, False)
    assert found["sheet"]
    assert found["pageOverflow"] <= 0, f"the table widens the page by {found['pageOverflow']}px in {theme}"
    # what does not fit scrolls inside the table or the theme's own scroll box
    assert found["scrolls"]
    assert found["wbr"] > 0  # script names may wrap after "_"
    assert found["cell"] == found["text"], found  # the theme's text colour, light or dark
    red, green, blue = (int(float(v)) for v in re.findall(r"[\d.]+", found["cell"])[:3])
    if dark and theme == "furo":
        assert red + green + blue > 3 * 160, found  # furo follows the system: light text
    else:
        assert red + green + blue < 3 * 110, found  # dark text on the light page
