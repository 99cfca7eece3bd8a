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


def compile_schema(
    root: dict[str, Any], types: Mapping[str, Check] | None = None, formats: bool = True
) -> Check | None:
    """Closures equivalent to a draft 2020-12 ``is_valid`` for ``root``, or None.

    ``types`` replaces some of :data:`TYPES` (as a redefined jsonschema type checker
    does); ``formats`` says whether ``format`` is asserted (a format checker is used).
    """
    refs: dict[str, Check] = {}
    known_types = {**TYPES, **(types or {})}

    def is_type(name: str) -> Check:
        if name not in known_types:
            raise Unsupported(f"type {name}")
        return known_types[name]

    def ref(pointer: str) -> Check:
        if not pointer.startswith("#/"):
            raise Unsupported(pointer)
        if pointer not in refs:
            target: Any = root
            for part in pointer[2:].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            slot: list[Check] = []
            refs[pointer] = lambda v: slot[0](v)  # recursion-safe
            slot.append(compile_node(target))
        return refs[pointer]

    def compile_node(schema: Any) -> Check:
        if schema is True or schema == {}:
            return _always
        if schema is False:
            return lambda v: False
        if not isinstance(schema, dict):
            raise Unsupported(repr(schema))
        checks: list[Check] = []
        for key, value in schema.items():
            if key in _ANNOTATIONS:
                continue
            checks.append(keyword(key, value, schema))
        if not checks:
            return _always
        if len(checks) == 1:
            return checks[0]
        return lambda v: all(check(v) for check in checks)

    def keyword(key: str, value: Any, schema: dict[str, Any]) -> Check:
        if key == "type":
            tests = [is_type(name) for name in ([value] if isinstance(value, str) else value)]
            if len(tests) == 1:
                return tests[0]
            return lambda v: any(test(v) for test in tests)
        if key == "enum":
            if not all(isinstance(each, str) for each in value):
                raise Unsupported("enum of non-strings")
            allowed = frozenset(value)
            return lambda v: isinstance(v, str) and v in allowed
        if key == "pattern":
            search = re.compile(value).search
            return lambda v: not isinstance(v, str) or search(v) is not None
        if key == "minLength":
            return lambda v: not isinstance(v, str) or len(v) >= value
        if key == "maxLength":
            return lambda v: not isinstance(v, str) or len(v) <= value
        if key in ("minimum", "maximum"):
            number = is_type("number")
            if key == "minimum":
                return lambda v: not number(v) or v >= value
            return lambda v: not number(v) or v <= value
        if key == "format":
            if not formats:
                return _always
            if value not in FORMATS:
                raise Unsupported(f"format {value}")
            return FORMATS[value]
        if key == "required":
            names = tuple(value)
            return lambda v: not isinstance(v, dict) or all(name in v for name in names)
        if key == "properties":
            compiled = {name: compile_node(sub) for name, sub in value.items()}
            return lambda v: (
                not isinstance(v, dict) or all(check(v[name]) for name, check in compiled.items() if name in v)
            )
        if key == "patternProperties":
            matched = [(re.compile(pattern), compile_node(sub)) for pattern, sub in value.items()]
            return lambda v: (
                not isinstance(v, dict)
                or all(check(item) for name, item in v.items() for regex, check in matched if regex.search(name))
            )
        if key == "additionalProperties":
            known = frozenset(schema.get("properties", {}))
            patterns = [re.compile(pattern) for pattern in schema.get("patternProperties", {})]
            extra = compile_node(value)
            if extra is _always:
                return _always
            return lambda v: (
                not isinstance(v, dict)
                or all(name in known or any(p.search(name) for p in patterns) or extra(v[name]) for name in v)
            )
        if key == "items":
            if "prefixItems" in schema:
                raise Unsupported("prefixItems")
            item = compile_node(value)
            return lambda v: not isinstance(v, list) or all(item(each) for each in v)
        if key == "oneOf":
            branches = [compile_node(sub) for sub in value]
            return lambda v: sum(1 for branch in branches if branch(v)) == 1
        if key == "$ref":
            return ref(value)
        raise Unsupported(key)

    try:
        return compile_node(root)
    except (Unsupported, KeyError, TypeError, re.error):
        return None
