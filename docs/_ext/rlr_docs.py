"""Directives for this project's own docs: tables generated from the code itself.

The data-format page draws its field table from the packaged JSON Schema, the checks
page lists the warning subtypes from the ``Subtype`` enum and the configuration page
lists ``core.settings.CONF_SETTINGS``, so the docs cannot drift from what the package does.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective

from sphinx_rlresources.cli.main import build_parser, command_parsers
from sphinx_rlresources.core.diagnostics import Subtype
from sphinx_rlresources.core.settings import CONF_SETTINGS
from sphinx_rlresources.core.validation import schema
from sphinx_rlresources.estimator.architectures import BUNDLED
from sphinx_rlresources.estimator.devices import DEVICES, NODE_MEMORY
from sphinx_rlresources.scripts.frameworks import SETTINGS_TABLES, VOCABULARIES
from sphinx_rlresources.scripts.frameworks.vocabulary import FAMILIES

# benchmarks/, on the path from conf.py: the estimator's validation is dev-only code
from estimator_validation import CITATION, checked, distribution  # isort: skip
from suggest_validation import compared  # isort: skip
from suggest_validation import summary as suggest_summary  # isort: skip

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
MEMORY_POINTS = (
    "memory_points.csv",
    "measured_gpu.csv",
    "heldout_runs.csv",
    "heldout_runs2.csv",
    "heldout_runs3.csv",
    "heldout_runs4.csv",
    "heldout_runs5.csv",
)
"""The validation sets the docs may draw: published runs, the runs measured on a GPU, and the five
sets of published runs held out from every figure's tuning when they were gathered."""


def _table(headers: list[str], rows: list[list[nodes.Node | str]], widths: list[int]) -> nodes.table:
    table = nodes.table(classes=["colwidths-given", "rlr-docs-table"])  # wraps in every theme: _static/rlr-docs.css
    tgroup = nodes.tgroup(cols=len(headers))
    table += tgroup
    for width in widths:
        tgroup += nodes.colspec(colwidth=width)
    thead = nodes.thead()
    tgroup += thead
    row = nodes.row()
    for text in headers:
        row += nodes.entry("", nodes.paragraph(text, text))
    thead += row
    tbody = nodes.tbody()
    tgroup += tbody
    for cells in rows:
        row = nodes.row()
        for cell in cells:
            para = nodes.paragraph()
            para += _breakable(cell) if isinstance(cell, str) else cell
            row += nodes.entry("", para)
        tbody += row
    for literal in list(table.findall(nodes.literal)):
        text = literal.astext()
        literal.children = []
        literal += _breakable(text)
    return table


_BREAK_AFTER = re.compile(r"(?<=[/_])(?=[^\s/_])|(?<=\.)(?=[^\W\d_])")
"""Where a long name may break in a table cell: after ``/`` and ``_``, after a ``.`` before a
letter (``8gpu.log``, never ``2.5``), and every eight digits of a commit hash; never inside
a word or a number (``405,853,388,800``)."""


def _breakable(text: str) -> list[nodes.Node]:
    """``text`` with an HTML ``<wbr>`` where its long names may break (:data:`_BREAK_AFTER`).

    The reference tables keep every word whole (_static/rlr-docs.css), so a column is as
    wide as its longest word: a path, a log name or a commit hash would stretch the table
    past the text column. Other builders drop the raw nodes and read the text as it is.
    """
    parts: list[nodes.Node] = []
    for word in re.split(r"(\s+)", text):
        if re.fullmatch(r"[0-9a-f]{16,}[,;:.)]{0,3}", word):  # a commit hash (and its punctuation), in eights
            pieces = [word[start : start + 8] for start in range(0, len(word), 8)]
        elif len(word) > 14 and not re.fullmatch(r"[\d,.]+", word):
            pieces = _BREAK_AFTER.split(word)
        else:
            pieces = [word]
        for index, piece in enumerate(pieces):
            if index:
                parts.append(nodes.raw("", "<wbr>", format="html"))
            parts.append(nodes.Text(piece))
    return parts


def _literal(text: str) -> nodes.literal:
    return nodes.literal(text, text)


