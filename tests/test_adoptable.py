"""Adoptable by every framework: launch files of any kind, each framework's words, the orphan check's scope.

The preset tests hold each naming preset against file names taken from the frameworks'
own repositories (listed with the repository they come from); the end-to-end tests copy
a fixture tree of tests/frameworks/ into a repository of their own, run ``new`` and
``lint`` as a maintainer would, and read the findings.
"""

from __future__ import annotations

import json
import shutil
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from framework_fixtures import FIXTURES, read

from sphinx_rlresources.cli.main import main as rlresources
from sphinx_rlresources.core.globs import compile_glob, compile_scope, scope_problem
from sphinx_rlresources.core.naming import PRESETS, naming_rule
from sphinx_rlresources.core.project import load_project
from sphinx_rlresources.core.validation import quick_check, validator
from sphinx_rlresources.scripts.frameworks import VOCABULARIES, read_file, vocabulary_of
from sphinx_rlresources.scripts.frameworks.vocabulary import family, task_key

# -- the presets against real names -----------------------------------------------------------------

#: name -> the fields the preset reads from it.  Names from NVIDIA-NeMo/RL (examples/configs/recipes/llm/,
#: recipes/vlm/ and tests/test_suites/llm/, at 7ea279a).  The model part is not compared ("any").
NEMO_RL = {
    "grpo-llama3.1-8b-instruct-2n4g-fsdp2tp1-noncolocated.yaml": {
        "task": "grpo",
        "any": "llama3.1-8b-instruct",
        "nodes": "2",
        "gpus_per_node": "4",
        "variant": "fsdp2tp1-noncolocated",
        "gpus": "8",
    },
    "dapo-nanov3.5-30BA3B-4n8g-automodel.yaml": {
        "task": "dapo",
        "any": "nanov3.5-30BA3B",
        "nodes": "4",
        "gpus_per_node": "8",
        "variant": "automodel",
        "gpus": "32",
    },
    "dpo-llama3.1-8b-instruct-4n8g-fsdp2tp2-quick.v2.yaml": {
        "task": "dpo",
        "any": "llama3.1-8b-instruct",
        "nodes": "4",
        "gpus_per_node": "8",
        "variant": "fsdp2tp2-quick.v2",
        "gpus": "32",
    },
    "dapo-qwen2.5-7b.yaml": {"task": "dapo", "any": "qwen2.5-7b"},  # no cluster in the name
    "grpo-dapomath17k-dsv3-32n4g-megatron.sh": {
        "task": "grpo",
        "any": "dapomath17k-dsv3",
        "nodes": "32",
        "gpus_per_node": "4",
        "variant": "megatron",
        "gpus": "128",
    },
    "grpo-deepscaler-1.5b-8K.sh": {"task": "grpo", "any": "deepscaler-1.5b-8K"},
    "vlm_grpo-qwen2.5-vl-3b-instruct-clevr-1n4g-dtensor2tp1.v1.yaml": {  # a VLM recipe runs GRPO
        "task": "grpo",
        "any": "qwen2.5-vl-3b-instruct-clevr",
        "nodes": "1",
        "gpus_per_node": "4",
        "variant": "dtensor2tp1.v1",
        "gpus": "4",
    },
    "distillation-qwen3-32b-to-1.7b-base-1n8g-fsdp2tp1.v1.sh": {
        "task": "distillation",
        "any": "qwen3-32b-to-1.7b-base",
        "nodes": "1",
        "gpus_per_node": "8",
        "variant": "fsdp2tp1.v1",
        "gpus": "8",
    },
}
NEMO_RL_NOT_LAUNCH_FILES = ["common.env", "_mainrecipe_on_branch.yaml", "README-deepseek-v4.1.md", "grpo_math_1B.yaml"]

