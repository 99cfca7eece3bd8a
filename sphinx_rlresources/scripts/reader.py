"""Read a bash tuning script without running it: what would the trainer be told?

A row in a resource table claims what its script does (GPUs, backend, engine, model,
batch).  To check that claim the script must be read, but scripts are untrusted: they
are never executed, sourced or passed to a shell.  This module understands the small
part of bash that launchers use -- line continuations, quoting, comments, ``X=...`` and
``export X=...`` assignments, ``$X`` and ``${X}``, integer ``$(( ... ))`` arithmetic and
Hydra-style ``key=value`` overrides on the trainer's command line -- and resolves every
value it can.  Anything it cannot know for sure (a variable set outside the script, a
command substitution, an assignment made inside ``if``/loops/functions, ``$@``) is
*unknown*, represented by ``None``; callers never treat unknown as a mismatch.

Nothing here imports Sphinx: the build, ``rlresources lint`` and ``rlresources new`` all
read scripts through :func:`read_script`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

MAX_SCRIPT_CHARS = 1_000_000
"""A larger script is not read (reported as a problem): launchers are a few KiB."""
MAX_VALUE_CHARS = 65_536
"""A variable that grows beyond this (``a=$a$a`` doubling) becomes unknown."""
MAX_NESTING = 32
"""Deeper ``${a:-${b:-...}}`` or ``$(( ((...)) ))`` nesting becomes unknown."""
MAX_ARITH_CHARS = 4096
MAX_PARAMETER_CHARS = 4096
"""A longer ``${...}`` is unknown unparsed: real defaults are short, and each nesting
level would otherwise re-read the text."""
MAX_INT = 2**63 - 1
"""Bash integers are 64-bit; a result beyond that is unknown rather than wrapped."""

#: Variables a launcher may rightly take from its environment without setting them.
WELL_KNOWN_ENV = frozenset(
    {
        "HOME",
        "PWD",
        "OLDPWD",
        "USER",
        "LOGNAME",
        "SHELL",
        "PATH",
        "HOSTNAME",
        "HOST",
        "TMPDIR",
        "TMP",
        "TEMP",
        "LANG",
        "LC_ALL",
        "TERM",
        "UID",
        "EUID",
        "PPID",
        "RANDOM",
        "SECONDS",
        "LINENO",
        "BASH_SOURCE",
        "BASH_VERSION",
        "BASHPID",
        "HOSTTYPE",
        "OSTYPE",
        "MACHTYPE",
        "IFS",
        "SHLVL",
        "EPOCHSECONDS",
        "EPOCHREALTIME",
        "FUNCNAME",
        "PYTHONPATH",
        "LD_LIBRARY_PATH",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "MASTER_ADDR",
        "MASTER_PORT",
        "WORLD_SIZE",
        "RANK",
        "LOCAL_RANK",
        "NODE_RANK",
    }
)
#: Prefixes of variables that schedulers and libraries set (``SLURM_NNODES``, ``HF_HOME``).
WELL_KNOWN_ENV_PREFIXES = (
    "SLURM_",
    "PBS_",
    "OMPI_",
    "PMI_",
    "PMIX_",
    "RAY_",
    "WANDB_",
    "HF_",
    "HUGGINGFACE_",
    "CUDA_",
    "NCCL_",
    "VLLM_",
    "SGLANG_",
    "TORCH_",
    "XDG_",
)

#: verl's own trainer configs; other names may set anything, so defaults are not assumed.
STOCK_CONFIGS = frozenset({"ppo_trainer", "ppo_megatron_trainer"})
#: The trainers whose default config is ``ppo_trainer``.
STOCK_ENTRY_POINTS = frozenset({"verl.trainer.main_ppo", "verl/trainer/main_ppo.py"})

_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGN_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\+?)=")
_KEY_RE = re.compile(r"(\+\+|\+)?([A-Za-z_][A-Za-z0-9_\-]*(?:[./@][A-Za-z0-9_\-]+)*)")
_INT_RE = re.compile(r"[+-]?[0-9]{1,19}")
_LITERAL_RUN = re.compile(r"[^\s;&|()<>\\'\"$`]+")
_PARAM_OPS = (":-", ":=", ":+", ":?", "-", "=", "+", "?")
_RESERVED_DROP = frozenset({"then", "else", "elif", "do", "!", "time"})


def is_well_known_env(name: str) -> bool:
    """Whether ``name`` is a variable a script may take from its environment unremarked."""
    return name in WELL_KNOWN_ENV or name.startswith(WELL_KNOWN_ENV_PREFIXES)


# -- results -----------------------------------------------------------------------


@dataclass(frozen=True)
class Override:
    """One ``key=value`` argument of the trainer command.

    ``value`` is the value after shell expansion, or None when any part of it is unknown;
    ``tail`` is the known text after the last unknown part (all of it when known), so
    ``$HOME/models/Qwen2.5-7B`` still shows its last path part.  ``raw`` is the argument
    as written and ``line`` the 1-based line it starts on.
    """

    key: str
    value: str | None
    raw: str
    line: int
    tail: str = ""

    @property
    def shown(self) -> str:
        """``key=value`` with the resolved value, or as written when it is unknown."""
        return f"{self.key}={self.value}" if self.value is not None else self.raw


@dataclass(frozen=True)
class ScriptProblem:
    """A "script sanity" finding: a mistake in the script itself, at a 1-based line.

    ``key`` is the override it concerns (empty for the script as a whole), so a value
    already blamed here is not reported a second time as a mismatch.
    """

    line: int
    message: str
    key: str = ""


@dataclass(frozen=True)
class ScriptSettings:
    """What the trainer command of a script sets, as far as it can be known."""

    overrides: dict[str, Override] = field(default_factory=dict)
    config_name: str | None = None
    config_name_line: int = 0
    trainer_line: int = 0
    """The line the trainer command starts on (0: no command with ``a.b=c`` overrides)."""
    entry_point: str | None = None
    """What the trainer command runs: the module after ``-m``, or the first ``*.py``."""
    problems: list[ScriptProblem] = field(default_factory=list)
    variables: dict[str, str | None] = field(default_factory=dict)
    """The script's top-level variables at its end (None: unknown)."""

    # -- raw access --------------------------------------------------------------
    def text(self, key: str) -> str | None:
        """The known value of an override, with one layer of Hydra quotes removed."""
        override = self.overrides.get(key)
        if override is None or override.value is None:
            return None
        value = override.value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        return value

    def integer(self, key: str) -> int | None:
        value = self.text(key)
        if value is None or not _INT_RE.fullmatch(value):
            return None
        return int(value)

    @property
    def stock_config(self) -> bool:
        """Whether the trainer uses one of verl's own configs, whose defaults are known.

        Without ``--config-name`` that is only so for verl's PPO entry point: a recipe's
        own trainer (``recipe.dapo.main_dapo``) brings its own default config.
        """
        if self.config_name is None:
            return self.config_name_line == 0 and self.entry_point in STOCK_ENTRY_POINTS
        name = self.config_name.strip().strip("'\"")
        if name.endswith(".yaml"):
            name = name[: -len(".yaml")]
        return name in STOCK_CONFIGS

    # -- the settings a row is checked against -----------------------------------
    @property
    def n_gpus_per_node(self) -> int | None:
        return self.integer("trainer.n_gpus_per_node")

    @property
    def nnodes(self) -> int | None:
        return self.integer("trainer.nnodes")

    @property
    def gpus(self) -> int | None:
        """GPUs used in all: ``n_gpus_per_node × nnodes`` when both are known."""
        per_node, nodes = self.n_gpus_per_node, self.nnodes
        if per_node is None or nodes is None:
            return None
        return per_node * nodes

    @property
    def rollout_name(self) -> str | None:
        value = self.text("actor_rollout_ref.rollout.name")
        return value.lower() if value else None

    @property
    def train_backend(self) -> str | None:
        """``megatron``, ``fsdp`` or None (unknown).

        ``actor_rollout_ref.actor.strategy`` decides when set; otherwise a config name
        naming megatron means megatron, and verl's default config means fsdp.
        """
        if "actor_rollout_ref.actor.strategy" in self.overrides:
            strategy = (self.text("actor_rollout_ref.actor.strategy") or "").lower()
            if strategy == "megatron":
                return "megatron"
            if strategy in ("fsdp", "fsdp2"):
                return "fsdp"
            return None
        if self.config_name is not None and "megatron" in self.config_name.lower():
            return "megatron"
        if self.stock_config:
            return "fsdp"
        return None

    @property
    def lora_rank(self) -> int | None:
        """The LoRA rank: 0 (full fine-tuning) when a stock config is used and not set."""
        if "actor_rollout_ref.model.lora_rank" in self.overrides:
            return self.integer("actor_rollout_ref.model.lora_rank")
        return 0 if self.stock_config else None

    @property
    def adv_estimator(self) -> str | None:
        value = self.text("algorithm.adv_estimator")
        return value.lower() if value else None

    @property
    def model_path(self) -> str | None:
        return self.text("actor_rollout_ref.model.path")

    @property
    def train_batch_size(self) -> int | None:
        return self.integer("data.train_batch_size")


