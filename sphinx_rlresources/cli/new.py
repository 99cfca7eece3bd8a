"""``rlresources new``: start the row for a new tuning script.

The row is built from what is certain: the file name (by the naming rule) and the
settings the script passes to the trainer (read by :mod:`sphinx_rlresources.scripts`, never run).
What neither can tell -- the largest batch that ran, who ran it, MIN or RECOMMENDED --
is written as ``TODO``, which ``rlresources lint`` and the build report until a person
fills it in.

The row is appended as text.  A YAML round trip would rewrite the whole file (comments,
quoting, key order); appending keeps every other line as the contributor wrote it, and
the result is read back before it is saved, so a file the append would break is left
untouched.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sphinx_rlresources.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    CliError,
    Lines,
    data_and_root,
    load_options,
    load_project,
    write_file,
)
from sphinx_rlresources.cli.yamlwrite import entry_text, schema_ref, yaml_scalar
from sphinx_rlresources.core import naming, rowscript
from sphinx_rlresources.core.crosscheck import known, stated, task_parts
from sphinx_rlresources.core.diagnostics import relpath
from sphinx_rlresources.core.loader import data_files, load_dataset
from sphinx_rlresources.core.naming import naming_rule
from sphinx_rlresources.core.paths import read_inside, read_regular
from sphinx_rlresources.core.placeholders import TODO
from sphinx_rlresources.safe.models import checkpoint_name
from sphinx_rlresources.safe.sizes import heading_size, size_key, size_word
from sphinx_rlresources.safe.text import MAX_LOCATION, one_line, safe_start, shown
from sphinx_rlresources.safe.yamlsafe import YamlError, decode, load
from sphinx_rlresources.scripts.frameworks import vocabulary_of
from sphinx_rlresources.scripts.frameworks.vocabulary import task_key
from sphinx_rlresources.scripts.run import Found, Run

_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
_EMPTY_ENTRIES = re.compile(r"^entries:\s*\[\s*\]\s*(#.*)?$")


@dataclass
class Row:
    values: dict[str, Any]
    comments: dict[str, str]
    notes: list[str]


def model_hint(model_path: str | None, name_model: str) -> str:
    """How the tables would name the script's model: ``Qwen/Qwen2.5-32B-Instruct`` -> ``Qwen2.5-32B``.

    From the model path the script trains when it gives one (its last part, without a
    chat or instruct suffix), else from the file name's model field (``qwen2-7b`` ->
    ``Qwen2-7B``).
    """
    if model_path:
        return checkpoint_name(model_path)
    parts = [p for p in name_model.split("-") if p]
    shown = [size_word(p) or p for p in parts]
    if shown:
        shown[0] = shown[0][:1].upper() + shown[0][1:]
    return "-".join(shown)


def task_label(task: str) -> str:
    """``grpo-lora`` -> ``GRPO-LoRA``, as the tables spell tasks."""
    return "-".join("LoRA" if part == "lora" else part.upper() for part in task.split("-"))


def _gpus(run: Run) -> int | None:
    """The GPUs the script settles (not a count only known at run time)."""
    return run.gpus.value if known(run.gpus) else None


def _text(found: Found[str]) -> str | None:
    """A setting the script settles (not one only known at run time)."""
    return found.value if known(found) else None


def suggest_name(filename: str, run: Run) -> str | None:
    """A name by the rule for a script whose name breaks it, or None when one cannot be told."""
    stem = filename[: -len(".sh")] if filename.endswith(".sh") else filename
    parts = [p for p in re.split(r"[_\s]+", stem.lower()) if p]
    if len(parts) < 6:
        return None
    model, (task, gpus, device, train, infer) = "-".join(parts[:-5]), parts[-5:]
    if not gpus.isdigit() and _gpus(run):
        gpus = str(_gpus(run))
    if not gpus.isdigit() or int(gpus) < 1:
        return None
    name = naming.expected(model, task, int(gpus), device, train, infer).filename
    parsed, _problem = naming.parse(name)
    return name if parsed is not None else None


def _task(named: dict[str, str], run: Run) -> str:
    """The task from the name when the rule carries it, else from the script's algorithm in its framework's
    vocabulary; ``-LoRA`` added whenever the script reads a LoRA rank (a name rarely says so)."""
    rank = run.lora_rank.value if known(run.lora_rank) else None
    words = vocabulary_of(run.framework)
    if "task" in named:
        label = task_label(named["task"])
        spelled = [t for tasks in (words.tasks.values() if words else ()) for t in tasks]
        label = next((t for t in spelled if task_key(t) == task_key(label)), label)  # dapo -> DAPO, as tables spell it
    else:
        dynamic = run.dynamic_sampling.value if known(run.dynamic_sampling) else None
        found = words.label(_text(run.algorithm), dynamic) if words is not None else None
        if found is None:
            return TODO
        label = found
        if rank is None:
            return TODO  # LoRA or not: unknown, and a row must say
    _algorithm, lora = task_parts(label)
    return f"{label}-LoRA" if rank and not lora else label


_RUNTIME_VAR = re.compile(r"\$\{?([A-Z_][A-Z0-9_]*)")


def _model_comment(run: Run, hint: str) -> str:
    """What to write for a model the script does not settle: given at run time, or named by the file only."""
    given = _RUNTIME_VAR.search(run.model.written) if run.model.line else None
    if given is not None:
        return f"the model family and size; the script reads it from ${given.group(1)}: give that in env to check it"
    if hint:
        return f"the model family and size, e.g. {hint} (from the file name; the script does not say)"
    return "the model family and size, e.g. Qwen2.5-7B (neither the name nor the script says)"


def build_row(script: str, named: dict[str, str], run: Run, args: argparse.Namespace) -> Row:
    """The row's values: what the name and the script settle, the rest TODO (with a hint beside it).

    ``named`` holds the fields the repository's naming rule puts in the name (all six
    under the seed rule; the model and backend under verl's ``run_<model>_<backend>.sh``).
    """
    notes: list[str] = []
    comments: dict[str, str] = {}

    def pick(field: str, from_name: Any, from_script: Any) -> Any:
        if from_name is None:
            return from_script if from_script is not None else TODO
        if from_script is not None and str(from_script).lower() != str(from_name).lower():
            notes.append(
                f"the file name says {field} {shown(from_name)} but the script runs {shown(from_script)}; the row "
                "says what the script runs: rename the script to match"
            )
            return from_script
        return from_name

    model_path = _text(run.model)
    model: str = TODO
    hint = model_hint(model_path, named.get("model", "").replace("_", "-"))
    if model_path:
        model = hint or TODO
        comments["model"] = f"from {run.model.written or model_path}, as the tables name models"
    else:
        comments["model"] = _model_comment(run, hint)
    gpus = int(named["gpus"]) if named.get("gpus", "").isdigit() else None
    device = named.get("device")
    values: dict[str, Any] = {
        "tag": args.tag or TODO,
        "model": model,
        "task": _task(named, run),
        "gpus": pick("gpus", gpus, _gpus(run)),
        "device": device.upper() if device else TODO,
        "max_batch": TODO,
        "train": pick("train", _backend(named.get("train")), _text(run.train_backend)),
        "infer": pick("infer", named.get("infer"), _text(run.engine)),
        "script": script,
        "contributor": args.contributor or TODO,
    }
    if model_path and _HUB_ID.match(model_path):
        values["model_id"] = model_path
    if values["tag"] == TODO:
        comments["tag"] = "MIN (every memory saving on) or RECOMMENDED (best throughput)"
    if values["device"] == TODO:
        comments["device"] = "the GPU it ran on, e.g. H100 (neither the name nor the script says)"
    batch = run.train_batch_size.value if stated(run.train_batch_size) else None
    comments["max_batch"] = "the largest batch that ran on this hardware, or null if not measured" + (
        f" (the script runs {run.train_batch_size.written})" if batch else ""
    )
    if values["contributor"] == TODO:
        comments["contributor"] = "who ran it: a name, or {name: ..., github: ...}"
    return Row(values, comments, notes)


def _backend(named: str | None) -> str | None:
    """A backend as a name writes it (``fsdp2``, ``megatron_lite``), as a row's train."""
    if named is None:
        return None
    return "megatron" if named.startswith("megatron") else "fsdp" if named.startswith("fsdp") else named


