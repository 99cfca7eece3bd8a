"""The estimator: exact counts, the monotone laws of a lower bound, the command, the check and the directive."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sphinx_rlresources.cli.main import main as rlresources
from sphinx_rlresources.core.loader import load_dataset
from sphinx_rlresources.core.model import Contributor, Entry, SourceRef
from sphinx_rlresources.core.plausibility import check_row, estimate_row
from sphinx_rlresources.estimator.architectures import BUNDLED, ConfigError, bundled, by_size, from_config
from sphinx_rlresources.estimator.devices import DEVICES, device_memory
from sphinx_rlresources.estimator.memory import Plan, estimate, minimum_gpus

REPO = Path(__file__).resolve().parent.parent

# -- exact arithmetic ------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_every_bundled_model_has_its_published_parameter_count(name: str) -> None:
    arch = BUNDLED[name]
    assert arch.params() == arch.published


def test_the_counts_the_issue_names() -> None:
    model = bundled("Qwen/Qwen2.5-7B-Instruct")
    assert model is not None and model.params() == 7_615_616_512
    moe = bundled("Qwen3-30B-A3B")
    assert moe is not None and moe.params(active=True) == 3_353_032_704  # "A3B": 3.3B active


@pytest.mark.parametrize(
    ("name", "tp", "expected"),
    [
        ("Qwen2.5-7B", 1, 2 * 28 * 4 * 128 * 2),  # 57,344: 2 * layers * kv_heads * head_dim * bf16
        ("Qwen2.5-7B", 2, 2 * 28 * 2 * 128 * 2),  # the 4 KV heads split over 2 GPUs
        ("Qwen2.5-7B", 8, 2 * 28 * 1 * 128 * 2),  # more GPUs than KV heads: one head each
        ("Llama-3.1-70B", 1, 2 * 80 * 8 * 128 * 2),
        ("DeepSeek-V3", 1, 61 * (512 + 64) * 2),  # latent attention: one compressed vector per layer
        ("DeepSeek-V3", 8, 61 * (512 + 64) * 2),  # ... which every GPU keeps whole
    ],
)
def test_kv_bytes_per_token(name: str, tp: int, expected: int) -> None:
    arch = bundled(name)
    assert arch is not None and arch.kv_bytes_per_token(tp) == expected


def test_lora_adapters_are_rank_times_in_plus_out_per_linear_layer() -> None:
    arch = bundled("Qwen2.5-0.5B")
    assert arch is not None
    d, kv, f = 896, 2 * 64, 4864
    per_layer = (d + d) + 2 * (d + kv) + (d + d) + 3 * (d + f)
    assert arch.lora_params(8) == 8 * 24 * per_layer


def test_a_config_json_is_read_offline_and_counted_the_same(tmp_path: Path) -> None:
    config = {
        "model_type": "qwen2", "hidden_size": 3584, "num_hidden_layers": 28, "num_attention_heads": 28,
        "num_key_value_heads": 4, "intermediate_size": 18944, "vocab_size": 152064, "tie_word_embeddings": False,
    }  # fmt: skip
    (tmp_path / "config.json").write_text(json.dumps(config), "utf-8")
    assert from_config(tmp_path / "config.json").params() == 7_615_616_512


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[1, 2]", "is not a JSON object"),
        ("{not json", "cannot be read as JSON"),
        ('{"num_attention_heads": 4, "hidden_size": "big"}', "'hidden_size' must be a whole number"),
        ('{"num_attention_heads": 4, "hidden_size": true}', "'hidden_size' must be a whole number"),
        ("{}", "'num_attention_heads' must be a whole number"),
    ],
)
def test_a_bad_config_is_a_clear_error(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "config.json").write_text(content, "utf-8")
    with pytest.raises(ConfigError, match=message):
        from_config(tmp_path / "config.json")


def test_a_config_that_is_not_a_regular_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "config.json").mkdir()
    with pytest.raises(ConfigError, match="not a regular file"):
        from_config(tmp_path / "config.json")
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.json")
        with pytest.raises(ConfigError, match="not a regular file"):
            from_config(tmp_path / "pipe.json")  # never opened, so never blocks
    (tmp_path / "big.json").write_bytes(b" " * 2_000_000)
    with pytest.raises(ConfigError, match="larger than"):
        from_config(tmp_path / "big.json")


# -- the monotone laws of a lower bound -------------------------------------------------------

plans = st.fixed_dictionaries(
    {
        "model": st.sampled_from(sorted(BUNDLED)),
        "task": st.sampled_from(["GRPO", "PPO", "DAPO", "RLOO"]),
        "device": st.sampled_from(sorted(DEVICES)),
        "gpus": st.sampled_from([1, 2, 4, 8, 16, 32, 64]),
        "offload": st.booleans(),
        "checkpointing": st.booleans(),
        "prompt": st.integers(min_value=1, max_value=8192),
        "response": st.integers(min_value=1, max_value=16384),
        "micro": st.integers(min_value=1, max_value=16),
        "lora": st.sampled_from([0, 8, 32, 128]),
    }
)


def plan_of(values: dict[str, Any], **changes: Any) -> tuple[Any, Plan]:
    merged = {**values, **changes}
    arch = BUNDLED[merged["model"]]
    return arch, Plan(
        task=merged["task"], gpus=merged["gpus"], device=merged["device"], device_gib=DEVICES[merged["device"]],
        lora_rank=merged["lora"], param_offload=merged["offload"], optimizer_offload=merged["offload"],
        gradient_checkpointing=merged["checkpointing"], prompt_length=merged["prompt"],
        response_length=merged["response"], micro_batch=merged["micro"], rollout_tp=1,
    )  # fmt: skip


def train_gib(values: dict[str, Any], **changes: Any) -> float:
    return estimate(*plan_of(values, **changes)).train_gib


@settings(max_examples=200, deadline=None, derandomize=True)
@given(values=plans)
def test_more_gpus_never_raise_the_per_gpu_training_memory(values: dict[str, Any]) -> None:
    assert train_gib(values, gpus=values["gpus"] * 2) <= train_gib(values)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(values=plans, rank=st.sampled_from([8, 32, 128]))
def test_lora_is_below_full_fine_tuning(values: dict[str, Any], rank: int) -> None:
    lora, full = train_gib(values, lora=rank), train_gib(values, lora=0)
    assert lora <= full
    if not values["offload"]:  # the states are on the GPU: the adapters' are far smaller
        assert lora < full


@settings(max_examples=200, deadline=None, derandomize=True)
@given(values=plans)
def test_offload_moves_memory_from_gpu_to_host(values: dict[str, Any]) -> None:
    on = estimate(*plan_of(values, offload=True))
    off = estimate(*plan_of(values, offload=False))
    assert on.train_gib < off.train_gib and on.rollout_gib <= off.rollout_gib
    assert on.host_gib > off.host_gib


@settings(max_examples=200, deadline=None, derandomize=True)
@given(values=plans, more=st.integers(min_value=1, max_value=4096))
def test_longer_sequences_never_lower_it(values: dict[str, Any], more: int) -> None:
    base = estimate(*plan_of(values))
    longer = estimate(*plan_of(values, response=values["response"] + more, prompt=values["prompt"] + more))
    assert longer.train_gib >= base.train_gib and longer.rollout_gib >= base.rollout_gib


def test_the_peak_is_the_larger_phase_plus_what_stays_resident_not_their_sum() -> None:
    arch = bundled("Qwen2.5-7B")
    assert arch is not None
    found = estimate(arch, Plan("GRPO", 8, "H100", DEVICES["H100"]))
    assert found.peak_gib == max(found.train_gib, found.rollout_gib) < found.train_gib + found.rollout_gib


def test_minimum_gpus_picks_a_tensor_parallel_size_that_divides_the_heads() -> None:
    arch = bundled("Qwen2.5-72B")
    assert arch is not None
    gpus, found = minimum_gpus(arch, Plan("GRPO", 8, "H100", DEVICES["H100"], param_offload=True,
                                          optimizer_offload=True)) or (0, None)  # fmt: skip
    assert gpus == 4 and found is not None and arch.heads % found.rollout_tp == 0
    fixed = Plan("GRPO", 8, "H100", DEVICES["H100"], param_offload=True, optimizer_offload=True, rollout_tp=8)
    assert (minimum_gpus(arch, fixed) or (0,))[0] == 8  # a given TP needs at least that many GPUs
    too_small = Plan("GRPO", 8, "H100", DEVICES["H100"], param_offload=True, optimizer_offload=True, rollout_tp=2)
    assert minimum_gpus(arch, too_small) is None  # TP=2 cannot hold 72B's weights on any number of H100s


# -- the check: no false alarm, and the impossible row ---------------------------------------


def entry(model: str, task: str, gpus: int, device: str, size: str, train: str = "fsdp") -> Entry:
    return Entry(
        size=size, tag="MIN", model=model, task=task, gpus=gpus, device=device, max_batch=None, train=train,
        infer="vllm", script="x.sh", contributor=Contributor("x"), source=SourceRef("data/x.yaml", 3, 5),
        field_marks={"gpus": (6, 11)},
    )  # fmt: skip


#: The real framework page's rows (the seed page): model, task, GPUs, device, training backend.
REAL_PAGE = [
    ("Qwen2.5-0.5B", "GRPO-LoRA", 1, "H100", "fsdp", "0.5B"),
    ("Qwen2.5-1.5B", "GRPO-LoRA", 1, "H100", "fsdp", "1.5B"),
    ("Qwen2.5-3B", "GRPO-LoRA", 1, "H100", "fsdp", "3B"),
    ("Qwen2-7B", "GRPO", 2, "H800", "fsdp", "7B"),
    ("Qwen2.5-7B", "GRPO-LoRA", 1, "H100", "fsdp", "7B"),
    ("Qwen2.5-14B", "GRPO", 4, "H800", "fsdp", "14B"),
    ("Qwen2.5-14B", "GRPO-LoRA", 2, "H100", "fsdp", "14B"),
    ("Qwen2.5-32B", "GRPO", 8, "H20", "megatron", "32B"),
    ("Qwen2.5-32B", "GRPO-LoRA", 4, "H100", "fsdp", "32B"),
    ("Qwen2-72B", "GRPO", 32, "H20", "fsdp", "70B"),
    ("Qwen2-72B", "GRPO", 32, "H800", "fsdp", "70B"),
    ("Qwen2.5-72B", "GRPO-LoRA", 8, "H100", "fsdp", "70B"),
]


@pytest.mark.parametrize("row", REAL_PAGE, ids=[f"{r[0]}-{r[1]}-{r[2]}x{r[3]}" for r in REAL_PAGE])
def test_no_row_of_the_real_page_is_flagged(row: tuple[str, str, int, str, str, str]) -> None:
    model, task, gpus, device, train, size = row
    found = estimate_row(entry(model, task, gpus, device, size, train), None)  # no script: every setting unknown
    assert found is not None and found.verdict != "does-not-fit", found.problems


def test_no_row_of_our_data_is_flagged_and_each_has_an_estimate() -> None:
    dataset = load_dataset(REPO / "data", REPO)
    assert [d for d in dataset.diagnostics if d.subtype.value == "implausible"] == []
    assert len(dataset.estimates) == len(dataset.entries) == 12


def test_the_impossible_row_is_refused_at_its_gpus_line() -> None:
    row = entry("Qwen2.5-72B", "GRPO", 1, "H100", "70B")
    problem = check_row(row, estimate_row(row, None))
    assert problem is not None
    assert problem.format().startswith(
        "data/x.yaml:6:11: error: this row cannot have run as written: even the lower bound of Qwen2.5-72B's GRPO "
        "run needs "
    )
    assert problem.format().endswith("[rlresources.implausible]")


def test_an_unknown_model_is_counted_from_its_size_label_only() -> None:
    arch = by_size("14B")
    assert arch is not None and arch.params() == 14 * 10**9 and arch.kv_bytes_per_token() == 0
    assert by_size("large") is None


# -- the command -------------------------------------------------------------------------------


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = rlresources(["estimate", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_text_shows_every_term_per_phase(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _err = cli(capsys, "--model", "Qwen2.5-7B", "--task", "GRPO-LoRA", "--gpus", "1", "--device", "H100")
    assert status == 0
    for heading in ("resident on each GPU in both phases", "training phase adds", "rollout phase adds"):
        assert heading in out
    assert "frozen base weights (bf16, sharded)" in out and "logits for log-probs and entropy" in out
    assert "verdict: fits" in out and "assumed (not given): param_offload=False" in out


def test_json_has_every_field(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _err = cli(capsys, "--model", "Qwen2.5-72B", "--device", "H100", "--offload", "--min-gpus",
                            "--format", "json")  # fmt: skip
    data = json.loads(out)
    assert status == 0
    for key in ("params", "trainable_params", "kv_bytes_per_token", "device_memory_gb", "gpus", "per_gpu_gb",
                "host_gb", "verdict", "min_gpus", "terms", "assumptions"):  # fmt: skip
        assert key in data, key
    assert set(data["per_gpu_gb"]) == {"train", "rollout", "peak"}
    assert data["min_gpus"] == 4 and data["params"] == 72_706_203_648
    assert {t["phase"] for t in data["terms"]} >= {"train", "rollout", "host"}
    assert data["assumptions"]["prompt_length"] == {"value": 512, "assumed": True}


def test_an_impossible_run_is_status_1(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _err = cli(capsys, "--model", "Qwen2.5-72B", "--task", "GRPO", "--gpus", "1", "--device", "H100")
    assert status == 1 and "verdict: does-not-fit" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--model", "Qwen9-1T", "--device", "H100"], "--model 'Qwen9-1T' is neither a bundled model"),
        (["--model", "Qwen2.5-7B", "--device", "TPU"], "--device 'TPU' is not one of"),
        (["--model", "Qwen2.5-7B"], "--device is needed"),
        (["--device", "H100"], "give --model"),
        (["--row", "data/7b.yaml"], "must be FILE:LINE"),
    ],
)
def test_bad_flags_are_status_2(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    status, _out, err = cli(capsys, *argv)
    assert status == 2 and message in err


def test_a_row_is_estimated_with_its_scripts_settings(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    status, out, _err = cli(capsys, "--row", "data/70b.yaml:31", "--format", "json")  # a line inside the row
    data = json.loads(out)
    assert status == 0 and data["model"] == "Qwen2.5-72B" and data["gpus"] == 8
    assert data["assumptions"]["param_offload"] == {"value": True, "assumed": False}  # read from the script
    assert data["assumptions"]["memory_fraction"] == {"value": 0.6, "assumed": False}


# -- the Sphinx side --------------------------------------------------------------------------


def test_the_directive_and_the_column(tmp_path: Path) -> None:
    from sphinx.cmd.build import build_main

    root = tmp_path / "site"
    shutil.copytree(REPO / "data", root / "data")
    shutil.copytree(REPO / "examples", root / "examples")
    (root / "conf.py").write_text(
        'extensions = ["sphinx_rlresources"]\nrlresources_data_dir = "data"\nrlresources_root = "."\n', "utf-8"
    )
    (root / "index.rst").write_text(
        "T\n=\n\n.. rl-resource-table:: 70b\n   :columns: model, resource, estimate\n\n"
        ".. rl-resource-estimate::\n   :models: Llama-3.1-405B, Nope-1B\n   :devices: H200\n",
        "utf-8",
    )
    log = tmp_path / "log.txt"
    assert build_main(["-q", "-E", "-w", str(log), str(root), str(tmp_path / "out")]) == 0
    html = (tmp_path / "out" / "index.html").read_text("utf-8")
    assert "Estimated, not measured" in html and "nobody has run these configurations" in html
    assert "GiB/GPU" in html and "Estimate" in html
    (warning,) = log.read_text("utf-8").splitlines()
    assert ":models: names 'Nope-1B', which is not known" in warning and warning.endswith("[rlresources.option]")


def test_device_names_are_matched_loosely() -> None:
    assert device_memory("h100") == DEVICES["H100"] and device_memory("A100") == DEVICES["A100-80G"]
    assert device_memory("910B") == DEVICES["Ascend910B"] and device_memory("TPUv5") is None
