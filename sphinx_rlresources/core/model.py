"""The validated data, as typed objects that the table, the CLI and the checks share."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from sphinx_rlresources.core.diagnostics import Diagnostic
from sphinx_rlresources.safe.sizes import size_key


def env_text(value: Any) -> str:
    """An ``env`` value as the script would see it: the environment holds text (``4``, ``0.6``, ``sglang``)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


SEQ_LEN_KEYS = ("prompt", "response", "max")
PARALLELISM_KEYS = ("tp", "pp", "cp", "ep")


def _pairs(value: dict[str, int] | None, keys: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """A measured mapping as (key, value) pairs in the schema's order: hashable, and drawn the same way each time."""
    if not value:  # most rows: nothing measured, nothing to build
        return ()
    return tuple((key, value[key]) for key in keys if key in value)


@dataclass(frozen=True)
class Contributor:
    """Who measured a row; the name is linked when a safe target is given."""

    name: str
    github: str | None = None
    url: str | None = None
    email: str | None = None

    @property
    def link(self) -> str | None:
        """The link target: GitHub profile first, then the URL, then the email address."""
        if self.github:
            return f"https://github.com/{self.github}"
        if self.url:
            return self.url
        if self.email:
            return f"mailto:{self.email}"
        return None

    @classmethod
    def from_data(cls, value: Any) -> Contributor:
        if isinstance(value, str):
            return cls(name=value)
        return cls(
            name=value["name"],
            github=value.get("github"),
            url=value.get("url"),
            email=value.get("email"),
        )


@dataclass(frozen=True)
class SourceRef:
    """Where a row was written: the data file and the line/column of its first key."""

    path: str
    line: int
    column: int
    json_path: str = ""
    """``entries[3]``: the row's place in its file, for diagnostics that name a field."""


@dataclass(frozen=True)
class Entry:
    """One row of a resource table."""

    size: str
    tag: str
    model: str
    task: str
    gpus: int
    device: str
    max_batch: int | None
    train: str
    infer: str
    script: str
    contributor: Contributor
    source: SourceRef
    infer_version: str | None = None
    model_id: str | None = None
    evidence: str | None = None
    tested: str | None = None
    notes: str | None = None
    script_ref: str | None = None
    """The commit, tag or branch the script is read from (None: the working tree)."""
    seq_len: tuple[tuple[str, int], ...] = ()
    """What was measured, each optional: ``(("prompt", 1024), ("response", 3072))`` in the schema's order."""
    global_batch: int | None = None
    parallelism: tuple[tuple[str, int], ...] = ()
    """``(("tp", 4), ("pp", 2))``: the training parallelism, in the schema's order (tp, pp, cp, ep)."""
    throughput: float | None = None
    """Tokens per second per GPU."""
    step_time: float | None = None
    """Seconds per training step."""
    peak_memory: float | None = None
    """The measured peak memory per GPU, in GiB."""
    description: str | None = None
    """Text for readers in which ``[text](url)`` is a link (:mod:`~sphinx_rlresources.core.richtext`)."""
    env: dict[str, str] = field(default_factory=dict, compare=False, hash=False)
    """The environment the row was measured with, over the script's documented defaults."""
    field_marks: dict[str, tuple[int, int]] = field(default_factory=dict, compare=False, hash=False)
    """Line and column of each field's value, so checks can point at ``gpus:`` itself."""

    @property
    def resource(self) -> str:
        """``8*H100``, as the hand-written pages show it."""
        return f"{self.gpus}*{self.device}"

    @property
    def infer_label(self) -> str:
        """``vllm0.8.3``, as the hand-written pages show it."""
        return f"{self.infer}{self.infer_version or ''}"

    @property
    def script_name(self) -> str:
        return self.script.rsplit("/", 1)[-1]

    def at(self, name: str) -> tuple[int, int]:
        """The line and column of field ``name`` (the row's start when it is absent)."""
        return self.field_marks.get(name, (self.source.line, self.source.column))

    @classmethod
    def from_data(cls, size: str, value: dict[str, Any], source: SourceRef, marks: dict[str, tuple[int, int]]) -> Entry:
        return cls(
            size=size,
            tag=value["tag"],
            model=value["model"],
            task=value["task"],
            gpus=value["gpus"],
            device=value["device"],
            max_batch=value["max_batch"],
            train=value["train"],
            infer=value["infer"],
            infer_version=value.get("infer_version"),
            script=value["script"],
            script_ref=value.get("script_ref"),
            env={name: env_text(item) for name, item in (value.get("env") or {}).items()},
            contributor=Contributor.from_data(value["contributor"]),
            model_id=value.get("model_id"),
            evidence=value.get("evidence"),
            tested=str(value["tested"]) if value.get("tested") is not None else None,
            notes=value.get("notes"),
            seq_len=_pairs(value.get("seq_len"), SEQ_LEN_KEYS),
            global_batch=value.get("global_batch"),
            parallelism=_pairs(value.get("parallelism"), PARALLELISM_KEYS),
            throughput=value.get("throughput"),
            step_time=value.get("step_time"),
            peak_memory=value.get("peak_memory"),
            description=value.get("description"),
            source=source,
            field_marks=marks,
        )


@dataclass(frozen=True)
class Commit:
    """One commit of the walk: ``order`` is its position, 0 for the newest."""

    sha: str
    date: str
    subject: str
    order: int


@dataclass(frozen=True)
class Staleness:
    """Why one row is stale: what its script now runs that differs from what the row was verified with."""

    what: str
    """The settings that differ, each with its value before (``gpus 16 (was 8)``)."""
    by: Commit | None
    """The first commit whose script differs so, where it could be told."""
    since: str
    basis: str
    """``tested`` (the row's date) or ``data`` (the last commit of its data file)."""
    ref: str | None = None
    """The row's ``script_ref``, for a pinned row."""

    def message(self) -> str:
        script = f"the script at {self.ref}" if self.ref else "the script"
        by = f" (changed by {self.by.sha[:10]} on {self.by.date}: '{self.by.subject}')" if self.by else ""
        if self.basis == "tested":
            pin = ", or pin script_ref at the commit that was tested" if self.ref else ""
            return (
                f"{script} runs {self.what} since this row was tested on {self.since}{by}; run the "
                f"configuration again and update the row and tested{pin}"
            )
        return (
            f"{script} runs {self.what} since this row's data file last changed on {self.since}, and the row "
            f"has no tested date{by}; run the configuration again, update the row and add tested: YYYY-MM-DD"
        )


@dataclass
class SizeData:
    """One data file: a size label and its rows.

    ``readable`` is False when the file could not be read or broke the schema; the
    directive then says so instead of drawing rows that may be wrong.
    """

    label: str
    path: Path
    display_path: str
    entries: list[Entry] = field(default_factory=list)
    readable: bool = True

    @property
    def key(self) -> str:
        return size_key(self.label)


class RowEstimate(Protocol):
    """What the estimator gives a row (its ``Result``), as the tables read it.

    A protocol, so the data model needs no import of the estimator; the expected peak is
    computed when first read, so a load that never draws it never pays for it.
    """

    @property
    def floor_gib(self) -> float: ...

    @property
    def expected_gib(self) -> float: ...

    @property
    def trainer_gib(self) -> float: ...

    @property
    def engine_gib(self) -> float: ...

    @property
    def verdict(self) -> str: ...


@dataclass
class DataSet:
    """Everything one load produced: the sizes in ascending order and the findings."""

    data_dir: Path
    root: Path
    sizes: dict[str, SizeData] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    scripts: dict[str, Path] = field(default_factory=dict)
    """Each row's ``script`` value mapped to the checked real file inside the root."""
    stale: dict[SourceRef, Staleness] = field(default_factory=dict)
    """Rows whose script changed after they were tested , by row."""
    linkable: set[str] = field(default_factory=set)
    """The rows' ``script`` values whose script exists (in the tree, or in git at the row's
    ``script_ref``): only these get a link, so no reader follows a link to a missing file."""
    estimates: dict[SourceRef, RowEstimate] = field(default_factory=dict)
    """Each row's estimate (``rlresources estimate``), where one exists."""
    notes: list[str] = field(default_factory=list)
    """Informational messages (a check that was skipped, and why); never failures."""

    @property
    def entries(self) -> list[Entry]:
        return [entry for size in self.sizes.values() for entry in size.entries]

    def files(self) -> list[Path]:
        return [size.path for size in self.sizes.values()]
