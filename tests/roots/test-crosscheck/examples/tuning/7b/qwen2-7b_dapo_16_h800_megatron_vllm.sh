#!/usr/bin/env bash
# Consistent: DAPO runs verl's grpo estimator; megatron chosen by strategy; two nodes
# by arithmetic; the batch must come from the environment (${BATCH:?}), so it is unknown
# and not compared.
set -x

NODES=$(( 16 / 8 ))
BATCH=${BATCH:?set BATCH}
COMMON="trainer.n_gpus_per_node=8 trainer.nnodes=${NODES}"

python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_batch_size=$BATCH \
    actor_rollout_ref.model.path=Qwen/Qwen2-7B \
    actor_rollout_ref.actor.strategy=megatron \
    actor_rollout_ref.rollout.name=vllm \
    $COMMON