#: OpenRLHF/OpenRLHF examples/scripts at 34ba290: the RL launchers, then the rest.
OPENRLHF_RL = [
    "train_ppo_llama_ray.sh",
    "train_grpo_ray_hybrid_engine.sh",
    "train_dapo_ray_hybrid_engine.sh",
    "train_gspo_ray_hybrid_engine.sh",
    "train_reinforce_baseline_hybrid_engine.sh",
    "train_reinforce_llama_ray.sh",
    "train_rloo_llama.sh",
    "train_prorlv2_math_hybrid_engine.sh",
    "train_vlm_math_hybrid_engine.sh",
]
OPENRLHF_OTHER = [
    "train_sft_llama.sh",
    "train_dpo_llama.sh",
    "train_rm_llama.sh",
    "train_kto_llama.sh",
    "train_prm_mistral.sh",
    "train_knowledge_distillation.sh",
    "train_rejection_sampling_llama.sh",
    "serve_remote_rm.sh",
    "docker_run.sh",
]
#: THUDM/slime scripts/ (RL launchers, then SFT launchers and helpers).
SLIME_RL = {
    "run-qwen3-4B.sh": "qwen3-4B",
    "run-glm4-9B.sh": "glm4-9B",
    "run-qwen3-30B-A3B-fsdp.sh": "qwen3-30B-A3B-fsdp",
    "run-qwen3-4B_4xgpu.sh": "qwen3-4B_4xgpu",
    "run-deepseek-r1.sh": "deepseek-r1",
    "run-kimi-k2-Instruct.sh": "kimi-k2-Instruct",
}
SLIME_OTHER = ["run-qwen3-4B-base-sft.sh", "run-sft.sh", "run-glm5-744B-A40B-sft.sh", "gen_ci_info.sh", "qwen3-4B.sh"]
#: NovaSky-AI/SkyRL examples/train/.
SKYRL_RL = ["run_gsm8k.sh", "run_dapo_qwen3_1.7b_aime.sh", "run_rloo.sh", "run_geometry3k_lora.sh"]
SKYRL_OTHER = ["run_sft_with_callbacks.sh", "run_eval_fireworks.sh", "run_tinker_server.sh", "serve_qwen1p5b_s3.sh"]
#: huggingface/trl examples/scripts/.
TRL_RL = {"grpo_vlm.py": "grpo", "rloo.py": "rloo", "gspo.py": "gspo", "ppo.py": "ppo", "async_grpo.py": "grpo"}
TRL_CLAIMED_NOT_COMPARED = ["online_dpo.py", "dpo_online.py", "nash_md.py", "xpo.py"]
TRL_OTHER = ["sft.py", "dpo.py", "kto.py", "chat.py", "reward_modeling.py", "grpo_agent_env.yaml"]


@pytest.mark.parametrize(("name", "fields"), NEMO_RL.items())
def test_the_nemo_rl_preset_reads_recipes_and_test_suite_launchers(name: str, fields: dict[str, str]) -> None:
    rule = naming_rule("nemo-rl")
    assert rule.claims(name)
    assert rule.problem(name) is None
    assert rule.parse(name) == fields


def test_each_preset_claims_its_frameworks_launch_files_and_nothing_else() -> None:
    for name in NEMO_RL_NOT_LAUNCH_FILES:
        assert not PRESETS["nemo-rl"].claims(name), name
    for preset, launch, other in (
        ("openrlhf", OPENRLHF_RL, OPENRLHF_OTHER),
        ("slime", list(SLIME_RL), SLIME_OTHER),
        ("skyrl", SKYRL_RL, SKYRL_OTHER),
        ("trl", [*TRL_RL, *TRL_CLAIMED_NOT_COMPARED], TRL_OTHER),
    ):
        rule = PRESETS[preset]
        assert [n for n in launch if not rule.claims(n) or rule.problem(n)] == [], preset
        assert [n for n in other if rule.claims(n)] == [], preset


