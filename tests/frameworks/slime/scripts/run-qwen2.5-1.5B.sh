#!/bin/bash
# Idioms from THUDM/slime@624b824:scripts/run-qwen3-4B.sh: the model file sourced from the
# script's own folder, arrays with comment lines, a JSON runtime env in a variable, the
# launch through `ray job submit -- python3 train.py`, colocated with the rollout unsaid.
set -ex

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" &>/dev/null && pwd)"
source "${SCRIPT_DIR}/models/qwen2.5-1.5B.sh"

CKPT_ARGS=(
   --hf-checkpoint /root/Qwen2.5-1.5B-Instruct
   # --hf-checkpoint /root/Qwen2.5-1.5B-Instruct-FP8 (it's for the fp8 run)
   --ref-load /root/Qwen2.5-1.5B-Instruct_torch_dist
)

ROLLOUT_ARGS=(
   --rollout-batch-size 32
   --n-samples-per-prompt 8
   --rollout-max-prompt-len 1024
   --rollout-max-response-len 4096
   --global-batch-size 256
)

PERF_ARGS=(
   --tensor-model-parallel-size 2
   --sequence-parallel
   --recompute-granularity full
   --recompute-method uniform
   # --micro-batch-size 1
   --use-dynamic-batch-size
   --max-tokens-per-gpu 8192
)

GRPO_ARGS=(
   --advantage-estimator grpo
   --use-kl-loss
   --kl-loss-coef 0.00
)

SGLANG_ARGS=(
   --rollout-num-gpus-per-engine 2
   --sglang-mem-fraction-static 0.65
)

RUNTIME_ENV_JSON="{
  \"env_vars\": {\"PYTHONPATH\": \"/root/Megatron-LM/\", \"CUDA_DEVICE_MAX_CONNECTIONS\": \"1\"}
}"

ray job submit --address="http://127.0.0.1:8265" \
   --runtime-env-json="${RUNTIME_ENV_JSON}" \
   -- python3 train.py \
   --actor-num-nodes 1 \
   --actor-num-gpus-per-node 8 \
   --colocate \
   ${MODEL_ARGS[@]} \
   ${CKPT_ARGS[@]} \
   ${ROLLOUT_ARGS[@]} \
   ${PERF_ARGS[@]} \
   ${GRPO_ARGS[@]} \
   ${SGLANG_ARGS[@]}
