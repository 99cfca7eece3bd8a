"""What every framework adapter shares: turning a written value into a :class:`~..run.Found`, and reading flags.

An adapter knows its framework's spelling of each setting and its defaults; how a value
becomes a number or a flag, and how ``--flag value`` arguments are read, is the same for
all of them and lives here once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from sphinx_rlresources.scripts.expand import Field
from sphinx_rlresources.scripts.interpreter import Command
from sphinx_rlresources.scripts.run import UNKNOWN, Found, Origin, Problem
from sphinx_rlresources.scripts.settings import Override
from sphinx_rlresources.scripts.shell import INT_RE

T = TypeVar("T")
ORIGINS = {
    "set": Origin.SET,
    "script-default": Origin.SCRIPT_DEFAULT,
    "env": Origin.ENV,
    "runtime": Origin.RUNTIME,
}
RANK = {Origin.SET: 0, Origin.DERIVED: 0, Origin.SCRIPT_DEFAULT: 1, Origin.ENV: 2, Origin.FRAMEWORK_DEFAULT: 3}
"""How weak an origin is, for :func:`derived` (the rest are weaker still)."""
TRUE = frozenset({"true", "1", "yes", "on"})
FALSE = frozenset({"false", "0", "no", "off", "null", "none"})


def unquoted(text: str) -> str:
    """One layer of Hydra/YAML quotes removed: ``'fsdp'`` -> ``fsdp``."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def as_text(value: object) -> str | None:
    """Text as written, one layer of quotes off; None for YAML's nulls and for what is not text (a number, a list)."""
    if not isinstance(value, str):
        return None
    text = unquoted(value)
    return text if text.lower() not in ("null", "none", "~", "") else None


def as_int(value: object) -> int | None:
    """A whole number, written (``8``, ``'8'``) or parsed by YAML (``8``); never a YAML bool."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if not isinstance(value, str):
        return None
    text = unquoted(value)
    return int(text) if INT_RE.fullmatch(text) else None


def as_float(value: object) -> float | None:
    """A non-negative number below 10⁹ (a fraction, a coefficient), written or parsed by YAML."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(unquoted(value))
        except ValueError:
            return None
    else:
        return None
    return number if 0 <= number < 1e9 else None


def as_bool(value: object) -> bool | None:
    """A switch, written (``true``, ``1``, ``off``) or parsed by YAML."""
    if isinstance(value, bool):
        return value
    if not isinstance(value, str):
        return None
    text = unquoted(value).lower()
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    return None


def as_switch_or_table(value: object) -> bool | None:
    """A switch, or a table of its own settings, which turns it on (pydantic reads ``{}`` as a default config)."""
    return True if isinstance(value, dict) else as_bool(value)


def as_lower(value: object) -> str | None:
    text = as_text(value)
    return text.lower() if text else None


def as_recipe_model(value: object) -> str | None:
    """A checkpoint name, or None for a placeholder left in a recipe (``Follow instructions in ...``, ``/path/to/x``).

    A hub id or a path has no spaces; NeMo-RL's DeepSeek recipes name the model that way
    because the script passes the real one (``policy.model_name=$NRL_DEEPSEEK_V3_BF16_CKPT``).
    """
    text = as_text(value)
    if text is None or any(c.isspace() for c in text) or text.startswith(("/path/to/", "<")):
        return None
    return text


def from_override(override: Override | None, convert: Callable[[str], T | None]) -> Found[T]:
    """A setting as the script writes it (unknown when absent, or when its value is not known)."""
    if override is None:
        return UNKNOWN
    if override.value is None:
        return Found(None, Origin.RUNTIME, override.line, override.raw, override.file, override.tail)
    value = convert(override.value)
    origin = (ORIGINS.get(override.origin) or Origin.RUNTIME) if value is not None else Origin.UNKNOWN
    if value is None and override.origin == "env":
        origin = Origin.ENV  # the row's env made it no value: the cross-check says so instead of staying silent
    return Found(value, origin, override.line, override.shown, override.file, override.tail)


def default(value: T, written: str) -> Found[T]:
    """The framework's own default, for a setting the script does not write."""
    return Found(value, Origin.FRAMEWORK_DEFAULT, 0, written)


