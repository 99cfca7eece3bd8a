"""Hostile contributions, round two: each class of problem closed, with its siblings.

1. paths that resolve out of the root (the data folder, scripts folders, ``*.sh`` links);
2. "did you mean" work bounded however many scripts sit beside the missing one;
3-4. line separators, bidi overrides and invisible characters in text fields;
5. ``mailto:`` links that carry a query;
6. special files (named pipes, folders, devices) where a file is expected;
7. smaller promises: URL templates, the cap on findings per file, plain decimal
   numbers, and the size limit on copied scripts.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import pytest
from helpers import ROW, SCRIPT, lines, make_repo, sphinx_project
from helpers import sphinx_build as build

from sphinx_rlresources.cli.main import main as rlresources
from sphinx_rlresources.core import checks, paths
from sphinx_rlresources.core.loader import MAX_PER_FILE, load_dataset
from sphinx_rlresources.core.urls import safe_url
from sphinx_rlresources.core.validation import schema
from sphinx_rlresources.safe.models import checkpoint_name, loaded_model, model_key, model_words
from sphinx_rlresources.safe.text import UNSEEN_CLASS, visible

SECRET = "s3cr3t-value-from-outside"
GOOD = "size: 7B\nentries:\n" + ROW

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need a POSIX system")


def run_lint(root: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, list[str], str]:
    old = Path.cwd()
    os.chdir(root)
    try:
        status = rlresources(["lint", "--data", "data", "--root", ".", "--scripts", "examples/tuning", *flags])
    finally:
        os.chdir(old)
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


def within(seconds: float, work: object) -> object:
    """Run ``work()`` in a thread; fail (not hang) if it has not returned in time."""
    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(work()), daemon=True)  # type: ignore[operator]
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"did not finish within {seconds} s (blocked on a special file?)"
    return result[0]


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "7b.yaml").write_text(GOOD.replace("Xiangyongan", SECRET), "utf-8")
    (folder / "stolen.sh").write_text(f"echo {SECRET}\n", "utf-8")
    return folder


# -- 1. every path resolves inside the root ---------------------------------------------


def test_a_data_folder_that_is_a_symlink_out_of_the_root_is_not_read(
    tmp_path: Path, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path, GOOD)
    shutil.rmtree(root / "data")
    (root / "data").symlink_to(outside, target_is_directory=True)
    assert lines(root) == [
        "data: error: the data folder lies outside the repository root (it is, or passes through, a symbolic "
        "link that leads out); nothing in it is read: keep the data files inside the repository [rlresources.file]"
    ]
    status, out, _err = run_lint(root, capsys)
    assert status == 1
    assert SECRET not in "\n".join(out) and str(outside) not in "\n".join(out)
    html = tmp_path / "html"
    status, warnings = build(sphinx_project(root), html, "-b", "html")
    assert status == 0
    assert SECRET not in (html / "index.html").read_text("utf-8") + "\n".join(warnings)


def test_a_data_folder_behind_a_link_that_stays_inside_the_root_is_read(tmp_path: Path) -> None:
    root = make_repo(tmp_path, GOOD)
    (root / "real-data").mkdir()
    (root / "data" / "7b.yaml").rename(root / "real-data" / "7b.yaml")
    (root / "data").rmdir()
    (root / "data").symlink_to(root / "real-data", target_is_directory=True)
    assert lines(root) == []


def test_a_data_folder_under_a_parent_link_out_of_the_root_is_not_read(tmp_path: Path, outside: Path) -> None:
    root = make_repo(tmp_path, GOOD)
    (outside / "nested").mkdir()
    (outside / "7b.yaml").rename(outside / "nested" / "7b.yaml")
    (root / "via").symlink_to(outside, target_is_directory=True)
    dataset = load_dataset(root / "via" / "nested", root)
    assert [d.subtype.value for d in dataset.diagnostics] == ["file"]
    assert dataset.sizes == {}


def test_a_scripts_folder_out_of_the_root_stops_lint(
    tmp_path: Path, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path, GOOD)
    (root / "examples" / "more").symlink_to(outside, target_is_directory=True)
    status, _out, err = run_lint(root, capsys, "--scripts", "examples/more")
    assert status == 2
    assert err == (
        "rlresources: error: the scripts folder 'examples/more' lies outside the repository root (or is a "
        "symbolic link that leads out); fix --scripts or tool.rlresources.scripts\n"
    )


def test_a_script_link_out_of_the_root_in_a_scripts_folder_is_reported_not_listed(
    tmp_path: Path, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path, GOOD)
    folder = root / "examples" / "tuning" / "7b"
    (folder / "stolen.sh").symlink_to(outside / "stolen.sh")
    (folder / "zero.sh").symlink_to("/dev/zero")
    status, out, _err = run_lint(root, capsys)
    assert status == 1
    message = (
        "error: this script is a symbolic link to a place outside the repository root; replace it with the "
        "script itself, or delete it [rlresources.script_path]"
    )
    assert out[:-1] == [
        f"examples/tuning/7b/stolen.sh: {message}",
        f"examples/tuning/7b/zero.sh: {message}",
    ]
    assert "rlresources new" not in "\n".join(out)


# -- 6. only regular files are read ----------------------------------------------------


@needs_fifo
def test_a_named_pipe_as_a_data_file_does_not_block(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_repo(tmp_path, GOOD)
    os.mkfifo(root / "data" / "70b.yaml")
    expected = (
        "data/70b.yaml: error: the data file is a named pipe (FIFO), not a regular file; replace it with a "
        "YAML file [rlresources.file]"
    )
    assert within(10, lambda: lines(root)) == [expected]
    status, out, _err = within(10, lambda: run_lint(root, capsys))  # type: ignore[misc]
    assert status == 1 and out[0] == expected.replace("data/70b.yaml: ", "data/70b.yaml: ", 1)
    html = tmp_path / "html"
    status, warnings = within(30, lambda: build(sphinx_project(root), html, "-b", "html"))  # type: ignore[misc]
    assert status == 0 and any("named pipe (FIFO)" in w for w in warnings)


@needs_fifo
def test_a_link_inside_the_root_to_a_named_pipe_is_refused_too(tmp_path: Path) -> None:
    root = make_repo(tmp_path, GOOD)
    os.mkfifo(root / "pipe")
    (root / "data" / "70b.yaml").symlink_to(root / "pipe")
    assert within(10, lambda: lines(root)) == [
        "data/70b.yaml: error: the data file is a named pipe (FIFO), not a regular file; replace it with a "
        "YAML file [rlresources.file]"
    ]


def test_a_folder_named_like_a_data_file_is_refused(tmp_path: Path) -> None:
    root = make_repo(tmp_path, GOOD)
    (root / "data" / "70b.yaml").mkdir()
    assert lines(root) == [
        "data/70b.yaml: error: the data file is a folder, not a regular file; replace it with a YAML file "
        "[rlresources.file]"
    ]


@needs_fifo
@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_a_script_that_is_not_a_regular_file_says_what_it_is(tmp_path: Path, kind: str) -> None:
    root = make_repo(tmp_path, GOOD)
    script = root / SCRIPT
    script.unlink()
    if kind == "folder":
        script.mkdir()
    else:
        os.mkfifo(script)
    what = "a folder" if kind == "folder" else "a named pipe (FIFO)"
    found = within(10, lambda: [line for line in lines(root) if "naming" not in line])
    assert found == [
        f"data/7b.yaml:12:13: error: script '{SCRIPT}' is {what}, not a regular file; link the script file "
        "itself [rlresources.script_file]"
    ]


@needs_fifo
def test_lint_reports_a_named_pipe_among_the_scripts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_repo(tmp_path, GOOD)
    os.mkfifo(root / "examples" / "tuning" / "7b" / "pipe.sh")
    status, out, _err = within(10, lambda: run_lint(root, capsys))  # type: ignore[misc]
    assert status == 1
    assert out[0] == (
        "examples/tuning/7b/pipe.sh: error: this is a named pipe (FIFO), not a script file; delete it, or "
        "replace it with the script [rlresources.script_file]"
    )


def test_read_regular_refuses_everything_else(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"x" * 10)
    assert paths.read_regular(tmp_path / "f", 4) == b"xxxxx"  # limit + 1: the caller sees it is over
    with pytest.raises(paths.NotRegular, match="a folder"):
        paths.read_regular(tmp_path, 4)
    if Path("/dev/zero").exists():
        with pytest.raises(paths.NotRegular, match="a device"):
            paths.read_regular(Path("/dev/zero"), 4)


# -- 7. a script over the size limit is neither read nor copied -------------------------


def test_a_script_over_the_limit_is_not_copied_into_the_build(tmp_path: Path) -> None:
    root = make_repo(tmp_path, GOOD)
    with open(root / SCRIPT, "r+b") as handle:  # sparse: a huge file that costs no disk
        handle.truncate(checks.rowscript.MAX_SCRIPT_BYTES + 1)
    found = [line for line in lines(root) if "script_file" in line]
    assert found == [
        f"data/7b.yaml:12:13: error: script '{SCRIPT}' is {checks.rowscript.MAX_SCRIPT_BYTES + 1} bytes, more "
        f"than the {checks.rowscript.MAX_SCRIPT_BYTES} a tuning script may have; it is neither read nor copied "
        "into the build: link the launcher, not its data [rlresources.script_file]"
    ]
    html = tmp_path / "html"
    status, _warnings = build(sphinx_project(root), html, "-b", "html")
    assert status == 0
    assert not (html / "_downloads").exists()


# -- 2. "did you mean" is bounded -------------------------------------------------------


def test_each_folder_is_listed_once_however_many_rows_miss_a_script(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = "examples/tuning/7b/"
    rows = "".join(
        ROW.replace(SCRIPT, f"{folder}qwen2-7b_grpo_{n}_h100_fsdp_vllm.sh").replace("gpus: 8", f"gpus: {n}")
        for n in range(1, 41)
    )
    root = make_repo(tmp_path, "size: 7B\nentries:\n" + rows)
    (root / SCRIPT).unlink()
    listed: list[str] = []
    real_scandir = os.scandir

    def counting(path: object) -> object:
        listed.append(str(path))
        return real_scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(checks.os, "scandir", counting)
    found = [line for line in lines(root) if "script_missing" in line]
    assert len(found) == 40
    assert len([path for path in listed if path.endswith(folder.rstrip("/"))]) == 1  # (3.13 lists data/ too)


def test_a_crowded_folder_gives_a_note_instead_of_a_slow_hint(tmp_path: Path) -> None:
    root = make_repo(tmp_path, GOOD.replace(SCRIPT, "examples/tuning/7b/qwen2-7b_grpo_8_h100_fsdp_vllm2.sh"))
    folder = root / "examples" / "tuning" / "7b"
    for n in range(checks.MAX_HINT_CANDIDATES + 50):
        (folder / f"qwen2-7b_grpo_{n + 100}_h100_fsdp_vllm.sh").write_text("#!/bin/sh\n", "utf-8")
    (found,) = [line for line in lines(root) if "script_missing" in line]
    assert "too many to suggest one" in found
    assert f"its folder has {checks.MAX_HINT_CANDIDATES + 51} scripts like it" in found


def test_a_hint_in_an_ordinary_folder_still_comes(tmp_path: Path) -> None:
    root = make_repo(tmp_path, GOOD.replace(SCRIPT, SCRIPT.replace("vllm", "vlm")))
    (found,) = [line for line in lines(root) if "script_missing" in line]
    assert f"did you mean '{SCRIPT}'?" in found


def test_a_hint_names_only_a_script_of_the_rows_model_and_size(tmp_path: Path) -> None:
    # The row is Qwen2-7B's; beside its misspelled link lie Qwen2.5-7B's and Qwen2-72B's
    # scripts, each nearer by letters than nothing: neither is the row's configuration.
    root = make_repo(tmp_path, GOOD.replace(SCRIPT, SCRIPT.replace("vllm", "vlm")))
    (root / SCRIPT).rename(root / SCRIPT.replace("qwen2-7b", "qwen2.5-7b"))
    (root / SCRIPT.replace("qwen2-7b", "qwen2-72b")).write_text("#!/bin/sh\n", "utf-8")
    (found,) = [line for line in lines(root) if "script_missing" in line]
    assert "did you mean" not in found
    assert found.endswith("check the path, or add the script [rlresources.script_missing]")


@pytest.mark.parametrize(
    ("model", "name", "holds"),
    [
        ("Qwen2-7B", "qwen2-7b_grpo_8_h100_fsdp_vllm.sh", True),
        ("Qwen2-7B", "qwen2.5-7b_grpo_8_h100_fsdp_vllm.sh", False),
        ("Qwen2-7B", "qwen2-72b_grpo_8_h100_fsdp_vllm.sh", False),
        ("Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh", True),
        ("Qwen2-14B", "qwen2_14b_grpo_4_h800_fsdp_vllm.sh", True),  # verl's names: '_' between the words
        ("DeepSeek-V3", "deepseek-v3_grpo_256_h100_megatron_sglang.sh", True),
        ("DeepSeek-V3", "deepseek-r1_grpo_256_h100_megatron_sglang.sh", False),
    ],
)
def test_a_hint_matches_the_model_by_its_words_up_to_its_size(model: str, name: str, holds: bool) -> None:
    assert checks.holds_model(name, model_words(model)) is holds


@pytest.mark.parametrize(
    ("text", "name", "key"),
    [
        ("Qwen/Qwen2.5-32B-Instruct", "Qwen2.5-32B", "qwen2532b"),
        ("meta-llama/Meta-Llama-3.1-8B-Instruct/", "Meta-Llama-3.1-8B", "metallama318b"),
        ("/models/qwen2-7b-chat-hf", "qwen2-7b", "qwen27b"),
        ("Qwen2.5-7B-Instruct-1M", "Qwen2.5-7B-Instruct-1M", "qwen257b1m"),  # only trailing words go from a name
    ],
)
def test_a_model_name_is_shortened_and_keyed_in_one_place(text: str, name: str, key: str) -> None:
    assert checkpoint_name(text) == name
    assert model_key(text) == key


@pytest.mark.parametrize(
    ("value", "tail", "loaded"),
    [
        ("Qwen/Qwen2.5-7B", "", "Qwen/Qwen2.5-7B"),
        (None, "/models/Qwen2.5-7B", "/models/Qwen2.5-7B"),
        (None, "-7B", None),  # ${PREFIX}-7B
        (None, "", None),  # $MODEL_DIR
        (None, "7B/", None),  # a folder's slash alone names no model
    ],
)
def test_a_placeholder_stands_for_no_model(value: str | None, tail: str, loaded: str | None) -> None:
    assert loaded_model(value, tail) == loaded


# -- 3 and 4. separators, bidi and invisible characters ---------------------------------

UNSEEN = ["\u2028", "\u2029", "\u0085", "\u202e", "\u2066", "\u200b", "\u200d", "\ufeff", "\u00ad", "\u061c"]


def test_every_text_pattern_in_the_schema_refuses_the_same_characters() -> None:
    text = json.dumps(schema())
    defs = schema()["$defs"]
    patterns = [defs["text"]["pattern"], defs["http_url"]["pattern"]]
    patterns += [defs["entry"]["properties"][k]["pattern"] for k in ("notes", "script", "description")]
    for pattern in patterns:
        assert UNSEEN_CLASS in pattern, pattern
    assert text.count(UNSEEN_CLASS.replace("\\", "\\\\")) == 5


@pytest.mark.parametrize("char", UNSEEN, ids=[f"U+{ord(c):04X}" for c in UNSEEN])
def test_an_unseen_character_is_refused_at_its_line_with_its_code(
    char: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    escaped = json.dumps(f"Qwen{char}gnp.exe")  # \u escapes: YAML turns them into the character
    root = make_repo(tmp_path, GOOD.replace("model: Qwen2-7B", f"model: {escaped}"))
    (found,) = lines(root)
    assert found.startswith("data/7b.yaml:4:12: error: entries[0].model: ")
    assert f"U+{ord(char):04X}" in found and "at character 5" in found
    assert "[rlresources.schema]" in found
    # and no output shows it: render, the builders and the JSON file
    os.chdir(root)
    for markup in ("rst", "markdown"):
        status = rlresources(["render", "7b", "--data", "data", "--root", ".", "--format", markup])
        out, _err = capsys.readouterr()
        assert status == 1 and char not in out
    for builder in ("html", "text", "man", "latex"):
        out_dir = tmp_path / builder
        status, _warnings = build(sphinx_project(root), out_dir, "-b", builder)
        assert status == 0
        for written in out_dir.rglob("*"):
            if written.is_file() and written.suffix in (".html", ".txt", ".1", ".tex", ".json"):
                assert char not in written.read_text("utf-8"), written


def test_a_value_that_slipped_past_is_shown_by_its_code() -> None:
    assert visible("Qwen\u202egnp.exe") == "Qwen<U+202E>gnp.exe"
    assert visible("plain Qwen2.5-7B") == "plain Qwen2.5-7B"


# -- 5. mailto carries an address, nothing else ------------------------------------------


@pytest.mark.parametrize(
    "email",
    ["a@b.co?cc=x@evil.example", "a@b.co&subject=hi", "a@b.co#x", "a%40b@c.co", "a@b.co,c@d.co", "ä@b.co"],
)
def test_an_email_with_more_than_an_address_is_refused(email: str, tmp_path: Path) -> None:
    row = ROW.replace("contributor: Xiangyongan", f"contributor:\n      name: X\n      email: {json.dumps(email)}")
    root = make_repo(tmp_path, "size: 7B\nentries:\n" + row)
    (found,) = lines(root)
    assert "entries[0].contributor.email" in found and "[rlresources.schema]" in found
    assert safe_url(f"mailto:{email}") is None


def test_a_plain_address_is_still_linked(tmp_path: Path) -> None:
    row = ROW.replace("contributor: Xiangyongan", "contributor:\n      name: X\n      email: x.y+rl@example.org")
    assert lines(make_repo(tmp_path, "size: 7B\nentries:\n" + row)) == []
    assert safe_url("mailto:x.y+rl@example.org") == "mailto:x.y+rl@example.org"


# -- 7. smaller promises -----------------------------------------------------------------


@pytest.mark.parametrize("template", ['https://x.org/"{path}', "https://x.org/a b/{path}"])
def test_a_url_template_that_would_be_dropped_is_refused_at_start_up(template: str, tmp_path: Path) -> None:
    root = make_repo(tmp_path, GOOD)
    status, warnings = build(sphinx_project(root, f"rlresources_script_url = {template!r}\n"), tmp_path / "h")
    assert status == 0
    (warning,) = warnings
    assert warning.startswith(f"WARNING: rlresources_script_url = {template!r} holds ")
    assert warning.endswith("scripts are copied into the build instead [rlresources.config]")


def test_findings_are_capped_per_file_with_a_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = "".join(ROW.replace("gpus: 8", "gpus: many") for _ in range(200))
    root = make_repo(tmp_path, "size: 7B\nentries:\n" + bad)
    found = lines(root)
    assert len(found) == MAX_PER_FILE + 1
    assert found[0] == (
        f"data/7b.yaml: error: {200 - MAX_PER_FILE} more problems in this file are not shown (the first "
        f"{MAX_PER_FILE} are); fix those and check again [rlresources.too_many]"
    )
    status, out, _err = run_lint(root, capsys)
    assert status == 1 and len(out) == MAX_PER_FILE + 2  # the findings, the count, the summary
    status, warnings = build(sphinx_project(root), tmp_path / "html")
    assert len([w for w in warnings if w.startswith("<srcdir>/data/7b.yaml")]) == MAX_PER_FILE + 1


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ('!!int "8"', "the YAML tag !!int is not allowed in a data file"),
        ("!!int 8", "the YAML tag !!int is not allowed in a data file"),
        ("+8", "gpus: +8 has a plus sign; write plain digits: 8"),
        ("&n !!int 8", "the YAML tag !!int is not allowed in a data file"),
        ("010", "gpus: 010 is not written in plain decimal digits"),
    ],
)
def test_numbers_are_plain_decimal_digits(written: str, message: str, tmp_path: Path) -> None:
    root = make_repo(tmp_path, GOOD.replace("gpus: 8", f"gpus: {written}"))
    (found,) = lines(root)
    assert message in found
