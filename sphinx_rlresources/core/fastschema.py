"""A fast yes/no answer to "is this document valid?", compiled once from the schema.

jsonschema explains every failure well but walks a valid document slowly (a few
hundred microseconds per row, mostly bookkeeping for errors that never come), and a
valid document is what a build almost always reads.  So the packaged schema is
compiled once into plain closures that only answer valid or not; when they say
invalid, :func:`.validation.validate` asks jsonschema for the full explanation.

The compiler knows the keywords the schema uses, with jsonschema's semantics for
draft 2020-12 (the caller passes the type tests it redefines, such as a strict
``integer``).  A schema that uses any other keyword, type or format compiles to
``None`` and every document goes to jsonschema, so extending the schema can make
validation slower, never wrong.  The tests compare both answers on generated data.

Nothing here imports jsonschema: a build whose data is valid never loads it, which
saves its start-up time and memory.
"""

from __future__ import annotations

import datetime
import numbers
import re
from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any], bool]

#: Keywords that never change whether an instance is valid.
_ANNOTATIONS = frozenset(
    {"$schema", "$id", "$defs", "$comment", "title", "description", "examples", "default", "deprecated"}
)


class Unsupported(Exception):
    """The schema uses a keyword this compiler does not know."""


def _always(value: Any) -> bool:
    return True


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return value.is_integer()
    return isinstance(value, int)


#: jsonschema's draft 2020-12 type tests.
TYPES: dict[str, Check] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "integer": _is_integer,
    "number": lambda v: not isinstance(v, bool) and isinstance(v, numbers.Number),
}

_RE_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$", re.ASCII)


def _is_date(value: Any) -> bool:
    """jsonschema's ``date`` format: ISO 8601 ``YYYY-MM-DD`` naming a real day."""
    if not isinstance(value, str):
        return True
    if not _RE_DATE.fullmatch(value):
        return False
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        return False
    return True


FORMATS: dict[str, Check] = {"date": _is_date}