def test_what_each_preset_compares_with_the_row() -> None:
    # slime's and NeMo-RL's model part is not compared: their names abbreviate or name a base model.
    assert {n: PRESETS["slime"].parse(n) for n in SLIME_RL} == {n: {"any": m} for n, m in SLIME_RL.items()}
    assert {n: (PRESETS["trl"].parse(n) or {}).get("task") for n in TRL_RL} == TRL_RL
    assert all("task" not in (PRESETS["trl"].parse(n) or {}) for n in TRL_CLAIMED_NOT_COMPARED)
    # OpenRLHF names say ppo for scripts that run other estimators: the name's first word is not compared.
    assert PRESETS["openrlhf"].parse("train_ppo_llama_ray.sh") == {"any": "ppo", "variant": "llama_ray"}
    assert PRESETS["skyrl"].parse("run_gsm8k.sh") == {"any": "gsm8k"}


#: verl-project/verl examples/grpo_trainer/: names by verl's rule, then names it forbids (engine, device, precision).
VERL = {
    "run_qwen3_30b_a3b_megatron.sh": {"model": "qwen3_30b_a3b", "train": "megatron"},
    "run_qwen3_4b_fsdp.sh": {"model": "qwen3_4b", "train": "fsdp"},
    "run_gpt_oss_20b_veomni.sh": {"model": "gpt_oss_20b", "train": "veomni"},
    "run_moonlight_16b_automodel.sh": {"model": "moonlight_16b", "train": "automodel"},
    "run_qwen3_30b_a3b_mindspeed.sh": {"model": "qwen3_30b_a3b", "train": "mindspeed"},
}
VERL_FORBIDDEN_NAMES = ["run_qwen3_30b_a3b_vllm_megatron.sh", "run_qwen3_235b_a22b_vllm_megatron_npu.sh"]


def test_the_verl_preset_against_verls_names() -> None:
    rule = PRESETS["verl"]
    assert {n: rule.parse(n) for n in VERL} == VERL
    assert all(rule.claims(n) and rule.problem(n) is None for n in VERL)
    assert all(rule.claims(n) and "keeps out of names" in (rule.problem(n) or "") for n in VERL_FORBIDDEN_NAMES)


def test_each_frameworks_vocabulary_names_its_preset() -> None:
    for framework in ("verl", "nemo-rl", "openrlhf", "slime", "skyrl", "trl"):
        words = vocabulary_of(framework)
        assert words is not None and words.naming in PRESETS, framework


# -- the schema: a row links the file that defines the run, whatever its kind --------------------------


def row(script: str) -> dict[str, Any]:
    return {
        "size": "7B",
        "entries": [
            {
                "tag": "MIN",
                "model": "Qwen2.5-7B",
                "task": "GRPO",
                "gpus": 8,
                "device": "H100",
                "max_batch": None,
                "train": "fsdp",
                "infer": "vllm",
                "script": script,
                "contributor": "Simon",
            }
        ],
    }


@pytest.mark.parametrize(
    "script",
    [
        "examples/configs/recipes/llm/grpo-qwen2.5-7b-1n8g-fsdp2tp1.yaml",
        "tests/test_suites/llm/grpo-qwen2.5-7b-1n8g-fsdp2tp1.sh",
        "examples/scripts/grpo_vlm.py",
        "configs/grpo.toml",
    ],
)
def test_the_schema_takes_a_launch_file_of_any_kind(script: str) -> None:
    fast = quick_check()
    assert list(validator().iter_errors(row(script))) == []
    assert fast is None or fast(row(script))


@pytest.mark.parametrize("script", ["a\u202eb.sh", "x", "a\\b.sh"])
def test_the_schema_still_refuses_what_is_no_file_name(script: str) -> None:
    fast = quick_check()
    assert list(validator().iter_errors(row(script))) != []
    assert fast is None or not fast(row(script))


def test_a_python_entry_point_is_not_read_as_a_shell_script() -> None:
    run = read_file("import trl\nfrom x import (\n  a,\n)\nrm -rf $HOME\n", "examples/scripts/grpo_vlm.py")
    assert (run.framework, run.problems, run.gpus.value) == (None, (), None)