def row_text(row: Row, indent: str) -> str:
    return entry_text(row.values, indent, row.comments)


def _entry_indent(text: str) -> str:
    after = False
    for line in text.splitlines():
        if re.match(r"^entries:", line):
            after = True
            continue
        match = re.match(r"^(\s*)- ", line)
        if after and match:
            return match.group(1)
    return "  "


def appended(text: str, row: Row) -> str:
    """The file's text with the row added at the end; only an ``entries: []`` line is changed."""
    lines = text.splitlines(keepends=True)
    empty = [i for i, line in enumerate(lines) if _EMPTY_ENTRIES.match(line.rstrip("\r\n"))]
    if len(empty) == 1:
        lines[empty[0]] = "entries:\n"
    body = "".join(lines)
    if body and not body.endswith("\n"):
        body += "\n"
    return body + row_text(row, _entry_indent(body))


def new_file(label: str, row: Row, schema_ref: str | None) -> str:
    head = f"# yaml-language-server: $schema={schema_ref}\n" if schema_ref else ""
    return (
        f"{head}# Verified RL training configurations for {label} models.\n"
        f"size: {yaml_scalar(label)}\nentries:\n{row_text(row, '  ')}"
    )


def _entries_of(text: str) -> list[Any] | None:
    try:
        value = load(text).value
    except YamlError:
        return None
    entries = value.get("entries") if isinstance(value, dict) else None
    return entries if isinstance(entries, list) else None


