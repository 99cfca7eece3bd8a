#!/bin/bash
# Idiom from verl-project/verl recipe/dapo/run_dapo_qwen2.5_32b.sh (DAPO is GRPO's estimator with
# algorithm.filter_groups.enable=True, the dynamic sampling, and clip-higher) in the run_<model>_<backend>.sh
# naming of examples/grpo_trainer. Written for sphinx-rlresources' tests; not a copy.
set -x

python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    algorithm.filter_groups.enable=True \
    algorithm.filter_groups.metric=acc \
    actor_rollout_ref.actor.clip_ratio_low=0.2 \
    actor_rollout_ref.actor.clip_ratio_high=0.28 \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=8 \
    trainer.n_gpus_per_node=8 \
    trainer.nnodes=1
