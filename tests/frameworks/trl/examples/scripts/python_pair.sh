#!/bin/bash
# Idiom from huggingface/trl@f2cd577:examples/scripts/openenv/wordle.py (its docstring's server
# option: `trl vllm-serve` on GPU 0, a single-process trainer on GPU 1, dashed flags).
CUDA_VISIBLE_DEVICES=0 trl vllm-serve --model Qwen/Qwen3-1.7B --port 8000 &
CUDA_VISIBLE_DEVICES=1 python examples/scripts/openenv/wordle.py --vllm-mode server \
    --vllm-server-url http://localhost:8000
