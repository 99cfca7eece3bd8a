"""``rlresources estimate --suggest``: settings that fit by the verdict's own rule, as the framework's own keys.

The promises (issue 37, item 5): applying a suggestion gives ``fits``; its GPUs are what
``--min-gpus`` answers for it; the keys printed are the ones the framework's reader reads
(the overrides are written into the script and read back); the search's one assumption,
a verdict monotone in the batch, holds on the seed rows and the published runs.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO
from framework_fixtures import FIXTURES, TreeFiles

from sphinx_rlresources.cli.main import main as rlresources
from sphinx_rlresources.core import plausibility, rowscript
from sphinx_rlresources.core.loader import load_dataset
from sphinx_rlresources.estimator.architectures import bundled
from sphinx_rlresources.estimator.devices import device_memory
from sphinx_rlresources.estimator.fromscript import Row, plan_for_row
from sphinx_rlresources.estimator.memory import Result, estimate, minimum_gpus
from sphinx_rlresources.estimator.plan import Plan
from sphinx_rlresources.estimator.suggest import FITS, Searched, Suggestion, largest, suggest
from sphinx_rlresources.scripts.frameworks import override_keys, read_file
from sphinx_rlresources.scripts.run import Run

sys.path.insert(0, str(REPO / "benchmarks"))
from estimator_validation import checked

POINTS = REPO / "benchmarks" / "memory_points.csv"


@cache
def seed_results() -> list[tuple[str, Result, Run]]:
    """Every seed row of data/ with its script's settings, estimated as ``--row`` estimates it."""
    dataset = load_dataset(REPO / "data", REPO)
    found = []
    for entry in dataset.entries:
        run = rowscript.row_script(entry.script, entry.script_ref, REPO, entry.env).run or Run()
        result = plausibility.estimate_row(entry, run)
        if result is not None:
            found.append((f"{entry.source.path}:{entry.source.line}", result, run))
    return found


@cache
def point_results() -> list[tuple[str, Result, Run]]:
    return [(c.point.id, c.result, c.point.run) for c in checked(POINTS)]


def every_result() -> list[tuple[str, Result, Run]]:
    return [*seed_results(), *point_results()]


def test_there_are_seed_rows_and_published_runs_to_check() -> None:
    assert len(seed_results()) >= 10 and len(point_results()) >= 50


def _batch_setting(plan: Plan) -> str:
    return "max_token_len_per_gpu" if plan.dynamic_batch else "micro_batch_per_gpu"


def test_the_verdict_is_monotone_in_the_batch_on_every_seed_row_and_published_run() -> None:
    """The bisection's assumption: once a batch does not fit, no larger one does (checked value by value)."""
    checked_any = 0
    for name, result, _run in every_result():
        setting = _batch_setting(result.plan)
        values = [2**k for k in range(0, 21)] if setting == "max_token_len_per_gpu" else list(range(1, 257))
        seen_misfit = None
        for value in values:
            ok = estimate(result.arch, replace(result.plan, **{setting: value})).verdict == FITS
            if not ok and seen_misfit is None:
                seen_misfit = value
            assert not (ok and seen_misfit is not None), f"{name}: {setting}={value} fits after {seen_misfit} did not"
            checked_any += 1
    assert checked_any > 10_000


@pytest.mark.parametrize("name", [n for n, _r, _u in every_result()])
def test_the_suggestion_fits_and_its_gpus_are_what_min_gpus_answers(name: str) -> None:
    result, run = next((r, u) for n, r, u in every_result() if n == name)
    keys = override_keys(run)
    found = suggest(result.arch, result.plan, None if keys is None else frozenset(keys.keys))
    assert found is not None, name
    assert found.result.verdict == FITS and estimate(result.arch, found.plan).verdict == FITS
    fewest = minimum_gpus(result.arch, found.plan)
    assert fewest is not None and fewest[0] == found.gpus
    assert estimate(result.arch, found.plan.with_gpus(found.gpus)).verdict == FITS
    assert found.gpus <= found.plan.gpus
    if keys is not None:  # only what the framework can be told
        assert {s.name for s in found.settings} <= set(keys.keys)


