#!/bin/bash
# Idiom from huggingface/trl@f2cd577:docs/source/async_grpo_trainer.md (vLLM's own `vllm serve`
# started on its own, the trainer in another terminal): a script with the server alone is no TRL run.
# Written for sphinx-rlresources' tests; not a copy.
CUDA_VISIBLE_DEVICES=0 VLLM_SERVER_DEV_MODE=1 vllm serve Qwen/Qwen3-4B --max-model-len 4096
