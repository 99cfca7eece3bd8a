"""The script naming rule: ``[model]_[task]_[gpunums]_[device]_[train]_[infer].sh``.

Shared by the build's check, ``rlresources lint`` and ``rlresources new`` (which reads
a new script's name to scaffold its row), so the rule is spelled out once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sphinx_rlresources.safe.memo import remembered

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


@remembered(1024, chars=512)
def parse(filename: str) -> tuple[ScriptName | None, str | None]:
    """Split a file name by the rule: (fields, None) or (None, what breaks the rule).

    Remembered (bounded: ``safe.memo.remembered``): the checks of one row ask up to three times.
    """
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


# -- the rule as a setting ------------------------------------------------------------------

#: Fields a rule may name: the row field each is compared with is in :data:`ROW_FIELDS`.
TEXT_FIELDS = ("model", "task", "device", "train", "infer", "variant", "any")
NUMBER_FIELDS = ("gpus", "nodes", "gpus_per_node")
VERL_BACKENDS = ("fsdp_turbo", "fsdp2", "fsdp", "megatron_lite", "megatron", "mindspeed", "automodel", "veomni")
"""verl's ``run_<model>_<backend>.sh`` (tests/special_sanity/check_example_naming.py at verl-project/verl@1dda039)."""
VERL_FORBIDDEN = frozenset({"vllm", "sglang", "trtllm", "npu", "amd", "gb200", "b200", "blackwell", "fp8"})
"""Tokens verl's rule forbids in a name: the engine, device and precision are chosen by env toggles instead."""
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


@dataclass(frozen=True)
class NamingRule:
    """How a repository names its resource scripts: a preset or a pattern of named fields.

    ``claims`` says which files are resource scripts at all (only those can be scripts
    without a row); ``parse`` gives the fields a name carries, or None when it breaks the
    rule.  Fields a name does not carry (the device, the GPU count, the engine in verl's
    rule) come from the row, and only the fields the rule names are compared with it.
    """

    name: str
    shown: str
    """The rule as the docs and messages write it."""
    regex: re.Pattern[str]
    claim: re.Pattern[str]
    suffixes: tuple[str, ...] = (".sh",)

    def claims(self, filename: str) -> bool:
        return bool(self.claim.fullmatch(filename))

    def parse(self, filename: str) -> dict[str, str] | None:
        if self.name == "seed":
            found, _problem = parse(filename)
            if found is None:
                return None
            return {
                "model": found.model,
                "task": found.task,
                "gpus": str(found.gpus),
                "device": found.device,
                "train": found.train,
                "infer": found.infer,
            }
        match = self.regex.fullmatch(filename)
        if match is None:
            return None
        fields = {k: v for k, v in match.groupdict().items() if v is not None}
        if "nodes" in fields and "gpus_per_node" in fields:
            fields["gpus"] = str(int(fields["nodes"]) * int(fields["gpus_per_node"]))
        return fields

    def problem(self, filename: str) -> str | None:
        """Why ``filename`` breaks the rule (None when it follows it)."""
        if self.name == "seed":
            return parse(filename)[1]
        if self.name == "verl":
            tokens = set(filename.removesuffix(".sh").split("_"))
            bad = sorted(tokens & VERL_FORBIDDEN)
            if bad:
                return (
                    f"'{filename}' names {', '.join(bad)}, which verl's rule keeps out of names (the engine, "
                    "device and precision are chosen by environment toggles)"
                )
        if self.parse(filename) is None:
            return f"'{filename}' does not follow the rule {self.shown}"
        return None


