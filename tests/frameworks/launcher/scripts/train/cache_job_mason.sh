#!/bin/bash
# Idiom from allenai/open-instruct@e6c3044:scripts/train/debug/oc_sft_cache.sh: a CPU-only job
# submitted with `uv run python mason.py ... --gpus 0 -- uv run python ...` that only builds
# the tokenized dataset cache.
# Written for sphinx-rlresources' tests; not a copy.
IMAGE="${1:-someone/open-instruct}"

uv run python mason.py \
    --cluster ai2/some-cluster \
    --image "$IMAGE" \
    --num_nodes 1 \
    --gpus 0 \
    -- \
    uv run python open_instruct/olmo_core_finetune.py \
    --model_name_or_path Qwen/Qwen3-0.6B \
    --max_seq_length 1024 \
    --cache_dataset_only
