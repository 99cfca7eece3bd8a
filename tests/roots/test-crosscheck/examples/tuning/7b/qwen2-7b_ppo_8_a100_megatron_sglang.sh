#!/usr/bin/env bash
# Consistent: PPO (gae) on megatron via "--config-name NAME", sglang, exported and
# quoted values, a model under $HOME compared through model_id.
set -euo pipefail

export GPUS_PER_NODE="8"   # one node
export ENGINE='sglang'

python3 -m verl.trainer.main_ppo --config-name ppo_megatron_trainer \
    algorithm.adv_estimator="gae" \
    actor_rollout_ref.model.path="$HOME/models/Qwen2-7B-Instruct" \
    actor_rollout_ref.rollout.name="${ENGINE}" \
    trainer.n_gpus_per_node="${GPUS_PER_NODE}" \
    trainer.nnodes=1 \
    trainer.logger=['console'] 2>&1 | tee ppo.log
