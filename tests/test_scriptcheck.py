"""Row <-> script cross-check: exact findings through the loader, the CLI and a build.

``tests/roots/test-crosscheck`` holds rows that agree with their scripts (7B, written
in several styles) and rows that each disagree once (70B, 14B).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, TESTS, warning_lines
from helpers import cli
from hypothesis import given, settings
from hypothesis import strategies as st

from sphinx_rlresources.cli.main import main as rlresources
from sphinx_rlresources.core import crosscheck as scriptcheck
from sphinx_rlresources.core.diagnostics import Subtype, relpath
from sphinx_rlresources.core.loader import LoadOptions, load_dataset
from sphinx_rlresources.core.model import Contributor, Entry, SourceRef
from sphinx_rlresources.core.rowscript import MAX_SCRIPT_BYTES, run_of
from sphinx_rlresources.scripts.frameworks import read_run


def check_file(row: Entry, path: Path) -> list[Any]:
    """The row against the script file, read the one way every command reads a row's script."""
    return scriptcheck.cross_check(row, run_of(path.read_bytes(), row.script, {}, None), row.script)


ROOT = TESTS / "roots" / "test-crosscheck"
S70, S14 = "examples/tuning/70b", "examples/tuning/14b"
CROSS_SUBTYPES = {
    s for s in Subtype if s.value.startswith("script_") and s not in (Subtype.SCRIPT_PATH, Subtype.SCRIPT_MISSING)
}

#: (data file, line, column, subtype, message[, severity]): every finding the fixture must produce.
EXPECTED: list[tuple[Any, ...]] = [
    (
        "14b",
        5,
        12,
        "script_model",
        f"row says model 'Qwen2-14B' but {S14}/qwen2-14b_grpo_4_h800_fsdp_vllm.sh:10 trains "
        "actor_rollout_ref.model.path=Qwen/Qwen2.5-Coder-14B-Instruct, whose last part "
        "'Qwen2.5-Coder-14B-Instruct' does not contain 'Qwen2-14B'; fix the row (or give it a model_id) or the script",
    ),
    (
        "14b",
        12,
        13,
        "naming",
        f"script name 'qwen2-14b_grpo_4_h800_fsdp_vllm.sh' says model 'qwen2-14b' but {S14}/"
        "qwen2-14b_grpo_4_h800_fsdp_vllm.sh:10 trains Qwen/Qwen2.5-Coder-14B-Instruct; name the script after the "
        "model it trains (or load the model it names)",
    ),
    (
        "14b",
        24,
        15,
        "script_model",
        f"row says model_id 'Qwen/Qwen2.5-14B-Instruct' but {S14}/qwen2.5-14b_grpo_4_h100_fsdp_vllm.sh:10 trains "
        "actor_rollout_ref.model.path=Qwen/Qwen2.5-14B; fix model_id or the script",
    ),
    (
        "70b",
        7,
        11,
        "script_gpus",
        f"row says gpus 32 but {S70}/qwen2-70b_grpo_32_h800_fsdp_vllm.sh:12 runs trainer.n_gpus_per_node=8 × "
        "trainer.nnodes=1 = 8 GPUs; fix the row or the script",
    ),
    (
        "70b",
        21,
        12,
        "script_infer",
        f"row says infer 'sglang' but {S70}/qwen2-70b_grpo_8_h100_fsdp_sglang.sh:11 runs "
        "actor_rollout_ref.rollout.name=vllm; fix the row or the script",
    ),
    (
        "70b",
        30,
        12,
        "script_train",
        f"row says train 'megatron' but {S70}/qwen2-70b_grpo_8_h20_megatron_vllm.sh:7 runs fsdp: verl's default "
        "config (no --config-name, no actor_rollout_ref.actor.strategy); fix the row, or run it with "
        "--config-name=ppo_megatron_trainer or actor_rollout_ref.actor.strategy=megatron",
    ),
    (
        "70b",
        36,
        11,
        "script_lora",
        f"task 'GRPO-LoRA' says LoRA but {S70}/qwen2-70b_grpo-lora_8_h100_fsdp_vllm.sh:7 sets no "
        "actor_rollout_ref.model.lora_rank, so it trains the full model; drop '-LoRA' from the task, or set "
        "actor_rollout_ref.model.lora_rank in the script",
    ),
    (
        "70b",
        46,
        11,
        "script_lora",
        f"task 'GRPO' does not say LoRA but {S70}/qwen2-70b_grpo_8_a100_fsdp_vllm.sh:11 sets "
        "actor_rollout_ref.model.lora_rank=64 (LoRA); name the task 'GRPO-LoRA', or remove "
        "actor_rollout_ref.model.lora_rank from the script",
    ),
    (
        "70b",
        56,
        11,
        "script_algorithm",
        f"task 'PPO' means algorithm.adv_estimator=gae but {S70}/qwen2-70b_ppo_8_h800_fsdp_vllm.sh:8 runs "
        "algorithm.adv_estimator=grpo; fix the task or the script",
    ),
    (
        "70b",
        69,
        16,
        "script_batch",
        f"row says max_batch 128 but {S70}/qwen2-70b_grpo_8_h800_fsdp_vllm.sh:9 runs data.train_batch_size=256; "
        "fix the row (the largest batch that ran) or the script",
    ),
    (  # $NODES is given at run time, and the row's gpus depend on it: a warning at the gpus field
        "70b",
        77,
        11,
        "script_sanity",
        f"{S70}/qwen2-70b_grpo_8_mi300x_fsdp_vllm.sh:13: trainer.nnodes is given at run time by $NODES, which the "
        "script reads without setting it or giving a default, so the row's gpus cannot be checked against it; give "
        "it in the row's env (env: {NODES: ...}) with the value the row was measured with",
        "warning",
    ),
    (
        "70b",
        82,
        13,
        "script_sanity",
        f"{S70}/qwen2-70b_grpo_8_mi300x_fsdp_vllm.sh:10: actor_rollout_ref.model.path=model_path passes the word "
        "'model_path', which is the name of a variable the script sets: a missing '$'? write "
        "actor_rollout_ref.model.path=$model_path; the checks read it as $model_path ('Qwen/Qwen2-70B-Instruct')",
    ),
]


