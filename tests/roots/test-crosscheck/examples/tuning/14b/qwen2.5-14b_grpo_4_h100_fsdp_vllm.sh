#!/usr/bin/env bash
# Wrong model_id: the row names the Instruct model, the script trains the base model.
set -x

MODEL_PATH=Qwen/Qwen2.5-14B

python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_batch_size=128 \
    actor_rollout_ref.model.path=$MODEL_PATH \
    actor_rollout_ref.rollout.name=vllm \
    trainer.n_gpus_per_node=4 \
    trainer.nnodes=1 \
    trainer.total_epochs=1 $@
