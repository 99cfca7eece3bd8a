#!/bin/bash
# Idiom from allenai/open-instruct@0becd2c:scripts/train/tulu3/finetune_8b.sh (accelerate launch
# with --num_processes and --use_deepspeed around open_instruct/finetune.py), run on one node.
# Written for sphinx-rlresources' tests; not a copy.
NUM_GPUS=${NUM_GPUS:-4}

accelerate launch \
    --mixed_precision bf16 \
    --num_machines 1 \
    --num_processes $NUM_GPUS \
    --use_deepspeed \
    --deepspeed_config_file configs/ds_configs/stage3_no_offloading_accelerate.conf \
    open_instruct/finetune.py \
    --model_name_or_path meta-llama/Llama-3.1-8B \
    --max_seq_length 4096 \
    --per_device_train_batch_size 1