def implausible(line: int, task: str, device: str, gib: str) -> tuple[str, int, int, str, str]:
    """A 70B row trained whole on 8 GPUs: verl's update needs its 16 bytes per parameter there (issue 23)."""
    return (
        "70b",
        line,
        11,
        "implausible",
        f"this row cannot have run as written: even the floor of 70B (size only)'s {task} run needs 130.4 GiB per "
        "GPU (the actor's update, most of it optimizer states (Adam m and v; sharded) <- host (65.2 GiB)) on "
        f"8*{device} of {gib} GiB; check gpus, device and the script's settings (rlresources estimate --row "
        f"data/70b.yaml:{line - 3} shows every term)",
    )


#: The fixture's 70B rows on 8 GPUs train the whole model (their verl scripts set no LoRA rank), which
#: verl's FSDP update cannot hold on 8 GPUs: each gets that finding besides its own mismatch.
IMPLAUSIBLE = [
    implausible(17, "GRPO", "H100", "79.6"),
    implausible(27, "GRPO", "H20", "95.6"),
    implausible(37, "GRPO-LoRA", "H100", "79.6"),
    implausible(57, "PPO", "H800", "79.6"),
    implausible(67, "GRPO", "H800", "79.6"),
]
EVERY = sorted(EXPECTED + IMPLAUSIBLE, key=lambda e: (e[0], e[1], e[2]))  # the loader's order (a stable sort)


def lint_lines(prefix: str, findings: list[tuple[Any, ...]] | None = None) -> list[str]:
    """Each finding as lint prints it; an error unless a sixth item names the severity."""
    lines = []
    for size, line, col, sub, msg, *level in findings or EXPECTED:
        lines.append(f"{prefix}{size}.yaml:{line}:{col}: {level[0] if level else 'error'}: {msg} [rlresources.{sub}]")
    return lines


def test_the_loader_reports_exactly_the_mismatches() -> None:
    dataset = load_dataset(ROOT / "data", ROOT, display=lambda p: relpath(p, ROOT))
    assert [d.format() for d in dataset.diagnostics] == lint_lines("data/", EVERY)


def test_the_consistent_rows_raise_nothing() -> None:
    dataset = load_dataset(ROOT / "data", ROOT)
    consistent = {(e.source.path, e.source.line) for e in dataset.entries if e.size == "7B"}
    assert len(consistent) == 4
    assert [d for d in dataset.diagnostics if d.path.endswith("7b.yaml")] == []