def _type_of(spec: dict[str, Any]) -> str:
    if "enum" in spec:
        return " or ".join(spec["enum"])
    if "oneOf" in spec:
        return "text or mapping"
    if "$ref" in spec:
        return "text"
    kind = spec.get("type", "")
    names = {"integer": "whole number", "string": "text", "null": "null", "array": "list", "object": "mapping"}
    if isinstance(kind, list):
        return " or ".join(names.get(k, k) for k in kind)
    return names.get(kind, kind)


class SchemaFields(SphinxDirective):
    """``.. rlr-schema-fields:: file|entry|contributor``: the fields of one level of the format."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        root = schema()
        level = self.arguments[0]
        if level == "file":
            spec = root
        elif level == "entry":
            spec = root["$defs"]["entry"]
        else:
            spec = root["$defs"]["entry"]["properties"]["contributor"]["oneOf"][1]
        required = set(spec.get("required", []))
        rows: list[list[nodes.Node | str]] = []
        for name, field in spec["properties"].items():
            example = field.get("examples", [None])[0]
            shown = json.dumps(example) if not isinstance(example, str) else example
            rows.append(
                [
                    _literal(name),
                    "required" if name in required else "optional",
                    _type_of(field),
                    field.get("description", ""),
                    _literal(shown) if "examples" in field else "",
                ]
            )
        return [_table(["Field", "", "Type", "Meaning", "Example"], rows, [14, 8, 12, 50, 24])]


class WarningSubtypes(SphinxDirective):
    """``.. rlr-warning-subtypes::``: every subtype the package can report."""

    def run(self) -> list[nodes.Node]:
        rows: list[list[nodes.Node | str]] = []
        for subtype in Subtype:
            # A :ref: to the subtype's own section, so that an undocumented subtype fails the -n build.
            ref = addnodes.pending_xref(
                "", refdomain="std", reftype="ref", reftarget=f"check-{subtype.value}", refexplicit=True, refwarn=True
            )
            ref += _literal(subtype.code)
            rows.append([ref, subtype.summary.replace("``", "")])
        return [_table(["Warning", "Reported when"], rows, [30, 70])]


class ConfigValues(SphinxDirective):
    """``.. rlr-config-values::``: every configuration value with its default."""

    def run(self) -> list[nodes.Node]:
        rows: list[list[nodes.Node | str]] = []
        for name, setting in CONF_SETTINGS.items():
            kinds = " or ".join("None" if t is type(None) else t.__name__ for t in setting.types)
            rows.append([_literal(name), _literal(repr(setting.default)), kinds, setting.doc.replace("``", "")])
        return [_table(["Name", "Default", "Type", "Meaning"], rows, [25, 15, 10, 50])]


class EstimatorModels(SphinxDirective):
    """``.. rlr-estimator-models::``: each bundled model's computed and published totals, and KV bytes."""

    def run(self) -> list[nodes.Node]:
        rows: list[list[nodes.Node | str]] = []
        for arch in BUNDLED.values():
            computed = arch.params()
            published = arch.published or 0
            same = "yes" if computed == published else f"no ({computed - published:+,})"
            active = f"{arch.params(active=True):,}" if arch.experts else ""
            kv = f"{arch.kv_bytes_per_token():,}"
            rows.append([arch.name, f"{computed:,}", f"{published:,}", same, active, kv])
        headers = ["Model", "Computed", "Published", "Equal", "Active per token", "KV bytes per token (bf16)"]
        return [_table(headers, rows, [18, 18, 18, 8, 16, 22])]


class Vocabularies(SphinxDirective):
    """``.. rlr-vocabularies::``: each adapter's algorithms as tasks, and the backend families, from the code."""

    def run(self) -> list[nodes.Node]:
        rows: list[list[nodes.Node | str]] = []
        seen: set[int] = set()
        for name, words in VOCABULARIES.items():
            if id(words) in seen:
                continue  # verl-recipe shares verl's words
            seen.add(id(words))
            for algorithm, tasks in words.tasks.items():
                rows.append([name, _literal(algorithm), tasks[0], ", ".join(tasks[1:])])
        table = _table(["Framework", "Algorithm as the script names it", "new writes", "Also accepted"], rows,
                       [18, 32, 22, 28])  # fmt: skip
        families: dict[str, list[str]] = {}
        for backend, family in FAMILIES.items():
            families.setdefault(family, []).append(backend)
        backends = _table(
            ["Family", "Backend names (a row's train, a script's backend)"],
            [[family, ", ".join(names)] for family, names in families.items()],
            [20, 80],
        )
        return [table, backends]


