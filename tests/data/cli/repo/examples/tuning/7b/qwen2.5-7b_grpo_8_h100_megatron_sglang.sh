#!/usr/bin/env bash
# RECOMMENDED: Qwen2.5-7B GRPO on 8*H100 with Megatron and SGLang; has no row yet.
set -x
nnodes=1
python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer \
    algorithm.adv_estimator=grpo \
    data.train_batch_size=256 \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct \
    actor_rollout_ref.rollout.name=sglang \
    trainer.n_gpus_per_node=8 \
    trainer.nnodes=$nnodes "$@"
