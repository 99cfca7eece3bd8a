"""Walking a script's commands in order, as bash would, without running any of them.

What it keeps: the variables (:mod:`.expand`), and every other simple command with its
arguments expanded (:class:`Command`), for the framework adapters to recognise the
launch.  What it follows: assignments and ``export``; ``case`` on a value it knows
(only the branch that value selects runs; on an unknown value every branch's
assignments become unknown); functions, whose bodies run when called, with their
arguments; ``source``/``.`` of a file the caller lets it read (inside the repository,
bounded); ``if``, loops and chains (``&&``, ``|``), whose assignments become unknown.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from typing import NamedTuple

from sphinx_rlresources.safe.text import shown
from sphinx_rlresources.scripts.arith import Value
from sphinx_rlresources.scripts.expand import MAX_ARRAY_ITEMS, Expander, Field, combine
from sphinx_rlresources.scripts.files import Files, candidates
from sphinx_rlresources.scripts.lexer import ArrayLit, Lexer, Lit, Op, Part, Token, Word
from sphinx_rlresources.scripts.run import Problem
from sphinx_rlresources.scripts.shell import (
    ASSIGN_RE,
    MAX_FIELDS,
    MAX_NESTING,
    MAX_SCRIPT_CHARS,
    MAX_TEXT,
    MAX_VALUE_CHARS,
    MAX_WORK,
    NAME_RE,
    Exhausted,
)

RESERVED_DROP = frozenset({"then", "else", "elif", "do", "!", "time"})
MAX_COMMANDS = 5000
"""The most commands one reading records (a launcher has a few dozen)."""
MAX_CALL_DEPTH = 8
LOOP_HEADS = frozenset({"for", "select", "while", "until", "if", "elif"})
"""Words that ``((...))`` may follow: an arithmetic loop or test, never a function's name."""
MAX_SOURCE_DEPTH = 4
SHELLS = frozenset({"bash", "sh", "/bin/bash", "/bin/sh", "/usr/bin/bash", "/usr/bin/env"})
MAX_INNER_CHARS = 200_000
"""A ``bash -c`` string longer than this is not read again (a submission is a few KiB)."""
RAN_OUT = {
    "steps": f"took more than {MAX_WORK} steps (functions that call others many times over, sourced files, or "
    "variables and arithmetic that expand into each other)",
    "fields": f'made more than {MAX_FIELDS} arguments by expansion (word splitting, "${{A[@]}}" or "$@" '
    "copied over and over)",
    "text": f"made more than {MAX_TEXT} characters of text by expansion and sourced files",
}
"""What each part of the budget (:meth:`Expander.spend`) counts, for the finding when it runs out."""


class Command(NamedTuple):
    """One simple command: its arguments after expansion, where it starts, and what came before it."""

    fields: tuple[Field, ...]
    line: int
    prefix: tuple[tuple[str, Field], ...] = ()
    """``NAME=value`` words before the command (``CUDA_VISIBLE_DEVICES=0 python3 ...``)."""
    conditional: bool = False
    """Inside ``if``/a loop, or after ``&&``/``||``: it may not run."""
    source: str = ""
    """The sourced file it came from ('' for the script itself)."""
    inner: tuple[Command, ...] = ()
    """The commands of its ``bash -c STRING``, read as bash would read the expanded string."""


class _Case:
    """A ``case`` being walked: its subject, and whether a branch was taken."""

    def __init__(self, subject: str | None, origin: str) -> None:
        self.subject = subject
        self.origin = origin
        self.taken = False
        self.running = False
        self.in_pattern = True
        self.patterns: list[str | None] = []


