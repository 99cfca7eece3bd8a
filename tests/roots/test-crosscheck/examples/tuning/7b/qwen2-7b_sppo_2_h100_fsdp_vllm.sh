#!/usr/bin/env bash
# Consistent: a task name the check does not know (SPPO) is not compared with the
# estimator; the GPUs are the default the script documents, ${GPUS:-2}.
set -x

python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    actor_rollout_ref.model.path=Qwen/Qwen2-7B-Instruct \
    actor_rollout_ref.rollout.name=vllm \
    trainer.n_gpus_per_node=${GPUS:-2} \
    trainer.nnodes=1
