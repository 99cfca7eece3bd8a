"""Take the theme gallery's screenshots: each theme at 1280 and 400 pixels, light and dark.

At 1280 pixels, the filters, the all-sizes table and the chart, and the estimate table;
at 400 pixels (a phone), the first two rows as cards, the tall chart and the estimate
table as cards. Then three pages of these docs as a reader meets them, at both widths:
the seed page (its 405B and 671B sections, whose estimate blocks complete the measured
tables), the readers page and the estimator's guide, each from its top, at most
1,500 pixels of it (``page-<page>-<theme>-<width>[-dark].png``). Run by hand after a change to the
table's HTML or CSS, then look at every image before committing it
(``docs/compatibility.rst`` shows them)::

    .venv/bin/python docs/screenshots.py            # all themes, into docs/_static/screenshots/
    .venv/bin/python docs/screenshots.py --out /tmp/shots furo

Each theme builds ``tests/roots/test-browser`` (the seed page's real rows, with the
filters, the chart and the coverage table) into a temporary folder, served on
127.0.0.1; Debian's headless Chromium (``apt-get install chromium chromium-driver``)
opens it with the network off and ``prefers-color-scheme`` set to light, then dark.
Alabaster and sphinx-rtd-theme have no dark mode, so their "dark" shot checks that
nothing of the extension turns dark on a light page when the reader's system is dark.
"""

from __future__ import annotations

import argparse
import base64
import functools
import http.server
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
ROOT = REPO / "tests" / "roots" / "test-browser"
OUT = REPO / "docs" / "_static" / "screenshots"
sys.path.insert(0, str(REPO / "tests"))  # the Chromium launch settings the browser tests use
import chromium  # noqa: E402

THEMES = {"alabaster": "alabaster", "sphinx_rtd_theme": "rtd", "furo": "furo"}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def build(theme: str, out: Path, source: Path = ROOT) -> Path:
    html = out / "html"
    subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-E", "-b", "html", "-D", f"html_theme={theme}",
         "-d", str(out / ".doctrees"), str(source), str(html)],
        check=True,
    )  # fmt: skip
    return html


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/index.html"


def browser(profile: Path) -> Any:
    if not chromium.CHROMIUM or not chromium.DRIVER:
        sys.exit("needs Debian's Chromium and its driver: apt-get install chromium chromium-driver")
    return chromium.start(profile)


SETTLED = """
const done = arguments[arguments.length - 1];
const ready = () => document.readyState === 'complete'
  && document.documentElement.hasAttribute('data-rlresources-layout');
const wait = () => ready()
  ? document.fonts.ready.then(() => requestAnimationFrame(() => requestAnimationFrame(() => done())))
  : setTimeout(wait, 20);
wait();
"""


def load(driver: Any, url: str, width: int, dark: bool) -> None:
    """Open ``url`` at ``width`` pixels in the light or dark scheme, once its layout has settled."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    driver.set_window_size(width, 1000)
    scheme = "dark" if dark else "light"
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]}
    )
    driver.get(url)
    WebDriverWait(driver, 30).until(
        expected_conditions.presence_of_element_located((By.CSS_SELECTOR, ".rlresources-filter-status"))
    )
    driver.set_script_timeout(60)
    driver.execute_async_script(SETTLED)


def capture(driver: Any, box: dict[str, float], path: Path, beyond: bool = True) -> None:
    """``box`` (page coordinates) as a PNG at scale 1; ``beyond=False`` when the window holds it."""
    shot = driver.execute_cdp_cmd(
        "Page.captureScreenshot",
        {"format": "png", "captureBeyondViewport": beyond, "clip": {**box, "scale": 1}},
    )
    path.write_bytes(base64.b64decode(shot["data"]))


def shoot(driver: Any, url: str, dark: bool, path: Path) -> None:
    """One PNG from the top of the filter block to the bottom of the chart, at 1280 pixels and scale 1."""
    load(driver, url, 1280, dark)
    box = driver.execute_script(
        """
        const first = document.querySelector('.rlresources-filter').getBoundingClientRect();
        const last = document.querySelector('figure.rlresources-chart').getBoundingClientRect();
        const left = Math.min(first.left, last.left) - 12, right = Math.max(first.right, last.right) + 12;
        return {x: left + window.scrollX, y: first.top + window.scrollY - 12,
                width: right - left, height: last.bottom - first.top + 24};
        """
    )
    capture(driver, box, path)


def whole_page(driver: Any, settled: str = SETTLED) -> None:
    """Make the window as tall as the page, so a capture needs no second layout.

    Capturing beyond the window lays the page out again at its full height, without a
    scrollbar, which moves a 400-pixel page by a few lines after it was measured; a
    window that already holds the whole page is measured and captured as it is.
    """
    height = driver.execute_script("return document.documentElement.scrollHeight")
    width = driver.execute_script("return window.innerWidth")
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
    driver.set_script_timeout(60)
    driver.execute_async_script(settled)


def shoot_narrow(driver: Any, url: str, dark: bool, path: Path, measure: str) -> None:
    """A part of the page at 400 pixels wide (a phone): what ``measure`` returns, as a box."""
    load(driver, url, 400, dark)
    try:
        whole_page(driver)
        capture(driver, driver.execute_script(measure), path, beyond=False)
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def shoot_cards(driver: Any, url: str, dark: bool, path: Path) -> None:
    """The first two rows as cards."""
    shoot_narrow(
        driver,
        url,
        dark,
        path,
        """
        const rows = document.querySelectorAll('table.rlresources-table tbody tr');
        const first = rows[0].getBoundingClientRect(), last = rows[1].getBoundingClientRect();
        return {x: 0, y: first.top + window.scrollY - 12, width: document.documentElement.clientWidth,
                height: last.bottom - first.top + 24};
        """,
    )


def shoot_narrow_chart(driver: Any, url: str, dark: bool, path: Path) -> None:
    """The tall chart, every size down the side."""
    shoot_narrow(
        driver,
        url,
        dark,
        path,
        """
        const r = document.querySelector('figure.rlresources-chart').getBoundingClientRect();
        return {x: 0, y: r.top + window.scrollY - 12, width: document.documentElement.clientWidth,
                height: r.height + 24};
        """,
    )


ESTIMATE_BOX = """
    const table = document.querySelector('table.rlresources-estimate');
    const legend = document.querySelector('.rlresources-estimate-legend');
    const first = table.getBoundingClientRect(), last = legend.getBoundingClientRect();
    const left = Math.min(first.left, last.left) - 12, right = Math.max(first.right, last.right) + 12;
    return {x: Math.max(left, 0) + window.scrollX, y: first.top + window.scrollY - 12,
            width: Math.min(right, document.documentElement.clientWidth) - Math.max(left, 0),
            height: last.bottom - first.top + 24};
