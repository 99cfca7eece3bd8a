#!/usr/bin/env bash
# MIN configuration: Qwen2-14B GRPO on 4*H800 (fsdp + vllm 0.8.2).
# Sample launcher kept by sphinx-rlresources; the docs table links to it and the
# build checks that it agrees with its row.
set -x

MODEL_PATH=Qwen/Qwen2-14B-Instruct

python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_files=data/gsm8k/train.parquet \
    data.val_files=data/gsm8k/test.parquet \
    data.train_batch_size=64 \
    data.max_prompt_length=512 \
    data.max_response_length=1024 \
    actor_rollout_ref.model.path=$MODEL_PATH \
    actor_rollout_ref.model.enable_gradient_checkpointing=True \
    actor_rollout_ref.actor.optim.lr=1e-6 \
    actor_rollout_ref.actor.fsdp_config.param_offload=True \
    actor_rollout_ref.actor.fsdp_config.optimizer_offload=True \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.tensor_model_parallel_size=4 \
    actor_rollout_ref.rollout.gpu_memory_utilization=0.6 \
    actor_rollout_ref.rollout.n=5 \
    trainer.logger=['console'] \
    trainer.project_name=verl_tuning \
    trainer.experiment_name=qwen2-14b_grpo_4_h800_fsdp_vllm \
    trainer.n_gpus_per_node=4 \
    trainer.nnodes=1 \
    trainer.total_epochs=1 $@
