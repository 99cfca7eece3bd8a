#!/usr/bin/env bash
# Idiom from volcengine/verl@1aa50bc:recipe/one_step_off_policy/shell/grpo_0.6b_gsm8k_fsdp2_2_6.sh
# (a rollout pool of 2 GPUs and a trainer pool of 6 on the same node of 8).
# Written for sphinx-rlresources' tests; not a copy.
set -x

NNODES=${NNODES:-1}
NGPUS_PER_NODE=${NGPUS_PER_NODE:-8}
rollout_gpus=2
trainer_gpus=$((NGPUS_PER_NODE - rollout_gpus))

python3 -m recipe.one_step_off_policy.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_batch_size=256 \
    actor_rollout_ref.model.path=Qwen/Qwen3-1.7B \
    actor_rollout_ref.actor.strategy=fsdp2 \
    actor_rollout_ref.hybrid_engine=False \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.tensor_model_parallel_size=1 \
    trainer.nnodes="${NNODES}" \
    trainer.n_gpus_per_node="${trainer_gpus}" \
    rollout.nnodes="${NNODES}" \
    rollout.n_gpus_per_node="${rollout_gpus}" \
    "$@"