def test_bisection_finds_the_boundary_and_reports_a_value_that_fits_again() -> None:
    assert largest(lambda n: n <= 37, 1, 4096) == Searched(37, False, None)
    assert largest(lambda n: n <= 5000, 1, 4096) == Searched(4096, True, None)
    assert largest(lambda n: n == 1, 1, 4096) == Searched(1, False, None)
    odd = largest(lambda n: n <= 10 or n == 4096, 1, 4096)  # not monotone: the cap fits again
    assert (odd.value, odd.above) == (10, 4096)
    calls: list[int] = []
    largest(lambda n: calls.append(n) is None and n <= 1000, 1, 1 << 22)
    assert len(calls) < 40  # doubling then bisection, not a walk


def test_only_what_is_needed_is_suggested() -> None:
    """Qwen2.5-72B on 8 H100 without offload cannot fit (floor 141.7 GiB); with verl's keys the suggestion takes
    the parameters' offload, not the optimizer's, and the fewest GPUs that then hold it."""
    arch = bundled("Qwen2.5-72B")
    assert arch is not None
    run = Run(framework="verl")
    plan = plan_for_row(Row(arch.name, None, "", "GRPO", 8, "fsdp", "vllm"), run, "H100", device_memory("H100") or 0)
    plan = replace(plan, param_offload=False, optimizer_offload=False, memory_fraction=0.5)
    assert estimate(arch, plan).verdict == "does-not-fit"
    found = suggest(arch, plan, frozenset((override_keys(run) or pytest.fail()).keys))
    assert found is not None
    names = {s.name: s.value for s in found.settings}
    assert names.get("param_offload") is True and "optimizer_offload" not in names
    assert found.plan.gpus > 8 and found.gpus == found.plan.gpus
    assert estimate(arch, replace(found.plan, param_offload=False)).verdict != FITS  # it was needed


def test_a_run_that_fits_with_everything_on_the_gpu_is_told_no_offload() -> None:
    arch = bundled("Qwen2.5-0.5B")
    assert arch is not None
    plan = Plan("GRPO", 8, "H100", device_memory("H100") or 0, param_offload=False, optimizer_offload=False)
    found = suggest(arch, plan)
    assert found is not None and not {"param_offload", "optimizer_offload"} & {s.name for s in found.settings}
    assert found.plan.micro_batch_per_gpu > 1


def test_nothing_fits_is_none() -> None:
    arch = bundled("DeepSeek-V3")
    assert arch is not None
    plan = Plan("GRPO", 1, "tiny", 1.0)
    assert suggest(arch, plan) is None


# -- the framework's own keys, read back ------------------------------------------------------------


def _plan(run: Run, model: str, task: str, gpus: int, device: str = "H100") -> tuple[Any, Plan]:
    arch = bundled(model)
    assert arch is not None
    row = Row(arch.name, None, "", task, gpus, run.train_backend.value or "fsdp", "vllm")
    return arch, plan_for_row(row, run, device, device_memory(device) or 0)


def _read(framework: str, path: str, text: str) -> Run:
    return read_file(text, path, None, TreeFiles(FIXTURES / framework))


def _insert_after_launch(text: str, marker: str, lines: list[str]) -> str:
    """Each override replacing the script's own value, or added to the launch line (the one holding ``marker``)."""
    for line in lines:
        key, _sep, value = line.partition("=") if "=" in line else line.partition(" ")
        if not value:  # a switch: on when present
            if re.search(rf"{re.escape(key)}(?![\w.])", text):
                continue
        else:
            pattern = re.compile(rf"(?<![\w.]){re.escape(key)}(=|[ \t]+)[^\s\\]+")
            if pattern.search(text):
                text = pattern.sub(lambda _m, line=line: line, text, count=1)
                continue
        start = re.search(rf"^[^#\n]*{re.escape(marker)}", text, re.M)
        assert start is not None, marker
        end = text.index("\n", start.start())
        head = text[:end].rstrip()
        continued = head.endswith("\\")
        text = f"{head.removesuffix(chr(92)).rstrip()} {line}{' ' + chr(92) if continued else ''}{text[end:]}"
    return text


def _suggested(run: Run, model: str, task: str, gpus: int) -> tuple[Any, Suggestion, list[str]]:
    keys = override_keys(run)
    assert keys is not None
    arch, plan = _plan(run, model, task, gpus)
    found = suggest(arch, plan, frozenset(keys.keys))
    assert found is not None
    lines = [line for s in found.settings for line in keys.lines(s.name, s.value)]
    return arch, found, lines