def run(args: argparse.Namespace, out: Lines) -> int:  # noqa: C901 - the command's steps in order, each a guard that ends it
    project = load_project()
    data_dir, root = data_and_root(args, project)
    script = Path(args.script)
    if not script.is_file():
        raise CliError(f"the script '{args.script}' does not exist; write it first, then scaffold its row")
    try:
        relative = script.resolve().relative_to(root.resolve()).as_posix()
        said_script = one_line(relative, MAX_LOCATION)
    except ValueError:
        raise CliError(f"the script '{args.script}' is outside the root '{root}'; pass --root DIR") from None
    try:  # the build's own bound and reader, so new never reads more of a script than the build does
        data = read_regular(script, rowscript.MAX_SCRIPT_BYTES)
    except OSError as error:
        raise CliError(f"the script '{args.script}' cannot be read: {error.strerror or error}") from None
    asked = rowscript.run_of(data, relative, {}, rowscript.TreeFiles(root))
    rule = naming_rule(project.naming)
    named = rule.parse(script.name)
    problem = rule.problem(script.name)
    if named is None or problem is not None:
        named_as = safe_start(one_line(args.script, MAX_LOCATION))
        said = "" if rule.shown in (problem or "") else f"; the rule is {rule.shown}"
        out.write(f"{named_as}: error: {one_line(f'{problem}{said}')} [rlresources.naming]\n")
        suggestion = suggest_name(script.name, asked) if rule.name == "seed" else None
        if suggestion:
            moved = (Path(args.script).parent / suggestion).as_posix()
            out.write(f"suggested name: {one_line(suggestion)} (git mv {named_as} {one_line(moved, MAX_LOCATION)})\n")
        elif rule.name == "seed":
            out.write(
                "no name can be suggested (the device is never in the script); name it like "
                "qwen2.5-7b_grpo-lora_8_h100_fsdp_vllm.sh\n"
            )
        out.write("no row was written; rename the script, then run rlresources new again\n")
        return EXIT_FINDINGS
    label = args.size or heading_size(script.parent.name)
    if not label or (args.size and not re.match(r"^[0-9A-Za-z][0-9A-Za-z.+-]{0,31}$", label)):
        raise CliError(
            f"the size cannot be told from the folder '{script.parent.name}'; pass --size (e.g. --size 7B, the "
            "section the row belongs in), or keep scripts under examples/tuning/<size>/"
        )
    options = load_options(args, project)
    dataset = load_dataset(data_dir, root, options)
    for entry in dataset.entries:
        if entry.script == relative:
            out.write(
                f"{safe_start(one_line(entry.source.path, MAX_LOCATION))}:{entry.source.line}: "
                f"the script {said_script} already has a row; "
                "edit that row instead\n"
            )
            return EXIT_FINDINGS
    row = build_row(relative, named, asked, args)
    key = size_key(label)
    target = next((p for p in data_files(data_dir) if size_key(p.stem) == key), data_dir / f"{key}.yaml")
    try:  # the file as it is, read as it will be written: inside the root, never through a link
        before_bytes: bytes | None = read_inside(root, target, options.max_file_bytes)
    except FileNotFoundError:
        before_bytes = None
    except OSError as error:
        raise CliError(f"{relpath(target)}: {error.strerror or error}; nothing was written") from None
    created = before_bytes is None
    if before_bytes is not None:
        if len(before_bytes) > options.max_file_bytes:
            raise CliError(f"{relpath(target)} is larger than {options.max_file_bytes} bytes; nothing was written")
        try:
            before = decode(before_bytes)
        except YamlError as error:
            raise CliError(f"{relpath(target)}: {error.problems[0].message}; nothing was written") from None
        text = appended(before, row)
        old, new = _entries_of(before), _entries_of(text)
        for entry in old or []:  # also rows of a file the loader could not use (say, with TODOs)
            if isinstance(entry, dict) and entry.get("script") == relative:
                out.write(f"{relpath(target)}: the script {said_script} already has a row; edit that row instead\n")
                return EXIT_FINDINGS
        if old is None or new is None or len(new) != len(old) + 1 or new[-1].get("script") != relative:
            out.write(row_text(row, "  "))
            raise CliError(
                f"{relpath(target)} cannot be appended to safely (it is not valid data, or 'entries' is not its last "
                "key); nothing was written: add the row printed above to it by hand"
            )
    else:
        label_for_file = size_word(label) or label
        text = new_file(label_for_file, row, schema_ref(data_dir))
    for note in row.notes:
        out.write(f"note: {one_line(note)}\n")
    if args.dry_run:
        out.write(row_text(row, "  "))
        return EXIT_OK
    if len(text.encode("utf-8")) > options.max_file_bytes:
        raise CliError(
            f"{relpath(target)} would be larger than {options.max_file_bytes} bytes with the new row, more than a "
            "data file may be read; nothing was written: start another data file, or raise max_file_size"
        )
    write_file(root, target, text, overwrite=not created, read=before_bytes)
    todo = [k for k, v in row.values.items() if v == TODO]
    what = f"; fill in {', '.join(todo)} (marked TODO)" if todo else ""
    out.write(f"{'wrote' if created else 'appended a row to'} {relpath(target)}{what}, then run rlresources lint\n")
    return EXIT_OK
