#!/usr/bin/env bash
# Fixture in the idiom of verl-project/verl@1dda039:examples/tuning/lora/run_qwen3_8b_fsdp.sh
# (written for these tests, not copied): a user-adjustable block of ${VAR:-default}, the
# overrides in bash arrays without backslashes, a LAUNCH array chosen in an if.
set -xeuo pipefail

# ---- user-adjustable ----
MODEL_PATH=${MODEL_PATH:-Qwen/Qwen3-8B}
NNODES=${NNODES:-1}
NGPUS_PER_NODE=${NGPUS_PER_NODE:-2}
train_batch_size=${TRAIN_BATCH_SIZE:-64}
max_prompt_length=${MAX_PROMPT_LENGTH:-512}
max_response_length=${MAX_RESPONSE_LENGTH:-1024}
lora_rank=${LORA_RANK:-64}
rollout_tp=${ROLLOUT_TP:-2}
rollout_n=${ROLLOUT_N:-5}
# ---- end user-adjustable ----

DATA=(
    data.train_batch_size=$train_batch_size
    data.max_prompt_length=$max_prompt_length
    data.max_response_length=$max_response_length
)
MODEL=(
    actor_rollout_ref.model.path="$MODEL_PATH"
    actor_rollout_ref.model.lora_rank=$lora_rank
    actor_rollout_ref.model.enable_gradient_checkpointing=True
)
ACTOR=(
    actor_rollout_ref.actor.use_dynamic_bsz=True
    actor_rollout_ref.actor.ppo_max_token_len_per_gpu=$((max_prompt_length + max_response_length))
    actor_rollout_ref.actor.fsdp_config.param_offload=False
)
ROLLOUT=(
    actor_rollout_ref.rollout.name=vllm
    actor_rollout_ref.rollout.tensor_model_parallel_size=$rollout_tp
    actor_rollout_ref.rollout.n=$rollout_n
)
TRAINER=(
    algorithm.adv_estimator=grpo
    trainer.logger='["console"]'
    trainer.n_gpus_per_node=$NGPUS_PER_NODE
    trainer.nnodes=$NNODES
)
EXTRA=( )

LAUNCH=(python3)
if [ "${USE_UV:-1}" != 0 ]; then
    LAUNCH=(uv run --frozen python3)
fi
"${LAUNCH[@]}" -m verl.trainer.main_ppo "${DATA[@]}" "${MODEL[@]}" "${ACTOR[@]}" "${ROLLOUT[@]}" \
    "${TRAINER[@]}" "${EXTRA[@]}" "$@"
