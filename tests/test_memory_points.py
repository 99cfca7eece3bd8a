"""The estimator against published runs (benchmarks/memory_points.csv): its two promises, and a readable file."""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))  # the validation is dev-only code: it lives with the benchmarks

from estimator_validation import CITATION, PointError, checked, distribution, load, point

POINTS = REPO / "benchmarks" / "memory_points.csv"
CHECKED = checked(POINTS)
MEASURED_GPU = checked(REPO / "benchmarks" / "measured_gpu.csv")
"""What benchmarks/measure_memory.py measured on a GPU: held to the same two promises."""


def test_the_set_is_large_enough_and_every_row_is_cited() -> None:
    assert len(CHECKED) >= 25
    for found in CHECKED:
        assert all(found.point.values[c] for c in CITATION), found.point.id
    assert len({c.point.id for c in CHECKED}) == len(CHECKED)
    assert sum(c.point.measured_gib is not None for c in CHECKED) >= 8


@pytest.mark.parametrize("found", CHECKED + MEASURED_GPU, ids=lambda c: c.point.id)
def test_no_floor_is_above_a_measured_peak_and_no_run_that_ran_is_impossible(found: object) -> None:
    from estimator_validation import Checked

    assert isinstance(found, Checked)
    if found.point.measured_gib is not None:
        assert found.floor_gib <= found.point.measured_gib
    if found.point.outcome == "ran":
        assert found.result.verdict != "does-not-fit", found.result.problems


def test_the_gpu_set_is_the_trainer_alone_and_every_run_has_a_figure() -> None:
    ran = [c for c in MEASURED_GPU if c.point.outcome == "ran"]
    assert len(ran) >= 25
    assert {c.point.counter for c in ran} == {"device-trainer"}
    # a run the GPU could not hold is an outcome without a figure (measure_memory's --csv writes it so)
    assert all(c.point.measured_gib is None for c in MEASURED_GPU if c.point.outcome == "oom")
    for found in ran:
        assert found.point.measured_gib is not None
        # the trainer's own figure: no engine was started on that GPU
        assert found.expected_gib == found.result.expected.trainer_gib
        assert found.expected_gib <= found.result.expected.peak_gib


def test_the_expected_peak_is_within_30_percent_for_most_measured_runs() -> None:
    spread = distribution(CHECKED)
    assert spread["within_30_percent"] > 0.5
    assert 0.7 <= spread["median"] <= 1.3


def test_a_measured_counter_names_what_it_sees() -> None:
    """The same run read by the trainer's counter and by NVML: the estimate splits the same way."""
    by_id = {c.point.id: c for c in CHECKED}
    trainer, device = by_id["qwen3-8b-lab-R1-grpo-4xH20"], by_id["qwen3-8b-lab-R1-grpo-4xH20-nvml"]
    assert trainer.result.expected_gib == device.result.expected_gib  # one estimate ...
    assert trainer.expected_gib < device.expected_gib  # ... two counters: the trainer's excludes the engine


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"repository": ""}, "'repository' is empty"),
        ({"outcome": "maybe"}, "outcome must be one of ran, oom"),
        ({"counter": "guess"}, "counter must be one of"),
        ({"measured_gib": "12", "counter": "none"}, "a measured figure needs its counter"),
        ({"model": "Nope-1B"}, "is not a bundled shape"),
        ({"micro_batch": "many"}, "micro_batch must be a int"),
        ({"param_offload": "yes"}, "param_offload must be true or false"),
        ({"budget_of": "half"}, "budget_of must be one of"),
    ],
)
def test_a_bad_row_is_named(change: dict[str, str], message: str) -> None:
    with POINTS.open(encoding="utf-8", newline="") as stream:
        first = next(csv.DictReader(stream))
    with pytest.raises(PointError, match=message):
        point({**first, **change}, 2)


def test_load_reads_every_row(tmp_path: Path) -> None:
    assert len(load(POINTS)) == len(CHECKED)
    broken = tmp_path / "points.csv"
    text = POINTS.read_text("utf-8").splitlines()
    broken.write_text("\n".join([text[0], text[1].replace(",ran,", ",won,", 1)]) + "\n", "utf-8")
    with pytest.raises(PointError, match="line 2"):
        load(broken)


def test_the_held_out_set_reads_and_shares_no_run_with_the_others() -> None:
    """benchmarks/heldout_runs.csv: runs the estimator was never tuned on, so no promise is asserted on its verdicts.

    It must stay readable by the same code, cited row by row, and apart from the two sets the
    estimator is checked against (a run in both would no longer be held out).
    """
    held = load(REPO / "benchmarks" / "heldout_runs.csv")
    assert len(held) >= 30
    assert sum(p.outcome == "oom" for p in held) >= 10
    assert len({p.id for p in held}) == len(held)
    for found in held:
        assert all(found.values[c] for c in CITATION), found.id
    others = [c.point for c in CHECKED + MEASURED_GPU]
    assert not {p.id for p in held} & {p.id for p in others}
    assert not {p.values["source"] for p in held} & {p.values["source"] for p in others}


