#!/usr/bin/env bash
# MIN configuration: Qwen2-70B GRPO on 32*H20 (fsdp + vllm 0.8.2).
set -x

python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_batch_size=64 \
    actor_rollout_ref.model.path=Qwen/Qwen2-70B-Instruct \
    actor_rollout_ref.rollout.name=vllm \
    trainer.n_gpus_per_node=8 \
    trainer.nnodes=4 \
    trainer.total_epochs=1 $@
