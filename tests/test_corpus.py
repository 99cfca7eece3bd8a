"""Every kind of broken data file gets its exact, located diagnostic: loader, CLI and build.

The corpus (``tests/corpus/<case>/``) holds one folder per mistake with the data file as
a contributor would send it and ``expected.txt``, the diagnostics it must produce (see
``tests/corpus/README.md``).  Each case runs through the three ways users meet the data:
the loader, ``rlresources lint`` and a Sphinx build.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from helpers import sphinx_build

from sphinx_rlresources.cli.main import main as rlresources
from sphinx_rlresources.core.loader import load_dataset

CORPUS = Path(__file__).parent / "corpus"
ROOT = CORPUS / "_root"
SCRIPTS = ROOT / "examples" / "tuning"
CASES = sorted(p.name for p in CORPUS.iterdir() if p.is_dir() and not p.name.startswith("_"))

#: Every kind of mistake the issue names, so a case cannot be dropped unnoticed.
REQUIRED = {
    "yaml-syntax",
    "tab-indentation",
    "duplicate-key",
    "gpus-word",
    "gpus-quoted",
    "gpus-boolean",
    "gpus-zero",
    "gpus-negative",
    "gpus-absurd",
    "unknown-tag",
    "python-tag",
    "unknown-field",
    "missing-field",
    "empty-file",
    "comment-only",
    "top-level-list",
    "entries-not-list",
    "non-utf8",
    "byte-order-mark",
    "windows-line-endings",
    "size-label-mismatch",
    "duplicate-size",
    "infer-version-float",
    "date-as-text",
    "alias-bomb",
    "url-javascript",
    "url-data",
    "script-absolute",
    "script-dotdot",
}
#: Findings after which a file's rows are not drawn (the file "could not be read").
UNREADABLE = {"file", "yaml", "schema", "url"}
_LINE = re.compile(
    r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): error: (?P<message>.+) \[rlresources\.(?P<subtype>\w+)\]$"
)


def expected(case: str) -> list[str]:
    return (CORPUS / case / "expected.txt").read_text("utf-8").splitlines()


def data_files(case: str) -> list[Path]:
    return sorted(p for p in (CORPUS / case).iterdir() if p.suffix in (".yaml", ".yml"))


def test_the_corpus_covers_every_kind_of_mistake() -> None:
    assert set(CASES) >= REQUIRED
    for case in CASES:
        assert data_files(case), case
        for line in expected(case):
            match = _LINE.match(line)
            assert match, f"{case}: {line}"  # file, line, column, message and subtype, all given
            assert int(match["line"]) >= 1
            assert int(match["col"]) >= 1


@pytest.mark.parametrize("case", CASES)
def test_loader_reports_exactly_the_expected_diagnostics(case: str) -> None:
    folder = CORPUS / case
    dataset = load_dataset(folder, ROOT, display=lambda p: p.relative_to(folder).as_posix())
    assert [d.format() for d in dataset.diagnostics] == expected(case)
    if not expected(case):  # accepted: BOM and CRLF read the same as the plain file
        (entry,) = dataset.entries
        assert (entry.resource, entry.infer_label, entry.contributor.name) == ("8*H100", "vllm0.8.2", "Xiangyongan")
        assert entry.at("gpus") == (7, 11)


@pytest.mark.parametrize("case", CASES)
def test_lint_prints_them_and_exits_1(
    case: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(CORPUS / case)
    status = rlresources(["lint", "--data", ".", "--root", str(ROOT), "--scripts", str(SCRIPTS)])
    out, err = capsys.readouterr()
    assert err == ""
    *findings, summary = out.splitlines()
    assert summary.startswith("rlresources: ")
    orphans = [line for line in findings if line.endswith("[rlresources.orphan_script]")]
    assert [line for line in findings if line not in orphans] == expected(case)
    # Where the row's script path is refused, the script it meant is left without a row.
    assert len(orphans) == (1 if case in ("script-absolute", "script-dotdot", "script-missing") else 0)
    assert status == (1 if expected(case) else 0)


def _write_project(src: Path, case: str) -> None:
    (src / "data").mkdir(parents=True)
    for path in data_files(case):
        shutil.copyfile(path, src / "data" / path.name)
    shutil.copytree(ROOT / "examples", src / "examples")
    (src / "conf.py").write_text(
        'extensions = ["sphinx_rlresources"]\nrlresources_data_dir = "data"\nrlresources_root = "."\n', "utf-8"
    )
    (src / "index.rst").write_text("Corpus\n======\n\n.. toctree::\n\n   sizes\n   other\n", "utf-8")
    (src / "sizes.rst").write_text("Sizes\n=====\n\n.. rl-resource-table:: all\n", "utf-8")
    (src / "other.rst").write_text("Other\n=====\n\nThis page draws no table.\n", "utf-8")


@pytest.mark.parametrize("case", CASES)
def test_build_warns_draws_the_rest_and_fails_with_W(case: str, tmp_path: Path) -> None:
    src = tmp_path / "src"
    _write_project(src, case)
    status, warnings = sphinx_build(src, tmp_path / "html", "-b", "html")
    assert status == 0

    want = [f"<srcdir>/data/{line}".replace(": error: ", ": WARNING: ", 1) for line in expected(case)]
    for name in (p.name for p in data_files(case)):  # the build names other files by their full path
        want = [line.replace(f" {name};", f" <srcdir>/data/{name};") for line in want]
    unreadable = sorted(
        {m["file"] for m in map(_LINE.match, expected(case)) if m is not None and m["subtype"] in UNREADABLE}
    )
    drawn = [line for line in warnings if "[rlresources.data_unreadable]" not in line]
    assert drawn == want
    # The label is 7B when the file says so, else the file name's 7b: compare ignoring case.
    assert [line.lower() for line in warnings if line not in drawn] == [
        f"<srcdir>/sizes.rst:4: WARNING: the data for size '7b' could not be read (<srcdir>/data/{name}); its rows "
        "are not drawn: fix the problems reported for that file [rlresources.data_unreadable]".lower()
        for name in unreadable
    ]

    html = (tmp_path / "html" / "sizes.html").read_text("utf-8")
    assert "This page draws no table." in (tmp_path / "html" / "other.html").read_text("utf-8")
    if unreadable:
        assert "could not be read; its configurations are not shown" in html
        assert "Xiangyongan" not in html  # nothing half-read is drawn
    elif not expected(case):
        assert "8*H100" in html
        assert "qwen2-7b_grpo_8_h100_fsdp_vllm.sh" in html

    status, _ = sphinx_build(src, tmp_path / "strict", "-b", "dummy", "-W", "--keep-going")  # exit 1 on Sphinx 7.2 too
    assert status == (1 if expected(case) else 0)
