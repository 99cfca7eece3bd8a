#!/usr/bin/env bash
# Fixture in the idiom of verl-project/verl-recipe@48ea0a7:dapo/run_dapo_qwen2.5_32b.sh (written
# for these tests): ray job submit around a recipe's own trainer, whose config brings its own
# defaults (so what the script leaves out is unknown), GPUs from a documented default.
NNODES=${NNODES:-16}
MODEL_PATH=${MODEL_PATH:-"${HOME}/verl/models/Qwen2.5-32B"}
ray job submit --no-wait --working-dir "${PWD}" -- python3 -m recipe.dapo.main_dapo \
    algorithm.adv_estimator=grpo \
    actor_rollout_ref.model.path="${MODEL_PATH}" \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=16 \
    trainer.n_gpus_per_node=8 \
    trainer.nnodes="${NNODES}"
