"""A reference model on GPUs of its own: counted on its own pool, not on the actor's GPUs.

OpenRLHF places the reference on ``--ref.num_nodes`` x ``--ref.num_gpus_per_node`` GPUs of
its own unless ``--train.colocate_actor_ref`` puts it with the actor
(``openrlhf/cli/train_ppo_ray.py:41-103`` at OpenRLHF/OpenRLHF@3c3be62); the actor then
shards its states over its own GPUs only.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from sphinx_rlresources.cli.main import main as rlresources
from sphinx_rlresources.estimator.architectures import bundled
from sphinx_rlresources.estimator.fromscript import Row, plan_for_row
from sphinx_rlresources.estimator.memory import estimate
from sphinx_rlresources.estimator.plan import Plan
from sphinx_rlresources.scripts.frameworks import read_run

OWN = "the reference model's log-prob pass, on its own GPUs"

# The idiom of OpenRLHF/OpenRLHF@3c3be62:examples/scripts/train_ppo_with_reward_fn.sh (ray job
# submit, roles by nodes x GPUs per node), here with GRPO's group_norm, a remote reward and no
# colocation: actor 4 + reference 2 + vLLM 2 x 1.
SCRIPT = """\
ray job submit --address="http://127.0.0.1:8265" -- python3 -m openrlhf.cli.train_ppo_ray \\
   --ref.num_nodes 1 --ref.num_gpus_per_node {ref} \\
   --actor.num_nodes 1 --actor.num_gpus_per_node 4 \\
   --vllm.num_engines 2 --vllm.tensor_parallel_size 1 {colocate}\\
   --actor.model_name_or_path Qwen/Qwen2.5-7B-Instruct \\
   --reward.remote_url http://localhost:5000/get_reward \\
   --algo.advantage.estimator group_norm --algo.kl.init_coef 0.01 \\
   --rollout.n_samples_per_prompt 8 --ds.zero_stage 3