def test_switched_off() -> None:
    dataset = load_dataset(ROOT / "data", ROOT, LoadOptions(cross_check=False))
    assert dataset.diagnostics == []


@pytest.mark.parametrize("root", [REPO, TESTS / "roots" / "test-basic"], ids=["repository", "test-basic"])
def test_our_own_data_agrees_with_our_scripts(root: Path) -> None:
    dataset = load_dataset(root / "data", root)
    assert len(dataset.entries) >= 12
    assert [d.format() for d in dataset.diagnostics if d.subtype in CROSS_SUBTYPES] == []


def test_lint_prints_them(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ROOT)
    status = rlresources(["lint", "--data", "data", "--root", "."])
    out, _err = capsys.readouterr()
    findings = [line for line in out.splitlines() if "[rlresources.script_" in line or "[rlresources.naming]" in line]
    assert findings == lint_lines("data/")
    assert status == 1


@pytest.mark.sphinx("html", testroot="crosscheck")
def test_the_build_warns_at_the_row(app: Any) -> None:
    app.build()
    expected = [
        f"<srcdir>/data/{size}.yaml:{line}:{col}: WARNING: {msg} [rlresources.{sub}]".replace(
            "--row data/", "--row <srcdir>/data/"
        )
        for size, line, col, sub, msg, *_severity in EVERY
    ]
    assert warning_lines(app) == expected


@pytest.mark.sphinx("html", testroot="crosscheck", confoverrides={"suppress_warnings": ["rlresources.script_gpus"]})
def test_one_kind_can_be_silenced(app: Any) -> None:
    app.build()
    lines = warning_lines(app)
    assert len(lines) == len(EVERY) - 1
    assert not any("script_gpus" in line for line in lines)
    assert any("[rlresources.script_infer]" in line for line in lines)


@pytest.mark.sphinx("html", testroot="crosscheck", confoverrides={"rlresources_cross_check": False})
def test_the_build_can_switch_it_off(app: Any) -> None:
    app.build()
    assert warning_lines(app) == []


# -- the rules, one row at a time ------------------------------------------------------


def entry(**values: Any) -> Entry:
    row: dict[str, Any] = {
        "size": "7B",
        "tag": "MIN",
        "model": "Qwen2.5-7B",
        "task": "GRPO",
        "gpus": 8,
        "device": "H100",
        "max_batch": None,
        "train": "fsdp",
        "infer": "vllm",
        "script": "x.sh",
        "contributor": Contributor("T"),
        "source": SourceRef("d.yaml", 3, 5),
    }
    row.update(values)
    return Entry(**row)


def subtypes(row: Entry, script: str) -> list[str]:
    found = scriptcheck.cross_check(row, read_run(textwrap.dedent(script), "x.sh"), "x.sh")
    return [d.subtype.value for d in found]


def test_unknown_is_never_a_mismatch() -> None:
    script = """\
        python3 -m verl.trainer.main_ppo --config-name=$CONFIG \\
            algorithm.adv_estimator=${ALGO:?} \\
            data.train_batch_size=$(cat batch) \\
            actor_rollout_ref.model.path=${MODEL:?set MODEL} \\
            actor_rollout_ref.model.lora_rank=${RANK:?} \\
            actor_rollout_ref.rollout.name=$(cat engine) \\
            trainer.n_gpus_per_node=${GPUS:?} trainer.nnodes=`cat nodes`
        """
    row = entry(task="PPO-LoRA", gpus=1024, max_batch=7, train="megatron", infer="sglang", model="Llama-3-8B")
    assert subtypes(row, script) == []


@pytest.mark.parametrize(
    ("task", "estimator", "agrees"),
    [
        ("GRPO", "grpo", True),
        ("GRPO-LoRA", "grpo", True),
        ("PPO", "gae", True),
        ("PPO", "grpo", False),
        ("DAPO", "grpo", True),
        ("DAPO", "gae", False),
        ("REINFORCE++", "reinforce_plus_plus", True),
        ("REINFORCE++-baseline", "reinforce_plus_plus_baseline", True),
        ("RLOO", "rloo", True),
        ("RLOO", "grpo", False),
        ("ReMax", "remax", True),
        ("SPPO", "grpo", True),  # unknown task names are not compared
    ],
)
def test_algorithms(task: str, estimator: str, agrees: bool) -> None:
    lora = "actor_rollout_ref.model.lora_rank=8" if "lora" in task.lower() else ""
    found = subtypes(entry(task=task), f"python3 t.py algorithm.adv_estimator={estimator} {lora}\n")
    assert found == ([] if agrees else ["script_algorithm"])


