#!/usr/bin/env bash
# Sanity: model.path names a variable without '$'; nnodes comes from nowhere.
set -x

model_path=Qwen/Qwen2-70B-Instruct

python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_batch_size=128 \
    actor_rollout_ref.model.path=model_path \
    actor_rollout_ref.rollout.name=vllm \
    trainer.n_gpus_per_node=8 \
    trainer.nnodes=$NODES \
    trainer.total_epochs=1 $@
