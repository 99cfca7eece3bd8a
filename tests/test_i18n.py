"""The table's words are translated through Sphinx's locale machinery (catalog ``sphinx_rlresources``).

The package ships the template ``locale/sphinx_rlresources.pot`` and a German catalog;
``make locale`` regenerates them after a string changes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from conftest import REPO, warning_lines

LOCALE = REPO / "sphinx_rlresources" / "locale"
POT = LOCALE / "sphinx_rlresources.pot"
DE = LOCALE / "de" / "LC_MESSAGES"

#: What the issue promises translated: the header labels and the empty-size sentence.
REQUIRED = [
    "Size", "Tag", "Model", "Task", "Resource", "MaxBatch", "Train", "Infer", "Link", "Contributor",
    "No configuration has been verified for %s yet.", "Contribute one",
]  # fmt: skip


def _catalog(path: Path, reader: Any) -> dict[str, str]:
    with path.open("rb") as f:
        return {str(m.id): str(m.string) for m in reader(f) if m.id}


@pytest.mark.sphinx("html", testroot="builders", srcdir="i18n-de", confoverrides={"language": "de"})
def test_language_de_translates_the_headers_and_the_empty_sentence(app: Any) -> None:
    app.build()
    assert warning_lines(app) == []
    html = (Path(app.outdir) / "index.html").read_text(encoding="utf-8")
    for header in ("Größe", "Kategorie", "Modell", "Aufgabe", "Ressourcen", "Max. Batch", "Training", "Inferenz"):
        assert f"<p>{header}</p>" in html, header
    assert "<p>Tag</p>" not in html and "<p>Model</p>" not in html
    assert "Für 405B wurde noch keine Konfiguration geprüft." in html
    assert "Tragen Sie eine bei" in html


@pytest.mark.sphinx("html", testroot="builders", srcdir="i18n-en")
def test_english_stays_the_default(app: Any) -> None:
    app.build()
    html = (Path(app.outdir) / "index.html").read_text(encoding="utf-8")
    assert "<p>Tag</p>" in html and "Größe" not in html


def test_the_pot_holds_every_string_the_sources_mark() -> None:
    marked = {
        message
        for _file, _line, message, _comments, _context in extract_from_dir(str(REPO / "sphinx_rlresources"))
        if isinstance(message, str)
    }
    shipped = set(_catalog(POT, read_po))
    assert marked - shipped == set(), "strings missing from the .pot: run `make locale`"
    assert set(REQUIRED) <= shipped


def test_the_german_catalog_is_translated_and_compiled() -> None:
    po = _catalog(DE / "sphinx_rlresources.po", read_po)
    mo = _catalog(DE / "sphinx_rlresources.mo", read_mo)
    assert all(po.get(msgid) for msgid in REQUIRED)
    assert mo == {k: v for k, v in po.items() if v}, "the .mo is older than the .po: run `make locale`"
