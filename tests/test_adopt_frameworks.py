"""Each framework adopts the extension by following docs/adopting.rst alone, step by step.

For NeMo-RL, OpenRLHF, slime, SkyRL and TRL a repository of that framework's shape is made
from the fixture files of ``tests/frameworks/<name>/`` (each file cites the public file that
taught its idiom), and the page's commands run in it as a maintainer would run them: the
``[tool.rlresources]`` block the page gives for that framework, ``rlresources schema``,
``rlresources new`` on each launch file, the TODOs filled as ``new`` asks, ``rlresources
lint`` clean, a Sphinx build with ``-W`` (MyST Markdown for NeMo-RL, reST for the others),
``rlresources sync`` of a README table.  Then one or two planted defects per framework (a GPU
count, a task, a backend that disagree with the launch file) must give exactly the right
findings, and nothing else.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from adoption import ADOPTIONS, README, adopted, adoption_repo, fill_todos, lint_json, planted, quietly, settings
from framework_fixtures import FIXTURES
from helpers import working_in


@pytest.fixture(params=sorted(ADOPTIONS))
def repo(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path]:
    framework: str = request.param
    root = adoption_repo(framework)(tmp_path / "repo")
    adopted(framework)(root)
    return framework, root


def test_new_writes_rows_that_lint_accepts_once_filled(repo: tuple[str, Path]) -> None:
    framework, root = repo
    rows = sum(p.read_text("utf-8").count("  - tag: ") for p in (root / "data").glob("*.yaml"))
    assert rows == len(ADOPTIONS[framework].new)
    assert "TODO" not in "".join(p.read_text("utf-8") for p in (root / "data").glob("*.yaml"))
    assert lint_json(root) == []
    with working_in(root):
        status, said = quietly(["lint"])
    assert (status, said.splitlines()[-1].split(" in ")[0]) == (0, "rlresources: no problems")


def test_the_docs_build_with_w_and_no_warning(repo: tuple[str, Path], tmp_path: Path) -> None:
    framework, root = repo
    docs = root / "docs"
    docs.mkdir()
    sizes = sorted({size.lower() for _script, size in ADOPTIONS[framework].new})
    if framework == "nemo-rl":  # NeMo-RL's docs are MyST Markdown
        pytest.importorskip("myst_parser")
        extensions = '["myst_parser", "sphinx_rlresources"]'
        page = "# Hardware\n\n" + "".join(f"## {s}\n\n```{{rl-resource-table}} {s}\n```\n\n" for s in sizes)
        (docs / "index.md").write_text(page, encoding="utf-8")
    else:
        extensions = '["sphinx_rlresources"]'
        page = "Hardware\n========\n\n" + "".join(
            f"{s}\n{'-' * len(s)}\n\n.. rl-resource-table:: {s}\n\n" for s in sizes
        )
        (docs / "index.rst").write_text(page, encoding="utf-8")
    (docs / "conf.py").write_text(f"extensions = {extensions}\n", encoding="utf-8")
    # In a process of its own, from the repository root as a maintainer runs it: the settings come from
    # pyproject.toml, as the page says, and MyST's '.md' suffix does not stay in this process's Sphinx defaults.
    build = [sys.executable, "-m", "sphinx", "-W", "-q", "-E", "-N", "-b", "html", "docs", str(tmp_path / "html")]
    done = subprocess.run(build, cwd=root, capture_output=True, text=True, timeout=300, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    html = (tmp_path / "html" / "index.html").read_text("utf-8")
    assert all(Path(script).name in html for script, _size in ADOPTIONS[framework].new)


def test_sync_fills_the_readmes_table(repo: tuple[str, Path]) -> None:
    framework, root = repo
    (root / "README.md").write_text(README, encoding="utf-8")
    with working_in(root):
        assert quietly(["sync", "README.md"]) == (0, "rlresources: updated 1 of 1 block in 1 file (1 file written)\n")
        assert quietly(["sync", "--check", "README.md"])[0] == 0
    table = (root / "README.md").read_text("utf-8")
    assert table.count("\n| ") == 2 + len(ADOPTIONS[framework].new)  # header, rule, one line a row


@pytest.mark.parametrize(
    ("framework", "defect"),
    [(f, d) for f, a in sorted(ADOPTIONS.items()) for d in range(len(a.defects))],
)
def test_a_planted_defect_gets_its_finding_and_nothing_else(framework: str, defect: int, tmp_path: Path) -> None:
    root = adoption_repo(framework)(tmp_path / "repo")
    size, _written, wrong, codes = ADOPTIONS[framework].defects[defect]
    planted(framework, defect)(root)
    text = (root / "data" / f"{size}.yaml").read_text("utf-8")
    found = lint_json(root)
    line = text.splitlines().index(wrong.rstrip("\n")) + 1
    assert [(f["code"], f["severity"], f["file"], f["line"]) for f in found] == [
        (f"rlresources.{code}", "error", f"data/{size}.yaml", line) for code in codes
    ]
    # each script finding cites the launch file, or the config it inherits, at the line that sets the value
    cited = [f["message"] for f in found if f["code"].startswith("rlresources.script_")]
    assert all(re.search(rf"\b({'|'.join(map(re.escape, ADOPTIONS[framework].files))}):\d+ ", m) for m in cited), cited


# -- false alarms met adopting the real repositories, fixed -------------------------------------------

LOCAL_CKPT = "examples/train/megatron/run_megatron_local_ckpt.sh"


@pytest.mark.parametrize(
    ("model", "codes"),
    [
        ("Moonlight-16B-A3B", []),  # $HOME/moonlight16b: a folder of the user's naming, of the row's size
        ("Qwen2.5-7B", ["rlresources.script_model"]),  # the folder's name states 16b, not 7B
    ],
)
def test_a_local_checkpoint_folder_is_held_against_the_row_by_its_size(
    tmp_path: Path, model: str, codes: list[str]
) -> None:
    root = tmp_path / "repo"
    (root / LOCAL_CKPT).parent.mkdir(parents=True)
    shutil.copyfile(FIXTURES / "skyrl" / LOCAL_CKPT, root / LOCAL_CKPT)
    (root / "pyproject.toml").write_text(settings("SkyRL"), encoding="utf-8")
    (root / "data").mkdir()
    with working_in(root):
        assert quietly(["new", LOCAL_CKPT, "--size", "16B", "--tag", "MIN", "--contributor", "Simon"])[0] == 0
    fill_todos(root)
    path = root / "data" / "16b.yaml"
    path.write_text(re.sub(r"model: TODO.*", f"model: {model}", path.read_text("utf-8")), encoding="utf-8")
    found = lint_json(root)
    assert [f["code"] for f in found if f["severity"] == "error"] == codes
    # `true`, then `True` through $LANGUAGE_MODEL_ONLY: one boolean to Hydra, so a warning that one is noise
    assert [(f["severity"], f["message"].split(": ", 1)[1]) for f in found if f["severity"] == "warning"] == [
        ("warning", "generator.inference_engine.language_model_only is given twice with the same value (also at "
         "line 21); delete one"),
    ]  # fmt: skip
