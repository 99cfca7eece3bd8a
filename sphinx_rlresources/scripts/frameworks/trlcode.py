"""What a TRL example script's own code says about the run its docstring launches.

TRL's examples are launched with ``python examples/scripts/x.py`` or ``accelerate
launch … x.py``, and the trainer they run is not in the command: it is in the script
(``TrlParser((ScriptArguments, GRPOConfig, ModelConfig))``, or an ``argparse`` parser and
``GRPOTrainer(model=args.model_id, args=GRPOConfig(use_vllm=args.use_vllm, …))``).  When
a module's docstring launches the module itself, its code is read here -- as text, by
regular expressions over a bounded prefix; nothing is parsed as Python, imported or
run -- for three things only: which TRL config it trains with (so which trainer, and
whether that trainer samples completions), how ``use_vllm`` is decided, and the
model the trainer loads.  Anything the code does in a way not read here (an attribute
set after the config is built, a dict of keyword arguments) leaves the value unknown.

The trainers' defaults follow huggingface/trl@f2cd577 (the ``use_vllm`` field of each
config, cited in :data:`CONFIGS`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from sphinx_rlresources.scripts.docstring import docstring_span
from sphinx_rlresources.scripts.frameworks.argv import as_model
from sphinx_rlresources.scripts.frameworks.base import Flag, as_bool, from_override
from sphinx_rlresources.scripts.run import UNKNOWN, Found, Origin

T = TypeVar("T")
MAX_CODE = 400_000
"""Characters of a script read: TRL's examples are far shorter."""
MAX_CALL = 8_000
"""Characters of one call's arguments read."""


@dataclass(frozen=True)
class Trainer:
    """A TRL config class: the trainer it configures, whether it samples completions, and how."""

    name: str
    generates: bool
    """Whether training samples completions from the policy (so a rollout engine is used)."""
    vllm: str = ""
    """The config's ``use_vllm`` field (its file and line; its default is False), or ``""`` when it has none."""
    server: str = ""
    """The config's vLLM server URL field, for a trainer that always generates on a ``vllm serve`` it does not
    start (so in vLLM's server mode whatever the command says), or ``""``."""


_SAMPLERS = {
    "GRPOConfig": ("grpo", "trl/trainer/grpo_config.py:577"),
    "RLOOConfig": ("rloo", "trl/trainer/rloo_config.py:400"),
    "OnlineDPOConfig": ("online_dpo", "trl/experimental/online_dpo/online_dpo_config.py:266"),
    "SDPOConfig": ("sdpo", "trl/experimental/sdpo/sdpo_config.py:367"),
    "SDFTConfig": ("sdft", "trl/experimental/sdft/sdft_config.py:292"),
    "SSDConfig": ("ssd", "trl/experimental/ssd/ssd_config.py:175"),
    "GOLDConfig": ("gold", "trl/experimental/gold/gold_config.py:363"),
    "DistillationConfig": ("distillation", "trl/experimental/distillation/distillation_config.py:208"),
}
_SAMPLERS |= {  # subclasses that inherit the field (gmpo_config.py:21, nash_md_config.py:21, xpo_config.py:21)
    "GMPOConfig": ("gmpo", _SAMPLERS["GRPOConfig"][1]),
    "NashMDConfig": ("nash_md", _SAMPLERS["OnlineDPOConfig"][1]),
    "XPOConfig": ("xpo", _SAMPLERS["OnlineDPOConfig"][1]),
}
CONFIGS: dict[str, Trainer] = {
    **{config: Trainer(name, True, source) for config, (name, source) in _SAMPLERS.items()},
    # AsyncGRPO has no use_vllm: its rollout worker always asks the `vllm serve` at vllm_server_base_url
    # (async_grpo_trainer.py:783, the config's field at async_grpo_config.py:230)
    "AsyncGRPOConfig": Trainer("grpo", True, server="trl/experimental/async_grpo/async_grpo_config.py:230"),
    # GKD samples the student's own completions (lmbda, gkd_config.py:59) with transformers: no use_vllm field
    "GKDConfig": Trainer("gkd", True),
    # trainers that learn from a fixed dataset: no completion sampled, no engine
    **{
        f"{name}Config": Trainer(name.lower(), False)
        for name in ("SFT", "DPO", "KTO", "CPO", "ORPO", "BCO", "PRM", "Reward")
    },
}
"""TRL's config classes by name (those an example may train with), at huggingface/trl@f2cd577."""

