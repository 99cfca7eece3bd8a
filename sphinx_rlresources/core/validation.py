"""Check a data document against the packaged JSON Schema and explain each failure.

jsonschema's own messages ("'many' is not of type 'integer'") say what is wrong but
not where or how to fix it.  Here every error is placed at the YAML mark of the
offending value (or key) and gets a hint drawn from the schema's own ``description``
and ``examples``, so the schema stays the single definition of the format.
"""

from __future__ import annotations

import difflib
import functools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

from sphinx_rlresources.core.fastschema import compile_schema
from sphinx_rlresources.safe.text import unseen_character
from sphinx_rlresources.safe.yamlsafe import Path_, YamlDate, YamlDocument, iter_dates, short

if TYPE_CHECKING:
    import jsonschema

SCHEMA_FILE = "rlresources.schema.json"


@functools.cache
def schema() -> dict[str, Any]:
    """The packaged JSON Schema (draft 2020-12)."""
    text = resources.files("sphinx_rlresources").joinpath("schema").joinpath(SCHEMA_FILE).read_text("utf-8")
    result: dict[str, Any] = json.loads(text)
    return result


def _strict_integer(value: Any) -> bool:
    # JSON Schema counts 8.0 as an integer; a count written 8.0 in YAML is a typo to report.
    return isinstance(value, int) and not isinstance(value, bool)


@functools.cache
def validator() -> jsonschema.Draft202012Validator:
    """One compiled validator, reused by every file of every build.

    Imported on first use: valid data never needs it (see :func:`quick_check`).
    """
    import jsonschema  # deferred: an import that valid data never needs

    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine("integer", lambda _checker, value: _strict_integer(value))
    strict = jsonschema.validators.extend(base, type_checker=checker)  # type: ignore[no-untyped-call]
    return strict(schema(), format_checker=base.FORMAT_CHECKER)  # type: ignore[no-any-return]


def path_text(path: Path_) -> str:
    """``entries[0].gpus`` for ("entries", 0, "gpus")."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(document)"


def field_schema(path: Path_) -> dict[str, Any]:
    """The schema of the named field at ``path`` (for its description and examples)."""
    root = schema()
    if not path:
        return root
    name = path[-1]
    if len(path) == 1:
        result: dict[str, Any] = root["properties"].get(name, {})
        return result
    entry = root["$defs"]["entry"]["properties"]
    if len(path) == 3 and isinstance(name, str):
        return dict(entry.get(name, {}))
    if len(path) == 4 and path[2] == "contributor" and isinstance(name, str):
        return dict(entry["contributor"]["oneOf"][1]["properties"].get(name, {}))
    return {}


def field_example(path: Path_) -> str | None:
    examples = field_schema(path).get("examples")
    if not examples or not isinstance(path[-1], str):
        return None
    example = examples[0]
    if example == []:
        return f"{path[-1]}: []"
    if isinstance(example, (dict, list)):
        return None
    shown = "null" if example is None else str(example)
    if isinstance(example, str) and path[-1] == "infer_version":
        shown = f'"{example}"'
    return f"{path[-1]}: {shown}"


def shown_value(value: Any, doc: YamlDocument, path: Path_) -> str:
    """The value as the contributor wrote it, short, and never an expanded structure."""
    if isinstance(value, dict):
        return f"a mapping of {len(value)} keys"
    if isinstance(value, list):
        return f"a list of {len(value)} items"
    text = doc.source.get(path, repr(value))
    if len(text) > 60:
        text = text[:57] + "..."
    return repr(text) if isinstance(value, str) else text


def _kind(value: Any) -> str:
    if value is None:
        return "null (empty)"
    if isinstance(value, bool):
        return "a boolean (YAML reads yes/no/on/off/true/false as booleans)"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a decimal number"
    if isinstance(value, YamlDate):
        return "a date"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    return "a mapping"


_TYPE_NAMES = {
    "integer": "a whole number",
    "string": "text",
    "array": "a list",
    "object": "a mapping",
    "null": "null",
    "number": "a number",
    "boolean": "true or false",
}


def _expected(types: Any) -> str:
    if isinstance(types, str):
        types = [types]
    return " or ".join(_TYPE_NAMES.get(t, t) for t in types)


def _hint(path: Path_) -> str:
    example = field_example(path)
    return f"; for example {example}" if example else ""


def _flatten(error: jsonschema.ValidationError) -> Iterator[jsonschema.ValidationError]:
    """Replace a oneOf failure by the errors of the branch the value was meant for."""
    if error.validator != "oneOf" or not error.context:
        yield error
        return
    instance = error.instance
    wanted = 1 if isinstance(instance, dict) else 0
    branch = [e for e in error.context if e.relative_schema_path and e.relative_schema_path[0] == wanted]
    if not isinstance(instance, (dict, str)):
        yield error
        return
    yield from branch or [error]


Explained = list[tuple[Path_, bool, str]]
"""(path, at_key, message) for each problem one schema error stands for."""


@dataclass(frozen=True)
class _Failure:
    """One schema error, as the explanations below read it."""

    path: Path_
    where: str
    """The path as text: ``entries[0].gpus``."""
    value: Any
    """The offending value (jsonschema types these loosely; they are plain JSON values here)."""
    spec: Any
    """The failed keyword's value in the schema (``integer`` for ``type``)."""
    subschema: Any
    doc: YamlDocument

    def shown(self) -> str:
        return shown_value(self.value, self.doc, self.path)

    def one(self, message: str) -> Explained:
        """One problem at the value."""
        return [(self.path, False, message)]


