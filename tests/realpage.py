"""A framework repository built the way verl's really is, for the tests of issue 22 ("the real page").

Its history, as verl's (volcengine/verl, examples/tuning/ and docs/perf/device_tuning.rst):

1. 2025-04-10 -- the resource page and its tuning scripts, with the defects a careful
   reader of verl's page finds (a name that says another model than the script loads,
   a misspelled link, a MaxBatch the script's own batch log marks as failed, a value
   below the log's largest success, a missing ``$`` and an unset variable, a machine's
   folder on ``PYTHONPATH``, an override given twice, a deprecated key, an engine
   version older than the package requires);
2. 2025-07-13 -- a repository-wide sweep that touches every script and changes nothing
   a row states (the logger's quoting);
3. 2025-09-24 -- an unrelated change that rewrites the 0.5B script (one sample per
   prompt, a batch of 1);
4. 2025-10-20 -- the tuning scripts move out of the main branch, the page's links are
   pinned at commit 3, and today's scripts (``run_<model>_<backend>.sh``) arrive in
   other folders.

The scripts are written for these tests in verl's legacy idiom (they cite the public
files they imitate); none is copied.  :data:`DEFECTS` lists what the checks must find,
by row; every other row must raise nothing.
"""

from __future__ import annotations

from pathlib import Path

from helpers import commit

#: (folder, file name, model path, gpus per node, nodes, lora rank, per-GPU batch, batch log, extra lines, n)
LEGACY = [
    ("0.5b", "qwen2.5-0.5b_grpo-lora_1_h100_fsdp_vllm.sh", "Qwen/Qwen2.5-0.5B-Instruct", 1, 1, 32, 116, "", "", 5),
    (
        "7b",
        "qwen2-7b_grpo-lora_1_h100_fsdp_vllm.sh",
        "Qwen/Qwen2.5-7B-Instruct",  # the name says qwen2: a defect of the name
        1,
        1,
        32,
        16,
        "64√ → 128× → 96√ → 112× → 100√ → 101×",  # 100 ran: the script (and row) stop short
        "",
        5,
    ),
    (
        "7b",
        "qwen2-7b_grpo_2_h800_fsdp_vllm.sh",
        "Qwen/Qwen2-7B-Instruct",
        2,
        1,
        0,
        8,
        "",
        "export PYTHONPATH=/opt/tiger/open_verl:$PYTHONPATH\n",
        5,
    ),
    (  # only the misspelled link leads here: its checks run on it, in the link's place
        "14b",
        "qwen2_14b_grpo_4_h800_fsdp_vllm.sh",
        "Qwen/Qwen2.5-Coder-14B-Instruct",
        4,
        1,
        0,
        8,
        "",
        "export PYTHONPATH=/opt/tiger/open_verl\n",
        5,
    ),
    (
        "32b",
        "qwen2.5-32b_grpo-lora_4_h100_fsdp_vllm.sh",
        "Qwen/Qwen2.5-32B-Instruct",
        4,
        1,
        32,
        45,
        "32√ → 64× → 48× → 40√ → 44√ → 46× → 45×",  # 45 failed, and the row says 45 × 4 = 180
        "",
        5,
    ),
    ("70b", "qwen2-70b_grpo_32_h20_fsdp_vllm.sh", "model_path", 8, 4, 0, 4, "", "", 5),
    (
        "70b",
        "qwen2-70b_grpo_32_h800_fsdp_vllm.sh",
        "Qwen/Qwen2-72B-Instruct",  # the name and the row say 70B
        8,
        4,
        0,
        4,
        "",
        "#### important: vllm version must be >= 0.8.3\n",
        5,
    ),
    ("70b", "qwen2.5-72b_grpo-lora_8_h100_fsdp_vllm.sh", "Qwen/Qwen2.5-72B-Instruct", 8, 1, 32, 22, "", "", 5),
    (  # beside the misspelled link's target, with the misspelling's model field: "did you mean" must not pick it
        "14b",
        "qwen2-14b_grpo-lora_2_h100_fsdp_vllm.sh",
        "Qwen/Qwen2.5-14B-Instruct",
        2,
        1,
        32,
        58,
        "32√ → 64× → 48√ → 56√ → 60× → 58√ → 59×",  # ends at the value set: no finding
        "",
        5,
    ),
]

