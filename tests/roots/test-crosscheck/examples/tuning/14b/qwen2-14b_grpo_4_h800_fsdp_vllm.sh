#!/usr/bin/env bash
# Wrong model: the row says Qwen2-14B, the script trains Qwen2.5-Coder-14B.
set -x

MODEL_PATH=Qwen/Qwen2.5-Coder-14B-Instruct

python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_batch_size=128 \
    actor_rollout_ref.model.path=$MODEL_PATH \
    actor_rollout_ref.rollout.name=vllm \
    trainer.n_gpus_per_node=4 \
    trainer.nnodes=1 \
    trainer.total_epochs=1 $@