# `^[ \t]*`, not `^\s*`: a run of blank lines would be rescanned from each of its lines
_IMPORTS_TRL = re.compile(r"^[ \t]*(?:from\s+trl(?:\.[\w.]+)?\s+import|import\s+trl\b)", re.MULTILINE)
_SUBCLASS = re.compile(r"^class\s+(\w+)\(\s*(\w+)\s*\)\s*:", re.MULTILINE)
_PARSER = re.compile(r"\b(?:TrlParser|HfArgumentParser)\(\s*\(([^()]{0,400})\)")
_CALL = re.compile(r"\b(\w+)\(")
_TOKEN = re.compile(r"""(?<![\w.'"])use_vllm\b|\.use_vllm\b|['"]use_vllm\b""")
_LITERAL = re.compile(r"""\s*(?:"([^"\\\n]*)"|'([^'\\\n]*)'|(True|False|None)\b|(\w+)\.(\w+)\b)""")


@dataclass(frozen=True)
class Said:
    """How the code decides one value: ``how`` is ``default`` (never set: the config's default), ``literal``
    (``what`` is the text written), ``flag`` (``what`` is the script's own flag's destination), ``unread``
    (set in a way not read here) or ``none`` (not said at all); ``line`` is where, in the file."""

    how: str
    what: str = ""
    line: int = 0


@dataclass(frozen=True)
class Argument:
    """One ``parser.add_argument("--name", …)`` of the script's own ``argparse`` parser."""

    default: str | bool | None
    switch: bool
    """``action="store_true"``: False unless the flag is given."""
    line: int


@dataclass(frozen=True)
class Code:
    """What the code of a TRL script settles, read once per file."""

    config: str
    """TRL's config class (the one the script's own subclasses, if it has one)."""
    trainer: Trainer
    parsed: bool
    """The command line is parsed into the config (``TrlParser``): its flags are the config's."""
    vllm: Said
    """How ``use_vllm`` is decided."""
    model: Said
    """The trainer's ``model=`` argument."""
    arguments: Mapping[str, Argument]

    def use_vllm(self, args: Mapping[str, Flag]) -> Found[bool]:
        """Whether the launch with ``args`` generates with vLLM, as the code decides it."""
        said = self.vllm
        if self.trainer.server:
            written = f"{self.config} generates on a vLLM server ({self.trainer.server})"
            return Found(True, Origin.FRAMEWORK_DEFAULT, 0, written)
        if not self.trainer.vllm:
            return Found(False, Origin.FRAMEWORK_DEFAULT, 0, f"{self.config} has no use_vllm")
        if said.how == "default":
            flag = args.get("use_vllm") if self.parsed else None
            if flag is not None:
                return from_override(flag.override(), as_bool)
            return Found(False, Origin.FRAMEWORK_DEFAULT, 0, f"use_vllm: False ({self.config}, {self.trainer.vllm})")
        if said.how == "literal":
            return Found(said.what == "True", Origin.SET, said.line, f"use_vllm={said.what} in the script's code")
        if said.how == "flag" and said.what in self.arguments:
            return self._flag(said.what, args, as_bool)
        return Found(None, Origin.UNKNOWN, said.line, "use_vllm is set in the script's code in a way not read here")

    def model_of(self, args: Mapping[str, Flag]) -> Found[str]:
        """The model the trainer loads, as the code decides it (unknown where the code does not say)."""
        said = self.model
        if said.how == "literal":
            value = as_model(said.what)
            written = f'model="{said.what}" in the script\'s code'
            return Found(value, Origin.SET if value else Origin.UNKNOWN, said.line, written)
        if said.how == "flag" and said.what in self.arguments:
            return self._flag(said.what, args, as_model)
        return UNKNOWN

    def _flag(self, dest: str, args: Mapping[str, Flag], convert: Callable[[str], T | None]) -> Found[T]:
        return _own_flag(self.arguments[dest], dest, args, convert)


