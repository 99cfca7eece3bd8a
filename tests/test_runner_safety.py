"""No output line of ours is a CI runner's workflow command, and no JSON output hides a character (issue 33).

GitHub's runner trims a line's leading blanks before it looks for ``::`` and takes the
legacy ``##[command]`` *anywhere* in a line; it may compare by culture, which skips
ignorable characters (``#<U+FE0F>#[``).  Text from data files, scripts, pages and
READMEs reaches every command's output, the build's log and the JSON outputs, so each
test here plants such text in all of them and scans every line that comes out.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import TESTS
from helpers import cli, sphinx_build, sphinx_project

from sphinx_rlresources.cli.common import Lines
from sphinx_rlresources.safe.text import (
    IGNORABLE_CLASS,
    UNSEEN_CLASS,
    json_escaped,
    json_text,
    no_commands,
    one_line,
    output_line,
    shown,
)

SKIPPED = re.compile("[" + UNSEEN_CLASS + IGNORABLE_CLASS + "]")
"""What a runner comparing by culture may skip when it looks for a command."""
RAW = re.compile("[" + UNSEEN_CLASS.replace("\\u0000-\\u001f", "\\u0000-\\u0008\\u000a-\\u001f") + "]")
"""What no output line may hold raw: every control but a tab, and every unseen character."""
OURS = re.compile(r"::(error|warning|notice) file=")
"""The workflow commands lint and sync print on purpose (``--format github``)."""


def commands_in(line: str) -> list[str]:
    """Why ``line`` would make a CI runner act, as the runner sees it (empty: it would not)."""
    seen = SKIPPED.sub("", line)
    found = ["##[ in the line"] if "##[" in seen else []
    if seen.lstrip().startswith("::") and not OURS.match(line):
        found.append(":: after leading blanks")
    if OURS.match(line) and "##[" in SKIPPED.sub("", line[2:]):
        found.append("##[ in our annotation's text")
    return found


def test_the_one_rule() -> None:
    assert no_commands("a ##[error]x") == "a #\\x23[error]x"
    assert no_commands("###[x") == "##\\x23[x"  # no '##[' is left by the escape itself
    assert no_commands("  ::error::x") == "  \\x3a:error::x"
    assert no_commands("\u3000\t::x") == "\\u3000\\t\\x3a:x"  # every blank the runner trims
    assert no_commands("#\ufe0f#[x") == "#\\ufe0f\\x23[x"  # an ignorable character between
    assert no_commands("\u200b:\u200b:x") == "\\u200b\\x3a\\u200b:x"
    assert no_commands("a::b ::c") == "a::b ::c"  # only a line's start
    assert no_commands("::x", starts_line=False) == "::x"  # a quoted value: the line starts elsewhere
    assert one_line("##[x") == "#\\x23[x" and shown("##[x") == "'#\\x23[x'"
    for text in ["##[x", " ::x", "#\u2060#[", "a\x1b]0;t\x07"]:
        assert output_line(output_line(text)) == output_line(text)  # idempotent
        assert not commands_in(output_line(text)) and not RAW.search(output_line(text))
    assert output_line("a\tb ×") == "a\tb ×"  # a tab and printable text pass as they are


def test_json_escapes_read_back_as_the_same_value() -> None:
    value = {"m": "##[error]x\u202e\x85\x7f\U000e0041 \x1b", "k": "::x", "ok": "Qwen2.5 × 8 — ü"}
    text = json_text(value)
    assert json.loads(text) == value
    assert "##[" not in text and not RAW.search(text.replace("\n", ""))
    assert "Qwen2.5 × 8 — ü" in text  # non-ASCII text stays readable
    ascii_json = json.dumps(value, indent=2)  # ASCII JSON escapes the unseen characters itself, not '##['
    assert json_escaped(ascii_json) == ascii_json.replace("##[", "#\\u0023[")
    assert json.loads(json_escaped(ascii_json)) == value


def test_lines_applies_the_rule_to_lines_written_in_pieces() -> None:
    class Sink:
        def __init__(self) -> None:
            self.text = ""

        def write(self, text: str) -> int:
            self.text += text
            return len(text)

        def flush(self) -> None:
            pass

    sink = Sink()
    out = Lines(sink)  # type: ignore[arg-type]
    for piece in ["  :", ":warn", "ing::x\n#", "#", "[e", "rror]\nlast ##", "[x"]:
        out.write(piece)
    out.annotation("::error file=a.yaml::##[x")
    out.write("")  # an empty write (a finding without a diff) adds no line
    out.annotation("::warning file=b.yaml::y")
    out.flush()
    assert sink.text == (
        "  \\x3a:warning::x\n#\\x23[error]\nlast #\\x23[x\n::error file=a.yaml::#\\x23[x\n::warning file=b.yaml::y\n"
    )


WORD = "W" * 60_000
SCRIPT = "examples/tuning/7b/qwen2-7b_grpo_8_h100_fsdp_vllm.sh"
UNROWED = "examples/tuning/7b/qwen2-7b_grpo_16_h100_fsdp_vllm.sh"
# The launch idiom of verl's examples/grpo_trainer/run_qwen2-7b.sh (as in tests/roots/test-hostile),
# each value a command, an ignorable-split command, a bidi override, C1 and BEL, or a 60 kB word.
LAUNCH = f"""#!/usr/bin/env bash
MODEL_PATH="Qwen/##[error]model ::warning::m"
python3 -m verl.trainer.main_ppo \\
    algorithm.adv_estimator="grpo\u202e\x9b\x07" \\
    data.train_batch_size=$UNSET_{WORD} \\
    actor_rollout_ref.model.path=$MODEL_PATH \\
    actor_rollout_ref.rollout.name="#\ufe0f#[warning]engine" \\
    actor_rollout_ref.actor.strategy={WORD} \\
    trainer.experiment_name="  ::error::experiment" \\
    trainer.n_gpus_per_node=8 \\
    trainer.nnodes=1