class FrameworkSettings(SphinxDirective):
    """``.. rlr-framework-settings:: verl``: the settings an adapter reads, from its own table.

    One row a setting: the :class:`~sphinx_rlresources.scripts.run.Run` field it fills (or
    the adapter's own name for a value it derives from), the spellings a script writes,
    older releases' spellings, the default assumed when none is written, and the upstream
    file and line that default follows.
    """

    required_arguments = 1
    final_argument_whitespace = True

    def run(self) -> list[nodes.Node]:
        table = SETTINGS_TABLES.get(self.arguments[0])
        if table is None:
            raise self.error(f"no settings table {self.arguments[0]!r}; known: {', '.join(SETTINGS_TABLES)}")
        rows: list[list[nodes.Node | str]] = []
        for name, setting in table.settings.items():
            rows.append(
                [
                    _literal(name),
                    _spellings(setting.keys),
                    _spellings(setting.old),
                    _default(setting.default),
                    setting.source or "",
                ]
            )
        headers = ["Setting", "Written as", "Older spelling", "Default", "Default follows"]
        return [_table(headers, rows, [18, 26, 18, 12, 26])]


def _spellings(keys: tuple[str, ...]) -> nodes.Node:
    inline = nodes.inline()
    for index, key in enumerate(keys):
        if index:
            inline += nodes.Text(", ")
        inline += _literal(key)
    return inline


def _default(value: object) -> nodes.Node | str:
    """None: no default is assumed (unknown unless written); JSON spells the rest as a config would."""
    if value is None:
        return "none"
    return _literal(value if isinstance(value, str) else json.dumps(value))


class EstimatorDevices(SphinxDirective):
    """``.. rlr-estimator-devices::``: the device table."""

    def run(self) -> list[nodes.Node]:
        rows: list[list[nodes.Node | str]] = [
            [name, f"{gib:.2f}", f"{NODE_MEMORY[name]:,.0f}" if name in NODE_MEMORY else ""]
            for name, gib in DEVICES.items()
        ]
        return [_table(["Device", "Memory as reported (GiB)", "Host memory per node (GiB)"], rows, [30, 35, 35])]


def _validation_set(directive: SphinxDirective, name_of: str) -> Path | nodes.Node:
    """The set a directive names (``memory_points.csv`` when it names none), noted as a dependency,
    or the error node that says which sets there are."""
    name = directive.arguments[0] if directive.arguments else MEMORY_POINTS[0]
    if name not in MEMORY_POINTS:
        message = f"{name_of}: no validation set '{name}'; the sets are {', '.join(MEMORY_POINTS)}"
        return directive.state.document.reporter.error(message, line=directive.lineno)
    directive.env.note_dependency(str(BENCHMARKS / name))
    return BENCHMARKS / name


