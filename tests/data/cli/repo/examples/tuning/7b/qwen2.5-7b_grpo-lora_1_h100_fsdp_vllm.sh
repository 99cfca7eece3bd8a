#!/usr/bin/env bash
# MIN: Qwen2.5-7B GRPO-LoRA on one H100 (fsdp + vllm 0.8.3).
set -x
python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_batch_size=16 \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct \
    actor_rollout_ref.model.lora_rank=64 \
    actor_rollout_ref.rollout.name=vllm \
    trainer.n_gpus_per_node=1 \
    trainer.nnodes=1 "$@"