# -- globs -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("glob", "path", "matches"),
    [
        ("examples/configs/recipes/**/*.yaml", "examples/configs/recipes/llm/a.yaml", True),
        ("examples/configs/recipes/**/*.yaml", "examples/configs/recipes/a.yaml", True),  # ** is also no folder
        ("examples/configs/recipes/**/*.yaml", "examples/configs/a.yaml", False),
        ("tests/test_suites/*/*.sh", "tests/test_suites/llm/x/y.sh", False),  # * stays inside one name
        ("scripts/run-[a-z]*.sh", "scripts/run-qwen3-4B.sh", True),
        ("scripts/run-[!q]*.sh", "scripts/run-qwen3-4B.sh", False),
        ("scripts/run-?lm4-9B.sh", "scripts/run-glm4-9B.sh", True),
        ("**/*-quick*.yaml", "examples/configs/recipes/llm/dpo-x-4n8g-fsdp2tp2-quick.v2.yaml", True),
        ("**", "any/depth/at/all", True),
    ],
)
def test_globs(glob: str, path: str, matches: bool) -> None:
    assert compile_glob(glob).matches(path) is matches


def test_a_hostile_glob_is_matched_in_linear_time() -> None:
    glob = compile_glob("/".join(["**"] * 20 + ["*a" * 40 + "b"]))  # within the 200 characters a glob may have
    path = "/".join(["x"] * 50 + ["a" * 400])
    started = time.perf_counter()
    assert not glob.matches(path)
    assert time.perf_counter() - started < 1.0


def test_a_scope_includes_and_excludes() -> None:
    scope = compile_scope(["tests/test_suites/**/*.sh", "!**/*-quick*.sh"])
    assert scope.contains("tests/test_suites/llm/grpo-a-1n8g.sh")
    assert not scope.contains("tests/test_suites/llm/dpo-a-4n8g-quick.sh")
    assert scope.bases == ("tests/test_suites",)


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("examples/**/*.sh", "must be a list of globs"),
        (["/etc/*.sh"], "item '/etc/*.sh' must be a glob from the repository root"),
        (["../x/*.sh"], "item '../x/*.sh' must be a glob from the repository root"),
        (["scripts/run-[a-z.sh"], "item 'scripts/run-[a-z.sh' has a '[' at character 13 without its ']'"),
        (["!examples/debug/**"], "has only '!' exclusions"),
        (["a//b.sh"], "has an empty folder name"),
    ],
)
def test_a_bad_scope_is_a_clear_settings_error(value: object, problem: str) -> None:
    found = scope_problem(value)
    assert found is not None and problem in found


# -- vocabularies ----------------------------------------------------------------------------------


def test_task_keys_and_backend_families() -> None:
    assert [task_key(t) for t in ("GRPO-LoRA", "Dr.GRPO", "REINFORCE++-baseline", "REINFORCE-baseline")] == [
        "grpo",
        "drgrpo",
        "reinforce++baseline",
        "reinforcebaseline",
    ]
    assert {family(b) for b in ("fsdp", "fsdp2", "dtensor", "automodel")} == {"fsdp"}
    assert family("megatron_lite") == "megatron"
    assert family("colossalai") is None


def test_every_vocabulary_writes_a_task_it_also_accepts() -> None:
    for words in VOCABULARIES.values():
        for algorithm in words.tasks:
            label = words.label(algorithm)
            assert label is not None and words.runs(algorithm, label), (words.framework, algorithm)


def test_openrlhf_vocabulary() -> None:
    words = vocabulary_of("openrlhf")
    assert words is not None
    assert words.label("group_norm") == "GRPO"
    assert words.label("group_norm", dynamic_sampling=True) == "DAPO"
    assert words.label("reinforce_baseline") == "REINFORCE++-baseline"
    assert words.runs("group_norm", "PPO") is False
    assert words.runs("group_norm", "DAPO-LoRA") is True
    assert words.runs("reinforce_baseline", "REINFORCE-baseline") is True
    assert words.runs("group_norm", "MyOwnAlgo") is None  # a task it does not know is not compared


