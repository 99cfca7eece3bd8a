"""The script naming rule: ``[model]_[task]_[gpunums]_[device]_[train]_[infer].sh``.

Shared by the build's check, ``rlresources lint`` and ``rlresources new`` (which reads
a new script's name to scaffold its row), so the rule is spelled out once.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from sphinx_rlresources.safe.pattern import DIGIT, NAME, Program, Step, literal

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
    regex: re.Pattern[str] | Program
    """A preset's own expression (written here, linear on a name), or a pattern's program."""
    claim: re.Pattern[str] | Program
    suffixes: tuple[str, ...] = (".sh",)
    scope: tuple[str, ...] = ()
    """Where the framework keeps its launch files, as globs from the root: the orphan check's
    default scope (``launch_files``) under this rule; empty: the ``scripts`` folders."""

    def claims(self, filename: str) -> bool:
        return len(filename) <= NAME_MAX and bool(self.claim.fullmatch(filename))

    def _fields(self, filename: str) -> dict[str, str] | None:
        if isinstance(self.regex, Program):
            found = _program_fields(self.regex, filename)
            return None if found is None else dict(found)
        match = self.regex.fullmatch(filename)
        return None if match is None else {k: v for k, v in match.groupdict().items() if v is not None}

    def parse(self, filename: str) -> dict[str, str] | None:
        if len(filename) > NAME_MAX:
            return None  # no file system holds the name; the presets' expressions are bounded by it
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
        fields = self._fields(filename)
        if fields is None:
            return None
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
        if len(filename) > NAME_MAX:
            return f"the name is {len(filename)} characters long; a file name has at most {NAME_MAX}"
        if self.parse(filename) is None:
            return f"'{filename}' does not follow the rule {self.shown}"
        return None


@functools.lru_cache(maxsize=4096)  # a row's checks ask up to three times; names are at most NAME_MAX long
def _program_fields(program: Program, filename: str) -> tuple[tuple[str, str], ...] | None:
    found = program.fields(filename)
    return None if found is None else tuple(found.items())


MAX_PATTERN = 200
"""The longest naming pattern (or ``launch_files`` glob, :mod:`.globs`) the settings accept, in characters."""
MAX_DEPTH = 3
"""How deeply optional parts may nest in a naming pattern (``[_{variant}[-{any}]]`` is 2)."""
NAME_MAX = 255
"""The longest file name a file system holds: a longer name follows no rule."""


def _field_steps(field: str, capture: bool) -> list[Step]:
    kind = DIGIT if field in NUMBER_FIELDS else NAME
    name = field if capture else None
    return [Step("one", kind, capture=name), Step("more", kind, capture=name, greedy=kind == DIGIT)]


def _side_by_side(steps: list[Step]) -> int | None:
    """The first field's end after which another field can start with no character between, or None."""
    for index, step in enumerate(steps):
        if step.kind != "more":
            continue
        todo, seen = [index + 1], set()
        while todo:
            at = todo.pop()
            if at in seen or at >= len(steps):
                continue
            seen.add(at)
            following = steps[at]
            if following.kind == "one":
                return index
            if following.kind == "split":
                todo += [at + 1, following.target]
    return None


def _compile(pattern: str) -> Program:  # noqa: C901 - one pattern's grammar, character by character
    """``{model}_{task}.sh`` with ``[optional parts]`` as a program; ValueError names what is wrong.

    Matched by :class:`~sphinx_rlresources.safe.pattern.Program`, never by a backtracking
    regular expression: the pattern is a stranger's text (``pyproject.toml``).
    """
    if len(pattern) > MAX_PATTERN:
        raise ValueError(f"is {len(pattern)} characters long; a pattern has at most {MAX_PATTERN}")
    steps: list[Step] = []
    where: list[int] = []  # the pattern's character of each step
    opens: list[int] = []
    seen: set[str] = set()
    index = 0
    joinable = False  # whether a literal character may join the run before it (no jump lands between)
    while index < len(pattern):
        char = pattern[index]
        if char not in "{[]":
            before = len(steps)
            literal(steps, char, joinable)
            where += [index] * (len(steps) - before)
            joinable = True
            index += 1
            continue
        joinable = False
        if char == "{":
            match = _PLACEHOLDER.match(pattern, index)
            if not match or match.group(1) not in TEXT_FIELDS + NUMBER_FIELDS:
                raise ValueError(
                    f"has an unknown field at character {index + 1}; the fields are "
                    f"{', '.join('{' + f + '}' for f in TEXT_FIELDS + NUMBER_FIELDS)}"
                )
            steps += _field_steps(match.group(1), match.group(1) not in seen)
            where += [index, index]
            seen.add(match.group(1))
            index = match.end()
            continue
        if char == "[":
            if len(opens) == MAX_DEPTH:
                raise ValueError(
                    f"nests optional parts more than {MAX_DEPTH} deep at character {index + 1}; "
                    "write the optional parts one after another"
                )
            opens.append(len(steps))
            steps.append(Step("split"))
        elif char == "]":
            if not opens:
                raise ValueError("has a ']' without its '['")
            steps[opens.pop()] = Step("split", target=len(steps))
            index += 1
            continue
        where.append(index)
        index += 1
    if opens:
        raise ValueError("has a '[' without its ']'")
    crowded = _side_by_side(steps)
    if crowded is not None:
        raise ValueError(
            f"has a field that another field can follow with nothing between them (the field ending at character "
            f"{pattern.index('}', where[crowded]) + 1}), so no name says where one ends; put a separator such as "
            "'_' between them"
        )
    return Program(tuple(steps))


def _suffixes(pattern: str) -> tuple[str, ...]:
    tail = pattern.rsplit(".", 1)[-1] if "." in pattern else ""
    return (f".{tail}",) if tail and "{" not in tail and "]" not in tail else (".sh",)