@pytest.mark.parametrize(
    ("model", "model_id", "path", "agrees"),
    [
        ("Qwen2.5-7B", None, "Qwen/Qwen2.5-7B-Instruct", True),
        ("qwen2.5-7b", None, "Qwen/Qwen2.5-7B-Instruct", True),
        ("Qwen2-14B", None, "Qwen/Qwen2.5-Coder-14B-Instruct", False),
        ("Qwen2.5-7B", None, "$HOME/models/Qwen2.5-7B-Instruct", True),
        ("Qwen2.5-7B", None, "$HOME/models/Llama-3-8B", False),
        ("Qwen2.5-7B", None, "${MODEL_DIR:?set MODEL_DIR}", True),  # unknown
        ("Qwen2.5-7B", None, "/data/ckpt/Qwen2.5-7B/", True),
        ("Qwen2.5-7B", None, "${PREFIX:?}wen2.5-8B/", True),  # the last part is not wholly known
        ("Qwen2.5-7B", None, "${PREFIX:?}/Qwen2.5-8B/", False),
        ("X", "Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct", True),
        ("X", "Qwen/Qwen2.5-7B-Instruct", "~/hub/qwen/qwen2.5-7b-instruct", True),
        ("X", "Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B", False),
    ],
)
def test_models(model: str, model_id: str | None, path: str, agrees: bool) -> None:
    found = subtypes(entry(model=model, model_id=model_id), f"python3 t.py actor_rollout_ref.model.path={path}\n")
    assert found == ([] if agrees else ["script_model"])


@pytest.mark.parametrize(
    ("infer", "engine", "agrees"),
    [("vllm", "vllm", True), ("SGLang", "sglang", True), ("sglang", "sglang_async", True), ("sglang", "vllm", False)],
)
def test_engines(infer: str, engine: str, agrees: bool) -> None:
    found = subtypes(entry(infer=infer), f"python3 t.py actor_rollout_ref.rollout.name={engine}\n")
    assert found == ([] if agrees else ["script_infer"])


def test_a_blamed_value_is_not_compared_twice() -> None:
    script = "ENGINE=$1\npython3 t.py actor_rollout_ref.rollout.name=ENGINE\n"
    assert subtypes(entry(infer="vllm"), script) == ["script_sanity"]


def test_a_bare_name_read_as_its_variable_is_compared() -> None:
    script = "ENGINE=sglang\npython3 t.py actor_rollout_ref.rollout.name=ENGINE\n"
    assert subtypes(entry(infer="vllm"), script) == ["script_sanity", "script_infer"]  # the script means sglang
    assert subtypes(entry(infer="sglang"), script) == ["script_sanity"]


def test_an_unknown_train_value_is_not_compared() -> None:
    assert subtypes(entry(train="xla"), "python3 t.py --config-name=ppo_megatron_trainer a.b=1\n") == []
    assert subtypes(entry(train="fsdp"), "python3 t.py --config-name=ppo_megatron_trainer a.b=1\n") == ["script_train"]


def test_a_script_too_large(tmp_path: Path) -> None:
    script = tmp_path / "big.sh"
    script.write_bytes(b"#" * (MAX_SCRIPT_BYTES + 1))
    (found,) = check_file(entry(script="big.sh"), script)
    assert (found.subtype, found.line, found.column) == (Subtype.SCRIPT_SANITY, 3, 5)
    assert found.message.startswith("big.sh: the script is more than ")


def test_a_script_not_in_utf8(tmp_path: Path) -> None:
    script = tmp_path / "latin.sh"
    script.write_bytes(b"# caf\xe9\npython3 t.py trainer.n_gpus_per_node=2 trainer.nnodes=1\n")
    assert [d.subtype.value for d in check_file(entry(gpus=8), script)] == ["script_gpus"]


