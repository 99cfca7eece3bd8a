# ruff: noqa: E501 - expected output lines are compared whole
"""The ``rlresources`` command: lint, schema, render, new, exit codes and the pre-commit hook.

Every test calls ``main([...])`` in a copy of ``tests/data/cli/repo`` (a small repository
with a ``[tool.rlresources]`` table) and compares what is printed line by line.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from docutils import nodes
from docutils.core import publish_doctree
from helpers import commit, git

from sphinx_rlresources.cli import common, lint
from sphinx_rlresources.cli import main as cli
from sphinx_rlresources.core import rowscript

TESTS = Path(__file__).parent
REPO = TESTS.parent
FIXTURE = TESTS / "data" / "cli" / "repo"
NEW_SCRIPT = "examples/tuning/7b/qwen2.5-7b_grpo_8_h100_megatron_sglang.sh"
ORPHAN = (
    f"{NEW_SCRIPT}:1:1: warning: no row links to this script; add its row with "
    f"'rlresources new {NEW_SCRIPT}', or delete the script if it is not a verified configuration "
    "(or leave it out with a '!' glob in tool.rlresources.launch_files) [rlresources.orphan_script]"
)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh copy of the fixture repository, with its pyproject, as the working folder."""
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.rlresources]\ndata = "data"\nroot = "."\nscripts = ["examples/tuning"]\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(root)
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    status = cli.main(list(argv))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return status, captured.out.splitlines(), captured.err


def fill_row(repo: Path) -> None:
    """Give the orphan script a complete row, so the repository lints clean."""
    with open(repo / "data" / "7b.yaml", "a", encoding="utf-8") as handle:
        handle.write(
            "  - tag: RECOMMENDED\n    model: Qwen2.5-7B\n    task: GRPO\n    gpus: 8\n    device: H100\n"
            "    max_batch: 256\n    train: megatron\n    infer: sglang\n"
            f"    script: {NEW_SCRIPT}\n    contributor: Jane Doe\n"
        )


# -- lint ---------------------------------------------------------------------------