@pytest.mark.parametrize(
    ("framework", "path", "marker", "model", "task", "gpus"),
    [
        ("verl", "examples/tuning/7b/qwen2-7b_grpo_2_h800_fsdp_vllm.sh", "main_ppo", "Qwen2-7B", "GRPO", 2),
        ("verl", "examples/grpo_trainer/run_qwen3_8b_fsdp.sh", "main_ppo", "Qwen3-8B", "GRPO", 8),
        ("openrlhf", "examples/scripts/train_ppo_hybrid.sh", "train_ppo_ray", "Llama-3.1-8B", "PPO", 8),
        ("openrlhf", "examples/scripts/train_ppo_flat.sh", "train_ppo_ray", "Llama-3.1-8B", "PPO", 8),
    ],
)
def test_the_overrides_written_into_the_script_read_back_as_the_suggestion(
    framework: str, path: str, marker: str, model: str, task: str, gpus: int
) -> None:
    text = (FIXTURES / framework / path).read_text("utf-8")
    run = _read(framework, path, text)
    arch, found, lines = _suggested(run, model, task, gpus)
    if framework == "openrlhf":  # the dialect the script uses
        flat = "flat" in path
        assert all(("." in line.split()[0]) != flat for line in lines), lines
    again = _read(framework, path, _insert_after_launch(text, marker, lines))
    for setting in found.settings:
        said = getattr(again, setting.name).value
        assert said == setting.value or (setting.name == "memory_fraction" and abs(said - setting.value) < 1e-9), (
            setting,
            said,
        )
    _arch, plan = _plan(again, model, task, found.plan.gpus)
    assert estimate(arch, plan).verdict == FITS


def test_nemo_rls_recipe_keys_read_back_through_a_launch_command() -> None:
    recipe = "examples/configs/recipes/llm/grpo-qwen2.5-7b-1n8g-fsdp2tp1.yaml"
    run = _read("nemorl", recipe, (FIXTURES / "nemorl" / recipe).read_text("utf-8"))
    arch, found, lines = _suggested(run, "Qwen2.5-7B", "GRPO", 8)
    assert all(": " in line and line.startswith("policy.") for line in lines), lines
    hydra = " ".join(line.replace(": ", "=") for line in lines)
    launch = f"uv run examples/run_grpo.py --config {recipe} {hydra}\n"
    again = _read("nemorl", "launch.sh", launch)
    for setting in found.settings:
        assert getattr(again, setting.name).value == setting.value, setting
    _arch, plan = _plan(again, "Qwen2.5-7B", "GRPO", 8)
    assert estimate(arch, plan).verdict == FITS


def test_an_engine_that_keeps_its_claim_is_told_to_sleep_only_where_that_is_needed() -> None:
    """OpenRLHF's engines keep their claim unless ``--vllm.enable_sleep`` (its default): on the actor's GPUs
    that claim sits beside the update, and sleeping gives it back; an engine of its own GPUs is never told."""
    run = Run(framework="openrlhf")
    keys = override_keys(run)
    assert keys is not None and keys.lines("free_cache_engine", True) == ["--vllm.enable_sleep"]
    arch, plan = _plan(run, "Qwen2.5-7B", "GRPO", 8)
    plan = replace(plan, memory_fraction=0.6, micro_batch_per_gpu=4, response_length=4096)
    assert plan.colocated and not plan.free_cache_engine
    found = suggest(arch, plan, frozenset(keys.keys))
    assert found is not None
    assert ("free_cache_engine", True, False) in [(s.name, s.value, s.was) for s in found.settings]
    assert estimate(arch, replace(found.plan, free_cache_engine=False)).verdict != FITS  # it was needed
    small = suggest(arch, replace(plan, micro_batch_per_gpu=1, response_length=256, memory_fraction=0.3))
    assert small is not None and "free_cache_engine" not in {s.name for s in small.settings}
    apart = suggest(arch, replace(plan, rollout_gpus=2), frozenset(keys.keys))
    assert apart is not None and "free_cache_engine" not in {s.name for s in apart.settings}


def test_openrlhf_switches_are_written_alone_and_only_when_on() -> None:
    keys = override_keys(Run(framework="openrlhf"))
    assert keys is not None
    assert keys.lines("optimizer_offload", True) == ["--ds.adam_offload"]
    assert keys.lines("optimizer_offload", False) == []
    assert keys.lines("micro_batch_per_gpu", 4) == ["--train.micro_batch_size 4"]
    assert "param_offload" not in keys.keys  # OpenRLHF never offloads the trained parameters


