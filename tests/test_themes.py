"""Readers see the whole table: every column, without scrolling sideways, in the themes people use.

Two sites are built per theme (furo, sphinx-rtd-theme, alabaster) and opened in
headless Chromium (the set-up of ``tests/test_browser.py``): our seed page, and a page
with the values real framework pages have (``RECOMMENDED``, ``Qwen2.5-Coder-32B-Instruct``,
``sglang0.4.6.post1``, 16 GPUs, long script names, ``tests/roots/test-long-values``).
At 1280 and 1440 pixels, light and dark, every cell of every drawn table lies inside
the text column, no scroll box around a table hides any width, cell text stays at 85%
of the body's size or more, and a table is a table unless even its narrowest layout
cannot fit the column; on the seed page no word of a cell wraps while another column
has room to spare.  At 400 pixels each row is a card, nothing we draw is wider than
the column, and every size of the chart is on screen.  axe-core (from npm) finds no
WCAG 2 AA violation inside the extension's own elements, on the seed page and on a copy
of it in a git history that makes two rows stale, one on a line sphinx-rtd-theme stripes.

Every page is loaded at the width it is measured at, and measured once the layout has
settled (fonts in, the layout script done, two reads alike): reading right after a
resize made a different case fail on each run.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import REPO, TESTS
from helpers import serving

from sphinx_rlresources.core.loader import LoadOptions, load_dataset

pytestmark = pytest.mark.browser

THEMES = ["alabaster", "sphinx_rtd_theme", "furo"]
SITES = {"seed": TESTS / "roots" / "test-browser", "long": TESTS / "roots" / "test-long-values"}
TABLES = "table.rlresources-table, table.rlresources-chart-table, table.rlresources-coverage"
OURS = [
    "table.rlresources-table",
    "table.rlresources-estimate",
    ".rlresources-filter-controls",
    ".rlresources-filter-status",
    "figure.rlresources-chart",
    "table.rlresources-coverage",
    ".rlresources-marker",
    ".rlresources-shared-markers",
    ".rlresources-empty",
    ".rlresources-wanted",
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


STALE_SCRIPTS = {  # the second row of 7B and of 14B: the 5th and 7th of the "all" table, rtd's striped lines
    "examples/tuning/7b/qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh": "trainer.n_gpus_per_node=1",
    "examples/tuning/14b/qwen2.5-14b_grpo-lora_2_h100_fsdp_vllm.sh": "trainer.n_gpus_per_node=2",
}


def _stale_site(folder: Any) -> Any:
    """The seed page over a copy of the seed's data in a git history where two scripts changed
    their GPU count after their rows were tested (2025-06-25): those rows are stale, whatever
    finer rule decides staleness, and each lies on a line sphinx-rtd-theme stripes."""
    from helpers import commit, git

    for part in ("data", "examples"):
        shutil.copytree(REPO / part, folder / part)
    docs = folder / "docs"
    docs.mkdir()
    conf = (SITES["seed"] / "conf.py").read_text(encoding="utf-8").replace('"../../../data"', '"../data"')
    (docs / "conf.py").write_text(conf.replace('"../../.."', '".."') + "rlresources_stale_check = True\n", "utf-8")
    shutil.copy(SITES["seed"] / "index.rst", docs / "index.rst")
    git(folder, "init", "-q")
    commit(folder, "the seed's rows and scripts", "2025-06-20T12:00:00+00:00")
    for script, setting in STALE_SCRIPTS.items():
        path = folder / script
        gpus = int(setting.rsplit("=", 1)[1])
        path.write_text(path.read_text("utf-8").replace(setting, setting.replace(f"={gpus}", f"={gpus * 2}")), "utf-8")
    commit(folder, "double the GPUs", "2025-07-10T12:00:00+00:00")
    return docs


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """``sites(theme, site)`` -> the URL of that site built in that theme, served on 127.0.0.1."""
    urls: dict[tuple[str, str], str] = {}
    servers = contextlib.ExitStack()

    def start(theme: str, site: str) -> str:
        if (theme, site) not in urls:
            if theme == "sphinx_rtd_theme":
                pytest.importorskip("sphinx_rtd_theme")
            out = tmp_path_factory.mktemp(f"{site}-{theme}")
            source = SITES[site] if site in SITES else _stale_site(out / "repo")
            subprocess.run(
                [sys.executable, "-m", "sphinx", "-q", "-E", "-b", "html", "-D", f"html_theme={theme}",
                 "-d", str(out / ".doctrees"), str(source), str(out / "html")],
                check=True,
            )  # fmt: skip
            urls[(theme, site)] = servers.enter_context(serving(out / "html")) + "/index.html"
        return urls[(theme, site)]

    with servers:
        yield start


SETTLED = """
const done = arguments[arguments.length - 1];
const ours = arguments[0].join(', ');
const shape = () => JSON.stringify(Array.from(document.querySelectorAll(ours)).map(e => {
  const r = e.getBoundingClientRect();
  return [Math.round(r.left), Math.round(r.width), Math.round(r.height)];
}));
let last = null, tries = 0;
const look = () => {
  if (document.readyState !== 'complete' || !document.documentElement.hasAttribute('data-rlresources-layout')) {
    return setTimeout(look, 20);
  }
  const now = shape();
  if (now === last || ++tries > 50) return done(tries);
  last = now;
  requestAnimationFrame(() => requestAnimationFrame(look));
};
document.fonts.ready.then(look);
"""


def _open(driver: Any, url: str, width: int, dark: bool = False) -> None:
    """Load ``url`` at ``width`` pixels and return once the layout has settled.

    The page is loaded at the width it is measured at (a resize after loading is a
    second layout the measurement could race), and measured only when the fonts are in,
    the layout script has chosen each table's layout, and two reads a frame apart agree.
    """
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    driver.set_window_size(width, 1000)
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]},
    )
    driver.get(url)
    WebDriverWait(driver, 30).until(
        expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "table.rlresources-table"))
    )
    driver.set_script_timeout(60)
    assert driver.execute_async_script(SETTLED, OURS) <= 50, "the layout never settled"
    assert driver.execute_script("return document.documentElement.clientWidth") <= width


def _look(driver: Any, url: str, width: int, dark: bool = False) -> dict[str, Any]:
    _open(driver, url, width, dark)
    found: dict[str, Any] = driver.execute_script(LAYOUT, TABLES)
    if found["outside"] or found["hidden"]:
        found["detail"] = driver.execute_script(
            "return Array.from(document.querySelectorAll(arguments[0])).map(t => [t.className, "
            "Math.round(t.getBoundingClientRect().right), Math.round((t.closest('[role=main], .body, article, "
            "main') || document.body).getBoundingClientRect().right)])",
            TABLES,
        )
    return found


FITS = """
// Whether each resource table's narrowest layout (compact, every name wrapped) fits its column:
// measured here, independently of the layout script, with its classes taken off.
return Array.from(document.querySelectorAll('table.rlresources-table')).map(table => {
  const kept = table.className;
  table.classList.remove('rlresources-cards');
  table.classList.add('rlresources-compact');
  table.style.width = 'min-content';
  table.style.maxWidth = 'none';
  const narrowest = table.getBoundingClientRect().width;
  table.className = kept;
  table.style.width = '';
  table.style.maxWidth = '';
  const box = table.parentElement, style = getComputedStyle(box);
  const room = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return {fits: narrowest <= room + 0.5, display: getComputedStyle(table.querySelector('tbody tr')).display};
});
"""


@pytest.mark.parametrize("site", sorted(SITES))
@pytest.mark.parametrize("width", [1280, 1440])
@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
@pytest.mark.parametrize("theme", THEMES)
def test_every_column_is_visible_without_scrolling_sideways(
    browser: Any,
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
    # a table stays a table wherever one fits; cards only where even the narrowest table cannot
    for table in browser.execute_script(FITS):
        assert table["display"] == ("table-row" if table["fits"] else "block"), (theme, width, site, table)
    if site == "seed":  # the seed page's rows fit as a table in every theme
        assert set(found["cards"]) == {"table-row"}
    # the theme's text colour, light or dark
    assert found["cell"] == found["text"], found
    red, green, blue = (int(float(v)) for v in re.findall(r"[\d.]+", found["cell"])[:3])
    if dark and theme == "furo":
        assert red + green + blue > 3 * 160, found  # furo follows the system: light text
    else:
        assert red + green + blue < 3 * 110, found  # dark text on the light page


WRAPS = r"""
// Per column of each resource table: its content width, its widest word (text between spaces,
// or an inline-block such as a marker), and the words that wrap onto a second line.
const out = [];
for (const table of document.querySelectorAll('table.rlresources-table')) {
  const columns = [];
  for (const row of table.querySelectorAll('tr')) {
    Array.from(row.children).forEach((cell, index) => {
      const column = columns[index] = columns[index] || {width: 0, word: 0, wrapped: []};
      const style = getComputedStyle(cell);
      column.width = Math.max(column.width, cell.getBoundingClientRect().width - parseFloat(style.paddingLeft)
        - parseFloat(style.paddingRight) - parseFloat(style.borderLeftWidth) - parseFloat(style.borderRightWidth));
      const texts = [];
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const parent = node.parentElement;
        if (parent.closest('.rlresources-visually-hidden')) continue;
        const block = parent.closest('td *, th *');
        if (block && getComputedStyle(block).display === 'inline-block') {
          column.word = Math.max(column.word, block.getBoundingClientRect().width);
          continue;
        }
        texts.push(node);
      }
      // words run across text nodes (<wbr> splits them); a space ends one
      let start = null, offset = 0, end = null;
      const words = [];
      const close = (node, at) => {
        if (!start) return;
        const range = document.createRange();
        range.setStart(start, offset);
        range.setEnd(node, at);
        words.push(range);
        start = null;
      };
      for (const node of texts) {
        for (let i = 0; i < node.data.length; i++) {
          if (/\s/.test(node.data[i])) close(node, i);
          else if (!start) { start = node; offset = i; }
          end = [node, i + 1];
        }
      }
      if (end) close(end[0], end[1]);
      for (const range of words) {
        const boxes = Array.from(range.getClientRects()).filter(b => b.width > 0);
        const lines = new Set(boxes.map(b => Math.round(b.top)));
        column.word = Math.max(column.word, boxes.reduce((sum, b) => sum + b.width, 0));
        if (lines.size > 1) column.wrapped.push(range.toString());
      }
    });
  }
  out.push(columns.map(c => ({spare: c.width - c.word, wrapped: c.wrapped})));
}
return out;
"""


@pytest.mark.parametrize("width", [1280, 1440])
@pytest.mark.parametrize("theme", THEMES)
def test_no_word_of_the_seed_table_wraps_while_another_column_has_room(
    browser: Any,
    sites: Any,
    theme: str,
    width: int,
) -> None:
    # Columns are sized by their content: where a name must wrap, no short, fixed-vocabulary
    # column may keep width the name needs (3 pixels of rounding aside).
    _open(browser, sites(theme, "seed"), width)
    for columns in browser.execute_script(WRAPS):
        wrapped = [word for column in columns for word in column["wrapped"]]
        if wrapped:
            roomy = [round(column["spare"]) for column in columns if column["spare"] > 3]
            assert roomy == [], f"{wrapped} wrap while columns have {roomy}px to spare in {theme} at {width}px"


INSIDE = """
// At a phone's width: everything we draw lies inside the text column and inside the element of
// ours that holds it, and nothing scrolls sideways inside it.
const area = (document.querySelector('[role=main], .body, article, main') || document.body).getBoundingClientRect();
const wider = [];
const hidden = el => {
  for (let a = el; a; a = a.parentElement) {
    const style = getComputedStyle(a);
    if (style.display === 'none' || style.visibility === 'hidden' || style.clip !== 'auto') return true;
  }
  return false;
};
for (const root of document.querySelectorAll(arguments[0].join(', '))) {
  if (hidden(root)) continue;
  const box = root.getBoundingClientRect();
  if (box.left < area.left - 0.5 || box.right > area.right + 0.5) wider.push([root.className, 'column', box.width]);
  for (const el of [root, ...root.querySelectorAll('*')]) {
    const r = el.getBoundingClientRect();
    if (!r.width || hidden(el)) continue;
    if (r.left < box.left - 0.5 || r.right > box.right + 0.5) {
      wider.push([el.tagName + '.' + el.className, (el.textContent || '').trim().slice(0, 40), Math.round(r.width)]);
    }
    if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible') {
      wider.push([el.tagName + '.' + el.className, 'scrolls', el.scrollWidth - el.clientWidth]);
    }
  }
}
const page = document.documentElement;
return {wider: wider.slice(0, 20), overflow: page.scrollWidth - page.clientWidth};
"""

SIZES_SEEN = """
// The chart on screen: each size label in the visible plot, whether it lies inside the plot's
// box and the window, and the size of its text in pixels.
const plot = Array.from(document.querySelectorAll('figure.rlresources-chart .rlresources-chart-plot'))
  .find(p => getComputedStyle(p).display !== 'none');
