#!/usr/bin/env bash
# Fixture in the legacy idiom of volcengine/verl@b178a3c:examples/tuning/7b/qwen2-7b_grpo_2_h800_fsdp_vllm.sh
# (written for these tests): a flat command, a machine's folder on PYTHONPATH, a deprecated key,
# an override given twice with the same value.
set -x
export PYTHONPATH=/opt/tiger/open_verl:$PYTHONPATH
nnodes=1
ngpu_per_node=2
python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_batch_size=$(( 32 * nnodes )) \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct \
    actor_rollout_ref.model.enable_gradient_checkpointing=True \
    actor_rollout_ref.actor.ppo_micro_batch_size=16 \
    actor_rollout_ref.actor.fsdp_config.param_offload=True \
    actor_rollout_ref.model.enable_gradient_checkpointing=True \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=5 \
    trainer.n_gpus_per_node=$ngpu_per_node \
    trainer.nnodes=$nnodes $@
