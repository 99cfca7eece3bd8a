#!/usr/bin/env bash
# Fixture in the idiom of verl-project/verl@1dda039:examples/tuning/lora/run_qwen3_30b_a3b_megatron.sh
# (written for these tests): Megatron chosen only by a top-level model_engine=megatron in an
# array, the LoRA rank under model.lora.rank, the token budget computed in a default.
set -xeuo pipefail
MODEL_PATH=${MODEL_PATH:-Qwen/Qwen3-30B-A3B-Instruct-2507}
NNODES=${NNODES:-1}
NGPUS_PER_NODE=${NGPUS_PER_NODE:-8}
max_prompt_length=${MAX_PROMPT_LENGTH:-1024}
max_response_length=${MAX_RESPONSE_LENGTH:-2048}
token_budget=${PPO_MAX_TOKEN_LEN_PER_GPU:-$((max_prompt_length + max_response_length))}

ARGS=(
    algorithm.adv_estimator=grpo
    data.max_prompt_length=$max_prompt_length
    data.max_response_length=$max_response_length
    actor_rollout_ref.model.path=$MODEL_PATH
    actor_rollout_ref.model.lora.rank=32
    actor_rollout_ref.model.lora.alpha=64
    actor_rollout_ref.actor.ppo_max_token_len_per_gpu=$token_budget
    actor_rollout_ref.actor.megatron.tensor_model_parallel_size=4
    actor_rollout_ref.actor.megatron.expert_model_parallel_size=8
    actor_rollout_ref.rollout.name=vllm
    actor_rollout_ref.rollout.n=4
    trainer.n_gpus_per_node=$NGPUS_PER_NODE
    trainer.nnodes=$NNODES
)
EXTRA=(model_engine=megatron)
python3 -m verl.trainer.main_ppo "${ARGS[@]}" "${EXTRA[@]}" "$@"
