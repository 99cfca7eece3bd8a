#!/usr/bin/env bash
# Fixture in the legacy idiom of volcengine/verl@b178a3c:examples/tuning/32b/qwen2_32B_grpo_8_h20_megatron_vllm.sh
# (written for these tests): Megatron by its own config, quoted with .yaml and no space before '\'.
python3 -m verl.trainer.main_ppo --config-path=config --config-name='ppo_megatron_trainer.yaml'\
    algorithm.adv_estimator=grpo \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-32B \
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=8 \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=1 \
    trainer.n_gpus_per_node=8 \
    trainer.nnodes=1
