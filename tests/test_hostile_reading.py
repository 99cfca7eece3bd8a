"""Hostile scripts and recipe configs: one budget for the shell reader, linear config merging (issue 33).

Each test builds one class of hostile input programmatically, small enough to read in
well under a second once bounded, but one that ran for minutes (or made gigabytes)
before.  They assert on counts -- steps, fields, characters, reads, calls -- and on the
finding the reader gives (file, line, what ran out); where only time can tell linear
from quadratic, on CPU time with a bound far above the linear reading and far below
the quadratic one.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sphinx_rlresources.core.crosscheck import cross_check
from sphinx_rlresources.core.model import Contributor, Entry, SourceRef
from sphinx_rlresources.scripts.expand import MAX_ARRAY_ITEMS
from sphinx_rlresources.scripts.frameworks import inherit, layers, read_config, read_file, read_run
from sphinx_rlresources.scripts.interpreter import Interpreter
from sphinx_rlresources.scripts.lexer import MAX_REREAD
from sphinx_rlresources.scripts.reader import interpret
from sphinx_rlresources.scripts.shell import MAX_FIELDS, MAX_REPORTED_UNSET, MAX_TEXT, MAX_WORK

LAUNCH = "python3 -m verl.trainer.main_ppo trainer.n_gpus_per_node=8 trainer.nnodes=1\n"


def spent(reading: Interpreter) -> tuple[int, int, int]:
    """What a reading took of each part of its budget (steps, fields, characters)."""
    steps, fields, text = reading.left()
    return MAX_WORK - steps, MAX_FIELDS - fields, MAX_TEXT - text


def stopped(reading: Interpreter) -> list[tuple[int, str]]:
    return [(p.line, p.message) for p in reading.problems if "reading the script stopped" in p.message]


def cpu(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


class Repo:
    """Files by their path from the root, counting the reads (what a :class:`~..files.Files` answers)."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files
        self.reads: list[str] = []

    def read(self, path: str) -> str | None:
        self.reads.append(path)
        return self.files.get(path)


# -- 3. the shell reader: one budget, charged by every construct ----------------------------------


def fan_out(width: int, levels: int = 8) -> str:
    """Functions that each call the one before ``width`` times: width**levels calls unbounded."""
    bodies = [f"f{i}() {{ " + f"f{i - 1}; " * width + "}" for i in range(1, levels + 1)]
    return "\n".join(["f0() { x=1; }", *bodies, f"f{levels}", LAUNCH])


