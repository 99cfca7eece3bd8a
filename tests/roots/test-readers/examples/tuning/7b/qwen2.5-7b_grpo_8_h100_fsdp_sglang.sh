#!/usr/bin/env bash
# RECOMMENDED configuration: Qwen2.5-7B GRPO on 8*H100 (fsdp + sglang 0.4.6).
set -x

python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_batch_size=256 \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct \
    actor_rollout_ref.rollout.name=sglang \
    trainer.n_gpus_per_node=8 \
    trainer.nnodes=1 \
    trainer.total_epochs=1 $@