def _compile(pattern: str) -> re.Pattern[str]:
    """``{model}_{task}.sh`` with ``[optional parts]`` into a regular expression; ValueError names what is wrong."""
    out: list[str] = []
    index = 0
    depth = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "{":
            match = _PLACEHOLDER.match(pattern, index)
            if not match or match.group(1) not in TEXT_FIELDS + NUMBER_FIELDS:
                raise ValueError(
                    f"has an unknown field at character {index + 1}; the fields are "
                    f"{', '.join('{' + f + '}' for f in TEXT_FIELDS + NUMBER_FIELDS)}"
                )
            field = match.group(1)
            body = "[0-9]+" if field in NUMBER_FIELDS else "[^/]+?"
            out.append(f"(?P<{field}>{body})" if f"(?P<{field}>" not in "".join(out) else body)
            index = match.end()
            continue
        if char == "[":
            depth += 1
            out.append("(?:")
        elif char == "]":
            depth -= 1
            if depth < 0:
                raise ValueError("has a ']' without its '['")
            out.append(")?")
        else:
            out.append(re.escape(char))
        index += 1
    if depth:
        raise ValueError("has a '[' without its ']'")
    return re.compile("".join(out))


def _suffixes(pattern: str) -> tuple[str, ...]:
    tail = pattern.rsplit(".", 1)[-1] if "." in pattern else ""
    return (f".{tail}",) if tail and "{" not in tail and "]" not in tail else (".sh",)


PRESETS: dict[str, NamingRule] = {
    # Claimed: six fields or more (a name breaking the rule by one '_' too many is still one of
    # its scripts), one of them a bare GPU count, and not verl's other convention: verl's
    # examples/tuning/lora/run_qwen2_5_vl_7b_fsdp.sh (verl-project/verl@1dda039) has six
    # fields by accident and is no resource script.
    "seed": NamingRule(
        "seed", RULE, re.compile(r"(?!)"), re.compile(r"(?!run_)(?=[^/]*_[0-9]+_)[^_/]+(?:_[^_/]+){5,}\.sh")
    ),
    "verl": NamingRule(
        "verl",
        "run_<model>_<backend>.sh",
        re.compile(rf"run_(?P<model>.+?)_(?P<train>{'|'.join(VERL_BACKENDS)})\.sh"),
        re.compile(r"run_.+\.sh"),
    ),
    "nemo-rl": NamingRule(
        "nemo-rl",
        "<algo>-<model>-<N>n<G>g[-variant].yaml",
        re.compile(
            r"(?P<task>[a-z0-9]+)-(?P<model>.+?)-(?P<nodes>[0-9]+)n(?P<gpus_per_node>[0-9]+)g(?:-(?P<variant>.+))?\.ya?ml"
        ),
        re.compile(r"[a-z0-9]+-.+\.ya?ml"),
        (".yaml", ".yml"),
    ),
}


def naming_rule(value: str) -> NamingRule:
    """The rule a setting names: a preset (``seed``, ``verl``, ``nemo-rl``) or a pattern of ``{fields}``."""
    if value in PRESETS:
        return PRESETS[value]
    if "{" not in value:
        raise ValueError(f"is neither a preset ({', '.join(PRESETS)}) nor a pattern with {{fields}}")
    regex = _compile(value)
    return NamingRule("pattern", value, regex, regex, _suffixes(value))


def rule_problem(value: object) -> str | None:
    """Why a ``naming`` setting is unusable, or None (the settings table's rule)."""
    if not isinstance(value, str) or not value:
        return "must be a preset (seed, verl, nemo-rl) or a pattern such as 'run_{model}_{train}.sh'"
    try:
        naming_rule(value)
    except ValueError as err:
        return f"{err}, e.g. 'run_{{model}}_{{train}}.sh'"
    return None


def glob_regex(glob: str) -> re.Pattern[str]:
    """A glob from the root (``examples/tuning/**/*.sh``) as a pattern over ``/``-separated paths.

    ``**/`` crosses any number of folders, ``*`` and ``?`` stay inside one name (as in
    ``pathlib``'s full match, which Python 3.10 lacks).
    """
    out: list[str] = []
    index = 0
    while index < len(glob):
        if glob.startswith("**/", index):
            out.append("(?:[^/]+/)*")
            index += 3
            continue
        char = glob[index]
        out.append("[^/]*" if char == "*" else "[^/]" if char == "?" else re.escape(char))
        index += 1
    return re.compile("".join(out))
