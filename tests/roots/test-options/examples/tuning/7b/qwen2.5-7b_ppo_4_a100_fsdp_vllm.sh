#!/usr/bin/env bash
python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=gae \
    data.train_batch_size=64 \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct \
    actor_rollout_ref.rollout.name=vllm \
    trainer.n_gpus_per_node=4 \
    trainer.nnodes=1 $@
