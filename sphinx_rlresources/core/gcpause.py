"""Pause the cyclic garbage collector while building many objects that all stay alive.

Loading the data and drawing a table each allocate tens of thousands of objects
(YAML nodes and marks, rows, docutils nodes) that are kept.  Every few hundred
allocations Python's collector runs, and every few dozen runs it scans the *whole*
heap, which in a Sphinx build is large, for cycles that cannot be there yet: at
10,000 rows that was a fifth of the load time.  Reference counting still frees
everything that is dropped meanwhile; the collector resumes afterwards.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def without_gc(func: Callable[P, R]) -> Callable[P, R]:
    """Run ``func`` with the cyclic collector paused (restored as it was, even on error)."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return func(*args, **kwargs)
        finally:
            if was_enabled:
                gc.enable()

    return wrapper
