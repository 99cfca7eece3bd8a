#!/usr/bin/env bash
# Consistent: the style -- variables, arithmetic, quoted config name, LoRA.
set -x

MODEL_PATH=Qwen/Qwen2.5-7B-Instruct
nnodes=1
ngpu_per_node=1
total=$(( 16 * nnodes * ngpu_per_node ))

python3 -m verl.trainer.main_ppo --config-path=config --config-name='ppo_trainer.yaml' \
    algorithm.adv_estimator=grpo \
    data.train_batch_size=${total} \
    actor_rollout_ref.model.path=$MODEL_PATH \
    actor_rollout_ref.model.lora_rank=32 \
    actor_rollout_ref.rollout.name=vllm \
    trainer.n_gpus_per_node=${ngpu_per_node} \
    trainer.nnodes=$nnodes $@
