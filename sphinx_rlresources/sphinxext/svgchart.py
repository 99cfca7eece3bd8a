"""The landscape chart: GPUs needed per model size and task, drawn as SVG text.

Written by hand rather than with a plotting library: the chart is a few dozen marks
on fixed axes, so string building takes well under a millisecond where importing a
plotting library takes a large part of a second on every build; the package keeps its
four small dependencies; and the output is plain, small SVG (text stays text,
colours inherit the theme through ``currentColor``) whose bytes depend on the data
alone, which a plotting library's ids, font embedding and metadata make hard.

Every text from the data is escaped here, for text nodes and attribute values alike:
the data files are untrusted and this SVG is written into the page as is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape

from sphinx_rlresources.core.columns import CellContext, summary
from sphinx_rlresources.core.model import Entry

# Colours chosen to read on white and on near-black backgrounds (contrast >= 3:1 on both).
MIN_COLOUR = "#3b82f6"
RECOMMENDED_COLOUR = "#f97316"

SLOT = 64  # horizontal room per size
LEFT = 72  # room for the GPU tick labels and the axis title
RIGHT = 16
TOP = 40  # room for the legend
STEP = 20  # vertical room per doubling of GPUs
PANEL_GAP = 30  # room for a panel's task heading
BOTTOM = 46  # room for the size labels and the axis title
SPREAD = 11  # horizontal offset between marks that would sit on each other
FONT_SIZE = 12
# On a phone the chart shrinks with the column; below 3/4 of its size its 12-unit text
# would fall under 9 pixels, so it stops there and its figure scrolls sideways instead.
SMALLEST_SCALE = 0.75


@dataclass(frozen=True)
class ChartText:
    """The chart's own words, translated by the caller."""

    title: str = "Minimum GPUs per model size and task"
    gpus_axis: str = "GPUs (log scale)"
    size_axis: str = "Model size"
    description: str = "One mark per verified configuration: circles are MIN, diamonds RECOMMENDED."
    no_rows: str = "no verified configuration"
    estimated: str = "estimated, not measured"
    estimated_description: str = (
        "Hollow dashed circles are estimates, not measurements: the fewest GPUs the estimator allows "
        "for a size nobody has measured."
    )


@dataclass(frozen=True)
class Estimated:
    """The fewest GPUs an ``rl-resource-estimate`` block printed for one model, task and device."""

    size: str
    model: str
    task: str
    device: str
    gpus: int


@dataclass
class Panel:
    task: str
    entries: list[Entry] = field(default_factory=list)
    estimates: list[Estimated] = field(default_factory=list)


def clean(text: str) -> str:
    """Escape for XML text and attributes, dropping characters XML 1.0 cannot hold."""
    kept = "".join(c for c in text if c in "\t\n" or (ord(c) >= 0x20 and not 0xD800 <= ord(c) <= 0xDFFF))
    return escape(kept, quote=True)


def panels(entries: Sequence[Entry], estimates: Sequence[Estimated] = ()) -> list[Panel]:
    """One panel per task (case-insensitive), in alphabetical order; an estimated task no row has gets one too."""
    found: dict[str, Panel] = {}
    for entry in entries:
        found.setdefault(entry.task.lower(), Panel(entry.task)).entries.append(entry)
    for estimate in estimates:
        found.setdefault(estimate.task.lower(), Panel(estimate.task)).estimates.append(estimate)
    return [found[key] for key in sorted(found)]


def doublings(entries: Sequence[Entry], estimates: Sequence[Estimated] = ()) -> int:
    """How many doublings the GPU axis spans: up to the next power of two, at least 8 GPUs."""
    most = max([e.gpus for e in entries] + [e.gpus for e in estimates], default=1)
    return max(3, math.ceil(math.log2(most)))


