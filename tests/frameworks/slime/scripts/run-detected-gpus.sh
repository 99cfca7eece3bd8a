#!/bin/bash
# Idiom from THUDM/slime@624b824:scripts/run-qwen3-4B.sh (the GPU count probed with nvidia-smi
# when the script runs, with a fallback inside `if`): unknown until then.
if command -v nvidia-smi >/dev/null 2>&1; then
    DETECTED_GPUS=$(nvidia-smi -L | wc -l)
else
    DETECTED_GPUS=0
fi
NUM_GPUS=${NUM_GPUS:-${DETECTED_GPUS}}
if [ "$NUM_GPUS" -le 0 ]; then
    NUM_GPUS=8
fi

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" &>/dev/null && pwd)"
source "${SCRIPT_DIR}/models/qwen2.5-1.5B.sh"

ray job submit --address="http://127.0.0.1:8265" \
   -- python3 train.py \
   --actor-num-nodes 1 \
   --actor-num-gpus-per-node ${NUM_GPUS} \
   --colocate \
   ${MODEL_ARGS[@]} \
   --hf-checkpoint /root/Qwen2.5-1.5B-Instruct \
   --rollout-batch-size 16 \
   --n-samples-per-prompt 4
