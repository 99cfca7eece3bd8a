"""``rl-resource-estimate``: the fewest GPUs the memory lower bound allows, beside the measured rows.

For each chosen model, task and device the table gives the fewest GPUs whose lower bound
of per-GPU memory fits (:func:`sphinx_rlresources.estimator.memory.minimum_gpus`), with
every memory saving on (offload, as a MIN row) and off.  It is labelled as an estimate
everywhere it is drawn, since no one has run it: the caption says so, and the sentence
under it says how to read it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives

from sphinx_rlresources.core import columns as cols
from sphinx_rlresources.core.diagnostics import Subtype
from sphinx_rlresources.estimator.architectures import BUNDLED, bundled
from sphinx_rlresources.estimator.devices import DEVICES, canonical, device_memory
from sphinx_rlresources.estimator.memory import ALGORITHMS, Plan, minimum_gpus
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
                    cells: list[nodes.Node] = [nodes.Text(name), nodes.Text(task), nodes.Text(device)]
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
                        found = minimum_gpus(arch, plan, by="floor")
                        per_gpu = _("≥ %.0f GiB/GPU") % found[1].floor_gib if found else ""
                        text = f"{found[0]} ({per_gpu})" if found else EMPTY_MARK
                        cells.append(nodes.Text(text))
                    rows.append(cells)
        headers = [_("Model"), _("Task"), _("Device"), _("Fewest GPUs, offload on"), _("Fewest GPUs, offload off")]
        table = simple_table(headers, rows, ["rlresources-estimate", *self.options.get("class", [])], labelled=True)
        title = _("Estimated, not measured: the fewest GPUs the memory lower bound allows")
        table.insert(0, nodes.title(title, title))
        table.source, table.line = self.get_source_info()
        self.add_name(table)
        note = nodes.paragraph(classes=["rlresources-estimate-note"])
        note += nodes.Text(
            _(
                "A lower bound from the models' shapes (rlresources estimate), for %(prompt)d prompt and "
                "%(response)d response tokens and the rollout engine's default budget; nobody has run these "
                "configurations, and real runs need more."
            )
            % {"prompt": prompt, "response": response}
        )
        return [table, note]


def register(app: Sphinx) -> None:
    app.add_directive("rl-resource-estimate", RLResourceEstimate)
