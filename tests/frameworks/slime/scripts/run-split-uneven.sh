#!/bin/bash
# Idiom from THUDM/slime@624b824:scripts/run-glm4-9B.sh, with a rollout that does not fill a node:
# Ray's PACK placement decides where its GPUs go, so the nodes are not said.
# Written for sphinx-rlresources' tests; not a copy.
ray start --head --node-ip-address 127.0.0.1 --num-gpus 8 --disable-usage-stats

ray job submit --address="http://127.0.0.1:8265" \
   -- python3 train.py \
   --actor-num-nodes 1 \
   --actor-num-gpus-per-node 8 \
   --rollout-num-gpus 4 \
   --hf-checkpoint /data/Qwen3-4B
