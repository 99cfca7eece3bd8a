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

    ``char``: the next characters are ``text`` (a literal run, one step).  ``one``: the next character is of class
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


def _run_end(text: str, kind: str, stop: str, ends: list[int], pos: int) -> int:
    """Where a lazy field of ``kind`` followed by ``stop`` could next end, from ``pos``.

    That is the first ``stop`` or misfit at or after ``pos``: before it, ending fails at
    once (the next character is not ``stop``).  Each position's answer is kept in
    ``ends`` (-1: not yet known) and scanned once per (kind, stop) and text, so the
    search stays linear however often a run is entered.
    """
    scan = pos
    while scan < len(text) and ends[scan] < 0 and text[scan] != stop and _fits(kind, text[scan]):
        scan += 1
    end = ends[scan] if scan < len(text) and ends[scan] >= 0 else scan
    for known in range(pos, scan):
        ends[known] = end
    return end


Runs = dict[tuple[str, str], list[int]]
"""The known run ends of one text, by (kind, stop): see :func:`_run_end`."""


def literal(steps: list[Step], char: str, joinable: bool) -> None:
    """Add a literal character: to the literal run before it when ``joinable`` (no jump lands between)."""
    if joinable and steps and steps[-1].kind == "char":
        steps[-1] = Step("char", steps[-1].text + char)
    else:
        steps.append(Step("char", char))


def _next(steps: tuple[Step, ...], text: str, runs: Runs, pc: int, pos: int) -> list[tuple[int, int]]:
    """The states one step leads to from ``(pc, pos)``, the preferred first.

    A lazy field followed by a character jumps to where it could next end: the states
    between would each fail at once, one step at a time.
    """
    step = steps[pc]
    here = text[pos] if pos < len(text) else ""
    if step.kind == "char":
        return [(pc + 1, pos + len(step.text))] if text.startswith(step.text, pos) else []
    if step.kind == "one":
        return [(pc + 1, pos + 1)] if here and _fits(step.text, here) else []
    if step.kind == "more":
        if not (here and _fits(step.text, here)):
            return [(pc + 1, pos)]
        if step.greedy:
            return [(pc, pos + 1), (pc + 1, pos)]
        after = steps[pc + 1] if pc + 1 < len(steps) else None
        if after is not None and after.kind == "char" and here != after.text[0]:
            ends = runs.setdefault((step.text, after.text[0]), [-1] * len(text))
            return [(pc, _run_end(text, step.text, after.text[0], ends, pos))]
        return [(pc + 1, pos), (pc, pos + 1)]
    if step.kind == "split":
        return [(pc + 1, pos), (step.target, pos)]
    return [(step.target, pos)]  # jump


@dataclass(frozen=True, eq=False)
class Program:
    """A compiled pattern: its steps, ending in an implicit match at ``len(steps)``.

    Compared and hashed by identity: a rule's program is made once, and a cache keyed
    by it must not hash every step on each lookup.
    """

    steps: tuple[Step, ...]

    def path(self, text: str) -> list[tuple[int, int]] | None:
        """The states of the first match of the whole of ``text``, or None.

        Depth-first, alternatives in order, with every failed state remembered: a state
        is expanded at most once.  Every loop consumes a character, so the states form
        a graph without cycles and a state on the stack is never reached again below it.
        A state with nowhere to go (a character that differs) fails before it is pushed.
        """
        steps, end, size = self.steps, len(self.steps), len(text)
        width = size + 1
        failed: set[int] = set()
        if end == 0:
            return [(0, 0)] if size == 0 else None
        runs: Runs = {}
        stack: list[tuple[int, int, list[tuple[int, int]]]] = [(0, 0, _next(steps, text, runs, 0, 0))]
        tried: list[int] = [0]
        while stack:
            pc, pos, options = stack[-1]
            choice = tried[-1]
            child: list[tuple[int, int]] = []
            while choice < len(options) and not child:
                state = options[choice]
                choice += 1
                if state[0] == end and state[1] == size:
                    return [(frame[0], frame[1]) for frame in stack] + [state]
                key = state[0] * width + state[1]
                if key in failed:
                    continue
                child = _next(steps, text, runs, *state) if state[0] < end else []
                if not child:
                    failed.add(key)
            tried[-1] = choice
            if child:
                stack.append((*state, child))
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