"""


def plan_of(script: str, gpus: int) -> Plan:
    run = read_run(script, "train.sh")
    return plan_for_row(Row("Qwen2.5-7B", None, "7b", "GRPO", gpus, "deepspeed", "vllm"), run, "H100", 79.6)


def test_openrlhf_places_the_reference_on_gpus_of_its_own_unless_colocated() -> None:
    own = plan_of(SCRIPT.format(ref=2, colocate=""), 8)
    assert (own.gpus, own.rollout_gpus, own.ref_gpus, own.train_gpus) == (8, 2, 2, 4)
    shared = plan_of(SCRIPT.format(ref=4, colocate="--train.colocate_actor_ref "), 6)
    assert (shared.gpus, shared.rollout_gpus, shared.ref_gpus, shared.train_gpus) == (6, 2, 0, 4)


def test_the_reference_is_counted_on_its_own_pool_and_not_on_the_actors() -> None:
    arch = bundled("Qwen2.5-7B")
    assert arch is not None
    plan = Plan(
        "GRPO", 8, "H100", 79.6, use_kl=True, param_offload=False, optimizer_offload=False, ref_param_offload=False,
        rollout_gpus=2, ref_gpus=2,
    )  # fmt: skip
    found = estimate(arch, plan).expected
    pool = next(m for m in found.moments if m.name == OWN)
    assert not pool.with_resident  # nothing of the trainer's sits there
    weights = next(t for t in pool.terms if t.name.startswith("reference model"))
    assert weights.bytes == 2 * arch.params() / 2  # bf16, ZeRO-3: sharded over its own 2 GPUs
    trainer = [t.name for t in found.resident] + [t.name for m in found.moments if m is not pool for t in m.terms]
    assert not any(name.startswith("reference model") for name in trainer)
    assert "the reference model's log-prob pass" not in [m.name for m in found.moments]
    actor = next(t for t in found.resident if t.name.startswith("actor parameters"))
    assert actor.bytes == 4 * arch.params() / 4  # the actor's 4 GPUs, not 6
    # below ZeRO-3 every GPU of the pool holds the reference whole (get_ds_eval_config's stage 0)
    whole = estimate(arch, replace(plan, zero_stage=2)).expected
    pool = next(m for m in whole.moments if m.name == OWN)
    assert next(t for t in pool.terms if t.name.startswith("reference model")).bytes == 2 * arch.params()
    # the same run with the reference on the actor's GPUs: no pool, the reference among the trainer's states
    shared = estimate(arch, replace(plan, ref_gpus=0)).expected
    assert OWN not in [m.name for m in shared.moments]
    assert any(t.name.startswith("reference model") for t in shared.resident)


def test_without_a_reference_its_gpus_are_not_taken() -> None:
    run = read_run(SCRIPT.format(ref=2, colocate="").replace("--algo.kl.init_coef 0.01", "--algo.kl.init_coef 0"))
    plan = plan_for_row(Row("Qwen2.5-7B", None, "7b", "GRPO", 6, "deepspeed", "vllm"), run, "H100", 79.6)
    assert plan.ref_gpus == 0 and plan.train_gpus == 4


def test_estimate_ref_gpus_takes_them_from_the_trainer_and_needs_kl(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["estimate", "--model", "Qwen2.5-7B", "--gpus", "8", "--device", "H100", "--no-ref-offload"]
    assert rlresources([*argv, "--kl", "--ref-gpus", "2", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["assumptions"]["ref_gpus"]["value"] == 2
    assert OWN in [m["name"] for m in data["expected"]["moments"]]
    assert rlresources([*argv, "--ref-gpus", "2"]) == 2
    assert "--ref-gpus places a reference model: add --kl" in capsys.readouterr().err
    assert rlresources([*argv, "--kl", "--ref-gpus", "8"]) == 2
    assert "--ref-gpus 8 leaves none of --gpus 8 for the trainer" in capsys.readouterr().err


# The idiom of OpenRLHF/OpenRLHF@3c3be62:examples/scripts/train_ppo_ray_slurm.sh: PPO (GAE, OpenRLHF's
# default estimator) with the critic and the reward model on GPUs of their own, sharing them through
# colocate_critic_reward, and the reference with the actor.
PPO = """\
ray job submit --address="http://127.0.0.1:8265" -- python3 -m openrlhf.cli.train_ppo_ray \\
   --ref.num_nodes 1 --ref.num_gpus_per_node 4 \\
   --reward.num_nodes 1 --reward.num_gpus_per_node 4 \\
   --critic.num_nodes 1 --critic.num_gpus_per_node 4 \\
   --actor.num_nodes 1 --actor.num_gpus_per_node 4 \\
   --vllm.num_engines 4 --vllm.tensor_parallel_size 2 \\
   {colocate}--train.colocate_actor_ref \\
   --actor.model_name_or_path Qwen/Qwen2.5-7B-Instruct \\
   --reward.model_name_or_path Qwen/Qwen2.5-7B-Instruct \\
   --algo.kl.init_coef 0.01 --ds.zero_stage 3 --ds.adam_offload