HELD_OUT_2 = checked(REPO / "benchmarks" / "heldout_runs2.csv")
"""A second held-out set, written and committed before the estimator was run on it."""
HELD_OUT_3 = checked(REPO / "benchmarks" / "heldout_runs3.csv")
"""A third held-out set, written and committed before the estimator was run on it."""
HELD_OUT_4 = checked(REPO / "benchmarks" / "heldout_runs4.csv")
"""A fourth held-out set, written and committed before the estimator was run on it."""
HELD_OUT_5 = checked(REPO / "benchmarks" / "heldout_runs5.csv")
"""A fifth held-out set, written and committed before the estimator was run on it."""
LATER_SETS = (
    ("heldout_runs2.csv", HELD_OUT_2, 25, 10),
    ("heldout_runs3.csv", HELD_OUT_3, 20, 10),
    ("heldout_runs4.csv", HELD_OUT_4, 38, 10),
    ("heldout_runs5.csv", HELD_OUT_5, 25, 7),
)
"""The held-out sets gathered once the ones before them had been used: (file, rows, fewest rows,
fewest out-of-memory runs)."""


def threads(points: list[object]) -> set[str]:
    """The issue and pull-request threads a set cites (``name/issues/N``, whatever the column): without
    the owner, as a moved repository (volcengine/verl, now verl-project/verl) keeps its numbers."""
    from estimator_validation import Point

    found: set[str] = set()
    for p in points:
        assert isinstance(p, Point)
        text = " ".join(p.values[c] for c in ("repository", "source", "note"))
        found |= {"/".join(m) for m in re.findall(r"[\w.-]+/([\w.-]+)/(issues|pull)/(\d+)", text)}
    return found


@pytest.mark.parametrize("index", range(len(LATER_SETS)), ids=[name for name, _, _, _ in LATER_SETS])
def test_a_later_held_out_set_reads_and_shares_no_run_or_thread_with_the_others(index: int) -> None:
    """Each later held-out set: read by the same code, cited row by row, apart from every set before it."""
    _name, rows, least, failed = LATER_SETS[index]
    held = [c.point for c in rows]
    assert len(held) >= least
    assert sum(p.outcome == "oom" for p in held) >= failed
    assert len({p.id for p in held}) == len(held)
    for found in held:
        assert all(found.values[c] for c in CITATION), found.id
    earlier = [c.point for _, before, _, _ in LATER_SETS[:index] for c in before]
    others = [c.point for c in CHECKED + MEASURED_GPU] + load(REPO / "benchmarks" / "heldout_runs.csv") + earlier
    assert not {p.id for p in held} & {p.id for p in others}
    assert not {p.values["source"] for p in held} & {p.values["source"] for p in others}
    assert not threads(held) & threads(others)


@pytest.mark.parametrize("found", HELD_OUT_2 + HELD_OUT_3 + HELD_OUT_4 + HELD_OUT_5, ids=lambda c: c.point.id)
def test_the_later_held_out_sets_keep_the_two_promises(found: object) -> None:
    """No floor above a published peak, and no run that ran called ``does-not-fit``: the two
    promises, on runs the estimator was not tuned to (their other verdicts are only reported).
    (The third set's nemorl-pr875-deepscaler-1.5b-24k-1n8g "~80%" was first written 63.7 GiB, rounded,
    where its note says it is 80% of the device, 63.72: the floor, the engine's 0.8 claim, sat 0.02 above it.)"""
    from estimator_validation import Checked

    assert isinstance(found, Checked)
    if found.point.measured_gib is not None:
        assert found.floor_gib <= found.point.measured_gib
    if found.point.outcome == "ran":
        assert found.result.verdict != "does-not-fit", found.result.problems


def test_the_runtime_term_brings_the_gpu_set_within_reach_and_never_over() -> None:
    """The CUDA context and the allocator's reserve (issue 37): NVML sees them, and without them
    only 36% of the GPU-measured runs were within 30% (median 0.57)."""
    spread = distribution(MEASURED_GPU)
    assert spread["within_30_percent"] > 0.55 and spread["median"] > 0.7
    assert spread["max"] <= 1.05  # calibrated low: the expected peak is never far above a measured one


def test_the_gpu_set_is_within_30_percent_with_the_eager_entropy_and_one_micro_batch() -> None:
    """The update's entropy taken eagerly over a padded batch (18 to 22 bytes per response token and
    vocabulary entry beside the log-probs alone, measured) and the gradients made after the logits
    are gone where a mini-batch is one micro-batch: without them 62% were within 30%, 0.38 at worst."""
    spread = distribution(MEASURED_GPU)
    assert spread["within_30_percent"] >= 0.75 and spread["min"] >= 0.7 and spread["median"] > 0.85
    ran = [c for c in MEASURED_GPU if c.point.outcome == "ran"]
    assert not any(c.result.verdict in ("likely-oom", "does-not-fit") for c in ran)
    assert all(c.result.verdict in ("likely-oom", "does-not-fit") for c in MEASURED_GPU if c.point.outcome == "oom")