def _own_flag(argument: Argument, dest: str, args: Mapping[str, Flag], convert: Callable[[str], T | None]) -> Found[T]:
    """The script's own flag as the command gives it, else its default (``argparse``'s or its dataclass field's)."""
    flag = args.get(dest)
    if flag is not None:
        return from_override(flag.override(), convert)
    value = False if argument.switch and argument.default is None else argument.default
    if value is None:
        return Found(None, Origin.UNKNOWN, argument.line, f"--{dest} (no default)")
    text = str(value).lower() if isinstance(value, bool) else str(value)
    found = convert(text)
    origin = Origin.SCRIPT_DEFAULT if found is not None else Origin.UNKNOWN
    return Found(found, origin, argument.line, f"--{dest} (the script's default: {text})")


OFFLINE_DEFAULTS = {"tensor_parallel_size": "1", "gpu_memory_utilization": "0.9"}
"""vLLM's ``LLM()`` defaults for the arguments read (vllm/engine/arg_utils.py's EngineArgs)."""


@dataclass(frozen=True)
class Offline:
    """A TRL script that generates with vLLM's offline engine, ``LLM(model=…, tensor_parallel_size=…)``, and
    trains with none of TRL's configs (an evaluation: ``examples/scripts/ssd_eval.py``)."""

    line: int
    """The ``LLM(`` call's line."""
    said: Mapping[str, Said]
    """How the call gives ``model``, ``tensor_parallel_size`` and ``gpu_memory_utilization``."""
    arguments: Mapping[str, Argument]
    """The script's own flags: ``argparse`` arguments and the fields of its dataclasses (``TrlParser(Args)``)."""

    def value(self, name: str, args: Mapping[str, Flag], convert: Callable[[str], T | None]) -> Found[T]:
        """An argument of the ``LLM(`` call as the launch with ``args`` makes it (unsaid: vLLM's default)."""
        said = self.said.get(name, Said("none"))
        if said.how == "flag" and said.what in self.arguments:
            return _own_flag(self.arguments[said.what], said.what, args, convert)
        if said.how == "literal":
            found = convert(said.what)
            return Found(found, Origin.SET if found is not None else Origin.UNKNOWN, said.line, f"{name}={said.what}")
        if said.how == "none" and name in OFFLINE_DEFAULTS:
            fallback = convert(OFFLINE_DEFAULTS[name])
            return Found(fallback, Origin.FRAMEWORK_DEFAULT, 0, f"{name}: {OFFLINE_DEFAULTS[name]} (vLLM's default)")
        return Found(None, Origin.UNKNOWN, said.line, f"{name} is given to LLM() in a way not read here")


def read(text: str) -> Code | None:
    """The code's facts, or None when the module is not a script training with one of TRL's configs."""
    code = _code(text[:MAX_CODE])
    if not _IMPORTS_TRL.search(code):
        return None
    parents = dict(_SUBCLASS.findall(code))
    config, parsed = _config(code, parents)
    if config is None:
        return None
    config = _resolved(config, parents)
    trainer = CONFIGS[config]
    vllm = _vllm(code)
    if vllm.how == "default" and not parsed and _spread(code, config):
        vllm = Said("unread")  # GRPOConfig(**kwargs): the field may be in what is spread
    return Code(config, trainer, parsed, vllm, _model(code), _arguments(code))


def offline(text: str) -> Offline | None:
    """What a TRL script that calls vLLM's ``LLM(`` itself says, or None (no such call, or a TRL config trains)."""
    code = _code(text[:MAX_CODE])
    if not _IMPORTS_TRL.search(code) or not _IMPORTS_LLM.search(code):
        return None
    calls = list(re.finditer(r"(?<![\w.])LLM\(", code))
    if len(calls) != 1:
        return None  # none, or several engines: not one run read here
    arguments = _top_level(code, calls[0].end())
    line = _line(code, calls[0].start())
    said = {name: _keyword(arguments, name, line) for name in ("model", *OFFLINE_DEFAULTS)}
    return Offline(line, said, {**_fields(code), **_arguments(code)})