if (!plot) return null;
const svg = plot.querySelector('svg');
const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
const box = plot.getBoundingClientRect();
const seen = {};
for (const text of svg.querySelectorAll('text')) {
  const r = text.getBoundingClientRect();
  const inside = r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.left >= 0
    && r.right <= document.documentElement.clientWidth;
  seen[text.textContent] = (seen[text.textContent] || true) && inside;
}
return {seen: seen, text: scale * parseFloat(svg.getAttribute('font-size')),
        scrolls: plot.scrollWidth > plot.clientWidth + 1};
"""


@pytest.mark.parametrize("site", sorted(SITES))
@pytest.mark.parametrize("theme", THEMES)
def test_narrow_screens_show_each_row_as_a_card(browser: Any, sites: Any, theme: str, site: str) -> None:
    found = _look(browser, sites(theme, site), 400)
    assert set(found["cards"]) == {"block"}, found["cards"]
    assert found["outside"] == [] and found["hidden"] == [] and found["overflow"] <= 0, found
    labels = browser.execute_script(
        "return Array.from(document.querySelectorAll('table.rlresources-table tbody tr:first-child td'))"
        ".map(td => getComputedStyle(td, '::before').content)"
    )
    assert '"Model"' in labels and '"Resource"' in labels  # "label: value" lines, from the headers
    # the markup is still a table: its header row is there for screen readers
    assert browser.execute_script("return document.querySelectorAll('table.rlresources-table thead th').length") > 0
    # the estimate tables become cards too
    assert set(browser.execute_script(
        "return Array.from(document.querySelectorAll('table.rlresources-estimate tbody tr'))"
        ".map(tr => getComputedStyle(tr).display)"
    )) <= {"block"}  # fmt: skip
    # an empty value keeps its own line in a card: the next label never rides up onto it
    tops = browser.execute_script(
        "return Array.from(document.querySelectorAll('table.rlresources-table tbody tr')).map(tr =>"
        " Array.from(tr.children).filter(td => td.getBoundingClientRect().height)"
        "  .map(td => [td.getBoundingClientRect().top, td.getBoundingClientRect().bottom]))"
    )
    for row in tops:
        for (top, bottom), (next_top, _next_bottom) in itertools.pairwise(row):
            assert bottom - top >= 10 and next_top >= bottom - 0.5, row
    # nothing empty is left under the last card (sphinx-rtd-theme drew a bordered strip there)
    gaps = browser.execute_script(
        "return Array.from(document.querySelectorAll('table.rlresources-table, table.rlresources-estimate'))"
        ".map(t => { const rows = Array.from(t.querySelectorAll('tbody tr')).filter(r => r.offsetHeight);"
        " return t.getBoundingClientRect().bottom - rows[rows.length - 1].getBoundingClientRect().bottom; })"
    )
    assert all(gap <= 1 for gap in gaps), gaps


@pytest.mark.parametrize("site", sorted(SITES))
@pytest.mark.parametrize("theme", THEMES)
def test_at_400_pixels_nothing_we_draw_is_wider_than_its_column(
    browser: Any,
    sites: Any,
    theme: str,
    site: str,
) -> None:
    _open(browser, sites(theme, site), 400)
    found = browser.execute_script(INSIDE, OURS)
    assert found["wider"] == [] and found["overflow"] <= 0, f"{theme}, {site}: {found}"


@pytest.mark.parametrize("theme", THEMES)
def test_at_400_pixels_every_size_of_the_chart_is_on_screen(browser: Any, sites: Any, theme: str) -> None:
    _open(browser, sites(theme, "seed"), 400)
    chart = browser.execute_script(SIZES_SEEN)
    assert chart is not None
    sizes = [s.label for s in load_dataset(REPO / "data", REPO, LoadOptions(check_scripts=False)).sizes.values()]
    assert {size: chart["seen"].get(size) for size in sizes} == dict.fromkeys(sizes, True), chart
    assert chart["text"] >= 11.5 and not chart["scrolls"], chart  # full-size text, and nothing to scroll


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
def test_no_wcag_aa_violation_inside_our_elements(browser: Any, sites: Any, theme: str, site: str) -> None:
    script = _axe()
    _open(browser, sites(theme, site), 1280)
    _no_violations(browser, script)


def _no_violations(browser: Any, script: str) -> None:
    """axe-core finds no WCAG 2 A or AA violation inside our elements of the open page."""
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


STALE_ON_STRIPES = """
return Array.from(document.querySelectorAll('table.rlresources-table td .rlresources-marker-stale')).map(m => {
  let back = 'rgba(0, 0, 0, 0)';
  for (let box = m.parentElement; box && back === 'rgba(0, 0, 0, 0)'; box = box.parentElement) {
    back = getComputedStyle(box).backgroundColor;
  }
  return {colour: getComputedStyle(m).color, back: back};
});
"""


def _rgb_hex(css: str) -> str:
    parts = [int(float(p)) for p in re.findall(r"[\d.]+", css)[:3]]
    return "#" + "".join(f"{p:02x}" for p in parts)


@pytest.mark.parametrize(("theme", "dark"), [("sphinx_rtd_theme", False), ("furo", False), ("furo", True),
                                             ("alabaster", False)])  # fmt: skip
def test_a_stale_row_on_a_striped_line_reads_at_aa_contrast(browser: Any, sites: Any, theme: str, dark: bool) -> None:
    from helpers import AA, contrast

    script = _axe()
    _open(browser, sites(theme, "stale"), 1280, dark)
    found = browser.execute_script(STALE_ON_STRIPES)
    assert len(found) >= 2, "the page lost its stale rows"
    if theme == "sphinx_rtd_theme":
        assert any(_rgb_hex(m["back"]) == "#f3f6f6" for m in found), found  # one on a striped line
    for marker in found:
        assert contrast(_rgb_hex(marker["colour"]), _rgb_hex(marker["back"])) >= AA, marker
    _no_violations(browser, script)


def test_the_chart_has_a_text_alternative_and_the_filter_announces_its_count(browser: Any, sites: Any) -> None:
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