class MemoryPoints(SphinxDirective):
    """``.. rlr-memory-points:: [FILE]``: a validation set under benchmarks/, estimated now, so the table cannot drift.

    FILE is one of :data:`MEMORY_POINTS` (``memory_points.csv`` by default).  ``:measured:``
    draws the runs with a measured figure (measured, floor, expected, ratio); without it,
    the runs known only by their outcome (ran or out of memory).  ``:summary:`` draws the
    set's counts alone, one sentence, for a page that quotes them.
    """

    optional_arguments = 1
    option_spec = {"measured": directives.flag, "summary": directives.flag}  # noqa: RUF012 - docutils' own spelling

    def run(self) -> list[nodes.Node]:
        path = _validation_set(self, "rlr-memory-points")
        if isinstance(path, nodes.Node):
            return [path]
        rows = checked(path)
        if "summary" in self.options:
            return [self.summary(rows)]
        if "measured" in self.options:
            return self.measured(rows)
        table: list[list[nodes.Node | str]] = [
            [c.point.id, c.point.outcome, f"{c.result.plan.gpus}*{c.result.plan.device}", f"{c.floor_gib:.1f}",
             f"{c.expected_gib:.1f}", f"{c.expected_gib / c.result.plan.device_gib:.2f}", c.result.verdict,
             c.point.citation]
            for c in rows if c.point.measured_gib is None
        ]  # fmt: skip
        headers = ["Run", "Outcome", "GPUs", "Floor (GiB)", "Expected (GiB)", "Expected / device", "Verdict", "Source"]
        return [_table(headers, table, [20, 7, 9, 7, 8, 8, 10, 31]), self.outcomes(rows)]

    @staticmethod
    def outcomes(rows: list[Any]) -> nodes.paragraph:
        """The verdicts against the outcomes: what the margin of ``likely-oom`` was chosen on."""
        known = [c for c in rows if c.point.measured_gib is None]
        ran = [c for c in known if c.point.outcome == "ran"]
        oom = [c for c in known if c.point.outcome == "oom"]
        flagged = ("likely-oom", "does-not-fit")
        text = (
            f"Of the {len(ran)} runs above that ran, {sum(c.result.verdict == 'does-not-fit' for c in ran)} are "
            f"called does-not-fit and {sum(c.result.verdict == 'likely-oom' for c in ran)} likely-oom; of the "
            f"{len(oom)} that ran out of memory, {sum(c.result.verdict in flagged for c in oom)} are called "
            "likely-oom or does-not-fit."
        )
        return nodes.paragraph(text, text)

    def measured(self, rows: list[Any]) -> list[nodes.Node]:
        measured = [c for c in rows if c.point.measured_gib is not None]
        # What every row shares (a set measured by one script: its counter, where it lives) is
        # said once, above the table; each row's cell keeps what differs (its commit).
        shared = [k for k in ("counter", *CITATION) if measured and len({c.point.values[k] for c in measured}) == 1]
        cited = [k for k in CITATION if k not in shared]
        one_commit = cited == ["commit"]
        columns: list[tuple[str, int, Callable[[Any], str]]] = [("Run", 34 if one_commit else 20, lambda c: c.point.id)]
        if "counter" not in shared:
            columns.append(("Counter", 10, lambda c: c.point.counter))
        columns += [
            ("Measured (GiB)", 8, lambda c: f"{c.point.measured_gib:.1f}"),
            ("Floor", 7, lambda c: f"{c.floor_gib:.1f}"),
            ("Expected", 8, lambda c: f"{c.expected_gib:.1f}"),
            ("Expected / measured", 9, lambda c: f"{c.ratio:.2f}"),
        ]
        if cited:
            columns.append(
                ("Commit" if one_commit else "Source", 18 if one_commit else 38,
                 lambda c: " ".join(c.point.values[k] for k in cited))
            )  # fmt: skip
        table: list[list[nodes.Node | str]] = [[cell(c) for _, _, cell in columns] for c in measured]
        drawn = _table([h for h, _, _ in columns], table, [w for _, w, _ in columns])
        said = "; ".join(f"{k} of every run: {measured[0].point.values[k]}" for k in shared)
        said = said[:1].upper() + said[1:]
        return [*([nodes.paragraph(said, said)] if said else []), drawn, self.summary(rows)]

    @staticmethod
    def summary(rows: list[Any]) -> nodes.paragraph:
        spread = distribution(rows)
        ran = [c for c in rows if c.point.outcome == "ran"]
        oom = [c for c in rows if c.point.outcome == "oom"]
        above = sum(c.floor_gib > (c.point.measured_gib or 1e9) for c in rows)
        text = (
            f"{len(rows)} runs; of the {len(ran)} that ran, {sum(c.result.verdict == 'does-not-fit' for c in ran)} "
            f"are called does-not-fit and {sum(c.result.verdict == 'likely-oom' for c in ran)} likely-oom; "
            f"{above} floors are above their measured figure"
        )
        if oom:
            flagged = sum(c.result.verdict in ("likely-oom", "does-not-fit") for c in oom)
            text += f"; of the {len(oom)} that ran out of memory, {flagged} are called likely-oom or does-not-fit"
        if spread["points"]:
            text += (
                f". Expected over measured for the {spread['points']} measured points: median "
                f"{spread['median']:.2f}, quartiles {spread['q1']:.2f} and {spread['q3']:.2f}, from "
                f"{spread['min']:.2f} to {spread['max']:.2f}; {spread['within_30_percent']:.0%} within 30%"
            )
        return nodes.paragraph(text + ".", text + ".")