_KEYS = [
    "trainer.n_gpus_per_node",
    "trainer.nnodes",
    "actor_rollout_ref.rollout.name",
    "actor_rollout_ref.actor.strategy",
    "actor_rollout_ref.model.lora_rank",
    "algorithm.adv_estimator",
    "actor_rollout_ref.model.path",
    "data.train_batch_size",
]
_VALUES = st.one_of(
    st.integers(-3, 10**30).map(str),
    st.sampled_from(
        ["vllm", "megatron", "fsdp", "grpo", "gae", "Qwen/Qwen2-7B", "/", "", "$X", "${X:-1}", "'8'", "$((1/0))"]
    ),
    st.text(max_size=12),
)
_WORD = st.text(st.characters(min_codepoint=32, max_codepoint=0x2FFF), min_size=1, max_size=16)


@settings(max_examples=150)
@given(
    st.lists(st.tuples(st.sampled_from(_KEYS), _VALUES), max_size=10),
    st.sampled_from(["", "--config-name=ppo_megatron_trainer", "-cn", "--config-name"]),
    _WORD,
    _WORD,
    _WORD,
    _WORD,
    st.integers(1, 65536),
    st.one_of(st.none(), st.integers(1, 10**6)),
)
def test_never_raises(
    overrides: list[tuple[str, str]],
    config: str,
    model: str,
    task: str,
    train: str,
    infer: str,
    gpus: int,
    batch: int | None,
) -> None:
    args = " ".join(f"{key}={value!r}" for key, value in overrides)
    script = read_run(f"python3 -m verl.trainer.main_ppo {config} {args}\n", "x.sh")
    row = entry(model=model, task=task, train=train, infer=infer, gpus=gpus, max_batch=batch)
    for found in scriptcheck.cross_check(row, script, "x.sh"):
        assert found.subtype in CROSS_SUBTYPES
        assert found.message


def test_a_broken_links_one_candidate_is_checked_in_its_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """verl's 14B row links qwen2-14b_… where qwen2_14b_… lives: the row is checked against that script."""
    folder = tmp_path / S14
    folder.mkdir(parents=True)
    # In the idiom of volcengine/verl@b178a3c examples/tuning/14b/qwen2_14b_grpo_4_h800_fsdp_vllm.sh (written here).
    (folder / "qwen2_14b_grpo_4_h800_fsdp_vllm.sh").write_text(
        "PYTHONPATH=/opt/tiger/open_verl python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo \\\n"
        "    actor_rollout_ref.model.path=Qwen/Qwen2.5-Coder-14B-Instruct actor_rollout_ref.rollout.name=vllm \\\n"
        "    actor_rollout_ref.rollout.n=5 trainer.n_gpus_per_node=4 trainer.nnodes=1\n",
        "utf-8",
    )
    (tmp_path / "data").mkdir()
    row = textwrap.dedent(
        """\
        size: 14B
        entries:
          - tag: MIN
            model: Qwen2-14B
            task: GRPO
            gpus: 4
            device: H800
            max_batch: null
            train: fsdp
            infer: vllm
            script: examples/tuning/14b/qwen2-14b_grpo_4_h800_fsdp_vllm.sh
            contributor: {name: T}
        """
    )
    (tmp_path / "data" / "14b.yaml").write_text(row, "utf-8")
    meant = f"(checked on '{S14}/qwen2_14b_grpo_4_h800_fsdp_vllm.sh', which the broken link surely means)"

    def lint() -> list[tuple[str, str]]:
        status, out, _err = cli(tmp_path, capsys, "lint", "--format", "json")
        assert status == 1
        return sorted((item["code"].split(".")[1], item["message"]) for item in json.loads(out))

    found = lint()
    # the script still has no row of its own name: that stays said, once, as before
    codes = ["naming", "orphan_script", "script_missing", "script_model", "script_sanity"]
    assert [code for code, _message in found] == codes
    assert all(message.endswith(meant) for code, message in found if code not in ("script_missing", "orphan_script"))
    assert "The row's checks run on it in its place" in found[2][1]
    (folder / "qwen2_14B_grpo_4_h800_fsdp_vllm.sh").write_text("", "utf-8")  # two candidates: none is sure
    assert [code for code, _message in lint()] == ["orphan_script", "orphan_script", "script_missing"]
