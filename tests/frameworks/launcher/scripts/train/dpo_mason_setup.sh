#!/bin/bash
# Idiom from allenai/open-instruct@e6c3044:scripts/train/olmo3/7b_instruct_dpo.sh: mason.py
# submits `source <env profile> \&\& accelerate launch ...` (the escaped && reaches mason's
# shell), four nodes of eight, accelerate's --num_processes written per node.
# Written for sphinx-rlresources' tests; not a copy.
MODEL_NAME=/checkpoints/sft-final
for LR in 5e-7
do
    uv run python mason.py \
        --cluster ai2/some-cluster \
        --num_nodes 4 \
        --gpus 8 -- source /opt/env-profile.sh \&\& accelerate launch \
        --mixed_precision bf16 \
        --num_processes 8 \
        --use_deepspeed \
        --deepspeed_config_file configs/ds_configs/stage3_no_offloading_accelerate.conf \
        open_instruct/dpo_tune_cache.py \
        --model_name_or_path $MODEL_NAME \
        --learning_rate $LR
done
