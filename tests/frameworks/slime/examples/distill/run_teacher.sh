#!/bin/bash
# Idiom from THUDM/slime@624b824:examples/on_policy_distillation/run-qwen3-8B-opd.sh: a teacher
# SGLang server pinned to one GPU outside Ray, then train_async.py on GPUs of its own.
CUDA_VISIBLE_DEVICES=7 python3 -m sglang.launch_server \
    --model-path /root/Qwen3-14B \
    --tp 1 \
    --port 13141 \
    --mem-fraction-static 0.6 > /tmp/teacher.log 2>&1 &

until curl -sf http://127.0.0.1:13141/health_generate > /dev/null; do
    sleep 5
done

ray job submit --address="http://127.0.0.1:8265" \
   -- python3 train_async.py \
   --actor-num-nodes 1 \
   --actor-num-gpus-per-node 2 \
   --rollout-num-gpus 4 \
   --hf-checkpoint /root/Qwen3-1.7B \
   --rollout-batch-size 16 \
   --n-samples-per-prompt 4
