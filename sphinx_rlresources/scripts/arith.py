"""Bash integer arithmetic (``$(( ... ))``) over known values, bounded like bash's 64-bit integers."""

from __future__ import annotations

import re
from typing import NamedTuple, Protocol

from sphinx_rlresources.scripts.shell import INT_RE, MAX_ARITH_CHARS, MAX_INT, MAX_NESTING


class Unknown(Exception):
    """An arithmetic value that cannot be known: the caller turns it into None."""


_ARITH_TOKEN = re.compile(
    r"\s*(0[xX][0-9a-fA-F]+|[0-9]+"  # numbers
    r"|\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$?[A-Za-z_][A-Za-z0-9_]*"  # names
    r"|\*\*|[-+*/%()])"  # operators
)


class Value(NamedTuple):
    value: str | None
    missing: frozenset[str]
    tail: str = ""
    """When the value is unknown: its known end (``$ROOT/models/X`` keeps ``/models/X``)."""
    origin: str = "set"
    """``set`` (written in the script), ``script-default`` (``${X:-default}``), ``env`` (the row's
    environment) or ``runtime`` (known only when the script runs): the values of
    :class:`~sphinx_rlresources.scripts.run.Origin`."""


class Variables(Protocol):
    """Whoever knows the script's variables (the interpreter): a name's value so far, and the work left."""

    def variable(self, name: str) -> Value: ...

    def spend(self, steps: int) -> bool:
        """Take ``steps`` from the script's budget of work; False once it is spent."""
        ...


class Evaluator:
    """A tiny evaluator for ``+ - * / % **`` and parentheses over integers and names."""

    def __init__(self, lookup: Variables, depth: int) -> None:
        self.lookup = lookup
        self.depth = depth
        self.missing: set[str] = set()
        self.origins: set[str] = set()
        """The origins of the variables read, so a result computed from a default is a default too."""
        self.tokens: list[str] = []
        self.i = 0

    def evaluate(self, expr: str) -> int:
        if len(expr) > MAX_ARITH_CHARS or self.depth > MAX_NESTING:
            raise Unknown
        pos, tokens = 0, []
        end = len(expr.rstrip())
        while pos < end:
            match = _ARITH_TOKEN.match(expr, pos)
            if not match:
                raise Unknown
            tokens.append(match.group(1))
            pos = match.end()
        if not tokens or not self.lookup.spend(len(tokens)):
            raise Unknown
        self.tokens, self.i = tokens, 0
        value = self._sum(0)
        if self.i != len(self.tokens):
            raise Unknown
        return value

    def _peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def _take(self) -> str:
        if self.i >= len(self.tokens):
            raise Unknown
        self.i += 1
        return self.tokens[self.i - 1]

    def _sum(self, nest: int) -> int:
        value = self._product(nest)
        while self._peek() in ("+", "-"):
            op = self._take()
            right = self._product(nest)
            value = bounded(value + right if op == "+" else value - right)
        return value

    def _product(self, nest: int) -> int:
        value = self._power(nest)
        while self._peek() in ("*", "/", "%"):
            op = self._take()
            right = self._power(nest)
            if op == "*":
                value = bounded(value * right)
            elif right == 0:
                raise Unknown
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
            raise Unknown
        if abs(base) > 1 and exponent * abs(base).bit_length() > 64:
            raise Unknown
        return bounded(base**exponent)

    def _unary(self, nest: int) -> int:
        if nest > MAX_NESTING:
            raise Unknown
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
                raise Unknown
            return value
        if symbol[0].isdigit():
            if symbol[:2].lower() == "0x":
                return bounded(int(symbol, 16))
            if len(symbol) > 1 and symbol[0] == "0":
                if not set(symbol) <= set("01234567"):
                    raise Unknown
                return bounded(int(symbol, 8))
            if len(symbol) > 20:
                raise Unknown
            return bounded(int(symbol))
        if symbol[0] == "$" or symbol[0].isalpha() or symbol[0] == "_":
            name = symbol.strip("${}")
            found = self.lookup.variable(name)
            self.missing |= found.missing
            self.origins.add(found.origin)
            if found.value is None:
                raise Unknown
            text = found.value.strip()
            if text == "":
                return 0
            if INT_RE.fullmatch(text):
                return bounded(int(text))
            inner = Evaluator(self.lookup, self.depth + 1)
            try:
                return inner.evaluate(text)
            finally:
                self.missing |= inner.missing
                self.origins |= inner.origins
        raise Unknown


def bounded(value: int) -> int:
    if -MAX_INT - 1 <= value <= MAX_INT:
        return value
    raise Unknown
