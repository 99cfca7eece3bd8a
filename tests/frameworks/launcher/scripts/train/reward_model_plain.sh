#!/bin/bash
# Idiom from allenai/open-instruct@e6c3044:scripts/train/debug/reward_modeling.sh: the reward
# model trainer run with plain `python` (no launcher), so accelerate's Accelerator() runs one
# process on one GPU whatever the machine has.
# Written for sphinx-rlresources' tests; not a copy.
CUDA_VISIBLE_DEVICES=0,1 python open_instruct/reward_modeling.py \
    --dataset_mixer_list some-org/preference-pairs 200 \
    --model_name_or_path EleutherAI/pythia-160m \
    --per_device_train_batch_size 2 \
    --num_train_epochs 1