def test_lint_clean_repository_exits_0(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fill_row(repo)
    status, out, err = run(capsys, "lint")
    assert (status, out, err) == (0, ["rlresources: no problems in 2 data files (2 rows) and 2 scripts"], "")


def test_a_script_its_row_pins_at_a_commit_is_no_orphan(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # verl's page pins every row at the last commit that had examples/tuning; a checkout that
    # still has the same files must not ask for a second row for each (11 warnings on verl).
    git(repo, "init", "-q")
    sha = commit(repo, "the scripts", "2025-06-25T12:00:00+00:00")
    fill_row(repo)
    with open(repo / "data" / "7b.yaml", "a", encoding="utf-8") as handle:
        handle.write(f"    script_ref: {sha}\n")
    status, out, _err = run(capsys, "lint")
    assert not [line for line in out if "orphan_script" in line], out
    assert status == 0, out


def test_lint_reports_a_script_without_a_row_but_not_other_files(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _err = run(capsys, "lint")
    assert status == 1
    assert out == [ORPHAN, "rlresources: 1 warning in 2 data files (1 row) and 2 scripts"]  # README.md is no script


def break_data(repo: Path) -> None:
    path = repo / "data" / "7b.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("gpus: 1", "gpus: one"), encoding="utf-8")
    (repo / "data" / "70b.yaml").write_text("size: 70B\nentries:\n  - tag: MAX\n", encoding="utf-8")


BROKEN_TEXT = [
    "data/70b.yaml:3:5: error: entries[0]: the required fields model, task, gpus, device, max_batch, train, "
    "infer, script, contributor are missing; add them (see the data format) [rlresources.schema]",
    "data/70b.yaml:3:10: error: entries[0].tag: 'MAX' is not one of MIN, RECOMMENDED [rlresources.schema]",
    "data/7b.yaml:8:11: error: entries[0].gpus: 'one' is text, but a whole number is expected; for example "
    "gpus: 8 [rlresources.schema]",
    "rlresources: 3 errors in 3 data files (0 rows) and 2 scripts; scripts without a row are checked once every "
    "data file can be read",
]


def test_lint_text_is_sorted_compiler_style_lines_and_a_summary(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    break_data(repo)
    status, out, _err = run(capsys, "lint")
    assert status == 1
    assert out == BROKEN_TEXT


def test_lint_json(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    break_data(repo)
    status, out, _err = run(capsys, "lint", "--format", "json")
    assert status == 1
    found = json.loads("\n".join(out))
    assert found[2] == {
        "file": "data/7b.yaml",
        "line": 8,
        "column": 11,
        "severity": "error",
        "code": "rlresources.schema",
        "message": "entries[0].gpus: 'one' is text, but a whole number is expected; for example gpus: 8",
        "json_path": "entries[0].gpus",
    }
    assert [(f["file"], f["line"], f["column"]) for f in found] == [
        ("data/70b.yaml", 3, 5),
        ("data/70b.yaml", 3, 10),
        ("data/7b.yaml", 8, 11),
    ]


def test_lint_json_is_an_empty_list_when_clean(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fill_row(repo)
    status, out, _err = run(capsys, "lint", "--format", "json")
    assert (status, json.loads("\n".join(out))) == (0, [])


def test_lint_github_annotations(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _err = run(capsys, "lint", "--format", "github")
    assert status == 1
    assert out[0] == (
        f"::warning file={NEW_SCRIPT},line=1,col=1,title=rlresources.orphan_script::no row links to this "
        f"script; add its row with 'rlresources new {NEW_SCRIPT}', or delete the script if it is not a "
        "verified configuration (or leave it out with a '!' glob in tool.rlresources.launch_files)"
    )
    break_data(repo)
    status, out, _err = run(capsys, "lint", "--format", "github")
    assert out[2] == (
        "::error file=data/7b.yaml,line=8,col=11,title=rlresources.schema::entries[0].gpus: 'one' is text, "
        "but a whole number is expected; for example gpus: 8"
    )


def test_github_format_escapes_newlines_and_property_separators() -> None:
    from sphinx_rlresources.core.diagnostics import Diagnostic, Subtype

    diag = Diagnostic("a,b:c.yaml", 0, 0, Subtype.FILE, "50% bad\nnext")
    # A Diagnostic already escapes control characters (a message is always one line).
    assert lint.format_github(diag) == "::error file=a%2Cb%3Ac.yaml,title=rlresources.file::50%25 bad\\nnext"


def test_lint_defaults_come_from_the_nearest_pyproject(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo / "examples" / "tuning")
    status, out, _err = run(capsys, "lint")
    assert status == 1
    assert out[0].startswith("7b/qwen2.5-7b_grpo_8_h100_megatron_sglang.sh:1:1: warning: no row links")


def test_lint_flags_override_pyproject(repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "7b.yaml").write_text("size: 7B\nentries: []\n", encoding="utf-8")
    status, out, _err = run(capsys, "lint", "--data", str(other), "--scripts", "data")
    assert (status, out[-1]) == (0, "rlresources: no problems in 1 data file (0 rows) and 0 scripts")


def test_lint_without_pyproject_uses_data_and_examples_tuning(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "pyproject.toml").unlink()
    status, out, _err = run(capsys, "lint")
    assert (status, out) == (1, [ORPHAN, "rlresources: 1 warning in 2 data files (1 row) and 2 scripts"])


def test_lint_max_file_size(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _err = run(capsys, "lint", "--max-file-size", "100")
    assert status == 1
    assert out[0] == (
        f"data/7b.yaml: error: the data file is {(repo / 'data' / '7b.yaml').stat().st_size} bytes, more than "
        "the limit of 100; split it or raise rlresources_max_file_size (--max-file-size) [rlresources.file]"
    )


def test_lint_placeholders_until_filled(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "new", NEW_SCRIPT)[0] == 0
    status, out, _err = run(capsys, "lint")
    assert status == 1
    assert [re.sub(r":\d+:\d+:", ":L:C:", line).split(" still TODO")[0] for line in out[:-1]] == [
        "data/7b.yaml:L:C: error: entries[1].tag:",
        "data/7b.yaml:L:C: error: entries[1].max_batch:",
        "data/7b.yaml:L:C: error: entries[1].contributor:",
    ]
    assert out[1].endswith(
        "still TODO, a placeholder written by 'rlresources new' or 'import'; fill it in (The largest batch (prompts per "
        "step) that ran on this hardware: a whole number from 1 to 10000000, or null when not measured); for "
        "example max_batch: 176 [rlresources.placeholder]"
    )
    path = repo / "data" / "7b.yaml"
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"tag: TODO.*", "tag: RECOMMENDED", text)
    text = re.sub(r"max_batch: TODO.*", "max_batch: 256", text)
    text = re.sub(r"contributor: TODO.*", "contributor: Jane Doe", text)
    path.write_text(text, encoding="utf-8")
    status, out, _err = run(capsys, "lint")
    assert (status, out) == (0, ["rlresources: no problems in 2 data files (2 rows) and 2 scripts"])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["lint", "--data", "nowhere"],
            "rlresources: error: the data folder 'nowhere' does not exist; pass --data DIR or set data in [tool.rlresources] of pyproject.toml",
        ),
        (["lint", "--root", "nowhere"], "rlresources: error: the root 'nowhere' is not a folder; pass --root DIR"),
        (
            ["lint", "--scripts", "nowhere"],
            "rlresources: error: the scripts folder 'nowhere' is not a folder; fix --scripts or tool.rlresources.scripts",
        ),
        (
            ["lint", "--format", "xml"],
            "rlresources: error: lint: argument --format: invalid choice: 'xml' (choose from 'text', 'json', 'github')",
        ),
        (
            ["lint", "--max-file-size", "0"],
            "rlresources: error: lint: argument --max-file-size: 0 is not a positive number of bytes",
        ),
        (["lint", "--bogus"], "rlresources: error: unrecognized arguments: --bogus"),
        ([], "rlresources: error: the following arguments are required: COMMAND"),
        (["render"], "rlresources: error: render: the following arguments are required: SIZE"),
    ],
)
def test_exit_2_when_the_command_cannot_run(
    repo: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert out == []
    assert (
        err.splitlines()[-1].replace("choose from text, json, github", "choose from 'text', 'json', 'github'")
        == message
    )


def test_exit_2_on_a_broken_pyproject(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "pyproject.toml").write_text("[tool.rlresources\n", encoding="utf-8")
    status, _out, err = run(capsys, "lint")
    assert status == 2
    assert err.startswith("rlresources: error: pyproject.toml is not valid TOML (")
    (repo / "pyproject.toml").write_text('[tool.rlresources]\ndata = "data"\ndatas = "x"\n', encoding="utf-8")
    status, _out, err = run(capsys, "lint")
    assert (status, err) == (
        2,
        "rlresources: error: pyproject.toml: unknown key(s) in [tool.rlresources]: datas; the keys are: data, "
        "root, scripts, script_url, script_ref, naming, launch_files, max_file_size\n",
    )
    (repo / "pyproject.toml").write_text("[tool.rlresources]\nscripts = 3\n", encoding="utf-8")
    assert run(capsys, "lint")[0] == 2


def test_help_and_version_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--help"]) == 0
    assert "lint" in capsys.readouterr().out
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("rlresources ")


def test_an_internal_error_is_a_message_not_a_traceback(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("boom")

    monkeypatch.setattr(common, "load_dataset", boom)
    status, _out, err = run(capsys, "lint")
    assert (status, err) == (2, "rlresources: error: internal error (ValueError: boom); please report this\n")


def test_python_m_runs_the_same_command(repo: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sphinx_rlresources", "lint", "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert json.loads(done.stdout)[0]["code"] == "rlresources.orphan_script"
    assert done.stderr == ""


def test_the_cli_path_does_not_import_sphinx(repo: Path) -> None:
    code = (
        "import sys; from sphinx_rlresources.cli import main as cli; cli.main(['lint']); cli.main(['render', '7b']);"
        "print(sorted(m for m in sys.modules if m == 'sphinx' or m.startswith('sphinx.')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "[]"


# -- schema -------------------------------------------------------------------------


def test_schema_prints_the_packaged_schema_file_and_it_judges_data(capsys: pytest.CaptureFixture[str]) -> None:
    """What ``schema`` prints is the file shipped in the package, read here byte for byte, and a working schema."""
    import jsonschema

    from sphinx_rlresources.safe.yamlsafe import load

    status, out, _err = run(capsys, "schema")
    assert status == 0
    printed = json.loads("\n".join(out))
    shipped = REPO / "sphinx_rlresources" / "schema" / "rlresources.schema.json"
    assert printed == json.loads(shipped.read_text("utf-8"))
    assert printed["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    checker = jsonschema.Draft202012Validator(printed)
    data = load((REPO / "data" / "7b.yaml").read_text("utf-8")).value  # dates stay text, as the loader reads them
    assert list(checker.iter_errors(data)) == []
    data["entries"][0]["gpus"] = "eight"
    assert [list(e.absolute_path) for e in checker.iter_errors(data)] == [["entries", 0, "gpus"]]


# -- render -------------------------------------------------------------------------

RST_7B = """\
.. list-table:: 7B
   :header-rows: 1
   :widths: auto

   * - Tag
     - Model
     - Task
     - Resource
     - MaxBatch
     - Train
     - Infer
     - Link
     - Contributor
   * - MIN
     - Qwen2.5-7B
     - GRPO-LoRA
     - 1*H100
     - 16
     - fsdp
     - vllm0.8.3
     - qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh
     - `Simon Huang <https://github.com/SimonHuang>`__
"""


def test_render_rst(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _err = run(capsys, "render", "7b")
    assert status == 0
    assert "\n".join(out) + "\n" == RST_7B


def table_cells(rst: str) -> list[list[tuple[str, str | None]]]:
    """(text, link) of every cell of the one table in a reST text, as docutils reads it."""
    doctree = publish_doctree(rst, settings_overrides={"report_level": 5})
    rows = []
    for row in doctree.findall(nodes.row):
        cells = []
        for entry in row.findall(nodes.entry):
            refs = list(entry.findall(nodes.reference))
            cells.append((entry.astext(), refs[0].get("refuri") if refs else None))
        rows.append(cells)
    return rows


def test_rendered_rst_reads_back_as_the_columns_the_directive_draws(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sphinx_rlresources.core import columns as cols
    from sphinx_rlresources.core.loader import load_dataset

    fill_row(repo)
    data = repo / "data" / "7b.yaml"
    data.write_text(
        data.read_text(encoding="utf-8").replace(
            "model: Qwen2.5-7B\n    task: GRPO\n", 'model: "*Qwen* |x| `y` [z]_ -a"\n    task: GRPO\n'
        ),
        encoding="utf-8",
    )
    status, out, _err = run(
        capsys, "render", "7b", "--script-url", "https://github.com/org/repo/blob/{ref}/{path}", "--ref", "v1"
    )
    assert status == 0
    dataset = load_dataset(repo / "data", repo)
    expected = [[(c.header, None) for c in (cols.COLUMNS[k] for k in cols.DEFAULT_COLUMNS)]]
    for entry in dataset.sizes["7b"].entries:
        row = []
        for key in cols.DEFAULT_COLUMNS:
            link = None
            if key == "link":
                link = f"https://github.com/org/repo/blob/v1/{entry.script}"
            elif key == "contributor":
                link = entry.contributor.link
            row.append((cols.COLUMNS[key].text(entry, cols.CellContext()), link))
        expected.append(row)
    assert table_cells("\n".join(out)) == expected
    assert expected[2][1] == ("*Qwen* |x| `y` [z]_ -a", None)


def test_render_markdown(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _err = run(capsys, "render", "7B", "--format", "markdown", "--columns", "tag,model,resource,link")
    assert status == 0
    assert out == [
        "| Tag | Model | Resource | Link |",
        "| --- | --- | --- | --- |",
        # a file name ends like a domain (.sh): a code span, so no renderer autolinks it
        "| MIN | Qwen2.5-7B | 1\\*H100 | `qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh` |",
    ]


def test_render_markdown_escapes_cells_and_links(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = repo / "data" / "7b.yaml"
    data.write_text(
        data.read_text(encoding="utf-8").replace("model: Qwen2.5-7B", 'model: "a|b <i> [x](y)"'), encoding="utf-8"
    )
    (repo / "pyproject.toml").write_text(
        '[tool.rlresources]\ndata = "data"\nscript_url = "https://github.com/org/repo/blob/{ref}/{path}"\nscript_ref = "dev"\n',
        encoding="utf-8",
    )
    status, out, _err = run(capsys, "render", "7b", "--format", "markdown", "--columns", "model,link,contributor")
    assert status == 0
    assert out[2] == (
        "| a\\|b \\<i\\> \\[x\\](y) | [qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh](https://github.com/org/repo/blob/dev/"
        "examples/tuning/7b/qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh) | [Simon Huang](https://github.com/SimonHuang) |"
    )


def test_render_all_and_empty_sizes(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _err = run(capsys, "render", "all", "--format", "markdown", "--columns", "size,tag")
    assert (status, out) == (0, ["| Size | Tag |", "| --- | --- |", "| 7B | MIN |"])
    status, out, _err = run(capsys, "render", "405b")
    assert (status, out) == (0, ["No configuration has been verified for 405B yet."])


def test_render_errors(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _out, err = run(capsys, "render", "8b")
    assert (status, err) == (2, "rlresources: error: unknown size '8b'; the sizes in data are: 7B, 405B\n")
    status, _out, err = run(capsys, "render", "7b", "--columns", "gpu-hours")
    assert status == 2
    assert err.startswith("rlresources: error: --columns names no column 'gpu-hours'; the columns are: size, tag")
    status, _out, err = run(capsys, "render", "7b", "--columns", "size,maxbtch")
    assert (status, err) == (
        2,
        "rlresources: error: --columns names no column 'maxbtch'; did you mean 'maxbatch'? The columns are: size, tag, "
        "model, task, resource, maxbatch, train, infer, link, contributor, model_id, tested, evidence, notes, estimate, "
        "seq_len, global_batch, parallelism, throughput, step_time, peak_memory, logs, description\n",
    )
    status, _out, err = run(capsys, "render", "7b", "--script-url", "ftp://x/{path}")
    assert (status, err) == (
        2,
        "rlresources: error: --script-url 'ftp://x/{path}' must start with https:// or http://\n",
    )
    break_data(repo)
    status, out, err = run(capsys, "render", "7b")
    assert (status, out) == (1, [])
    assert (
        err.splitlines()[-1]
        == "rlresources: 'data/7b.yaml' could not be read; its rows are not shown (run rlresources lint)"
    )


# -- new ----------------------------------------------------------------------------

NEW_ROW = """\
  - tag: TODO  # MIN (every memory saving on) or RECOMMENDED (best throughput)
    model: Qwen2.5-7B  # from actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct, as the tables name models
    task: GRPO
    gpus: 8
    device: H100
    max_batch: TODO  # the largest batch that ran on this hardware, or null if not measured (the script runs data.train_batch_size=256)
    train: megatron
    infer: sglang
    script: examples/tuning/7b/qwen2.5-7b_grpo_8_h100_megatron_sglang.sh
    contributor: TODO  # who ran it: a name, or {name: ..., github: ...}
    model_id: Qwen/Qwen2.5-7B-Instruct
"""


def test_new_appends_without_touching_the_rest(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (repo / "data" / "7b.yaml").read_text(encoding="utf-8")
    status, out, _err = run(capsys, "new", NEW_SCRIPT)
    assert (status, out) == (
        0,
        [
            "appended a row to data/7b.yaml; fill in tag, max_batch, contributor (marked TODO), then run rlresources lint"
        ],
    )
    assert (repo / "data" / "7b.yaml").read_text(encoding="utf-8") == before + NEW_ROW


def test_new_with_tag_and_contributor_and_dry_run(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (repo / "data" / "7b.yaml").read_text(encoding="utf-8")
    status, out, _err = run(capsys, "new", NEW_SCRIPT, "--tag", "RECOMMENDED", "--contributor", "Jane Doe", "--dry-run")
    assert status == 0
    assert out[0] == "  - tag: RECOMMENDED"
    assert out[-2] == "    contributor: Jane Doe"
    assert (repo / "data" / "7b.yaml").read_text(encoding="utf-8") == before


def test_new_fills_an_empty_size_and_creates_a_new_one(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = repo / "examples" / "tuning" / "405b"
    folder.mkdir()
    shutil.copy(repo / NEW_SCRIPT, folder / "llama-405b_grpo_8_h100_megatron_sglang.sh")
    status, _out, _err = run(capsys, "new", "examples/tuning/405b/llama-405b_grpo_8_h100_megatron_sglang.sh")
    assert status == 0
    text = (repo / "data" / "405b.yaml").read_text(encoding="utf-8")
    assert text.startswith(
        "# Verified RL training configurations for 405B models.\nsize: 405B\nentries:\n  - tag: TODO"
    )
    folder = repo / "examples" / "tuning" / "32b"
    folder.mkdir()
    shutil.copy(repo / NEW_SCRIPT, folder / "qwen2-32b_grpo_8_h100_megatron_sglang.sh")
    assert run(capsys, "schema", "--out", "data")[0] == 0  # a schema in the repository: now it is named
    status, out, _err = run(capsys, "new", "examples/tuning/32b/qwen2-32b_grpo_8_h100_megatron_sglang.sh")
    assert (status, out[0].split(";")[0]) == (0, "wrote data/32b.yaml")
    lines = (repo / "data" / "32b.yaml").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# yaml-language-server: $schema=rlresources.schema.json"
    assert lines[1:5] == [
        "# Verified RL training configurations for 32B models.",
        "size: 32B",
        "entries:",
        "  - tag: TODO  # MIN (every memory saving on) or RECOMMENDED (best throughput)",
    ]


def test_new_notes_where_the_name_and_the_script_disagree(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(repo / NEW_SCRIPT, repo / "examples/tuning/7b/qwen2-7b_grpo_4_h100_fsdp_sglang.sh")
    status, out, _err = run(capsys, "new", "examples/tuning/7b/qwen2-7b_grpo_4_h100_fsdp_sglang.sh", "--dry-run")
    assert status == 0
    assert out[:2] == [
        "note: the file name says gpus '4' but the script runs '8'; the row says what the script runs: rename the script to match",
        "note: the file name says train 'fsdp' but the script runs 'megatron'; the row says what the script runs: rename the script to match",
    ]


def test_new_reads_no_more_of_a_script_than_the_build_does(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # over the build's byte bound, yet under it in characters: the build does not read it, so new
    # takes nothing from it either and the name alone fills the row
    script = repo / "examples/tuning/7b/qwen2-7b_grpo_4_h100_fsdp_sglang.sh"
    padding = "# " + "é" * (rowscript.MAX_SCRIPT_BYTES // 2) + "\n"
    script.write_text(padding + (repo / NEW_SCRIPT).read_text(encoding="utf-8"), encoding="utf-8")
    status, out, _err = run(capsys, "new", "examples/tuning/7b/qwen2-7b_grpo_4_h100_fsdp_sglang.sh", "--dry-run")
    assert status == 0
    assert not any(line.startswith("note: the file name says") for line in out), out
    assert "    gpus: 4" in out and "    train: fsdp" in out


def test_new_refuses_a_name_that_breaks_the_rule(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = "examples/tuning/7b/Qwen2.5_7b_grpo_8_h100_megatron_sglang.sh"
    shutil.copy(repo / NEW_SCRIPT, repo / bad)
    before = (repo / "data" / "7b.yaml").read_text(encoding="utf-8")
    status, out, _err = run(capsys, "new", bad)
    assert status == 1
    assert out == [
        f"{bad}: error: 'Qwen2.5_7b_grpo_8_h100_megatron_sglang.sh' has 7 fields separated by '_', but the rule "
        "[model]_[task]_[gpunums]_[device]_[train]_[infer].sh has 6 (use '-' inside a field, never '_') "
        "[rlresources.naming]",
        f"suggested name: qwen2.5-7b_grpo_8_h100_megatron_sglang.sh (git mv {bad} {NEW_SCRIPT})",
        "no row was written; rename the script, then run rlresources new again",
    ]
    assert (repo / "data" / "7b.yaml").read_text(encoding="utf-8") == before
    shutil.copy(repo / NEW_SCRIPT, repo / "examples/tuning/7b/run.sh")
    status, out, _err = run(capsys, "new", "examples/tuning/7b/run.sh")
    assert status == 1
    assert out[1].startswith("no name can be suggested")


def test_new_refuses_a_script_that_already_has_a_row(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _err = run(capsys, "new", "examples/tuning/7b/qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh")
    assert (status, out) == (
        1,
        [
            "data/7b.yaml:5: the script examples/tuning/7b/qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh already has a row; edit that row instead"
        ],
    )


def test_new_cannot_run(repo: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _out, err = run(capsys, "new", "examples/tuning/7b/missing.sh")
    assert (status, err) == (
        2,
        "rlresources: error: the script 'examples/tuning/7b/missing.sh' does not exist; write it first, then scaffold its row\n",
    )
    (repo / "scripts").mkdir()
    shutil.copy(repo / NEW_SCRIPT, repo / "scripts" / "qwen2.5-7b_grpo_8_h100_megatron_sglang.sh")
    status, _out, err = run(capsys, "new", "scripts/qwen2.5-7b_grpo_8_h100_megatron_sglang.sh")
    assert status == 2
    assert err.startswith("rlresources: error: the size cannot be told from the folder 'scripts'; pass --size")
    assert run(capsys, "new", "scripts/qwen2.5-7b_grpo_8_h100_megatron_sglang.sh", "--size", "7B", "--dry-run")[0] == 0
    outside = tmp_path / "qwen2.5-7b_grpo_8_h100_megatron_sglang.sh"
    shutil.copy(repo / NEW_SCRIPT, outside)
    status, _out, err = run(capsys, "new", str(outside), "--size", "7B")
    assert status == 2
    assert "is outside the root" in err


def test_new_leaves_a_file_it_cannot_append_to_safely(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = repo / "data" / "7b.yaml"
    text = path.read_text(encoding="utf-8")
    _head, rest = text.split("entries:\n", 1)
    path.write_text(f"entries:\n{rest}size: 7B\n", encoding="utf-8")  # entries is not the last key
    before = path.read_text(encoding="utf-8")
    status, _out, err = run(capsys, "new", NEW_SCRIPT)
    assert status == 2
    assert err.startswith("rlresources: error: data/7b.yaml cannot be appended to safely")
    assert path.read_text(encoding="utf-8") == before


# -- pre-commit ---------------------------------------------------------------------


HOOK_KEYS = {
    "id", "name", "entry", "language", "files", "exclude", "types", "types_or", "exclude_types", "always_run",
    "fail_fast", "verbose", "pass_filenames", "require_serial", "description", "language_version",
    "minimum_pre_commit_version", "args", "stages", "additional_dependencies",
}  # fmt: skip
"""The keys pre-commit accepts in a hook definition."""


@pytest.mark.parametrize(
    ("hook_id", "command", "matched", "unmatched"),
    [
        (
            "rlresources-lint",
            "lint",
            ["data/7b.yaml", "data/70b.yml", "data/70B.YAML", "examples/tuning/7b/qwen2-7b_grpo_2_h800_fsdp_vllm.sh"],
            ["README.md", "docs/index.rst", "sphinx_rlresources/cli/main.py"],
        ),
        # sync also runs when a Markdown file changes, and its files come from args
        ("rlresources-sync", "sync", ["data/7b.yaml", "README.md", "docs/Hardware.MDX"], ["docs/index.rst", "a.py"]),
    ],
)
def test_pre_commit_hook_definition_is_valid(
    hook_id: str, command: str, matched: list[str], unmatched: list[str]
) -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert isinstance(hooks, list)
    assert [h["id"] for h in hooks] == ["rlresources-lint", "rlresources-sync"]
    (hook,) = [h for h in hooks if h["id"] == hook_id]
    # The fields pre-commit requires, and values it accepts.
    assert {"id", "name", "entry", "language"} <= set(hook) <= HOOK_KEYS
    assert hook["language"] == "python"
    assert hook["pass_filenames"] is False
    files = re.compile(hook["files"])
    for path in matched:
        assert files.search(path), path
    for path in unmatched:
        assert not files.search(path), path
    # The entry is the console script this package installs, with arguments it accepts.
    tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")

    scripts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    program, *argv = hook["entry"].split()
    assert scripts[program] == "sphinx_rlresources.cli.main:main"
    assert cli.build_parser().parse_args([*argv, *(["README.md"] if command == "sync" else [])]).command == command


def test_repository_lints_clean_with_its_own_pyproject(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the hook runs in this repository: its data and scripts must be clean."""
    monkeypatch.chdir(REPO / "docs")
    status, out, _err = run(capsys, "lint", "--format", "json")
    assert (status, json.loads("\n".join(out))) == (0, [])


def test_new_twice_is_refused_even_while_the_first_row_has_todos(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "new", NEW_SCRIPT)[0] == 0
    before = (repo / "data" / "7b.yaml").read_text(encoding="utf-8")
    status, out, _err = run(capsys, "new", NEW_SCRIPT)
    assert (status, out) == (1, [f"data/7b.yaml: the script {NEW_SCRIPT} already has a row; edit that row instead"])
    assert (repo / "data" / "7b.yaml").read_text(encoding="utf-8") == before


def test_lint_reports_what_the_build_reports(repo: Path, capsys: pytest.CaptureFixture[str], make_app: Any) -> None:
    """One code path: the same findings, at the same places, with the same messages."""
    assert run(capsys, "new", NEW_SCRIPT)[0] == 0  # TODO placeholders in 7b.yaml
    (repo / "data" / "70b.yaml").write_text(
        "size: 70B\nentries:\n  - tag: MIN\n    model: Qwen2-70B\n    task: GRPO\n    gpus: 16\n    device: H800\n"
        "    max_batch: null\n    train: fsdp\n    infer: vllm\n    script: examples/tuning/70b/qwen2-70b_grpo_32_h800_fsdp_vllm.sh\n"
        "    contributor: X\n",
        encoding="utf-8",
    )
    status, out, _err = run(capsys, "lint", "--format", "json")
    assert status == 1
    linted = {
        (f["file"], f["line"], f["column"], f["message"], f["code"])
        for f in json.loads("\n".join(out))
        if f["code"] != "rlresources.orphan_script"
    }
    assert {code for *_rest, code in linted} == {
        "rlresources.placeholder",
        "rlresources.script_missing",
        "rlresources.naming",
    }
    docs = repo / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text('extensions = ["sphinx_rlresources"]\n', encoding="utf-8")
    (docs / "index.rst").write_text("Sizes\n=====\n\n.. rl-resource-table:: all\n", encoding="utf-8")
    app = make_app("html", srcdir=docs)
    app.build()
    built = set()
    stream = app.warning if hasattr(app, "warning") else app._warning  # Sphinx 7.2 keeps it private
    for line in re.sub(r"\x1b\[[0-9;]*m", "", stream.getvalue()).splitlines():
        found = re.match(r"^(?:.*/repo/)(data/[^:]+):(\d+):(\d+): WARNING: (.*?)(?: \[(rlresources\.\w+)\])?$", line)
        if found:
            path, row, column, message, code = found.groups()
            built.add((path, int(row), int(column), message, code))
    assert built == linted  # (on Sphinx 7.2 the test set-up prints the tag as Sphinx 8 does)


def test_a_new_size_file_points_editors_at_a_schema_copy_beside_it(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _status, out, _err = run(capsys, "schema")
    (repo / "data" / "rlresources.schema.json").write_text("\n".join(out), encoding="utf-8")
    folder = repo / "examples" / "tuning" / "32b"
    folder.mkdir()
    shutil.copy(repo / NEW_SCRIPT, folder / "qwen2-32b_grpo_8_h100_megatron_sglang.sh")
    assert run(capsys, "new", "examples/tuning/32b/qwen2-32b_grpo_8_h100_megatron_sglang.sh")[0] == 0
    first = (repo / "data" / "32b.yaml").read_text(encoding="utf-8").splitlines()[0]
    assert first == "# yaml-language-server: $schema=rlresources.schema.json"
    assert run(capsys, "lint")[2] == ""  # the .json copy is not read as a data file


def test_lint_cross_checks_rows_against_their_scripts_unless_told_not_to(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fill_row(repo)
    script = repo / "examples/tuning/7b/qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh"
    script.write_text(
        script.read_text(encoding="utf-8").replace("n_gpus_per_node=1", "n_gpus_per_node=2"), encoding="utf-8"
    )
    status, out, _err = run(capsys, "lint", "--format", "json")
    assert status == 1
    assert [f["code"] for f in json.loads("\n".join(out))] == ["rlresources.script_gpus"]
    status, out, _err = run(capsys, "lint", "--no-cross-check")
    assert (status, out) == (0, ["rlresources: no problems in 2 data files (2 rows) and 2 scripts"])


def test_lint_stale_reports_rows_whose_script_changed_after_they_were_tested(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    fill_row(repo)
    data = repo / "data" / "7b.yaml"
    data.write_text(
        data.read_text(encoding="utf-8").replace("    max_batch: 16\n", "    max_batch: 16\n    tested: 2025-06-25\n"),
        encoding="utf-8",
    )

    def git(*args: str, date: str = "2025-01-01T00:00:00") -> None:
        env = {
            "GIT_AUTHOR_DATE": date,
            "GIT_COMMITTER_DATE": date,
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.org",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.org",
            "HOME": str(repo),
            "PATH": "/usr/bin:/bin:/usr/local/bin",
        }
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)

    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "add")
    script = repo / "examples/tuning/7b/qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh"
    script.write_text(script.read_text(encoding="utf-8") + "# tuned\n", encoding="utf-8")
    git("commit", "-q", "-am", "a comment", date="2025-09-01T12:00:00")
    assert run(capsys, "lint", "--stale")[0] == 0  # touched, but nothing the row states changed
    longer = "    data.train_batch_size=16 \\\n    data.max_response_length=1024 \\\n"
    script.write_text(script.read_text(encoding="utf-8").replace("    data.train_batch_size=16 \\\n", longer))
    git("commit", "-q", "-am", "retune the rollout", date="2025-09-30T12:00:00")
    assert run(capsys, "lint")[0] == 0
    status, out, _err = run(capsys, "lint", "--stale", "--format", "json")
    assert status == 1
    (found,) = json.loads("\n".join(out))
    assert (found["file"], found["code"], found["severity"]) == ("data/7b.yaml", "rlresources.stale", "warning")
    assert "'retune the rollout'" in found["message"]


def test_lint_json_names_the_value_of_every_row_finding(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Row checks (naming, paths, cross-checks) carry the JSON path of the field they point at."""
    data = repo / "data" / "7b.yaml"
    data.write_text(data.read_text("utf-8").replace("gpus: 1\n", "gpus: 3\n", 1), "utf-8")
    status, out, _err = run(capsys, "lint", "--format", "json")
    assert status == 1
    found = json.loads("\n".join(out))
    in_data = [d for d in found if d["file"].endswith(".yaml")]
    assert {d["code"] for d in in_data} == {"rlresources.naming", "rlresources.script_gpus"}
    assert {d["json_path"] for d in in_data} == {"entries[0].gpus"}


def test_an_unknown_device_is_a_finding_with_the_known_devices_as_docs_checks_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "seed"
    for part in ("data", "examples"):
        shutil.copytree(REPO / part, root / part)
    seven = root / "data" / "7b.yaml"
    seven.write_text(seven.read_text("utf-8").replace("device: H800", "device: H80O", 1), "utf-8")
    monkeypatch.chdir(root)
    status, out, _ = run(capsys, "lint")
    docs = (REPO / "docs" / "checks.rst").read_text("utf-8").split(".. _check-unknown_device:", 1)[1]
    shown = docs.split(".. code-block:: text\n\n", 1)[1].split("\n\n", 1)[0]
    assert status == 1  # the naming finding is an error; the unknown device alone is a warning
    assert out[:-1] == [line.strip() for line in shown.splitlines()]
    assert out[-1] == "rlresources: 1 error and 1 warning in 9 data files (12 rows) and 12 scripts"