# -- the command ----------------------------------------------------------------------------------


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = rlresources(["estimate", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_suggest_and_min_gpus_agree_through_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    base = ("--model", "Qwen2.5-72B", "--task", "GRPO", "--device", "H100", "--gpus", "8", "--framework", "verl")
    status, out, err = cli(capsys, *base, "--no-offload", "--suggest", "--format", "json")
    assert status == 0 and err == ""
    data = json.loads(out)["suggest"]
    value = {s["setting"]: s["value"] for s in data["settings"]}
    assert data["fits"] and data["verdict"] == "fits" and data["framework"] == "verl"
    assert "actor_rollout_ref.actor.fsdp_config.param_offload=true" in data["overrides"]
    flags = ["--micro-batch", str(value["micro_batch_per_gpu"]), "--log-prob-micro-batch",
             str(value["log_prob_micro_batch_per_gpu"]), "--gpu-memory-utilization", str(value["memory_fraction"]),
             "--offload"]  # fmt: skip
    status, out, _err = cli(capsys, *base, *flags, "--min-gpus", "--format", "json")
    assert json.loads(out)["min_gpus"] == data["gpus"]
    assert [s["setting"] for s in data["settings"]][-2:] == ["gpus_per_node", "nodes"]


def test_text_names_the_framework_or_says_the_names_are_the_estimators(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _err = cli(capsys, "--model", "Qwen2.5-7B", "--device", "H100", "--suggest")
    assert status == 0
    assert "in the estimator's own names (no framework's adapter read this run)" in out
    assert re.search(r"^  micro_batch_per_gpu=\d+$", out, re.M)
    status, out, _err = cli(capsys, "--model", "Qwen2.5-7B", "--device", "H100", "--framework", "verl", "--suggest")
    assert "as verl's Hydra overrides (ready to paste)" in out
    assert re.search(r"^  actor_rollout_ref\.actor\.ppo_micro_batch_size_per_gpu=\d+$", out, re.M)
    assert "fewest GPUs with them:" in out


def test_nothing_fits_exits_with_findings_and_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("--model", "DeepSeek-V3", "--device", "card", "--device-memory", "1", "--gpus", "1", "--suggest")
    status, out, err = cli(capsys, *argv)
    assert status == 1 and "nothing fits" in out and err == ""
    status, out, _err = cli(capsys, *argv, "--format", "json")
    assert status == 1 and json.loads(out)["suggest"] == {
        "fits": False,
        "why": json.loads(out)["suggest"]["why"],
        "settings": [],
        "gpus": None,
    }


def test_a_row_takes_suggest_and_min_gpus(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from helpers import working_in

    with working_in(REPO):
        status, out, err = cli(capsys, "--row", "data/7b.yaml:5", "--suggest", "--min-gpus", "--format", "json")
    assert status == 0, err
    data = json.loads(out)
    assert data["suggest"]["framework"] == "verl" and data["suggest"]["verdict"] == "fits"
    assert data["min_gpus"] is not None


def test_bad_input_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    status, _out, err = cli(capsys, "--suggest")
    assert status == 2 and "give --model (with --device), or --row FILE:LINE" in err and "Traceback" not in err
    status, _out, err = cli(capsys, "--row", "data/7b.yaml:5", "--suggest", "--micro-batch", "4")
    assert status == 2 and "--micro-batch cannot be given with it" in err


def test_verl_is_told_the_same_batch_for_the_critic_and_the_reference_it_counts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The estimate counts one micro-batch (or token budget) for every pass: verl reads one key per pass."""
    argv = ("--model", "Qwen2.5-7B", "--task", "PPO", "--device", "H100", "--framework", "verl", "--kl")
    _status, out, _err = cli(capsys, *argv, "--suggest", "--format", "json")
    lines = json.loads(out)["suggest"]["overrides"]
    value = next(line.split("=")[1] for line in lines if line.startswith("actor_rollout_ref.actor.ppo_micro"))
    assert f"critic.ppo_micro_batch_size_per_gpu={value}" in lines
    assert any(line.startswith("actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=") for line in lines)
    _status, out, _err = cli(capsys, *argv[:3], "GRPO", *argv[4:-1], "--suggest", "--format", "json")
    assert not any(
        line.startswith(("critic.", "actor_rollout_ref.ref.")) for line in json.loads(out)["suggest"]["overrides"]
    )
