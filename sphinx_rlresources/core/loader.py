"""Load a folder of data files into a checked :class:`~.model.DataSet`.

This is the one code path: the Sphinx extension calls :func:`load_dataset` once per
build and ``rlresources lint`` calls it once per run, with the same options, so both
report the same diagnostics.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sphinx_rlresources.core import checks, freshness, git
from sphinx_rlresources.core.diagnostics import Diagnostic, Subtype, relpath
from sphinx_rlresources.core.model import DataSet, Entry, SizeData, SourceRef
from sphinx_rlresources.core.naming import PRESETS, NamingRule
from sphinx_rlresources.core.paths import NotRegular, is_within, read_regular, real_path, what_is
from sphinx_rlresources.core.placeholders import replace_schema_errors
from sphinx_rlresources.core.settings import DEFAULT_MAX_FILE_BYTES
from sphinx_rlresources.core.validation import validate
from sphinx_rlresources.safe.sizes import size_key, size_order
from sphinx_rlresources.safe.yamlsafe import YamlDocument, YamlError, decode, load

DATA_SUFFIXES = (".yaml", ".yml")
MAX_PER_FILE = 50
"""The most findings reported for one file; one more line counts the rest."""


@dataclass(frozen=True)
class LoadOptions:
    """What a load checks; the build fills it from ``conf.py``, the CLI from its flags."""

    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    check_scripts: bool = True
    stale: bool = False
    """Run the staleness check (git history against ``tested``); see ``freshness``."""
    cross_check: bool = True
    """Compare each row with what its script runs (GPUs, backend, model...); see :mod:`.crosscheck`."""
    naming: NamingRule = PRESETS["seed"]
    """How scripts are named (the ``naming`` setting); see :mod:`.namecheck`."""


def data_files(data_dir: Path) -> list[Path]:
    """The data files of a folder, in name order (hidden files are skipped)."""
    return sorted(p for p in data_dir.iterdir() if p.suffix.lower() in DATA_SUFFIXES and not p.name.startswith("."))


def _read_bytes(path: Path, root: Path, options: LoadOptions) -> bytes | str:
    """The data file's bytes, bounded; or, as text, why it was not read (a regular file inside the root only)."""
    try:
        real = real_path(path)
        if real != real_path(path.parent) / path.name and not is_within(real, real_path(root)):
            return (
                "the data file is a symbolic link to a place outside the repository root; "
                "replace it with the file itself"
            )
        what = what_is(real)
        if what is not None:
            return f"the data file is {what}, not a regular file; replace it with a YAML file"
        size = real.stat().st_size
        if size > options.max_file_bytes:
            return (
                f"the data file is {size} bytes, more than the limit of {options.max_file_bytes}; split "
                "it or raise rlresources_max_file_size (--max-file-size)"
            )
        data = read_regular(real, options.max_file_bytes)
    except FileNotFoundError:
        return "the data file has disappeared"
    except NotRegular as err:
        return f"the data file is {err.what}, not a regular file; replace it with a YAML file"
    except OSError as err:
        if err.errno == errno.ELOOP:  # data/a.yaml -> b.yaml -> a.yaml: a finding here, not a crash later
            return "the data file is a symbolic link that leads round in a loop; replace it with the file itself"
        return f"the data file cannot be read ({err.strerror or err}); check its permissions"
    if len(data) > options.max_file_bytes:
        return f"the data file is more than the limit of {options.max_file_bytes} bytes"
    return data


def _read(path: Path, shown: str, root: Path, options: LoadOptions) -> tuple[YamlDocument | None, list[Diagnostic]]:
    data = _read_bytes(path, root, options)
    if isinstance(data, str):
        return None, [Diagnostic(shown, 0, 0, Subtype.FILE, data)]
    try:
        doc = load(decode(data))
    except YamlError as err:
        return None, [
            Diagnostic(shown, p.line, p.column, Subtype.FILE if p.kind == "file" else Subtype.YAML, p.message)
            for p in err.problems
        ]
    if doc.value is None:
        what = "is empty" if not data.strip(b" \t\r\n\xef\xbb\xbf") else "holds no data (only comments or null)"
        message = f"the data file {what}; it needs at least 'size: <label>' and 'entries: []'"
        return None, [Diagnostic(shown, 1, 1, Subtype.SCHEMA, message)]
    return doc, []


def _schema_diagnostics(doc: YamlDocument, shown: str) -> list[Diagnostic]:
    found = []
    for line, column, message in validate(doc):
        field = message.split(":", 1)[0]
        subtype = Subtype.SCHEMA
        if (field.endswith(".url") or field.endswith(".evidence")) and "not in the expected form" in message:
            subtype = Subtype.URL
            message += "; only http:// and https:// links are allowed"
        json_path = "" if field.startswith("(") else field
        found.append(Diagnostic(shown, line, column, subtype, message, json_path=json_path))
    return replace_schema_errors(doc, shown, found)


def _entries(doc: YamlDocument, label: str, shown: str) -> list[Entry]:
    entries = []
    for index, value in enumerate(doc.value["entries"]):
        path = ("entries", index)
        line, column = doc.mark(path)
        marks = {name: doc.mark((*path, name)) for name in value}
        entries.append(Entry.from_data(label, value, SourceRef(shown, line, column, f"entries[{index}]"), marks))
    return entries