# -- lexing --------------------------------------------------------------------------


class Lit(NamedTuple):
    text: str
    quoted: bool


class Var(NamedTuple):
    name: str
    op: str | None
    arg: tuple[Part, ...]
    quoted: bool


class Arith(NamedTuple):
    expr: str
    quoted: bool


class Opaque(NamedTuple):
    """Something whose value cannot be known: ``$(cmd)``, `` `cmd` ``, ``$@``, ``${#x}``."""

    kind: str
    quoted: bool


Part = Lit | Var | Arith | Opaque


class Word(NamedTuple):
    parts: tuple[Part, ...]
    raw: str
    line: int
    end: int


class Op(NamedTuple):
    text: str
    line: int


Token = Word | Op


class _Lexer:
    """Split script text into words (with their expansions) and control operators."""

    def __init__(self, text: str, line: int = 1, depth: int = 0) -> None:
        self.text = text
        self.pos = 0
        self.line = line
        self.depth = depth
        self.heredocs: list[tuple[str, bool]] = []

    # -- helpers ---------------------------------------------------------------------
    def _advance_to(self, pos: int) -> None:
        pos = min(pos, len(self.text))
        self.line += self.text.count("\n", self.pos, pos)
        self.pos = pos

    def _closing_quote(self, start: int, quote: str) -> int:
        """Index just after the quote closing the one at ``start`` (or the end)."""
        i = start + 1
        text = self.text
        while i < len(text):
            c = text[i]
            if c == "\\" and quote != "'":
                i += 2
                continue
            if c == quote:
                return i + 1
            i += 1
        return len(text)

    def _matching(self, start: int, opener: str, closer: str) -> int:
        """Index just after the ``closer`` balancing the ``opener`` at ``start``."""
        text = self.text
        depth = 0
        i = start
        while i < len(text):
            c = text[i]
            if c == "\\":
                i += 2
                continue
            if c in "'\"`":
                i = self._closing_quote(i, c)
                continue
            if c == opener:
                depth += 1
            elif c == closer:
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        return len(text)

    # -- tokens ------------------------------------------------------------------------
    def tokens(self) -> list[Token]:
        out: list[Token] = []
        text = self.text
        n = len(text)
        while self.pos < n:
            c = text[self.pos]
            if c in " \t\r\f\v":
                self.pos += 1
            elif c == "\\" and text.startswith("\\\n", self.pos):
                self._advance_to(self.pos + 2)
            elif c == "#":
                end = text.find("\n", self.pos)
                self.pos = n if end < 0 else end
            elif c == "\n":
                out.append(Op("\n", self.line))
                self._advance_to(self.pos + 1)
                self._skip_heredocs()
            elif c in "<>" or (c == "&" and text.startswith(">", self.pos + 1)):
                self._redirection(out)
            elif c in ";&|()":
                two = text[self.pos : self.pos + 2]
                op = two if two in (";;", "&&", "||", "|&", ";&") else c
                out.append(Op(op, self.line))
                self.pos += len(op)
            else:
                out.append(self.word())
        return out

    def _redirection(self, out: list[Token]) -> None:
        text = self.text
        last = out[-1] if out else None
        if isinstance(last, Word) and last.end == self.pos and last.raw.isdigit():
            out.pop()  # the file descriptor of 2>&1
        match = re.compile(r"&>>|&>|<<<|<<-|<<|<>|<&|>&|>>|>\||<|>").match(text, self.pos)
        op = match.group(0) if match else text[self.pos]
        self.pos += len(op)
        if op in ("<", ">") and text.startswith("(", self.pos):
            self._advance_to(self._matching(self.pos, "(", ")"))  # <(cmd): process substitution
            return
        while self.pos < len(text) and text[self.pos] in " \t":
            self.pos += 1
        if self.pos >= len(text) or text[self.pos] in "\n;&|()<>":
            return
        target = self.word()
        if op in ("<<", "<<-"):
            delimiter = "".join(p.text for p in target.parts if isinstance(p, Lit))
            self.heredocs.append((delimiter, op == "<<-"))

    def _skip_heredocs(self) -> None:
        """Skip the bodies of the here-documents opened on the line just ended."""
        pending, self.heredocs = self.heredocs, []
        for delimiter, strip_tabs in pending:
            while self.pos < len(self.text):
                end = self.text.find("\n", self.pos)
                end = len(self.text) if end < 0 else end
                line = self.text[self.pos : end]
                self._advance_to(end + 1)
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    break

    def word(self) -> Word:
        text = self.text
        start, line = self.pos, self.line
        parts: list[Part] = []
        while self.pos < len(text):
            c = text[self.pos]
            if c in " \t\r\f\v\n;&|<>)":
                break
            if c == "(":
                if parts and _ASSIGN_RE.fullmatch("".join(p.text for p in parts if isinstance(p, Lit))):
                    end = self._matching(self.pos, "(", ")")  # an array: X=(a b c)
                    self._advance_to(end)
                    parts.append(Opaque("array", False))
                    continue
                break
            if c == "\\":
                if text.startswith("\\\n", self.pos):
                    self._advance_to(self.pos + 2)
                else:
                    parts.append(Lit(text[self.pos + 1 : self.pos + 2], True))
                    self.pos += 2
            elif c == "'":
                end = self._closing_quote(self.pos, "'")
                closed = text[end - 1 : end] == "'" and end - 1 > self.pos
                parts.append(Lit(text[self.pos + 1 : end - 1 if closed else end], True))
                self._advance_to(end)
            elif c == '"':
                self._double_quoted(parts)
            elif c == "$":
                self._dollar(parts, quoted=False)
            elif c == "`":
                end = self._closing_quote(self.pos, "`")
                self._advance_to(end)
                parts.append(Opaque("command", False))
            else:
                match = _LITERAL_RUN.match(text, self.pos)
                run = match.group(0) if match else c
                parts.append(Lit(run, False))
                self.pos += len(run)
        return Word(tuple(parts), text[start : self.pos], line, self.pos)

    def _double_quoted(self, parts: list[Part], closing: bool = True) -> None:
        """Parse ``"..."`` at the position, or (``closing=False``) the rest of the text
        as if it were inside double quotes (the word of ``"${X:-word}"``)."""
        text = self.text
        if closing:
            self.pos += 1
        literal: list[str] = []

        def flush() -> None:
            if literal:
                parts.append(Lit("".join(literal), True))
                literal.clear()

        while self.pos < len(text):
            c = text[self.pos]
            if c == '"' and closing:
                self.pos += 1
                break
            if c == "\\":
                nxt = text[self.pos + 1 : self.pos + 2]
                if nxt == "\n":
                    self._advance_to(self.pos + 2)
                elif nxt in ("$", "`", '"', "\\"):
                    literal.append(nxt)
                    self.pos += 2
                else:
                    literal.append(c)
                    self.pos += 1
            elif c == "$":
                flush()
                self._dollar(parts, quoted=True)
            elif c == "`":
                flush()
                self._advance_to(self._closing_quote(self.pos, "`"))
                parts.append(Opaque("command", True))
            else:
                if c == "\n":
                    self.line += 1
                literal.append(c)
                self.pos += 1
        flush()

    def _dollar(self, parts: list[Part], quoted: bool) -> None:
        text = self.text
        nxt = text[self.pos + 1 : self.pos + 2]
        if text.startswith("$((", self.pos):
            end = self._matching(self.pos + 1, "(", ")")
            inner = text[self.pos + 3 : end - 2] if text[end - 2 : end] == "))" else None
            self._advance_to(end)
            parts.append(Arith(inner, quoted) if inner is not None else Opaque("arithmetic", quoted))
        elif nxt == "(":
            self._advance_to(self._matching(self.pos + 1, "(", ")"))
            parts.append(Opaque("command", quoted))
        elif nxt == "{":
            end = self._matching(self.pos + 1, "{", "}")
            inner = text[self.pos + 2 : end - 1] if text[end - 1 : end] == "}" else ""
            line = self.line
            self._advance_to(end)
            parts.append(self._parameter(inner, quoted, line))
        elif nxt == "'" and not quoted:
            end = self.pos + 2
            while end < len(text) and text[end] != "'":
                end += 2 if text[end] == "\\" else 1
            body = text[self.pos + 2 : min(end, len(text))]
            self._advance_to(end + 1)
            parts.append(Lit(_ansi_c(body), True))
        elif nxt and ((nxt.isascii() and nxt.isalpha()) or nxt == "_"):  # bash names are ASCII ($é is text)
            match = _NAME_RE.match(text, self.pos + 1)
            assert match is not None
            parts.append(Var(match.group(0), None, (), quoted))
            self.pos = match.end()
        elif nxt and (nxt.isdigit() or nxt in "@*#?$!-"):
            parts.append(Opaque("special", quoted))
            self.pos += 2
        else:
            parts.append(Lit("$", quoted))
            self.pos += 1

    def _parameter(self, inner: str, quoted: bool, line: int) -> Part:
        """``${...}``: a plain name, a name with a default/alternative, or unknown."""
        match = _NAME_RE.match(inner)
        if not match:
            return Opaque("special", quoted)
        if len(inner) > MAX_PARAMETER_CHARS:
            return Opaque("nested", quoted)
        name, rest = match.group(0), inner[match.end() :]
        if not rest:
            return Var(name, None, (), quoted)
        for op in _PARAM_OPS:
            if rest.startswith(op):
                if self.depth >= MAX_NESTING:
                    return Opaque("nested", quoted)
                sub = _Lexer(rest[len(op) :], line, self.depth + 1)
                arg: list[Part] = []
                if quoted:
                    sub._double_quoted(arg, closing=False)
                else:
                    while sub.pos < len(sub.text):
                        if sub.text[sub.pos] in " \t\n":
                            arg.append(Lit(sub.text[sub.pos], False))
                            sub._advance_to(sub.pos + 1)
                            continue
                        before = sub.pos
                        arg.extend(sub.word().parts)
                        if sub.pos == before:
                            arg.append(Lit(sub.text[sub.pos], False))
                            sub.pos += 1
                return Var(name, op, tuple(arg), quoted)
        return Opaque("parameter", quoted)


