"""``rl-resource-estimate``: the fewest GPUs the estimator allows, beside the measured rows.

For each chosen model, task, device and offload (on, as a MIN row, and off) one compact
row gives the fewest GPUs whose expected peak fits
(:func:`sphinx_rlresources.estimator.memory.minimum_gpus`), the verdict in a word and
what limits it; the floor, the expected peak and the host memory are a click away, in
the row's own details, so the block reads in one glance and stays shorter than the
measured tables it completes.  It is laid out as the resource table is (a table where
it fits, cards on a phone).  A reader must never take it for a measurement: the caption
says "estimated", every figure says in words which one it is (``≥`` a floor, ``≈`` an
expected peak), the cells have their own style, and the legend under the table says
how to read them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives

from sphinx_rlresources.core import columns as cols
from sphinx_rlresources.core.diagnostics import Subtype
from sphinx_rlresources.estimator.architectures import BUNDLED, Architecture, bundled
from sphinx_rlresources.estimator.devices import DEVICES, canonical, device_memory
from sphinx_rlresources.estimator.memory import ALGORITHMS, MARGIN, SEARCHED, Plan, Result, minimum_gpus
from sphinx_rlresources.estimator.plan import Term
from sphinx_rlresources.sphinxext.base import EMPTY_MARK, RLResourceDirective, simple_table
from sphinx_rlresources.sphinxext.i18n import _
from sphinx_rlresources.sphinxext.nodes import add_wrapper_node, body_rows, rlresources_details
from sphinx_rlresources.sphinxext.onpage import note_estimate, section_size
from sphinx_rlresources.sphinxext.svgchart import Estimated
from sphinx_rlresources.sphinxext.warnings import warn_at

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.writers.html5 import HTML5Translator


def _length(argument: str | None) -> int:
    value = directives.positive_int(argument or "")
    if value > 1_000_000:
        msg = "must be at most 1000000 tokens"
        raise ValueError(msg)
    return int(value)


class RLResourceEstimate(RLResourceDirective):
    """``.. rl-resource-estimate::`` with ``:models:``, ``:devices:`` and ``:tasks:``."""

    required_arguments = 0
    optional_arguments = 0
    has_content = False
    directive_name = "rl-resource-estimate"
    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {
        # bundled model names, comma-separated (rlresources estimate --help lists them)
        "models": directives.unchanged_required,
        # devices from the device table, comma-separated (default H100)
        "devices": directives.unchanged_required,
        # tasks such as GRPO, GRPO-LoRA, PPO (default GRPO)
        "tasks": directives.unchanged_required,
        "prompt-length": _length,
        "response-length": _length,
        "name": directives.unchanged,
        "class": directives.class_option,
    }

    def _names(self, option: str, default: str, valid: Callable[[str], str | None], choices: str) -> list[str]:
        found = []
        for value in cols.split_list(self.options.get(option, default)):
            name = valid(value)
            if name is None:
                self.option_warning(f":{option}: names '{value}', which is not known; the choices are: {choices}")
            elif name not in found:
                found.append(name)
        return found

    def draw(self) -> list[nodes.Node]:
        models = self._names(
            "models", "", lambda v: a.name if (a := bundled(v)) else None, ", ".join(a.name for a in BUNDLED.values())
        )
        devices = self._names("devices", "H100", canonical, ", ".join(DEVICES))
        tasks = self._names(
            "tasks",
            "GRPO",
            lambda v: v if v.lower().replace("-lora", "") in ALGORITHMS else None,
            "GRPO, PPO, DAPO, ...",
        )
        if not models:
            warn_at(
                Subtype.OPTION,
                f"{self.directive_name} needs :models:, e.g. :models: Llama-3.1-405B",
                self.get_location(),
            )
            return []
        prompt = self.options.get("prompt-length", 512)
        response = self.options.get("response-length", 1024)
        rows: list[list[nodes.Node]] = []
        size = section_size(self.env)  # the chart below shows these counts for that size
        for name in models:
            arch = bundled(name)
            assert arch is not None  # checked by _names
            for task in tasks:
                for device in devices:
                    cells, count = compact_row(arch, task, device, prompt, response)
                    if size is not None and count is not None:
                        note_estimate(self.env, Estimated(size, name, task, device, count))
                    rows.append([nodes.Text(t) for t in ((name,) if len(models) > 1 else ())] + cells)
        headers = [_("Task"), _("Device"), _("Fewest GPUs"), _("Offload"), _("Verdict"), _("Limited by"), _("Details")]
        if len(models) > 1:
            headers.insert(0, _("Model"))
            title = _("Estimated, not measured: the fewest GPUs the estimator allows")
        else:
            title = _("Estimated, not measured: the fewest GPUs the estimator allows for %s") % models[0]
        classes = ["rlresources-estimate", *self.options.get("class", [])]
        table = simple_table(headers, rows, classes, labelled=True)
        estimated = len(headers) - 5  # the model, task and device name the row; the estimator gave the rest
        for row in body_rows(table):
            for index, cell in enumerate(c for c in row.children if isinstance(c, nodes.entry)):
                cell["classes"].append("rl-estimated" if index >= estimated else "rl-key")
        table.insert(0, nodes.title(title, title))
        table.source, table.line = self.get_source_info()
        self.add_name(table)
        return [table, legend(prompt, response)]


@dataclass(frozen=True)
class Found:
    """One offload setting's estimate: the fewest GPUs by the expected peak and by the floor."""

    offload: bool
    expected: tuple[int, Result] | None
    floor: tuple[int, Result] | None


