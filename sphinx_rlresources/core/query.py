"""The one answer to "which rows, in which columns, in which order": every front end asks here.

The table, chart and coverage directives, the ``rl-last-updated`` role, the JSON export
and ``rlresources render`` all pass their arguments and options to :func:`select` and
draw what comes back.  Problems come back as values, not messages: each front end
words them for its reader (``:columns: ...`` under a directive, ``--columns ...`` on the
command line), while what counts as a problem is decided once, here.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from sphinx_rlresources.core import columns as cols
from sphinx_rlresources.core.model import DataSet, Entry, SizeData
from sphinx_rlresources.safe.sizes import size_key, size_order
from sphinx_rlresources.safe.text import shown

EVERY_SIZE = ("all", "*")
"""The size arguments that mean every data file (``all`` as documented, ``*`` as a shorthand)."""


@dataclass(frozen=True)
class OptionProblem:
    """An option value that names nothing; ``message`` follows the option's name."""

    option: str
    message: str

    def for_directive(self) -> str:
        return f":{self.option}: {self.message}"

    def for_command_line(self) -> str:
        return f"--{self.option} {self.message}"


@dataclass(frozen=True)
class UnknownSize:
    """A size argument with no data file, the sizes there are, and the nearest of them."""

    wanted: str
    known: tuple[str, ...]
    closest: str | None
    folder: str
    """The data folder, as the reader set it (relative to the repository root when inside it)."""

    @property
    def message(self) -> str:
        """The one sentence the build and ``sync`` both print (the directive adds its location)."""
        if not self.known:
            return (
                f"unknown size {shown(self.wanted)}: the data folder {shown(self.folder)} has no data files; "
                "check the data setting (rlresources_data, or data in [tool.rlresources]) or import a page"
            )
        near = f"did you mean '{self.closest}'? The known" if self.closest else "the known"
        return (
            f"unknown size {shown(self.wanted)}; {near} sizes are: {', '.join(self.known)} "
            "(a size is known when the data folder has its file)"
        )


@dataclass
class Selection:
    """What a front end draws: the sizes, their readable rows (filtered, sorted) and the columns."""

    sizes: list[SizeData] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    every_size: bool = False
    filters: dict[str, set[str]] = field(default_factory=dict)
    """Option -> the lower-cased values kept; empty when no filter option was given."""
    problems: list[OptionProblem] = field(default_factory=list)
    unknown: UnknownSize | None = None

    @property
    def unreadable(self) -> list[SizeData]:
        return [s for s in self.sizes if not s.readable]

    @property
    def label(self) -> str | None:
        """The one size's label, or None when several (or every) size is drawn."""
        return self.sizes[0].label if len(self.sizes) == 1 and not self.every_size else None


SUGGEST_CHARS = 64
"""The longest size argument a suggestion is looked for: a longer one is no size mistyped."""


def _count(label: str) -> float | None:
    """A size's parameter count when it is a positive, finite number (``0B`` and 400 digits are not)."""
    order = size_order(label)
    return order[1] if order[0] == 0 and 0 < order[1] < math.inf else None


def closest_size(wanted: str, labels: list[str]) -> str | None:
    """The known size nearest to ``wanted``: by parameter count, else by spelling.

    Sizes compare by the ratio of their counts, so only positive, finite counts take part:
    a label of ``0B`` or of hundreds of digits (a marker, a command's argument) has none.
    """
    if len(wanted) > SUGGEST_CHARS:
        return None
    count = _count(wanted)
    numeric = [(found, label) for label in labels if (found := _count(label)) is not None]
    if count is not None and numeric:
        return min(numeric, key=lambda item: abs(math.log(item[0] / count)))[1]
    close = difflib.get_close_matches(wanted, labels, n=1, cutoff=0.4)
    return close[0] if close else None


def resolve_size(dataset: DataSet, wanted: str) -> tuple[list[SizeData], UnknownSize | None]:
    """The sizes a size argument names: every one for ``all``/``*``, else the one, else none."""
    if wanted.strip().lower() in EVERY_SIZE:
        return list(dataset.sizes.values()), None
    found = dataset.sizes.get(size_key(wanted))
    if found is not None:
        return [found], None
    labels = [s.label for s in dataset.sizes.values()]
    try:
        folder = dataset.data_dir.relative_to(dataset.root).as_posix()
    except ValueError:
        folder = dataset.data_dir.as_posix()
    return [], UnknownSize(wanted.strip(), tuple(labels), closest_size(wanted.strip(), labels), folder)