OPENRLHF_RL = "ppo|grpo|dapo|gspo|dr_grpo|reinforce|reinforce_baseline|rloo|prorlv2|vlm_math"
"""The first words of OpenRLHF's RL launchers (examples/scripts/train_<algo>_*.sh at OpenRLHF/OpenRLHF@34ba290);
its SFT, DPO, KTO, RM, PRM and distillation launchers are no RL runs, so they are not claimed."""
TRL_TRAINERS = "grpo|rloo|ppo|gspo"
"""TRL's RL trainers whose name is the task (examples/scripts/grpo_vlm.py, rloo.py, gspo.py at huggingface/trl)."""
TRL_OTHER = "online_dpo|dpo_online|nash_md|xpo"
"""TRL's online trainers whose name is not a table's task spelling: claimed, not compared."""

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
    # Recipes (examples/configs/recipes/llm/*.yaml) and the test-suite launchers that run them
    # (tests/test_suites/llm/*.sh) share one name (NVIDIA-NeMo/RL tests/test_suites/README.md);
    # the cluster part is optional: dapo-qwen2.5-7b.yaml and grpo-deepscaler-1.5b-8K.sh have none.
    # The model part is not compared: of NVIDIA-NeMo/RL@7ea279a's 235 recipes that name a model,
    # 55 abbreviate it (nanov3-30BA3B), add a dataset (dapomath17k-dsv3) or a teacher
    # (qwen3-32b-to-1.7b-base); the recipe's own policy.model_name is compared instead.
    # vlm_grpo-... recipes run GRPO on a vision-language model.
    "nemo-rl": NamingRule(
        "nemo-rl",
        "<algo>-<model>[-<N>n<G>g][-variant].yaml|.sh",
        re.compile(
            r"(?:vlm_)?(?P<task>[a-z0-9_]+)-(?P<any>[^/]+?)"
            r"(?:-(?P<nodes>[0-9]+)n(?P<gpus_per_node>[0-9]+)g(?:-(?P<variant>[^/]+))?)?\.(?:ya?ml|sh)"
        ),
        re.compile(r"[a-z0-9_]+-[^/]+\.(?:ya?ml|sh)"),
        (".yaml", ".yml", ".sh"),
        ("examples/configs/recipes/**/*.yaml",),
    ),
    # OpenRLHF: train_<algo>[_<what>].sh (examples/scripts at OpenRLHF/OpenRLHF@34ba290). The
    # algorithm word is not compared: the script's --advantage_estimator says the task.
    "openrlhf": NamingRule(
        "openrlhf",
        "train_<algo>[_<variant>].sh",
        re.compile(rf"train_(?P<any>{OPENRLHF_RL})(?:_(?P<variant>[^/]+))?\.sh"),
        re.compile(rf"train_(?:{OPENRLHF_RL})(?:_[^/]+)?\.sh"),
    ),
    # slime: run-<model>[-variant].sh (scripts/run-qwen3-4B.sh, run-qwen3-30B-A3B-fsdp.sh at
    # THUDM/slime); its SFT launchers (run-qwen3-4B-base-sft.sh, or plain run-sft.sh) are not claimed. The model part
    # is not compared: run-glm4-9B.sh trains GLM-Z1-9B-0414 (THUDM/slime@624b824); the script's
    # --hf-checkpoint is compared with the row instead.
    "slime": NamingRule(
        "slime",
        "run-<model>[-variant].sh",
        re.compile(r"run-(?P<any>[^/]+)\.sh"),
        re.compile(r"run-(?!(?:[^/]*-)?sft\.sh$)[^/]+\.sh"),
    ),
    # SkyRL: run_<what>.sh under examples/train (run_gsm8k.sh, run_dapo_qwen3_1.7b_aime.sh at
    # NovaSky-AI/SkyRL); the name carries no field a row states, so none is compared.
    "skyrl": NamingRule(
        "skyrl",
        "run_<what>.sh",
        re.compile(r"run_(?P<any>[^/]+)\.sh"),
        re.compile(r"run_(?!sft|eval|generation|tinker)[^/]+\.sh"),
        (".sh",),
        ("examples/train/**/*.sh",),
    ),
    # TRL: <trainer>[_variant].py or .sh (examples/scripts/grpo_vlm.py, rloo.py at huggingface/trl).
    "trl": NamingRule(
        "trl",
        "<trainer>[_variant].py|.sh",
        re.compile(rf"(?:async_)?(?:(?P<task>{TRL_TRAINERS})|(?P<any>{TRL_OTHER}))(?:_(?P<variant>[^/]+))?\.(?:py|sh)"),
        re.compile(rf"(?:async_)?(?:{TRL_TRAINERS}|{TRL_OTHER})(?:_[^/]+)?\.(?:py|sh)"),
        (".py", ".sh"),
    ),
}


def naming_rule(value: str) -> NamingRule:
    """The rule a setting names: a preset (:data:`PRESETS`) or a pattern of ``{fields}``."""
    if value in PRESETS:
        return PRESETS[value]
    if "{" not in value:
        raise ValueError(f"is neither a preset ({', '.join(PRESETS)}) nor a pattern with {{fields}}")
    regex = _compile(value)
    return NamingRule("pattern", value, regex, regex, _suffixes(value))


def rule_problem(value: object) -> str | None:
    """Why a ``naming`` setting is unusable, or None (the settings table's rule)."""
    if not isinstance(value, str) or not value:
        return f"must be a preset ({', '.join(PRESETS)}) or a pattern such as 'run_{{model}}_{{train}}.sh'"
    try:
        naming_rule(value)
    except ValueError as err:
        return f"{err}, e.g. 'run_{{model}}_{{train}}.sh'"
    return None