class Interpreter(Expander):
    """Walk the commands in order, tracking variables; record every other simple command."""

    def __init__(self, env: Mapping[str, str] | None = None, files: Files | None = None, path: str = "") -> None:
        super().__init__(env)
        self.blocks: list[str] = []
        self.cases: list[_Case] = []
        self.functions: dict[str, list[Token]] = {}
        self.commands: list[Command] = []
        self.problems: list[Problem] = []
        self.files = files
        self.path = path
        """The script's path from the root: a relative ``source`` is looked for beside it."""
        self.depth = 0
        self.chained = False
        """True for a command after ``&&``, ``||`` or ``|``: it may not run, or runs apart."""
        self.lines: dict[str, int] = {}
        """The line of each variable's last assignment (for messages about a value set there)."""
        self.written: dict[str, str] = {}
        self.bodies: dict[int, Word] = {}
        """The script's here-documents by the line of their ``<<`` (:attr:`Lexer.bodies`), for ``read``."""
        """Each variable's last assignment as written (``PYTHONPATH=/opt/x:$PYTHONPATH``), for checks on its text."""

    def read(self, tokens: list[Token]) -> None:
        """Walk a whole script; when the budget runs out, say where and what, and leave the rest unknown."""
        try:
            self.run(tokens)
        except Exhausted as out:
            where = f" (in {shown(out.file)})" if out.file else ""
            self.problems.append(
                Problem(
                    out.line,
                    f"reading the script stopped here{where}: it {RAN_OUT[out.resource]}; what the rest of the "
                    "script sets is unknown",
                )
            )

    @property
    def uncertain(self) -> bool:
        """Whether the command at hand may not run (or runs in a branch whose choice is unknown)."""
        return bool(self.blocks) or self.chained or any(not c.running or c.subject is None for c in self.cases)

    # -- the walk ------------------------------------------------------------------------------
    def run(self, tokens: list[Token]) -> None:  # noqa: C901 - one case per control operator, on the reader's hot path
        if self.depth:  # a function's body or another file: walked again, so charged again
            self.spend(len(tokens))
        words: list[Word] = []
        after = ""
        index = 0
        while index < len(tokens):
            token = tokens[index]
            index += 1
            if isinstance(token, Word):
                if not words and self._literal(token) == "function" and index < len(tokens):
                    name = tokens[index]
                    if isinstance(name, Word):
                        index = self._define(self._literal(name) or "", tokens, index + 1)
                        continue
                words.append(token)
                continue
            if self.cases and self.cases[-1].in_pattern and token.text in ("|", ")", "\n", "("):
                self._pattern(words, token.text)
                words = []  # used up: kept, a line of them would be added again at every line break
                continue
            if token.text == "(" and words and self._literal(words[-1]) in LOOP_HEADS:
                index = _after_parens(tokens, index)  # for ((i = 0; i < n; i++)): a loop, not a function
                continue
            if token.text == "(" and words:
                index = self._define(self._literal(words[-1]) or "", tokens, index)
                words = []
                continue
            if token.text == "(":
                self.blocks.append("(")
                continue
            if token.text == ")":
                self.command(words, after)
                words = []
                if self.blocks and self.blocks[-1] == "(":
                    self.blocks.pop()
                continue
            if token.text in (";;", ";&") and self.cases:
                self.command(words, after)
                words = []
                if not self.cases:  # the branch's own words closed the case: nothing left to reset
                    continue
                case = self.cases[-1]
                case.running, case.in_pattern, case.patterns = False, True, []
                continue
            if words:  # a blank line or a bare operator: no command to run
                self.command(words, after)
                words = []
            after = token.text
        if words:
            self.command(words, after)

    def _pattern(self, words: list[Word], op: str) -> None:
        """Collect a case branch's patterns; at ``)`` decide whether its body runs.

        The words are used up either way (the caller drops them): kept, they would be
        added again at every line break, or a nested ``esac`` would end the enclosing
        case a second time.
        """
        case = self.cases[-1]
        self.spend(len(words))
        for word in words:
            text = self._literal(word)
            if text == "esac":
                self._end_case()
                return
            if text is None:
                found = self.expand(word.parts)
                text = found.value
            case.patterns.append(text)
        if op != ")":
            return
        case.in_pattern = False
        if case.subject is None:
            case.running = True  # which branch runs is unknown: each one's assignments become unknown
        elif not case.taken and any(p is not None and fnmatch.fnmatchcase(case.subject, p) for p in case.patterns):
            case.running = case.taken = True
        else:
            case.running = False
        case.patterns = []

    def _end_case(self) -> None:
        self.cases.pop()

    def _define(self, name: str, tokens: list[Token], index: int) -> int:
        """``name ( ) { body }`` or ``function name { body }``: keep the body for calls; return the index after it."""
        depth = 0
        start = None
        while index < len(tokens):
            token = tokens[index]
            index += 1
            text = self._literal(token) if isinstance(token, Word) else token.text
            if text == "{":
                depth += 1
                if start is None:
                    start = index
            elif text == "}":
                depth -= 1
                if depth == 0:
                    if NAME_RE.fullmatch(name) and start is not None:
                        self.functions[name] = tokens[start : index - 1]
                        self._may_set(self.functions[name])
                    return index
        return index

    def _may_set(self, body: list[Token]) -> None:
        """What a function assigns is unknown until it is called (it may be called where we cannot tell)."""
        for token in body:
            if isinstance(token, Word) and (found := self._assignment(token)) is not None and not self.is_set(found[0]):
                self.assign(found[0], Value(None, frozenset(), "", "runtime"))

    # -- one simple command ------------------------------------------------------------------------
    def command(self, words: list[Word], after: str = "") -> None:  # noqa: C901 - one case per builtin bash runs, on the reader's hot path
        """Run one simple command; ``after`` is the operator before it (``&&``, ``|``...)."""
        if not self.depth:
            self.line = words[0].line if words else self.line
        if self.cases:
            self.spend(len(self.cases))  # whether it may run asks every enclosing case
        words = self._strip_reserved(words)
        if not words or (self.cases and not self.cases[-1].running):
            return
        self.chained = after in ("&&", "||", "|", "|&")
        assigned = []
        for word in words:
            found = self._assignment(word)
            if found is None:
                break
            assigned.append(found)
        if len(assigned) == len(words):
            for word, found in zip(words, assigned, strict=True):
                self._assign(word, found)
            return
        assignments = len(assigned)
        prefix = words[:assignments]  # FOO=1 cmd: FOO is set for cmd only
        words = words[assignments:]
        name = self._literal(words[0])
        if name in ("export", "declare", "typeset", "local", "readonly"):
            for word in words[1:]:
                if self._assignment(word) is not None:
                    self._assign(word)
            return
        if name in ("source", ".") and len(words) > 1:
            self._source(words[1])
            return
        if name == "eval":
            self.opaque = True
            return
        if name == "read" and self._read_here(words):
            return
        if name in ("unset", "read", "mapfile", "readarray", "getopts", "let", "printf"):
            for word in words[1:]:
                target = (self._literal(word) or "").split("=", 1)[0]
                if NAME_RE.fullmatch(target):
                    self.assign(target, Value(None, frozenset(), "", "runtime"))
            return
        if name == "case":
            subject = self.expand(words[1].parts) if len(words) > 1 else None
            self.cases.append(_Case(subject.value if subject else None, subject.origin if subject else "runtime"))
            return
        if name in self.functions and not self.uncertain:
            self._call(name, words)
            return
        if name in ("bash", "sh") and len(words) > 1 and not self.uncertain and self._delegate(words):
            return
        self._record(words, prefix)

    def _record(self, words: list[Word], prefix: list[Word]) -> None:
        if len(self.commands) >= MAX_COMMANDS:
            return
        fields = tuple(f for word in words for f in self.fields(word))
        if not fields:
            return
        assigned = []
        for word in prefix:
            found = self._assignment(word)
            if found is not None and not (found[2] and isinstance(found[2][0], ArrayLit)):
                value = self.expand(found[2])
                assigned.append((found[0], Field(value.value, value.tail, word, value.missing, value.origin)))
        inner = self._inner(fields)
        self.commands.append(Command(fields, words[0].line, tuple(assigned), self.uncertain, self.source_name, inner))

    def _inner(self, fields: tuple[Field, ...]) -> tuple[Command, ...]:
        """The commands of ``bash -c STRING``, read once, here, on this reading's budget.

        bash parses the string again when it runs it, so reading it with the same
        interpreter is what bash would do -- with the values the outer script had already
        expanded into it.  Each inner field keeps the line of the outer script it was
        written on (found by its text in the outer word), and the outer value's origin
        when its text came from an expansion rather than from the script itself.
        """
        found = shell_string(fields)
        if found is None:
            return ()
        outer = found[1]
        text = outer.value if outer.value is not None else outer.tail
        if not text or len(text) > MAX_INNER_CHARS or not self.spend(1, 0, len(text)):
            return ()
        reading = Interpreter(None, None, self.path)
        reading.steps_left, reading.fields_left, reading.text_left = self.left()
        reading.line = self.line
        try:
            reading.run(Lexer(text, outer.line).tokens())
        finally:
            self.steps_left, self.fields_left, self.text_left = reading.left()
        return tuple(_placed(reading.commands, outer, self.source_name))

    def _call(self, name: str, words: list[Word]) -> None:
        """Run a function's body with the call's arguments as ``$1``..., ``$@``."""
        if self.depth >= MAX_CALL_DEPTH or not self.spend(1):
            return
        arguments = [f for word in words[1:] for f in self.fields(word)]
        saved, self.positional = self.positional, arguments
        self.depth += 1
        try:
            self.run(list(self.functions[name]))
        finally:
            self.depth -= 1
            self.positional = saved

    def _delegate(self, words: list[Word]) -> bool:
        """``bash other.sh ARGS``: the other script is the launch, with ARGS as its ``$@`` (read, not run)."""
        target = self.expand(words[1].parts)
        if not (target.value or target.tail).endswith(".sh") or self.files is None:  # "$SCRIPT_DIR/x.sh" too
            return False
        if self.depth >= MAX_SOURCE_DEPTH or not self.spend(1000):
            return False
        for candidate in candidates(self.path, target.value, target.tail):
            text = self.files.read(candidate)
            if text is not None and len(text) <= MAX_SCRIPT_CHARS and self.spend(0, 0, len(text)):
                arguments = [f for word in words[2:] for f in self.fields(word)]
                saved = self.positional, self.source_name
                self.positional, self.source_name = arguments, candidate
                self.depth += 1
                try:
                    self._walk(text)
                finally:
                    self.depth -= 1
                    self.positional, self.source_name = saved
                return True
        return False

    def _source(self, word: Word) -> None:
        """``source FILE``: read FILE as part of the script, if the caller can read it; else anything may be set."""
        found = self.expand(word.parts)
        text, shown = None, ""
        if self.files is not None and self.depth < MAX_SOURCE_DEPTH and self.spend(1000):
            for candidate in candidates(self.path, found.value, found.tail):
                text, shown = self.files.read(candidate), candidate
                if text is not None:
                    break
        if text is None or len(text) > MAX_SCRIPT_CHARS:
            self.opaque = True
            return
        self.spend(0, 0, len(text))
        saved = self.source_name
        self.source_name = shown
        self.depth += 1
        try:
            self._walk(text)
        finally:
            self.depth -= 1
            self.source_name = saved

    def _walk(self, text: str) -> None:
        """Walk another file's text, with its own here-documents for ``read`` (lines are that file's)."""
        lexer = Lexer(text)
        tokens = lexer.tokens()
        saved, self.bodies = self.bodies, lexer.bodies
        try:
            self.run(tokens)
        finally:
            self.bodies = saved

    def _strip_reserved(self, words: list[Word]) -> list[Word]:  # noqa: C901 - one case per reserved word
        """The command after its reserved words (``then``, ``do``, ``{``...), which open and close blocks.

        An index walks them: slicing the list once per word made a long run quadratic.
        """
        index = 0
        while index < len(words):
            first = self._literal(words[index])
            if first in ("if", "while", "until", "{"):
                self.blocks.append(first)
            elif first in RESERVED_DROP:
                pass
            elif first in ("fi", "done", "}"):
                if self.blocks:
                    self.blocks.pop()
            elif first == "esac":
                if self.cases:
                    self._end_case()
            elif first in ("for", "select"):
                self.blocks.append("for")
                if len(words) > index + 1:
                    loop_var = self._literal(words[index + 1]) or ""
                    if NAME_RE.fullmatch(loop_var):
                        self.assign(loop_var, Value(None, frozenset(), "", "runtime"))
                return []
            elif first == "function":
                index += 1
            else:
                return words[index:] if index else words
            index += 1
        return []

    @staticmethod
    def _literal(word: Word) -> str | None:
        """The word's text when it has no expansion at all."""
        parts = word.parts
        if len(parts) == 1 and type(parts[0]) is Lit:  # most words
            return parts[0].text
        if all(isinstance(p, Lit) for p in parts):
            return "".join(p.text for p in word.parts if isinstance(p, Lit))
        return None

    @staticmethod
    def _assignment(word: Word) -> tuple[str, bool, tuple[Part, ...]] | None:
        """(name, append, value parts) for ``NAME=value`` / ``NAME+=value``."""
        if not word.parts or not isinstance(word.parts[0], Lit) or word.parts[0].quoted or "=" not in word.raw:
            return None
        match = ASSIGN_RE.match(word.parts[0].text)
        if not match:
            return None
        rest = word.parts[0].text[match.end() :]
        value = ((Lit(rest, False),) if rest else ()) + word.parts[1:]
        return match.group(1), bool(match.group(2)), value

    def _assign(self, word: Word, found: tuple[str, bool, tuple[Part, ...]] | None = None) -> None:
        """Run ``NAME=value`` (``found``: the word already split by :meth:`_assignment`)."""
        found = found or self._assignment(word)
        if found is None:
            return
        name, append, parts = found
        self.lines[name] = word.line
        self.written[name] = word.raw
        uncertain = self.uncertain and not (self.cases and self.cases[-1].running and self.cases[-1].subject)
        if len(parts) == 1 and isinstance(parts[0], ArrayLit):
            items = None if uncertain else self.array(parts[0])
            before = self.arrays.get(name, []) if append else []
            self.vars.pop(name, None)
            if items is None or before is None or len(before) + len(items) > MAX_ARRAY_ITEMS:
                self.arrays[name] = None
            else:
                before.extend(items)  # in place: A+=(x) in a loop would copy the whole array each time
                self.arrays[name] = before
            return
        expanded = self.expand(parts)
        value, tail, origin = expanded.value, expanded.tail, expanded.origin
        if self.cases and self.cases[-1].running and self.cases[-1].subject is not None:
            origin = combine([origin, self.cases[-1].origin])  # chosen by a default: a default too
        if append:
            previous = self.variable(name)
            if previous.value is not None and value is not None:
                value = tail = previous.value + value
            elif value is not None:
                tail = previous.tail + value
                value = None
        if uncertain:
            value, tail, origin = None, "", "runtime"  # set inside if/loop: which value applies is not known
        if len(value or "") > MAX_VALUE_CHARS or len(tail) > MAX_VALUE_CHARS:
            value, tail = None, ""
        self.assign(name, Value(value, expanded.missing, tail, origin if value is not None else "runtime"))

    def _read_here(self, words: list[Word]) -> bool:
        """``read -r -d '' NAME <<EOF``: the whole here-document into NAME (OpenRLHF keeps its launch so).

        Only that form is read: ``-d ''`` reads to the end, ``-r`` keeps backslashes, one
        name takes the text less its leading and trailing blanks.  Anything else stays
        unknown (False: the caller makes the names unknown).
        """
        body = next((self.bodies.get(w.line) for w in reversed(words) if w.line in self.bodies), None)
        literal = [self._literal(word) for word in words[1:]]
        if body is None or len(literal) != 4:
            return False
        options, name = [text or "?" if text != "" else "" for text in literal[:3]], literal[3] or ""
        if options not in (["-r", "-d", ""], ["-d", "", "-r"]):
            return False
        if not NAME_RE.fullmatch(name):
            return False
        found = self.expand(body.parts)
        value = found.value.strip(" \t\n") if found.value is not None else None
        uncertain = self.uncertain and not (self.cases and self.cases[-1].running and self.cases[-1].subject)
        if uncertain or len(value or "") > MAX_VALUE_CHARS:
            value = None
        self.lines[name], self.written[name] = body.line, body.raw[:MAX_VALUE_CHARS]
        origin = found.origin if value is not None else "runtime"
        self.assign(name, Value(value, found.missing, value or "", origin))
        return True


