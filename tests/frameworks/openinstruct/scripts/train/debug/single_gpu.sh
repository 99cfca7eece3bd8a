#!/bin/bash
# Idiom from allenai/open-instruct@e6c3044aa620:scripts/train/debug/single_gpu_grpo.sh (the OLMo-core
# trainer grpo.py; vLLM shares the learner's one GPU).  Written for sphinx-rlresources' tests; not a copy.
uv run python open_instruct/grpo.py \
    --model_name_or_path Qwen/Qwen3-0.6B \
    --single_gpu_mode \
    --vllm_gpu_memory_utilization 0.3 \
    --deepspeed_stage 2 \
    --num_learners_per_node 1 \
    --load_ref_policy false
