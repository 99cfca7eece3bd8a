#!/usr/bin/env bash
# Fixture in the idiom of verl-project/verl@1dda039:examples/tuning/scaling/run_qwen2_5_72b_fsdp.sh
# (written for these tests): four nodes by default, a rollout spanning two of them, offload on.
set -xeuo pipefail
MODEL_PATH=${MODEL_PATH:-Qwen/Qwen2.5-72B-Instruct}
NNODES=${NNODES:-4}
NGPUS_PER_NODE=${NGPUS_PER_NODE:-8}
python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_batch_size=256 \
    actor_rollout_ref.model.path="$MODEL_PATH" \
    actor_rollout_ref.actor.fsdp_config.param_offload=True \
    actor_rollout_ref.actor.fsdp_config.optimizer_offload=True \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.tensor_model_parallel_size=16 \
    actor_rollout_ref.rollout.n=5 \
    trainer.n_gpus_per_node=$NGPUS_PER_NODE \
    trainer.nnodes=$NNODES "$@"
