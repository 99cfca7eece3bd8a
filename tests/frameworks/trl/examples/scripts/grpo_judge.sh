#!/bin/bash
# Idiom from huggingface/trl@f2cd577:docs/source/grpo_trainer.md (`accelerate launch` of a GRPO
# script with --use_vllm, colocated) and examples/scripts/async_grpo.py (vLLM's own `vllm serve`
# pinned with CUDA_VISIBLE_DEVICES); here the server is a judge the reward function asks, not the
# trainer's rollout: its GPU is the run's all the same.
# Written for sphinx-rlresources' tests; not a copy.
set -euo pipefail

CUDA_VISIBLE_DEVICES=3 vllm serve Qwen/Qwen3-32B-AWQ --port 8001 &

CUDA_VISIBLE_DEVICES=0,1,2 accelerate launch --num_processes 3 \
    examples/scripts/grpo_judge.py \
    --model_name_or_path Qwen/Qwen3-1.7B \
    --use_vllm --vllm_mode colocate