class _Compiler:
    """Compiles one schema, node by node; each keyword has its own method (:data:`_KEYWORDS`)."""

    def __init__(self, root: dict[str, Any], types: Mapping[str, Check] | None, formats: bool) -> None:
        self.root = root
        self.types = {**TYPES, **(types or {})}
        self.formats = formats
        self.refs: dict[str, Check] = {}

    def is_type(self, name: str) -> Check:
        if name not in self.types:
            raise Unsupported(f"type {name}")
        return self.types[name]

    def node(self, schema: Any) -> Check:
        if schema is True or schema == {}:
            return _always
        if schema is False:
            return lambda v: False
        if not isinstance(schema, dict):
            raise Unsupported(repr(schema))
        checks = [self.keyword(key, value, schema) for key, value in schema.items() if key not in _ANNOTATIONS]
        if not checks:
            return _always
        if len(checks) == 1:
            return checks[0]
        return _every(checks)

    def keyword(self, key: str, value: Any, schema: dict[str, Any]) -> Check:
        method = _KEYWORDS.get(key)
        if method is None:
            raise Unsupported(key)
        return method(self, value, schema)

    # -- one method per keyword --------------------------------------------------------

    def type_(self, value: Any, _schema: dict[str, Any]) -> Check:
        tests = [self.is_type(name) for name in ([value] if isinstance(value, str) else value)]
        if len(tests) == 1:
            return tests[0]
        return lambda v: any(test(v) for test in tests)

    def enum(self, value: Any, _schema: dict[str, Any]) -> Check:
        if not all(isinstance(each, str) for each in value):
            raise Unsupported("enum of non-strings")
        allowed = frozenset(value)
        return lambda v: isinstance(v, str) and v in allowed

    def pattern(self, value: Any, _schema: dict[str, Any]) -> Check:
        search = re.compile(value).search
        return lambda v: not isinstance(v, str) or search(v) is not None

    def min_length(self, value: Any, _schema: dict[str, Any]) -> Check:
        return lambda v: not isinstance(v, str) or len(v) >= value

    def max_length(self, value: Any, _schema: dict[str, Any]) -> Check:
        return lambda v: not isinstance(v, str) or len(v) <= value

    def minimum(self, value: Any, _schema: dict[str, Any]) -> Check:
        number = self.is_type("number")
        return lambda v: not number(v) or v >= value

    def maximum(self, value: Any, _schema: dict[str, Any]) -> Check:
        number = self.is_type("number")
        return lambda v: not number(v) or v <= value

    def exclusive_minimum(self, value: Any, _schema: dict[str, Any]) -> Check:
        number = self.is_type("number")
        return lambda v: not number(v) or v > value

    def min_properties(self, value: Any, _schema: dict[str, Any]) -> Check:
        return lambda v: not isinstance(v, dict) or len(v) >= value

    def format_(self, value: Any, _schema: dict[str, Any]) -> Check:
        if not self.formats:
            return _always
        if value not in FORMATS:
            raise Unsupported(f"format {value}")
        return FORMATS[value]

    def required(self, value: Any, _schema: dict[str, Any]) -> Check:
        names = frozenset(value)
        return lambda v: not isinstance(v, dict) or names <= v.keys()

    def properties(self, value: Any, _schema: dict[str, Any]) -> Check:
        compiled = tuple((name, self.node(sub)) for name, sub in value.items())

        def check_properties(v: Any) -> bool:
            if isinstance(v, dict):
                for name, check in compiled:
                    if name in v and not check(v[name]):
                        return False
            return True

        return check_properties

    def pattern_properties(self, value: Any, _schema: dict[str, Any]) -> Check:
        matched = [(re.compile(pattern), self.node(sub)) for pattern, sub in value.items()]
        return lambda v: (
            not isinstance(v, dict)
            or all(check(item) for name, item in v.items() for regex, check in matched if regex.search(name))
        )

    def additional_properties(self, value: Any, schema: dict[str, Any]) -> Check:
        known = frozenset(schema.get("properties", {}))
        patterns = [re.compile(pattern) for pattern in schema.get("patternProperties", {})]
        extra = self.node(value)
        if extra is _always:
            return _always

        def check_additional(v: Any) -> bool:
            if isinstance(v, dict):
                for name in v.keys() - known:  # most rows: none
                    if not any(p.search(name) for p in patterns) and not extra(v[name]):
                        return False
            return True

        return check_additional

    def items(self, value: Any, schema: dict[str, Any]) -> Check:
        if "prefixItems" in schema:
            raise Unsupported("prefixItems")
        item = self.node(value)

        def check_items(v: Any) -> bool:
            if isinstance(v, list):
                for each in v:
                    if not item(each):
                        return False
            return True

        return check_items

    def one_of(self, value: Any, _schema: dict[str, Any]) -> Check:
        branches = [self.node(sub) for sub in value]
        return lambda v: sum(1 for branch in branches if branch(v)) == 1

    def ref(self, pointer: Any, _schema: dict[str, Any]) -> Check:
        if not pointer.startswith("#/"):
            raise Unsupported(pointer)
        if pointer not in self.refs:
            target: Any = self.root
            for part in pointer[2:].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            slot: list[Check] = []
            self.refs[pointer] = lambda v: slot[0](v)  # recursion-safe
            slot.append(self.node(target))
        return self.refs[pointer]


def _every(checks: list[Check]) -> Check:
    """All of ``checks``, in order, stopping at the first that fails (a loop: the schema's hot path
    runs it for every value of every row, where ``all()`` over a generator cost a fifth more)."""

    def check_every(v: Any) -> bool:
        for check in checks:  # noqa: SIM110 - a loop, on purpose: see the docstring
            if not check(v):
                return False
        return True

    return check_every


_KEYWORDS: dict[str, Callable[[_Compiler, Any, dict[str, Any]], Check]] = {
    "type": _Compiler.type_,
    "enum": _Compiler.enum,
    "pattern": _Compiler.pattern,
    "minLength": _Compiler.min_length,
    "maxLength": _Compiler.max_length,
    "minimum": _Compiler.minimum,
    "maximum": _Compiler.maximum,
    "exclusiveMinimum": _Compiler.exclusive_minimum,
    "minProperties": _Compiler.min_properties,
    "format": _Compiler.format_,
    "required": _Compiler.required,
    "properties": _Compiler.properties,
    "patternProperties": _Compiler.pattern_properties,
    "additionalProperties": _Compiler.additional_properties,
    "items": _Compiler.items,
    "oneOf": _Compiler.one_of,
    "$ref": _Compiler.ref,
}
"""The keywords the compiler knows, with jsonschema's draft 2020-12 meaning; any other is :class:`Unsupported`."""


def compile_schema(
    root: dict[str, Any], types: Mapping[str, Check] | None = None, formats: bool = True
) -> Check | None:
    """Closures equivalent to a draft 2020-12 ``is_valid`` for ``root``, or None.

    ``types`` replaces some of :data:`TYPES` (as a redefined jsonschema type checker
    does); ``formats`` says whether ``format`` is asserted (a format checker is used).
    """
    try:
        return _Compiler(root, types, formats).node(root)
    except (Unsupported, KeyError, TypeError, re.error):
        return None
