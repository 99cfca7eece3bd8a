"""A frozen record with some fields changed, copied instead of built again.

``dataclasses.replace`` calls the class's ``__init__``, which sets every field of a
frozen dataclass one ``object.__setattr__`` at a time: 18 µs for a fifty-field
:class:`~sphinx_rlresources.scripts.run.Run`, paid once or twice per row on lint's and
the build's per-row path.  A record with no ``__post_init__`` and no cached property
is fully described by its ``__dict__``, so copying that dict is the same record for a
twentieth of the time.  Classes that would be wrong to copy this way are refused.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, TypeVar

R = TypeVar("R")


def changed(record: R, **changes: Any) -> R:
    """``dataclasses.replace(record, **changes)``, for a frozen dataclass without ``__post_init__``."""
    cls: type = type(record)
    names = _KNOWN.get(cls) or _KNOWN.setdefault(cls, _fields(cls))
    unknown = changes.keys() - names
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {', '.join(sorted(unknown))}")
    copy: R = object.__new__(cls)
    copy.__dict__.update(record.__dict__, **changes)
    return copy


_KNOWN: dict[type, frozenset[str]] = {}
"""The field names of each class copied so far (a handful of classes)."""


def _fields(cls: type) -> frozenset[str]:
    """The field names of a class whose instances are their ``__dict__``; raises for any other class."""
    if not dataclasses.is_dataclass(cls) or not cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        raise TypeError(f"{cls.__name__} is not a frozen dataclass: use dataclasses.replace")
    if hasattr(cls, "__post_init__") or hasattr(cls, "__slots__"):
        raise TypeError(f"{cls.__name__} computes or slots its fields: use dataclasses.replace")
    if any(isinstance(member, functools.cached_property) for member in vars(cls).values()):
        raise TypeError(f"{cls.__name__} caches properties a copy would carry over: use dataclasses.replace")
    return frozenset(field.name for field in dataclasses.fields(cls))