_IMPORTS_LLM = re.compile(r"^[ \t]*from\s+vllm\s+import\s+[^\n]*\bLLM\b", re.MULTILINE)
_VALUE = re.compile(r"""\s*(?:"([^"\\\n]*)"|'([^'\\\n]*)'|([0-9]+(?:\.[0-9]+)?)|(\w+)\.(\w+))\s*(?:,|$)""")


def _keyword(arguments: str, name: str, line: int) -> Said:
    """``name=`` in a call's top-level arguments: a literal, the script's flag (``args.x``), unread or none."""
    keyword = re.search(rf"(?:^|,)\s*{name}\s*=(?!=)", arguments)
    if keyword is None:
        return Said("unread", "", line) if "**" in arguments else Said("none")
    value = _VALUE.match(arguments[keyword.end() :])
    if value is None:
        return Said("unread", "", line)
    if value.group(5):
        return Said("flag", value.group(5), line)
    literal = next(group for group in value.groups()[:3] if group is not None)
    return Said("literal", literal, line)


def _fields(code: str) -> dict[str, Argument]:
    """The fields of the script's ``@dataclass`` classes (the arguments ``TrlParser(Args)`` parses), by name."""
    found: dict[str, Argument] = {}
    for header in re.finditer(r"^@dataclass(?:\([^)\n]*\))?\s*\nclass\s+\w+[^\n]*:\n", code, re.MULTILINE):
        body = re.match(r"(?:[ \t][^\n]*\n|\n)*", code[header.end() :])  # indented or blank lines
        start = header.end()
        for field in re.finditer(r"^[ \t]+(\w+)[ \t]*:[^=\n]*=[ \t]*([^\n]*)$", body.group(0) if body else "", re.M):
            default = re.match(
                r"""(?:field\([^\n]*?\bdefault\s*=\s*)?(?:"([^"\n]*)"|'([^'\n]*)'|(True|False)\b|([0-9.]+)\b)""",
                field.group(2),
            )
            value: str | bool | None = None
            if default is not None:  # `field(metadata=…)` alone has none: the flag is required
                texts = default.groups()
                value = texts[2] == "True" if texts[2] else next((t for t in texts if t is not None), None)
            found[field.group(1)] = Argument(value, False, _line(code, start + field.start()))
    return found


def _code(text: str) -> str:
    """The module without its docstring and its comment lines (lines kept, so numbers stay the file's)."""
    lines = text.splitlines()
    span = docstring_span(text)
    if span is not None:
        first, last = span
        lines[first - 1 : last] = [""] * (last - first + 1)
    return "\n".join("" if line.lstrip().startswith("#") else line for line in lines)


def _resolved(name: str, parents: Mapping[str, str]) -> str:
    """``ExampleSDPOConfig`` -> ``SDPOConfig`` when the script subclasses one of TRL's configs."""
    for _ in range(4):
        if name in CONFIGS or name not in parents:
            break
        name = parents[name]
    return name


def _config(code: str, parents: Mapping[str, str]) -> tuple[str | None, bool]:
    """The config the script trains with: the one its ``TrlParser`` parses, else the only one it builds."""
    for match in _PARSER.finditer(code):
        named = [n for n in re.findall(r"\w+", match.group(1)) if _resolved(n, parents) in CONFIGS]
        if len(named) == 1:
            return named[0], True
    built = {
        m.group(1) for m in _CALL.finditer(code) if _resolved(m.group(1), parents) in CONFIGS and not _defines(code, m)
    }
    return (built.pop(), False) if len(built) == 1 else (None, False)


def _spread(code: str, config: str) -> bool:
    """``GRPOConfig(**kwargs)``: any field may be set in what is spread."""
    return any("**" in _top_level(code, m.end()) for m in re.finditer(rf"\b{config}\(", code))


