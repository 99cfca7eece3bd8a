"""Read untrusted YAML into plain values, remembering where every value stood.

Data files come from contributors' pull requests, so this module never lets PyYAML
construct anything itself: it only *composes* the node graph (which keeps line and
column marks and shares aliased nodes instead of expanding them), refuses every tag
that is not plain data, and then builds dicts, lists and scalars by hand.  Building by
hand is also what lets us catch duplicate keys, which PyYAML's constructors drop
silently, and bound the work an alias bomb can cause.
"""

from __future__ import annotations

import datetime
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

try:  # libyaml's C parser is much faster; marks and composition behave the same.
    from yaml import CSafeLoader as _Parser
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Parser  # type: ignore[assignment]

Path_ = tuple[str | int, ...]
"""A JSON path: keys and list indexes from the document root."""

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_SCALAR_TAGS = {_STR, _INT, _FLOAT, _BOOL, _NULL, _TIMESTAMP}
_BOOLS: dict[str, bool] = yaml.constructor.SafeConstructor.bool_values
#: The only integer spelling read as written.
_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)")
#: Longer numbers are refused before Python converts them (int() of a megabyte of
#: digits is slow, and Python 3.11+ refuses more than 4300 digits anyway).
MAX_DIGITS = 100

#: How many values aliases may add beyond the document's own nodes.  Real data files
#: have no reason to repeat large structures; an alias bomb needs billions.
ALIAS_EXPANSION_BUDGET = 10_000
#: Short text values are interned: the data set is kept for the whole build, and the
#: same words (tags, devices, backends, names) recur in every row.
_INTERNED = 40
#: How many characters of text aliases may add beyond the document's own length: a
#: long string aliased thousands of times would otherwise make the schema's patterns
#: scan gigabytes (the "quadratic blow-up"), even within the value budget.
ALIAS_EXPANSION_CHARS = 100_000
#: Deeper nesting than this is never data we want, and would exhaust the stack.
MAX_DEPTH = 64


class YamlDate(str):
    """A value YAML resolved as a timestamp, kept as the text that was written.

    Keeping the text means nothing is lost (``2025-06-25`` stays ``2025-06-25``), and
    the validator can still tell that YAML itself would have read a date there.
    """


@dataclass
class Problem:
    """A located problem found while reading; the caller turns it into a Diagnostic."""

    line: int
    column: int
    message: str
    kind: str = "yaml"  # "yaml" (syntax / refused feature) or "file" (bytes, size)


@dataclass
class YamlDocument:
    """The plain value of a document plus where each part of it was written."""

    value: Any
    marks: dict[Path_, tuple[int, int]] = field(default_factory=dict)
    key_marks: dict[Path_, tuple[int, int]] = field(default_factory=dict)
    source: dict[Path_, str] = field(default_factory=dict)
    """The text of every scalar as written, to quote it back in messages (0.10, yes)."""

    def mark(self, path: Path_) -> tuple[int, int]:
        """The (line, column) of the value at ``path``, or of its nearest parent."""
        while path:
            if path in self.marks:
                return self.marks[path]
            path = path[:-1]
        return self.marks.get((), (1, 1))


class YamlError(Exception):
    """Raised with every problem that stopped a document from being read."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(p.message for p in problems))
        self.problems = problems


def decode(data: bytes) -> str:
    """Decode UTF-8 (a byte-order mark is accepted and dropped).

    Raises :class:`YamlError` naming the line and column of the first bad byte, because
    "invalid start byte at position 4711" is useless to a contributor.
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        before = data[: err.start]
        line = before.count(b"\n") + 1
        column = err.start - (before.rfind(b"\n") + 1) + 1
        raise YamlError(
            [
                Problem(
                    line,
                    column,
                    f"the file is not UTF-8 text (byte 0x{data[err.start]:02x} cannot be decoded); save it as UTF-8",
                    kind="file",
                )
            ]
        ) from None


def _mark(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def short(text: str, limit: int = 60) -> str:
    """Untrusted text made fit to quote in a one-line message.

    Cut to a length (a key may be a megabyte long), with line breaks and other control
    characters escaped: a key holding a line break would otherwise forge a second
    ``path:line:col: error:`` line in the output that CI annotates.
    """
    head = text[: limit + 1]
    shown = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in head)
    return shown if len(shown) <= limit and len(text) <= limit else shown[: limit - 3] + "..."


