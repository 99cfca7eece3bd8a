"""``rl-resource-estimate``: the fewest GPUs the estimator allows, beside the measured rows.

For each chosen model, task, device and offload (on, as a MIN row, and off) the table
gives the fewest GPUs whose floor fits and the fewest whose expected peak fits
(:func:`sphinx_rlresources.estimator.memory.minimum_gpus`), what limits that
configuration and the host memory it needs.  A reader must never take it for a
measurement: the caption says "estimated", every figure says in words which one it is
(``≥`` a floor, ``≈`` an expected peak, "tight", "likely OOM"), the cells have their own
style, and the legend under the table says how to read them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives

from sphinx_rlresources.core import columns as cols
from sphinx_rlresources.core.diagnostics import Subtype
from sphinx_rlresources.estimator.architectures import BUNDLED, Architecture, bundled
from sphinx_rlresources.estimator.devices import DEVICES, canonical, device_memory
from sphinx_rlresources.estimator.memory import ALGORITHMS, MARGIN, SEARCHED, Plan, minimum_gpus
from sphinx_rlresources.sphinxext.base import EMPTY_MARK, RLResourceDirective, simple_table
from sphinx_rlresources.sphinxext.i18n import _
from sphinx_rlresources.sphinxext.warnings import warn_at

if TYPE_CHECKING:
    from sphinx.application import Sphinx


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
        for name in models:
            arch = bundled(name)
            assert arch is not None  # checked by _names
            for task in tasks:
                for device in devices:
                    for offload in (True, False):
                        plan = Plan(
                            task=task,
                            gpus=8,
                            device=device,
                            device_gib=device_memory(device) or 0.0,
                            lora_rank=32 if "lora" in task.lower() else 0,
                            param_offload=offload,
                            optimizer_offload=offload,
                            prompt_length=prompt,
                            response_length=response,
                        )
                        rows.append(
                            [nodes.Text(t) for t in (name, task, device, _("on") if offload else _("off"))]
                            + self._estimated(arch, plan)
                        )
        headers = [
            _("Model"),
            _("Task"),
            _("Device"),
            _("Offload"),
            _("Fewest GPUs: floor"),
            _("Fewest GPUs: expected"),
            _("Limited by"),
            _("Host memory per node"),
        ]
        table = simple_table(headers, rows, ["rlresources-estimate", *self.options.get("class", [])], labelled=True)
        title = _("Estimated, not measured: the fewest GPUs the estimator allows")
        table.insert(0, nodes.title(title, title))
        table.source, table.line = self.get_source_info()
        self.add_name(table)
        return [table, legend(prompt, response)]

    @staticmethod
    def _estimated(arch: Architecture, plan: Plan) -> list[nodes.Node]:
        """The four estimated cells of one row: each figure says what it is in words, not only by style."""
        by_floor = minimum_gpus(arch, plan, by="floor")
        by_expected = minimum_gpus(arch, plan)
        if by_floor is None:
            return [nodes.Text(text) for text in (_("none up to %d GPUs") % SEARCHED[-1], *[EMPTY_MARK] * 3)]
        count, found = by_floor
        floor = _("%(gpus)d (≥ %(gib)s GiB/GPU)") % {"gpus": count, "gib": gib(found.floor_gib)}
        if found.verdict == "likely-oom":
            floor += _(", likely OOM")
        shown = by_expected[1] if by_expected else found
        if by_expected is None:
            expected = _("none up to %d GPUs") % SEARCHED[-1]
        else:
            expected = _("%(gpus)d (≈ %(gib)s GiB/GPU)") % {"gpus": by_expected[0], "gib": gib(shown.expected_gib)}
            if shown.verdict == "tight":
                expected += _(", tight")
        moment, term = shown.limiting()
        # The term's name without its details ("rollout engine's claim", not the fraction and
        # TP in parentheses): the cell stays short enough for the table to fit its column.
        limited = (
            _("%(term)s, %(gib)s GiB (%(moment)s)")
            % {"term": term.name.split(" (", 1)[0].split(" <-", 1)[0], "gib": gib(term.gib), "moment": moment}
            if term
            else EMPTY_MARK
        )
        host = _("≈ %s GiB") % gib(shown.host_gib)
        return [nodes.Text(text) for text in (floor, expected, limited, host)]


def gib(value: float) -> str:
    """A figure of GiB as the estimate cells print it: one decimal under 10, none above."""
    return f"{value:.1f}" if value < 10 else f"{value:,.0f}"


def legend(prompt: int, response: int) -> nodes.paragraph:
    """What the estimated cells mean, under the table: the style is never the only sign."""
    para = nodes.paragraph(classes=["rlresources-estimate-legend"])
    para += nodes.Text(
        _(
            "Computed by rlresources estimate from the models' shapes for %(prompt)d prompt and %(response)d "
            "response tokens; nobody has run these configurations. Floor: the fewest GPUs whose floor (what must "
            "be resident, with the fewest tokens a step can have) fits; fewer cannot work. Expected: the fewest "
            "GPUs whose expected peak fits; tight means within %(margin)d%% of the device, likely OOM that the "
            "expected peak is above it. Limited by: the largest term at the moment that peaks. Host memory: per "
            "node of 8 GPUs, with offload."
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


def register(app: Sphinx) -> None:
    app.add_directive("rl-resource-estimate", RLResourceEstimate)