def _num(value: float) -> str:
    """Coordinates with one decimal and no trailing ``.0``, so output is short and stable."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _mark(entry: Entry, x: float, y: float, context: CellContext) -> str:
    title = f"<title>{clean(summary(entry, context))}</title>"  # the row's cells, as the table shows them
    if entry.tag == "MIN":
        shape = (
            f'<circle cx="{_num(x)}" cy="{_num(y)}" r="5.5" fill="{MIN_COLOUR}" '
            'stroke="currentColor" stroke-width="0.75"/>'
        )
        kind = "rl-min"
    else:
        d = 6.5
        points = f"{_num(x)},{_num(y - d)} {_num(x + d)},{_num(y)} {_num(x)},{_num(y + d)} {_num(x - d)},{_num(y)}"
        shape = f'<polygon points="{points}" fill="{RECOMMENDED_COLOUR}" stroke="currentColor" stroke-width="0.75"/>'
        kind = "rl-recommended"
    return f'<g class="rl-mark {kind}">{title}{shape}</g>'


def render_svg(
    sizes: Sequence[str],
    entries: Sequence[Entry],
    text: ChartText | None = None,
    ident: str = "rl-chart",
    context: CellContext | None = None,
    estimates: Sequence[Estimated] = (),
) -> str:
    """The chart as one ``<svg>`` element.

    ``sizes`` are the size labels along the horizontal axis, in order (sizes without
    rows keep their place, so gaps in the data show); ``entries`` are the rows drawn.
    ``ident`` prefixes the element ids, which must be unique on the page; ``context``
    gives the cells of each mark's hover text what the table's cells get.
    """
    words = text or ChartText()
    estimates = [e for e in estimates if e.size.lower() in {label.lower() for label in sizes}]
    groups = panels(entries, estimates)
    span = doublings(entries, estimates)
    plot_height = span * STEP
    width = LEFT + SLOT * max(len(sizes), 1) + RIGHT
    panel_height = PANEL_GAP + plot_height + 12
    height = TOP + panel_height * max(len(groups), 1) + BOTTOM
    slot_of = {label.lower(): index for index, label in enumerate(sizes)}
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="rlresources-chart-svg" role="img" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'style="min-width: {math.ceil(width * SMALLEST_SCALE)}px" '
        f'font-family="inherit" font-size="{FONT_SIZE}" aria-labelledby="{ident}-title {ident}-desc">',
        f'<title id="{ident}-title">{clean(words.title)}</title>',
        f'<desc id="{ident}-desc">{clean(_description(words, estimates))}</desc>',
        '<g class="rl-legend" fill="currentColor">',
        _mark_legend(LEFT, 20, {e.tag for e in entries}, words.estimated if estimates else ""),
        "</g>",
    ]
    for index, panel in enumerate(groups or [Panel("")]):
        top = TOP + index * panel_height + PANEL_GAP
        out.append(f'<g class="rl-panel" data-task="{clean(panel.task)}">')
        out.append(
            f'<text x="{LEFT}" y="{top - 10}" font-weight="bold" fill="currentColor">'
            f"{clean(panel.task or words.no_rows)}</text>"
        )
        for power in range(span + 1):
            y = top + plot_height - power * STEP
            out.append(
                f'<line x1="{LEFT}" x2="{width - RIGHT}" y1="{y}" y2="{y}" stroke="currentColor" '
                f'stroke-opacity="{0.35 if power == 0 else 0.12}"/>'
            )
            out.append(f'<text x="{LEFT - 8}" y="{y + 4}" text-anchor="end" fill="currentColor">{2**power}</text>')
        out.append(_panel_marks(panel, slot_of, top, plot_height, span, context or CellContext()))
        for slot, gpus, found in fewest_estimated(panel, slot_of):
            mark_y = top + plot_height - math.log2(gpus) * STEP
            out.append(_estimated_mark(found, LEFT + SLOT * slot + SLOT / 2, mark_y, words))
        out.append("</g>")
    axis_y = TOP + panel_height * max(len(groups), 1)
    for index, label in enumerate(sizes):
        x = LEFT + SLOT * index + SLOT / 2
        out.append(
            f'<text x="{_num(x)}" y="{axis_y + 4}" text-anchor="middle" fill="currentColor">{clean(label)}</text>'
        )
    out.append(
        f'<text x="{_num(LEFT + SLOT * len(sizes) / 2)}" y="{axis_y + 30}" text-anchor="middle" '
        f'fill="currentColor">{clean(words.size_axis)}</text>'
    )
    middle = TOP + panel_height * max(len(groups), 1) / 2
    out.append(
        f'<text x="14" y="{_num(middle)}" text-anchor="middle" fill="currentColor" '
        f'transform="rotate(-90 14 {_num(middle)})">{clean(words.gpus_axis)}</text>'
    )
    out.append("</svg>")
    return "\n".join(out)


# The tall layout, for narrow screens: sizes down the side, GPUs along the top.
ROW = 24  # vertical room per size
TALL_WIDTH = 320  # what the plot aims at: a phone's text column, at scale 1
TALL_STEP = (18, 40)  # horizontal room per doubling of GPUs, at least and at most
TICKS = 18  # room for the GPU tick labels above each panel's plot
CHAR = 7.5  # the width of a size label's character, generously, at 12 units


def render_tall_svg(
    sizes: Sequence[str],
    entries: Sequence[Entry],
    text: ChartText | None = None,
    ident: str = "rl-chart-tall",
    context: CellContext | None = None,
    estimates: Sequence[Estimated] = (),
) -> str:
    """The same chart turned a quarter: every size on a line of its own, GPUs across.

    On a phone the wide chart would shrink below legible text or scroll with sizes out
    of view; this one grows downwards instead, so every size is on screen at full text
    size.  Same marks, same hover texts, same escaping as :func:`render_svg`.
    """
    words = text or ChartText()
    estimates = [e for e in estimates if e.size.lower() in {label.lower() for label in sizes}]
    groups = panels(entries, estimates)
    span = doublings(entries, estimates)
    left = 22 + math.ceil(CHAR * max((len(label) for label in sizes), default=4)) + 8
    step = max(TALL_STEP[0], min(TALL_STEP[1], (TALL_WIDTH - left - RIGHT) // span))
    width = left + step * span + RIGHT
    plot_height = ROW * max(len(sizes), 1)
    panel_height = PANEL_GAP + TICKS + plot_height + 10
    height = TOP + panel_height * max(len(groups), 1) + 30
    row_of = {label.lower(): index for index, label in enumerate(sizes)}
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="rlresources-chart-svg rlresources-chart-svg-tall" '
        f'role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'font-family="inherit" font-size="{FONT_SIZE}" aria-labelledby="{ident}-title {ident}-desc">',
        f'<title id="{ident}-title">{clean(words.title)}</title>',
        f'<desc id="{ident}-desc">{clean(_description(words, estimates))}</desc>',
        '<g class="rl-legend" fill="currentColor">',
        _mark_legend(left - 8, 20, {e.tag for e in entries}, words.estimated if estimates else "", wrap=True),
        "</g>",
    ]
    for index, panel in enumerate(groups or [Panel("")]):
        top = TOP + index * panel_height + PANEL_GAP
        plot_top = top + TICKS
        out.append(f'<g class="rl-panel" data-task="{clean(panel.task)}">')
        out.append(
            f'<text x="{left}" y="{top - 10}" font-weight="bold" fill="currentColor">'
            f"{clean(panel.task or words.no_rows)}</text>"
        )
        for power in range(span + 1):
            x = left + power * step
            out.append(
                f'<line x1="{x}" x2="{x}" y1="{plot_top}" y2="{plot_top + plot_height}" stroke="currentColor" '
                f'stroke-opacity="{0.35 if power == 0 else 0.12}"/>'
            )
            out.append(f'<text x="{x}" y="{plot_top - 5}" text-anchor="middle" fill="currentColor">{2**power}</text>')
        for row, label in enumerate(sizes):
            y = plot_top + ROW * row + ROW / 2
            out.append(
                f'<text class="rl-size" x="{left - 8}" y="{_num(y + 4)}" text-anchor="end" fill="currentColor">'
                f"{clean(label)}</text>"
            )
        out.append(_tall_marks(panel, row_of, left, plot_top, step, context or CellContext()))
        for row, gpus, found in fewest_estimated(panel, row_of):
            out.append(_estimated_mark(found, left + math.log2(gpus) * step, plot_top + ROW * row + ROW / 2, words))
        out.append("</g>")
    bottom = TOP + panel_height * max(len(groups), 1)
    out.append(
        f'<text x="{_num(left + step * span / 2)}" y="{bottom + 14}" text-anchor="middle" '
        f'fill="currentColor">{clean(words.gpus_axis)}</text>'
    )
    middle = TOP + panel_height * max(len(groups), 1) / 2
    out.append(
        f'<text x="12" y="{_num(middle)}" text-anchor="middle" fill="currentColor" '
        f'transform="rotate(-90 12 {_num(middle)})">{clean(words.size_axis)}</text>'
    )
    out.append("</svg>")
    return "\n".join(out)


def _tall_marks(panel: Panel, row_of: dict[str, int], left: int, top: int, step: int, context: CellContext) -> str:
    def x_of(gpus: int) -> float:
        return left + math.log2(gpus) * step

    placed: dict[tuple[int, int], list[Entry]] = {}
    for entry in panel.entries:
        row = row_of.get(entry.size.lower())
        if row is not None:
            placed.setdefault((row, entry.gpus), []).append(entry)
    lowest: dict[int, int] = {}
    for row, gpus in placed:
        lowest[row] = min(gpus, lowest.get(row, gpus))
    parts = []
    if len(lowest) > 1:
        points = " ".join(
            f"{_num(x_of(gpus))},{_num(top + ROW * row + ROW / 2)}" for row, gpus in sorted(lowest.items())
        )
        parts.append(
            f'<polyline class="rl-minimum" points="{points}" fill="none" stroke="currentColor" '
            'stroke-opacity="0.45" stroke-dasharray="4 3"/>'
        )
    for (row, gpus), group in sorted(placed.items()):
        centre = top + ROW * row + ROW / 2
        # rows at one point sit one under the other, inside their size's line
        spread = min(SPREAD, (ROW - 8) / max(len(group) - 1, 1))
        for index, entry in enumerate(group):
            parts.append(_mark(entry, x_of(gpus), centre + (index - (len(group) - 1) / 2) * spread, context))
    return "\n".join(parts)


def _description(words: ChartText, estimates: Sequence[Estimated]) -> str:
    return f"{words.description} {words.estimated_description}" if estimates else words.description


def fewest_estimated(panel: Panel, place_of: dict[str, int]) -> list[tuple[int, int, list[Estimated]]]:
    """Per size on the axis: the fewest GPUs the panel's estimates allow, and the estimates that allow it.

    One mark per size, as the estimate blocks' "Fewest GPUs" is read: the least of their
    counts over the models and devices the page estimated for that size.
    """
    by_place: dict[int, list[Estimated]] = {}
    for estimate in panel.estimates:
        place = place_of.get(estimate.size.lower())
        if place is not None:
            by_place.setdefault(place, []).append(estimate)
    out = []
    for place, group in sorted(by_place.items()):
        fewest = min(e.gpus for e in group)
        out.append((place, fewest, [e for e in group if e.gpus == fewest]))
    return out


def _estimated_shape(x: float, y: float) -> str:
    """Hollow and dashed, so no colour is needed to tell it from a measured mark."""
    return (
        f'<circle cx="{_num(x)}" cy="{_num(y)}" r="5.5" fill="none" stroke="currentColor" '
        'stroke-width="1.5" stroke-dasharray="2.5 2"/>'
    )


def _estimated_mark(found: list[Estimated], x: float, y: float, words: ChartText) -> str:
    first = found[0]
    models = ", ".join(dict.fromkeys(e.model for e in found))
    devices = ", ".join(dict.fromkeys(e.device for e in found))
    hover = f"{first.size}, {first.task}: {first.gpus} × {devices} ({models}), {words.estimated}"
    return f'<g class="rl-mark rl-estimated"><title>{clean(hover)}</title>{_estimated_shape(x, y)}</g>'


def _mark_legend(x: int, y: int, tags: set[str], estimated: str = "", wrap: bool = False) -> str:
    """A legend entry for each tag the chart draws, and none for a tag no row has.

    ``wrap`` puts the estimate's entry on a line of its own, for the narrow tall chart.
    """
    start = x
    out = ""
    if "MIN" in tags:
        out += (
            f'<circle cx="{x + 6}" cy="{y}" r="5.5" fill="{MIN_COLOUR}" stroke="currentColor" stroke-width="0.75"/>'
            f'<text x="{x + 16}" y="{y + 4}">MIN</text>'
        )
        x += 70
    if "RECOMMENDED" in tags:
        out += (
            f'<polygon points="{x + 6},{y - 6.5} {x + 12.5},{y} {x + 6},{y + 6.5} {x - 0.5},{y}" '
            f'fill="{RECOMMENDED_COLOUR}" stroke="currentColor" stroke-width="0.75"/>'
            f'<text x="{x + 18}" y="{y + 4}">RECOMMENDED</text>'
        )
        x += 114
    if estimated and wrap:
        x, y = start, y + 16
    if estimated:
        out += _estimated_shape(x + 6, y) + f'<text x="{x + 16}" y="{y + 4}">{clean(estimated)}</text>'
    return out


def _panel_marks(
    panel: Panel, slot_of: dict[str, int], top: int, plot_height: int, span: int, context: CellContext
) -> str:
    def y_of(gpus: int) -> float:
        return top + plot_height - math.log2(gpus) * STEP

    # Marks that would overlap (same size and GPU count) are spread sideways, in row order.
    placed: dict[tuple[int, int], list[Entry]] = {}
    for entry in panel.entries:
        slot = slot_of.get(entry.size.lower())
        if slot is not None:
            placed.setdefault((slot, entry.gpus), []).append(entry)
    lowest: dict[int, int] = {}
    for (slot, gpus), _group in placed.items():
        lowest[slot] = min(gpus, lowest.get(slot, gpus))
    parts = []
    if len(lowest) > 1:
        points = " ".join(
            f"{_num(LEFT + SLOT * slot + SLOT / 2)},{_num(y_of(gpus))}" for slot, gpus in sorted(lowest.items())
        )
        parts.append(
            f'<polyline class="rl-minimum" points="{points}" fill="none" stroke="currentColor" '
            'stroke-opacity="0.45" stroke-dasharray="4 3"/>'
        )
    for (slot, gpus), group in sorted(placed.items()):
        centre = LEFT + SLOT * slot + SLOT / 2
        # Many rows at one point squeeze together rather than spill into the next size.
        step = min(SPREAD, (SLOT - 16) / max(len(group) - 1, 1))
        for index, entry in enumerate(group):
            x = centre + (index - (len(group) - 1) / 2) * step
            parts.append(_mark(entry, x, y_of(gpus), context))
    return "\n".join(parts)
