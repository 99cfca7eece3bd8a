"""Launching Debian's headless Chromium through its driver, for the browser tests and docs/screenshots.py.

One place for the flags: the machine's network is closed, so Chromium's background
networking must stay off, and every launch gets a fresh profile.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,1000",
    "--force-device-scale-factor=1",
]


def options(profile: Path) -> Any:
    """Selenium options for the installed Chromium with ``profile`` as its fresh user-data folder."""
    from selenium import webdriver

    result = webdriver.ChromeOptions()
    result.binary_location = str(CHROMIUM)
    for flag in [*FLAGS, f"--user-data-dir={profile}"]:
        result.add_argument(flag)
    return result


def start(profile: Path, opts: Any | None = None) -> Any:
    """A Chrome driver session on the installed Chromium and chromedriver."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    return webdriver.Chrome(service=Service(executable_path=str(DRIVER)), options=opts or options(profile))