def first(*found: Found[T]) -> Found[T]:
    """The first setting that says anything (written, even as unknown), else the last one (a default)."""
    for item in found:
        if item.line or item.origin not in (Origin.UNKNOWN, Origin.FRAMEWORK_DEFAULT):  # someone wrote it
            return item
    for item in found:
        if item.value is not None:
            return item
    return found[-1] if found else UNKNOWN


def derived(value: T | None, parts: Iterable[Found[object]], written: str) -> Found[T]:
    """A value computed from others (GPUs = nodes × GPUs per node): its origin is the weakest of theirs."""
    items = list(parts)
    # The line cited is the first part's that has one, in that part's file: an inherited config's
    # line is not the script's (cluster.num_nodes at grpo_math_1B.yaml:521, not launcher.sh:521).
    cited = next((p for p in items if p.line), None)
    line, file = (cited.line, cited.file) if cited is not None else (0, "")
    if value is None or any(p.value is None for p in items):
        return Found(None, Origin.UNKNOWN if cited is None else Origin.RUNTIME, line, written, file)
    weakest = max((p.origin for p in items), key=lambda o: RANK.get(o, len(RANK)))
    return Found(value, Origin.DERIVED if weakest is Origin.SET else weakest, line, written, file)


@dataclass(frozen=True)
class Setting:
    """One setting an adapter reads: how the framework spells it, how its text reads, and its default.

    ``keys`` are today's spellings, the first one shown; ``old`` are older releases' (OpenRLHF's
    flat flags, skyrl-train's keys), read when no key of today's is written.  ``default`` is the
    framework's own (None: none assumed), ``source`` the upstream file and line it follows
    (``verl/trainer/config/_generated_ppo_trainer.yaml@1dda039:54``), and ``old_default``
    whether the older releases share that default.  The docs print every adapter's table.
    """

    keys: tuple[str, ...]
    convert: Callable[[str], Any]
    default: Any = None
    source: str = ""
    old: tuple[str, ...] = ()
    old_default: bool = True


LookUp = Callable[[str, Callable[[str], Any]], Found[Any]]
"""How an adapter finds a key as written (its overrides, flags or config): UNKNOWN when absent."""


@dataclass(frozen=True)
class Table:
    """A framework's settings by name (the :class:`~..run.Run` field, where there is one), and how a default shows.

    ``shown`` is formatted with the setting's ``key`` (the spelling a finding names),
    ``value`` (its default) and ``source``: ``"{key}={value} (verl's default)"``.
    """

    framework: str
    settings: Mapping[str, Setting]
    shown: str

    def read(self, name: str, look_up: LookUp, defaults: bool = True, old_dialect: bool = False) -> Found[Any]:
        """A setting as written (today's spelling, else an old one), else the default where ``defaults`` hold.

        A key written without a line (an inherited value) gives way to the default, as a
        silent one does; ``old_dialect`` says the script writes the old spellings, so the
        default holds only where ``old_default`` says the old releases share it.
        """
        setting = self.settings[name]
        found: Found[Any] = UNKNOWN
        for key in (*setting.keys, *setting.old):
            here = look_up(key, setting.convert)
            if here.line:
                return here
            if found is UNKNOWN:
                found = here
        if setting.default is None or not defaults or (old_dialect and not setting.old_default):
            return found
        key = setting.old[0] if old_dialect and setting.old else setting.keys[0]
        return default(setting.default, self.shown.format(key=key, value=setting.default, source=setting.source))


def deprecated(table: Mapping[str, str], written: Mapping[str, Any], message: str) -> list[Problem]:
    """A warning for each deprecated key the script writes.

    ``message`` is formatted with the ``key`` and the table's ``advice``; ``written`` maps each
    key as written to what has its ``line`` (an override or a flag).
    """
    return [
        Problem(written[key].line, message.format(key=key, advice=advice), key, kind="deprecated", severity="warning")
        for key, advice in table.items()
        if key in written
    ]


def product(a: Found[int], b: Found[int]) -> int | None:
    """``a × b`` when both are known (nodes × GPUs per node, engines × tensor parallel)."""
    return a.value * b.value if a.value is not None and b.value is not None else None


def program_name(text: str | None) -> str:
    """A command word without its folder (``/usr/bin/python3`` is ``python3``): how launchers are recognised."""
    return (text or "").rsplit("/", 1)[-1]


