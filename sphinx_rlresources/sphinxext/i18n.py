"""The extension's translatable strings (Sphinx's locale machinery, catalog ``sphinx_rlresources``)."""

from __future__ import annotations

from pathlib import Path

from sphinx.locale import get_translation

MESSAGE_CATALOG = "sphinx_rlresources"
LOCALE_DIR = Path(__file__).parent.parent / "locale"

_ = get_translation(MESSAGE_CATALOG)

# The column headers, spelled out so that the message extractor finds them.
HEADERS = {
    "size": _("Size"),
    "tag": _("Tag"),
    "model": _("Model"),
    "task": _("Task"),
    "resource": _("Resource"),
    "maxbatch": _("MaxBatch"),
    "train": _("Train"),
    "infer": _("Infer"),
    "link": _("Link"),
    "contributor": _("Contributor"),
    "model_id": _("Model ID"),
    "tested": _("Tested"),
    "evidence": _("Evidence"),
    "notes": _("Notes"),
    "estimate": _("Estimate"),
    "seq_len": _("Seq len"),
    "global_batch": _("Global batch"),
    "parallelism": _("Parallelism"),
    "throughput": _("Tokens/s/GPU"),
    "step_time": _("Step time"),
    "peak_memory": _("Peak memory"),
    "logs": _("Logs"),
    "description": _("Description"),
}
