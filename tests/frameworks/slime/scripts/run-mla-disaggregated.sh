#!/bin/bash
# Idioms from THUDM/slime@624b824:scripts/run-qwen3-235B-A22B.sh (actor and rollout on GPUs of
# their own, Megatron's TP/PP/CP/EP, the CPU optimizer) and scripts/models/deepseek-v3-5layer.sh
# (a model file sourced with an environment prefix).  The checkpoint folder comes from the
# environment, so the model's path is unknown.
SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" &>/dev/null && pwd)"
MODEL_ARGS_NUM_LAYERS=4 source "${SCRIPT_DIR}/models/mla-small.sh"

PERF_ARGS=(
   --tensor-model-parallel-size 4
   --pipeline-model-parallel-size 2
   --context-parallel-size 2
   --expert-model-parallel-size 8
   --optimizer-cpu-offload
)

ray job submit --address="http://127.0.0.1:8265" \
   -- python3 train.py \
   --actor-num-nodes 2 \
   --actor-num-gpus-per-node 8 \
   --rollout-num-gpus 16 \
   --rollout-num-gpus-per-engine 8 \
   "${MODEL_ARGS[@]}" \
   "${PERF_ARGS[@]}" \
   --hf-checkpoint $BASE_DIR/mla-small \
   --advantage-estimator gspo \
   --n-samples-per-prompt 8 \
   --rollout-batch-size 64