def test_the_seed_lora_rows_that_ran_are_not_likely_oom() -> None:
    """verl's seed rows (0.5B at 116, 1.5B at 128, 3B at 62 on one H100) ran: at gsm8k's logged
    mean lengths they fit; at the full 1,536 tokens each they read 113 to 211 GiB."""
    seed = [c for c in CHECKED if c.point.id.startswith("verl-tuning-lora-") and c.point.outcome == "ran"]
    assert len(seed) >= 10
    assert sum(c.result.verdict == "likely-oom" for c in seed) == 0


@pytest.mark.parametrize("wider", [0.05, 0.10])
def test_a_wider_likely_oom_margin_flags_more_runs_that_ran_than_ooms(wider: float) -> None:
    """The margin of ``likely-oom`` (the expected peak above the device itself) is the calibrated one:
    calling it from 5% or 10% below the device flags at least as many runs that ran as OOMs more."""
    rows = CHECKED + MEASURED_GPU

    def flagged(outcome: str, margin: float) -> int:
        return sum(
            c.result.verdict == "does-not-fit" or c.result.expected_gib > c.result.plan.device_gib * (1 - margin)
            for c in rows
            if c.point.outcome == outcome
        )

    assert flagged("ran", 0.0) == sum(
        c.result.verdict in ("likely-oom", "does-not-fit") for c in rows if c.point.outcome == "ran"
    )
    more_ran = flagged("ran", wider) - flagged("ran", 0.0)
    more_oom = flagged("oom", wider) - flagged("oom", 0.0)
    assert more_ran >= more_oom


def test_the_held_out_columns_say_what_their_sources_say() -> None:
    """Issue 37: an empty cell was read as a least-memory assumption that contradicted its source
    (an assumed vLLM engine beside a trainer-only benchmark, no ZeRO stage, no length cap)."""
    held = {c.point.id: c for c in checked(REPO / "benchmarks" / "heldout_runs.csv")}
    trainer_only = held["trl-issue3456-qwen3-0.6b-1xA100"]  # "no vLLM": the trainer alone
    assert trainer_only.result.plan.engine == "none"
    assert not any(m.engine_bytes for m in trainer_only.result.expected.moments)
    assert trainer_only.result.expected.peak_gib == trainer_only.result.expected.trainer_gib
    assert held["openrlhf-issue519-llama-3-8b-ppo-8xH100"].result.plan.zero_stage == 2  # "--zero_stage 2"
    capped = held["nemorl-qwen2.5-7b-instruct-4n8g-megatron"].result.plan
    assert capped.max_total_length == 4096 and sum(capped.lengths) == 4096
    with POINTS.open(encoding="utf-8", newline="") as stream:
        first = next(csv.DictReader(stream))
    with pytest.raises(PointError, match="zero_stage must be a int"):
        point({**first, "zero_stage": "three"}, 2)


def test_the_trl_issue_rows_take_their_releases_defaults_where_they_are_silent() -> None:
    """Issue 37: TRL's issue rows ran on releases whose defaults are not today's.  Before v0.22.0
    GRPOConfig left gradient checkpointing at TrainingArguments' False, and before v0.19 beta was
    0.04 (a reference model on the trainer's GPU); the rows' cells say so, each note cites the
    release.  Left empty, the cells were today's least memory (recomputation, no reference).  As for
    every held-out row, the cells are checked, not the verdicts."""
    held = {c.point.id: c for c in checked(REPO / "benchmarks" / "heldout_runs.csv")}
    trl = [c for name, c in held.items() if name.startswith("trl-issue")]
    assert len(trl) == 6
    for found in trl:
        release = {"issue3456": "v0.17.0", "issue2927": "v0.15.1"}.get(found.point.id.split("-")[1], "v0.15.2")
        note = found.point.values["note"]
        assert f"TRL {release}" in note and "huggingface/trl@a222aeb" in note, found.point.id
        plan = found.result.plan
        assert plan.gradient_checkpointing is False and plan.use_kl is True and plan.reference
        update = found.result.expected.moments[0]
        assert update.name == "the actor's update"
        assert any(t.name == "activations (no recomputation)" for t in update.terms)
        assert [t for t in found.result.expected.resident if t.name.startswith("reference model")]


def test_every_set_has_one_header_and_its_new_columns_reach_the_run() -> None:
    """``measure_memory.py --csv`` writes memory_points.csv's header, so every set keeps it; a setting a
    source states has a column (Megatron's CPU optimizer, ring attention, a log-prob token budget)."""
    header = POINTS.read_text("utf-8").splitlines()[0]
    for path in sorted((REPO / "benchmarks").glob("*.csv")):
        assert path.read_text("utf-8").splitlines()[0] == header, path.name
    rows = {c.point.id: c.point.run for c in HELD_OUT_5}
    assert rows["h5-verl-ascend-gmpo-qwen2.5-7b-megatron-4x910B"].offload_mode.value == "compute"
    ring = rows["h5-openrlhf-a6c21a07-qwen3-4b-4xH100-colocate-vllmsleep"]
    assert (ring.train_cp.value, ring.log_prob_max_token_len_per_gpu.value) == (2, 32768)