def choose_sizes(dataset: DataSet, spec: str | None) -> tuple[list[SizeData], list[OptionProblem]]:
    """A ``:sizes:`` comma list: the named sizes in size order, or every size when none is known."""
    everything = list(dataset.sizes.values())
    if spec is None:
        return everything, []
    wanted: set[str] = set()
    problems = []
    known = ", ".join(s.label for s in everything) or "(none yet)"
    for value in cols.split_list(spec):
        if size_key(value) in dataset.sizes:
            wanted.add(size_key(value))
        else:
            problems.append(
                OptionProblem("sizes", f"names '{value}', which has no data file; the known sizes are: {known}")
            )
    return [s for s in everything if s.key in wanted] or everything, problems


def choose_columns(spec: str | None, default: tuple[str, ...]) -> tuple[list[str], list[OptionProblem]]:
    """A ``:columns:`` comma list as column keys (aliases allowed), or ``default``."""
    if not spec:
        return list(default), []
    chosen: list[str] = []
    problems = []
    for name in cols.split_list(spec):
        key = cols.column_key(name)
        if key is None:
            problems.append(
                OptionProblem(
                    "columns",
                    f"names no column '{name}'; {cols.near_column(name)} columns are: {', '.join(cols.COLUMNS)}",
                )
            )
        elif key not in chosen:
            chosen.append(key)
    return chosen or list(default), problems


def choose_sort(spec: str | None) -> tuple[list[tuple[str, bool]], list[OptionProblem]]:
    """A ``:sort:`` comma list as (column, descending) pairs; ``-`` before a name sorts descending."""
    keys = []
    problems = []
    for name in cols.split_list(spec or ""):
        key = cols.column_key(name.lstrip("-+"))
        if key is None:
            problems.append(
                OptionProblem(
                    "sort",
                    f"names no column '{name}'; {cols.near_column(name.lstrip('-+'))} columns are: "
                    f"{', '.join(cols.COLUMNS)} "
                    "(prefix one with '-' to sort descending)",
                )
            )
            continue
        keys.append((key, name.startswith("-")))
    return keys, problems


def choose_filters(dataset: DataSet, options: Mapping[str, str]) -> tuple[dict[str, set[str]], list[OptionProblem]]:
    """The filter options given (``:tasks:``, ``:devices:``, ...) as lower-cased value sets."""
    wanted: dict[str, set[str]] = {}
    problems = []
    everything = dataset.entries
    for option in cols.FILTERS:
        if option not in options:
            continue
        valid = cols.vocabulary(everything, option)
        lowered = {v.lower() for v in valid}
        values = set()
        for value in cols.split_list(options[option]):
            if value.lower() in lowered:
                values.add(value.lower())
            else:
                problems.append(
                    OptionProblem(
                        option,
                        f"names '{value}', which no row has; the valid values are: "
                        f"{', '.join(valid) if valid else '(none yet)'}",
                    )
                )
        wanted[option] = values
    return wanted, problems


def select(
    dataset: DataSet,
    size: str | None = None,
    *,
    sizes: str | None = None,
    columns: str | None = None,
    sort: str | None = None,
    filters: Mapping[str, str] | None = None,
) -> Selection:
    """The rows one table, chart, role or export shows.

    ``size`` is a directive's argument (``70B``, ``all`` or ``*``); None means every size,
    narrowed by ``sizes`` (a ``:sizes:`` option).  Drawing every size adds the Size column
    to the default columns.  An unknown ``size`` gives an empty selection with ``unknown``.
    """
    result = Selection()
    if size is None:
        result.sizes, result.problems = choose_sizes(dataset, sizes)
        result.every_size = True
    else:
        result.sizes, result.unknown = resolve_size(dataset, size)
        result.every_size = size.strip().lower() in EVERY_SIZE
        if result.unknown is not None:
            return result
    default = ("size", *cols.DEFAULT_COLUMNS) if result.every_size else cols.DEFAULT_COLUMNS
    result.columns, problems = choose_columns(columns, default)
    result.problems += problems
    keys, problems = choose_sort(sort)
    result.problems += problems
    result.filters, problems = choose_filters(dataset, filters or {})
    result.problems += problems
    entries = [e for s in result.sizes if s.readable for e in s.entries]
    result.entries = cols.sort_entries(cols.apply_filters(entries, result.filters), keys, cols.CellContext(dataset))
    return result
