"""The loader: every schema problem located, duplicate keys caught, paths kept inside the root."""

from __future__ import annotations

from pathlib import Path

from sphinx_rlresources.core.diagnostics import Subtype
from sphinx_rlresources.core.loader import load_dataset
from sphinx_rlresources.core.validation import schema

GOOD_ROW = """\
  - tag: MIN
    model: Qwen2.5-7B
    task: GRPO-LoRA
    gpus: 1
    device: H100
    max_batch: 16
    train: fsdp
    infer: vllm
    infer_version: "0.8.3"
    script: examples/tuning/7b/qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh
    contributor: SimonHuang
"""


def make_repo(tmp_path: Path, data: dict[str, str], scripts: tuple[str, ...] = ()) -> tuple[Path, Path]:
    (tmp_path / "data").mkdir()
    for name, text in data.items():
        (tmp_path / "data" / name).write_text(text, "utf-8")
    for script in scripts:
        path = tmp_path / script
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/bin/sh\n", "utf-8")
    return tmp_path / "data", tmp_path


def lines(data_dir: Path, root: Path) -> list[str]:
    dataset = load_dataset(data_dir, root, display=lambda p: p.relative_to(root).as_posix())
    return [d.format() for d in dataset.diagnostics]


def test_valid_file_loads_with_marks(tmp_path: Path) -> None:
    data_dir, root = make_repo(
        tmp_path,
        {"7b.yaml": "size: 7B\nentries:\n" + GOOD_ROW},
        ("examples/tuning/7b/qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh",),
    )
    dataset = load_dataset(data_dir, root)
    assert dataset.diagnostics == []
    (entry,) = dataset.entries
    assert (entry.source.line, entry.source.column) == (3, 5)
    assert entry.at("gpus") == (6, 11)
    assert entry.resource == "1*H100"
    assert entry.infer_label == "vllm0.8.3"
    assert dataset.scripts[entry.script] == (root / entry.script).resolve()


def test_every_schema_error_of_a_file_is_reported_with_path_and_fix(tmp_path: Path) -> None:
    row = (
        GOOD_ROW.replace("gpus: 1", "gpu: 1")
        .replace("tag: MIN", "tag: MINIMUM")
        .replace("max_batch: 16", "max_batch: -3")
    )
    data_dir, root = make_repo(tmp_path, {"7b.yaml": "size: 7B\nentries:\n" + row})
    fields = (
        "contributor, description, device, env, evidence, global_batch, gpus, infer, infer_version, max_batch, model, "
        "model_id, notes, parallelism, peak_memory, script, script_ref, seq_len, step_time, tag, task, tested, "
        "throughput, train"
    )
    assert lines(data_dir, root) == [
        "data/7b.yaml:3:5: error: entries[0]: the required field 'gpus' is missing; add it, for example gpus: 8 "
        "[rlresources.schema]",
        "data/7b.yaml:3:10: error: entries[0].tag: 'MINIMUM' is not one of MIN, RECOMMENDED; did you mean MIN? "
        "[rlresources.schema]",
        f"data/7b.yaml:6:5: error: entries[0]: unknown field 'gpu'; did you mean 'gpus'? The fields are: {fields} "
        "[rlresources.schema]",
        "data/7b.yaml:8:16: error: entries[0].max_batch: -3 is out of range; it must be at least 1 "
        "[rlresources.schema]",
    ]


def test_duplicate_keys_are_errors(tmp_path: Path) -> None:
    row = GOOD_ROW.replace("    device: H100\n", "    device: H100\n    device: H800\n")
    data_dir, root = make_repo(tmp_path, {"7b.yaml": "size: 7B\nentries:\n" + row})
    assert lines(data_dir, root) == [
        "data/7b.yaml:8:5: error: duplicate key 'device' (first given at line 7, column 5); YAML would keep only "
        "the last one: remove one of them [rlresources.yaml]"
    ]
    dataset = load_dataset(data_dir, root)
    assert not dataset.sizes["7b"].readable


def test_a_size_with_no_rows_is_known(tmp_path: Path) -> None:
    data_dir, root = make_repo(
        tmp_path, {"405b.yaml": "size: 405B\nentries: []\n", "70b.yaml": "size: 70B\nentries: []\n"}
    )
    dataset = load_dataset(data_dir, root)
    assert [s.label for s in dataset.sizes.values()] == ["70B", "405B"]  # ordered by size, not by name
    assert dataset.diagnostics == []


def test_symlinked_script_leaving_the_root_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.sh").write_text("secret\n", "utf-8")
    repo = tmp_path / "repo"
    repo.mkdir()
    data_dir, root = make_repo(repo, {"7b.yaml": "size: 7B\nentries:\n" + GOOD_ROW})
    link = root / "examples/tuning/7b/qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh"
    link.parent.mkdir(parents=True)
    link.symlink_to(outside / "secret.sh")
    dataset = load_dataset(data_dir, root)
    assert [d.subtype for d in dataset.diagnostics] == [Subtype.SCRIPT_PATH]
    assert "symbolic link to a place outside the repository root" in dataset.diagnostics[0].message
    assert dataset.scripts == {}


def test_every_entry_field_has_a_description_and_an_example() -> None:
    entry = schema()["$defs"]["entry"]
    for name, spec in entry["properties"].items():
        assert spec.get("description"), name
        assert "examples" in spec, name


def test_every_diagnostic_names_its_json_path(tmp_path: Path) -> None:
    row = GOOD_ROW.replace("gpus: 1", 'gpus: "1"')
    bad_name = GOOD_ROW.replace("qwen2.5-7b_grpo-lora_1_h100", "qwen2.5-7b_grpo-lora_2_h100").replace(
        "contributor: SimonHuang", "contributor: {name: S, url: 'javascript:x'}"
    )
    data_dir, root = make_repo(
        tmp_path,
        {
            "7b.yaml": "size: 7B\nentries:\n" + GOOD_ROW,
            "70b.yaml": "size: 72B\nentries: []\n",
            "14b.yaml": "size: 14B\nentries:\n" + row + bad_name,
        },
        ("examples/tuning/7b/qwen2.5-7b_grpo-lora_1_h100_fsdp_vllm.sh",),
    )
    found = {
        (d.path.rsplit("/", 1)[-1], d.subtype.value, d.json_path) for d in load_dataset(data_dir, root).diagnostics
    }
    assert found == {
        ("14b.yaml", "schema", "entries[0].gpus"),
        ("14b.yaml", "url", "entries[1].contributor.url"),
        ("70b.yaml", "size_label", "size"),
    }
    (root / "data" / "14b.yaml").write_text(
        "size: 14B\nentries:\n" + GOOD_ROW.replace("fsdp_vllm.sh", "fsdp_vllm2.sh"), "utf-8"
    )
    found = {(d.subtype.value, d.json_path) for d in load_dataset(data_dir, root).diagnostics}
    assert ("script_missing", "entries[0].script") in found
    assert ("naming", "entries[0].infer") in found  # the name says infer vllm2
