"""The table's columns and how rows are filtered and sorted.

A :class:`Column` is the whole contract of a cell: for a row (and the data set, for
computed and linked cells) it gives the text, the sort key, the link and its title.
The table, ``rlresources render`` and ``sync``, the JSON export and the chart only
translate :class:`Cell` values into nodes or markup; so a new column is one entry in
:data:`COLUMNS`, and no front end can show a cell another one does not.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from sphinx_rlresources.core.model import PARALLELISM_KEYS, DataSet, Entry, RowEstimate
from sphinx_rlresources.core.richtext import Run, plain_text, runs
from sphinx_rlresources.core.urls import row_script_url, safe_relative, safe_url, script_url
from sphinx_rlresources.safe.sizes import size_order
from sphinx_rlresources.safe.text import visible


@dataclass(frozen=True)
class CellContext:
    """What a cell may need beyond its row: the data set (estimates, which scripts exist) and the Link template.

    Without a data set (a row drawn on its own) nothing computed is shown and every
    script is taken to exist; the build and the commands always pass one.
    """

    dataset: DataSet | None = None
    script_url: str | None = None
    script_ref: str = "main"
    link_from: str | None = None
    """The folder (from the root) of the Markdown file being written, whose Link cells link the
    repository's scripts relatively (``sync --relative-links``); None: only absolute links."""

    def estimate(self, entry: Entry) -> RowEstimate | None:
        return None if self.dataset is None else self.dataset.estimates.get(entry.source)


class Cell(NamedTuple):
    """One column's answer for one row, which each front end only translates into nodes or markup.

    ``text`` has every unseen character shown as its code point and ``url`` passed the
    one URL policy, so no front end can forget either.  (A named tuple: a table of
    2,000 rows makes tens of thousands of them.)
    """

    text: str
    url: str | None = None
    title: str | None = None
    """The link's hover text, for front ends whose links carry one (HTML, Markdown)."""
    file: Path | None = None
    """A checked file inside the root that the cell names, for a front end that can publish
    it when there is no ``url`` (the Sphinx build links it as a download)."""
    runs: tuple[Run, ...] = ()
    """For a cell whose text holds several links (a description): the text as plain and
    linked runs, whose texts join to ``text``; each front end draws them, none re-parses."""


@dataclass(frozen=True)
class Hover:
    """A column's place in a row's one-line summary (the chart's hover text): its rank and wording."""

    rank: int
    template: str = "{}"


Get = Callable[[Entry, CellContext], Any]


def _nothing(entry: Entry, context: CellContext) -> None:
    return None


@dataclass(frozen=True)
class Column:
    """The whole contract of a column: its header, and for each row its text, sort key and link.

    ``sort_key`` returns None for a row without a value, which sorts last in either
    direction.  ``url`` may return anything: :meth:`cell` keeps only what
    :func:`~sphinx_rlresources.core.urls.safe_url` allows.
    """

    key: str
    header: str
    text: Callable[[Entry, CellContext], str]
    sort_key: Get
    url: Callable[[Entry, CellContext], str | None] = _nothing
    title: Callable[[Entry, CellContext], str | None] = _nothing
    file: Callable[[Entry, CellContext], Path | None] = _nothing
    hover: Hover | None = field(default=None)
    runs: Callable[[Entry, CellContext], tuple[Run, ...]] | None = None

    def cell(self, entry: Entry, context: CellContext) -> Cell:
        text = visible(self.text(entry, context))  # the loader refused these already: defence in depth
        if not text:  # nothing to click: no link, no title, no file
            return Cell(text)
        title = self.title(entry, context)
        url = self.url(entry, context)
        return Cell(
            text,
            safe_url(url) or (safe_relative(url) if context.link_from is not None else None),
            None if title is None else visible(title),
            self.file(entry, context),
            () if self.runs is None else self._runs(self.runs(entry, context)),  # no call for a plain column
        )

    @staticmethod
    def _runs(found: tuple[Run, ...]) -> tuple[Run, ...]:
        """The linked runs, when any of them is a link."""
        if not any(run.url for run in found):
            return ()
        return tuple(Run(visible(run.text), safe_url(run.url)) for run in found)


#: A verdict and the words an estimate cell says it with (never colour alone).
VERDICT_WORDS = {"tight": "tight", "likely-oom": "likely OOM", "does-not-fit": "does not fit"}


def estimate_text(found: RowEstimate | None) -> str:
    """The ``estimate`` column's cell: both figures, named, the trainer's and the engine's part, and
    the verdict when it is not "fits".

    ``floor 4.1, expected 38 GiB/GPU``: a lone lower bound (``≥ 4.1 GiB/GPU``) was read
    as what a 70B run needs; the expected peak beside it is the figure to plan with.  The
    engine's claim is a setting (vLLM's ``gpu_memory_utilization`` of the device) and is
    often the peak: every row of a page at 0.6 read 48 GiB, a 1B model like a 32B one, so
    the trainer's own peak is said apart (``trainer 3.1, engine 48``).
    """
    if found is None:
        return ""
    text = (
        f"floor {_gib(found.floor_gib)}, expected {_gib(found.expected_gib)} GiB/GPU "
        f"(trainer {_gib(found.trainer_gib)}, engine {_gib(found.engine_gib)})"
    )
    said = VERDICT_WORDS.get(found.verdict)
    return f"{text}, {said}" if said else text


