"""Take the theme gallery's screenshots: the table, filters and chart in each theme, light and dark.

Run by hand after a change to the table's HTML or CSS, then look at every image before
committing it (``docs/compatibility.rst`` shows them)::

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


def build(theme: str, out: Path) -> Path:
    html = out / "html"
    subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-E", "-b", "html", "-D", f"html_theme={theme}",
         "-d", str(out / ".doctrees"), str(ROOT), str(html)],
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


def shoot(driver: Any, url: str, dark: bool, path: Path) -> None:
    """One PNG from the top of the filter block to the bottom of the chart, at scale 1."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    scheme = "dark" if dark else "light"
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]}
    )
    driver.get(url)
    WebDriverWait(driver, 30).until(
        expected_conditions.presence_of_element_located((By.CSS_SELECTOR, ".rlresources-filter-status"))
    )
    box = driver.execute_script(
        """
        const first = document.querySelector('.rlresources-filter').getBoundingClientRect();
        const last = document.querySelector('figure.rlresources-chart').getBoundingClientRect();
        const left = Math.min(first.left, last.left) - 12, right = Math.max(first.right, last.right) + 12;
        return {x: left + window.scrollX, y: first.top + window.scrollY - 12,
                width: right - left, height: last.bottom - first.top + 24};
        """
    )
    shot = driver.execute_cdp_cmd(
        "Page.captureScreenshot",
        {"format": "png", "captureBeyondViewport": True, "clip": {**box, "scale": 1}},
    )
    path.write_bytes(base64.b64decode(shot["data"]))


def shoot_cards(driver: Any, url: str, path: Path) -> None:
    """The first rows as cards, at 400 pixels wide (a phone)."""
    driver.set_window_size(400, 1000)
    try:
        driver.get(url)
        box = driver.execute_script(
            """
            const rows = document.querySelectorAll('table.rlresources-table tbody tr');
            const first = rows[0].getBoundingClientRect(), last = rows[1].getBoundingClientRect();
            return {x: 0, y: first.top + window.scrollY - 12, width: document.documentElement.clientWidth,
                    height: last.bottom - first.top + 24};
            """
        )
        shot = driver.execute_cdp_cmd(
            "Page.captureScreenshot",
            {"format": "png", "captureBeyondViewport": True, "clip": {**box, "scale": 1}},
        )
        path.write_bytes(base64.b64decode(shot["data"]))
    finally:
        driver.set_window_size(1280, 1000)


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
                        path = args.out / f"theme-{THEMES[theme]}-{'dark' if dark else 'light'}.png"
                        shoot(driver, url, dark, path)
                        print(path.relative_to(REPO) if path.is_relative_to(REPO) else path)
                    path = args.out / f"cards-{THEMES[theme]}.png"
                    shoot_cards(driver, url, path)
                    print(path.relative_to(REPO) if path.is_relative_to(REPO) else path)
                finally:
                    server.shutdown()
                    server.server_close()
        finally:
            driver.quit()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
