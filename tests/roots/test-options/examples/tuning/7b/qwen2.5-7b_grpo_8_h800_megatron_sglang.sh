#!/usr/bin/env bash
python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer \
    algorithm.adv_estimator=grpo \
    data.train_batch_size=16 \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct \
    actor_rollout_ref.rollout.name=sglang \
    trainer.n_gpus_per_node=8 \
    trainer.nnodes=1 $@
