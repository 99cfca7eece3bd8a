#!/bin/bash
# Idiom from THUDM/slime@624b824:examples/search-r1/run_qwen2.5_3B.sh: --colocate together with
# an explicit --rollout-num-gpus.  Colocated GPUs are shared: the run takes max(4, 4), not 8.
# Settings sit in arrays quoted at expansion, and --colocate hides in a MISC array.
MISC_ARGS=(
   --colocate
   --attention-dropout 0.0
)

ray job submit --address="http://127.0.0.1:8265" \
   -- python3 train.py \
   --actor-num-nodes 1 \
   --actor-num-gpus-per-node 4 \
   --rollout-num-gpus 4 \
   --rollout-num-gpus-per-engine 2 \
   --hf-checkpoint "${HF_CHECKPOINT:-/root/Qwen2.5-3B}" \
   --advantage-estimator reinforce_plus_plus_baseline \
   --n-samples-per-prompt 5 \
   --rollout-batch-size 32 \
   "${MISC_ARGS[@]}"
