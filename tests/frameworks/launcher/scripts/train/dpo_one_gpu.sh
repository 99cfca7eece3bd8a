#!/bin/bash
# Idiom from allenai/open-instruct@e6c3044:scripts/train/dgx-spark/dpo_ultrafeedback.sh: accelerate
# run as a module (`python -m accelerate.commands.launch`) behind `uv run`, one process.
# Written for sphinx-rlresources' tests; not a copy.
set -e
cd "$(dirname "$0")/../../.."

uv run python -m accelerate.commands.launch \
    --mixed_precision bf16 \
    --num_processes 1 \
    open_instruct/dpo_tune_cache.py \
    --model_name_or_path Qwen/Qwen3-1.7B \
    --max_seq_length 1024 \
    --loss_type dpo_norm