"""
CRITIC = "the critic's update, on its own GPUs"
REWARD = "the reward model's forward pass, on its own GPUs"


def ppo_plan(colocate: str, gpus: int) -> Plan:
    run = read_run(PPO.format(colocate=colocate), "train.sh")
    return plan_for_row(Row("Qwen2.5-7B", None, "7b", "PPO", gpus, "deepspeed", "vllm"), run, "H100", 79.6)


def test_openrlhf_places_the_critic_and_the_reward_model_on_gpus_of_their_own() -> None:
    with_critic = ppo_plan("--train.colocate_critic_reward ", 16)
    assert (with_critic.train_gpus, with_critic.rollout_gpus, with_critic.critic_gpus) == (4, 8, 4)
    assert (with_critic.reward_gpus, with_critic.reward_with_critic) == (0, True)
    apart = ppo_plan("", 20)
    assert (apart.train_gpus, apart.critic_gpus, apart.reward_gpus, apart.reward_with_critic) == (4, 4, 4, False)


def test_the_critic_and_the_reward_model_are_counted_on_their_own_pools() -> None:
    arch = bundled("Qwen2.5-7B")
    assert arch is not None
    plan = ppo_plan("--train.colocate_critic_reward ", 16)
    found = estimate(arch, plan).expected
    critic = next(m for m in found.moments if m.name == CRITIC)
    assert not critic.with_resident
    states = {t.name: t.bytes for t in critic.terms}
    # bf16 parameters and ZeRO-3 over the critic's own 4 GPUs, Adam's states in host memory (--adam_offload)
    assert states["critic parameters (sharded over its 4 GPUs)"] == 2 * arch.params() / 4
    assert not any(name.startswith("critic optimizer") for name in states)
    assert any(t.name == "critic optimizer states (sharded over its 4 GPUs), offloaded" for t in found.host)
    assert states["reward model beside it (bf16, sharded)"] == 2 * arch.params() / 4
    assert "the critic's update" not in [m.name for m in found.moments]  # nothing of it on the actor's GPUs
    actor = next(t for t in found.resident if t.name.startswith("actor parameters"))
    assert actor.bytes == 2 * arch.params() / 4  # the actor's own 4 GPUs, not 8
    # a reward model on GPUs of its own: its weights and a forward pass with no vocabulary-wide logits
    apart = estimate(arch, ppo_plan("", 20)).expected
    reward = next(m for m in apart.moments if m.name == REWARD)
    assert not reward.with_resident
    assert next(t for t in reward.terms if t.name.startswith("reward model")).bytes == 2 * arch.params() / 4
    assert not any(t.name.startswith("logits") for t in reward.terms)
    assert not any(t.name.startswith("reward model") for t in next(m for m in apart.moments if m.name == CRITIC).terms)


def test_estimate_critic_and_reward_gpus(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["estimate", "--model", "Qwen2.5-7B", "--gpus", "16", "--device", "H100", "--rollout-gpus", "4"]
    assert rlresources([*argv, "--task", "PPO", "--critic-gpus", "4", "--reward-gpus", "2", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["assumptions"]["critic_gpus"]["value"], data["assumptions"]["reward_gpus"]["value"]) == (4, 2)
    assert {CRITIC, REWARD} <= {m["name"] for m in data["expected"]["moments"]}
    assert rlresources([*argv, "--critic-gpus", "4"]) == 2
    assert "--critic-gpus places a critic: add --critic, or give a task that trains one (PPO)" in (
        capsys.readouterr().err
    )
    assert rlresources([*argv, "--task", "PPO", "--critic-gpus", "8", "--reward-gpus", "4"]) == 2
    err = capsys.readouterr().err
    assert "--rollout-gpus 4 + --critic-gpus 8 + --reward-gpus 4 leave none of --gpus 16 for the trainer" in err


def test_openrlhf_scores_over_fp32_logits_and_its_experience_pass_has_no_entropy() -> None:
    # OpenRLHF/OpenRLHF@3c3be62 openrlhf/models/actor.py:267 casts the logits to fp32 before
    # log_probs_from_logits; ppo_actor.py:301 asks for the entropy in the update only.
    arch = bundled("Qwen2.5-7B")
    assert arch is not None
    plan = plan_of(SCRIPT.format(ref=2, colocate=""), 8)
    assert (plan.logits_fp32, plan.pass_entropy) == (True, False)
    found = estimate(arch, plan).expected
    terms = {m.name: {t.name: t.bytes for t in m.terms} for m in found.moments}
    update = terms["the actor's update"]["logits for log-probs (cast to fp32)"]
    scoring = terms["the actor's log-prob pass"]["logits for log-probs (cast to fp32)"]
    assert update / scoring == pytest.approx(10 / 6)  # the copy's fp32 gradient and the bf16 one in the update
    # a framework that scores the bf16 logits (no framework named): 4 bytes, and the entropy in its pass
    plain = estimate(arch, replace(plan, logits_fp32=False, pass_entropy=True)).expected
    plain_terms = {m.name: {t.name: t.bytes for t in m.terms} for m in plain.moments}
    assert plain_terms["the actor's update"]["logits for log-probs"] == pytest.approx(update * 4 / 10)
    assert "logits for log-probs and entropy" in plain_terms["the actor's log-prob pass"]
