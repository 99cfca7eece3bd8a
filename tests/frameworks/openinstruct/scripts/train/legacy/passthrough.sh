#!/bin/bash
# Idiom from allenai/open-instruct@e6c3044aa620:scripts/train/qwen/qwen3_4b_dapo_math.sh (the caller's
# flags passed through with "$@"; a learner count left to the environment).
# Written for sphinx-rlresources' tests; not a copy.
uv run open_instruct/grpo_fast.py \
    --model_name_or_path "$MODEL" \
    --num_learners_per_node $LEARNERS \
    --vllm_num_engines 4 \
    "$@"
