"""Patterns from the settings (the naming rule, the script glob), matched in time linear in the name.

``pyproject.toml`` arrives in pull requests like any file, so a pattern written there
must not decide how long a check runs.  Compiled into a backtracking regular
expression, ``{model}{task}{train}`` or ``*a*a*a*b`` make one file name take time
exponential (or a high power) in its length.  Here a pattern is a small program of
steps over a name's characters, and the search remembers every (step, position) that
failed, so no pair is tried twice: at most ``steps x (length + 1)`` pairs, each once,
whatever the pattern.  The first match found is the one a backtracking matcher would
give (a field is as short as the rest allows, an optional part is tried first), so
fields are captured as ``re``'s lazy groups captured them.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

NAME = "name"
"""A character inside one path name: anything but ``/``."""
DIGIT = "digit"
"""A character of a whole number: ``0``-``9``."""


@dataclass(frozen=True)
class Step:
    """One step of a program.

    ``char``: the next character is ``text``.  ``one``: the next character is of class
    ``text`` (a field's first; ``capture`` names the field it starts).  ``more``: stop
    here (tried first: lazy), or take one more character of class ``text`` and stay.
    ``split``: go on (tried first), else jump to ``target``.  ``jump``: go to ``target``.
    A ``greedy`` ``more`` tries the character first (a whole number takes all its digits).
    """

    kind: str
    text: str = ""
    target: int = 0
    capture: str | None = None
    greedy: bool = False


def _fits(kind: str, char: str) -> bool:
    return char != "/" if kind == NAME else "0" <= char <= "9"


def _next(steps: tuple[Step, ...], text: str, pc: int, pos: int) -> list[tuple[int, int]]:
    """The states one step leads to from ``(pc, pos)``, the preferred first."""
    step = steps[pc]
    here = text[pos] if pos < len(text) else ""
    if step.kind == "char":
        return [(pc + 1, pos + 1)] if here == step.text else []
    if step.kind == "one":
        return [(pc + 1, pos + 1)] if here and _fits(step.text, here) else []
    if step.kind == "more":
        if not (here and _fits(step.text, here)):
            return [(pc + 1, pos)]
        return [(pc, pos + 1), (pc + 1, pos)] if step.greedy else [(pc + 1, pos), (pc, pos + 1)]
    if step.kind == "split":
        return [(pc + 1, pos), (step.target, pos)]
    return [(step.target, pos)]  # jump


@dataclass(frozen=True)
class Program:
    """A compiled pattern: its steps, ending in an implicit match at ``len(steps)``."""

    steps: tuple[Step, ...]

    def path(self, text: str) -> list[tuple[int, int]] | None:
        """The states of the first match of the whole of ``text``, or None.

        Depth-first, alternatives in order, with every failed state remembered: a state
        is expanded at most once.  Every loop consumes a character, so the states form
        a graph without cycles and a state on the stack is never reached again below it.
        """
        end = len(self.steps)
        width = len(text) + 1
        failed: set[int] = set()
        stack: list[tuple[int, int]] = [(0, 0)]
        tried: list[int] = [0]
        while stack:
            pc, pos = stack[-1]
            if pc == end:
                if pos == len(text):
                    return stack
                failed.add(pc * width + pos)
                stack.pop()
                tried.pop()
                continue
            options = _next(self.steps, text, pc, pos)
            choice = tried[-1]
            while choice < len(options) and options[choice][0] * width + options[choice][1] in failed:
                choice += 1
            if choice < len(options):
                tried[-1] = choice + 1
                stack.append(options[choice])
                tried.append(0)
            else:
                failed.add(pc * width + pos)
                stack.pop()
                tried.pop()
        return None

    def fullmatch(self, text: str) -> bool:
        return self.path(text) is not None

    def fields(self, text: str) -> dict[str, str] | None:
        """The fields a match captures (a field whose optional part was skipped is absent), or None."""
        states = self.path(text)
        if states is None:
            return None
        found: dict[str, str] = {}
        start: dict[str, int] = {}
        for (pc, pos), (after, at) in itertools.pairwise(states):
            step = self.steps[pc]
            if step.kind == "one" and step.capture is not None:
                start[step.capture] = pos
            elif step.kind == "more" and after == pc + 1 and at == pos and step.capture in start:
                found[step.capture] = text[start[step.capture] : pos]
        return found