def _gib(value: float) -> str:
    return f"{value:.1f}" if value < 10 else f"{value:.0f}"


def _estimate_key(entry: Entry, context: CellContext) -> float | None:
    found = context.estimate(entry)
    return None if found is None else found.floor_gib


def number_text(value: float | None, unit: str = "") -> str:
    """A measured figure as readers write it: ``42`` not ``42.0``, at most two decimals (``1520.5``)."""
    if value is None:
        return ""
    shown = str(int(value)) if float(value).is_integer() else f"{value:.2f}".rstrip("0")
    return f"{shown} {unit}" if unit else shown


def seq_len_text(entry: Entry) -> str:
    """``prompt 1024, response 3072``: every length named, so a prompt limit is never read as the whole sequence."""
    return ", ".join(f"{name} {value}" for name, value in entry.seq_len)


def _seq_len_key(entry: Entry, _context: CellContext) -> int | None:
    """The whole sequence: ``max`` when given, else prompt plus response."""
    given = dict(entry.seq_len)
    return given.get("max") or (given.get("prompt", 0) + given.get("response", 0)) or None


def parallelism_text(entry: Entry) -> str:
    """``TP4 PP2 CP1 EP8``, the degrees the row gives, in that order, as frameworks write them."""
    return " ".join(f"{name.upper()}{value}" for name, value in entry.parallelism)


def _parallelism_key(entry: Entry, _context: CellContext) -> tuple[int, ...] | None:
    if not entry.parallelism:
        return None
    given = dict(entry.parallelism)
    return tuple(given.get(name, 1) for name in PARALLELISM_KEYS)


def _logs_text(entry: Entry, _context: CellContext) -> str:
    """The evidence link, short: its host (``wandb.ai``), for a narrow column."""
    url = safe_url(entry.evidence)
    return "" if url is None else urlsplit(url).hostname or ""


def _description_runs(entry: Entry, _context: CellContext) -> tuple[Run, ...]:
    return runs(entry.description) if entry.description else ()


def _script_url(entry: Entry, context: CellContext) -> str | None:
    if context.dataset is None:
        return script_url(context.script_url, entry.script_ref or context.script_ref, entry.script)
    return row_script_url(context.dataset, entry, context.script_url, context.script_ref, context.link_from)


def _script_file(entry: Entry, context: CellContext) -> Path | None:
    return None if context.dataset is None else context.dataset.scripts.get(entry.script)


COLUMNS: dict[str, Column] = {
    c.key: c
    for c in [
        Column("size", "Size", lambda e, _: e.size, lambda e, _: size_order(e.size), hover=Hover(0)),
        Column("tag", "Tag", lambda e, _: e.tag, lambda e, _: (e.tag != "MIN", e.tag), hover=Hover(1)),
        Column("model", "Model", lambda e, _: e.model, lambda e, _: e.model.lower(), hover=Hover(2)),
        Column("task", "Task", lambda e, _: e.task, lambda e, _: e.task.lower(), hover=Hover(3)),
        Column(
            "resource",
            "Resource",
            lambda e, _: e.resource,
            lambda e, _: (e.gpus, e.device.lower()),
            hover=Hover(4),
        ),
        Column(
            "maxbatch",
            "MaxBatch",
            lambda e, _: "" if e.max_batch is None else str(e.max_batch),
            lambda e, _: e.max_batch,
            hover=Hover(7, "max batch {}"),
        ),
        Column("train", "Train", lambda e, _: e.train, lambda e, _: e.train.lower(), hover=Hover(5)),
        Column("infer", "Infer", lambda e, _: e.infer_label, lambda e, _: e.infer_label.lower(), hover=Hover(6)),
        Column(
            "link",
            "Link",
            lambda e, _: e.script_name,
            lambda e, _: e.script_name,
            url=_script_url,
            file=_script_file,
            hover=Hover(8),
        ),
        Column(
            "contributor",
            "Contributor",
            lambda e, _: e.contributor.name,
            lambda e, _: e.contributor.name.lower(),
            url=lambda e, _: e.contributor.link,
        ),
        Column("model_id", "Model ID", lambda e, _: e.model_id or "", lambda e, _: e.model_id),
        Column("tested", "Tested", lambda e, _: e.tested or "", lambda e, _: e.tested),
        Column(
            "evidence", "Evidence", lambda e, _: e.evidence or "", lambda e, _: e.evidence, url=lambda e, _: e.evidence
        ),
        Column("notes", "Notes", lambda e, _: e.notes or "", lambda e, _: e.notes),
        Column("estimate", "Estimate", lambda e, c: estimate_text(c.estimate(e)), _estimate_key),
        Column("seq_len", "Seq len", lambda e, _: seq_len_text(e), _seq_len_key),
        Column(
            "global_batch",
            "Global batch",
            lambda e, _: "" if e.global_batch is None else str(e.global_batch),
            lambda e, _: e.global_batch,
        ),
        Column("parallelism", "Parallelism", lambda e, _: parallelism_text(e), _parallelism_key),
        Column("throughput", "Tokens/s/GPU", lambda e, _: number_text(e.throughput), lambda e, _: e.throughput),
        Column("step_time", "Step time", lambda e, _: number_text(e.step_time, "s"), lambda e, _: e.step_time),
        Column(
            "peak_memory", "Peak memory", lambda e, _: number_text(e.peak_memory, "GiB"), lambda e, _: e.peak_memory
        ),
        Column("logs", "Logs", _logs_text, lambda e, _: e.evidence, url=lambda e, _: e.evidence),
        Column(
            "description",
            "Description",
            lambda e, _: plain_text(e.description) if e.description else "",
            lambda e, _: e.description.lower() if e.description else None,
            runs=_description_runs,
        ),
    ]
}
"""Every column, in the order option messages list them; a new column is one entry here."""

