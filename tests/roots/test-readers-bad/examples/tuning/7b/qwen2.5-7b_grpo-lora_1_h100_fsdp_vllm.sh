#!/usr/bin/env bash
# MIN configuration: Qwen2.5-7B GRPO-LoRA on 1*H100 (fsdp + vllm 0.8.3).
set -x

python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_batch_size=16 \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct \
    actor_rollout_ref.model.lora_rank=32 \
    actor_rollout_ref.rollout.name=vllm \
    trainer.n_gpus_per_node=1 \
    trainer.nnodes=1 \
    trainer.total_epochs=1 $@