def _shown_tag(tag: str) -> str:
    """A tag as the contributor wrote it: ``!!python/object`` rather than its long form."""
    if tag.startswith("tag:yaml.org,2002:"):
        tag = "!!" + tag[len("tag:yaml.org,2002:") :]
    return short(tag)


def _reader_problem(err: yaml.reader.ReaderError, source: str) -> Problem:
    """A character YAML refuses (NUL, BEL, a lone surrogate...), placed where it stands."""
    position = err.position if isinstance(err.position, int) else 0
    before = source[:position]
    line = before.count("\n") + 1
    column = position - (before.rfind("\n") + 1) + 1
    code = err.character if isinstance(err.character, int) else ord(str(err.character)[:1] or "\0")
    return Problem(
        line,
        column,
        f"invalid YAML: the character U+{code:04X} is not allowed in YAML text; remove it "
        "(or write it as an escape such as \\x07 inside double quotes)",
    )


def _syntax_problem(err: yaml.YAMLError, source: str = "") -> Problem:
    if isinstance(err, yaml.reader.ReaderError):
        return _reader_problem(err, source)
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    problem = getattr(err, "problem", None) or str(err)
    context = getattr(err, "context", None)
    started = getattr(err, "context_mark", None)
    if context and started is not None and mark is not None and started.line != mark.line:
        context = f"{context} (opened at line {started.line + 1}, column {started.column + 1})"
    text = " ".join((f"{context}, {problem}" if context else str(problem)).split())  # one line
    hint = "check the indentation and the quoting around this place"
    # libyaml's message does not name the tab, so look at the line itself.
    lines = source.split("\n", line)[line - 1 : line] if mark is not None else []
    if "'\\t'" in text or "tab character" in text or (lines and "\t" in lines[0][:column]):
        hint = "YAML does not allow tabs for indentation; indent with spaces"
    return Problem(line, column, f"invalid YAML: {text}; {hint}")


#: Line breaks to YAML 1.1 that editors do not count: every mark after one would be off.
_ODD_BREAKS = re.compile("[\x85\u2028\u2029]")


#: Below this bound on the nesting depth, libyaml's recursive composer is safe; above
#: it, a pre-pass over the parser's events (which does not recurse) measures the depth
#: first, because libyaml's composer crashes the interpreter on ~30,000 nested "[".
_SAFE_COMPOSE_DEPTH = 2_000


def _depth_bound(text: str) -> int:
    """An upper bound on the nesting depth, cheap enough to compute for every file.

    Flow collections need an opening bracket each; a block collection nested in another
    starts further right, except a sequence under a key, so at most two levels per column.
    """
    longest = max(map(len, text.split("\n")), default=0)  # a lone \r only makes the bound larger
    return text.count("[") + text.count("{") + 2 * longest + 2


def _check_depth(text: str) -> None:
    try:
        _walk_depth(text)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        if mark is None or "maximum nesting depth" not in str(error.problem):
            raise
        # PyYAML 6.0.4 and later refuse about 1,000 levels while scanning ahead, before the
        # events reach the 65th: the text before that point holds where it starts.
        try:
            _walk_depth(text[: mark.index])
        except yaml.YAMLError:
            pass
        raise YamlError(
            [Problem(mark.line + 1, mark.column + 1, f"values are nested more than {MAX_DEPTH} levels deep")]
        ) from None


def _walk_depth(text: str) -> None:
    depth = 0
    for event in yaml.parse(text, Loader=_Parser):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                mark = event.start_mark
                line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
                raise YamlError([Problem(line, column, f"values are nested more than {MAX_DEPTH} levels deep")])
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1


