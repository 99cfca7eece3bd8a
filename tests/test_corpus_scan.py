"""benchmarks/corpus_scan.py on small trees: what it claims, what it compares, and that a wrong value is counted.

The benchmark reads real repositories; here it reads the adapters' own fixture trees and
a few lines written in place, so it runs in a moment and without the network.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import corpus_scan

FIXTURES = Path(__file__).parent / "frameworks"


def test_a_tree_is_scanned_per_framework(tmp_path: Path) -> None:
    tree = tmp_path / "THUDM+slime"
    shutil.copytree(FIXTURES / "slime", tree)
    (tree / ".git").mkdir()
    (tree / ".git" / "hook.sh").write_text("python3 train.py --hf-checkpoint m --actor-num-nodes 1\n")
    runs = corpus_scan.scan(tree)
    assert sorted(runs) == [
        "examples/distill/run_teacher.sh",
        "examples/search/run_colocated_rollout.sh",
        "scripts/run-detected-gpus.sh",
        "scripts/run-mla-disaggregated.sh",
        "scripts/run-qwen2.5-1.5B.sh",
        "scripts/run-sft.sh",
        "scripts/run-split-one-node.sh",
        "scripts/run-split-two-nodes.sh",
        "scripts/run-split-uneven.sh",
    ]
    summary = corpus_scan.summary(runs)["slime"]
    assert summary["files"] == 9
    assert summary["known"] == {"gpus": 8, "engine": 8, "train_backend": 9, "model": 8}


def test_truth_rows_count_right_unknown_and_wrong(tmp_path: Path) -> None:
    tree = tmp_path / "THUDM+slime"
    shutil.copytree(FIXTURES / "slime", tree)
    rows = [
        {"repo": "THUDM/slime", "path": "scripts/run-qwen2.5-1.5B.sh", "gpus": 8, "engine": "sglang", "model": None},
        {"repo": "THUDM/slime", "path": "scripts/run-detected-gpus.sh", "total_gpus": 8},
        {"repo": "THUDM/slime", "path": "examples/distill/run_teacher.sh", "gpus": 6, "train_backend": "Megatron"},
        {"repo": "other/repo", "path": "scripts/run-sft.sh", "gpus": 1},
        {"path": "scripts/missing.sh", "gpus": 1},
    ]
    truth = tmp_path / "truth.jsonl"
    truth.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    result = corpus_scan.compare({tree.name: corpus_scan.scan(tree)}, corpus_scan.truth_rows([truth]))
    assert result["counts"] == {"right": 3, "unknown": 1, "wrong": 1}
    assert result["wrong"] == [
        {"tree": "THUDM+slime", "path": "examples/distill/run_teacher.sh", "field": "gpus", "got": 7, "expected": 6}
    ]
    assert result["by_tree"] == {"THUDM+slime": {"right": 3, "unknown": 1, "wrong": 1}}
    assert result["not_claimed"] == ["scripts/missing.sh"]


def test_a_file_no_adapter_claims_counts_what_its_row_settles_as_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = tmp_path / "THUDM+slime"
    shutil.copytree(FIXTURES / "slime", tree)
    (tree / "notes.sh").write_text("echo nothing to launch here\n")
    rows = [
        {"repo": "THUDM/slime", "path": "scripts/run-qwen2.5-1.5B.sh", "gpus": 8, "engine": "sglang"},
        {"repo": "THUDM/slime", "path": "notes.sh", "gpus": 4, "engine": "sglang", "model": None},
        {"repo": "THUDM/slime", "path": "docs/guide.md#L3-5", "gpus": 2},
    ]
    truth = tmp_path / "truth.jsonl"
    truth.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    runs = {tree.name: corpus_scan.scan(tree)}
    result = corpus_scan.compare(runs, corpus_scan.truth_rows([truth]))
    assert result["counts"] == {"right": 2, "not_read": 2}
    assert result["by_tree"] == {"THUDM+slime": {"right": 2, "not_read": 2}}
    assert result["not_claimed"] == ["notes.sh"]
    assert corpus_scan.share(result["counts"]) == 0.5
    # With shell blocks read, a snippet row nothing claims is not read either.
    result = corpus_scan.compare(runs, corpus_scan.truth_rows([truth]), snippets=True)
    assert result["counts"] == {"right": 2, "not_read": 3}
    assert result["not_claimed"] == ["notes.sh", "docs/guide.md#L3-5"]
    assert corpus_scan.main([str(tree), "--truth", str(truth)]) == 0
    out = capsys.readouterr().out
    assert "truth: right 2  unknown 0  not read 2  WRONG 0  (50% of the values the rows settle)" in out
    assert "  THUDM+slime: right 2  unknown 0  not read 2  WRONG 0  (50% of the values the rows settle)" in out
    assert "  not claimed: notes.sh" in out


def test_main_fails_when_a_value_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tree = tmp_path / "OpenRLHF+OpenRLHF"
    shutil.copytree(FIXTURES / "openrlhf", tree)
    truth = tmp_path / "truth.jsonl"
    truth.write_text(json.dumps({"path": "examples/scripts/train_ppo_hybrid.sh", "gpus": 16}) + "\n")
    assert corpus_scan.main([str(tree), "--truth", str(truth)]) == 1
    assert (
        "WRONG OpenRLHF+OpenRLHF:examples/scripts/train_ppo_hybrid.sh gpus: got 8, expected 16"
        in capsys.readouterr().out
    )
    truth.write_text(json.dumps({"path": "examples/scripts/train_ppo_hybrid.sh", "gpus": 8}) + "\n")
    assert corpus_scan.main([str(tree), "--truth", str(truth), "--json"]) == 0


def test_snippets_keep_only_command_lines_of_shell_blocks() -> None:
    markdown = (
        "Run it:\n"
        "```yaml\n"
        "num_processes: 4\n"
        "```\n"
        "It's easy:\n"
        "```bash\n"
        "# a comment that isn't kept\n"
        "trl grpo --model_name_or_path Qwen/Qwen2.5-0.5B \\\n"
        "  --num_processes 4\n"
        "```\n"
    )
    [(name, text)] = corpus_scan.snippets("docs/clis.md", markdown)
    assert name == "docs/clis.md#L7-9"
    assert text.splitlines()[7:9] == ["trl grpo --model_name_or_path Qwen/Qwen2.5-0.5B \\", "  --num_processes 4"]
    assert corpus_scan.snippets("y.md", "no blocks\n") == []


def test_a_python_file_is_scanned_through_its_docstring_and_a_rows_line_span_finds_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = tmp_path / "huggingface+trl"
    (tree / "examples").mkdir(parents=True)
    python = (
        '"""Usage:\n\n    accelerate launch --num_processes 2 x.py --use_vllm --model_name_or_path m\n"""\nimport os\n'
    )
    (tree / "examples" / "x.py").write_text(python)
    assert list(corpus_scan.scan(tree, with_snippets=True)) == ["examples/x.py"]
    truth = tmp_path / "truth.jsonl"
    truth.write_text(json.dumps({"path": "examples/x.py#L1-4", "gpus": 2, "model": "m"}) + "\n")
    assert corpus_scan.main([str(tree), "--snippets", "--truth", str(truth)]) == 0
    assert "truth: right 2  unknown 0  not read 0  WRONG 0" in capsys.readouterr().out


def test_a_row_of_a_docstrings_later_command_is_not_what_the_reader_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reader reads a docstring's first launch: a row labelling the second is not compared with it."""
    tree = tmp_path / "huggingface+trl"
    (tree / "examples").mkdir(parents=True)
    python = (
        '"""Usage:\n\n    accelerate launch --num_processes 2 x.py --model_name_or_path m\n\n'
        '    accelerate launch --num_processes 4 x.py --model_name_or_path n\n"""\n'
    )
    (tree / "examples" / "x.py").write_text(python)
    truth = tmp_path / "truth.jsonl"
    rows = [
        {"repo": "huggingface/trl", "path": "examples/x.py#docstring-cmd1", "gpus": 2},
        {"repo": "huggingface/trl", "path": "examples/x.py#docstring-cmd2", "gpus": 4},
    ]
    truth.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert corpus_scan.main([str(tree), "--snippets", "--truth", str(truth)]) == 0
    assert "truth: right 1  unknown 0  not read 1  WRONG 0" in capsys.readouterr().out


def test_tree_files_stay_inside_the_tree(tmp_path: Path) -> None:
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "a.sh").write_text("x=1\n")
    (tmp_path / "secret.sh").write_text("no\n")
    files = corpus_scan.TreeFiles(tmp_path / "tree")
    assert files.read("a.sh") == "x=1\n"
    assert files.read("../secret.sh") is None
    assert files.read("/etc/passwd") is None
    (tmp_path / "tree" / "link.sh").symlink_to(tmp_path / "secret.sh")
    assert files.read("link.sh") is None


def test_a_row_may_settle_nodes_and_gpus_per_node(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tree = tmp_path / "THUDM+slime"
    shutil.copytree(FIXTURES / "slime", tree)
    truth = tmp_path / "truth.jsonl"
    row = {"path": "scripts/run-split-two-nodes.sh", "nodes": 3, "gpus_per_node": 4}
    truth.write_text(json.dumps(row) + "\n")
    assert corpus_scan.main([str(tree), "--truth", str(truth)]) == 1
    out = capsys.readouterr().out
    assert "truth: right 1  unknown 0  not read 0  WRONG 1" in out and "gpus_per_node: got 8, expected 4" in out