#: The page's rows: (size, model, task, resource, MaxBatch, train, infer, link's file name, legacy index).
ROWS = [
    ("0.5B", "Qwen2.5-0.5B", "GRPO-LoRA", "1*H100", "116", "fsdp", "vllm0.8.3", None, 0),
    ("7B", "Qwen2.5-7B", "GRPO-LoRA", "1*H100", "16", "fsdp", "vllm0.8.3", None, 1),
    ("7B", "Qwen2-7B", "GRPO", "2*H800", "\\", "fsdp", "vllm0.8.3", None, 2),
    ("14B", "Qwen2-14B", "GRPO", "4*H800", "\\", "fsdp", "vllm0.8.2", "qwen2-14b_grpo_4_h800_fsdp_vllm.sh", 3),
    ("14B", "Qwen2.5-14B", "GRPO-LoRA", "2*H100", "116", "fsdp", "vllm0.8.3", None, 8),
    ("32B", "Qwen2.5-32B", "GRPO-LoRA", "4*H100", "180", "fsdp", "vllm0.8.3", None, 4),
    ("70B", "Qwen2-70B", "GRPO", "32*H20", "\\", "fsdp", "vllm0.8.2", None, 5),
    ("70B", "Qwen2-70B", "GRPO", "32*H800", "\\", "fsdp", "vllm0.8.3", None, 6),
    ("70B", "Qwen2.5-72B", "GRPO-LoRA", "8*H100", "176", "fsdp", "vllm0.8.3", None, 7),
]

#: What the checks must find, by data file and row: (code, field).  Nothing else anywhere.
DEFECTS = {
    ("0.5b", 0): {
        ("rlresources.stale", "tested"),  # rewritten after it was tested: batch 116 -> 1
        ("rlresources.script_sanity", "script"),  # rollout.n=1 with GRPO
        ("rlresources.script_batch", "max_batch"),  # 116 against the script's 1
    },
    ("7b", 0): {
        ("rlresources.naming", "script"),  # qwen2-7b_… loads Qwen2.5-7B
        ("rlresources.script_record", "max_batch"),  # its log says 100 ran
    },
    ("7b", 1): {("rlresources.script_sanity", "script")},  # /opt on PYTHONPATH, an override twice, a deprecated key
    ("14b", 0): {  # the link misspells qwen2_14b_…, and the script it means is checked in its place:
        ("rlresources.script_missing", "script"),
        ("rlresources.naming", "script"),  # qwen2_14b_… has seven fields
        ("rlresources.script_model", "model"),  # it loads Qwen2.5-Coder-14B
        ("rlresources.script_sanity", "script"),  # /opt on PYTHONPATH
        ("rlresources.engine_version", "infer_version"),  # 0.8.2 < setup.py's 0.8.3
    },
    ("14b", 1): {("rlresources.naming", "script")},  # qwen2-14b_… loads Qwen2.5-14B
    ("32b", 0): {("rlresources.script_record", "max_batch")},  # 45 per GPU failed
    ("70b", 0): {
        ("rlresources.script_sanity", "script"),  # model.path=model_path, $data_path never set
        ("rlresources.engine_version", "infer_version"),  # 0.8.2 < setup.py's 0.8.3
        ("rlresources.script_model", "model"),  # read as $model_path: Qwen2-72B, the row says Qwen2-70B
        ("rlresources.naming", "script"),  # qwen2-70b_… loads Qwen2-72B
    },
    ("70b", 1): {
        ("rlresources.naming", "script"),  # qwen2-70b_… loads Qwen2-72B
        ("rlresources.script_model", "model"),  # the row says Qwen2-70B
    },
}