def _ansi_c(body: str) -> str:
    escapes = {"n": "\n", "t": "\t", "\\": "\\", "'": "'", '"': '"', "r": "\r", "a": "\a", "e": "\x1b", "0": "\0"}
    return re.sub(r"\\(.)", lambda m: escapes.get(m.group(1), "\\" + m.group(1)), body, flags=re.DOTALL)


# -- arithmetic ------------------------------------------------------------------------


class _Unknown(Exception):
    """An arithmetic value that cannot be known: the caller turns it into None."""


_ARITH_TOKEN = re.compile(
    r"\s*(0[xX][0-9a-fA-F]+|[0-9]+"  # numbers
    r"|\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$?[A-Za-z_][A-Za-z0-9_]*"  # names
    r"|\*\*|[-+*/%()])"  # operators
)


class _Value(NamedTuple):
    value: str | None
    missing: frozenset[str]
    tail: str = ""
    """When the value is unknown: its known end (``$ROOT/models/X`` keeps ``/models/X``)."""


class _Arith:
    """A tiny evaluator for ``+ - * / % **`` and parentheses over integers and names."""

    def __init__(self, lookup: _Interpreter, depth: int) -> None:
        self.lookup = lookup
        self.depth = depth
        self.missing: set[str] = set()
        self.tokens: list[str] = []
        self.i = 0

    def evaluate(self, expr: str) -> int:
        if len(expr) > MAX_ARITH_CHARS or self.depth > MAX_NESTING:
            raise _Unknown
        pos, tokens = 0, []
        end = len(expr.rstrip())
        while pos < end:
            match = _ARITH_TOKEN.match(expr, pos)
            if not match:
                raise _Unknown
            tokens.append(match.group(1))
            pos = match.end()
        if not tokens:
            raise _Unknown
        self.tokens, self.i = tokens, 0
        value = self._sum(0)
        if self.i != len(self.tokens):
            raise _Unknown
        return value

    def _peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def _take(self) -> str:
        if self.i >= len(self.tokens):
            raise _Unknown
        self.i += 1
        return self.tokens[self.i - 1]

    def _sum(self, nest: int) -> int:
        value = self._product(nest)
        while self._peek() in ("+", "-"):
            op = self._take()
            right = self._product(nest)
            value = _bounded(value + right if op == "+" else value - right)
        return value

    def _product(self, nest: int) -> int:
        value = self._power(nest)
        while self._peek() in ("*", "/", "%"):
            op = self._take()
            right = self._power(nest)
            if op == "*":
                value = _bounded(value * right)
            elif right == 0:
                raise _Unknown
            else:
                quotient = abs(value) // abs(right) * (1 if (value >= 0) == (right > 0) else -1)
                value = quotient if op == "/" else value - right * quotient
        return value

    def _power(self, nest: int) -> int:
        base = self._unary(nest)
        if self._peek() != "**":
            return base
        self._take()
        exponent = self._power(nest)
        if exponent < 0:
            raise _Unknown
        if abs(base) > 1 and exponent * abs(base).bit_length() > 64:
            raise _Unknown
        return _bounded(base**exponent)

    def _unary(self, nest: int) -> int:
        if nest > MAX_NESTING:
            raise _Unknown
        sign = self._peek()
        if sign in ("+", "-"):
            self._take()
            value = self._unary(nest + 1)
            return -value if sign == "-" else value
        return self._atom(nest)

    def _atom(self, nest: int) -> int:
        symbol = self._take()
        if symbol == "(":
            value = self._sum(nest + 1)
            if self._take() != ")":
                raise _Unknown
            return value
        if symbol[0].isdigit():
            if symbol[:2].lower() == "0x":
                return _bounded(int(symbol, 16))
            if len(symbol) > 1 and symbol[0] == "0":
                if not set(symbol) <= set("01234567"):
                    raise _Unknown
                return _bounded(int(symbol, 8))
            if len(symbol) > 20:
                raise _Unknown
            return _bounded(int(symbol))
        if symbol[0] == "$" or symbol[0].isalpha() or symbol[0] == "_":
            name = symbol.strip("${}")
            found = self.lookup.variable(name)
            self.missing |= found.missing
            if found.value is None:
                raise _Unknown
            text = found.value.strip()
            if text == "":
                return 0
            if _INT_RE.fullmatch(text):
                return _bounded(int(text))
            inner = _Arith(self.lookup, self.depth + 1)
            try:
                return inner.evaluate(text)
            finally:
                self.missing |= inner.missing
        raise _Unknown