class _Builder:
    """Turns a composed node graph into plain values, with marks, within a budget."""

    def __init__(self, distinct_nodes: int, text: str = "", merge_keys: bool = False) -> None:
        self.merge_keys = merge_keys
        self.budget = distinct_nodes + ALIAS_EXPANSION_BUDGET
        self.chars = len(text) + ALIAS_EXPANSION_CHARS
        self.text = text
        self.doc = YamlDocument(value=None)
        self.problems: list[Problem] = []
        self.scalars = yaml.constructor.SafeConstructor()

    def build(self, node: yaml.Node, path: Path_, depth: int) -> Any:
        self.budget -= 1
        if isinstance(node, yaml.ScalarNode):
            self.chars -= len(node.value)
        if self.budget < 0 or self.chars < 0:
            raise YamlError(
                [
                    Problem(
                        *_mark(node),
                        "the document expands to far more values or text than it spells out "
                        "(anchors and aliases repeated inside each other); write the "
                        "values out instead of using aliases",
                    )
                ]
            )
        if depth > MAX_DEPTH:
            raise YamlError([Problem(*_mark(node), f"values are nested more than {MAX_DEPTH} levels deep")])
        self.doc.marks[path] = _mark(node)
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node, path)
        if isinstance(node, yaml.SequenceNode):
            if node.tag != _SEQ:
                self._refuse(node)
            return [self.build(item, (*path, i), depth + 1) for i, item in enumerate(node.value)]
        if isinstance(node, yaml.MappingNode):
            if node.tag != _MAP:
                self._refuse(node)
            return self._mapping(node, path, depth)
        self._refuse(node)  # pragma: no cover - the composer makes only the three kinds

    def _refuse(self, node: yaml.Node) -> None:
        raise YamlError(
            [
                Problem(
                    *_mark(node),
                    f"the YAML tag {_shown_tag(node.tag)} is not allowed in a data file; only plain "
                    "text, numbers, lists and mappings are read (remove the tag)",
                )
            ]
        )

    def _explicit_tag(self, node: yaml.Node) -> bool:
        """Whether the node was written with a tag (``!!int "8"``): its text starts with ``!``.

        The composer resolves an untagged scalar to the same tags, so only the source
        tells ``!!int 8`` from ``8``; a node's text starts at its anchor, if any.
        """
        start = node.start_mark.index
        if start >= len(self.text):
            return False
        if self.text[start] == "&":
            end = start
            while end < len(self.text) and not self.text[end].isspace():
                end += 1
            start = end
            while start < len(self.text) and self.text[start] in " \t":
                start += 1
        return start < len(self.text) and self.text[start] == "!"

    def _scalar(self, node: yaml.ScalarNode, path: Path_) -> Any:
        tag = node.tag
        if tag not in _SCALAR_TAGS or self._explicit_tag(node):
            self._refuse(node)
        if tag == _STR and len(node.value) <= _INTERNED:
            node.value = sys.intern(node.value)  # every row repeats MIN, H100, fsdp...: keep one copy
        self.doc.source[path] = node.value
        if tag == _STR:
            return node.value
        if tag == _TIMESTAMP:
            return YamlDate(node.value)
        # The three a row has most are made as PyYAML's constructor makes them, without its dispatch.
        if tag == _INT:
            return self._int(node, path)
        if tag == _NULL:
            return None
        if tag == _BOOL and node.value.lower() in _BOOLS:
            return _BOOLS[node.value.lower()]
        try:
            value = self.scalars.construct_object(node, deep=False)
        except (yaml.YAMLError, ValueError, OverflowError):
            return node.value
        if isinstance(value, datetime.date):  # pragma: no cover - handled by the tag above
            return YamlDate(node.value)
        return value

    def _int(self, node: yaml.ScalarNode, path: Path_) -> int | str:
        """An int written in plain decimal digits; any other spelling is a problem, kept as its text."""
        text: str = node.value
        name = path[-1] if path and isinstance(path[-1], str) else "value"
        if text.startswith("+") and _DECIMAL.fullmatch(text[1:]):
            message = f"{name}: {short(text)} has a plus sign; write plain digits: {text[1:]}"
        elif not _DECIMAL.fullmatch(text):
            # YAML 1.1 reads 010 as 8, 0x10 as 16 and 1:30 as 90: never what a count means.
            message = (
                f"{name}: {short(text)} is not written in plain decimal digits, and YAML "
                "would read it as another number (010 is 8, 0x10 is 16, 1:30 is 90, 1_000 is "
                "1000); write the number as digits without leading zeros, or quote it if it is text"
            )
        elif len(text) > MAX_DIGITS:
            message = f"{name}: {short(text)} has more than {MAX_DIGITS} digits; no count is that large"
        else:
            return int(text)  # what PyYAML's constructor makes of plain decimal digits
        self.problems.append(Problem(*_mark(node), message))
        return text

    def _mapping(self, node: yaml.MappingNode, path: Path_, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        first_seen: dict[str, tuple[int, int]] = {}
        if self.merge_keys:  # the bases first, so the mapping's own keys replace theirs (and their lines)
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    self._merge(value_node, path, depth, result)
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge" and self.merge_keys:
                continue
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise YamlError(
                    [
                        Problem(
                            *_mark(key_node),
                            "merge keys (<<) are not allowed in a data file; write the fields out",
                        )
                    ]
                )
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag not in _SCALAR_TAGS:
                raise YamlError([Problem(*_mark(key_node), "a mapping key must be a plain word, like gpus")])
            key = sys.intern(key_node.value)  # the same dozen field names in every row
            where = _mark(key_node)
            if key in first_seen:
                line, col = first_seen[key]
                self.problems.append(
                    Problem(
                        *where,
                        f"duplicate key '{short(key)}' (first given at line {line}, column {col}); "
                        "YAML would keep only the last one: remove one of them",
                    )
                )
                continue
            first_seen[key] = where
            self.doc.key_marks[path + (key,)] = where  # noqa: RUF005 - (*path, key) needs 3.11 here
            result[key] = self.build(value_node, (*path, key), depth + 1)
        return result

    def _merge(self, node: yaml.Node, path: Path_, depth: int, result: dict[str, Any]) -> None:
        """``<<: *base`` (or a list of them): the base's keys, each under the budget, never over a key of its own.

        Only for configs that are read, never for data files (``load(..., merge_keys=True)``):
        framework recipes (NeMo-RL's distillation base) share blocks this way.  The
        base is built afresh at this mapping's path, so its values keep the lines they
        were written on.
        """
        sources = node.value if isinstance(node, yaml.SequenceNode) else [node]
        own = self.doc.marks.get(path)
        for source in sources:
            if not isinstance(source, yaml.MappingNode) or source.tag != _MAP:
                raise YamlError([Problem(*_mark(source), "a merge key (<<) must name a mapping")])
            for key, value in self.build(source, path, depth).items():
                result.setdefault(key, value)  # the first base to give a key wins, as in YAML
        if own is not None:
            self.doc.marks[path] = own


def _count_distinct(root: yaml.Node) -> int:
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.append(key)
                stack.append(value)
    return len(seen)


def load(text: str, merge_keys: bool = False) -> YamlDocument:
    """Compose and build one YAML document.

    ``merge_keys`` accepts ``<<: *anchor``, which data files may not use but framework
    configs read by the script reader do.

    Raises :class:`YamlError` with every problem found.  An empty document (nothing, or
    only comments) yields a document whose value is ``None``: the caller decides what
    that means.
    """
    odd = _ODD_BREAKS.search(text)
    if odd:
        before = text[: odd.start()]
        line, column = before.count("\n") + 1, odd.start() - (before.rfind("\n") + 1) + 1
        name = {"\x85": "NEXT LINE", "\u2028": "LINE SEPARATOR", "\u2029": "PARAGRAPH SEPARATOR"}[odd.group()]
        raise YamlError(
            [
                Problem(
                    line,
                    column,
                    f"the character U+{ord(odd.group()):04X} ({name}) is a line break to YAML but not to "
                    "editors, so lines would be counted wrongly; replace it with a normal line break or remove it",
                )
            ]
        )
    try:
        if _depth_bound(text) > _SAFE_COMPOSE_DEPTH:
            _check_depth(text)
        root = yaml.compose(text, Loader=_Parser)
    except yaml.YAMLError as err:
        raise YamlError([_syntax_problem(err, text)]) from None
    except RecursionError:
        raise YamlError([Problem(1, 1, f"values are nested more than {MAX_DEPTH} levels deep")]) from None
    except UnicodeEncodeError as err:  # a lone surrogate: only from callers, never from decode()
        raise YamlError([Problem(1, err.start + 1, "the text holds a lone surrogate character; remove it")]) from None
    if root is None:
        return YamlDocument(value=None)
    # Without an anchor (&) there is no alias, so every node is built once and the node
    # budget cannot run out: skip counting, a walk over the whole graph.
    distinct = _count_distinct(root) if "&" in text else sys.maxsize // 2
    builder = _Builder(distinct, text, merge_keys)
    builder.doc.value = builder.build(root, (), 0)
    if builder.problems:
        raise YamlError(builder.problems)
    return builder.doc


def iter_dates(value: Any, path: Path_ = ()) -> Iterator[Path_]:
    """The paths of every value YAML would have read as a date."""
    if isinstance(value, YamlDate):
        yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from iter_dates(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from iter_dates(item, (*path, index))
