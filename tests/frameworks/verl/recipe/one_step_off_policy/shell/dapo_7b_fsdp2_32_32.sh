#!/usr/bin/env bash
# Idiom from volcengine/verl@7155be6:recipe/one_step_off_policy/shell/dapo_7b_math_fsdp2_64_64.sh
# (whole nodes for each pool: the trainer's and the rollout's).
# Written for sphinx-rlresources' tests; not a copy.
set -xeuo pipefail

NNODES_TRAIN=${NNODES_TRAIN:-4}
NNODES_ROLLOUT=${NNODES_ROLLOUT:-4}
NGPUS_PER_NODE=${NGPUS_PER_NODE:-8}
MODEL_PATH=${MODEL_PATH:-Qwen/Qwen2.5-Math-7B}

python3 -m recipe.one_step_off_policy.main_ppo \
    algorithm.adv_estimator=grpo \
    actor_rollout_ref.model.path="${MODEL_PATH}" \
    actor_rollout_ref.actor.strategy=fsdp2 \
    actor_rollout_ref.hybrid_engine=False \
    actor_rollout_ref.rollout.name=vllm \
    trainer.nnodes="${NNODES_TRAIN}" \
    trainer.n_gpus_per_node="${NGPUS_PER_NODE}" \
    rollout.nnodes="${NNODES_ROLLOUT}" \
    rollout.n_gpus_per_node="${NGPUS_PER_NODE}"
