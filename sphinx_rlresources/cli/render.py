"""``rlresources render``: a size's table as reST or Markdown text.

For READMEs that cannot run Sphinx, and for people who want to see what the directive
will draw.  Cells come from :mod:`.columns`, the module the directive draws from, so
the text and the page cannot disagree.  Every value is escaped for the target markup:
data files are untrusted, and a contributor name must stay a name, not become a link
or a list.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import TextIO
from urllib.parse import quote

from sphinx_rlresources.cli.common import EXIT_FINDINGS, EXIT_OK, PROG, CliError, load
from sphinx_rlresources.core import columns as cols
from sphinx_rlresources.core.diagnostics import relpath
from sphinx_rlresources.core.model import DataSet, Entry
from sphinx_rlresources.core.query import select
from sphinx_rlresources.core.urls import row_script_url, safe_url, script_url, url_template_problem
from sphinx_rlresources.safe.text import MAX_LOCATION, shown, visible

_RST_SPECIAL = re.compile(r"([\\`*_|<>\[\]])")
_RST_COLON = re.compile(r":(?=\S)")
_RST_TRANSITION = re.compile(r"^([!-/:-@\[-`{-~])\1{3,}$")
_RST_LEADING = re.compile(r"^([-+•#/]|\(?(\d+|[A-Za-z]|[ivxlcdmIVXLCDM]+|#)[.)](\s|$)|\.\.)")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")


def _escape(text: str, special: re.Pattern[str], always: str) -> str:
    """Backslash the markup characters, except one between two letters or digits.

    ``32*H20`` and ``qwen2-7b_grpo`` cannot start or end inline markup in reST (nor
    emphasis in Markdown for ``_``), so they stay readable in a README's source.
    """

    def one(match: re.Match[str]) -> str:
        char, at = match.group(1), match.start()
        inside = 0 < at < len(text) - 1 and text[at - 1].isalnum() and text[at + 1].isalnum()
        return char if inside and char not in always else "\\" + char

    return special.sub(one, text)


def rst_text(text: str) -> str:
    """Text that reST shows literally (inline markup and leading list markers escaped)."""
    escaped = _escape(text, _RST_SPECIAL, "\\`")
    # A colon before a non-space starts a standalone link (javascript:..., mailto:...),
    # a field list (:x: y) or a literal block (a::); an at-sign makes an email link.
    escaped = _RST_COLON.sub(r"\\:", escaped).replace("@", "\\@")
    if _RST_LEADING.match(escaped):
        escaped = "\\" + escaped
    if _RST_TRANSITION.match(escaped):  # ==== or \\\\ alone would be a transition
        cut = 2 if escaped.startswith("\\") else 1
        escaped = escaped[:cut] + "\\ " + escaped[cut:]  # an escaped space: shown as nothing
    return escaped


def md_text(text: str) -> str:
    """Text that GitHub-flavoured Markdown shows literally (also inside a table cell)."""
    return _escape(text.replace("&", "&amp;"), _MD_SPECIAL, "\\`*[]<>|~")


def rst_link(text: str, url: str) -> str:
    # Anonymous (``__``) so two rows with the same text never clash as link targets.
    label = _escape(text, _RST_SPECIAL, "\\`<>")
    return f"`{label} <{url}>`__"


def md_link(text: str, url: str) -> str:
    return f"[{md_text(text)}]({quote(url, safe=':/?#@!$&*+,;=%~.-_')})"


class Renderer:
    """Turns rows into cell strings for one markup, linking what the directive links."""

    def __init__(self, markup: str, template: str | None, ref: str, dataset: DataSet | None = None) -> None:
        self.markup = markup
        self.template = template
        self.ref = ref
        self.dataset = dataset
        """When given, only scripts that exist are linked, as in the directive."""

    def text(self, value: str) -> str:
        return rst_text(value) if self.markup == "rst" else md_text(value)

    def link(self, value: str, url: str | None) -> str:
        url = safe_url(url)
        if not url:
            return self.text(value)
        return rst_link(value, url) if self.markup == "rst" else md_link(value, url)

    def cell(self, entry: Entry, key: str) -> str:
        value = visible(cols.COLUMNS[key].text(entry))
        if key == "estimate" and self.dataset is not None:
            value = cols.estimate_text(self.dataset.estimates.get(entry.source))
        if key == "link":
            if self.dataset is not None:
                return self.link(value, row_script_url(self.dataset, entry, self.template, self.ref))
            return self.link(value, script_url(self.template, entry.script_ref or self.ref, entry.script))
        if key == "contributor":
            return self.link(value, entry.contributor.link)
        if key == "evidence" and entry.evidence:
            return self.link(value, entry.evidence)
        return self.text(value)


def render_rst(entries: Sequence[Entry], shown: Sequence[str], renderer: Renderer, title: str) -> str:
    lines = [f".. list-table:: {rst_text(title)}", "   :header-rows: 1", "   :widths: auto", ""]
    rows = [[cols.COLUMNS[k].header for k in shown]] + [[renderer.cell(e, k) for k in shown] for e in entries]
    for row in rows:
        for index, cell in enumerate(row):
            bullet = "   * -" if index == 0 else "     -"
            lines.append(f"{bullet} {cell}" if cell else bullet)
    return "\n".join(lines) + "\n"


def render_markdown(entries: Sequence[Entry], shown: Sequence[str], renderer: Renderer) -> str:
    header = "| " + " | ".join(cols.COLUMNS[k].header for k in shown) + " |"
    rule = "|" + "|".join(" --- " for _ in shown) + "|"
    body = ["| " + " | ".join(renderer.cell(e, k) for k in shown) + " |" for e in entries]
    return "\n".join([header, rule, *body]) + "\n"


def _problems_of(dataset: DataSet, shown_paths: set[str]) -> list[str]:
    return [d.format() for d in dataset.diagnostics if d.path in shown_paths]


def run(args: argparse.Namespace, out: TextIO) -> int:
    dataset, project = load(args)
    template = args.script_url or project.script_url
    if template:
        problem = url_template_problem(template)
        if problem:
            raise CliError(f"--script-url {template!r} {problem}")
    renderer = Renderer(args.format, template, args.ref or project.script_ref, dataset)
    chosen = select(dataset, args.size, columns=args.columns)
    if chosen.unknown is not None:
        known = ", ".join(chosen.unknown.known) or "(none: the data folder has no files)"
        raise CliError(f"unknown size '{chosen.unknown.wanted}'; the sizes in {relpath(dataset.data_dir)} are: {known}")
    if chosen.problems:
        raise CliError(chosen.problems[0].for_command_line())
    title = chosen.label or "All sizes"
    for line in _problems_of(dataset, {s.display_path for s in chosen.sizes}):
        print(line, file=sys.stderr)
    if chosen.entries:
        text = (
            render_rst(chosen.entries, chosen.columns, renderer, title)
            if args.format == "rst"
            else render_markdown(chosen.entries, chosen.columns, renderer)
        )
        out.write(text)
    elif not chosen.unreadable:
        out.write(f"No configuration has been verified for {title} yet.\n")
    if chosen.unreadable:
        names = ", ".join(shown(s.display_path, MAX_LOCATION) for s in chosen.unreadable)
        print(f"{PROG}: {names} could not be read; its rows are not shown (run rlresources lint)", file=sys.stderr)
        return EXIT_FINDINGS
    return EXIT_OK