def shell_string(fields: tuple[Field, ...]) -> tuple[int, Field] | None:
    """The index and field of the string of ``bash -c STRING`` (or ``sh -c``), anywhere in the command."""
    values = [field.value for field in fields]
    for index, text in enumerate(values[:-2]):
        if text is not None and (text in SHELLS or text.rsplit("/", 1)[-1] in ("bash", "sh")):
            flag = values[index + 1]
            if flag is not None and flag.startswith("-") and flag.endswith("c") and "-" not in flag[1:]:
                return index + 2, fields[index + 2]
    return None


def _placed(commands: list[Command], outer: Field, source: str) -> list[Command]:
    """The commands read from ``outer``'s text, each field on the outer script's line that wrote it."""
    raw = outer.word.raw
    cursor = 0
    placed = []
    for inner in commands:
        fields = []
        for field in inner.fields:
            at = raw.find(field.word.raw, cursor) if field.word.raw else -1
            if at >= 0:
                cursor = at + len(field.word.raw)
                line = outer.line + raw.count("\n", 0, at)
                origin = field.origin
            else:
                line = outer.line + raw.count("\n", 0, cursor)
                origin = field.origin if outer.origin == "set" else outer.origin
            fields.append(
                Field(field.value, field.tail, field.word._replace(line=line), field.missing, origin, outer.file)
            )
        if fields:
            placed.append(Command(tuple(fields), fields[0].line, inner.prefix, True, source, inner.inner))
    return placed


def _after_parens(tokens: list[Token], index: int) -> int:
    """The index after the ``)`` closing the ``(`` just before ``index``."""
    depth = 1
    while index < len(tokens) and depth:
        token = tokens[index]
        index += 1
        if isinstance(token, Op) and token.text in ("(", ")"):
            depth += 1 if token.text == "(" else -1
    return index


__all__ = ["MAX_NESTING", "Command", "Interpreter", "Op"]
