"""``estimate --suggest`` for OpenRLHF: more GPUs as its roles' own flags, the engines that fill them.

OpenRLHF sizes each role apart (``--actor.num_nodes`` x ``--actor.num_gpus_per_node``, the
reference's, ``--vllm.num_engines`` x ``--vllm.tensor_parallel_size``), and with
``colocate_all`` asserts that the engines fill the actor's GPUs exactly and that a
colocated reference has the actor's sizes (``openrlhf/cli/train_ppo_ray.py:41-63`` at
OpenRLHF/OpenRLHF@3c3be62): a suggestion that grows the GPUs or the engine's tensor
parallelism must say all of them, or OpenRLHF stops at start.
"""

from __future__ import annotations

from sphinx_rlresources.cli import estimate_suggest
from sphinx_rlresources.estimator.architectures import bundled
from sphinx_rlresources.estimator.fromscript import Row, plan_for_row
from sphinx_rlresources.estimator.memory import estimate
from sphinx_rlresources.scripts.frameworks import read_run

# The idiom of OpenRLHF/OpenRLHF@3c3be62:examples/scripts/train_ppo_ray_hybrid_engine.sh (colocate_all,
# sleeping engines), here on 2 GPUs with a remote reward.
SCRIPT = """\
python3 -m openrlhf.cli.train_ppo_ray \\
   --actor.num_nodes 1 --actor.num_gpus_per_node 2 \\
   --ref.num_nodes 1 --ref.num_gpus_per_node 2 \\
   --vllm.num_engines 2 --vllm.tensor_parallel_size 1 --train.colocate_all --vllm.enable_sleep \\
   --actor.model_name_or_path Qwen/Qwen2.5-{size}-Instruct \\
   --reward.remote_url http://localhost:5000/get_reward \\
   --algo.advantage.estimator group_norm --algo.kl.init_coef 0.01 --ds.zero_stage 3 \\
   --rollout.n_samples_per_prompt 8
"""


def suggested(size: str) -> str:
    run = read_run(SCRIPT.format(size=size), "train.sh")
    model = f"Qwen2.5-{size}"
    arch = bundled(model)
    assert arch is not None and run.gpus.value == 2
    plan = plan_for_row(Row(model, None, size.lower(), "GRPO", 2, "deepspeed", "vllm"), run, "H100", 79.6)
    given = estimate(arch, plan)
    found, keys = estimate_suggest.advise(given, run)
    return estimate_suggest.as_text(found, keys, given)


def pasted(text: str) -> list[str]:
    block = text.split("(ready to paste):\n", 1)[1].split("\n\n", 1)[0]
    return [line.strip() for line in block.splitlines()]


def test_more_gpus_are_the_actors_flags_with_the_reference_and_engines_that_match() -> None:
    lines = pasted(suggested("72B"))  # nothing holds a 72B model's GRPO on 2 H100s
    nodes = int(next(line for line in lines if line.startswith("--actor.num_nodes ")).split()[1])
    per_node = int(next(line for line in lines if line.startswith("--actor.num_gpus_per_node ")).split()[1])
    assert nodes * per_node > 2
    assert f"--ref.num_nodes {nodes}" in lines and f"--ref.num_gpus_per_node {per_node}" in lines
    tp = int(next(line for line in lines if line.startswith("--vllm.tensor_parallel_size ")).split()[1])
    engines = int(next(line for line in lines if line.startswith("--vllm.num_engines ")).split()[1])
    assert engines * tp == nodes * per_node  # colocate_all: the engines fill the actor's GPUs
    assert not any(line.startswith("gpus") for line in lines)


def test_a_larger_engine_tensor_parallelism_on_the_same_gpus_says_the_engines_too() -> None:
    lines = pasted(suggested("32B"))
    assert "--vllm.tensor_parallel_size 2" in lines and "--vllm.num_engines 1" in lines
    assert not any(line.startswith("--actor.num_nodes") for line in lines)


# A long-generation run in the same idiom (colocate_all on 8 GPUs); OpenRLHF splits a packed sequence
# over a ring-attention group (--ds.ring_attn_size, openrlhf/cli/train_ppo_ray.py:506 @3c3be62), not
# over Ulysses groups, which it does not have.
LONG = """\
python3 -m openrlhf.cli.train_ppo_ray \\
   --actor.num_nodes 1 --actor.num_gpus_per_node 8 \\
   --vllm.num_engines 8 --vllm.tensor_parallel_size 1 --train.colocate_all --vllm.enable_sleep \\
   --actor.model_name_or_path Qwen/Qwen2.5-7B-Instruct \\
   --reward.remote_url http://localhost:5000/get_reward \\
   --algo.advantage.estimator group_norm --ds.zero_stage 3 --ds.packing_samples \\
   --rollout.n_samples_per_prompt 8 --data.max_len 98304 --rollout.max_new_tokens 65536 \\
   --actor.gradient_checkpointing_enable
"""


def test_a_long_sequence_is_split_by_ring_attention_the_flag_openrlhf_has() -> None:
    run = read_run(LONG, "train.sh")
    arch = bundled("Qwen2.5-7B")
    assert arch is not None
    plan = plan_for_row(Row("Qwen2.5-7B", None, "7b", "GRPO", 8, "deepspeed", "vllm"), run, "H100", 79.6)
    given = estimate(arch, plan)
    assert given.verdict == "likely-oom"
    found, keys = estimate_suggest.advise(given, run)
    assert found is not None and found.plan.train_cp in (2, 4, 8) and found.plan.ulysses_sp == 1
    lines = pasted(estimate_suggest.as_text(found, keys, given))
    assert f"--ds.ring_attn_size {found.plan.train_cp}" in lines
    assert not any("ulysses" in line for line in lines)