def compact_row(
    arch: Architecture, task: str, device: str, prompt: int, response: int
) -> tuple[list[nodes.Node], int | None]:
    """A task on a device in one row: the offload setting that needs the fewest GPUs (off when
    both need as many, since offloading slows a step), its count, its verdict in a word and
    what limits it; both settings' figures a click away.  Also the count itself (None when
    nothing fits), which the chart draws as the estimate for the page's size."""
    found = []
    for offload in (False, True):
        plan = Plan(
            task=task,
            gpus=8,
            device=device,
            device_gib=device_memory(device) or 0.0,
            lora_rank=32 if "lora" in task.lower() else 0,
            param_offload=offload,
            optimizer_offload=offload,
            ref_param_offload=None,  # as the trainer: the table compares offload on and off
            offload_mode="phase",  # verl's, as the page's examples are
            memory_fraction=0.5,
            prompt_length=prompt,
            response_length=response,
        )
        found.append(Found(offload, minimum_gpus(arch, plan), minimum_gpus(arch, plan, by="floor")))
    fitting = [f for f in found if f.expected is not None]
    details = rlresources_details(classes=["rlresources-details"], summary=_("Figures"))
    details += [figures(f) for f in found]
    if not fitting:
        none = _("none up to %d") % SEARCHED[-1]
        cells = (task, device, none, EMPTY_MARK, _("does not fit"), EMPTY_MARK)
        return [*(nodes.Text(text) for text in cells), details], None
    best = min(fitting, key=lambda f: f.expected[0] if f.expected else 0)
    assert best.expected is not None
    count, shown = best.expected
    _moment, term = shown.limiting()
    verdict = _("tight") if shown.verdict == "tight" else _("fits")
    setting = _("on") if best.offload else _("off")
    cells = (task, device, str(count), setting, verdict, term_name(term) if term else EMPTY_MARK)
    return [*(nodes.Text(text) for text in cells), details], count


def term_name(term: Term) -> str:
    """The term's name without its details ("rollout engine's claim", not the fraction and TP in
    parentheses): a compact cell stays one short line."""
    return term.name.split(" (", 1)[0].split(" <-", 1)[0]


def figures(found: Found) -> nodes.paragraph:
    """One offload setting's figures, each saying in words which figure it is."""
    head = _("Offload on") if found.offload else _("Offload off")
    if found.expected is None or found.floor is None:
        text = _("%(head)s: does not fit on up to %(gpus)d GPUs.") % {"head": head, "gpus": SEARCHED[-1]}
        return nodes.paragraph(text, text)
    count, shown = found.expected
    moment, term = shown.limiting()
    words = {
        "head": head,
        "gpus": count,
        "verdict": _("tight") if shown.verdict == "tight" else _("fits"),
        "expected": gib(shown.expected_gib),
        "floor_gpus": found.floor[0],
        "floor": gib(found.floor[1].floor_gib),
        "host": gib(shown.host_gib),
    }
    text = (
        _(
            "%(head)s: %(gpus)d GPUs (%(verdict)s), expected peak ≈ %(expected)s GiB/GPU; floor %(floor_gpus)d GPUs "
            "(≥ %(floor)s GiB/GPU, fewer cannot work); host memory ≈ %(host)s GiB per node of 8 GPUs"
        )
        % words
    )
    if term:
        text += _("; largest term %(term)s, %(gib)s GiB at %(moment)s") % {
            "term": term_name(term),
            "gib": gib(term.gib),
            "moment": moment,
        }
    text += "."
    return nodes.paragraph(text, text)


def gib(value: float) -> str:
    """A figure of GiB as the estimate cells print it: one decimal under 10, none above."""
    return f"{value:.1f}" if value < 10 else f"{value:,.0f}"


def legend(prompt: int, response: int) -> nodes.paragraph:
    """What the estimated cells mean, right under the table: the style is never the only sign."""
    para = nodes.paragraph(classes=["rlresources-estimate-legend"])
    para += nodes.Text(
        _(
            "Computed by rlresources estimate for %(prompt)d prompt and %(response)d response tokens; nobody "
            "has run these. Fewest GPUs: whose expected peak fits, with the offload setting that needs fewest; "
            "tight: within %(margin)d%% of the device. Details: both settings, the floor (fewer GPUs cannot work), "
            "host memory."
        )
        % {"prompt": prompt, "response": response, "margin": round(MARGIN * 100)}
    )
    return para


def column_legend() -> nodes.paragraph:
    """Under a resource table that shows the ``estimate`` column: what its two figures are."""
    para = nodes.paragraph(classes=["rlresources-estimate-legend"])
    para += nodes.Text(
        _(
            "Estimate: computed by rlresources estimate from the model's shape and the row's script, not "
            "measured. The floor is what must be resident whatever the data (a row above it cannot have run); "
            "the expected peak uses the script's lengths and batches, and is the figure to plan with. Trainer: "
            "the trainer's own peak; engine: the rollout engine's claim, a setting (its memory fraction) it "
            "takes whatever the model. Tight: within %(margin)d%% of the device where something sits beside the "
            "engine's claim; likely OOM: above it."
        )
        % {"margin": round(MARGIN * 100)}
    )
    return para


def visit_details_html(self: HTML5Translator, node: rlresources_details) -> None:
    self.body.append(self.starttag(node, "details", ""))
    self.body.append(f"<summary>{escape(node.get('summary', ''))}</summary>\n")


def depart_details_html(self: HTML5Translator, node: rlresources_details) -> None:
    self.body.append("</details>\n")


def register(app: Sphinx) -> None:
    add_wrapper_node(app, rlresources_details, (visit_details_html, depart_details_html))
    app.add_directive("rl-resource-estimate", RLResourceEstimate)
