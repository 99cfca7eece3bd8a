#!/bin/bash
# Idiom from THUDM/slime@624b824:scripts/run-qwen3-4B-base-sft.sh: supervised training through
# train_async.py with --debug-train-only (no SGLang engine at all) and --loss-type sft_loss.
SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" &>/dev/null && pwd)"
source "${SCRIPT_DIR}/models/qwen2.5-1.5B.sh"

SFT_ARGS=(
   --loss-type sft_loss
   --debug-train-only
   --rollout-batch-size 128
)

ray job submit --address="http://127.0.0.1:8265" \
   -- python3 train_async.py \
   --actor-num-nodes 2 \
   --actor-num-gpus-per-node 8 \
   ${MODEL_ARGS[@]} \
   --hf-checkpoint /root/Qwen2.5-1.5B \
   ${SFT_ARGS[@]}
