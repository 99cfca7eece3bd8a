"""One URL policy, one table: every output links exactly the URLs that ``core.urls`` allows.

Each case is a URL that the data format accepts (so a pull request can carry it) and
whether it may become a link.  The same table is run through every output that can
carry a link: the HTML, man and LaTeX builders (a contributor's ``url``), the JSON
export and the Link column (``{ref}`` filled into the script URL template), and
``rlresources render`` as reST and Markdown.  A rule copied into one output and
changed there would fail here for that output alone.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from helpers import ROW, SCRIPT, make_repo, sphinx_project
from helpers import sphinx_build as build

from sphinx_rlresources.cli.render import Renderer
from sphinx_rlresources.core.loader import load_dataset
from sphinx_rlresources.core.urls import safe_url, script_url, url_template_problem
from sphinx_rlresources.sphinxext.export import dataset_object

BASE = "https://example.org/"
TEMPLATE = BASE + "{ref}/{path}"

#: (what follows BASE, may it be linked?)
CASES = [
    ("run/1", True),
    ("q?a=1", True),
    ("it's", False),  # ends an HTML attribute or a roff \X'...' string
    ("`x`", False),  # ends reST inline markup
    ("a|b", False),  # a Markdown cell border
]
IDS = [tail for tail, _ in CASES]


def row(url: str) -> str:
    """test_hostile's good row, its contributor given a homepage."""
    contributor = f"    contributor:\n      name: Ada\n      url: {json.dumps(url)}\n"
    return "size: 7B\nentries:\n" + ROW.replace("    contributor: Xiangyongan\n", contributor)


def repo(tmp_path: Path, tail: str) -> Path:
    root = make_repo(tmp_path, row(BASE + tail))
    conf = f"rlresources_script_url = {TEMPLATE!r}\nrlresources_script_ref = {tail!r}\nman_show_urls = True\n"
    page = ".. rl-resource-table:: 7b\n   :columns: tag, link, contributor\n"
    return sphinx_project(root, conf, page)


def test_the_policy_itself() -> None:
    for tail, linked in CASES:
        assert (safe_url(BASE + tail) is not None) is linked, tail
    assert safe_url("mailto:ada@example.org") == "mailto:ada@example.org"
    for refused in ("javascript:alert(1)", "data:text/html,x", "//evil", "HTTPS://x", "https://a b", "https://a\\fB"):
        assert safe_url(refused) is None, refused
    for separator in ("\u2028", "\u2029", "\u0085", "\u202e", "\x00"):  # never printable, never a link
        assert safe_url(f"{BASE}a{separator}b") is None


@pytest.mark.parametrize(("tail", "linked"), CASES, ids=IDS)
def test_html(tmp_path: Path, tail: str, linked: bool) -> None:
    out = tmp_path / "html"
    status, warnings = build(repo(tmp_path, tail), out, "-b", "html")
    assert (status, warnings) == (0, [])
    page = (out / "index.html").read_text("utf-8")
    for url in (BASE + tail, BASE + tail + "/" + SCRIPT):  # the contributor, the Link column
        assert (f'href="{html.escape(url)}"' in page) is linked, url


@pytest.mark.parametrize(("tail", "linked"), CASES, ids=IDS)
def test_man(tmp_path: Path, tail: str, linked: bool) -> None:
    out = tmp_path / "man"
    status, warnings = build(repo(tmp_path, tail), out, "-b", "man")
    assert (status, warnings) == (0, [])
    text = next(out.rglob("*.1")).read_text("utf-8").replace("\\:", "")  # \: marks where roff may break
    assert (BASE + tail in text) is linked  # man_show_urls prints each link's target


@pytest.mark.parametrize(("tail", "linked"), CASES, ids=IDS)
def test_latex(tmp_path: Path, tail: str, linked: bool) -> None:
    out = tmp_path / "latex"
    status, warnings = build(repo(tmp_path, tail), out, "-b", "latex")
    assert (status, warnings) == (0, [])
    tex = next(out.glob("*.tex")).read_text("utf-8")
    assert ("\\sphinxhref{" + BASE + tail + "}" in tex) is linked


@pytest.mark.parametrize(("tail", "linked"), CASES, ids=IDS)
def test_json(tmp_path: Path, tail: str, linked: bool) -> None:
    root = make_repo(tmp_path, row(BASE + tail))
    rows = dataset_object(load_dataset(root / "data", root), TEMPLATE, tail)["rows"]
    assert rows[0]["script_url"] == (BASE + tail + "/" + SCRIPT if linked else None)


@pytest.mark.parametrize(("tail", "linked"), CASES, ids=IDS)
@pytest.mark.parametrize("markup", ["rst", "markdown"])
def test_render(tmp_path: Path, tail: str, linked: bool, markup: str) -> None:
    root = make_repo(tmp_path, row(BASE + tail))
    entry = load_dataset(root / "data", root).entries[0]
    renderer = Renderer(markup, TEMPLATE, tail)
    opener = "<" if markup == "rst" else "]("
    for key in ("contributor", "link"):
        assert (opener + BASE in renderer.cell(entry, key)) is linked, key


def test_a_template_that_could_only_make_refused_links_is_refused_at_start_up() -> None:
    assert url_template_problem(TEMPLATE) is None
    for bad in ('https://x/"{path}', "https://x/ {path}", "https://x/{path}|", "https://x/\u2028{path}"):
        assert url_template_problem(bad), bad
    assert script_url(TEMPLATE, "it's", SCRIPT) is None
