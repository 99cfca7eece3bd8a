#!/bin/bash
# Idiom from THUDM/slime@624b824:scripts/run-qwen3-235B-A22B.sh (`ray start --head --num-gpus 8`,
# an actor of whole nodes and a rollout of whole nodes, no --colocate), made smaller.
# Written for sphinx-rlresources' tests; not a copy.
ray start --head --node-ip-address ${MASTER_ADDR} --num-gpus 8 --disable-usage-stats --dashboard-port=8265

ray job submit --address="http://127.0.0.1:8265" \
   -- python3 train.py \
   --actor-num-nodes 2 \
   --actor-num-gpus-per-node 8 \
   --rollout-num-gpus 8 \
   --hf-checkpoint /data/Qwen3-30B-A3B
