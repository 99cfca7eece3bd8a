#!/bin/bash
# Idiom from huggingface/trl@f2cd577:docs/source/vllm_integration.md (a vLLM server on four
# devices and the trainer on the other four, each pinned by CUDA_VISIBLE_DEVICES), in one script.
CUDA_VISIBLE_DEVICES=0,1,2,3 trl vllm-serve --model Qwen/Qwen2.5-7B \
    --tensor_parallel_size 2 --data_parallel_size 2 &

sleep 60

CUDA_VISIBLE_DEVICES=4,5,6,7 accelerate launch \
    --config_file examples/accelerate_configs/zero3_offload.yaml \
    --num_processes 4 \
    train_grpo.py --use_vllm --vllm_mode server
