"""Bounded time, memory and output on any input (issue 19: "bounded time and memory, everywhere").

Each test feeds one class of hostile input and checks the work done or the size of what
comes out, by counting (steps, characters, files), not by timing: a count does not
depend on the machine.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sphinx_rlresources.cli.cells import MAX_CELL, is_email
from sphinx_rlresources.cli.main import main as rlresources
from sphinx_rlresources.core.loader import LoadOptions, load_dataset
from sphinx_rlresources.safe.text import MAX_SHOWN
from sphinx_rlresources.scripts import interpreter
from sphinx_rlresources.scripts.reader import read_script
from sphinx_rlresources.scripts.shell import MAX_REPORTED_UNSET, MAX_WORK

ROW = """\
  - tag: MIN
    model: {model}
    task: GRPO
    gpus: 8
    device: H100
    max_batch: 16
    train: fsdp
    infer: vllm
    script: {script}
    contributor: Simon
"""


def test_variables_that_expand_into_each_other_cost_a_bounded_number_of_steps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = ["x0=1"] + [f"x{i}='{'+'.join([f'x{i - 1}'] * 10)}'" for i in range(1, 10)]
    text = "\n".join([*lines, "python3 -m verl.trainer.main_ppo trainer.n_gpus_per_node=$((x9)) trainer.nnodes=1"])
    spent: list[int] = []
    original = interpreter.Interpreter.spend

    def counting(self: interpreter.Interpreter, steps: int, fields: int = 0, text: int = 0) -> bool:
        spent.append(steps)
        return original(self, steps, fields, text)

    monkeypatch.setattr(interpreter.Interpreter, "spend", counting)
    found = read_script(text)
    assert found.gpus is None  # 10**9 evaluations would be needed: the value is unknown instead
    assert sum(spent) <= MAX_WORK + 10_000
    assert any(f"took more than {MAX_WORK} steps" in p.message for p in found.problems)


def test_many_unset_variables_in_one_word_give_short_messages() -> None:
    word = "".join(f"$V{i}" for i in range(2000))
    found = read_script(f"python3 -m verl.trainer.main_ppo trainer.nnodes=1 data.train_files={word}\n")
    assert len(found.problems) == MAX_REPORTED_UNSET + 1  # the first ones, then one that counts the rest
    assert max(len(p.message) for p in found.problems) < 400  # each quotes at most MAX_SHOWN characters of the word
    raw = f"data.train_files={word}"
    assert all(f"'{raw[: MAX_SHOWN - 1]}…'" in p.message for p in found.problems[:3])
    assert "more uses of variables the script does not set are not listed" in found.problems[-1].message


@pytest.mark.parametrize("label", ["infB", "nanB", "0B", "1e400B", "99999999999999999999B"])
def test_odd_size_labels_are_findings_not_crashes(
    tmp_path: Path, label: str, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / f"{label.lower()}.yaml").write_text(
        f"size: {label}\nentries:\n" + ROW.format(model="Unknown-Model", script="x.sh"), encoding="utf-8"
    )
    found = load_dataset(data, tmp_path, LoadOptions())
    assert all(d.subtype.value != "internal" for d in found.diagnostics)
    assert rlresources(["lint", "--data", str(data), "--root", str(tmp_path)]) == 1
    assert "internal error" not in capsys.readouterr().err


def test_the_email_check_is_linear() -> None:
    """One pattern over ``a@a.a.a…@`` backtracked quadratically; the parts are checked one by one."""
    assert is_email("someone@example.org")
    assert not is_email("a@" + "a." * 20_000 + "@")
    assert not is_email("no-at-sign.example.org")


def test_a_huge_cell_is_reported_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cell = "a@" + "a." * 20_000 + "@"
    page = tmp_path / "page.rst"
    page.write_text(
        "7B\n~~\n\n.. list-table::\n   :header-rows: 1\n\n   * - Tag\n     - Model\n     - Task\n     - Resource\n"
        "     - MaxBatch\n     - Train\n     - Infer\n     - Link\n     - Contributor\n   * - MIN\n     - Qwen2.5-7B\n"
        "     - GRPO\n     - 8*H100\n     - 16\n     - fsdp\n     - vllm\n     - examples/tuning/7b/a.sh\n"
        f"     - `Simon <mailto:{cell}>`_\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    assert rlresources(["import", "page.rst", "--out", "data"]) == 1
    out = capsys.readouterr().out
    assert f"more than the {MAX_CELL} read" in out
    assert max(len(line) for line in out.splitlines()) < 1000


def test_a_page_whose_size_would_be_too_large_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = "".join(
        f"   * - MIN\n     - Qwen2.5-7B\n     - GRPO\n     - 8*H100\n     - {n}\n     - fsdp\n     - vllm\n"
        f"     - examples/tuning/7b/qwen2-7b_grpo_{n}_h100_fsdp_vllm.sh\n     - Simon\n"
        for n in range(1, 201)
    )
    header = "   * - Tag\n     - Model\n     - Task\n     - Resource\n     - MaxBatch\n     - Train\n     - Infer\n"
    header += "     - Link\n     - Contributor\n"
    (tmp_path / "page.rst").write_text(f"7B\n~~\n\n.. list-table::\n   :header-rows: 1\n\n{header}{rows}", "utf-8")
    (tmp_path / "pyproject.toml").write_text("[tool.rlresources]\nmax_file_size = 20000\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert rlresources(["import", "page.rst", "--out", "data"]) == 2
    assert "more than the 20000 a data file may have; nothing was written" in capsys.readouterr().err
    assert not (tmp_path / "data" / "7b.yaml").exists()


def test_a_url_segment_over_255_bytes_does_not_stop_the_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    long = "b" * 300
    link = f"`x.sh <https://github.com/o/r/blob/{long}/examples/tuning/7b/qwen2-7b_grpo_8_h100_fsdp_vllm.sh>`_"
    page = (
        "7B\n~~\n\n.. list-table::\n   :header-rows: 1\n\n   * - Tag\n     - Model\n     - Task\n     - Resource\n"
        "     - MaxBatch\n     - Train\n     - Infer\n     - Link\n     - Contributor\n   * - MIN\n     - Qwen2.5-7B\n"
        f"     - GRPO\n     - 8*H100\n     - 16\n     - fsdp\n     - vllm\n     - {link}\n     - Simon\n"
    )
    (tmp_path / "page.rst").write_text(page, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert rlresources(["import", "page.rst", "--out", "data", "--root", "."]) in (0, 1)
    assert "internal error" not in capsys.readouterr().err


def test_script_names_over_255_bytes_and_link_loops_are_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "examples" / "tuning" / "7b"
    folder.mkdir(parents=True)
    (folder / "loop-a.sh").symlink_to(folder / "loop-b.sh")
    (folder / "loop-b.sh").symlink_to(folder / "loop-a.sh")
    data = tmp_path / "data"
    data.mkdir()
    long = "examples/tuning/7b/" + "a" * 300 + ".sh"
    rows = ROW.format(model="Qwen2.5-7B", script=long) + ROW.format(
        model="Qwen2.5-7B", script="examples/tuning/7b/loop-a.sh"
    )
    (data / "7b.yaml").write_text(f"size: 7B\nentries:\n{rows}", encoding="utf-8")
    found = load_dataset(data, tmp_path, LoadOptions())
    messages = [d.message for d in found.diagnostics]
    assert any("leads nowhere (or in a loop)" in m for m in messages), messages
    assert any("does not exist" in m and "aaaa" in m for m in messages), messages
    assert rlresources(["lint", "--data", str(data), "--root", str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert "internal error" not in err
    assert "loop-b.sh: error: this is a symbolic link that leads nowhere (or in a loop)" in out
