"""Faults between and during builds: files vanish, scripts go missing, output cannot be written.

Each test runs two builds on the same source and output folders, as a developer's
``make docs`` or CI with a cached output does, and checks that the second build reports
what changed and shows nothing stale.
"""

from __future__ import annotations

import io
import itertools
import os
import shutil
from contextlib import redirect_stderr
from pathlib import Path

import pytest
from conftest import unbroken
from sphinx.cmd.build import build_main

from sphinx_rlresources.sphinxext.outputs import download_folder_problem

BASIC = Path(__file__).parent / "roots" / "test-basic"
ROW_7B = "qwen2-7b_grpo_2_h800_fsdp_vllm.sh"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The basic root plus a page that draws 7b, a page that draws every size and one without a table."""
    src = tmp_path / "src"
    shutil.copytree(BASIC, src, ignore=shutil.ignore_patterns("_build"))
    (src / "index.rst").write_text(
        "Resources\n=========\n\n.. toctree::\n\n   seven\n   everything\n   plain\n", "utf-8"
    )
    (src / "seven.rst").write_text("Seven\n=====\n\n.. rl-resource-table:: 7b\n", "utf-8")
    (src / "everything.rst").write_text("Everything\n==========\n\n.. rl-resource-table:: all\n", "utf-8")
    (src / "plain.rst").write_text("Plain\n=====\n\nNo table here.\n", "utf-8")
    return src


_BUILDS = itertools.count()


def build(src: Path, *flags: str) -> tuple[int, list[str], str]:
    """One incremental build into src/_build/html: (status, warnings, stderr)."""
    out = src / "_build" / "html"
    # a new file per build: Sphinx 7.2 never closes the -w file, so an earlier build's
    # handle may flush into a later build's file of the same name
    log = src / "_build" / f"warnings-{next(_BUILDS)}.txt"
    log.unlink(missing_ok=True)  # Sphinx 7.2 appends to it
    err = io.StringIO()
    with redirect_stderr(err):
        status = build_main(["-q", "-N", *flags, "-w", str(log), str(src), str(out)])
    text = log.read_text("utf-8") if log.exists() else ""
    warnings = [line.replace(str(src), "<srcdir>") for line in text.splitlines() if line.strip()]
    return status, warnings, err.getvalue()


def page(src: Path, name: str) -> str:
    return unbroken((src / "_build" / "html" / f"{name}.html").read_text("utf-8"))


def test_a_deleted_data_file_is_reported_and_its_rows_vanish(project: Path) -> None:
    assert build(project)[:2] == (0, [])
    assert ROW_7B in page(project, "seven") and ROW_7B in page(project, "everything")

    (project / "data" / "7b.yaml").unlink()
    status, warnings, _ = build(project)
    assert status == 0
    assert warnings == [
        "<srcdir>/seven.rst:4: WARNING: unknown size '7b'; did you mean '14B'? The known sizes are: 0.5B, 1.5B, 3B, "
        "14B, 32B, 70B, 405B, 671B (a size is known when the data folder has its file) [rlresources.unknown_size]"
    ]
    assert ROW_7B not in page(project, "seven")
    assert ROW_7B not in page(project, "everything")  # re-read although its source did not change
    assert "No table here." in page(project, "plain")

    shutil.copyfile(BASIC / "data" / "7b.yaml", project / "data" / "7b.yaml")  # and back: it recovers
    assert build(project)[:2] == (0, [])
    assert ROW_7B in page(project, "seven") and ROW_7B in page(project, "everything")


def test_a_renamed_data_file_is_reported_and_recovers(project: Path) -> None:
    assert build(project)[:2] == (0, [])
    (project / "data" / "7b.yaml").rename(project / "data" / "8b.yaml")
    status, warnings, _ = build(project)
    assert status == 0
    assert warnings == [
        "<srcdir>/data/8b.yaml:3:7: WARNING: size '7B' disagrees with the file name '8b.yaml'; name the file "
        "'7b.yaml' or set size to the file's label [rlresources.size_label]",
    ]
    assert ROW_7B in page(project, "seven")  # the rows are still the 7B rows: the label wins

    (project / "data" / "8b.yaml").rename(project / "data" / "7b.yml")  # a valid new name
    assert build(project)[:2] == (0, [])
    assert ROW_7B in page(project, "seven")


def test_a_data_file_that_became_unreadable_is_reported_and_nothing_stale_is_shown(project: Path) -> None:
    assert build(project)[:2] == (0, [])
    # Running as root, permissions do not stop reads; a folder in the file's place does.
    (project / "data" / "7b.yaml").unlink()
    (project / "data" / "7b.yaml").mkdir()
    status, warnings, _ = build(project)
    assert status == 0
    assert warnings == [
        "<srcdir>/data/7b.yaml:1: WARNING: the data file is a folder, not a regular file; replace it with a YAML "
        "file [rlresources.file]",
        "<srcdir>/everything.rst:4: WARNING: the data for size '7b' could not be read (<srcdir>/data/7b.yaml); its "
        "rows are not drawn: fix the problems reported for that file [rlresources.data_unreadable]",
        "<srcdir>/seven.rst:4: WARNING: the data for size '7b' could not be read (<srcdir>/data/7b.yaml); its rows "
        "are not drawn: fix the problems reported for that file [rlresources.data_unreadable]",
    ]
    assert ROW_7B not in page(project, "seven") and ROW_7B not in page(project, "everything")
    assert "The data for 7b could not be read" in page(project, "seven")

    (project / "data" / "7b.yaml").rmdir()
    shutil.copyfile(BASIC / "data" / "7b.yaml", project / "data" / "7b.yaml")
    assert build(project)[:2] == (0, [])
    assert ROW_7B in page(project, "seven")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_a_data_file_without_read_permission_is_reported(project: Path) -> None:
    assert build(project)[:2] == (0, [])
    (project / "data" / "7b.yaml").chmod(0)
    try:
        status, warnings, _ = build(project)
    finally:
        (project / "data" / "7b.yaml").chmod(0o644)
    assert status == 0
    assert warnings[0] == (
        "<srcdir>/data/7b.yaml:1: WARNING: the data file cannot be read (Permission denied); check its "
        "permissions [rlresources.file]"
    )
    assert ROW_7B not in page(project, "seven")


def test_a_script_deleted_after_its_row_was_written_warns_on_the_next_build(project: Path) -> None:
    assert build(project)[:2] == (0, [])
    assert 'href="_downloads/' in page(project, "seven")

    (project / "examples" / "tuning" / "7b" / ROW_7B).unlink()
    status, warnings, _ = build(project)
    assert status == 0
    assert warnings == [
        f"<srcdir>/data/7b.yaml:14:13: WARNING: script 'examples/tuning/7b/{ROW_7B}' does not exist under the "
        # the folder's other script is Qwen2.5-7B's, another configuration: no "did you mean" names it
        "repository root; check the path, or add the script [rlresources.script_missing]",
    ]
    seven = page(project, "seven")
    assert ROW_7B in seven  # the row is still drawn, its Link is plain text now
    assert not any(ROW_7B in link for link in seven.split('href="')[1:] if link.startswith("_downloads"))

    status, _warnings, _ = build(project, "-W", "--keep-going")  # exit 1 on Sphinx 7.2 too
    assert status == 1  # CI with -W refuses it


def test_an_output_folder_that_cannot_hold_the_script_copies_is_a_clear_error(project: Path) -> None:
    out = project / "_build" / "html"
    out.mkdir(parents=True)
    (out / "_downloads").write_text("a file where Sphinx puts the script copies\n", "utf-8")
    status, _warnings, err = build(project)
    assert status == 2
    assert (
        f"the build output folder {out / '_downloads'} cannot hold the copies of the tuning scripts (a file stands "
        "where the folder should be); make it a writable folder (or build into another output folder), or set "
        "rlresources_script_url so that the Link column points at the repository instead of copies"
    ) in err
    assert "FileExistsError" not in err

    # With links to the repository there is nothing to copy, and the same folder builds.
    status, warnings, _ = build(project, "-D", "rlresources_script_url=https://github.com/org/repo/blob/{ref}/{path}")
    assert (status, warnings) == (0, [])


def test_the_write_check_names_what_stops_it(tmp_path: Path) -> None:
    assert download_folder_problem(tmp_path / "new" / "_downloads") is None
    assert (tmp_path / "new" / "_downloads").is_dir()
    assert list((tmp_path / "new" / "_downloads").iterdir()) == []  # the probe leaves nothing behind
    (tmp_path / "file").write_text("x", "utf-8")
    assert download_folder_problem(tmp_path / "file") == "a file stands where the folder should be"
    assert download_folder_problem(tmp_path / "file" / "_downloads") == "Not a directory"