def _unknown_fields(failure: _Failure) -> Explained:
    allowed = sorted(failure.subschema.get("properties", {}))
    out: Explained = []
    for key in sorted(set(failure.value) - set(allowed)):
        close = difflib.get_close_matches(short(key), allowed, n=1, cutoff=0.6)
        suggestion = f"; did you mean '{close[0]}'?" if close else "."
        out.append(
            (
                (*failure.path, key),
                True,
                f"{failure.where}: unknown field '{short(key)}'{suggestion} The fields are: {', '.join(allowed)}",
            )
        )
    return out


def _required(failure: _Failure) -> Explained:
    missing = [name for name in failure.spec if name not in failure.value]
    if len(missing) == 1:
        example = field_example((*failure.path, missing[0])) or f"{missing[0]}: ..."
        return failure.one(
            f"{failure.where}: the required field '{missing[0]}' is missing; add it, for example {example}"
        )
    names = ", ".join(missing)
    return failure.one(f"{failure.where}: the required fields {names} are missing; add them (see the data format)")


def _wrong_type(failure: _Failure) -> Explained:
    path, where, value, spec = failure.path, failure.where, failure.value, failure.spec
    wanted = [spec] if isinstance(spec, str) else spec
    if isinstance(value, float) and "string" in wanted:
        text = failure.doc.source.get(path, str(value))
        return failure.one(
            f"{where}: {text} is read by YAML as the number {value!r}, but text is "
            f'expected; quote it: {path[-1]}: "{text}"'
        )
    if isinstance(value, str) and "integer" in wanted:
        fix = f"; write it without quotes: {path[-1]}: {value}" if value.strip().isdigit() else _hint(path)
        return failure.one(f"{where}: {failure.shown()} is text, but {_expected(spec)} is expected{fix}")
    if not path:
        return failure.one(
            f"the file holds {_kind(value)}, but a mapping is expected; start it with the "
            "fields size and entries, e.g. size: 7B"
        )
    if isinstance(value, (dict, list)):
        rows = "; each row starts with '- ' under entries:" if path == ("entries",) else _hint(path)
        return failure.one(f"{where}: is {_kind(value)}, but {_expected(spec)} is expected{rows}")
    return failure.one(f"{where}: {failure.shown()} is {_kind(value)}, but {_expected(spec)} is expected{_hint(path)}")


def _not_a_choice(failure: _Failure) -> Explained:
    choices = [str(c) for c in failure.spec]
    close = difflib.get_close_matches(str(failure.value).upper(), choices, n=1, cutoff=0.5)
    suggestion = f"; did you mean {close[0]}?" if close else ""
    return failure.one(f"{failure.where}: {failure.shown()} is not one of {', '.join(choices)}{suggestion}")