def legacy_script(index: int, sweep: bool = False, rewritten: bool = False) -> str:
    """A launcher in the idiom of volcengine/verl@b178a3c:examples/tuning/*/qwen2-*.sh (written for these tests)."""
    _folder, _name, model, per_node, nodes, lora, per_gpu, log, extra, n = LEGACY[index]
    logger = "'[\"console\"]'" if sweep else "['console']"
    if rewritten:  # the unrelated change: local debugging edits committed by mistake
        per_gpu, n, extra = 1, 1, "export CUDA_VISIBLE_DEVICES=4\n"
    comment = f" # {log}" if log else ""
    model_line = "model_path=Qwen/Qwen2-72B-Instruct\n" if model == "model_path" else f"MODEL_PATH={model}\n"
    model_value = "model_path" if model == "model_path" else "$MODEL_PATH"
    data = "$data_path" if model == "model_path" else "data/gsm8k/train.parquet"
    deprecated = "    actor_rollout_ref.actor.ppo_micro_batch_size=16 \\\n" if ":$PYTHONPATH" in extra else ""
    twice = "    actor_rollout_ref.model.enable_gradient_checkpointing=True \\\n" if ":$PYTHONPATH" in extra else ""
    lora_line = f"    actor_rollout_ref.model.lora_rank={lora} \\\n" if lora else ""
    return (
        "#!/usr/bin/env bash\n"
        f"{extra}{model_line}set -x\n"
        f"nproc_per_gpu={per_gpu}{comment}\n"
        f"nnodes={nodes}\n"
        f"ngpu_per_node={per_node}\n"
        "total_procs=$(( nproc_per_gpu * nnodes * ngpu_per_node ))\n"
        "python3 -m verl.trainer.main_ppo \\\n"
        "    algorithm.adv_estimator=grpo \\\n"
        f"    data.train_files={data} \\\n"
        "    data.train_batch_size=${total_procs} \\\n"
        "    data.max_prompt_length=512 \\\n"
        "    data.max_response_length=1024 \\\n"
        f"    actor_rollout_ref.model.path={model_value} \\\n"
        "    actor_rollout_ref.model.enable_gradient_checkpointing=True \\\n"
        f"{lora_line}{deprecated}"
        "    actor_rollout_ref.actor.fsdp_config.param_offload=True \\\n"
        f"{twice}"
        "    actor_rollout_ref.rollout.name=vllm \\\n"
        f"    actor_rollout_ref.rollout.n={n} \\\n"
        f"    trainer.logger={logger} \\\n"
        "    trainer.n_gpus_per_node=${ngpu_per_node} \\\n"
        "    trainer.nnodes=${nnodes} $@\n"
    )


CURRENT = """\
#!/usr/bin/env bash
# In the idiom of verl-project/verl@1dda039:examples/tuning/lora/run_qwen3_8b_fsdp.sh (written for these tests).
MODEL_PATH=${MODEL_PATH:-Qwen/Qwen3-8B}
NGPUS_PER_NODE=${NGPUS_PER_NODE:-2}
ARGS=(
    algorithm.adv_estimator=grpo
    actor_rollout_ref.model.path=$MODEL_PATH
    actor_rollout_ref.model.lora_rank=64
    actor_rollout_ref.rollout.name=vllm
    actor_rollout_ref.rollout.n=5
    trainer.n_gpus_per_node=$NGPUS_PER_NODE
    trainer.nnodes=${NNODES:-1}
)
python3 -m verl.trainer.main_ppo "${ARGS[@]}" "$@"
"""

SETUP = """\
from setuptools import setup

setup(
    name="framework",
    extras_require={"vllm": ["vllm>=0.8.3,<=0.9.1"], "sglang": ["sglang[all]>=0.4.6.post1"]},
)
"""


