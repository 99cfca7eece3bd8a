"""The script naming rule: ``[model]_[task]_[gpunums]_[device]_[train]_[infer].sh``.

Shared by the build's check, ``rlresources lint`` and ``rlresources new`` (which reads
a new script's name to scaffold its row), so the rule is spelled out once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FIELDS = ("model", "task", "gpunums", "device", "train", "infer")
RULE = "[model]_[task]_[gpunums]_[device]_[train]_[infer].sh"
_FIELD_RE = re.compile(r"^[a-z0-9][a-z0-9.+-]*$")


@dataclass(frozen=True)
class ScriptName:
    """The six fields of a well-formed script name."""

    model: str
    task: str
    gpus: int
    device: str
    train: str
    infer: str

    @property
    def filename(self) -> str:
        return f"{self.model}_{self.task}_{self.gpus}_{self.device}_{self.train}_{self.infer}.sh"


def slug(text: str) -> str:
    """A field-safe lowercase form: ``Qwen2.5 72B`` -> ``qwen2.5-72b``."""
    out = re.sub(r"[^a-z0-9.+-]+", "-", text.lower()).strip("-")
    return out or "x"


def parse(filename: str) -> tuple[ScriptName | None, str | None]:
    """Split a file name by the rule: (fields, None) or (None, what breaks the rule)."""
    if not filename.endswith(".sh"):
        return None, f"'{filename}' does not end in .sh"
    stem = filename[: -len(".sh")]
    parts = stem.split("_")
    if len(parts) != len(FIELDS):
        return None, (
            f"'{filename}' has {len(parts)} field{'s' if len(parts) != 1 else ''} separated by '_', "
            f"but the rule {RULE} has 6 "
            "(use '-' inside a field, never '_')"
        )
    if stem != stem.lower():
        return None, f"'{filename}' is not all lowercase"
    for name, part in zip(FIELDS, parts, strict=True):
        if not _FIELD_RE.match(part):
            return (
                None,
                f"field {name} '{part}' of '{filename}' is empty or has characters other than "
                "a-z, 0-9, '.', '+' and '-'",
            )
    if not parts[2].isdigit() or int(parts[2]) < 1:
        return None, f"field gpunums '{parts[2]}' of '{filename}' is not a whole number of GPUs"
    model, task, gpus, device, train, infer = parts
    return ScriptName(model, task, int(gpus), device, train, infer), None


def model_field(filename: str, fallback: str) -> str:
    """The model part a corrected name should keep: what precedes the last five fields."""
    stem = filename[:-3] if filename.endswith(".sh") else filename
    parts = stem.lower().split("_")
    if len(parts) > 5:
        return slug("-".join(parts[: len(parts) - 5]))
    return slug(fallback)


def expected(model: str, task: str, gpus: int, device: str, train: str, infer: str) -> ScriptName:
    """The name a row with these values should have."""
    return ScriptName(slug(model), slug(task), gpus, slug(device), slug(train), slug(infer))