DEFAULT_COLUMNS = ("tag", "model", "task", "resource", "maxbatch", "train", "infer", "link", "contributor")
ALIASES = {"max_batch": "maxbatch", "gpus": "resource", "script": "link", "modelid": "model_id"}

FILTERS: dict[str, Callable[[Entry], str]] = {
    "tags": lambda e: e.tag,
    "tasks": lambda e: e.task,
    "devices": lambda e: e.device,
    "trains": lambda e: e.train,
    "infers": lambda e: e.infer,
}
"""Directive option name -> the row value it filters on (compared case-insensitively)."""


def column_key(name: str) -> str | None:
    """The column a user-written name means (``MaxBatch``, ``max_batch``), or None."""
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key in COLUMNS:
        return key
    # or its header as the table shows it (``Model ID``), read each time so a column added later counts
    return next((k for k, column in COLUMNS.items() if column.header.lower() == key), None)


def near_column(name: str) -> str:
    """``did you mean 'maxbatch'? The``-style words for a name that is no column, or ``the``.

    Compared with the keys and their aliases (each is accepted as written), so a typo
    in ``--columns`` or ``:columns:`` is answered with a name that works.
    """
    close = difflib.get_close_matches(name.strip().lower(), [*COLUMNS, *ALIASES], n=1, cutoff=0.75)
    return f"did you mean '{close[0]}'? The" if close else "the"


def split_list(value: str) -> list[str]:
    """A comma (or whitespace) separated option value, blanks dropped."""
    return [part.strip() for part in value.replace(",", " ").split() if part.strip()]


def vocabulary(entries: Iterable[Entry], option: str) -> list[str]:
    """The values an option may name: tags are fixed, the rest are what the data holds."""
    if option == "tags":
        return ["MIN", "RECOMMENDED"]
    get = FILTERS[option]
    return sorted({get(e) for e in entries}, key=str.lower)


def apply_filters(entries: Sequence[Entry], wanted: dict[str, set[str]]) -> list[Entry]:
    """Keep the rows whose value for every given option is one of the wanted ones."""
    return [e for e in entries if all(FILTERS[opt](e).lower() in values for opt, values in wanted.items())]


def sort_entries(
    entries: Sequence[Entry], keys: Sequence[tuple[str, bool]], context: CellContext | None = None
) -> list[Entry]:
    """Stable sort by (column, descending) pairs; the first pair decides first.

    Rows whose sort key is None (no value: not measured, no estimate) go last in
    either direction, where a plain reversed sort would put them first.
    """
    context = context or CellContext()
    result = list(entries)
    for key, descending in reversed(keys):
        get = COLUMNS[key].sort_key
        pairs = [(get(e, context), e) for e in result]
        known = [pair for pair in pairs if pair[0] is not None]
        known.sort(key=lambda pair: pair[0], reverse=descending)
        result = [e for _, e in known] + [e for value, e in pairs if value is None]
    return result


def summary(entry: Entry, context: CellContext) -> str:
    """A row on one line, as the chart's hover text shows it: the hover columns' cells, in rank order."""
    ranked = sorted(
        ((c.hover.rank, index, c.hover.template, c) for index, c in enumerate(COLUMNS.values()) if c.hover),
        key=lambda item: item[:2],
    )
    texts = ((template, column.cell(entry, context).text) for _rank, _index, template, column in ranked)
    return " · ".join(template.format(text) for template, text in texts if text)