def _out_of_range(bound: str) -> Callable[[_Failure], Explained]:
    def explain_bound(failure: _Failure) -> Explained:
        return failure.one(f"{failure.where}: {failure.shown()} is out of range; it must be {bound} {failure.spec}")

    return explain_bound


def _too_short(failure: _Failure) -> Explained:
    return failure.one(f"{failure.where}: is empty; give a value{_hint(failure.path)}")


def _too_long(failure: _Failure) -> Explained:
    return failure.one(f"{failure.where}: is {len(failure.value)} characters long; at most {failure.spec} are allowed")


def _wrong_form(failure: _Failure) -> Explained:
    description = field_schema(failure.path).get("description", "")
    hidden = unseen_character(failure.value) if isinstance(failure.value, str) else None
    if hidden is not None:
        reason = hidden
    else:
        reason = f"{failure.shown()} is not in the expected form"
        if description:
            reason += f" ({description.rstrip('.')})"
    return failure.one(f"{failure.where}: {reason}{_hint(failure.path)}")


def _neither_form(failure: _Failure) -> Explained:
    value = failure.value
    return failure.one(
        f"{failure.where}: {'' if isinstance(value, (dict, list)) else failure.shown() + ' '}"
        f"is {_kind(value)}; give a name, or a mapping with name and optionally github, url and email"
    )


_EXPLAIN: dict[str, Callable[[_Failure], Explained]] = {
    "additionalProperties": _unknown_fields,
    "required": _required,
    "type": _wrong_type,
    "enum": _not_a_choice,
    "minimum": _out_of_range("at least"),
    "maximum": _out_of_range("at most"),
    "minLength": _too_short,
    "maxLength": _too_long,
    "pattern": _wrong_form,
    "format": _wrong_form,
    "oneOf": _neither_form,
}
"""How each schema keyword's failure is explained; the keywords the packaged schema uses."""


def explain(error: jsonschema.ValidationError, doc: YamlDocument) -> Explained:
    """(path, at_key, message) for one schema error; additionalProperties may give several."""
    path: Path_ = tuple(error.absolute_path)
    failure = _Failure(path, path_text(path), error.instance, error.validator_value, error.schema, doc)
    explained = _EXPLAIN.get(str(error.validator))
    if explained is None:  # pragma: no cover - the keywords above cover the schema
        return failure.one(f"{failure.where}: {error.message}")
    return explained(failure)


@functools.cache
def quick_check() -> Callable[[Any], bool] | None:
    """The schema compiled to a fast valid-or-not test (None: jsonschema does it all)."""
    return compile_schema(schema(), types={"integer": _strict_integer})


def _place(doc: YamlDocument, path: Path_, at_key: bool) -> tuple[int, int]:
    """Where to report a problem at ``path``: its value, or its key."""
    key = doc.key_marks.get(path)
    if at_key:
        return key or doc.mark(path)
    value = doc.mark(path)
    # A value that stands before its own key was reached through an alias: the anchor
    # may be anywhere in the file, so point at the key that used it.
    return key if key is not None and value < key else value


def validate(doc: YamlDocument) -> list[tuple[int, int, str]]:
    """Every schema problem of a document, as (line, column, message), in file order."""
    found: dict[tuple[int, int, str], None] = {}
    quick = quick_check()
    errors = () if quick is not None and quick(doc.value) else validator().iter_errors(doc.value)
    for error in errors:
        for flat in _flatten(error):
            for path, at_key, message in explain(flat, doc):
                line, column = _place(doc, path, at_key)
                found[(line, column, message)] = None
    for path in iter_dates(doc.value):
        if path and path[-1] == "tested":
            continue
        line, column = _place(doc, path, False)
        text = doc.source.get(path, "")
        name = path[-1] if path and isinstance(path[-1], str) else "value"
        found[
            (
                line,
                column,
                f"{path_text(path)}: {text} is read by YAML as a date, but text is expected; "
                f'quote it: {name}: "{text}"',
            )
        ] = None
    return sorted(found)