"""
ROW = """\
size: 7B
entries:
  - tag: MIN
    model: "Qwen2-7B ##[error]row"
    task: GRPO
    gpus: 8
    device: H100
    max_batch: 64
    train: fsdp
    infer: vllm
    script: {script}
    contributor: "::warning::contributor"
    notes: "##[set-output name=x]y #\ufe0f#[error]z"
"""
README = "# T\n\n<!-- rl-resource-table 7b -->\n| ##[error]readme |\n  ::warning::readme\n<!-- /rl-resource-table -->\n"
PAGE = """\
7B
~~

.. list-table::
   :header-rows: 1

   * - Tag
     - Model
     - Task
     - Resource
     - MaxBatch
     - Train
     - Infer
     - Link
     - Contributor
   * - ##[error]tag
     - Qwen ##[error]page
     - GRPO
     - 8*H100
     - ::warning::batch
     - fsdp
     - vllm
     - examples/tuning/7b/a.sh
     - Simon
"""


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "data").mkdir(parents=True)
    (root / "examples" / "tuning" / "7b").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.rlresources]\ndata = "data"\n', encoding="utf-8")
    (root / SCRIPT).write_text(LAUNCH, encoding="utf-8")
    (root / UNROWED).write_text(LAUNCH, encoding="utf-8")
    (root / "examples" / "tuning" / "7b" / "##[error]x_grpo_8_h100_fsdp_vllm.sh").write_text("echo\n", "utf-8")
    (root / "data" / "7b.yaml").write_text(ROW.format(script=SCRIPT), encoding="utf-8")
    # readable, so that lint still lists the scripts without a row, with findings at its name
    (root / "data" / "##[error]9b.yaml").write_text(ROW.format(script=SCRIPT).replace("7B", "9B"), encoding="utf-8")
    (root / "README.md").write_text(README, encoding="utf-8")
    (root / "page.rst").write_text(PAGE, encoding="utf-8")
    return root


COMMANDS = [
    ["lint"],
    ["lint", "--format", "json"],
    ["lint", "--format", "github"],
    ["render", "7b"],
    ["render", "7b", "--format", "markdown"],
    ["inspect", SCRIPT],
    ["inspect", SCRIPT, "--format", "json"],
    ["sync", "--check", "README.md"],
    ["sync", "--check", "--format", "github", "README.md"],
    ["new", "--dry-run", UNROWED],
    ["estimate", "--row", "data/7b.yaml:3"],
    ["estimate", "--row", "data/7b.yaml:3", "--format", "json"],
    ["estimate", "--model", "##[error]model", "--device", "H100"],
    ["import", "page.rst", "--out", "imported"],
    ["sync", "README.md"],
]


def scan(text: str, where: str, json_output: bool = False) -> None:
    for number, line in enumerate(text.splitlines(), 1):
        assert not commands_in(line), (where, number, commands_in(line), line[:200])
        assert not RAW.search(line), (where, number, line[:200])
        # A message quotes at most MAX_SHOWN characters of a value; JSON carries a script's values whole.
        assert json_output or len(line) < 2_000, (where, number, len(line), line[:200])
    if json_output:
        for item in json.loads(text) if text.startswith("[") else [json.loads(text)]:
            for problem in [item, *item.get("problems", [])]:
                assert len(problem.get("message", "")) < 2_000, (where, problem["message"][:200])


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_no_command_prints_a_workflow_command_from_the_data_or_a_script(
    argv: list[str], hostile: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = cli(hostile, capsys, *argv)
    assert status in (0, 1, 2) and out + err
    scan(out, f"{' '.join(argv)}: stdout", json_output="json" in argv)
    scan(err, f"{' '.join(argv)}: stderr")
    readme = (hostile / "README.md").read_text("utf-8")
    assert "\\x23" not in readme and "\\x3a" not in readme  # the rule is for output lines; files keep their text


def test_the_hostile_text_is_shown_escaped_not_dropped(hostile: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _status, out, _err = cli(hostile, capsys, "inspect", SCRIPT)
    assert "Qwen/#\\x23[error]model ::warning::m" in out
    assert "#\\ufe0f\\x23[warning]engine" in out
    assert "grpo\\u202e\\x9b\\x07" in out
    _status, out, _err = cli(hostile, capsys, "inspect", SCRIPT, "--format", "json")
    assert json.loads(out)[0]["algorithm"] == "grpo\u202e\x9b\x07"  # the JSON reader gets the value back
    _status, out, _err = cli(hostile, capsys, "lint")
    assert "data/#\\x23[error]9b.yaml:1:7: error: size '9B' disagrees" in out
    assert "\nexamples/tuning/7b/#\\x23[error]x_grpo_8_h100_fsdp_vllm.sh:1:1: warning: no row" in out
    _status, out, _err = cli(hostile, capsys, "lint", "--format", "github")
    assert [line for line in out.splitlines() if line.startswith("::error file=")]  # ours still annotate


def test_the_build_log_and_the_data_export_hold_no_command(hostile: Path) -> None:
    src = sphinx_project(hostile, page=".. rl-resource-table:: 7b\n\n.. rl-resource-table:: 9b\n")
    _status, logged = sphinx_build(src, hostile.parent / "out")
    assert any("rlresources." in line for line in logged)
    scan("\n".join(logged), "the build's log")
    exported = (hostile.parent / "out" / "_static" / "rlresources" / "data.json").read_text("utf-8")
    assert "#\\u0023[set-output" in exported and not RAW.search(exported.replace("\n", ""))
    scan(exported, "data.json", json_output=True)
    assert json.loads(exported)["rows"][0]["notes"].startswith("##[set-output")


def test_new_quotes_a_script_value_on_one_line(hostile: Path, capsys: pytest.CaptureFixture[str]) -> None:
    forged = '"vllm\nforged.yaml:1:1: error: forged\x07"'
    (hostile / UNROWED).write_text(LAUNCH.replace('"#\ufe0f#[warning]engine"', forged), encoding="utf-8")
    status, out, err = cli(hostile, capsys, "new", "--dry-run", UNROWED)
    assert status == 0, err
    assert "but the script runs 'vllm\\nforged.yaml:1:1: error: forged\\x07'" in out
    assert not [line for line in out.splitlines() if line.startswith("forged")] and "\x07" not in out


def test_a_link_loop_among_data_files_is_a_finding_at_the_file(
    hostile: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (hostile / "data" / "8b.yaml").symlink_to("9b.yaml")
    (hostile / "data" / "9b.yaml").symlink_to("8b.yaml")
    loop = "the data file is a symbolic link that leads round in a loop; replace it with the file itself"
    _status, out, _err = cli(hostile, capsys, "lint")
    assert f"data/8b.yaml: error: {loop} [rlresources.file]" in out.splitlines()
    src = sphinx_project(hostile, page=".. rl-resource-table:: 7b\n")
    status, logged = sphinx_build(src, hostile.parent / "out")
    assert status == 0  # the build ends, with the finding, instead of a traceback at the export
    assert f"<srcdir>/data/9b.yaml:1: WARNING: {loop} [rlresources.file]" in logged
    assert (hostile.parent / "out" / "_static" / "rlresources" / "data.json").is_file()


def test_inspect_counts_the_problems_past_the_cap(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The ROLL recipe of tests/frameworks/roll (ROLL's examples/agentic_demo idiom), its defaults
    # list naming 3,000 parents that do not exist.
    recipe = tmp_path / "examples" / "agentic" / "many.yaml"
    recipe.parent.mkdir(parents=True)
    parents = "".join(f"  - ../config/missing_{index}@_here_\n" for index in range(3_000))
    known = (TESTS / "frameworks" / "roll" / "examples" / "agentic" / "agent_val.yaml").read_text("utf-8")
    recipe.write_text(known.replace("  - ../config/traj_envs@_here_\n", parents), encoding="utf-8")
    _status, out, _err = cli(tmp_path, capsys, "inspect", "--root", ".", "examples/agentic/many.yaml")
    lines = out.splitlines()
    assert len(lines) < 100
    assert sum("which cannot be read" in line for line in lines) == 50
    assert lines[-1] == "  2950 more problems in this file are not shown (the first 50 are)"
    _status, out, _err = cli(
        tmp_path, capsys, "inspect", "--root", ".", "examples/agentic/many.yaml", "--format", "json"
    )
    found = json.loads(out)[0]
    assert len(found["problems"]) == 50 and found["problems_not_shown"] == 2950
