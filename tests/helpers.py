"""Test scaffolding shared by several modules: git, the CLI, Sphinx builds, a small repository, a quiet server.

Kept here rather than imported from one test module into another, so a test module
holds tests and nothing else imports it (fixtures shared the same way live in
``conftest.py``).
"""

from __future__ import annotations

import base64
import functools
import http.server
import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from conftest import TESTS, root_path
from sphinx.cmd.build import build_main

from sphinx_rlresources.cli.main import main as rlresources
from sphinx_rlresources.core.loader import LoadOptions, load_dataset

# -- git ------------------------------------------------------------------------------------


def git(repo: Path, *args: str, date: str = "2025-06-25T12:00:00+00:00") -> str:
    """Run git in ``repo`` with a fixed author, committer and date, and no user or system configuration."""
    env = dict(os.environ, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t")
    env.update(GIT_COMMITTER_EMAIL="t@example.org", GIT_CONFIG_NOSYSTEM="1", HOME=str(repo))
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(name, None)
    done = subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def commit(repo: Path, message: str, date: str) -> str:
    """Commit everything in ``repo`` on ``date``; its hash."""
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, date=date)
    return git(repo, "rev-parse", "HEAD")


# -- the CLI --------------------------------------------------------------------------------


def cli(repo: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``rlresources ARGV`` run in ``repo``: (status, stdout, stderr)."""
    old = Path.cwd()
    os.chdir(repo)
    try:
        status = rlresources(list(argv))
    finally:
        os.chdir(old)
    out, err = capsys.readouterr()
    return status, out, err


# -- a repository with one row --------------------------------------------------------------

HOSTILE_ROOT = TESTS / "roots" / "test-hostile"
SCRIPT = "examples/tuning/7b/qwen2-7b_grpo_8_h100_fsdp_vllm.sh"
"""The one script of ``tests/roots/test-hostile``, which :data:`ROW` links."""
ROW = f"""\
  - tag: MIN
    model: Qwen2-7B
    task: GRPO
    gpus: 8
    device: H100
    max_batch: 64
    train: fsdp
    infer: vllm
    infer_version: "0.8.2"
    script: {SCRIPT}
    contributor: Xiangyongan
"""
"""A valid row, as the text of one item of a data file's ``entries``."""


def make_repo(tmp_path: Path, text: str | bytes, name: str = "7b.yaml") -> Path:
    """A repository root with data/<name> and the one script the row links."""
    root = tmp_path / "repo"
    (root / "data").mkdir(parents=True)
    data = text.encode() if isinstance(text, str) else text
    (root / "data" / name).write_bytes(data)
    shutil.copytree(HOSTILE_ROOT / "examples", root / "examples")
    return root


def lines(root: Path, options: LoadOptions | None = None) -> list[str]:
    """The loader's findings for ``root``'s data, one formatted line each, paths from the root."""
    dataset = load_dataset(root / "data", root, options, display=lambda p: p.relative_to(root).as_posix())
    return [d.format() for d in dataset.diagnostics]


# -- Sphinx builds ------------------------------------------------------------------------


def sphinx_project(root: Path, conf: str = "", page: str = ".. rl-resource-table:: 7b\n") -> Path:
    """Make ``root`` a Sphinx project over its own data/ (``conf`` appended to conf.py); return it."""
    (root / "conf.py").write_text(
        f'extensions = ["sphinx_rlresources"]\nrlresources_data_dir = "data"\nrlresources_root = "."\n{conf}', "utf-8"
    )
    (root / "index.rst").write_text(f"Sizes\n=====\n\n{page}", "utf-8")
    return root


def build_logged(src: Path, out: Path, *flags: str) -> tuple[int, str]:
    """A clean ``sphinx-build`` of ``src`` into ``out`` in this process: (status, the warning log's text).

    The log and the doctrees go beside ``out`` (``OUT-warnings.txt``, ``OUT-doctrees``),
    so ``out`` holds only what the builder writes.
    """
    log = out.parent / f"{out.name}-warnings.txt"
    log.unlink(missing_ok=True)  # Sphinx 7.2 appends to it
    status = build_main(
        ["-q", "-N", "-E", "-d", str(out.parent / f"{out.name}-doctrees"), *flags, "-w", str(log), str(src), str(out)]
    )
    return status, log.read_text("utf-8") if log.exists() else ""


def sphinx_build(src: Path, out: Path, *flags: str) -> tuple[int, list[str]]:
    """:func:`build_logged`, its warnings one a line, with the source folder shown as ``<srcdir>``."""
    status, text = build_logged(src, out, *flags)
    return status, [line.replace(str(src), "<srcdir>") for line in text.splitlines() if line.strip()]


def built(
    make_app: Any, srcdir: Path, buildername: str = "html", prepare: Callable[[Any], None] | None = None, **kwargs: Any
) -> Any:
    """An application of sphinx.testing's ``make_app`` for ``srcdir``, built, then cleaned up; returned.

    ``prepare(app)`` runs before the build (to connect a listener, change a setting);
    ``kwargs`` go to ``make_app`` (``freshenv``, ``parallel``, ``confoverrides``).
    Cleaning up unregisters its nodes and directives, so the next app starts clean.
    """
    app = make_app(buildername, srcdir=root_path(str(srcdir)), **kwargs)
    if prepare is not None:
        prepare(app)
    try:
        app.build()
    finally:
        app.cleanup()
    return app


# -- serving a folder -------------------------------------------------------------------------


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves a folder without logging each request to the test's output."""

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def working_in(folder: Path) -> Iterator[None]:
    """Run the block in ``folder``: ``contextlib.chdir``, which Python 3.10 lacks."""
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


@contextmanager
def serving(folder: Path) -> Iterator[str]:
    """Serve ``folder`` on 127.0.0.1 from a thread (the network is never needed); yield its base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


# -- colour contrast (tests/test_contrast.py, tests/test_themes.py) --------------------------

AA = 4.5
"""WCAG 2 AA's least contrast for text under 18.66 px bold: the freshness markers are 0.8em."""


def luminance(colour: str) -> float:
    """WCAG 2's relative luminance of an ``#rgb`` or ``#rrggbb`` colour."""
    hexa = colour.lstrip("#")
    hexa = "".join(c * 2 for c in hexa) if len(hexa) == 3 else hexa
    channels = [int(hexa[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: str, other: str) -> float:
    """WCAG 2's contrast ratio of two colours, 1 to 21."""
    high, low = sorted((luminance(one), luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


SCREENSHOTS = Path(__file__).resolve().parent.parent / "docs" / "_static" / "screenshots"


def save_screenshot(element: Any, name: str, tmp_path: Path) -> Path:
    """A PNG of one element, clipped from the whole page (so sticky headers and scrolling don't matter)."""
    target = SCREENSHOTS if os.environ.get("RLRESOURCES_SCREENSHOTS") else tmp_path
    target.mkdir(parents=True, exist_ok=True)
    path = target / name
    driver = element.parent
    # The element and everything drawn inside it (a table wider than its block; never the
    # contents of a closed <details>, which Chromium lays out unseen),
    # with a margin: the README's picture of the filter block had its last column cut off.
    box = driver.execute_script(
        "document.activeElement.blur();"
        "const boxes = [arguments[0], ...arguments[0].querySelectorAll('*')].filter(e => e.checkVisibility())"
        "  .map(e => e.getBoundingClientRect())"
        "  .filter(r => r.width && r.height);"
        "const left = Math.max(0, Math.min(...boxes.map(r => r.left)) - 8);"
        "const right = Math.min(document.documentElement.clientWidth, Math.max(...boxes.map(r => r.right)) + 8);"
        "const top = Math.min(...boxes.map(r => r.top)) - 8, bottom = Math.max(...boxes.map(r => r.bottom)) + 8;"
        "return {x: left + window.scrollX, y: top + window.scrollY, width: right - left, height: bottom - top};",
        element,
    )
    shot = driver.execute_cdp_cmd(
        "Page.captureScreenshot",
        {"format": "png", "captureBeyondViewport": True, "clip": {**box, "scale": 1}},
    )
    path.write_bytes(base64.b64decode(shot["data"]))
    assert path.stat().st_size > 1000
    return path
