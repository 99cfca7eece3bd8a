#!/bin/bash
# Idiom from huggingface/trl@f2cd577:examples/scripts/gspo.py (its docstring's
# `accelerate launch --config_file …`), with the config outside the repository: its
# process count cannot be read, so the GPUs are unknown.
accelerate launch --config_file "$HOME/accelerate/ds_zero3.yaml" \
    examples/scripts/gspo.py \
    --model_name_or_path Qwen/Qwen3-0.6B \
    --num_generations 8 \
    --use_vllm
