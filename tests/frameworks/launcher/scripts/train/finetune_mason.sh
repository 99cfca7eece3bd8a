#!/bin/bash
# Idiom from allenai/open-instruct@0becd2c:scripts/train/tulu3/finetune_8b.sh: mason.py submits
# the job (8 nodes of 8) and rewrites accelerate's process count for it, so the
# `--num_processes 8` written here is not the run's GPUs.
# Written for sphinx-rlresources' tests; not a copy.
python mason.py \
    --cluster ai2/some-cluster \
    --num_nodes 8 \
    --gpus 8 -- accelerate launch \
    --mixed_precision bf16 \
    --num_processes 8 \
    --use_deepspeed \
    open_instruct/finetune.py \
    --model_name_or_path meta-llama/Llama-3.1-8B