def _linked_out(data_dir: Path, root: Path) -> bool:
    """Inside the repository by its path, outside by a link: a pull request swapped the folder for a symbolic link.

    (A folder configured outside the root is the maintainer's choice, and no pull request
    can change what lies there.)
    """
    lexical_root = Path(os.path.normpath(root.absolute()))  # not resolved: a link must stay visible
    return is_within(Path(os.path.normpath(data_dir.absolute())), lexical_root) and not is_within(
        real_path(data_dir), real_path(root)
    )


def load_dataset(
    data_dir: Path,
    root: Path,
    options: LoadOptions | None = None,
    display: Callable[[Path], str] = relpath,
    repo: git.Repo | None = None,
) -> DataSet:
    """Read, validate and check every data file of ``data_dir``.

    Never raises for bad data: every problem becomes a diagnostic.  A file that cannot
    be read or breaks the schema still declares its size (taken from the file name),
    marked unreadable, so pages that draw it say so instead of claiming "unknown size".
    """
    options = options or LoadOptions()
    dataset = DataSet(data_dir=data_dir, root=root)
    repo = repo or git.Repo(root)  # git is asked once per run, whatever the checks need
    if _linked_out(data_dir, root):
        dataset.diagnostics.append(
            Diagnostic(
                display(data_dir),
                0,
                0,
                Subtype.FILE,
                "the data folder lies outside the repository root (it is, or passes through, a symbolic "
                "link that leads out); nothing in it is read: keep the data files inside the repository",
            )
        )
        return dataset
    try:
        files = data_files(data_dir)
    except OSError as err:
        dataset.diagnostics.append(
            Diagnostic(display(data_dir), 0, 0, Subtype.FILE, f"the data folder cannot be read ({err.strerror or err})")
        )
        return dataset
    sizes: list[SizeData] = []
    for path in files:
        shown = display(path)
        doc, problems = _read(path, shown, root, options)
        dataset.diagnostics.extend(problems)
        stem_label = path.stem
        if doc is None:
            sizes.append(SizeData(stem_label, path, shown, readable=False))
            continue
        schema_problems = _schema_diagnostics(doc, shown)
        dataset.diagnostics.extend(schema_problems)
        value = doc.value if isinstance(doc.value, dict) else {}
        declared = value.get("size")
        label: str = declared if isinstance(declared, str) else stem_label
        if schema_problems:
            sizes.append(SizeData(label, path, shown, readable=False))
            continue
        if size_key(label) != size_key(stem_label):
            line, column = doc.mark(("size",))
            dataset.diagnostics.append(
                Diagnostic(
                    shown,
                    line,
                    column,
                    Subtype.SIZE_LABEL,
                    f"size '{label}' disagrees with the file name '{path.name}'; name the file "
                    f"'{size_key(label)}{path.suffix}' or set size to the file's label",
                    json_path="size",
                )
            )
        sizes.append(SizeData(label, path, shown, _entries(doc, label, shown)))
    dataset.sizes = _one_file_per_size(sizes, dataset.diagnostics)
    if options.check_scripts:
        dataset.scripts = checks.check_entries(dataset, options.cross_check, options.naming, repo)
    if options.stale:
        freshness.check_staleness(dataset, repo)
    dataset.diagnostics = cap_per_file(sorted(dataset.diagnostics))
    return dataset


def _one_file_per_size(sizes: list[SizeData], diagnostics: list[Diagnostic]) -> dict[str, SizeData]:
    """The sizes by key, in size order; a second file of one size is reported and left out."""
    seen: dict[str, SizeData] = {}
    for size in sorted(sizes, key=lambda s: (size_order(s.label), s.path.name)):
        if size.key in seen:
            first = seen[size.key]
            diagnostics.append(
                Diagnostic(
                    size.display_path,
                    1,
                    1,
                    Subtype.DUPLICATE_SIZE,
                    f"size '{size.label}' is already declared by {first.display_path}; keep one "
                    "file per size (this file's rows are ignored)",
                    json_path="size",
                )
            )
            continue
        seen[size.key] = size
    return seen


def cap_per_file(found: list[Diagnostic], limit: int = MAX_PER_FILE) -> list[Diagnostic]:
    """At most ``limit`` findings per file, then one line that counts the rest.

    A hostile or broken file can hold a problem on every line; past a few dozen, more
    lines help nobody and flood the CI log, so the build and ``lint`` stop there alike.
    """
    counts: dict[str, int] = {}
    kept: list[Diagnostic] = []
    for diagnostic in found:
        seen = counts.get(diagnostic.path, 0)
        counts[diagnostic.path] = seen + 1
        if seen < limit:
            kept.append(diagnostic)
    for path, count in counts.items():
        if count > limit:
            kept.append(
                Diagnostic(
                    path,
                    0,
                    0,
                    Subtype.TOO_MANY,
                    f"{count - limit} more problems in this file are not shown (the first {limit} are); "
                    "fix those and check again",
                )
            )
    return sorted(kept)
