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
from collections.abc import Sequence
from urllib.parse import quote

from sphinx_rlresources.cli.common import EXIT_FINDINGS, EXIT_OK, PROG, CliError, Lines, load, tell
from sphinx_rlresources.core import columns as cols
from sphinx_rlresources.core.diagnostics import relpath
from sphinx_rlresources.core.model import DataSet, Entry
from sphinx_rlresources.core.project import Project
from sphinx_rlresources.core.query import Selection, select
from sphinx_rlresources.core.richtext import Run
from sphinx_rlresources.core.urls import url_template_problem
from sphinx_rlresources.safe.text import MAX_LOCATION, shown

_RST_SPECIAL = re.compile(r"([\\`*_|<>\[\]])")
_RST_COLON = re.compile(r":(?=\S)")
_RST_TRANSITION = re.compile(r"^([!-/:-@\[-`{-~])\1{3,}$")
_RST_LEADING = re.compile(r"^([-+•#/]|\(?(\d+|[A-Za-z]|[ivxlcdmIVXLCDM]+|#)[.)](\s|$)|\.\.)")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")
_MD_LINKABLE = re.compile(r"[@:]|//|[.\u3002\uff0e\uff61][^\W\d_]")
"""What may start an autolink: a scheme's colon, ``//``, an at-sign, or a dot before a letter (``.com``)."""


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
    """Text that GitHub-flavoured Markdown shows literally (also inside a table cell).

    Escaping cannot stop an autolink: GitHub links ``https://x``, ``www.x`` and ``a@b.c``
    in plain text, and other renderers (linkify) also ``name.tld``, whatever the
    backslashes.  Text that could hold one is therefore written as a code span, where
    no renderer looks for links.
    """
    return md_code(text) if _MD_LINKABLE.search(text) else _md_escape(text)


def _md_escape(text: str) -> str:
    """Markup characters backslashed: enough inside a link's text, where no renderer autolinks."""
    return _escape(text.replace("&", "&amp;"), _MD_SPECIAL, "\\`*[]<>|~")


def md_code(text: str) -> str:
    """``text`` as a code span that shows it exactly, inside a table cell too."""
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text[:1] in ("`", " ") or text[-1:] in ("`", " ") else ""  # one space each side is dropped
    return fence + pad + text.replace("|", "\\|") + pad + fence


def rst_link(text: str, url: str) -> str:
    # Anonymous (``__``) so two rows with the same text never clash as link targets.
    label = _escape(text, _RST_SPECIAL, "\\`<>")
    return f"`{label} <{url}>`__"


def md_link(text: str, url: str, title: str | None = None) -> str:
    target = quote(url, safe=":/?#@!$&*+,;=%~.-_")
    if title:  # a quoted title: only its quote, a backslash and the cell border need escaping
        target += ' "' + re.sub(r'([\\"|&])', r"\\\1", title) + '"'
    return f"[{_md_escape(text)}]({target})"


class Renderer:
    """Turns cells into strings of one markup; what a cell shows and links is the column's to say."""

    def __init__(
        self, markup: str, template: str | None, ref: str, dataset: DataSet | None = None, link_from: str | None = None
    ) -> None:
        self.markup = markup
        self.context = cols.CellContext(dataset, template, ref, link_from)
        """With a data set, only scripts that exist are linked, as in the directive."""

    def linked_from(self, folder: str) -> Renderer:
        """The same renderer for a Markdown file in ``folder`` (from the root), linking scripts relatively."""
        context = self.context
        return Renderer(self.markup, context.script_url, context.script_ref, context.dataset, folder)

    def text(self, value: str) -> str:
        return rst_text(value) if self.markup == "rst" else md_text(value)

    def cell(self, entry: Entry, key: str) -> str:
        cell = cols.COLUMNS[key].cell(entry, self.context)
        if cell.runs:
            return self.runs(cell.runs)
        if not cell.url:
            return self.text(cell.text)
        if self.markup == "rst":  # reST links carry no title
            return rst_link(cell.text, cell.url)
        return md_link(cell.text, cell.url, cell.title)

    def runs(self, runs: Sequence[Run]) -> str:
        """Text with links, each run escaped on its own; in reST an escaped space (shown as
        nothing) sets each link apart, as inline markup must start and end at a word's edge."""
        if self.markup != "rst":
            return "".join(md_link(r.text, r.url) if r.url else self.text(r.text) for r in runs)
        return "".join(f"\\ {rst_link(r.text, r.url)}\\ " if r.url else rst_text(r.text) for r in runs)


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


def link_settings(args: argparse.Namespace, project: Project) -> tuple[str | None, str]:
    """The Link column's URL template and ref: the flags, else ``[tool.rlresources]``; a bad template stops."""
    template = args.script_url or project.script_url
    if template:
        problem = url_template_problem(template)
        if problem:
            raise CliError(f"--script-url {template!r} {problem}")
    return template, args.ref or project.script_ref


def drawn(chosen: Selection, renderer: Renderer, title: str) -> str:
    """What the directive would draw for a readable selection: the table, or the sentence that stands for it."""
    if chosen.entries:
        if renderer.markup == "rst":
            return render_rst(chosen.entries, chosen.columns, renderer, title)
        return render_markdown(chosen.entries, chosen.columns, renderer)
    if chosen.filters:
        return f"No verified configuration for {title} matches this selection.\n"
    return f"No configuration has been verified for {title} yet.\n"


def run(args: argparse.Namespace, out: Lines) -> int:
    dataset, project = load(args)
    template, ref = link_settings(args, project)
    renderer = Renderer(args.format, template, ref, dataset)
    chosen = select(dataset, args.size, columns=args.columns)
    if chosen.unknown is not None:
        known = ", ".join(chosen.unknown.known) or "(none: the data folder has no files)"
        folder = relpath(dataset.data_dir)
        raise CliError(f"unknown size {shown(chosen.unknown.wanted)}; the sizes in {folder} are: {known}")
    if chosen.problems:
        raise CliError(chosen.problems[0].for_command_line())
    title = chosen.label or "All sizes"
    for line in _problems_of(dataset, {s.display_path for s in chosen.sizes}):
        tell(line)
    if chosen.entries or not chosen.unreadable:
        out.write(drawn(chosen, renderer, title))
    if chosen.unreadable:
        names = ", ".join(shown(s.display_path, MAX_LOCATION) for s in chosen.unreadable)
        tell(f"{PROG}: {names} could not be read; its rows are not shown (run rlresources lint)")
        return EXIT_FINDINGS
    return EXIT_OK
