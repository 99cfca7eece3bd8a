"""Expanding words as bash would, without running anything: variables, arrays, defaults and the environment.

Launchers today keep their settings in arrays (``ACTOR=(... )`` then ``"${ACTOR[@]}"``)
and take their hardware from the environment with a documented default
(``NNODES=${NNODES:-1}``, ``: "${NUM_GPUS:=4}"``).  A value is known when every part
of it is; each known value remembers where it came from (:class:`Value` ``origin``):
written in the script, a default the script documents, the environment a row names,
or only known at run time (``$(nproc)``, an unset variable).  A field is one argument
of a command after expansion, with the line of the word that wrote it -- for an array
element, the line inside the array, which is where a contributor would edit it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from sphinx_rlresources.scripts.arith import Evaluator, Unknown, Value
from sphinx_rlresources.scripts.lexer import Arith, ArrayLit, Lit, Opaque, Part, Var, Word
from sphinx_rlresources.scripts.shell import (
    MAX_FIELDS,
    MAX_NESTING,
    MAX_TEXT,
    MAX_VALUE_CHARS,
    MAX_WORK,
    Exhausted,
    is_well_known_env,
)

RANK = {"set": 0, "script-default": 1, "env": 2}
"""Which origin a value made of parts takes: the one that depends most on outside choices."""
MAX_ARRAY_ITEMS = 4096
MAX_MISSING = 32
"""Unset names one value remembers: enough to report, and a union per part stays short."""
NOTHING_MISSING: frozenset[str] = frozenset()


class Expanded(NamedTuple):
    value: str | None
    tail: str
    missing: frozenset[str]
    origin: str


class Field(NamedTuple):
    """One argument of a command after expansion."""

    value: str | None
    tail: str
    word: Word
    """The word that wrote it: its literal start names a Hydra key or a flag."""
    missing: frozenset[str] = frozenset()
    origin: str = "set"
    file: str = ""
    """The file the word is in, when not the script itself (a sourced or delegated script)."""

    @property
    def line(self) -> int:
        return self.word.line


def combine(origins: list[str]) -> str:
    """The origin of a value made of parts with these origins (``runtime`` if any part is unknown)."""
    if "runtime" in origins:
        return "runtime"
    return max(origins, key=lambda o: RANK.get(o, 0), default="set")


class Expander:
    """The variables of one reading, and how a word expands with them."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self.vars: dict[str, Value] = {}
        self.arrays: dict[str, list[Field] | None] = {}
        """An array's elements as expanded when it was assigned; None when they cannot be known."""
        self.env = dict(env or {})
        self.opaque = False
        """True once the script sources something that could not be read: unset variables may come from it."""
        self.source_name = ""
        """The file being walked, when not the script itself."""
        self.positional: list[Field] | None = None
        """The arguments of the function being called (None at the top level: given at run time)."""
        self.steps_left = MAX_WORK
        self.fields_left = MAX_FIELDS
        self.text_left = MAX_TEXT
        self.line = 0
        """The script's line being walked, for the finding when the budget runs out."""

    # -- the budget, shared with the arithmetic -----------------------------------------
    def spend(self, steps: int, fields: int = 0, text: int = 0) -> bool:
        """Charge the one budget of a reading before the work is done; :class:`Exhausted` once any part runs out.

        Raising ends the whole reading at once: a budget that only made values unknown
        would still let a fan-out of calls walk its bodies exponentially many times.
        """
        self.steps_left -= steps
        self.fields_left -= fields
        self.text_left -= text
        if self.steps_left < 0 or self.fields_left < 0 or self.text_left < 0:
            resource = "steps" if self.steps_left < 0 else "fields" if self.fields_left < 0 else "text"
            raise Exhausted(resource, self.line, self.source_name)
        return True

    def left(self) -> tuple[int, int, int]:
        """What is left of the budget (steps, fields, text), to hand on to a reading of nested text."""
        return self.steps_left, self.fields_left, self.text_left

    # -- variables ---------------------------------------------------------------------------
    def variable(self, name: str) -> Value:
        if name.isdigit():  # ``${1:-x}``: an argument of the function being called (set only when given)
            item = self.positional[int(name) - 1] if self.is_set(name) and self.positional else None
            if item is None:
                return Value(None, frozenset(), "", "runtime")
            return Value(item.value, item.missing, item.tail, item.origin)
        if name in self.vars:
            return self.vars[name]
        if name in self.arrays:
            items = self.arrays[name]
            if items:
                first = items[0]
                return Value(first.value, first.missing, first.tail, first.origin)
            return Value(None if items is None else "", frozenset(), "", "runtime" if items is None else "set")
        if name in self.env:
            return Value(self.env[name], frozenset(), self.env[name], "env")
        if self.opaque or is_well_known_env(name):
            return Value(None, frozenset(), "", "runtime")
        return Value(None, frozenset({name}), "", "runtime")

    def is_set(self, name: str) -> bool:
        if name.isdigit():  # the script's own arguments (at the top level) are given at run time: none here
            return self.positional is not None and int(name) <= len(self.positional)
        return name in self.vars or name in self.arrays or name in self.env

    def assign(self, name: str, value: Value) -> None:
        self.arrays.pop(name, None)
        self.vars[name] = value

    # -- expansion of parts into one value ------------------------------------------------------
    def expand(self, parts: tuple[Part, ...], depth: int = 0) -> Expanded:
        if not self.spend(len(parts) + 1):
            return Expanded(None, "", NOTHING_MISSING, "runtime")
        segments: list[str] = []
        missed: list[frozenset[str]] = []
        origins: list[str] = []
        unknown_at = -1  # where the known tail starts: the known end of the last unknown part
        for part in parts:
            if type(part) is Lit:  # most parts: literal text, known and written in the script
                segments.append(part.text)
                continue
            found = self._part(part, depth)
            if found.value is None:
                unknown_at = len(segments)
                segments.append(found.tail)
            else:
                segments.append(found.value)
            if found.missing:
                missed.append(found.missing)
            origins.append(found.origin)
        missing = _union(missed)
        self.spend(0, 0, sum(map(len, segments)))
        if unknown_at >= 0:
            return Expanded(None, "".join(segments[unknown_at:])[:MAX_VALUE_CHARS], missing, "runtime")
        value = "".join(segments)
        if len(value) > MAX_VALUE_CHARS:
            return Expanded(None, "", missing, "runtime")
        return Expanded(value, value, missing, combine(origins) if origins else "set")

    def _part(self, part: Part, depth: int) -> Expanded:
        if isinstance(part, Var):
            if part.subscript is not None and part.name in self.arrays:
                return self._joined(self._elements(part), " ")
            if part.subscript is not None and not self.is_set(part.name):
                return Expanded(None, "", frozenset(), "runtime")  # an array this reading never saw assigned
            return self._parameter(part, depth)
        if isinstance(part, Arith):
            evaluator = Evaluator(self, depth)
            try:
                number = str(evaluator.evaluate(part.expr))
            except (Unknown, RecursionError):
                return Expanded(None, "", frozenset(evaluator.missing), "runtime")
            return Expanded(number, number, frozenset(evaluator.missing), combine(sorted(evaluator.origins)))
        if isinstance(part, Opaque) and self.positional is not None and part.kind in ("@", "*"):
            return self._joined(self.positional, " ")
        if isinstance(part, Opaque) and self.positional is not None and part.kind.isdigit():
            index = int(part.kind) - 1
            if 0 <= index < len(self.positional):
                item = self.positional[index]
                return Expanded(item.value, item.tail, item.missing, item.origin)
            return Expanded("", "", frozenset(), "set") if index >= 0 else Expanded(None, "", frozenset(), "runtime")
        return Expanded(None, "", frozenset(), "runtime")  # $(cmd), `cmd`, $@ at the top level: run time

    def _joined(self, items: list[Field], sep: str) -> Expanded:
        missing = _union([i.missing for i in items if i.missing])
        if any(item.value is None for item in items):
            return Expanded(None, "", missing, "runtime")
        self.spend(len(items), 0, sum(len(item.value or "") + len(sep) for item in items))
        value = sep.join(item.value or "" for item in items)
        return Expanded(value, value, missing, combine([i.origin for i in items]))

    def _elements(self, part: Var) -> list[Field]:
        items = self.arrays.get(part.name)
        if items is None:
            word = Word((Lit("", False),), "", 0, 0)
            return [Field(None, "", word, frozenset(), "runtime")]
        if part.subscript in ("@", "*"):
            self.spend(1, len(items))  # a copy of every element
            return list(items)
        index = int(part.subscript or 0)
        return [items[index]] if index < len(items) else []

    def _parameter(self, part: Var, depth: int) -> Expanded:
        if part.op is None:
            found = self.variable(part.name)
            return Expanded(found.value, found.tail, found.missing, found.origin)
        if depth > MAX_NESTING:
            return Expanded(None, "", frozenset(), "runtime")
        if not self.is_set(part.name):
            return self._unset(part, depth)
        found = self.variable(part.name)
        if found.value is None:
            return Expanded(None, "", found.missing, "runtime")
        empty = found.value == ""
        if part.op in (":+", "+"):
            if part.op == ":+" and empty:
                return Expanded("", "", frozenset(), found.origin)
            return self.expand(part.arg, depth + 1)
        if part.op in (":-", ":=") and empty:
            default = self.expand(part.arg, depth + 1)
            if part.op == ":=":
                self.assign(part.name, Value(default.value, default.missing, default.tail, default.origin))
            return default
        if part.op in (":?",) and empty:
            return Expanded(None, "", frozenset(), "runtime")
        return Expanded(found.value, found.value, found.missing, found.origin)

    def _unset(self, part: Var, depth: int) -> Expanded:
        """``${X:-d}`` and kin for a variable neither the script nor the row's environment sets.

        The default is what the script documents for its environment, so it is read as
        the value (origin ``script-default``).  ``${X:?message}`` says the variable is
        required: unknown until run time.  Naming a default shows the author expected the
        environment to decide, so none of these is reported as unset.
        """
        if part.op in (":+", "+"):
            return Expanded("", "", frozenset(), "set")
        if part.op in (":?", "?"):
            return Expanded(None, "", frozenset(), "runtime")
        default = self.expand(part.arg, depth + 1)
        origin = "script-default" if default.value is not None else "runtime"
        result = Expanded(default.value, default.tail, default.missing, origin)
        if part.op in (":=", "=") and not part.name.isdigit():  # bash cannot assign to an argument
            self.assign(part.name, Value(result.value, result.missing, result.tail, origin))
        return result

    # -- a word into fields --------------------------------------------------------------------
    def fields(self, word: Word) -> list[Field]:
        """The arguments one word becomes: array elements and unquoted split values give several."""
        parts = word.parts
        if len(parts) == 1:
            part = parts[0]
            if type(part) is Lit and len(part.text) <= MAX_VALUE_CHARS and self.spend(2):  # most words: as written
                return [Field(part.text, part.text, word, NOTHING_MISSING, "set", self.source_name)]
            if isinstance(part, Var) and part.subscript in ("@", "*") and part.name in self.arrays:
                items = self._elements(part)
                return items if part.quoted else [f for item in items for f in self._split(item)]
            if isinstance(part, Opaque) and part.kind in ("@", "*"):
                self.spend(1, len(self.positional or ()))
                return list(self.positional or [])  # at the top level: whatever the caller adds, unknown
            if isinstance(part, Var) and not part.quoted and part.subscript is None:
                found = self.expand(parts)
                if found.value is None:
                    return []  # $EXTRA_ARGS from outside: whatever it holds is unknown
                return self._split(Field(found.value, found.tail, word, found.missing, found.origin, self.source_name))
        found = self.expand(parts)
        self.spend(0, 1)
        return [Field(found.value, found.tail, word, found.missing, found.origin, self.source_name)]

    def array(self, value: ArrayLit) -> list[Field] | None:
        """The elements of ``(...)`` as fields, expanded now (bash expands at assignment)."""
        items: list[Field] = []
        for word in value.words:
            items.extend(self.fields(word))
            if len(items) > MAX_ARRAY_ITEMS:
                return None
        return items

    def _split(self, item: Field) -> list[Field]:
        """Word splitting of a known unquoted value: one field per whitespace-separated word."""
        if item.value is None or not any(c.isspace() for c in item.value):
            return [item]
        self.spend(1, 0, len(item.value))
        words = item.value.split()
        self.spend(len(words), len(words))
        line, end = item.word.line, item.word.end
        return [
            Field(text, text, Word((Lit(text, False),), text, line, end), item.missing, item.origin, item.file)
            for text in words
        ]


def _union(sets: list[frozenset[str]]) -> frozenset[str]:
    """The names of several parts together, at most :data:`MAX_MISSING` of them (sorted: the same ones each time)."""
    if not sets:
        return NOTHING_MISSING
    if len(sets) == 1:
        return sets[0]
    names = frozenset().union(*sets)
    return names if len(names) <= MAX_MISSING else frozenset(sorted(names)[:MAX_MISSING])
