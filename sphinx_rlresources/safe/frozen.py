"""Frozen records made and changed without setting their fields one at a time.

``dataclasses.replace`` calls the class's ``__init__``, which sets every field of a
frozen dataclass one ``object.__setattr__`` at a time: 18 µs for a fifty-field
:class:`~sphinx_rlresources.scripts.run.Run`, paid once or twice per row on lint's and
the build's per-row path.  A record with no ``__post_init__`` and no cached property
is fully described by its ``__dict__``, so copying that dict is the same record for a
twentieth of the time.  Classes that would be wrong to copy this way are refused.

:func:`stored_at_once` does the same for making one: a frozen dataclass's own
``__init__`` calls ``object.__setattr__`` once per field (14 µs for a 48-field
:class:`~sphinx_rlresources.estimator.plan.Plan`); the ``__init__`` it installs checks
the same arguments and stores the whole ``__dict__`` in one step.  Type checkers still
see the dataclass's own signature.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

R = TypeVar("R")
C = TypeVar("C", bound=type)


class cached_property(Generic[R]):
    """``functools.cached_property`` as Python 3.12 made it: without a lock.

    Before 3.12 the standard one took a lock on every first access, 0.4 us against
    0.16 here; an estimate's figures are cached properties, first read once per row on
    lint's and the build's path.  Like the standard one, the value is stored in the
    instance's ``__dict__`` (a frozen dataclass's too), where later reads find it
    without calling this descriptor; a record with one is never copied by
    :func:`changed` (the copy would carry the value over).
    """

    def __init__(self, func: Callable[[Any], R]) -> None:
        self.func = func
        self.name = ""
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> cached_property[R]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> R: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> R | cached_property[R]:
        if instance is None:
            return self
        value: R = self.func(instance)
        instance.__dict__[self.name] = value
        return value


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
    if hasattr(cls, "__post_init__") or "__slots__" in vars(cls):
        raise TypeError(f"{cls.__name__} computes or slots its fields: use dataclasses.replace")
    if any(isinstance(member, (functools.cached_property, cached_property)) for member in vars(cls).values()):
        raise TypeError(f"{cls.__name__} caches properties a copy would carry over: use dataclasses.replace")
    return frozenset(field.name for field in dataclasses.fields(cls))


def stored_at_once(cls: C) -> C:
    """Give a frozen dataclass an ``__init__`` that stores every field in one step (see the module's docstring).

    Positional and keyword arguments, defaults and default factories behave as in the
    dataclass's own ``__init__``, and the same mistakes (an unknown, a repeated or a
    missing argument) raise ``TypeError``; a class with ``__post_init__`` is refused.
    """
    _fields(cls)  # a frozen dataclass whose instances are their __dict__, or TypeError
    fields = [f for f in dataclasses.fields(cls) if f.init]
    names = tuple(f.name for f in fields)
    accepted = frozenset(names)
    defaults = {f.name: f.default for f in fields if f.default is not dataclasses.MISSING}
    factories: dict[str, Callable[[], Any]] = {
        f.name: f.default_factory for f in fields if f.default_factory is not dataclasses.MISSING
    }
    required = accepted - defaults.keys() - factories.keys()
    setattr_ = object.__setattr__
    if any(not f.init for f in dataclasses.fields(cls)):
        raise TypeError(f"{cls.__name__} has fields outside __init__: keep the dataclass's own")

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if args:
            given = dict(zip(names, args, strict=False))
            if len(args) > len(names) or not kwargs.keys().isdisjoint(given):
                raise _wrong_arguments(cls.__name__, names, required, args, kwargs)
            values = {**defaults, **given, **kwargs}
        else:
            values = {**defaults, **kwargs}
        if factories:
            for name in factories.keys() - values.keys():
                values[name] = factories[name]()
        # Every field has a value once the required ones do; then one more key is an unknown one.
        if (required and not required <= values.keys()) or len(values) != len(names):
            raise _wrong_arguments(cls.__name__, names, required, args, kwargs)
        setattr_(self, "__dict__", values)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = __init__  # type: ignore[misc]
    return cls


def _wrong_arguments(
    name: str, names: tuple[str, ...], required: frozenset[str], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> TypeError:
    """The ``TypeError`` the dataclass's own ``__init__`` would raise for these arguments (the slow path: a mistake)."""
    if len(args) > len(names):
        return TypeError(f"{name}() takes {len(names)} arguments but {len(args)} were given")
    unknown = sorted(kwargs.keys() - set(names))
    if unknown:
        return TypeError(f"{name}() got an unexpected argument {unknown[0]}")
    if not kwargs.keys().isdisjoint(names[: len(args)]):
        return TypeError(f"{name}() got multiple values for an argument")
    missing = required - kwargs.keys() - set(names[: len(args)])
    return TypeError(f"{name}() is missing {', '.join(sorted(missing))}")
