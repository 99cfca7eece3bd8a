#!/bin/bash
# Idiom from THUDM/slime@624b824:scripts/run-glm4-9B.sh (one node: `ray start --head --num-gpus 8`,
# an actor of 4 GPUs and a rollout of 4 GPUs of its own, no --colocate).
# Written for sphinx-rlresources' tests; not a copy.
export MASTER_ADDR=${MASTER_ADDR:-"127.0.0.1"}
ray start --head --node-ip-address ${MASTER_ADDR} --num-gpus 8 --disable-usage-stats

ray job submit --address="http://127.0.0.1:8265" \
   -- python3 train.py \
   --actor-num-nodes 1 \
   --actor-num-gpus-per-node 4 \
   --rollout-num-gpus 4 \
   --hf-checkpoint /data/Qwen3-4B \
   --advantage-estimator grpo \
   --n-samples-per-prompt 8
