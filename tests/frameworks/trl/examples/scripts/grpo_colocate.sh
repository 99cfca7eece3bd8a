#!/bin/bash
# Idiom from huggingface/trl@f2cd577:examples/scripts/grpo_vlm.py (its docstring's
# `accelerate launch --config_file … --use_vllm --vllm_mode colocate --use_peft`), run with
# TRL's own trainer script so TRL's defaults apply.
accelerate launch \
    --config_file examples/accelerate_configs/zero3_offload.yaml \
    trl/scripts/grpo.py \
    --model_name_or_path Qwen/Qwen2.5-1.5B-Instruct \
    --dataset_name trl-lib/DeepMath-103K \
    --use_vllm \
    --vllm_mode colocate \
    --vllm_gpu_memory_utilization 0.4 \
    --use_peft \
    --lora_r 32 \
    --num_generations 16 \
    --per_device_train_batch_size 4
