"""Pause the cyclic garbage collector while building many objects that all stay alive.

Loading the data, drawing a table and writing the JSON export each allocate tens of
thousands of objects (YAML nodes and marks, rows, docutils nodes, a row's cells) that
are kept while the work lasts.  Every few hundred
allocations Python's collector runs, and every few dozen runs it scans the *whole*
heap, which in a Sphinx build is large, for cycles that cannot be there yet: at
10,000 rows that was a fifth of the load time.  Reference counting still frees
everything that is dropped meanwhile; the collector resumes afterwards.
``benchmarks/bench_gcpause.py`` measures what it buys (docs/performance.rst).

The contract this relies on, all of it CPython's documented :mod:`gc` behaviour:

* ``gc.disable()`` stops only the cyclic collector: reference counting frees every
  object without a cycle at once, so memory grows only by the cycles made while
  paused, which the next collection frees;
* the pause is process-wide and is undone in ``finally``, restoring the state it
  found (a caller that paused the collector itself keeps it paused); Sphinx's
  parallel build forks processes, not threads, so no other thread sees the pause;
* nothing run while paused needs a cycle's finalizer to run meanwhile.

:func:`without_gc_kept` does one thing more, for work whose objects outlive many
collections (the loader's data set; a table's nodes, which Sphinx keeps with the
page's doctree until the page is written): when the pause ends, everything that
survived is filed with the old objects (``gc.freeze()`` then ``gc.unfreeze()``, which
CPython documents as moving every tracked object to the permanent generation and back
into the oldest one).  Otherwise the first collections after the pause scan all of it
as young, twice (the youngest generation, then the next), for cycles that cannot be
there: at 10,000 rows, 0.3 of lint's 5.3 seconds, and 0.9 s of the directive page's
build for its table.  A cycle made and dropped meanwhile is then freed by the next
full collection instead of the next young one.  Nothing is filed
when anything is already frozen (an application that froze its objects before
forking keeps them frozen) or when the caller had paused the collector itself.  The
JSON export's objects are not filed: they are dropped as soon as the file is written.

A Python whose collector works differently (an incremental one) can make the pause
worth less, never wrong.  ``RLRESOURCES_NO_GC_PAUSE=1`` in the environment turns it
off, for measuring it or for ruling it out when hunting a memory problem.
"""

from __future__ import annotations

import functools
import gc
import os
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

SWITCH = "RLRESOURCES_NO_GC_PAUSE"
"""The environment variable that turns the pause off (any value but empty or ``0``)."""


def pausing() -> bool:
    """Whether :func:`without_gc` pauses the collector: yes, unless :data:`SWITCH` is set."""
    return os.environ.get(SWITCH, "") in ("", "0")


def without_gc(func: Callable[P, R]) -> Callable[P, R]:
    """Run ``func`` with the cyclic collector paused (restored as it was, even on error)."""
    return _paused(func, file_as_old=False)


def without_gc_kept(func: Callable[P, R]) -> Callable[P, R]:
    """:func:`without_gc`, then what survived filed as old: for objects kept as long as the data set."""
    return _paused(func, file_as_old=True)


def _paused(func: Callable[P, R], file_as_old: bool) -> Callable[P, R]:
    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        if not pausing():
            return func(*args, **kwargs)
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return func(*args, **kwargs)
        finally:
            if was_enabled:
                if file_as_old and not gc.get_freeze_count():
                    gc.freeze()
                    gc.unfreeze()
                gc.enable()

    return wrapper
