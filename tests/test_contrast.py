"""The freshness markers read at WCAG AA contrast on every background a theme gives a row.

A pure computation, no browser: the markers' colours are read from our stylesheet and
the backgrounds from the installed themes' own files (sphinx-rtd-theme's striped rows,
furo's light and dark backgrounds, alabaster's page), so a theme that changes a colour
fails this test instead of a reader.  axe-core (tests/test_themes.py) checks the drawn
page too, where Chromium is installed; it missed ``#b35c00`` on rtd's ``#f3f6f6``
(4.34:1) because its page had no stale row on a striped line.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from conftest import REPO
from helpers import AA, contrast

CSS = REPO / "sphinx_rlresources" / "sphinxext" / "static" / "rlresources-freshness.css"


def _theme_file(package: str, *parts: str) -> str:
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        pytest.skip(f"{package} is not installed (pip install -e '.[docs]')")
    return Path(spec.origin).parent.joinpath(*parts).read_text(encoding="utf-8")


def _one(pattern: str, text: str, what: str) -> str:
    found = re.search(pattern, text)
    assert found, f"{what} not found: the theme changed its stylesheet; read the new value"
    return found.group(1)


def backgrounds() -> dict[str, dict[str, str]]:
    """Theme -> (where -> background colour), light and dark, from the installed themes."""
    rtd = _theme_file("sphinx_rtd_theme", "static", "css", "theme.css")
    furo = _theme_file("furo", "theme", "furo", "static", "styles", "furo.css")
    alabaster = _theme_file("alabaster", "theme.conf")

    def furo_block(selector: str) -> str:
        return _one(re.escape(selector) + r"\{([^{}]*--color-background-primary[^{}]*)\}", furo, f"furo's {selector}")

    def furo_var(block: str, name: str) -> str:
        return _one(rf"--color-{name}:(#[0-9a-fA-F]+);", block, f"furo's --color-{name}")

    light, dark = furo_block("body"), furo_block("body[data-theme=dark]")
    names = ("background-primary", "background-secondary", "background-hover")
    return {
        "alabaster": {"page": _one(r"(?m)^base_bg = (#[0-9a-fA-F]+)", alabaster, "alabaster's base_bg")},
        "sphinx_rtd_theme": {
            "striped row": _one(r"tr:nth-child\(2n-1\) td[^{]*\{background-color:(#[0-9a-fA-F]+)", rtd, "rtd stripes"),
            "page": _one(r"\.wy-nav-content\{margin:0;background:(#[0-9a-fA-F]+)", rtd, "rtd's page"),
            "row": "#ffffff",
        },
        "furo": {f"{name}": furo_var(light, name) for name in names},
        "furo dark": {f"{name}": furo_var(dark, name) for name in names},
    }


def marker_colours() -> dict[str, dict[str, str]]:
    """Marker kind -> {"light": colour, "dark": colour}, as the stylesheet gives them."""
    css = CSS.read_text(encoding="utf-8")
    found = {}
    for kind in ("stale", "outdated"):
        found[kind] = {
            "light": _one(rf"(?m)^\.rlresources-marker-{kind} \{{\s*color: (#[0-9a-fA-F]+);", css, f"{kind} colour"),
            "dark": _one(
                rf'body\[data-theme="dark"\] \.rlresources-marker-{kind} \{{ color: (#[0-9a-fA-F]+);',
                css,
                f"{kind} dark colour",
            ),
        }
        auto = _one(rf"body\[data-theme=\"auto\"\] \.rlresources-marker-{kind} \{{ color: (#[0-9a-fA-F]+);", css, kind)
        assert auto == found[kind]["dark"], f"furo's auto dark mode gives {kind} another colour than its dark mode"
    return found


def test_contrast_is_computed_as_wcag_defines_it() -> None:
    assert contrast("#000", "#fff") == pytest.approx(21.0)
    assert contrast("#b35c00", "#f3f6f6") == pytest.approx(4.34, abs=0.01)  # the issue's figure, too low


@pytest.mark.parametrize("kind", ["stale", "outdated"])
def test_every_marker_meets_aa_on_every_row_background_of_every_theme(kind: str) -> None:
    colours = marker_colours()[kind]
    low = []
    for theme, places in backgrounds().items():
        colour = colours["dark" if theme.endswith("dark") else "light"]
        for where, background in places.items():
            ratio = contrast(colour, background)
            if ratio < AA:
                low.append(f"{theme} {where} {background}: {colour} is {ratio:.2f}:1")
    assert low == []


def test_no_bar_or_other_second_sign_marks_a_stale_row() -> None:
    """One way to show "stale": the badge.  A bar at the row's first cell covered a card's first label."""
    css = CSS.read_text(encoding="utf-8")
    assert "tr.rlresources-stale" not in css
    assert "box-shadow" not in css