def _line(code: str, at: int) -> int:
    return code.count("\n", 0, at) + 1


def _vllm(code: str) -> Said:
    """``use_vllm`` as the code sets it: never (the config's default), a literal, the script's own flag."""
    found = [m for m in _TOKEN.finditer(code) if not _is_read(code, m)]
    if not found:
        return Said("default")
    match = found[0]
    line = _line(code, match.start())
    after = code[match.end() : match.end() + 200]
    keyword = re.match(r"\s*=(?!=)", after)
    if len(found) > 1 or match.group(0) != "use_vllm" or keyword is None:
        return Said("unread", "", line)
    value = _LITERAL.match(after[keyword.end() :])
    if value is None or not re.match(r"\s*[,)\n]", after[keyword.end() + value.end() :]):
        return Said("unread", "", line)
    if value.group(3) in ("True", "False"):
        return Said("literal", value.group(3), line)
    return Said("flag", value.group(5), line) if value.group(5) else Said("unread", "", line)


def _is_read(code: str, match: re.Match[str]) -> bool:
    """``args.use_vllm`` or ``if config.use_vllm:``: the value used, not set."""
    text = match.group(0)
    if text.startswith(("'", '"')):
        return False  # a key of a dict of arguments: set in a way not read here
    rest = code[match.end() : match.end() + 3]
    if text.startswith("."):
        return not re.match(r"\s*=(?!=)", rest)
    return False


def _model(code: str) -> Said:
    """The first ``…Trainer(`` call's ``model=`` argument (or its first positional one)."""
    for match in _CALL.finditer(code):
        if not match.group(1).endswith("Trainer") or match.group(1)[0].islower() or _defines(code, match):
            continue
        arguments = _top_level(code, match.end())
        line = _line(code, match.start())
        keyword = re.search(r"(?:^|,)\s*model\s*=(?!=)", arguments)
        start = keyword.end() if keyword else 0
        value = _LITERAL.match(arguments[start:])
        if value is None:
            return Said("unread", "", line)
        if value.group(1) is not None or value.group(2) is not None:
            return Said("literal", value.group(1) or value.group(2) or "", line)
        return Said("flag", value.group(5), line) if value.group(5) else Said("unread", "", line)
    return Said("none")


def _defines(code: str, match: re.Match[str]) -> bool:
    """``class MyTrainer(GRPOTrainer):`` defines a class; it does not build a trainer."""
    return code[max(0, match.start() - 12) : match.start()].rstrip().endswith("class")


def _top_level(code: str, start: int) -> str:
    """The arguments of the call opened just before ``start``, nested brackets blanked, strings kept."""
    out: list[str] = []
    depth, quote = 0, ""
    for char in code[start : start + MAX_CALL]:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                break
            depth -= 1
            continue
        out.append(char if depth == 0 else " ")
    return "".join(out)


def _arguments(code: str) -> dict[str, Argument]:
    """The script's ``add_argument`` calls by destination (``--model-id`` -> ``model_id``)."""
    found: dict[str, Argument] = {}
    for match in re.finditer(r"\.add_argument\(", code):
        text = _top_level(code, match.end())
        names = re.findall(r"""['"](--?[\w-]+)['"]""", text.split("=", 1)[0])
        longs = [n for n in names if n.startswith("--")]
        dest = re.search(r"""\bdest\s*=\s*['"](\w+)['"]""", text)
        name = dest.group(1) if dest else (longs[0][2:].replace("-", "_") if longs else "")
        if not name:
            continue
        switch = re.search(r"""\baction\s*=\s*['"]store_true['"]""", text) is not None
        value = re.search(r"""\bdefault\s*=\s*(?:"([^"\n]*)"|'([^'\n]*)'|(True|False)\b)""", text)
        default: str | bool | None = None
        if value is not None:
            default = value.group(3) == "True" if value.group(3) else (value.group(1) or value.group(2) or "")
        found[name] = Argument(default, switch, _line(code, match.start()))
    return found


__all__ = ["CONFIGS", "Argument", "Code", "Offline", "Said", "Trainer", "offline", "read"]
