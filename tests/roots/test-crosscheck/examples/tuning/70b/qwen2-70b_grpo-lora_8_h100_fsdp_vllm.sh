#!/usr/bin/env bash
# Says LoRA, but the script sets no lora_rank (full fine-tuning).
set -x

MODEL_PATH=Qwen/Qwen2-70B-Instruct

python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_batch_size=128 \
    actor_rollout_ref.model.path=$MODEL_PATH \
    actor_rollout_ref.rollout.name=vllm \
    trainer.n_gpus_per_node=8 \
    trainer.nnodes=1 \
    trainer.total_epochs=1 $@
