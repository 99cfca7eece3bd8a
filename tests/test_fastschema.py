"""The compiled quick check agrees with jsonschema on every document, valid or not.

The quick check decides whether jsonschema is asked at all, so a document it wrongly
called valid would lose its diagnostics: these tests compare the two answers on every
data file in the repository and on many generated variations of a valid row.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sphinx_rlresources.core.fastschema import compile_schema
from sphinx_rlresources.core.validation import quick_check, schema, validate, validator
from sphinx_rlresources.safe.yamlsafe import YamlDate, YamlError, decode, load

REPO = Path(__file__).resolve().parent.parent

ROW: dict[str, Any] = {
    "tag": "MIN",
    "model": "Qwen2.5-72B",
    "task": "GRPO-LoRA",
    "gpus": 8,
    "device": "H100",
    "max_batch": 176,
    "train": "fsdp",
    "infer": "vllm",
    "infer_version": "0.8.3",
    "script": "examples/tuning/70b/qwen2.5-72b_grpo-lora_8_h100_fsdp_vllm.sh",
    "contributor": {"name": "Simon Huang", "github": "SimonHuang", "url": "https://example.org/~s"},
    "model_id": "Qwen/Qwen2.5-72B-Instruct",
    "evidence": "https://wandb.ai/org/project/runs/abc123",
    "tested": "2025-06-25",
    "notes": "needs 1.5 TB of host memory",
    "seq_len": {"prompt": 1024, "response": 3072},
    "global_batch": 512,
    "parallelism": {"tp": 4, "pp": 2},
    "throughput": 1520.5,
    "step_time": 42,
    "peak_memory": 61.2,
    "description": "see [the logs](https://wandb.ai/org/p/runs/1)",
}


def quick() -> Any:
    check = quick_check()
    assert check is not None, "the packaged schema should compile"
    return check


def _reads_as_yaml(path: Path) -> bool:
    try:
        load(decode(path.read_bytes()))
    except YamlError:
        return False  # a fixture that is deliberately not YAML: the loader never validates it
    return True


def data_files() -> list[Path]:
    """Every YAML file of the repository's data and tests that is YAML at all, chosen when tests are collected."""
    found = [*REPO.glob("data/*.yaml"), *REPO.glob("tests/**/*.yaml"), *REPO.glob("tests/**/*.yml")]
    return sorted(p for p in found if p.is_file() and _reads_as_yaml(p))


@pytest.mark.parametrize("path", data_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_agrees_on_every_data_file_in_the_repository(path: Path) -> None:
    doc = load(decode(path.read_bytes()))
    assert quick()(doc.value) == validator().is_valid(doc.value)


def test_the_repository_has_files_of_both_answers() -> None:
    """The comparison above means something: some files are valid data, some are not."""
    answers = {quick()(load(decode(p.read_bytes())).value) for p in data_files()}
    assert answers == {True, False}


def test_a_valid_row_and_common_mistakes() -> None:
    good = {"size": "70B", "entries": [ROW, {**ROW, "contributor": "SimonHuang"}]}
    assert quick()(good)
    for field, bad in [
        ("gpus", "8"), ("gpus", True), ("gpus", 0), ("gpus", 8.0), ("tag", "min"), ("tested", "2025-02-30"),
        ("infer_version", 0.1), ("contributor", {"github": "x"}), ("contributor", ""), ("evidence", "ftp://x"),
        ("max_batch", None), ("script", "a.py"), ("notes", "two\nlines"),
    ]:  # fmt: skip
        doc = {"size": "70B", "entries": [{**ROW, field: bad}]}
        assert quick()(doc) == validator().is_valid(doc), (field, bad)
    missing = {k: v for k, v in ROW.items() if k != "device"}
    assert not quick()({"size": "70B", "entries": [missing]})
    assert not quick()({"size": "70B", "entries": [{**ROW, "gpu": 8}]})
    assert not quick()({"size": "70B"})
    assert not quick()([])


def test_unknown_keywords_fall_back_to_jsonschema() -> None:
    extended = copy.deepcopy(schema())
    extended["properties"]["size"]["const"] = "70B"
    assert compile_schema(extended) is None


def test_validate_still_explains_what_the_quick_check_refuses() -> None:
    doc = load("size: 70B\nentries:\n  - {tag: MIN, model: M, task: GRPO, gpus: many}\n")
    messages = [message for _line, _col, message in validate(doc)]
    assert any("entries[0].gpus: 'many' is text, but a whole number is expected" in m for m in messages)


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 70000), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12), st.sampled_from(["MIN", "RECOMMENDED", "H100", "2025-06-25", "https://x.org/a", "a@b.c"]),
    st.builds(YamlDate, st.sampled_from(["2025-06-25", "2025-13-01"])),
)  # fmt: skip
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=400)
@given(
    changes=st.dictionaries(st.sampled_from([*ROW, "extra", "name", "github", "url"]), values, max_size=3),
    drop=st.sets(st.sampled_from(list(ROW)), max_size=2),
    size=st.one_of(st.just("70B"), values),
)
def test_agrees_on_generated_variations(changes: dict[str, Any], drop: set[str], size: Any) -> None:
    row = {k: v for k, v in {**ROW, **changes}.items() if k not in drop}
    for doc in ({"size": size, "entries": [row]}, {"size": "7B", "entries": [ROW, {**row, "contributor": changes}]}):
        assert quick()(doc) == validator().is_valid(doc), doc


def test_valid_data_never_imports_jsonschema() -> None:
    """Loading valid data costs neither jsonschema's start-up time nor its memory."""
    import subprocess
    import sys

    code = (
        "import sys; from pathlib import Path; from sphinx_rlresources.core.loader import load_dataset; "
        "d = load_dataset(Path('data'), Path('.')); "
        "print(len(d.diagnostics), 'jsonschema' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "False"]
