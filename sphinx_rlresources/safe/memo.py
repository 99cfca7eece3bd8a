"""A bounded memory of a pure function's answers, for keys made of strangers' text.

The readers and checks remember a few answers on lint's and the build's per-row path:
the tag of a YAML scalar, the key of a Hydra override, a framework's default, and
(through :func:`remembered`) a model's bundled shape, a device's spelling, a script
name's fields.  Each answer
depends only on its key, and real repositories repeat the same few hundred keys, but
the keys come from untrusted files, so the memory must stay bounded whatever they
hold: a most number of entries (emptied when full, which costs nothing on the hot
path, where an LRU's bookkeeping would), and, where a key holds text, a longest text
remembered.  ``functools.lru_cache`` bounds the entries only, and would keep a
100 kB key.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Memo(dict[K, V]):
    """A dict of remembered answers; read it as a dict, add to it with :meth:`keep` only."""

    __slots__ = ("chars", "entries")

    def __init__(self, entries: int, chars: int = sys.maxsize) -> None:
        super().__init__()
        self.entries = entries
        """The most answers kept: the memory is emptied when it is full."""
        self.chars = chars
        """The longest text of a key that is remembered (by default, no bound: a key without text)."""

    def short(self, text: str) -> bool:
        """Whether a key holding ``text`` may be remembered."""
        return len(text) <= self.chars

    def keep(self, key: K, value: V, text: str = "") -> V:
        """``value``, remembered for ``key`` unless ``text`` (the key's text) is too long to keep."""
        if self.short(text):
            if len(self) >= self.entries:
                self.clear()
            self[key] = value
        return value


def remembered(entries: int, chars: int) -> Callable[[Callable[[str], V]], Callable[[str], V]]:
    """Remember a pure function of one text in a :class:`Memo` (``functools.lru_cache`` with the text bounded).

    A text longer than ``chars`` (a model path a script wrote, up to 64 kB) is answered
    every time and never kept.
    """

    def decorate(func: Callable[[str], V]) -> Callable[[str], V]:
        memo: Memo[str, V] = Memo(entries, chars)

        @functools.wraps(func)
        def remembering(text: str) -> V:
            try:
                return memo[text]
            except KeyError:
                return memo.keep(text, func(text), text)

        return remembering

    return decorate
