"""MyST Markdown: the directive in a ``.md`` page draws what the ``.rst`` page draws.

``tests/roots/test-myst`` has the same four directives (a filtered, sorted, captioned
table; an empty size; an unknown size; a bad option) once in reST and once in MyST.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from conftest import warning_lines
from docutils import nodes

pytest.importorskip("myst_parser")


def _body(app: Any, docname: str) -> list[str]:
    """The page's nodes after its title (source positions are not printed; refdoc is the page's own name)."""
    doctree = app.env.get_doctree(docname)
    section = next(iter(doctree.findall(nodes.section)))
    return [child.pformat().replace(f'refdoc="{docname}"', 'refdoc="PAGE"') for child in section.children[1:]]


def _html_tables(app: Any, docname: str) -> list[str]:
    html = (app.outdir / f"{docname}.html").read_text(encoding="utf-8")
    return re.findall(
        r'<table class="[^"]*rlresources-table.*?</table>|<p class="rlresources-empty">.*?</p>', html, re.S
    )


@pytest.mark.sphinx("html", testroot="myst")
def test_markdown_page_draws_the_same_nodes_and_html(app: Any) -> None:
    app.build()
    rst, md = _body(app, "page-rst"), _body(app, "page-md")
    assert len(rst) == 4  # table, empty sentence, (unknown size: nothing), table, "none matches" sentence
    assert md == rst
    assert "<table" in rst[0] and "compact" in rst[0] and "<emphasis>" in rst[0]
    tables_rst, tables_md = _html_tables(app, "page-rst"), _html_tables(app, "page-md")
    assert len(tables_rst) == 4  # two tables and two "nothing to show" sentences
    assert tables_md == tables_rst
    # the options took effect in Markdown too: MIN rows only, five columns, sorted by resource descending
    first = tables_md[0]
    assert first.count('<th class="head"') == 5
    assert "RECOMMENDED" not in first
    assert first.index("32*H800") < first.index("32*H20") < first.index("8*H100")
    # options as a YAML block at the top of the fence work too
    assert "No verified configuration for 70B matches this selection." in md[3]


@pytest.mark.sphinx("html", testroot="myst", freshenv=True)
def test_markdown_warnings_are_located_in_the_markdown_file(app: Any) -> None:
    app.build()
    known = "The known sizes are: 70B, 405B (a size is known when the data folder has its file)"
    columns = (
        "size, tag, model, task, resource, maxbatch, train, infer, link, contributor, model_id, tested, evidence, "
        "notes, estimate, seq_len, global_batch, parallelism, throughput, step_time, peak_memory, logs, description"
    )
    assert sorted(warning_lines(app)) == [
        f"<srcdir>/page-md.md:14: WARNING: unknown size '72b'; did you mean '70B'? {known} [rlresources.unknown_size]",
        f"<srcdir>/page-md.md:17: WARNING: :columns: names no column 'bogus'; the columns are: {columns} "
        "[rlresources.option]",
        f"<srcdir>/page-rst.rst:13: WARNING: unknown size '72b'; did you mean '70B'? {known} "
        "[rlresources.unknown_size]",
        f"<srcdir>/page-rst.rst:15: WARNING: :columns: names no column 'bogus'; the columns are: {columns} "
        "[rlresources.option]",
    ]