class SuggestPoints(SphinxDirective):
    """``.. rlr-suggest-points:: [FILE]``: ``estimate --suggest`` beside the published runs of a set, now.

    The same comparison as ``benchmarks/suggest_validation.py``: the batch each run ran (or
    failed) with, the batch the suggestion gives on its GPUs, and whether the two agree.
    FILE is one of :data:`MEMORY_POINTS` (``memory_points.csv`` by default).
    ``:summary:`` draws the counts alone.
    """

    optional_arguments = 1
    option_spec = {"summary": directives.flag}  # noqa: RUF012 - docutils' own spelling

    def run(self) -> list[nodes.Node]:
        path = _validation_set(self, "rlr-suggest-points")
        if isinstance(path, nodes.Node):
            return [path]
        rows = compared(path)
        text = suggest_summary(rows)
        if "summary" in self.options:
            return [nodes.paragraph(text, text)]
        table: list[list[nodes.Node | str]] = [
            [r.checked.point.id, r.checked.point.outcome, r.setting, str(r.ran_with),
             "nothing fits" if r.suggested is None else str(r.suggested),
             f"{r.suggestion.plan.gpus}*{r.checked.result.plan.device}" if r.suggestion else "",
             "yes" if r.kept else "no"]
            for r in rows
        ]  # fmt: skip
        headers = ["Run", "Outcome", "Setting", "Ran (or failed) with", "Suggested", "On", "Agrees"]
        return [nodes.paragraph(text, text), _table(headers, table, [26, 7, 16, 8, 8, 9, 6])]


HELP_WIDTH = 80
"""The terminal width the docs show ``--help`` at, whatever the width of the terminal building them."""


@contextmanager
def _columns(width: int) -> Iterator[None]:
    """argparse wraps help at the terminal's width, which it reads from ``COLUMNS``."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width + 2)  # argparse keeps two columns free
    try:
        yield
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


class CliHelp(SphinxDirective):
    """``.. rlr-cli-help:: [COMMAND | *]``: the ``--help`` of the command line, generated from its parser.

    No argument: ``rlresources --help``.  A command: its ``--help``.  ``*``: the help of
    every command not shown yet on this page, each under its name, so a new command is
    documented the moment it is added to the parser; its own section can follow.  The
    text cannot drift from what the command prints.
    """

    optional_arguments = 1

    def run(self) -> list[nodes.Node]:
        parser = build_parser()
        commands = command_parsers(parser)
        shown: set[str] = self.env.temp_data.setdefault("rlr-cli-help", set())
        wanted = self.arguments[0] if self.arguments else ""
        if wanted == "*":
            result: list[nodes.Node] = []
            for name, command in commands.items():
                if name not in shown:
                    shown.add(name)
                    result.append(nodes.rubric(f"rlresources {name}", f"rlresources {name}"))
                    result.append(self._block(command, f"rlresources {name} --help"))
            return result or [nodes.paragraph("", "Every command has its section above.")]
        if wanted and wanted not in commands:
            message = f"rlr-cli-help: no command '{wanted}'; the commands are {', '.join(commands)}"
            return [self.state.document.reporter.error(message, line=self.lineno)]
        shown.add(wanted)
        return [self._block(commands[wanted] if wanted else parser, f"rlresources {wanted} --help".replace("  ", " "))]

    @staticmethod
    def _block(parser: Any, typed: str) -> nodes.literal_block:
        with _columns(HELP_WIDTH):
            text = f"$ {typed}\n{parser.format_help().rstrip()}"
        block = nodes.literal_block(text, text, language="console")
        return block


def setup(app: Sphinx) -> dict[str, Any]:
    try:  # Sphinx 7.4+ has confval built in; older versions need it declared
        app.add_object_type("confval", "confval", "pair: %s; configuration value")
    except ExtensionError:
        pass
    app.add_directive("rlr-schema-fields", SchemaFields)
    app.add_directive("rlr-warning-subtypes", WarningSubtypes)
    app.add_directive("rlr-config-values", ConfigValues)
    app.add_directive("rlr-estimator-models", EstimatorModels)
    app.add_directive("rlr-estimator-devices", EstimatorDevices)
    app.add_directive("rlr-memory-points", MemoryPoints)
    app.add_directive("rlr-suggest-points", SuggestPoints)
    app.add_directive("rlr-cli-help", CliHelp)
    app.add_directive("rlr-vocabularies", Vocabularies)
    app.add_directive("rlr-framework-settings", FrameworkSettings)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