@pytest.mark.parametrize("width", [10, 40])
def test_function_calls_that_fan_out_stop_at_the_budget_with_the_line_of_the_call(
    width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []
    original = Interpreter._call

    def counting(self: Interpreter, name: str, words: Any) -> None:
        calls.append(name)
        original(self, name, words)

    monkeypatch.setattr(Interpreter, "_call", counting)
    reading = interpret(fan_out(width))
    assert len(calls) <= MAX_WORK  # each call costs a step, and its body's words more
    assert spent(reading)[0] <= MAX_WORK + 1000
    [(line, message)] = stopped(reading)
    assert line == 10  # the top-level call `f8`
    assert f"took more than {MAX_WORK} steps" in message and "what the rest of the script sets is unknown" in message
    assert read_run(fan_out(width), "x.sh").gpus.value is None  # unknown, never a guess


def test_a_real_function_call_costs_little() -> None:
    reading = interpret('run() { python3 -m verl.trainer.main_ppo trainer.nnodes=1 "$@"; }\nrun a=1 b=2\n')
    assert not reading.problems
    assert [f.value for f in reading.commands[0].fields][-2:] == ["a=1", "b=2"]
    assert spent(reading)[0] < 100


@pytest.mark.parametrize(
    "script",
    [
        # unquoted word splitting of a long value, on every argument
        "A='" + "x " * 30_000 + "'\npython3 -m verl.trainer.main_ppo " + "$A " * 200 + "\n",
        # "${A[@]}" repeated on one line
        "A=(" + "x " * 4000 + ")\npython3 -m verl.trainer.main_ppo " + '"${A[@]}" ' * 2000 + "\n",
        # unquoted ${A[@]}: each element split again
        "A=(" + "'x y z' " * 4000 + ")\npython3 -m verl.trainer.main_ppo " + "${A[@]} " * 200 + "\n",
        # positional arguments passed on twice at each of eight nested calls
        "\n".join(
            ['g0() { python3 -m verl.trainer.main_ppo "$@"; }']
            + [f'g{i}() {{ g{i - 1} "$@" "$@" "$@" "$@"; }}' for i in range(1, 8)]
            + ["g7 a b c d e f g h"]
        ),
        # "$*" and "${A[*]}" joined inside a longer word, many times
        "A=(" + "abcdefgh " * 4000 + ")\n" + 'python3 -m verl.trainer.main_ppo x="${A[*]}"\n' * 2000,
    ],
    ids=["split", "array", "array-split", "positional", "joined"],
)
def test_expanding_words_into_arguments_is_bounded(script: str) -> None:
    reading = interpret(script)
    steps, fields, text = spent(reading)
    assert steps <= MAX_WORK + 70_000 and fields <= MAX_FIELDS + 70_000 and text <= MAX_TEXT + 70_000
    assert sum(len(c.fields) for c in reading.commands) <= MAX_FIELDS + 70_000
    [(line, message)] = stopped(reading)
    assert line >= 1
    assert any(f"more than {limit}" in message for limit in (MAX_WORK, MAX_FIELDS, MAX_TEXT))


def test_many_sourced_files_are_charged_as_text() -> None:
    big = ("#" + "x" * 99 + "\n") * 8000  # 800 kB of comments, few steps: five of them use up the text budget
    repo = Repo({"common.sh": big})
    reading = interpret("source common.sh\n" * 50 + LAUNCH, None, repo, "x.sh")
    assert len(repo.reads) <= MAX_TEXT // len(big) + 1
    [(line, message)] = stopped(reading)
    assert line == MAX_TEXT // len(big) + 1 and f"more than {MAX_TEXT} characters" in message


def test_a_budget_that_runs_out_in_a_sourced_file_names_it() -> None:
    repo = Repo({"lib.sh": fan_out(10).replace(LAUNCH, "")})
    reading = interpret("echo start\nsource lib.sh\n" + LAUNCH, None, repo, "x.sh")
    [(line, message)] = stopped(reading)
    assert line == 2 and "(in 'lib.sh')" in message


def test_bash_c_strings_are_read_once_on_the_same_budget() -> None:
    script = "V='python3 train.py " + "a " * 30_000 + "'\n" + 'bash -c "$V"\n' * 5000
    seconds = cpu(lambda: read_run(script, "x.sh"))
    reading = interpret(script)
    assert stopped(reading)
    assert sum(len(c.inner) for c in reading.commands) < 100
    assert seconds < 10  # each adapter read every string again, with a fresh budget: minutes


def test_a_long_run_of_reserved_words_is_read_in_linear_time() -> None:
    for word in ("then", "{"):
        script = f"{word} " * 200_000 + "\n" + LAUNCH
        assert cpu(lambda script=script: interpret(script)) < 10  # quadratic: a minute and more


def test_a_python_module_of_blank_lines_is_read_in_linear_time() -> None:
    """A docstring launch of itself, then blank lines and indented ones: each run was rescanned from each line."""
    head = '"""\npython examples/scripts/x.py --a 1\n"""\n'
    tail = "from trl import X\nfrom vllm import LLM\n@dataclass\nclass A:\n" + "    \n" * 50_000 + "LLM(model='m')\n"
    text = head + "\n" * 300_000 + tail
    assert cpu(lambda: read_file(text, "examples/scripts/x.py")) < 10  # quadratic: minutes


def test_case_patterns_on_many_lines_are_read_once() -> None:
    script = "case $X in\n" + "a b c\n" * 30_000 + "a) Y=1 ;;\nesac\n" + LAUNCH
    assert cpu(lambda: interpret(script)) < 10  # each line break added every word so far again: hours


def test_an_array_appended_to_grows_in_place_and_is_unknown_past_its_bound() -> None:
    small = interpret('A=(a)\nA+=(b)\nA+=(c d)\nrun "${A[@]}"\n')
    assert [f.value for f in small.commands[-1].fields] == ["run", "a", "b", "c", "d"]
    big = interpret("A=(" + "x " * 4000 + ")\n" + "A+=(y)\n" * 10_000 + 'run "${A[@]}"\n')
    assert big.arrays["A"] is None  # beyond MAX_ARRAY_ITEMS: unknown
    assert spent(big)[1] < MAX_ARRAY_ITEMS + 100  # no copy of the whole array at each append


def test_nested_defaults_are_read_again_only_so_often() -> None:
    script = ("X=" + "${a:-" * 32 + "x" + "}" * 32 + "\n") * 5000 + LAUNCH
    reading = interpret(script)
    assert cpu(lambda: interpret(script)) < 10
    [problem] = [p for p in reading.problems if f"more than {MAX_REREAD}" in p.message]
    assert 1 < problem.line < 5000


@pytest.mark.parametrize("spread", ["one-word", "many-words", "many-lines"])
def test_many_unset_variables_give_a_short_report(spread: str) -> None:
    names = [f"$V{i}" for i in range(3000)]
    if spread == "one-word":
        script = "python3 -m verl.trainer.main_ppo trainer.nnodes=1 data.x=" + "".join(names) + "\n"
    elif spread == "many-words":
        script = "python3 -m verl.trainer.main_ppo trainer.nnodes=1 " + " ".join(
            f"k{i}.x={n}" for i, n in enumerate(names)
        )
    else:
        script = "A=(" + "\n".join(f"k{i}.x={n}" for i, n in enumerate(names)) + ")\n"
        script += 'python3 -m verl.trainer.main_ppo trainer.nnodes=1 "${A[@]}"\n'
    run = read_run(script, "x.sh")
    unset = [p for p in run.problems if p.kind == "unset"]
    assert len(unset) == MAX_REPORTED_UNSET + 1
    assert "more uses of variables the script does not set are not listed" in unset[-1].message
    assert sum(len(p.message) for p in run.problems) < 20_000


def test_many_unset_variables_in_an_open_instruct_launch_give_a_short_report() -> None:
    args = " ".join(f'--k{i} "$V{i}"' for i in range(3000))
    run = read_run(f"python open_instruct/grpo_fast.py --num_learners_per_node 8 {args}\n", "x.sh")
    unset = [p for p in run.problems if p.kind == "unset"]
    assert run.framework == "open-instruct"
    assert len(unset) == MAX_REPORTED_UNSET + 1


def test_a_small_hostile_repository_takes_seconds_and_megabytes(tmp_path: Path) -> None:
    """Every hostile script of this file behind rows, through lint and inspect, in a fresh process."""
    scripts = {
        "fan.sh": fan_out(40),
        "split.sh": "A='" + "x " * 30_000 + "'\npython3 -m verl.trainer.main_ppo " + "$A " * 200 + "\n",
        "positional.sh": "\n".join(
            ['g0() { python3 -m verl.trainer.main_ppo "$@"; }']
            + [f'g{i}() {{ g{i - 1} "$@" "$@" "$@" "$@"; }}' for i in range(1, 8)]
            + ["g7 a b c d e f g h"]
        ),
        "reserved.sh": "then " * 200_000 + "\n" + LAUNCH,
        "inner.sh": "V='python3 train.py " + "a " * 30_000 + "'\n" + 'bash -c "$V"\n' * 5000,
    }
    folder = tmp_path / "examples" / "tuning" / "7b"
    folder.mkdir(parents=True)
    rows = []
    for name, text in scripts.items():
        (folder / name).write_text(text, encoding="utf-8")
        rows.append(
            f"  - tag: MIN\n    model: Qwen2.5-7B\n    task: GRPO\n    gpus: 8\n    device: H100\n    max_batch: 16\n"
            f"    train: fsdp\n    infer: vllm\n    script: examples/tuning/7b/{name}\n    contributor: Simon\n"
        )
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "7b.yaml").write_text("size: 7B\nentries:\n" + "".join(rows), encoding="utf-8")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    lint = subprocess.run(
        [sys.executable, "-m", "sphinx_rlresources", "lint", "--data", "data", "--root", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime < 10
    assert after.ru_maxrss < 500 * 1024  # kilobytes
    assert "internal error" not in lint.stderr
    for name in ("fan.sh:10", "positional.sh:9", "inner.sh:"):
        assert any(
            f"examples/tuning/7b/{name}" in line and "reading the script stopped" in line
            for line in lint.stdout.splitlines()
        ), (name, lint.stdout[-3000:])
    inspect = subprocess.run(
        [sys.executable, "-m", "sphinx_rlresources", "inspect", "examples/tuning/7b/fan.sh", "--root", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert "reading the script stopped" in inspect.stdout + inspect.stderr


# -- 4. recipe configs: each reference resolved once, merged in linear time, each parent read once ----


def adds(reference: str, count: int) -> str:
    """``${add:${add:R,R},R}...``: ``count`` references to R whose sum stays a small number."""
    text = reference
    for _ in range(count - 1):
        text = "${add:" + text + "," + reference + "}"
    return text


def test_references_that_fan_out_are_resolved_once_each(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = ["cluster:", "  gpus_per_node: ${k.v0}", "  num_nodes: 1", "k:"]
    lines += [f"  v{i}: '{adds(f'${{k.v{i + 1}}}', 20)}'" for i in range(6)] + ["  v6: 1"]
    calls = []
    original = layers.Merged._interpolate

    def counting(self: layers.Merged, key: str, text: str, depth: int, memo: Any) -> Any:
        calls.append(key)
        return original(self, key, text, depth, memo)

    monkeypatch.setattr(layers.Merged, "_interpolate", counting)
    run = read_config("\n".join(lines) + "\n", "recipe.yaml")
    assert run.gpus_per_node.value == 20**6  # the same answer as resolving every path: 20**6 leaves
    assert len(calls) < 200  # each (key, depth) once, per question asked


def test_a_reference_that_expands_past_its_bound_is_unknown() -> None:
    lines = ["cluster:", "  gpus_per_node: ${k.v0}", "  num_nodes: 1", "k:"]
    lines += [f"  v{i}: '" + f"${{k.v{i + 1}}}" * 20 + "'" for i in range(6)] + ["  v6: 1"]
    run = read_config("\n".join(lines) + "\n", "recipe.yaml")
    assert run.gpus_per_node.value is None


@pytest.mark.parametrize("nested", [False, True])
def test_merging_many_keys_takes_linear_time(nested: bool) -> None:
    keys = "".join(f"  k{i}: {i}\n" if nested else f"k{i}: {i}\n" for i in range(20_000))
    text = "cluster: {gpus_per_node: 8, num_nodes: 1}\n" + ("policy:\n" if nested else "") + keys
    assert len(text) > 250_000
    seconds = cpu(lambda: read_config(text, "recipe.yaml"))
    assert read_config(text, "recipe.yaml").gpus.value == 8
    assert seconds < 10  # quadratic: minutes


def test_merging_keeps_the_rules_of_replacement() -> None:
    merged = layers.Merged()
    merged.apply({"a.b": layers.Entry(1), "a.c": layers.Entry(2), "d": layers.Entry(3)}, [])
    merged.apply({"a": layers.Entry(4)}, [])  # a scalar replaces a whole mapping
    assert set(merged.entries) == {"a", "d"} and not merged.has("a.b")
    merged.apply({"d.e": layers.Entry(5)}, [])  # a mapping replaces a scalar
    assert set(merged.entries) == {"a", "d.e"} and merged.has("d")
    merged.apply({"d.f": layers.Entry(6)}, ["d"])  # _override_: true replaces the mapping
    assert set(merged.entries) == {"a", "d.f"}


def test_many_unreadable_parents_each_cover_only_what_came_since() -> None:
    parents = ", ".join(f"missing{i}.yaml" for i in range(3000))
    keys = "".join(f"k{i}: {i}\n" for i in range(3000))
    text = f"defaults: [{parents}]\ncluster: {{gpus_per_node: 8, num_nodes: 1}}\n{keys}"
    repo = Repo({})
    seconds = cpu(lambda: read_config(text, "recipe.yaml", repo))
    run = read_config(text, "recipe.yaml", repo)
    assert run.gpus_per_node.value == 8  # written after every parent: known
    assert seconds < 10


def test_an_unreadable_parent_covers_what_came_before_it() -> None:
    repo = Repo({"base.yaml": "cluster: {gpus_per_node: 8, num_nodes: 2}\n"})
    run = read_config("defaults: [base.yaml, gone.yaml, gone2.yaml]\npolicy: {model_name: m}\n", "r.yaml", repo)
    assert run.gpus_per_node.value is None and run.nodes.value is None  # gone.yaml may set them
    assert "gone.yaml" in run.gpus_per_node.written


def test_a_parent_named_many_times_is_read_once_and_said_once() -> None:
    parent = "cluster: {gpus_per_node: 8, num_nodes: 1}\n" + "".join(f"k{i}: {i}\n" for i in range(20))
    repo = Repo({"p.yaml": parent})
    run = read_config("defaults: [" + ", ".join(["p.yaml", "gone.yaml"] * 500) + "]\n", "r.yaml", repo)
    assert repo.reads.count("p.yaml") == 1 and repo.reads.count("gone.yaml") == 1
    assert len([p for p in run.problems if "gone.yaml" in p.message]) == 1


def test_parents_that_fan_out_stop_at_the_merge_budget() -> None:
    files = {f"p{d}.yaml": "defaults: [" + ", ".join([f"p{d + 1}.yaml"] * 10) + f"]\nx{d}: 1\n" for d in range(7)}
    files["p7.yaml"] = "cluster: {gpus_per_node: 8}\n"
    repo = Repo(files)
    seconds = cpu(lambda: read_config("defaults: [p0.yaml]\ncluster: {num_nodes: 1}\n", "r.yaml", Repo(files)))
    run = read_config("defaults: [p0.yaml]\ncluster: {num_nodes: 1}\n", "r.yaml", repo)
    assert len(repo.reads) == 8
    assert any(f"more than {inherit.MAX_MERGED} keys and layers" in p.message for p in run.problems)
    assert seconds < 10  # 10**7 merges unbounded


# -- 10. a row's env that makes the GPU count no count ------------------------------------------------

SCRIPT_ENV = """\
NGPUS=${NGPUS:-8}
NNODES=${NNODES:-1}
python3 -m verl.trainer.main_ppo \\
    actor_rollout_ref.rollout.name=vllm \\
    trainer.n_gpus_per_node=$NGPUS \\
    trainer.nnodes=$NNODES
"""


def env_row(env: dict[str, str]) -> Entry:
    return Entry(
        size="7B",
        tag="MIN",
        model="Qwen2.5-7B",
        task="GRPO",
        gpus=8,
        device="H100",
        max_batch=None,
        train="fsdp",
        infer="vllm",
        script="x.sh",
        contributor=Contributor("T"),
        source=SourceRef("d.yaml", 3, 5),
        env=env,
        field_marks={"env": (12, 10), "gpus": (7, 11)},
    )


@pytest.mark.parametrize("value", ["abc", "nan", "NaN", "1e308", "2.5", "-8", "0", "99999999999999999999", "8 GPUs"])
@pytest.mark.parametrize("name", ["NGPUS", "NNODES"])
def test_an_env_that_makes_a_gpu_count_no_count_is_reported_at_env(name: str, value: str) -> None:
    env = {name: value}
    found = cross_check(env_row(env), read_run(SCRIPT_ENV, "x.sh", env), "x.sh")
    [finding] = [d for d in found if d.subtype.value == "script_gpus"]
    assert (finding.line, finding.column) == (12, 10)
    assert "the row's env makes x.sh:" in finding.message and "which is not a count of" in finding.message
    assert "fix the value in env" in finding.message


@pytest.mark.parametrize("env", [{}, {"NGPUS": "8"}, {"NGPUS": "4", "NNODES": "2"}])
def test_an_env_with_real_counts_is_no_finding(env: dict[str, str]) -> None:
    found = cross_check(env_row(env), read_run(SCRIPT_ENV, "x.sh", env), "x.sh")
    assert [d for d in found if d.subtype.value == "script_gpus"] == []


def test_an_env_for_a_recipe_through_its_script_is_reported_too() -> None:
    recipe = "cluster: {gpus_per_node: 8, num_nodes: 1}\npolicy: {model_name: Qwen/Qwen2.5-7B}\n"
    script = "uv run examples/run_grpo_math.py --config examples/configs/r.yaml cluster.gpus_per_node=$N\n"
    repo = Repo({"examples/configs/r.yaml": recipe})
    run = read_run(script, "x.sh", {"N": "eight"}, repo)
    found = cross_check(env_row({"N": "eight"}), run, "x.sh")
    assert [d.line for d in found if d.subtype.value == "script_gpus"] == [12]


def test_the_documented_env_finding_is_what_lint_prints(tmp_path: Path) -> None:
    script = "examples/tuning/7b/qwen2.5-7b_grpo_8_h100_fsdp_vllm.sh"
    (tmp_path / script).parent.mkdir(parents=True)
    (tmp_path / script).write_text(
        "#!/bin/bash\nNGPUS=${NGPUS:-8}\npython3 -m verl.trainer.main_ppo \\\n    algorithm.adv_estimator=grpo \\\n"
        "    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B \\\n    actor_rollout_ref.rollout.name=vllm \\\n"
        "    trainer.n_gpus_per_node=$NGPUS \\\n    trainer.nnodes=1\n",
        encoding="utf-8",
    )
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "7b.yaml").write_text(
        "size: 7B\nentries:\n  - tag: MIN\n    model: Qwen2.5-7B\n    task: GRPO\n    gpus: 8\n    device: H100\n"
        f"    max_batch: 16\n    train: fsdp\n    infer: vllm\n    script: {script}\n    env: {{NGPUS: abc}}\n"
        "    contributor: Simon\n",
        encoding="utf-8",
    )
    documented = next(
        line.strip()
        for line in (Path(__file__).parents[1] / "docs" / "script-checks.rst").read_text("utf-8").splitlines()
        if "the row's env makes" in line
    )
    where, message = documented.split(": WARNING: ")
    lint = subprocess.run(
        [sys.executable, "-m", "sphinx_rlresources", "lint", "--data", "data", "--root", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert f"{where}: error: {message}" in lint.stdout.splitlines()


def test_an_env_that_makes_a_roles_gpu_count_no_count_is_reported_at_env() -> None:
    # The idiom of OpenRLHF's examples/scripts/train_ppo_llama_ray.sh: per-role counts as flags.
    script = (
        "N=${N:-4}\nray job submit -- python3 -m openrlhf.cli.train_ppo_ray --ref_num_nodes 1 "
        "--ref_num_gpus_per_node $N --actor_num_nodes 1 --actor_num_gpus_per_node $N --vllm_num_engines 2 "
        "--vllm_tensor_parallel_size 2 --colocate_all_models --pretrain Qwen/Qwen2.5-7B\n"
    )
    for value, findings in (("8", 0), ("x", 2), ("-1", 2)):
        run = read_run(script, "x.sh", {"N": value})
        found = [d for d in cross_check(env_row({"N": value}), run, "x.sh") if d.subtype.value == "script_gpus"]
        assert run.framework == "openrlhf" and len(found) == findings, value
        assert all(d.line == 12 and "_num_gpus_per_node=" in d.message for d in found)
