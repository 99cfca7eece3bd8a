"""Splitting script text into words (with their expansions) and control operators.

Quoting, escapes, ``$X``, ``${X:-default}``, ``$(( ))``, line continuations and comments;
a command substitution or anything else whose value cannot be known is an
:class:`Opaque` part.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from sphinx_rlresources.scripts.shell import ASSIGN_RE, MAX_NESTING, MAX_PARAMETER_CHARS, NAME_RE

LITERAL_RUN = re.compile(r"[^\s;&|()<>\\'\"$`]+")
QUICK = re.compile(
    r"(?P<plain>[^\s;&|()<>\\'\"$`#][^\s;&|()<>\\'\"$`]*(?=[ \t\r\f\v\n;&|<>)]|\Z))?"
    r"(?P<gap>(?:[ \t\r\f\v]|\\\n)*)"
)
"""What most of a launcher is, one match each: a word that is one literal run, and the
blanks and line continuations after it (either may be empty).  A ``#`` at a word's start
is a comment, inside it is text; a ``(`` after it makes an array or a function, and a
``\\`` a word that goes on, which :meth:`Lexer.word` reads."""
PLAIN_WORD = re.compile(r"[^\s;&|()<>\\'\"$`]+(?=[ \t\r\f\v\n;&|<>)]|\Z)")
"""A word that is one literal run, ended by a blank, an operator or the end (not ``(``: ``X=(`` is an array)."""
_SUBSCRIPT = re.compile(r"\[(@|\*|[0-9]{1,6})\]")
MAX_ARRAY_CHARS = 200_000
"""A longer ``A=( ... )`` is unknown unread (a launcher's arrays are a few KiB)."""
_PLAIN_PARAMETER = re.compile(r"[^{}'\"\\`\n]*")
"""The inside of a ``${...}`` with no quote, escape, nested brace or line break: its ``}`` is the first one."""
PARAM_OPS = (":-", ":=", ":+", ":?", "-", "=", "+", "?")
MAX_REREAD = 1_000_000
"""Characters the lexer may read again in all, for the inside of ``${X:-...}`` and ``A=(...)``:
each level of nesting reads its text once more, so 32 levels would read a script 32 times."""


class Allowance:
    """What is left of :data:`MAX_REREAD`, shared by a lexer and the lexers it starts for nested text."""

    def __init__(self) -> None:
        self.left = MAX_REREAD
        self.out_at = 0
        """The line where it ran out (0: it did not), for the finding."""

    def take(self, chars: int, line: int) -> bool:
        self.left -= chars
        if self.left < 0 and not self.out_at:
            self.out_at = max(line, 1)
        return self.left >= 0


class Lit(NamedTuple):
    text: str
    quoted: bool


class Var(NamedTuple):
    name: str
    op: str | None
    arg: tuple[Part, ...]
    quoted: bool
    subscript: str | None = None
    """``@`` or ``*`` for every element of an array (``${A[@]}``), a number for one element, None for a scalar."""


class Arith(NamedTuple):
    expr: str
    quoted: bool


class Opaque(NamedTuple):
    """Something whose value cannot be known: ``$(cmd)``, `` `cmd` ``, ``$@``, ``${#x}``."""

    kind: str
    quoted: bool


class ArrayLit(NamedTuple):
    """The value of ``A=(one "two three" $X)``: its element words, each with its own line."""

    words: tuple[Word, ...]


Part = Lit | Var | Arith | Opaque | ArrayLit


class Word(NamedTuple):
    parts: tuple[Part, ...]
    raw: str
    line: int
    end: int


class Op(NamedTuple):
    text: str
    line: int


Token = Word | Op


class Lexer:
    """Split script text into words (with their expansions) and control operators."""

    def __init__(self, text: str, line: int = 1, depth: int = 0, allowance: Allowance | None = None) -> None:
        self.text = text
        self.pos = 0
        self.line = line
        self.depth = depth
        self.allowance = allowance or Allowance()
        self.heredocs: list[tuple[str, bool, bool, int]] = []
        """Here-documents opened on the current line: delimiter, ``<<-``, quoted delimiter, line of ``<<``."""
        self.bodies: dict[int, Word] = {}
        """The first here-document of each line, by the line of its ``<<``: the text a command there reads."""

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
            if c == "#" and opener == "(" and text[i - 1] in " \t\n(":
                end = text.find("\n", i)  # a comment: its "it's" or "(" is no quote nor bracket
                i = len(text) if end < 0 else end
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
        quick_match, append = QUICK.match, out.append
        while self.pos < n:
            quick = quick_match(text, self.pos)  # most of a launcher: plain words, blanks, continuations
            if quick is not None and (end := quick.end()) > self.pos:
                plain, gap = quick.group(1, 2)
                if plain:
                    append(Word((Lit(plain, False),), plain, self.line, quick.end(1)))
                if gap:
                    self.line += gap.count("\n")
                self.pos = end
                continue
            c = text[self.pos]
            if c == "#":
                end = text.find("\n", self.pos)
                self.pos = n if end < 0 else end
            elif c == "\n":
                out.append(Op("\n", self.line))
                self.line += 1
                self.pos += 1
                if self.heredocs:
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
            quoted = any(not isinstance(p, Lit) or p.quoted for p in target.parts)
            self.heredocs.append((delimiter, op == "<<-", quoted, target.line))

    def _skip_heredocs(self) -> None:
        """Skip the bodies of the here-documents opened on the line just ended."""
        pending, self.heredocs = self.heredocs, []
        for delimiter, strip_tabs, quoted, at in pending:
            start, first = self.pos, self.line
            stop = len(self.text)
            while self.pos < len(self.text):
                end = self.text.find("\n", self.pos)
                end = len(self.text) if end < 0 else end
                line = self.text[self.pos : end]
                here = self.pos
                self._advance_to(end + 1)
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    stop = here
                    break
            if at not in self.bodies:
                self.bodies[at] = self._body(self.text[start:stop], first, strip_tabs, quoted)

    def _body(self, text: str, line: int, strip_tabs: bool, quoted: bool) -> Word:
        """A here-document's text: as written after a quoted delimiter, else expanded as bash would (not split)."""
        if strip_tabs:
            text = "\n".join(row.lstrip("\t") for row in text.split("\n"))
        if quoted or self.depth >= MAX_NESTING or not self.allowance.take(len(text), line):
            parts: list[Part] = [Lit(text, True)] if quoted else [Opaque("heredoc", True)]
            return Word(tuple(parts), text, line, 0)
        sub = Lexer(text, line, self.depth + 1, self.allowance)
        parts = []
        sub._double_quoted(parts, closing=False)  # $X, ${X:-...}, $(( )) and \newline, as inside "..."
        return Word(tuple(parts), text, line, 0)

    def word(self) -> Word:  # noqa: C901 - one case per character class, on the lexer's hot path
        text = self.text
        start, line = self.pos, self.line
        plain = PLAIN_WORD.match(text, start)
        if plain is not None:  # most words: literal text up to a blank or an operator
            self.pos = plain.end()
            run = plain.group(0)
            return Word((Lit(run, False),), run, line, self.pos)
        parts: list[Part] = []
        while self.pos < len(text):
            c = text[self.pos]
            if c in " \t\r\f\v\n;&|<>)":
                break
            if c == "(":
                if parts and ASSIGN_RE.fullmatch("".join(p.text for p in parts if isinstance(p, Lit))):
                    parts.append(self._array())  # an array: X=(a b c)
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
                match = LITERAL_RUN.match(text, self.pos)
                run = match.group(0) if match else c
                parts.append(Lit(run, False))
                self.pos += len(run)
        return Word(tuple(parts), text[start : self.pos], line, self.pos)

    def _array(self) -> Part:
        """The elements of ``(...)`` at the position, as words with their lines; comments and newlines skipped."""
        end = self._matching(self.pos, "(", ")")
        too_deep = self.depth >= MAX_NESTING or end - self.pos > MAX_ARRAY_CHARS
        if too_deep or not self.allowance.take(end - self.pos, self.line):
            self._advance_to(end)
            return Opaque("array", False)
        inner = Lexer(self.text[self.pos + 1 : max(end - 1, self.pos + 1)], self.line, self.depth + 1, self.allowance)
        words = tuple(token for token in inner.tokens() if isinstance(token, Word))
        self._advance_to(end)
        return ArrayLit(words)

    def _double_quoted(self, parts: list[Part], closing: bool = True) -> None:  # noqa: C901 - one case per character class, on the lexer's hot path
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
            close = text.find("}", self.pos + 2)
            if close >= 0 and _PLAIN_PARAMETER.fullmatch(text, self.pos + 2, close):
                end = close + 1  # ${NAME}, ${NAME:-1}: nothing inside that could hide a brace
            else:
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
            match = NAME_RE.match(text, self.pos + 1)
            assert match is not None
            parts.append(Var(match.group(0), None, (), quoted))
            self.pos = match.end()
        elif nxt and (nxt.isdigit() or nxt in "@*"):
            parts.append(Opaque(nxt, quoted))  # $1 .. $9, $@, $*: the arguments, known inside a called function
            self.pos += 2
        elif nxt and nxt in "#?$!-":
            parts.append(Opaque("special", quoted))
            self.pos += 2
        else:
            parts.append(Lit("$", quoted))
            self.pos += 1

    def _parameter(self, inner: str, quoted: bool, line: int) -> Part:  # noqa: C901 - one case per ${...} operator
        """``${...}``: a plain name, a name with a default/alternative, or unknown."""
        match = NAME_RE.match(inner) or _positional(inner)
        if not match:
            return (
                Opaque(inner, quoted)
                if inner in ("@", "*") or (inner.isdigit() and len(inner) < 3)
                else Opaque("special", quoted)
            )
        if len(inner) > MAX_PARAMETER_CHARS:
            return Opaque("nested", quoted)
        name, rest = match.group(0), inner[match.end() :]
        if not rest:
            return Var(name, None, (), quoted)
        subscript = _SUBSCRIPT.match(rest)
        if subscript:  # ${A[@]}, ${A[*]}, ${A[0]}; a slice or pattern after it is not followed
            return (
                Var(name, None, (), quoted, subscript.group(1))
                if subscript.end() == len(rest)
                else Opaque("array", quoted)
            )
        for op in PARAM_OPS:
            if rest.startswith(op):
                if self.depth >= MAX_NESTING or not self.allowance.take(len(rest), line):
                    return Opaque("nested", quoted)
                sub = Lexer(rest[len(op) :], line, self.depth + 1, self.allowance)
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


_POSITIONAL = re.compile(r"[1-9][0-9]?")


def _positional(inner: str) -> re.Match[str] | None:
    """``${1:-vllm}``: a script argument with a default (read as a variable named ``1``); bare ``${1}`` is not."""
    match = _POSITIONAL.match(inner)
    return match if match and inner[match.end() :].startswith(PARAM_OPS) else None


def _ansi_c(body: str) -> str:
    escapes = {"n": "\n", "t": "\t", "\\": "\\", "'": "'", '"': '"', "r": "\r", "a": "\a", "e": "\x1b", "0": "\0"}
    return re.sub(r"\\(.)", lambda m: escapes.get(m.group(1), "\\" + m.group(1)), body, flags=re.DOTALL)
