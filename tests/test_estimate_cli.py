"""``rlresources estimate``: output that adds up, flags that are bounded, and every documented example runs."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO

from sphinx_rlresources.cli.main import build_parser
from sphinx_rlresources.cli.main import main as rlresources


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = rlresources(["estimate", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def as_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    status, out, err = cli(capsys, *argv, "--format", "json")
    assert err == ""
    return status, json.loads(out)


def test_text_lists_every_term_and_each_headline_adds_up(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("--model", "Qwen2.5-7B", "--task", "PPO", "--gpus", "8", "--device", "H100", "--no-offload")
    status, out, _err = cli(capsys, *argv, "--gpu-memory-utilization", "0.3", "--no-free-cache-engine")
    _status, data = as_json(capsys, *argv, "--gpu-memory-utilization", "0.3", "--no-free-cache-engine")
    assert status == 0
    for heading in ("resident on each GPU in every moment", "training phase adds", "rollout phase adds", "host memory"):
        assert heading in out
    headlines = re.findall(
        r"(training|rollout) phase, per GPU: resident ([\d.]+) \+ phase ([\d.]+) \+ engine ([\d.]+) = ([\d.]+) GiB", out
    )
    assert len(headlines) == 2
    for phase, resident, own, engine, total in headlines:
        assert abs(float(resident) + float(own) + float(engine) - float(total)) <= 0.011
        key = "train" if phase == "training" else "rollout"
        assert abs(float(total) - data["expected"][f"{key}_gib"]) <= 0.006
    moment = data["expected"]["per_gpu"]["train"]
    assert moment["engine_gib"] > 0  # the engine keeps its claim while training (no sleep mode)
    listed = sum(t["gib"] for t in data["expected"]["resident"]) + sum(
        t["gib"] for m in data["expected"]["moments"] if m["name"] == moment["moment"] for t in m["terms"]
    )
    assert abs(listed - moment["total_gib"]) < 0.05  # every term is listed
    assert "verdict: fits (floor" in out and "limited by" in out


def test_json_keys_carry_their_unit(capsys: pytest.CaptureFixture[str]) -> None:
    status, data = as_json(capsys, "--model", "Qwen2.5-72B", "--device", "H100", "--offload", "--min-gpus")
    assert status == 0
    for key in ("floor_gib", "expected_gib", "host_gib", "device_memory_gib", "verdict", "limiting", "min_gpus",
                "min_gpus_floor", "assumptions", "floor", "expected", "params", "engine_claim_gib",
                "trainer_gib"):  # fmt: skip
        assert key in data, key

    def keys(value: object) -> list[str]:
        if isinstance(value, dict):
            return [k for k, v in value.items() for k in (k, *keys(v))]
        return [k for v in value for k in keys(v)] if isinstance(value, list) else []

    sizes = [k for k in keys(data) if k.endswith(("_gb", "gb")) or k in ("gib", "bytes")]
    assert sizes == ["gib"] * len(sizes)  # only the per-term "gib"; every other size ends in _gib
    assert data["min_gpus"] >= data["min_gpus_floor"] >= 2 and data["params"] == 72_706_203_648
    assert data["assumptions"]["prompt_length"] == {"value": 512, "assumed": True, "framework_default": False}


def test_min_gpus_for_qwen2_7b_full_grpo_with_verls_offload_is_at_least_two(capsys: pytest.CaptureFixture[str]) -> None:
    status, data = as_json(
        capsys, "--model", "Qwen2-7B", "--task", "GRPO", "--device", "H800", "--framework", "verl", "--offload",
        "--min-gpus",
    )  # fmt: skip
    assert status == 0 and data["min_gpus_floor"] >= 2 and data["min_gpus"] >= 2
    status, data = as_json(capsys, "--model", "Qwen2-7B", "--gpus", "1", "--device", "H800", "--framework", "verl",
                           "--offload")  # fmt: skip
    assert status == 1 and data["verdict"] == "does-not-fit" and data["limiting"]["moment"] == "the actor's update"


def test_an_impossible_run_is_status_1(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _err = cli(capsys, "--model", "Qwen2.5-72B", "--task", "GRPO", "--gpus", "1", "--device", "H100")
    assert status == 1 and "verdict: does-not-fit" in out


def test_likely_oom_is_status_0_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("--model", "Qwen2.5-7B", "--task", "GRPO-LoRA", "--gpus", "1", "--device", "H100")
    status, data = as_json(capsys, *argv, "--micro-batch", "100", "--gpu-memory-utilization", "0.2")
    assert status == 0 and data["verdict"] == "likely-oom" and data["floor_gib"] <= data["device_memory_gib"]
    _status, data = as_json(
        capsys, *argv, "--micro-batch", "100", "--gpu-memory-utilization", "0.2", "--mean-prompt-length", "110",
        "--mean-response-length", "230",
    )  # fmt: skip
    assert data["verdict"] in ("fits", "tight")  # gsm8k's real lengths: the batch the tuning page found


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--model", "Qwen9-1T", "--device", "H100"], "--model 'Qwen9-1T' is neither a bundled model"),
        (["--model", "Qwen2.5-7B", "--device", "TPU"], "--device 'TPU' is not one of"),
        (["--model", "Qwen2.5-7B"], "--device is needed"),
        (["--device", "H100"], "give --model"),
        (["--row", "data/7b.yaml"], "must be FILE:LINE"),
        (["--model", "Qwen2.5-7B", "--device", "H100", "--task", "XPO"], "the tasks are GRPO, PPO"),
        (["--model", "Qwen2.5-7B", "--device", "H100", "--gpus", "1e400"], "'1e400' is not a whole number"),
        (["--model", "Qwen2.5-7B", "--device", "H100", "--gpus", "0"], "'0' is outside 1..1,048,576 for --gpus"),
        (["--model", "Qwen2.5-7B", "--device", "X", "--device-memory", "1e400"], "'1e400' is not a number above 0"),
        (["--model", "Qwen2.5-7B", "--device", "H100", "--host-memory", "nan"], "'nan' is not a number above 0"),
        (["--model", "Qwen2.5-7B", "--device", "H100", "--gpu-memory-utilization", "1.5"], "at most 1"),
        (["--model", "Qwen2.5-7B", "--device", "H100", "--micro-batch", "9" * 30], "is outside 1..10,000,000"),
        (["--model", "Qwen2.5-7B", "--device", "H100", "--lora-targets", "q_proj,evil"], "names 'evil'"),
        (["--model", "Qwen2.5-7B", "--device", "H100", "--rollout-tp", "3"], "--rollout-tp 3 must divide"),
        (["--row", "data/7b.yaml:5", "--gpus", "4"], "--gpus cannot be given with it"),
    ],
)
def test_bad_flags_are_status_2_with_the_field_and_bound(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str], message: str
) -> None:
    monkeypatch.chdir(REPO)
    status, _out, err = cli(capsys, *argv)
    assert status == 2 and message in err and "Traceback" not in err


def test_any_device_with_device_memory(capsys: pytest.CaptureFixture[str]) -> None:
    status, data = as_json(capsys, "--model", "Qwen2.5-0.5B", "--gpus", "1", "--device", "MyCard", "--device-memory",
                           "12")  # fmt: skip
    assert status == 0 and data["device"] == "MyCard" and data["device_memory_gib"] == 12


def test_a_row_is_estimated_with_its_scripts_settings(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    status, data = as_json(capsys, "--row", "data/70b.yaml:31")  # a line inside the row
    assert status == 0 and data["model"] == "Qwen2.5-72B" and data["gpus"] == 8
    read = {"assumed": False, "framework_default": False}  # read from the script
    assert data["assumptions"]["param_offload"] == {"value": True, **read}
    assert data["assumptions"]["memory_fraction"] == {"value": 0.6, **read}


def test_row_and_model_assume_the_same_when_nothing_says(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    text = (REPO / "data" / "7b.yaml").read_text("utf-8").replace("examples/tuning/7b/", "examples/gone/")
    (data_dir / "7b.yaml").write_text(text, "utf-8")  # its scripts are missing: every setting is unsaid
    monkeypatch.chdir(tmp_path)
    status, out, err = cli(capsys, "--row", "data/7b.yaml:6", "--format", "json")
    row = json.loads(out)
    assert status == 0
    assert err.splitlines() == [  # said where lint says it, and the estimate goes on without the script
        "data/7b.yaml:14:13: warning: script 'examples/gone/qwen2-7b_grpo_2_h800_fsdp_vllm.sh' does not exist under "
        "the repository root; check the path, or add the script [rlresources.script_missing]",
        "rlresources: note: the estimate takes every setting as a silent script would",
    ]
    _status, flags = as_json(capsys, "--model", "Qwen2-7B", "--task", "GRPO", "--gpus", "2", "--device", "H800")
    assert row["assumptions"] == flags["assumptions"]
    assert row["floor_gib"] == flags["floor_gib"] and row["expected_gib"] == flags["expected_gib"]


def test_a_line_past_the_end_of_the_data_file_is_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    lines = len((REPO / "data" / "7b.yaml").read_text("utf-8").splitlines())
    status, out, err = cli(capsys, "--row", f"data/7b.yaml:{lines + 1}")
    assert (status, out) == (2, "")
    assert err.strip() == f"rlresources: error: --row: data/7b.yaml has {lines} lines; line {lines + 1} is past its end"


# -- the docs: every flag has an example, and every example runs ------------------------------------


def documented_examples() -> list[list[str]]:
    text = "".join(
        (REPO / "docs" / name).read_text("utf-8") for name in ("estimator.rst", "estimator-reference.rst", "cli.rst")
    )
    lines = re.findall(r"^\s*\$ (rlresources estimate .*)$", text, re.M)
    return [shlex.split(re.split(r" [|>] ", line)[0], comments=True)[2:] for line in lines]


def test_every_flag_has_a_documented_example() -> None:
    parser = build_parser()
    estimate = next(a for a in parser._subparsers._group_actions if "estimate" in a.choices).choices["estimate"]  # type: ignore[union-attr]
    flags = {f for action in estimate._actions for f in action.option_strings if f.startswith("--")} - {"--help"}
    used = {word.split("=")[0] for example in documented_examples() for word in example if word.startswith("--")}
    assert sorted(flags - used) == []


@pytest.mark.parametrize("argv", documented_examples(), ids=lambda argv: " ".join(argv)[:60])
def test_every_documented_example_runs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, argv: list[str]
) -> None:
    monkeypatch.chdir(REPO)
    if any(a.endswith("config.json") for a in argv):  # the docs' config.json example, written where it says
        monkeypatch.chdir(tmp_path)
        shutil.copytree(REPO / "data", tmp_path / "data")
        (tmp_path / "path" / "to").mkdir(parents=True)
        config = {"model_type": "qwen2", "hidden_size": 3584, "num_hidden_layers": 28, "num_attention_heads": 28,
                  "num_key_value_heads": 4, "intermediate_size": 18944, "vocab_size": 152064}  # fmt: skip
        (tmp_path / "path" / "to" / "config.json").write_text(json.dumps(config), "utf-8")
    if "--row" in argv and not (REPO / argv[argv.index("--row") + 1].rpartition(":")[0]).exists():
        pytest.skip("a row of another repository: tests/test_docs_console.py runs it there")
    status, out, err = cli(capsys, *argv)
    assert status in (0, 1) and ("verdict" in out or ("--suggest" in argv and "with them: fits" in out))
    assert all(line.startswith("rlresources: note: ") for line in err.splitlines())  # a name read as another


def test_engine_none_claims_nothing_and_refuses_an_engines_settings(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("--model", "Qwen2.5-0.5B", "--gpus", "1", "--device", "H100")
    _status, engine = as_json(capsys, *argv)
    status, alone = as_json(capsys, *argv, "--engine", "none")
    assert status == 0
    assert engine["engine_claim_gib"] > 0 and alone["engine_claim_gib"] == 0
    assert alone["assumptions"]["engine"] == {"value": "none", "assumed": False, "framework_default": False}
    assert all(t["phase"] != "engine" for m in alone["expected"]["moments"] for t in m["terms"])
    sleep = (("--no-free-cache-engine",), ("--free-cache-engine",))
    every = (("--rollout-tp", "1"), ("--gpu-memory-utilization", "0.5"), ("--max-num-seqs", "8"), ("--fp8-rollout",))
    for flag in (*every, *sleep, ("--rollout-gpus", "1")):
        status, out, err = cli(capsys, *argv, "--engine", "none", *flag)
        assert status == 2 and out == ""
        said = "--[no-]free-cache-engine" if flag[0].endswith("free-cache-engine") else flag[0]
        assert f"{said} describes a rollout engine, but the run has none (--engine none)" in err


def test_framework_trl_takes_trls_defaults_and_names_them(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("--model", "Qwen3-1.7B", "--gpus", "1", "--device", "A100-80G")
    status, trl = as_json(capsys, *argv, "--framework", "trl")
    _status, plain = as_json(capsys, *argv)
    assert status == 0
    assert trl["framework"] == "trl" and plain["framework"] is None
    said = trl["assumptions"]
    assert said["engine"] == {"value": "none", "assumed": False, "framework_default": True}
    assert said["param_offload"] == {"value": False, "assumed": False, "framework_default": True}
    assert plain["assumptions"]["engine"]["value"] == "vllm" and plain["assumptions"]["param_offload"]["value"]
    assert trl["engine_claim_gib"] == 0
    status, _out, err = cli(capsys, *argv, "--framework", "trl", "--rollout-gpus", "1")
    assert status == 2 and "(--framework trl's default: no engine); add --engine vllm" in err


def test_trls_colocated_vllm_stays_awake_unless_told_to_sleep(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("--model", "Qwen2.5-1.5B", "--gpus", "4", "--device", "H100", "--framework", "trl", "--engine", "vllm")
    status, awake = as_json(capsys, *argv, "--gpu-memory-utilization", "0.4")
    _status, asleep = as_json(capsys, *argv, "--gpu-memory-utilization", "0.4", "--free-cache-engine")
    assert status == 0
    said = awake["assumptions"]["free_cache_engine"]
    assert said == {"value": False, "assumed": False, "framework_default": True}
    assert asleep["assumptions"]["free_cache_engine"]["framework_default"] is False

    def update(data: dict[str, Any]) -> set[str]:
        moment = next(m for m in data["expected"]["moments"] if m["name"] == "the actor's update")
        return {t["phase"] for t in moment["terms"]}

    assert "engine" in update(awake) and "engine" not in update(asleep)
    assert awake["expected_gib"] > asleep["expected_gib"]


def test_the_text_names_the_settings_a_frameworks_defaults_gave(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("--model", "Qwen2.5-7B", "--gpus", "8", "--device", "H100", "--framework", "verl")
    _status, out, _err = cli(capsys, *argv)
    assert "\nverl's defaults (not given; the floor takes the least memory where a release may differ):\n" in out
    listed = " ".join(out.split("\nverl's defaults (not given", 1)[1].split("\nassumed (not given", 1)[0].split())
    for setting in ("param_offload=False", "offload_mode=phase", "memory_fraction=0.5", "param_bytes=4"):
        assert setting in listed
    # a setting given is neither a default nor assumed; without --framework nothing is a framework's default
    _status, out, _err = cli(capsys, *argv, "--gpu-memory-utilization", "0.3", "--offload")
    named = out.split("verl's defaults", 1)[1].split("assumed (not given")[0]
    assert "memory_fraction" not in named and not re.search(r"(?<![a-z_])param_offload=", named)
    assert "ref_param_offload=False" in named  # --offload says nothing of the reference's
    _status, out, _err = cli(capsys, *argv[:-2])
    assert "'s defaults (not given" not in out
    _status, data = as_json(capsys, *argv)
    assert data["assumptions"]["memory_fraction"] == {"value": 0.5, "assumed": False, "framework_default": True}


def test_framework_prime_rl_keeps_fp32_parameters_and_the_states_in_host_memory(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ("--model", "Qwen3-8B", "--gpus", "8", "--device", "H100", "--rollout-gpus", "2")
    status, prime = as_json(capsys, *argv, "--framework", "prime-rl")
    assert status == 0
    said = prime["assumptions"]
    assert said["param_bytes"] == {"value": 4, "assumed": False, "framework_default": True}
    assert said["optimizer_offload"] == {"value": True, "assumed": False, "framework_default": True}
    assert said["memory_fraction"]["value"] == 0.9
    resident = {t["name"] for t in prime["expected"]["resident"]}
    assert "actor parameters (fp32, sharded)" in resident
    assert not any(name.startswith("optimizer states") for name in resident)


def framework_defaults(
    capsys: pytest.CaptureFixture[str], framework: str
) -> tuple[tuple[str, ...], dict[str, Any], dict[str, Any]]:
    """Qwen2.5-7B on 8 H100s with ``--framework``: the argv, the JSON, and the settings its defaults gave."""
    argv = ("--model", "Qwen2.5-7B", "--gpus", "8", "--device", "H100", "--framework", framework)
    status, data = as_json(capsys, *argv)
    assert status == 0
    said = {name: entry["value"] for name, entry in data["assumptions"].items() if entry["framework_default"]}
    return argv, data, said


def test_framework_openrlhf_gives_its_argparse_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    # OpenRLHF/OpenRLHF@3c3be62 openrlhf/cli/train_ppo_ray.py: --ds.zero_stage 2, --ds.adam_offload and
    # --actor.gradient_checkpointing_enable off, --vllm.gpu_memory_utilization 0.95, --vllm.enable_sleep off
    argv, data, said = framework_defaults(capsys, "openrlhf")
    assert said == {
        "param_offload": False,
        "optimizer_offload": False,
        "ref_param_offload": False,
        "offload_mode": "compute",
        "gradient_checkpointing": False,
        "memory_fraction": 0.95,
        "free_cache_engine": False,
        "zero_stage": 2,
    }
    # the floor keeps the least memory a release may have: every state sharded, offload on
    status, floor = as_json(capsys, *argv, "--offload")
    assert status == 0 and floor["floor"]["peak_gib"] <= data["floor"]["peak_gib"]


def test_framework_nemo_rl_gives_its_base_configs_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    # NVIDIA-NeMo/RL@7ea279a examples/configs/grpo_math_1B.yaml: dtensor_cfg.cpu_offload False,
    # vllm_cfg.gpu_memory_utilization 0.6, generation colocated (moved off the GPU to generate)
    _argv, data, said = framework_defaults(capsys, "nemo-rl")
    assert said == {
        "param_offload": True,
        "optimizer_offload": True,
        "offload_mode": "phase",
        "memory_fraction": 0.6,
        "param_bytes": 4,
    }
    assert data["expected"]["resident"] == []  # nothing of the trainer's stays through generation
    generation = next(m for m in data["expected"]["moments"] if m["name"] == "generation")
    assert [t["phase"] for t in generation["terms"]] == ["engine", "runtime"]


def test_the_output_says_when_the_expected_peak_takes_the_maximum_lengths(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("--model", "Qwen2.5-7B", "--gpus", "8", "--device", "H100")
    status, out, _err = cli(capsys, *argv)
    assert status == 0 and "the expected peak, every sequence at its maximum length (no mean given)." in out
    status, data = as_json(capsys, *argv)
    assert data["expected_lengths"] == "maximum"
    status, data = as_json(capsys, *argv, "--mean-prompt-length", "100", "--mean-response-length", "300")
    assert data["expected_lengths"] == "stated"
    # padded batches hold the maximum lengths whatever the means: those are the stated lengths
    status, out, _err = cli(capsys, *argv, "--keep-padding")
    assert "the expected peak, the stated lengths." in out