# -- end to end, in a repository of the framework's shape ---------------------------------------------


def make_repo(tmp_path: Path, framework: str, pyproject: str, data: str, size: str = "7b") -> Path:
    shutil.copytree(FIXTURES / framework, tmp_path, dirs_exist_ok=True)
    (tmp_path / "pyproject.toml").write_text(f"[tool.rlresources]\n{pyproject}", encoding="utf-8")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / f"{size}.yaml").write_text(data, encoding="utf-8")
    return tmp_path


def lint(capsys: pytest.CaptureFixture[str], *extra: str) -> list[dict[str, Any]]:
    rlresources(["lint", "--format", "json", *extra])
    found: list[dict[str, Any]] = json.loads(capsys.readouterr().out)
    return found


def codes(found: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return sorted((f["code"].removeprefix("rlresources."), f["file"]) for f in found)


ROW = """\
  - tag: MIN
    model: {model}
    task: {task}
    gpus: {gpus}
    device: H100
    max_batch: null
    train: {train}
    infer: {infer}
    script: {script}
    contributor: Simon
"""


def data(size: str, *rows: dict[str, Any]) -> str:
    return f"size: {size}\nentries:\n" + "".join(ROW.format(**r) for r in rows)


NEMO_RECIPE = "examples/configs/recipes/llm/grpo-qwen2.5-7b-1n8g-fsdp2tp1.yaml"
NEMO_LAUNCHER = "tests/test_suites/llm/grpo-qwen2.5-7b-1n8g-fsdp2tp1.sh"


@pytest.fixture
def nemo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = make_repo(tmp_path, "nemorl", 'naming = "nemo-rl"\n', "size: 7B\nentries: []\n")
    monkeypatch.chdir(repo)
    return repo


def test_new_under_the_nemo_rl_preset_writes_rows_lint_accepts(nemo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lora = "examples/configs/recipes/llm/grpo-qwen3-30ba3b-4n8g-megatron-lora.yaml"
    assert rlresources(["new", lora, "--size", "7B", "--dry-run"]) == 0
    assert "    task: GRPO-LoRA\n" in capsys.readouterr().out  # the name says grpo; the recipe's peft rank 64, LoRA
    for script in (NEMO_RECIPE, lora):
        assert rlresources(["new", script, "--size", "7B", "--tag", "MIN", "--contributor", "Simon"]) == 0
    capsys.readouterr()
    found = lint(capsys)
    assert [f for f in found if f["code"] in ("rlresources.schema", "rlresources.naming")] == []


def test_new_says_where_a_model_given_at_run_time_comes_from(nemo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert rlresources(["new", NEMO_LAUNCHER, "--size", "7B", "--dry-run"]) == 0
    assert (
        "    model: TODO  # the model family and size; the script reads it from $NRL_QWEN25_7B_CKPT: give that in env "
        "to check it\n" in capsys.readouterr().out
    )


def test_train_fsdp2_on_a_dtensor_recipe_passes(nemo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        {"model": "Qwen2.5-7B", "task": "GRPO", "gpus": 8, "train": "fsdp2", "infer": "vllm", "script": NEMO_RECIPE},
    ]
    (nemo / "data" / "7b.yaml").write_text(data("7B", *rows), encoding="utf-8")
    found = lint(capsys, "--scripts", "examples/configs/recipes")
    assert [f for f in found if f["code"].startswith("rlresources.script_")] == []
    rows[0]["train"] = "megatron"
    (nemo / "data" / "7b.yaml").write_text(data("7B", *rows), encoding="utf-8")
    found = lint(capsys, "--scripts", "examples/configs/recipes")
    assert [f["code"] for f in found if f["code"].startswith("rlresources.script_")] == ["rlresources.script_train"]


def test_the_orphan_checks_scope(nemo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recipes = sorted(
        f"examples/configs/recipes/llm/{p.name}" for p in (nemo / "examples/configs/recipes/llm").glob("*.yaml")
    )
    launchers = sorted(
        f"tests/test_suites/llm/{p.name}"
        for p in (nemo / "tests/test_suites/llm").glob("*.sh")
        if PRESETS["nemo-rl"].claims(p.name)
    )
    # By default the preset's folder: the recipes; their test-suite launchers (CI) need no row of their own.
    found = lint(capsys)
    assert sorted(x["file"] for x in found if x["code"] == "rlresources.orphan_script") == recipes
    # Launchers are launch files when the setting says so (run_explicit.sh is not one: the rule does not claim it).
    (nemo / "pyproject.toml").write_text(
        '[tool.rlresources]\nnaming = "nemo-rl"\nlaunch_files = ["tests/test_suites/**/*.sh"]\n', encoding="utf-8"
    )
    found = lint(capsys)
    assert sorted(x["file"] for x in found if x["code"] == "rlresources.orphan_script") == launchers
    # One setting narrows it: launchers left out with a '!' glob.
    pyproject = nemo / "pyproject.toml"
    pyproject.write_text(
        '[tool.rlresources]\nnaming = "nemo-rl"\nlaunch_files = ["examples/configs/recipes/**/*.yaml", '
        '"!**/*-orphan.yaml"]\n',
        encoding="utf-8",
    )
    found = lint(capsys)
    assert sorted(x["file"] for x in found if x["code"] == "rlresources.orphan_script") == [
        r for r in recipes if not r.endswith("-orphan.yaml")
    ]
    # [] turns the check off, and lint says so.
    pyproject.write_text('[tool.rlresources]\nnaming = "nemo-rl"\nlaunch_files = []\n', encoding="utf-8")
    assert rlresources(["lint"]) == 0
    assert "the orphan check is off (launch_files = [])" in capsys.readouterr().out


def test_script_glob_is_refused_with_its_replacement(nemo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (nemo / "pyproject.toml").write_text('[tool.rlresources]\nscript_glob = "examples/**/*.sh"\n', encoding="utf-8")
    assert rlresources(["lint"]) == 2
    assert capsys.readouterr().err == (
        "rlresources: error: pyproject.toml: tool.rlresources.script_glob was replaced by launch_files, a list of "
        'globs; write launch_files = ["examples/**/*.sh"] instead\n'
    )
    (nemo / "pyproject.toml").write_text('[tool.rlresources]\nlaunch_files = ["x/[a.sh"]\n', encoding="utf-8")
    assert rlresources(["lint"]) == 2
    assert "tool.rlresources.launch_files item 'x/[a.sh' has a '[' at character 3 without its ']'" in (
        capsys.readouterr().err
    )


def test_a_checkpoint_given_at_run_time(nemo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """NeMo-RL's $NRL_..._CKPT: a warning at the model only when the row's env does not give it."""
    text = data(
        "7B",
        {"model": "Qwen2.5-7B", "task": "GRPO", "gpus": 8, "train": "fsdp", "infer": "vllm", "script": NEMO_LAUNCHER},
    )
    (nemo / "data" / "7b.yaml").write_text(text, encoding="utf-8")
    found = [f for f in lint(capsys, "--scripts", "tests") if f["code"].startswith("rlresources.script_")]
    assert [(f["code"], f["severity"], f["json_path"].rsplit(".", 1)[-1]) for f in found] == [
        ("rlresources.script_sanity", "warning", "model")
    ]
    assert found[0]["message"] == (
        f"{NEMO_LAUNCHER}:15: policy.model_name is given at run time by $NRL_QWEN25_7B_CKPT, which the script "
        "reads without setting it or giving a default, so the row's model cannot be checked against it; give it in "
        "the row's env (env: {NRL_QWEN25_7B_CKPT: ...}) with the value the row was measured with"
    )
    with_env = text + "    env:\n      NRL_QWEN25_7B_CKPT: Qwen/Qwen2.5-7B\n"
    (nemo / "data" / "7b.yaml").write_text(with_env, encoding="utf-8")
    assert [f for f in lint(capsys, "--scripts", "tests") if f["code"].startswith("rlresources.script_")] == []
    wrong = with_env.replace("NRL_QWEN25_7B_CKPT: Qwen/Qwen2.5-7B", "NRL_QWEN25_7B_CKPT: meta-llama/Llama-3.1-8B")
    (nemo / "data" / "7b.yaml").write_text(wrong, encoding="utf-8")
    found = [f for f in lint(capsys, "--scripts", "tests") if f["code"].startswith("rlresources.script_")]
    assert [f["code"] for f in found] == ["rlresources.script_model"]  # with the env, the model is checked


def test_a_finding_names_the_inherited_config_it_comes_from(nemo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    row_ = {"model": "Qwen2.5-7B", "task": "GRPO", "gpus": 16, "train": "fsdp", "infer": "vllm"}
    text = data("7B", {**row_, "script": NEMO_LAUNCHER}) + "    env:\n      NRL_QWEN25_7B_CKPT: Qwen/Qwen2.5-7B\n"
    (nemo / "data" / "7b.yaml").write_text(text, encoding="utf-8")
    found = [f for f in lint(capsys, "--scripts", "tests") if f["code"] == "rlresources.script_gpus"]
    # cluster.num_nodes is line 63 of the base config the recipe inherits, not of the launcher.
    assert [f["message"] for f in found] == [
        "row says gpus 16 but examples/configs/grpo_base.yaml:63 runs cluster.num_nodes × cluster.gpus_per_node "
        "= 8 GPUs; fix the row or the script"
    ]
    run = read("nemorl", NEMO_LAUNCHER)
    assert (run.gpus.file, run.gpus.line) == ("examples/configs/grpo_base.yaml", 63)


def test_a_rows_model_is_held_against_its_model_id(nemo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = {"task": "GRPO", "gpus": 8, "train": "fsdp", "infer": "vllm", "script": NEMO_RECIPE}
    text = data("7B", {**base, "model": "Qwen2.5-7B"}).replace(
        "    contributor: Simon\n", "    model_id: Qwen/Qwen2.5-72B-Instruct\n    contributor: Simon\n"
    )
    (nemo / "data" / "7b.yaml").write_text(text, encoding="utf-8")
    found = [f for f in lint(capsys, "--scripts", "examples") if f["code"] == "rlresources.model_id"]
    assert [(f["line"], f["message"]) for f in found] == [
        (
            12,
            "row says model 'Qwen2.5-7B' but its model_id 'Qwen/Qwen2.5-72B-Instruct' is another model; fix model "
            "(the name the tables show) or model_id (the checkpoint it was measured with)",
        )
    ]
    agreeing = text.replace("Qwen/Qwen2.5-72B-Instruct", "Qwen/Qwen2.5-7B-Instruct")
    (nemo / "data" / "7b.yaml").write_text(agreeing, encoding="utf-8")
    assert [f for f in lint(capsys, "--scripts", "examples") if f["code"] == "rlresources.model_id"] == []


@pytest.fixture
def openrlhf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = make_repo(tmp_path, "openrlhf", 'naming = "openrlhf"\nscripts = ["examples/scripts"]\n', "")
    monkeypatch.chdir(repo)
    return repo


def test_new_names_openrlhfs_tasks(openrlhf: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tasks = {}
    for script in ("train_dapo_hybrid.sh", "train_reinforce_baseline_lora.sh"):
        rlresources(["new", f"examples/scripts/{script}", "--size", "7B", "--dry-run"])
        out = capsys.readouterr().out
        tasks[script] = next(line.split(":", 1)[1].strip() for line in out.splitlines() if "task:" in line)
    assert tasks == {
        "train_dapo_hybrid.sh": "DAPO",  # group_norm with --dynamic_filtering
        "train_reinforce_baseline_lora.sh": "REINFORCE++-baseline-LoRA",  # --ds.lora.rank 32
    }


@pytest.mark.parametrize(
    ("task", "finding"),
    [("DAPO", False), ("GRPO", False), ("PPO", True), ("REINFORCE++", True), ("MyOwnAlgo", False)],
)
def test_the_task_check_speaks_openrlhf(
    openrlhf: Path, capsys: pytest.CaptureFixture[str], task: str, finding: bool
) -> None:
    script = "examples/scripts/train_dapo_hybrid.sh"
    text = data("7B", {"model": "Qwen2.5-7B", "task": task, "gpus": 8, "train": "deepspeed", "infer": "vllm",
                       "script": script})  # fmt: skip
    (openrlhf / "data" / "7b.yaml").write_text(text, encoding="utf-8")
    found = [f for f in lint(capsys) if f["code"] == "rlresources.script_algorithm"]
    assert bool(found) is finding
    if task == "PPO":
        assert found[0]["message"] == (
            f"task 'PPO' means advantage_estimator=gae but {script}:18 runs advantage_estimator=group_norm (DAPO); "
            "fix the task or the script"
        )


def test_the_adoption_pages_settings_per_framework_are_usable(tmp_path: Path) -> None:
    """Every ``[tool.rlresources]`` block of docs/adopting.rst's per-framework section is read without error."""
    text = (FIXTURES.parents[1] / "docs" / "adopting.rst").read_text("utf-8")
    section = text.split(".. _adopting-frameworks:", 1)[1]
    blocks = [b.split("\n\n", 1)[0] for b in section.split(".. code-block:: toml\n\n")[1:]]
    assert len(blocks) == 5
    for block in blocks:
        (tmp_path / "pyproject.toml").write_text(textwrap.dedent(block), encoding="utf-8")
        project = load_project(tmp_path)
        rule = naming_rule(project.naming)
        assert project.launch_files and compile_scope(project.launch_files).include, block
        assert vocabulary_of(rule.name) is not None  # each preset is named after its framework


@pytest.mark.parametrize(
    ("framework", "path", "label"),
    [
        ("slime", "scripts/run-mla-disaggregated.sh", "GSPO"),  # --advantage-estimator gspo
        ("slime", "examples/search/run_colocated_rollout.sh", "REINFORCE++-baseline"),
        ("skyrl", "examples/train/ppo/run_ppo_disagg.sh", "PPO"),  # trainer.algorithm.advantage_estimator=gae
        ("trl", "examples/scripts/rloo_cli.sh", "RLOO"),  # trl rloo
        ("nemorl", "examples/configs/recipes/llm/distillation-qwen3-4b-2n8g-anchors.yaml", "Distillation"),
        ("verl", "examples/grpo_trainer/run_qwen2_5_7b_dapo_fsdp.sh", "DAPO"),  # grpo + filter_groups.enable
        ("openrlhf", "examples/scripts/train_dapo_hybrid.sh", "DAPO"),  # group_norm + --dynamic_filtering
    ],
)
def test_each_framework_names_the_task_it_runs(framework: str, path: str, label: str) -> None:
    run = read(framework, path)
    words = vocabulary_of(run.framework)
    assert words is not None and words.label(run.algorithm.value, run.dynamic_sampling.value) == label


def test_a_recipes_lora_setting_is_cited_where_it_is_inherited(nemo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{"model": "Qwen2.5-7B", "task": "GRPO-LoRA", "gpus": 8, "train": "fsdp", "infer": "vllm",
             "script": NEMO_RECIPE}]  # fmt: skip
    (nemo / "data" / "7b.yaml").write_text(data("7B", *rows), encoding="utf-8")
    found = [f for f in lint(capsys, "--scripts", "examples/configs/recipes") if f["code"] == "rlresources.script_lora"]
    assert [f["message"] for f in found] == [
        "task 'GRPO-LoRA' says LoRA but examples/configs/grpo_base.yaml:27 sets policy.dtensor_cfg.lora_cfg.enabled: "
        "false, so it trains the full model; drop '-LoRA' from the task, or set the LoRA rank in the script"
    ]
