#!/usr/bin/env bash
# Idiom from verl-project/verl-recipe@48ea0a7:dapo/run_dapo_qwen2.5_32b.sh
# (DAPO's trainer run as recipe.dapo.main_dapo, which reads dapo/config/dapo_trainer.yaml).
# Written for sphinx-rlresources' tests; not a copy.
set -xeuo pipefail

NNODES=${NNODES:-2}
MODEL_PATH=${MODEL_PATH:-"${HOME}/verl/models/Qwen2.5-7B"}

python3 -m recipe.dapo.main_dapo \
    data.train_batch_size=256 \
    algorithm.adv_estimator=grpo \
    algorithm.filter_groups.enable=True \
    actor_rollout_ref.model.path="${MODEL_PATH}" \
    actor_rollout_ref.actor.fsdp_config.param_offload=True \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=16 \
    trainer.n_gpus_per_node=8 \
    trainer.nnodes="${NNODES}"