"""


def shoot_estimate(driver: Any, url: str, dark: bool, path: Path) -> None:
    """The estimate table and its legend at 1280 pixels: estimated cells must not pass for measured ones."""
    load(driver, url, 1280, dark)
    capture(driver, driver.execute_script(ESTIMATE_BOX), path)


def shoot_narrow_estimate(driver: Any, url: str, dark: bool, path: Path) -> None:
    """The estimate table at 400 pixels: cards, every label beside its value, nothing cut."""
    shoot_narrow(driver, url, dark, path, ESTIMATE_BOX)


PAGES = {
    # the seed page from its 405B section: the estimate blocks beside the empty measured tables
    "hardware": "document.querySelectorAll('table.rlresources-estimate')[0].closest('section')",
    "readers": "document.querySelector('h1').closest('section') || document.body",
    "estimator": "document.querySelector('h1').closest('section') || document.body",
}
TALLEST = 1500
"""Pixels of a page at most: enough to show how it reads, not a whole 15,000-pixel phone page."""

PAGE_SETTLED = """
const done = arguments[arguments.length - 1];
const settled = () => requestAnimationFrame(() => requestAnimationFrame(() => done()));
const wait = () => document.readyState === 'complete' ? document.fonts.ready.then(settled) : setTimeout(wait, 20);
wait();
"""


def shoot_page(driver: Any, url: str, width: int, dark: bool, path: Path, start: str) -> None:
    """A page of the docs at ``width`` pixels, from the element ``start`` finds, ``TALLEST`` pixels at most."""
    driver.set_window_size(width, 1000)
    scheme = "dark" if dark else "light"
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]}
    )
    driver.get(url)
    driver.set_script_timeout(60)
    driver.execute_async_script(PAGE_SETTLED)
    try:
        whole_page(driver, PAGE_SETTLED)  # a page without our tables has no layout script to wait for
        box = driver.execute_script(
            f"const top = ({start}).getBoundingClientRect().top + window.scrollY - 12;"
            "const page = document.documentElement;"
            "return {x: 0, y: Math.max(top, 0), width: page.clientWidth,"
            f" height: Math.min({TALLEST}, page.scrollHeight - Math.max(top, 0))}};"
        )
        capture(driver, box, path, beyond=False)
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def shoot_pages(driver: Any, theme: str, folder: Path, out: Path) -> None:
    """The seed, readers and estimator pages of these docs, built in ``theme``, at 1280 and 400 pixels."""
    server, url = serve(build(theme, folder, REPO / "docs"))
    base = url.rsplit("/", 1)[0]
    try:
        for page, start in PAGES.items():
            for width in (1280, 400):
                for dark in (False, True):
                    path = out / f"page-{page}-{THEMES[theme]}-{width}{'-dark' if dark else ''}.png"
                    shoot_page(driver, f"{base}/{page}.html", width, dark, path, start)
                    print(path.relative_to(REPO) if path.is_relative_to(REPO) else path)
    finally:
        server.shutdown()
        server.server_close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("themes", nargs="*", help=f"themes to shoot (default: {', '.join(THEMES)})")
    parser.add_argument("--out", type=Path, default=OUT, help=f"where the PNGs go (default {OUT})")
    args = parser.parse_args(argv)
    unknown = [t for t in args.themes if t not in THEMES]
    if unknown:
        parser.error(f"unknown theme {', '.join(unknown)}; choose from {', '.join(THEMES)}")
    args.themes = args.themes or list(THEMES)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rlresources-shots-") as tmp:
        driver = browser(Path(tmp) / "profile")
        try:
            for theme in args.themes:
                server, url = serve(build(theme, Path(tmp) / theme))
                try:
                    for dark in (False, True):
                        name, suffix = THEMES[theme], "-dark" if dark else ""
                        for path, take in (
                            (args.out / f"theme-{name}-{'dark' if dark else 'light'}.png", shoot),
                            (args.out / f"cards-{name}{suffix}.png", shoot_cards),
                            (args.out / f"chart-narrow-{name}{suffix}.png", shoot_narrow_chart),
                            (args.out / f"estimate-{name}{suffix}.png", shoot_estimate),
                            (args.out / f"estimate-narrow-{name}{suffix}.png", shoot_narrow_estimate),
                        ):
                            take(driver, url, dark, path)
                            print(path.relative_to(REPO) if path.is_relative_to(REPO) else path)
                finally:
                    server.shutdown()
                    server.server_close()
                shoot_pages(driver, theme, Path(tmp) / f"{theme}-docs", args.out)
        finally:
            driver.quit()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
