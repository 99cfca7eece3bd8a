#!/bin/bash
# Idiom from allenai/open-instruct@e6c3044aa620:scripts/train/debug/grpo_fast_3_gpu.sh (no mason: two
# learners plus the one vLLM engine open-instruct starts by default).
# Written for sphinx-rlresources' tests; not a copy.
export VLLM_USE_V1=1
uv run python open_instruct/grpo_fast.py \
    --model_name_or_path Qwen/Qwen3-0.6B \
    --deepspeed_stage 3 \
    --num_learners_per_node 2 \
    --use_peft \
    --lora_r 16
