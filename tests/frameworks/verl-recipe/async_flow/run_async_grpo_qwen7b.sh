#!/usr/bin/env bash
# Idiom from verl-project/verl-recipe@48ea0a7:async_flow/run_async_grpo_qwen7b_gsm8k_local.sh
# (python3 -m recipe.async_flow.grpo_main with a role's GPUs overridden). Written for sphinx-rlresources' tests; not a copy.
python3 -m recipe.async_flow.grpo_main \
    algorithm.adv_estimator=grpo \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct \
    trainer.n_gpus_per_node=2 \
    async_resources.actor_train.n_gpus_per_node=4