def _bounded(value: int) -> int:
    if -MAX_INT - 1 <= value <= MAX_INT:
        return value
    raise _Unknown


# -- interpreting ----------------------------------------------------------------------


class _Expanded(NamedTuple):
    value: str | None
    tail: str
    missing: frozenset[str]


class _Interpreter:
    """Walk the commands in order, tracking variables, and record the trainer command."""

    def __init__(self) -> None:
        self.vars: dict[str, _Value] = {}
        self.opaque = False
        """True once the script sources or evals something: unset variables may come from it."""
        self.blocks: list[str] = []
        self.overrides: dict[str, Override] = {}
        self.config_name: str | None = None
        self.config_name_line = 0
        self.trainer_line = 0
        self.entry_point: str | None = None
        self.problems: list[ScriptProblem] = []
        self.chained = False
        """True for a command after ``&&``, ``||`` or ``|``: it may not run, or runs apart."""

    # -- expansion -----------------------------------------------------------------------
    def variable(self, name: str) -> _Value:
        if name in self.vars:
            return self.vars[name]
        if self.opaque or is_well_known_env(name):
            return _Value(None, frozenset())
        return _Value(None, frozenset({name}))

    def expand(self, parts: tuple[Part, ...], depth: int = 0) -> _Expanded:
        segments: list[str | None] = []
        missing: set[str] = set()
        for part in parts:
            if isinstance(part, Lit):
                segments.append(part.text)
            elif isinstance(part, Var):
                found = self._parameter(part, depth)
                segments.append(found.value)
                if found.value is None and found.tail:
                    segments.append(found.tail)
                missing |= found.missing
            elif isinstance(part, Arith):
                evaluator = _Arith(self, depth)
                try:
                    segments.append(str(evaluator.evaluate(part.expr)))
                except (_Unknown, RecursionError):
                    segments.append(None)
                missing |= evaluator.missing
            else:
                segments.append(None)
        unknown_at = max((i for i, s in enumerate(segments) if s is None), default=-1)
        tail = "".join(s for s in segments[unknown_at + 1 :] if s is not None)
        if unknown_at >= 0:
            return _Expanded(None, tail[:MAX_VALUE_CHARS], frozenset(missing))
        value = "".join(s for s in segments if s is not None)
        if len(value) > MAX_VALUE_CHARS:
            return _Expanded(None, "", frozenset(missing))
        return _Expanded(value, value, frozenset(missing))

    def _parameter(self, part: Var, depth: int) -> _Expanded:
        if part.op is None:
            found = self.variable(part.name)
            return _Expanded(found.value, found.tail, found.missing)
        unknown = _Expanded(None, "", frozenset())
        if depth > MAX_NESTING:
            return unknown
        if part.name not in self.vars:
            # Set outside the script, or defaulted: the environment decides.  Naming a
            # default or an error (:- :? ...) shows the author expected that, so no problem.
            if part.op in (":=", "="):
                self.vars[part.name] = _Value(None, frozenset())
            return unknown
        found = self.vars[part.name]
        if found.value is None:
            return _Expanded(None, "", found.missing)
        if part.op in (":+", "+"):
            if part.op == ":+" and found.value == "":
                return _Expanded("", "", frozenset())
            return self.expand(part.arg, depth + 1)
        if part.op in (":-", ":=") and found.value == "":
            default = self.expand(part.arg, depth + 1)
            if part.op == ":=":
                self.vars[part.name] = _Value(default.value, default.missing, default.tail)
            return default
        return _Expanded(found.value, found.value, found.missing)

    # -- commands ------------------------------------------------------------------------
    def run(self, tokens: list[Token]) -> None:
        words: list[Word] = []
        after = ""
        for token in tokens:
            if isinstance(token, Word):
                words.append(token)
                continue
            if token.text == "(":
                if not words:
                    self.blocks.append("(")
                else:
                    words = []  # a function definition: name ( )
                continue
            if token.text == ")":
                if self.blocks and self.blocks[-1] == "case":
                    words = []  # a case pattern
                    continue
                self.command(words, after)
                words = []
                if self.blocks and self.blocks[-1] == "(":
                    self.blocks.pop()
                continue
            self.command(words, after)
            words = []
            after = token.text
        self.command(words, after)

    def command(self, words: list[Word], after: str = "") -> None:
        """Run one simple command; ``after`` is the operator before it (``&&``, ``|``...)."""
        words = self._strip_reserved(words)
        if not words:
            return
        self.chained = after in ("&&", "||", "|", "|&")
        assignments = 0
        for word in words:
            if self._assignment(word) is None:
                break
            assignments += 1
        if assignments == len(words):
            for word in words:
                self._assign(word)
            return
        words = words[assignments:]  # FOO=1 cmd: FOO is set for cmd only
        name = self._literal(words[0])
        if name in ("export", "declare", "typeset", "local", "readonly"):
            for word in words[1:]:
                if self._assignment(word) is not None:
                    self._assign(word, force_unknown=name == "local")
            return
        if name in ("source", ".", "eval"):
            self.opaque = True
            return
        if name in ("unset", "read", "mapfile", "readarray", "getopts", "let", "printf"):
            for word in words[1:]:
                text = self._literal(word) or ""
                target = text.split("=", 1)[0]
                if _NAME_RE.fullmatch(target):
                    self.vars[target] = _Value(None, frozenset())
            return
        self._maybe_trainer(words)

    def _strip_reserved(self, words: list[Word]) -> list[Word]:
        while words:
            first = self._literal(words[0])
            if first in ("if", "while", "until", "{"):
                self.blocks.append(first)
            elif first in _RESERVED_DROP:
                pass
            elif first in ("fi", "done", "esac", "}"):
                if self.blocks:
                    self.blocks.pop()
            elif first in ("for", "select"):
                self.blocks.append("for")
                if len(words) > 1:
                    loop_var = self._literal(words[1]) or ""
                    if _NAME_RE.fullmatch(loop_var):
                        self.vars[loop_var] = _Value(None, frozenset())
                return []
            elif first == "case":
                self.blocks.append("case")
                return []
            elif first == "function":
                words = words[1:]
            else:
                return words
            words = words[1:]
        return words

    @staticmethod
    def _literal(word: Word) -> str | None:
        """The word's text when it has no expansion at all."""
        if all(isinstance(p, Lit) for p in word.parts):
            return "".join(p.text for p in word.parts if isinstance(p, Lit))
        return None

    @staticmethod
    def _assignment(word: Word) -> tuple[str, bool, tuple[Part, ...]] | None:
        """(name, append, value parts) for ``NAME=value`` / ``NAME+=value``."""
        if not word.parts or not isinstance(word.parts[0], Lit) or word.parts[0].quoted:
            return None
        match = _ASSIGN_RE.match(word.parts[0].text)
        if not match:
            return None
        rest = word.parts[0].text[match.end() :]
        value = ((Lit(rest, False),) if rest else ()) + word.parts[1:]
        return match.group(1), bool(match.group(2)), value

    def _assign(self, word: Word, force_unknown: bool = False) -> None:
        found = self._assignment(word)
        if found is None:
            return
        name, append, parts = found
        expanded = self.expand(parts)
        value, tail = expanded.value, expanded.tail
        if append:
            before = self.vars.get(name, _Value(None, frozenset()))
            if before.value is not None and value is not None:
                value = tail = before.value + value
            elif value is not None:
                tail = before.tail + value
                value = None
        if force_unknown or self.blocks or self.chained:
            value, tail = None, ""  # set inside if/loop/function: which value applies is not known
        if len(value or "") > MAX_VALUE_CHARS or len(tail) > MAX_VALUE_CHARS:
            value, tail = None, ""
        self.vars[name] = _Value(value, expanded.missing, tail)

    # -- the trainer command ---------------------------------------------------------------
    def _fields(self, words: list[Word]) -> list[tuple[Word, str | None]]:
        """Each argument, with an unquoted lone ``$ARGS`` split into its words."""
        out: list[tuple[Word, str | None]] = []
        for word in words:
            parts = word.parts
            if len(parts) == 1 and isinstance(parts[0], Var) and not parts[0].quoted:
                expanded = self.expand(parts)
                if expanded.value is None:
                    continue  # $EXTRA_ARGS from outside: whatever it holds is unknown
                out.extend((Word((Lit(f, False),), f, word.line, word.end), f) for f in expanded.value.split())
                continue
            if len(parts) == 1 and isinstance(parts[0], Opaque):
                continue  # $@, $(cmd): extra arguments given at run time
            out.append((word, None))
        return out

    def _maybe_trainer(self, words: list[Word]) -> None:
        if self.trainer_line:
            return
        fields = self._fields(words)
        found: list[tuple[str, Word, tuple[Part, ...]]] = []
        for word, _split in fields:
            lead = ""
            for index, part in enumerate(word.parts):
                if not isinstance(part, Lit):
                    break
                lead += part.text
                if "=" in lead:
                    key, rest = lead.split("=", 1)
                    match = _KEY_RE.fullmatch(key)
                    if match and not key.startswith("-"):
                        value = ((Lit(rest, part.quoted),) if rest else ()) + word.parts[index + 1 :]
                        found.append((match.group(2), word, value))
                    break
        if not any("." in key for key, _, _ in found):
            return
        self.trainer_line = words[0].line
        for key, word, value_parts in found:
            expanded = self.expand(value_parts)
            self.overrides[key] = Override(key, expanded.value, word.raw, word.line, expanded.tail)
            self._check_override(key, word, value_parts, expanded)
        self._config_name(fields)
        self._entry_point(fields)

    def _entry_point(self, fields: list[tuple[Word, str | None]]) -> None:
        texts = [self._literal(word) for word, _split in fields]
        for index, text in enumerate(texts):
            if text == "-m" and index + 1 < len(texts):
                self.entry_point = texts[index + 1]
                return
            if text and text.endswith(".py") and "=" not in text:
                self.entry_point = text.removeprefix("./")
                return

    def _config_name(self, fields: list[tuple[Word, str | None]]) -> None:
        for index, (word, _split) in enumerate(fields):
            lead = word.parts[0].text if word.parts and isinstance(word.parts[0], Lit) else ""
            for flag in ("--config-name", "-cn"):
                if lead == flag and index + 1 < len(fields):
                    target = fields[index + 1][0]
                    self.config_name = self.expand(target.parts).value
                    self.config_name_line = target.line
                elif lead.startswith(flag + "="):
                    rest = lead[len(flag) + 1 :]
                    parts = ((Lit(rest, False),) if rest else ()) + word.parts[1:]
                    self.config_name = self.expand(parts).value
                    self.config_name_line = word.line

    def _check_override(self, key: str, word: Word, parts: tuple[Part, ...], expanded: _Expanded) -> None:
        bare = "".join(p.text for p in parts if isinstance(p, Lit)) if all(isinstance(p, Lit) for p in parts) else None
        if bare and bare in self.vars and _NAME_RE.fullmatch(bare) and _looks_like_a_variable(key, bare):
            self.problems.append(
                ScriptProblem(
                    word.line,
                    f"{key}={bare} passes the word '{bare}', which is the name of a variable the "
                    f"script sets: a missing '$'? write {key}=${bare}",
                    key,
                )
            )
        for name in sorted(expanded.missing):
            self.problems.append(
                ScriptProblem(
                    word.line,
                    f"{word.raw} uses ${name}, which the script does not set before this line "
                    f"(nor is it a usual environment variable); set {name}=... in the script, "
                    f"or write ${{{name}:-default}} if it is meant to come from the environment",
                    key,
                )
            )


