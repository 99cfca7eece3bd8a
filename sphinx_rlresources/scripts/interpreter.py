"""Walking a script's commands in order: variables, assignments and the trainer command."""

from __future__ import annotations

from typing import NamedTuple

from sphinx_rlresources.safe.text import shown
from sphinx_rlresources.scripts.arith import Evaluator, Unknown, Value
from sphinx_rlresources.scripts.lexer import Arith, Lit, Opaque, Part, Token, Var, Word
from sphinx_rlresources.scripts.settings import Override, ScriptProblem
from sphinx_rlresources.scripts.shell import (
    ASSIGN_RE,
    MAX_NESTING,
    MAX_VALUE_CHARS,
    MAX_WORK,
    NAME_RE,
    is_well_known_env,
)
from sphinx_rlresources.scripts.verl import KEY_RE

RESERVED_DROP = frozenset({"then", "else", "elif", "do", "!", "time"})


class _Expanded(NamedTuple):
    value: str | None
    tail: str
    missing: frozenset[str]


class Interpreter:
    """Walk the commands in order, tracking variables, and record the trainer command."""

    def __init__(self) -> None:
        self.vars: dict[str, Value] = {}
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
        self.work = MAX_WORK

    def spend(self, steps: int) -> bool:
        """Take ``steps`` from the script's budget; once it is spent every further value is unknown (said once)."""
        if self.work <= 0:
            return False
        self.work -= steps
        if self.work <= 0:
            self.problems.append(
                ScriptProblem(
                    0,
                    f"reading the script's values took more than {MAX_WORK} steps of expansion and arithmetic "
                    "(variables that expand into each other many times over); the values after that are unknown",
                )
            )
            return False
        return True

    # -- expansion -----------------------------------------------------------------------
    def variable(self, name: str) -> Value:
        if name in self.vars:
            return self.vars[name]
        if self.opaque or is_well_known_env(name):
            return Value(None, frozenset())
        return Value(None, frozenset({name}))

    def expand(self, parts: tuple[Part, ...], depth: int = 0) -> _Expanded:
        if not self.spend(len(parts) + 1):
            return _Expanded(None, "", frozenset())
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
                evaluator = Evaluator(self, depth)
                try:
                    segments.append(str(evaluator.evaluate(part.expr)))
                except (Unknown, RecursionError):
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
                self.vars[part.name] = Value(None, frozenset())
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
                self.vars[part.name] = Value(default.value, default.missing, default.tail)
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
                if NAME_RE.fullmatch(target):
                    self.vars[target] = Value(None, frozenset())
            return
        self._maybe_trainer(words)

    def _strip_reserved(self, words: list[Word]) -> list[Word]:
        while words:
            first = self._literal(words[0])
            if first in ("if", "while", "until", "{"):
                self.blocks.append(first)
            elif first in RESERVED_DROP:
                pass
            elif first in ("fi", "done", "esac", "}"):
                if self.blocks:
                    self.blocks.pop()
            elif first in ("for", "select"):
                self.blocks.append("for")
                if len(words) > 1:
                    loop_var = self._literal(words[1]) or ""
                    if NAME_RE.fullmatch(loop_var):
                        self.vars[loop_var] = Value(None, frozenset())
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
        match = ASSIGN_RE.match(word.parts[0].text)
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
            before = self.vars.get(name, Value(None, frozenset()))
            if before.value is not None and value is not None:
                value = tail = before.value + value
            elif value is not None:
                tail = before.tail + value
                value = None
        if force_unknown or self.blocks or self.chained:
            value, tail = None, ""  # set inside if/loop/function: which value applies is not known
        if len(value or "") > MAX_VALUE_CHARS or len(tail) > MAX_VALUE_CHARS:
            value, tail = None, ""
        self.vars[name] = Value(value, expanded.missing, tail)

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
                    match = KEY_RE.fullmatch(key)
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
        if bare and bare in self.vars and NAME_RE.fullmatch(bare) and _looks_like_a_variable(key, bare):
            self.problems.append(
                ScriptProblem(
                    word.line,
                    f"{key}={bare} passes the word {shown(bare)}, which is the name of a variable the "
                    f"script sets: a missing '$'? write {key}=${bare}",
                    key,
                )
            )
        for name in sorted(expanded.missing):
            self.problems.append(
                ScriptProblem(
                    word.line,
                    f"{shown(word.raw)} uses ${name}, which the script does not set before this line "
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