def page(link_prefix: str) -> str:
    """The hand-written page, its links under ``link_prefix`` (``…/blob/REF/``)."""
    parts = ["Hardware Resource Needed for RL\n===============================\n\n"]
    sections: dict[str, list[str]] = {}
    for size, model, task, resource, batch, train, infer, link, index in ROWS:
        folder, name = LEGACY[index][0], link or LEGACY[index][1]
        sections.setdefault(size, []).append(
            f"    * - MIN\n      - {model}\n      - {task}\n      - {resource}\n      - {batch}\n      - {train}\n"
            f"      - {infer}\n      - `{name} <{link_prefix}examples/tuning/{folder}/{name}>`_\n"
            "      - Simon Huang\n"
        )
    for size, rows in sections.items():
        underline = "~" * (3 if size == "0.5B" else len(size))  # the real page's short underline
        parts.append(
            f"{size}\n{underline}\n\n.. list-table::\n    :widths: auto\n    :header-rows: 1\n\n"
            "    * - Tag\n      - Model\n      - Task\n      - Resource\n      - MaxBatch\n      - Train\n"
            "      - Infer\n      - Link\n      - Contributor\n" + "".join(rows) + "\n"
        )
    parts.append(  # the real page's placeholder table: lower-case headers, no Contributor column
        "405B\n~~~~\n\n.. table::\n   :widths: auto\n\n"
        "   ====== ====== ====== ======== ======== ====== ====== ======\n"
        "   tag    model  task   resource MaxBatch train  infer  link\n"
        "   ====== ====== ====== ======== ======== ====== ====== ======\n"
        "   \\      \\      \\        \\        \\      \\      \\\n"
        "   ====== ====== ====== ======== ======== ====== ====== ======\n"
    )
    return "".join(parts)


def build(repo: Path) -> str:
    """Build the repository's history (see the module docstring); the pinned commit."""
    repo.mkdir(parents=True)
    from helpers import git

    git(repo, "init", "-q", "-b", "main")
    (repo / "setup.py").write_text(SETUP, "utf-8")
    (repo / "docs" / "perf").mkdir(parents=True)
    for index, (folder, name, *_rest) in enumerate(LEGACY):
        path = repo / "examples" / "tuning" / folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(legacy_script(index), "utf-8")
    (repo / "docs" / "perf" / "device_tuning.rst").write_text(page("https://github.com/org/framework/blob/main/"))
    commit(repo, "[tuning] docs: record the resource requirements", "2025-04-10T12:00:00+00:00")
    for index, (folder, name, *_rest) in enumerate(LEGACY):
        (repo / "examples" / "tuning" / folder / name).write_text(legacy_script(index, sweep=True), "utf-8")
    commit(repo, "[doc] fix: quickstart example can't work on zsh", "2025-07-13T12:00:00+00:00")
    folder, name = LEGACY[0][0], LEGACY[0][1]
    (repo / "examples" / "tuning" / folder / name).write_text(legacy_script(0, sweep=True, rewritten=True), "utf-8")
    pinned = commit(repo, "[recipe] feat: an unrelated integration", "2025-09-24T12:00:00+00:00")
    for folder, name, *_rest in LEGACY:
        (repo / "examples" / "tuning" / folder / name).unlink()
    # run_qwen2_5_vl_7b_fsdp.sh has six '_' fields, as the seed rule's names do, but is no
    # resource script (verl-project/verl@1dda039:examples/tuning/lora/): no row is missing for it.
    today = (
        ("lora", "run_qwen3_8b_fsdp.sh"),
        ("lora", "run_qwen2_5_vl_7b_fsdp.sh"),
        ("scaling", "run_qwen2_5_72b_fsdp.sh"),
    )
    for sub, script in today:
        (repo / "examples" / "tuning" / sub).mkdir(parents=True, exist_ok=True)
        (repo / "examples" / "tuning" / sub / script).write_text(CURRENT, "utf-8")
    (repo / "docs" / "perf" / "device_tuning.rst").write_text(
        page(f"https://github.com/org/framework/blob/{pinned}/"), "utf-8"
    )
    commit(repo, "[misc] chore: move the tuning scripts out; pin the page", "2025-10-20T12:00:00+00:00")
    return pinned