def _looks_like_a_variable(key: str, word: str) -> bool:
    """Whether a bare word passed for ``key`` is more likely a forgotten ``$NAME`` than a value.

    A plain lowercase word (``prompt``, ``auto``) is an ordinary value even when the
    script happens to have a variable of that name; the model path never is, and
    ``MODEL_PATH``, ``n_gpus`` or ``trainer.nnodes=nnodes`` read as variables.
    """
    last = key.rsplit(".", 1)[-1]
    return key == "actor_rollout_ref.model.path" or word.lower() == last.lower() or word != word.lower() or "_" in word


# -- the entry point -------------------------------------------------------------------


def read_script(text: str) -> ScriptSettings:
    """What the script's trainer command sets; never raises, never runs anything."""
    try:
        return _read(text)
    except (RecursionError, MemoryError):  # pragma: no cover - bounded above; a last resort
        return ScriptSettings(problems=[ScriptProblem(0, "the script is too deeply nested to be read")])


def _read(text: str) -> ScriptSettings:
    if len(text) > MAX_SCRIPT_CHARS:
        return ScriptSettings(
            problems=[
                ScriptProblem(
                    0,
                    f"the script is {len(text)} characters long, more than the {MAX_SCRIPT_CHARS} "
                    "read; nothing in it was checked",
                )
            ]
        )
    interpreter = _Interpreter()
    interpreter.run(_Lexer(text).tokens())
    return ScriptSettings(
        overrides=interpreter.overrides,
        config_name=interpreter.config_name,
        config_name_line=interpreter.config_name_line,
        trainer_line=interpreter.trainer_line,
        entry_point=interpreter.entry_point,
        problems=interpreter.problems,
        variables={name: value.value for name, value in interpreter.vars.items()},
    )