def times(left: Found[int], right: Found[int], written: str) -> Found[int]:
    """``left × right`` derived from both, written as ``written: L × R`` (prime-rl's node and GPU counts)."""
    return derived(product(left, right), [left, right], f"{written}: {left.value} × {right.value}")


def added(a: Found[int], b: Found[int]) -> int | None:
    """``a + b`` when both are known (the trainer's pool and another role's)."""
    return a.value + b.value if a.value is not None and b.value is not None else None


def either(a: Found[bool], b: Found[bool]) -> Found[bool]:
    """True if either is (the one that is); unknown if either is and neither is true; else the written one.

    A reference model is loaded for a KL loss or a KL penalty in the reward: the finding
    cites the switch that asks for it, or the one that leaves it in doubt.
    """
    if a.value or b.value:
        return a if a.value else b
    if a.value is None or b.value is None:
        return a if a.value is None else b
    return a if a.line else b


def offload_mode(*rules: tuple[str, str, Found[bool]]) -> Found[str]:
    """How states leave the GPU: the mode of the first ``(mode, why, switch)`` whose switch is on.

    ``compute`` (the optimizer steps on the host: DeepSpeed's CPU Adam, FSDP2's offload
    policy) or ``phase`` (states wait on the host between phases: verl's FSDP offload);
    ``why`` is what a finding shows (empty: the switch as written).  No switch on: unknown.
    """
    for mode, why, switch in rules:
        if switch.value:
            return Found(mode, switch.origin, switch.line, why or switch.written)
    return UNKNOWN


@dataclass(frozen=True)
class Flag:
    """One ``--name [value]`` argument of an argparse command line."""

    name: str
    value: str | None
    """None when unknown; ``""`` for a bare flag (a switch)."""
    raw: str
    line: int
    origin: str
    file: str = ""

    def override(self) -> Override:
        """The flag as an :class:`Override`, so :func:`from_override` reads it like a Hydra key."""
        value = "true" if self.value == "" else self.value
        return Override(self.name, value, self.raw, self.line, value or "", self.origin, self.file)


def read_flags(
    fields: Iterable[Field], switches: frozenset[str] = frozenset(), valued: frozenset[str] = frozenset()
) -> dict[str, Flag]:
    """``--name value``, ``--name=value`` and bare ``--switch`` arguments; the last of a name wins.

    A flag is a switch when it is in ``switches``, or when the next argument is another
    flag (or there is none); a switch followed by ``true`` or ``false`` takes it as its
    value, as the bool flags of Hugging Face's ``HfArgumentParser`` do (``--use_vllm false``).
    Names are kept as written, without the leading dashes.  A flag in ``valued`` read as a
    bare switch lost its value (an elided or empty argument): its value is unknown, not a
    switch's.
    """
    items = list(fields)
    found: dict[str, Flag] = {}
    index = 0
    while index < len(items):
        field = items[index]
        index += 1
        text = field.value
        if text is None or not text.startswith("-") or text in ("-", "--") or _is_number(text):
            continue
        name, sep, inline = text.lstrip("-").partition("=")
        if sep:
            found[name] = Flag(name, inline, field.word.raw, field.line, field.origin, field.file)
            continue
        nxt = items[index] if index < len(items) else None
        said = nxt is not None and (nxt.value or "").lower() in ("true", "false")
        if (name in switches and not said) or nxt is None or (nxt.value or "").startswith("--"):
            found[name] = Flag(name, "", field.word.raw, field.line, field.origin, field.file)
            continue
        index += 1
        origin = nxt.origin if nxt.value is not None else "runtime"
        found[name] = Flag(name, nxt.value, f"{field.word.raw} {nxt.word.raw}", nxt.line, origin, nxt.file)
    for name, flag in found.items():
        if name in valued and flag.value == "":
            found[name] = replace(flag, value=None, origin="runtime")
    return found


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def module_after(command: Command, flag: str = "-m") -> tuple[str | None, int]:
    """The module after ``-m`` (or the first ``*.py``) and the index of the argument after it."""
    values = [field.value for field in command.fields]
    for index, text in enumerate(values):
        if text == flag and index + 1 < len(values):
            return values[index + 1], index + 2
        if text and text.endswith(".py") and "=" not in text and not text.startswith("-"):
            return text.removeprefix("./"), index + 1
    return None, len(values)
